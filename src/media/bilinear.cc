// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "media/bilinear.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace kiln::media {
namespace {

constexpr int kBits = 11;  // OpenCV's INTER_RESIZE_COEF_BITS
constexpr int kOne = 1 << kBits;

// For each destination index: the two source indexes and the second one's weight.
struct Taps {
  std::vector<uint32_t> i0, i1;
  std::vector<int> w1;
};

Taps MakeTaps(uint32_t src, uint32_t dst) {
  Taps t;
  t.i0.resize(dst);
  t.i1.resize(dst);
  t.w1.resize(dst);
  const double scale = static_cast<double>(src) / dst;
  for (uint32_t d = 0; d < dst; ++d) {
    double f = (d + 0.5) * scale - 0.5;
    auto i = static_cast<int64_t>(std::floor(f));
    double a = f - static_cast<double>(i);
    if (i < 0) {
      i = 0;
      a = 0;
    }
    if (i >= static_cast<int64_t>(src) - 1) {
      i = static_cast<int64_t>(src) - 1;
      a = 0;
    }
    t.i0[d] = static_cast<uint32_t>(i);
    t.i1[d] = std::min<uint32_t>(static_cast<uint32_t>(i) + 1, src - 1);
    t.w1[d] = static_cast<int>(std::lround(a * kOne));
  }
  return t;
}

}  // namespace

void BilinearResize(const uint8_t* src, uint32_t sw, uint32_t sh, uint8_t* dst, uint32_t dw,
                    uint32_t dh, int channels) {
  const Taps xs = MakeTaps(sw, dw), ys = MakeTaps(sh, dh);
  const size_t row = static_cast<size_t>(dw) * channels;
  // Horizontal pass of one source row, cached for the two rows a destination row reads.
  std::vector<int> cache[2] = {std::vector<int>(row), std::vector<int>(row)};
  int64_t cached[2] = {-1, -1};
  auto horizontal = [&](uint32_t y) -> const std::vector<int>& {
    for (int k = 0; k < 2; ++k) {
      if (cached[k] == y) return cache[k];
    }
    const int slot = cached[0] < cached[1] ? 0 : 1;  // the older of the two
    const uint8_t* s = src + static_cast<size_t>(y) * sw * channels;
    std::vector<int>& out = cache[slot];
    for (uint32_t x = 0; x < dw; ++x) {
      const uint8_t* p0 = s + static_cast<size_t>(xs.i0[x]) * channels;
      const uint8_t* p1 = s + static_cast<size_t>(xs.i1[x]) * channels;
      const int w1 = xs.w1[x], w0 = kOne - w1;
      for (int c = 0; c < channels; ++c) out[x * channels + c] = p0[c] * w0 + p1[c] * w1;
    }
    cached[slot] = y;
    return out;
  };
  for (uint32_t y = 0; y < dh; ++y) {
    const std::vector<int>& r0 = horizontal(ys.i0[y]);
    const std::vector<int>& r1 = horizontal(ys.i1[y]);
    const int w1 = ys.w1[y], w0 = kOne - w1;
    uint8_t* d = dst + static_cast<size_t>(y) * row;
    for (size_t i = 0; i < row; ++i) {
      const int64_t v =
          (int64_t{r0[i]} * w0 + int64_t{r1[i]} * w1 + (int64_t{1} << (2 * kBits - 1))) >>
          (2 * kBits);
      d[i] = static_cast<uint8_t>(std::clamp<int64_t>(v, 0, 255));
    }
  }
}

}  // namespace kiln::media
