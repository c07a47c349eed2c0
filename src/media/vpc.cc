// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "media/vpc.h"

#include <algorithm>
#include <cmath>

namespace kiln::media {
namespace {

Rect Whole(const Picture& p) { return Rect{0, 0, p.width, p.height}; }

Status CheckRatio(const Rect& crop, const Rect& paste) {
  auto bad = [](uint32_t from, uint32_t to) {
    return to > from * kMaxUpscale || to * kMaxDownscale < from;
  };
  if (bad(crop.w, paste.w) || bad(crop.h, paste.h)) {
    return Error(code::kInvalidParam, "resizing ", crop.w, "x", crop.h, " to ", paste.w, "x",
                 paste.h, " is outside DVPP's range (each side from 1/", kMaxDownscale, " to ",
                 kMaxUpscale, " times)");
  }
  return Status::Ok();
}

Status SameSize(const char* op, const Picture& in, const Picture& out) {
  if (in.width != out.width || in.height != out.height) {
    return Error(code::kInvalidParam, op, ": the output is ", out.width, "x", out.height,
                 ", the input ", in.width, "x", in.height, "; they must be the same size");
  }
  return Status::Ok();
}

// OpenCV's borderInterpolate for one coordinate, in constant time (a reflection is periodic).
int64_t Mirror(int64_t p, int64_t n, Border type) {
  if (p >= 0 && p < n) return p;
  if (type == Border::kReplicate || n == 1) return std::clamp<int64_t>(p, 0, n - 1);
  if (type == Border::kReflect) {  // fedcba|abcdef|fedcba: period 2n
    int64_t q = ((p % (2 * n)) + 2 * n) % (2 * n);
    return q < n ? q : 2 * n - 1 - q;
  }
  const int64_t period = 2 * n - 2;  // gfedcb|abcdefgh|gfedcba
  int64_t q = ((p % period) + period) % period;
  return q < n ? q : period - q;
}

// One plane with borders (in units of `bytes` per sample): constant fill or mirrored source.
void BorderPlane(const uint8_t* src, uint32_t sw, uint32_t sh, uint8_t* dst, uint32_t l, uint32_t t,
                 uint32_t r, uint32_t b, Border type, const uint8_t* fill, uint32_t bytes) {
  const uint32_t dw = sw + l + r, dh = sh + t + b;
  // Source column and row of each destination one; -1 for the constant fill.
  auto map = [type](uint32_t n, uint32_t before, uint32_t total) {
    std::vector<int64_t> m(total);
    for (uint32_t i = 0; i < total; ++i) {
      const int64_t p = int64_t{i} - before;
      m[i] = (p >= 0 && p < n) || type != Border::kConstant ? Mirror(p, n, type) : -1;
    }
    return m;
  };
  const std::vector<int64_t> xs = map(sw, l, dw), ys = map(sh, t, dh);
  for (uint32_t y = 0; y < dh; ++y) {
    uint8_t* d = dst + uint64_t{y} * dw * bytes;
    for (uint32_t x = 0; x < dw; ++x, d += bytes) {
      if (xs[x] < 0 || ys[y] < 0) {
        std::copy_n(fill, bytes, d);
      } else {
        std::copy_n(src + (uint64_t(ys[y]) * sw + uint64_t(xs[x])) * bytes, bytes, d);
      }
    }
  }
}

uint8_t FillByte(double v) { return static_cast<uint8_t>(std::clamp(std::lround(v), 0L, 255L)); }

}  // namespace

Status CheckCropResizePaste(const Picture& in, const Rect& crop, const Picture& out,
                            const Rect& paste) {
  KILN_ASSIGN_OR_RETURN(const FormatInfo* fi, CheckPicture("input picture", in));
  KILN_ASSIGN_OR_RETURN(const FormatInfo* fo, CheckPicture("output picture", out));
  KILN_RETURN_IF_ERROR(CheckRect("crop area", crop, in, *fi), "");
  KILN_RETURN_IF_ERROR(CheckRect("paste area", paste, out, *fo), "");
  return CheckRatio(crop, paste);
}

void RunCropResizePaste(const Picture& in, const Rect& crop, const Picture& out, const Rect& paste,
                        Filter filter) {
  const FormatInfo& fi = *FindFormat(in.format);
  const FormatInfo& fo = *FindFormat(out.format);
  if (fi.is_yuv()) {
    WriteScaled(ReadYuv(in, fi, crop), paste.w, paste.h, out, fo, paste, filter);
  } else {
    WriteArgb(ScaleArgb(ReadArgb(in, fi, crop), paste.w, paste.h, filter), out, fo, paste);
  }
}

Status CheckConvertColor(const Picture& in, const Picture& out) {
  KILN_RETURN_IF_ERROR(CheckPicture("input picture", in).status(), "");
  KILN_RETURN_IF_ERROR(CheckPicture("output picture", out).status(), "");
  return SameSize("colour conversion", in, out);
}

Status CheckPyrDown(const Picture& in, const Picture& out) {
  KILN_ASSIGN_OR_RETURN(const FormatInfo* fi, CheckPicture("input picture", in));
  KILN_ASSIGN_OR_RETURN(const FormatInfo* fo, CheckPicture("output picture", out));
  if (fi->family != Family::kYuv400 && fi->family != Family::kYuvSemiPlanar) {
    return Error(code::kInvalidParam, "pyramid down reads a YUV 4:0:0 or semi-planar picture, not ",
                 fi->name);
  }
  if (fo->family != Family::kYuv400) {
    return Error(code::kInvalidParam, "pyramid down writes PIXEL_FORMAT_YUV_400, not ", fo->name);
  }
  if (out.width != CeilDiv(in.width, 2) || out.height != CeilDiv(in.height, 2)) {
    return Error(code::kInvalidParam, "pyramid down of ", in.width, "x", in.height, " is ",
                 CeilDiv(in.width, 2), "x", CeilDiv(in.height, 2), ", not ", out.width, "x",
                 out.height);
  }
  return Status::Ok();
}

void RunPyrDown(const Picture& in, const Picture& out) {
  static constexpr int kTaps[5] = {1, 4, 6, 4, 1};
  const int64_t w = in.width, h = in.height;
  // Horizontal pass at full height (sums of 16), then vertical on every other row.
  std::vector<int> rows(static_cast<size_t>(out.width) * h);
  for (int64_t y = 0; y < h; ++y) {
    const uint8_t* src = in.data + uint64_t(y) * in.width_stride;
    for (uint32_t x = 0; x < out.width; ++x) {
      int sum = 0;
      for (int k = -2; k <= 2; ++k)
        sum += kTaps[k + 2] * src[Mirror(2 * int64_t{x} + k, w, Border::kReflect101)];
      rows[uint64_t(y) * out.width + x] = sum;
    }
  }
  for (uint32_t y = 0; y < out.height; ++y) {
    uint8_t* dst = out.data + uint64_t{y} * out.width_stride;
    for (uint32_t x = 0; x < out.width; ++x) {
      int sum = 0;
      for (int k = -2; k <= 2; ++k) {
        sum += kTaps[k + 2] *
               rows[uint64_t(Mirror(2 * int64_t{y} + k, h, Border::kReflect101)) * out.width + x];
      }
      dst[x] = static_cast<uint8_t>((sum + 128) >> 8);
    }
  }
}

Status CheckMakeBorder(const Picture& in, const Picture& out, const BorderSpec& spec) {
  KILN_ASSIGN_OR_RETURN(const FormatInfo* fi, CheckPicture("input picture", in));
  KILN_RETURN_IF_ERROR(CheckPicture("output picture", out).status(), "");
  if (in.format != out.format) {
    return Error(code::kInvalidParam, "make border keeps the format: the input is ", fi->name,
                 ", the output ", FormatName(out.format));
  }
  if (spec.type < Border::kConstant || spec.type > Border::kReflect101) {
    return Error(code::kInvalidParam, "border type ", static_cast<int>(spec.type),
                 " is not an acldvppBorderType");
  }
  if (uint64_t{in.width} + spec.left + spec.right != out.width ||
      uint64_t{in.height} + spec.top + spec.bottom != out.height) {
    return Error(code::kInvalidParam, "make border: ", in.width, "x", in.height,
                 " with borders top ", spec.top, ", bottom ", spec.bottom, ", left ", spec.left,
                 ", right ", spec.right, " is not the output's ", out.width, "x", out.height);
  }
  return CheckBorderGrid(*fi, spec, in.width, in.height);
}

Status CheckBorderGrid(const FormatInfo& f, const BorderSpec& spec, uint32_t w, uint32_t h) {
  if (f.is_yuv() && ((f.sub_x == 2 && (spec.left % 2 || spec.right % 2 || w % 2)) ||
                     (f.sub_y == 2 && (spec.top % 2 || spec.bottom % 2 || h % 2)))) {
    return Error(code::kInvalidParam, "borders on ", f.name, ": the picture (", w, "x", h,
                 ") and its borders (top ", spec.top, ", bottom ", spec.bottom, ", left ",
                 spec.left, ", right ", spec.right,
                 ") must have even sizes where chroma is shared");
  }
  return Status::Ok();
}

void RunMakeBorder(const Picture& in, const Picture& out, const BorderSpec& s) {
  const FormatInfo& f = *FindFormat(in.format);
  const Rect all = Whole(in), all_out = Whole(out);
  if (f.is_yuv()) {
    Yuv src = ReadYuv(in, f, all), dst;
    dst.sub_x = src.sub_x;
    dst.sub_y = src.sub_y;
    const uint32_t sx = src.sub_x, sy = src.sub_y;
    auto border = [&](const Plane& p, Plane* d, uint32_t ux, uint32_t uy, double value) {
      *d = Plane(p.w + (s.left + s.right) / ux, p.h + (s.top + s.bottom) / uy);
      const uint8_t fill = FillByte(value);
      BorderPlane(p.px.data(), p.w, p.h, d->px.data(), s.left / ux, s.top / uy, s.right / ux,
                  s.bottom / uy, s.type, &fill, 1);
    };
    border(src.y, &dst.y, 1, 1, s.value[0]);
    border(src.u, &dst.u, sx, sy, s.value[1]);
    border(src.v, &dst.v, sx, sy, s.value[2]);
    WriteYuv(dst, out, f, all_out);
    return;
  }
  Argb src = ReadArgb(in, f, all), dst(out.width, out.height);
  const uint8_t fill[4] = {FillByte(s.value[2]), FillByte(s.value[1]), FillByte(s.value[0]),
                           f.has_alpha() ? FillByte(s.value[3]) : uint8_t{255}};
  BorderPlane(src.px.data(), src.w, src.h, dst.px.data(), s.left, s.top, s.right, s.bottom, s.type,
              fill, 4);
  WriteArgb(dst, out, f, all_out);
}

std::vector<std::vector<uint32_t>> CalcHist(const Picture& in) {
  const FormatInfo& f = *FindFormat(in.format);
  std::vector<std::vector<uint32_t>> hist(3, std::vector<uint32_t>(kHistBins, 0));
  if (f.is_yuv()) {
    Yuv img = ReadYuv(in, f, Whole(in));
    for (uint8_t v : img.y.px) ++hist[0][v];
    if (f.family == Family::kYuv400) {
      hist.resize(1);
      return hist;
    }
    for (uint8_t v : img.u.px) ++hist[1][v];
    for (uint8_t v : img.v.px) ++hist[2][v];
    return hist;
  }
  Argb img = ReadArgb(in, f, Whole(in));
  for (size_t i = 0; i < img.px.size(); i += 4) {
    ++hist[0][img.px[i + 2]];
    ++hist[1][img.px[i + 1]];
    ++hist[2][img.px[i]];
  }
  return hist;
}

Status CheckRemap(const Picture& in, const Picture& out) {
  KILN_ASSIGN_OR_RETURN(const FormatInfo* fi, CheckPicture("input picture", in));
  KILN_RETURN_IF_ERROR(CheckPicture("output picture", out).status(), "");
  if (in.format != out.format) {
    return Error(code::kInvalidParam, "histogram equalisation keeps the format: the input is ",
                 fi->name, ", the output ", FormatName(out.format));
  }
  return SameSize("histogram equalisation", in, out);
}

void RunRemap(const Picture& in, const Picture& out, const Lut& lut) {
  const FormatInfo& f = *FindFormat(in.format);
  if (f.is_yuv()) {
    Yuv img = ReadYuv(in, f, Whole(in));
    for (uint8_t& v : img.y.px) v = lut[0][v];
    for (uint8_t& v : img.u.px) v = lut[1][v];
    for (uint8_t& v : img.v.px) v = lut[2][v];
    WriteYuv(img, out, f, Whole(out));
    return;
  }
  Argb img = ReadArgb(in, f, Whole(in));
  for (size_t i = 0; i < img.px.size(); i += 4) {
    img.px[i + 2] = lut[0][img.px[i + 2]];
    img.px[i + 1] = lut[1][img.px[i + 1]];
    img.px[i] = lut[2][img.px[i]];
  }
  WriteArgb(img, out, f, Whole(out));
}

}  // namespace kiln::media
