// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "media/picture.h"

#include <iterator>

#include "base/str_cat.h"

namespace kiln::media {
namespace {

// acldvppPixelFormat values (include/acl/ops/acl_dvpp.h); byte orders are memory orders.
constexpr FormatInfo kFormats[] = {
    {0, "PIXEL_FORMAT_YUV_400", Family::kYuv400, 1, 1, 1, false, {-1, -1, -1, -1}},
    {1,
     "PIXEL_FORMAT_YUV_SEMIPLANAR_420",
     Family::kYuvSemiPlanar,
     1,
     2,
     2,
     false,
     {-1, -1, -1, -1}},
    {2, "PIXEL_FORMAT_YVU_SEMIPLANAR_420", Family::kYuvSemiPlanar, 1, 2, 2, true, {-1, -1, -1, -1}},
    {3,
     "PIXEL_FORMAT_YUV_SEMIPLANAR_422",
     Family::kYuvSemiPlanar,
     1,
     2,
     1,
     false,
     {-1, -1, -1, -1}},
    {4, "PIXEL_FORMAT_YVU_SEMIPLANAR_422", Family::kYuvSemiPlanar, 1, 2, 1, true, {-1, -1, -1, -1}},
    {5,
     "PIXEL_FORMAT_YUV_SEMIPLANAR_444",
     Family::kYuvSemiPlanar,
     1,
     1,
     1,
     false,
     {-1, -1, -1, -1}},
    {6, "PIXEL_FORMAT_YVU_SEMIPLANAR_444", Family::kYuvSemiPlanar, 1, 1, 1, true, {-1, -1, -1, -1}},
    {7, "PIXEL_FORMAT_YUYV_PACKED_422", Family::kYuvPacked, 2, 2, 1, false, {0, 1, 2, 3}},
    {8, "PIXEL_FORMAT_UYVY_PACKED_422", Family::kYuvPacked, 2, 2, 1, false, {1, 0, 3, 2}},
    {9, "PIXEL_FORMAT_YVYU_PACKED_422", Family::kYuvPacked, 2, 2, 1, false, {0, 3, 2, 1}},
    {10, "PIXEL_FORMAT_VYUY_PACKED_422", Family::kYuvPacked, 2, 2, 1, false, {1, 2, 3, 0}},
    {11, "PIXEL_FORMAT_YUV_PACKED_444", Family::kYuvPacked, 3, 1, 1, false, {0, 1, 2, -1}},
    {12, "PIXEL_FORMAT_RGB_888", Family::kRgb, 3, 1, 1, false, {0, 1, 2, -1}},
    {13, "PIXEL_FORMAT_BGR_888", Family::kRgb, 3, 1, 1, false, {2, 1, 0, -1}},
    {14, "PIXEL_FORMAT_ARGB_8888", Family::kRgb, 4, 1, 1, false, {1, 2, 3, 0}},
    {15, "PIXEL_FORMAT_ABGR_8888", Family::kRgb, 4, 1, 1, false, {3, 2, 1, 0}},
    {16, "PIXEL_FORMAT_RGBA_8888", Family::kRgb, 4, 1, 1, false, {0, 1, 2, 3}},
    {17, "PIXEL_FORMAT_BGRA_8888", Family::kRgb, 4, 1, 1, false, {2, 1, 0, 3}},
};

}  // namespace

const FormatInfo* FindFormat(int value) {
  for (const FormatInfo& f : kFormats) {
    if (f.value == value) return &f;
  }
  return nullptr;
}

std::string FormatName(int value) {
  const FormatInfo* f = FindFormat(value);
  return f ? StrCat(f->name, " (", value, ")") : StrCat("pixel format ", value);
}

uint64_t RowBytes(const FormatInfo& f, uint32_t width) {
  if (f.family == Family::kYuvPacked && f.sub_x == 2) return uint64_t{AlignUp(width, 2)} * 2;
  return uint64_t{width} * f.pixel_bytes;
}

uint64_t PictureBytes(const FormatInfo& f, uint32_t width_stride, uint32_t height_stride) {
  uint64_t luma = uint64_t{width_stride} * height_stride;
  if (f.family != Family::kYuvSemiPlanar) return luma;
  // Chroma pairs: 2 bytes per chroma sample, width_stride / sub_x samples per row.
  uint64_t chroma_row = uint64_t{width_stride} * 2 / f.sub_x;
  return luma + chroma_row * (height_stride / f.sub_y);
}

Result<const FormatInfo*> CheckPicture(const char* what, const Picture& p) {
  const FormatInfo* f = FindFormat(p.format);
  if (f == nullptr) {
    return Error(code::kInvalidParam, what, ": ", FormatName(p.format),
                 " is not a pixel format DVPP handles here (docs/dvpp.md lists them)");
  }
  if (p.data == nullptr) return Error(code::kInvalidParam, what, ": its data is NULL");
  if (p.width == 0 || p.height == 0 || p.width > kMaxSide || p.height > kMaxSide) {
    return Error(code::kInvalidParam, what, ": ", p.width, "x", p.height,
                 " is not a picture size DVPP handles (1 to ", kMaxSide, " each side)");
  }
  uint64_t row = RowBytes(*f, p.width);
  if (p.width_stride < row || p.width_stride % kStrideAlign != 0) {
    return Error(code::kInvalidParam, what, ": width stride ", p.width_stride,
                 " must be a multiple of ", kStrideAlign, " and at least ", row, " (", p.width,
                 " pixels of ", f->name, ")");
  }
  if (p.height_stride < p.height || p.height_stride % 2 != 0) {
    return Error(code::kInvalidParam, what, ": height stride ", p.height_stride,
                 " must be even and at least the height ", p.height);
  }
  uint64_t need = PictureBytes(*f, p.width_stride, p.height_stride);
  if (p.size < need) {
    return Error(code::kInvalidParam, what, ": size ", p.size, " is less than the ", need,
                 " bytes a ", p.width_stride, "x", p.height_stride, " ", f->name, " picture takes");
  }
  return f;
}

Status CheckRect(const char* what, const Rect& r, const Picture& p, const FormatInfo& f) {
  if (r.w == 0 || r.h == 0 || uint64_t{r.x} + r.w > p.width || uint64_t{r.y} + r.h > p.height) {
    return Error(code::kInvalidParam, what, " [", r.x, ", ", r.y, ", ", r.w, "x", r.h,
                 "] is empty or not inside the ", p.width, "x", p.height, " picture");
  }
  // A region starts on the chroma grid and ends on it or at the picture's edge.
  const bool to_right = r.x + r.w == p.width, to_bottom = r.y + r.h == p.height;
  if (f.is_yuv() && f.sub_x == 2 && (r.x % 2 != 0 || (r.w % 2 != 0 && !to_right))) {
    return Error(code::kInvalidParam, what, ": left ", r.x, " must be even and right ",
                 r.x + r.w - 1, " odd for ", f.name, " (chroma is shared by 2 columns)");
  }
  if (f.is_yuv() && f.sub_y == 2 && (r.y % 2 != 0 || (r.h % 2 != 0 && !to_bottom))) {
    return Error(code::kInvalidParam, what, ": top ", r.y, " must be even and bottom ",
                 r.y + r.h - 1, " odd for ", f.name, " (chroma is shared by 2 rows)");
  }
  return Status::Ok();
}

}  // namespace kiln::media
