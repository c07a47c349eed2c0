// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// A picture in memory as DVPP describes it (acldvppPicDesc): a pixel format from
// acldvppPixelFormat, the visible width and height, and the width stride (bytes per row of the
// first plane) and height stride (rows per plane) that lay it out. The format table is the one
// place that says how each format's bytes are arranged (docs/dvpp.md, "Pixel formats").
#pragma once

#include <cstdint>
#include <string>

#include "base/status.h"

namespace kiln::media {

enum class Family : uint8_t {
  kYuv400,         // one 8-bit luma plane
  kYuvSemiPlanar,  // a luma plane, then one plane of interleaved chroma pairs
  kYuvPacked,      // luma and chroma interleaved in one plane
  kRgb,            // packed 8-bit R, G, B (and A)
};

struct FormatInfo {
  int value;         // acldvppPixelFormat
  const char* name;  // "PIXEL_FORMAT_YUV_SEMIPLANAR_420"
  Family family;
  uint8_t pixel_bytes;   // bytes per pixel in the first plane's rows
  uint8_t sub_x, sub_y;  // chroma subsampling (2 = half resolution); 1 for RGB
  bool v_first;          // semi-planar: the chroma pairs are V, U
  // Packed formats: byte offsets in one pixel group. 4:2:2 packed: Y0, U, Y1, V in 4 bytes;
  // 4:4:4 packed: Y, U, V; RGB: R, G, B, A (-1: no alpha).
  int8_t off[4];
  bool is_yuv() const { return family != Family::kRgb; }
  bool has_alpha() const { return family == Family::kRgb && off[3] >= 0; }
};

// The format with this acldvppPixelFormat value; null when DVPP here does not handle it.
const FormatInfo* FindFormat(int value);
// "PIXEL_FORMAT_RGB_888 (12)", or "pixel format 99" for a value not in the table.
std::string FormatName(int value);

struct Picture {
  uint8_t* data = nullptr;
  uint64_t size = 0;  // bytes the application says `data` holds
  int format = 0;
  uint32_t width = 0, height = 0;
  uint32_t width_stride = 0, height_stride = 0;
};

struct Rect {
  uint32_t x = 0, y = 0, w = 0, h = 0;
};

// The smallest width stride that holds `width` pixels of `f` (bytes per row of the first plane).
uint64_t RowBytes(const FormatInfo& f, uint32_t width);
// The bytes a picture of `f` with these strides occupies (all planes).
uint64_t PictureBytes(const FormatInfo& f, uint32_t width_stride, uint32_t height_stride);

inline constexpr uint32_t kMaxSide = 8192;    // widest and tallest picture handled
inline constexpr uint32_t kStrideAlign = 16;  // width strides are multiples of this (DVPP's rule)

// Checks `p` against DVPP's layout rules and finds its format: known format, 1 <= width, height
// <= kMaxSide, width stride a multiple of 16 that holds a row, height stride even and >= height,
// size >= the bytes the strides lay out. `what` names the picture in the message.
Result<const FormatInfo*> CheckPicture(const char* what, const Picture& p);

// Checks that `r` lies inside `p` and starts and ends on the chroma grid of `f` where chroma
// is subsampled (even x and width, even y and height; an odd width or height only where the
// region reaches the picture's right or bottom edge).
Status CheckRect(const char* what, const Rect& r, const Picture& p, const FormatInfo& f);

inline uint32_t AlignUp(uint32_t v, uint32_t a) { return (v + a - 1) / a * a; }

}  // namespace kiln::media
