// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "image.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <iterator>

namespace ocr {
namespace {

// Reads the next header token of a PPM, skipping whitespace and '#' comments.
bool NextToken(const std::vector<uint8_t>& bytes, size_t* pos, long* value) {
  size_t p = *pos;
  while (p < bytes.size()) {
    if (bytes[p] == '#') {
      while (p < bytes.size() && bytes[p] != '\n') ++p;
    } else if (std::isspace(bytes[p])) {
      ++p;
    } else {
      break;
    }
  }
  long v = 0;
  size_t digits = 0;
  while (p < bytes.size() && std::isdigit(bytes[p]) && digits < 9) {
    v = v * 10 + (bytes[p] - '0');
    ++p;
    ++digits;
  }
  if (digits == 0 || (p < bytes.size() && std::isdigit(bytes[p]))) return false;
  *pos = p;
  *value = v;
  return true;
}

uint8_t Saturate(float v) {
  return static_cast<uint8_t>(std::min(255.0f, std::max(0.0f, std::nearbyint(v))));
}

// Bilinear sample at (x, y) with replicated borders.
void Sample(const Image& src, float x, float y, uint8_t* out) {
  x = std::min(std::max(x, 0.0f), static_cast<float>(src.width - 1));
  y = std::min(std::max(y, 0.0f), static_cast<float>(src.height - 1));
  const int x0 = static_cast<int>(x);
  const int y0 = static_cast<int>(y);
  const int x1 = std::min(x0 + 1, src.width - 1);
  const int y1 = std::min(y0 + 1, src.height - 1);
  const float fx = x - x0;
  const float fy = y - y0;
  const uint8_t* a = src.At(x0, y0);
  const uint8_t* b = src.At(x1, y0);
  const uint8_t* c = src.At(x0, y1);
  const uint8_t* d = src.At(x1, y1);
  for (int ch = 0; ch < 3; ++ch) {
    const float top = a[ch] + (b[ch] - a[ch]) * fx;
    const float bottom = c[ch] + (d[ch] - c[ch]) * fx;
    out[ch] = Saturate(top + (bottom - top) * fy);
  }
}

// Solves the 8x8 system of a homography by Gaussian elimination with partial pivoting.
bool SolveHomography(const std::array<PointF, 4>& from, const std::array<PointF, 4>& to,
                     double h[9]) {
  double a[8][9] = {};
  for (int i = 0; i < 4; ++i) {
    const double x = from[i].x, y = from[i].y, u = to[i].x, v = to[i].y;
    double* r0 = a[2 * i];
    double* r1 = a[2 * i + 1];
    r0[0] = x, r0[1] = y, r0[2] = 1, r0[6] = -x * u, r0[7] = -y * u, r0[8] = u;
    r1[3] = x, r1[4] = y, r1[5] = 1, r1[6] = -x * v, r1[7] = -y * v, r1[8] = v;
  }
  for (int col = 0; col < 8; ++col) {
    int pivot = col;
    for (int r = col + 1; r < 8; ++r) {
      if (std::fabs(a[r][col]) > std::fabs(a[pivot][col])) pivot = r;
    }
    if (std::fabs(a[pivot][col]) < 1e-12) return false;
    std::swap(a[col], a[pivot]);
    for (int r = 0; r < 8; ++r) {
      if (r == col) continue;
      const double f = a[r][col] / a[col][col];
      for (int k = col; k < 9; ++k) a[r][k] -= f * a[col][k];
    }
  }
  for (int i = 0; i < 8; ++i) h[i] = a[i][8] / a[i][i];
  h[8] = 1;
  return true;
}

}  // namespace

bool ReadPpm(const std::string& path, Image* image, std::string* error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *error = "cannot open '" + path + "'";
    return false;
  }
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
  if (bytes.size() < 2 || bytes[0] != 'P' || bytes[1] != '6') {
    *error = "'" + path + "' is not a binary PPM (P6); convert it, e.g. with Pillow: " +
             "Image.open(f).convert('RGB').save('x.ppm')";
    return false;
  }
  size_t pos = 2;
  long w = 0, h = 0, maxval = 0;
  if (!NextToken(bytes, &pos, &w) || !NextToken(bytes, &pos, &h) ||
      !NextToken(bytes, &pos, &maxval) || pos >= bytes.size() || !std::isspace(bytes[pos])) {
    *error = "'" + path + "': malformed PPM header";
    return false;
  }
  ++pos;  // the single whitespace byte before the pixels
  if (w <= 0 || h <= 0 || w > 16384 || h > 16384 || maxval <= 0 || maxval > 255) {
    *error = "'" + path + "': unsupported PPM (" + std::to_string(w) + "x" + std::to_string(h) +
             ", maxval " + std::to_string(maxval) + "; need 1..16384 pixels a side, maxval <= 255)";
    return false;
  }
  const size_t need = static_cast<size_t>(w) * h * 3;
  if (bytes.size() - pos < need) {
    *error = "'" + path + "': truncated PPM (" + std::to_string(bytes.size() - pos) +
             " pixel bytes, need " + std::to_string(need) + ")";
    return false;
  }
  *image = Image(static_cast<int>(w), static_cast<int>(h));
  for (size_t i = 0; i < need; ++i) {
    image->rgb[i] = static_cast<uint8_t>(bytes[pos + i] * 255 / maxval);
  }
  return true;
}

