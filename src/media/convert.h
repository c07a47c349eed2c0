// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Pictures to and from the two working forms every DVPP operation computes in: planar YUV
// (full-resolution luma, two chroma planes subsampled as the picture's format has them) and
// 8-bit ARGB. Scaling and the YUV -> RGB matrix are libyuv's; YUV and RGB meet through the
// full-range BT.601 matrix JPEG uses (docs/dvpp.md, "Colour").
#pragma once

#include <cstdint>
#include <vector>

#include "media/picture.h"

namespace kiln::media {

struct Plane {
  Plane() = default;
  Plane(uint32_t width, uint32_t height, uint8_t fill = 0)
      : px(size_t{width} * height, fill), w(width), h(height) {}
  uint8_t* row(uint32_t y) { return px.data() + size_t{y} * w; }
  const uint8_t* row(uint32_t y) const { return px.data() + size_t{y} * w; }
  std::vector<uint8_t> px;
  uint32_t w = 0, h = 0;
};

// Planar YUV: chroma planes are ceil(w / sub_x) x ceil(h / sub_y).
struct Yuv {
  Plane y, u, v;
  uint8_t sub_x = 1, sub_y = 1;
};

// libyuv's ARGB: 4 bytes per pixel, B, G, R, A in memory.
struct Argb {
  Argb() = default;
  Argb(uint32_t width, uint32_t height) : px(size_t{width} * height * 4), w(width), h(height) {}
  uint8_t* row(uint32_t y) { return px.data() + size_t{y} * w * 4; }
  const uint8_t* row(uint32_t y) const { return px.data() + size_t{y} * w * 4; }
  std::vector<uint8_t> px;
  uint32_t w = 0, h = 0;
};

// Resize filters: nearest neighbour, bilinear with pixel centres aligned (OpenCV's
// INTER_LINEAR), and the average of whole blocks (exact integer downscales only).
enum class Filter { kNearest, kBilinear, kBox };

inline uint32_t CeilDiv(uint32_t v, uint32_t d) { return (v + d - 1) / d; }

// Region `r` of a YUV-family picture (YUV 4:0:0 reads as 4:2:0 with neutral chroma).
Yuv ReadYuv(const Picture& p, const FormatInfo& f, const Rect& r);
// Region `r` of any picture as ARGB.
Argb ReadArgb(const Picture& p, const FormatInfo& f, const Rect& r);
// Writes `img` (r.w x r.h, subsampled as `f`) into region `r` of a YUV-family picture.
void WriteYuv(const Yuv& img, const Picture& p, const FormatInfo& f, const Rect& r);
// Writes `img` (r.w x r.h) into region `r` of any picture.
void WriteArgb(const Argb& img, const Picture& p, const FormatInfo& f, const Rect& r);

// Resamples every plane to a w x h picture with chroma subsampled by (sub_x, sub_y).
Yuv ScaleYuv(const Yuv& img, uint32_t w, uint32_t h, uint8_t sub_x, uint8_t sub_y, Filter filter);
Argb ScaleArgb(const Argb& img, uint32_t w, uint32_t h, Filter filter);
Argb YuvToArgb(const Yuv& img);
Yuv ArgbToYuv(const Argb& img, uint8_t sub_x, uint8_t sub_y);

// `img` converted and resampled to w x h in the working form of `f`, then written to `r`.
void WriteScaled(const Yuv& img, uint32_t w, uint32_t h, const Picture& p, const FormatInfo& f,
                 const Rect& r, Filter filter);

}  // namespace kiln::media
