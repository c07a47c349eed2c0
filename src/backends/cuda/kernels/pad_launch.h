// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The CUDA Pad launcher (pad.cu), callable from plain C++: each output element reads the input
// element its per-axis positions map to (the rule of kernels::ResolvePad, computed on the
// device) or takes the constant value.
#pragma once

#include <cstdint>

#include "backends/cuda/kernels/elementwise_launch.h"

namespace kiln::cuda {

enum class PadMode : int { kConstant, kEdge, kReflect, kWrap };

// A Pad of `rank` dims. Per axis: the output dim, the input's stride (in elements), and what
// the pads make of it — negative pads crop the input to [lo, lo + kept), then `before` output
// positions come ahead of what the crop kept.
struct PadShape {
  int rank = 0;
  PadMode mode = PadMode::kConstant;
  int64_t out_dims[kMaxBroadcastRank] = {};
  int64_t in_strides[kMaxBroadcastRank] = {};
  int64_t lo[kMaxBroadcastRank] = {};
  int64_t before[kMaxBroadcastRank] = {};
  int64_t kept[kMaxBroadcastRank] = {};
};

// The input position output position `o` of axis `d` reads, or -1 for the constant value
// (kernels::ResolvePad's map; the host checks the two agree).
KILN_HOST_DEVICE inline int64_t PadSource(const PadShape& s, int d, int64_t o) {
  const int64_t n = s.kept[d];
  int64_t j = o - s.before[d];
  if (j < 0 || j >= n) {
    switch (s.mode) {
      case PadMode::kConstant:
        return -1;
      case PadMode::kEdge:
        j = j < 0 ? 0 : n - 1;
        break;
      case PadMode::kWrap:
        j = ((j % n) + n) % n;
        break;
      case PadMode::kReflect:
        if (n == 1) {
          j = 0;
        } else {  // periodically for pads longer than the axis
          const int64_t period = 2 * (n - 1);
          j = ((j % period) + period) % period;
          if (j >= n) j = period - j;
        }
        break;
    }
  }
  return s.lo[d] + j;
}

// The input element output element `i` (row-major over out_dims) reads, or -1 for the constant
// value.
KILN_HOST_DEVICE inline int64_t PadOffset(const PadShape& s, int64_t i) {
  int64_t rest = i, offset = 0;
  for (int d = s.rank - 1; d >= 0; --d) {
    const int64_t src = PadSource(s, d, rest % s.out_dims[d]);
    if (src < 0) return -1;
    rest /= s.out_dims[d];
    offset += src * s.in_strides[d];
  }
  return offset;
}

// The shape of a Pad of an input of `rank` dims `in` to `out`, with `begin` / `end` pads per
// axis (0 on axes not padded; negative ones crop); false for more than kMaxBroadcastRank dims.
// The pads fit (kernels::ResolvePad checked them): reflect, edge and wrap keep an element of
// every axis they pad.
bool MakePadShape(PadMode mode, const int64_t* in, const int64_t* out, int rank,
                  const int64_t* begin, const int64_t* end, PadShape* shape);

// Launch on `stream` (a cudaStream_t); return the launch's cudaError_t as an int (0: success).
// y[i] = x[PadOffset(i)], or the `elem_bytes`-byte element whose bytes are `fill`'s low ones,
// for the n output elements; `elem_bytes` is 1, 2, 4 or 8.
int LaunchPad(const void* x, void* y, int64_t n, int elem_bytes, uint64_t fill,
              const PadShape& shape, void* stream);

}  // namespace kiln::cuda
