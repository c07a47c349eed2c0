// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "media/convert.h"

#include <libyuv/convert_argb.h>
#include <libyuv/planar_functions.h>
#include <libyuv/scale.h>
#include <libyuv/scale_argb.h>

#include <algorithm>

#include "media/bilinear.h"

namespace kiln::media {
namespace {

uint8_t* ChromaBase(const Picture& p) {
  return p.data + uint64_t{p.width_stride} * p.height_stride;
}

// Resizes `src` into `dst` (its size set): bilinear with centres aligned (media/bilinear.h),
// nearest neighbour or an exact box average (libyuv's).
void ScaleInto(const Plane& src, Plane* dst, Filter filter) {
  if (src.w == dst->w && src.h == dst->h) {
    dst->px = src.px;
    return;
  }
  if (filter == Filter::kBilinear) {
    BilinearResize(src.px.data(), src.w, src.h, dst->px.data(), dst->w, dst->h, 1);
    return;
  }
  libyuv::ScalePlane(src.px.data(), static_cast<int>(src.w), static_cast<int>(src.w),
                     static_cast<int>(src.h), dst->px.data(), static_cast<int>(dst->w),
                     static_cast<int>(dst->w), static_cast<int>(dst->h),
                     filter == Filter::kNearest ? libyuv::kFilterNone : libyuv::kFilterBox);
}

// A chroma plane of a w x h picture subsampled by (fx, fy), resampled to (tx, ty). Sample i
// keeps covering luma columns i*t .. i*t+t-1, also for odd sizes: upsampling is an exact
// centred 2x (JPEG's), downsampling averages whole t x t blocks of the edge-extended plane.
Plane Resample(const Plane& p, uint8_t fx, uint8_t fy, uint8_t tx, uint8_t ty, uint32_t w,
               uint32_t h) {
  if (fx == tx && fy == ty) return p;
  // To full resolution (w x h): scale by exactly (fx, fy), then drop the padding column/row.
  Plane full(w, h);
  if (fx == 1 && fy == 1) {
    full = p;
  } else {
    Plane up(p.w * fx, p.h * fy);
    ScaleInto(p, &up, Filter::kBilinear);
    for (uint32_t y = 0; y < h; ++y) std::copy_n(up.row(y), w, full.row(y));
  }
  if (tx == 1 && ty == 1) return full;
  // Down by exactly (tx, ty) over the picture extended to whole blocks.
  Plane padded(CeilDiv(w, tx) * tx, CeilDiv(h, ty) * ty);
  for (uint32_t y = 0; y < padded.h; ++y) {
    const uint8_t* src = full.row(std::min(y, h - 1));
    uint8_t* dst = padded.row(y);
    std::copy_n(src, w, dst);
    std::fill(dst + w, dst + padded.w, src[w - 1]);
  }
  Plane out(padded.w / tx, padded.h / ty);
  ScaleInto(padded, &out, Filter::kBox);
  return out;
}

uint8_t Clamp255(int v) { return static_cast<uint8_t>(std::clamp(v, 0, 255)); }

}  // namespace

Yuv ReadYuv(const Picture& p, const FormatInfo& f, const Rect& r) {
  Yuv img;
  const uint32_t ws = p.width_stride;
  img.y = Plane(r.w, r.h);
  if (f.family == Family::kYuv400) {
    img.sub_x = img.sub_y = 2;
    img.u = Plane(CeilDiv(r.w, 2), CeilDiv(r.h, 2), 128);
    img.v = img.u;
    for (uint32_t y = 0; y < r.h; ++y) {
      std::copy_n(p.data + uint64_t{r.y + y} * ws + r.x, r.w, img.y.row(y));
    }
    return img;
  }
  img.sub_x = f.sub_x;
  img.sub_y = f.sub_y;
  img.u = Plane(CeilDiv(r.w, f.sub_x), CeilDiv(r.h, f.sub_y));
  img.v = Plane(img.u.w, img.u.h);
  if (f.family == Family::kYuvSemiPlanar) {
    libyuv::CopyPlane(p.data + uint64_t{r.y} * ws + r.x, static_cast<int>(ws), img.y.px.data(),
                      static_cast<int>(r.w), static_cast<int>(r.w), static_cast<int>(r.h));
    const uint32_t pair_row = ws * 2 / f.sub_x;
    const uint8_t* uv =
        ChromaBase(p) + uint64_t{r.y / f.sub_y} * pair_row + uint64_t{r.x / f.sub_x} * 2;
    Plane* first = f.v_first ? &img.v : &img.u;
    Plane* second = f.v_first ? &img.u : &img.v;
    libyuv::SplitUVPlane(uv, static_cast<int>(pair_row), first->px.data(),
                         static_cast<int>(first->w), second->px.data(), static_cast<int>(second->w),
                         static_cast<int>(img.u.w), static_cast<int>(img.u.h));
    return img;
  }
  // Packed: 4:2:2 groups of 4 bytes (2 pixels) or 4:4:4 pixels of 3 bytes.
  for (uint32_t y = 0; y < r.h; ++y) {
    const uint8_t* row = p.data + uint64_t{r.y + y} * ws;
    if (f.sub_x == 2) {
      for (uint32_t x = 0; x < r.w; ++x) {
        const uint8_t* g = row + uint64_t{(r.x + x) / 2} * 4;
        img.y.row(y)[x] = g[f.off[(r.x + x) % 2 == 0 ? 0 : 2]];
        if (x % 2 == 0) {
          img.u.row(y)[x / 2] = g[f.off[1]];
          img.v.row(y)[x / 2] = g[f.off[3]];
        }
      }
    } else {
      for (uint32_t x = 0; x < r.w; ++x) {
        const uint8_t* px = row + uint64_t{r.x + x} * 3;
        img.y.row(y)[x] = px[f.off[0]];
        img.u.row(y)[x] = px[f.off[1]];
        img.v.row(y)[x] = px[f.off[2]];
      }
    }
  }
  return img;
}

void WriteYuv(const Yuv& img, const Picture& p, const FormatInfo& f, const Rect& r) {
  const uint32_t ws = p.width_stride;
  if (f.family != Family::kYuvPacked) {
    libyuv::CopyPlane(img.y.px.data(), static_cast<int>(img.y.w), p.data + uint64_t{r.y} * ws + r.x,
                      static_cast<int>(ws), static_cast<int>(r.w), static_cast<int>(r.h));
  }
  if (f.family == Family::kYuv400) return;
  if (f.family == Family::kYuvSemiPlanar) {
    const uint32_t pair_row = ws * 2 / f.sub_x;
    uint8_t* uv = ChromaBase(p) + uint64_t{r.y / f.sub_y} * pair_row + uint64_t{r.x / f.sub_x} * 2;
    const Plane& first = f.v_first ? img.v : img.u;
    const Plane& second = f.v_first ? img.u : img.v;
    libyuv::MergeUVPlane(first.px.data(), static_cast<int>(first.w), second.px.data(),
                         static_cast<int>(second.w), uv, static_cast<int>(pair_row),
                         static_cast<int>(img.u.w), static_cast<int>(img.u.h));
    return;
  }
  for (uint32_t y = 0; y < r.h; ++y) {
    uint8_t* row = p.data + uint64_t{r.y + y} * ws;
    if (f.sub_x == 2) {
      for (uint32_t x = 0; x < r.w; ++x) {
        uint8_t* g = row + uint64_t{(r.x + x) / 2} * 4;
        g[f.off[(r.x + x) % 2 == 0 ? 0 : 2]] = img.y.row(y)[x];
        if (x % 2 == 0) {
          g[f.off[1]] = img.u.row(y)[x / 2];
          g[f.off[3]] = img.v.row(y)[x / 2];
        }
      }
    } else {
      for (uint32_t x = 0; x < r.w; ++x) {
        uint8_t* px = row + uint64_t{r.x + x} * 3;
        px[f.off[0]] = img.y.row(y)[x];
        px[f.off[1]] = img.u.row(y)[x];
        px[f.off[2]] = img.v.row(y)[x];
      }
    }
  }
}

Argb ReadArgb(const Picture& p, const FormatInfo& f, const Rect& r) {
  if (f.is_yuv()) return YuvToArgb(ReadYuv(p, f, r));
  Argb img(r.w, r.h);
  const uint32_t n = f.pixel_bytes;
  for (uint32_t y = 0; y < r.h; ++y) {
    const uint8_t* src = p.data + uint64_t{r.y + y} * p.width_stride + uint64_t{r.x} * n;
    uint8_t* dst = img.row(y);
    for (uint32_t x = 0; x < r.w; ++x, src += n, dst += 4) {
      dst[0] = src[f.off[2]];
      dst[1] = src[f.off[1]];
      dst[2] = src[f.off[0]];
      dst[3] = f.off[3] >= 0 ? src[f.off[3]] : 255;
    }
  }
  return img;
}

void WriteArgb(const Argb& img, const Picture& p, const FormatInfo& f, const Rect& r) {
  if (f.is_yuv()) {
    WriteYuv(ArgbToYuv(img, f.sub_x, f.sub_y), p, f, r);
    return;
  }
  const uint32_t n = f.pixel_bytes;
  for (uint32_t y = 0; y < r.h; ++y) {
    uint8_t* dst = p.data + uint64_t{r.y + y} * p.width_stride + uint64_t{r.x} * n;
    const uint8_t* src = img.row(y);
    for (uint32_t x = 0; x < r.w; ++x, src += 4, dst += n) {
      dst[f.off[0]] = src[2];
      dst[f.off[1]] = src[1];
      dst[f.off[2]] = src[0];
      if (f.off[3] >= 0) dst[f.off[3]] = src[3];
    }
  }
}

Yuv ScaleYuv(const Yuv& img, uint32_t w, uint32_t h, uint8_t sub_x, uint8_t sub_y, Filter filter) {
  Yuv out;
  out.sub_x = sub_x;
  out.sub_y = sub_y;
  out.y = Plane(w, h);
  ScaleInto(img.y, &out.y, filter);
  // Chroma: to the new subsampling at the old size, then to the new size.
  Plane u = Resample(img.u, img.sub_x, img.sub_y, sub_x, sub_y, img.y.w, img.y.h);
  Plane v = Resample(img.v, img.sub_x, img.sub_y, sub_x, sub_y, img.y.w, img.y.h);
  out.u = Plane(CeilDiv(w, sub_x), CeilDiv(h, sub_y));
  out.v = Plane(out.u.w, out.u.h);
  ScaleInto(u, &out.u, filter);
  ScaleInto(v, &out.v, filter);
  return out;
}

Argb ScaleArgb(const Argb& img, uint32_t w, uint32_t h, Filter filter) {
  if (img.w == w && img.h == h) return img;
  Argb out(w, h);
  if (filter == Filter::kBilinear) {
    BilinearResize(img.px.data(), img.w, img.h, out.px.data(), w, h, 4);
    return out;
  }
  libyuv::ARGBScale(img.px.data(), static_cast<int>(img.w * 4), static_cast<int>(img.w),
                    static_cast<int>(img.h), out.px.data(), static_cast<int>(w * 4),
                    static_cast<int>(w), static_cast<int>(h), libyuv::kFilterNone);
  return out;
}

Argb YuvToArgb(const Yuv& img) {
  Yuv full = ScaleYuv(img, img.y.w, img.y.h, 1, 1, Filter::kBilinear);
  Argb out(img.y.w, img.y.h);
  libyuv::I444ToARGBMatrix(full.y.px.data(), static_cast<int>(full.y.w), full.u.px.data(),
                           static_cast<int>(full.u.w), full.v.px.data(), static_cast<int>(full.v.w),
                           out.px.data(), static_cast<int>(out.w * 4), &libyuv::kYuvJPEGConstants,
                           static_cast<int>(out.w), static_cast<int>(out.h));
  return out;
}

Yuv ArgbToYuv(const Argb& img, uint8_t sub_x, uint8_t sub_y) {
  // JFIF (full-range BT.601) in 16.16 fixed point, rounded to nearest.
  Yuv full;
  full.y = Plane(img.w, img.h);
  full.u = Plane(img.w, img.h);
  full.v = Plane(img.w, img.h);
  constexpr int kHalf = 1 << 15, kBias = 128 << 16;
  for (uint32_t y = 0; y < img.h; ++y) {
    const uint8_t* px = img.row(y);
    for (uint32_t x = 0; x < img.w; ++x, px += 4) {
      const int b = px[0], g = px[1], r = px[2];
      full.y.row(y)[x] = Clamp255((19595 * r + 38470 * g + 7471 * b + kHalf) >> 16);
      full.u.row(y)[x] = Clamp255((-11059 * r - 21709 * g + 32768 * b + kBias + kHalf) >> 16);
      full.v.row(y)[x] = Clamp255((32768 * r - 27439 * g - 5329 * b + kBias + kHalf) >> 16);
    }
  }
  if (sub_x == 1 && sub_y == 1) return full;
  Yuv out;
  out.sub_x = sub_x;
  out.sub_y = sub_y;
  out.u = Resample(full.u, 1, 1, sub_x, sub_y, img.w, img.h);
  out.v = Resample(full.v, 1, 1, sub_x, sub_y, img.w, img.h);
  out.y = std::move(full.y);
  return out;
}

void WriteScaled(const Yuv& img, uint32_t w, uint32_t h, const Picture& p, const FormatInfo& f,
                 const Rect& r, Filter filter) {
  if (f.is_yuv()) {
    uint8_t sx = f.family == Family::kYuv400 ? 1 : f.sub_x;
    uint8_t sy = f.family == Family::kYuv400 ? 1 : f.sub_y;
    // Already the size and subsampling to write (a decode, a crop without resize): no copies.
    const bool same = img.y.w == w && img.y.h == h &&
                      (f.family == Family::kYuv400 || (img.sub_x == sx && img.sub_y == sy));
    if (same) {
      WriteYuv(img, p, f, r);
      return;
    }
    WriteYuv(ScaleYuv(img, w, h, sx, sy, filter), p, f, r);
  } else {
    WriteArgb(ScaleArgb(YuvToArgb(img), w, h, filter), p, f, r);
  }
}

}  // namespace kiln::media