bool WritePpm(const std::string& path, const Image& image, std::string* error) {
  std::ofstream out(path, std::ios::binary);
  out << "P6\n" << image.width << " " << image.height << "\n255\n";
  out.write(reinterpret_cast<const char*>(image.rgb.data()),
            static_cast<std::streamsize>(image.rgb.size()));
  if (!out) {
    *error = "cannot write '" + path + "'";
    return false;
  }
  return true;
}

Image ResizeBilinear(const Image& src, int width, int height) {
  Image dst(width, height);
  const float sx = static_cast<float>(src.width) / width;
  const float sy = static_cast<float>(src.height) / height;
  for (int y = 0; y < height; ++y) {
    const float fy = (y + 0.5f) * sy - 0.5f;
    for (int x = 0; x < width; ++x) {
      Sample(src, (x + 0.5f) * sx - 0.5f, fy, dst.At(x, y));
    }
  }
  return dst;
}

Image CropQuad(const Image& src, const std::array<PointF, 4>& quad, int width, int height) {
  const std::array<PointF, 4> rect = {PointF{0, 0}, PointF{static_cast<float>(width), 0},
                                      PointF{static_cast<float>(width), static_cast<float>(height)},
                                      PointF{0, static_cast<float>(height)}};
  Image dst(width, height);
  double h[9];
  if (!SolveHomography(rect, quad, h)) return dst;  // a degenerate quad: a black crop
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      const double w = h[6] * x + h[7] * y + h[8];
      const double u = (h[0] * x + h[1] * y + h[2]) / w;
      const double v = (h[3] * x + h[4] * y + h[5]) / w;
      Sample(src, static_cast<float>(u), static_cast<float>(v), dst.At(x, y));
    }
  }
  return dst;
}

Image Rotate180(const Image& src) {
  Image dst(src.width, src.height);
  for (int y = 0; y < src.height; ++y) {
    for (int x = 0; x < src.width; ++x) {
      std::copy_n(src.At(x, y), 3, dst.At(src.width - 1 - x, src.height - 1 - y));
    }
  }
  return dst;
}

Image Rotate90Ccw(const Image& src) {
  Image dst(src.height, src.width);
  for (int y = 0; y < src.height; ++y) {
    for (int x = 0; x < src.width; ++x) {
      std::copy_n(src.At(x, y), 3, dst.At(y, src.width - 1 - x));
    }
  }
  return dst;
}

Image PadVertical(const Image& src, int top, int bottom) {
  Image dst(src.width, src.height + top + bottom, 0);
  std::copy(src.rgb.begin(), src.rgb.end(),
            dst.rgb.begin() + static_cast<size_t>(top) * src.width * 3);
  return dst;
}

void ToPlanarBgr(const Image& src, int out_width, int out_height, float* out) {
  const size_t plane = static_cast<size_t>(out_width) * out_height;
  std::fill(out, out + 3 * plane, 0.0f);
  const int w = std::min(src.width, out_width);
  const int h = std::min(src.height, out_height);
  for (int c = 0; c < 3; ++c) {
    const int rgb_channel = 2 - c;
    float* dst = out + c * plane;
    for (int y = 0; y < h; ++y) {
      for (int x = 0; x < w; ++x) {
        dst[static_cast<size_t>(y) * out_width + x] =
            (src.At(x, y)[rgb_channel] / 255.0f - 0.5f) / 0.5f;
      }
    }
  }
}

}  // namespace ocr
