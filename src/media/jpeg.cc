// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "media/jpeg.h"

#include <turbojpeg.h>

#include <cstring>
#include <memory>
#include <vector>

#include "media/convert.h"

namespace kiln::media {
namespace {

struct TjDeleter {
  void operator()(void* h) const { tjDestroy(h); }
};
using TjHandle = std::unique_ptr<void, TjDeleter>;

struct Header {
  int width = 0, height = 0, subsamp = -1, colorspace = -1;
};

Result<Header> ReadHeader(tjhandle tj, const uint8_t* data, uint64_t size) {
  Header h;
  if (data == nullptr || size == 0) return Error(code::kInvalidParam, "the JPEG data is empty");
  if (tjDecompressHeader3(tj, data, static_cast<unsigned long>(size), &h.width, &h.height,
                          &h.subsamp, &h.colorspace) != 0) {
    return Error(code::kInvalidParam, "not a JPEG image (", size, " bytes): ", tjGetErrorStr2(tj));
  }
  if (h.width <= 0 || h.height <= 0) {  // data cut before the frame header
    return Error(code::kInvalidParam, "not a JPEG image (", size,
                 " bytes): no frame header (SOF) before the data ends");
  }
  return h;
}

int Css(int subsamp) {
  switch (subsamp) {
    case TJSAMP_444:
      return kJpegCss444;
    case TJSAMP_422:
      return kJpegCss422;
    case TJSAMP_420:
      return kJpegCss420;
    case TJSAMP_GRAY:
      return kJpegCssGray;
    case TJSAMP_440:
      return kJpegCss440;
    case TJSAMP_411:
      return kJpegCss411;
  }
  return kJpegCssUnknown;
}

// Chroma subsampling factors of a TurboJPEG subsampling.
void Factors(int subsamp, uint8_t* sx, uint8_t* sy) {
  *sx = static_cast<uint8_t>(tjMCUWidth[subsamp] / 8);
  *sy = static_cast<uint8_t>(tjMCUHeight[subsamp] / 8);
}

int TjSubsamp(const FormatInfo& f) {
  if (f.family == Family::kYuv400) return TJSAMP_GRAY;
  if (f.sub_x == 2) return f.sub_y == 2 ? TJSAMP_420 : TJSAMP_422;
  return TJSAMP_444;
}

}  // namespace

Result<JpegInfo> ReadJpegInfo(const uint8_t* data, uint64_t size) {
  TjHandle tj(tjInitDecompress());
  if (!tj) return Error(code::kFailure, "TurboJPEG: cannot create a decompressor");
  KILN_ASSIGN_OR_RETURN(Header h, ReadHeader(tj.get(), data, size));
  JpegInfo info;
  info.width = static_cast<uint32_t>(h.width);
  info.height = static_cast<uint32_t>(h.height);
  const bool cmyk = h.colorspace == TJCS_CMYK || h.colorspace == TJCS_YCCK;
  info.components = h.colorspace == TJCS_GRAY ? 1 : cmyk ? 4 : 3;
  info.css = cmyk ? kJpegCssUnknown : Css(h.subsamp);
  info.decodable = !cmyk && h.subsamp >= 0 && h.width <= static_cast<int>(kMaxSide) &&
                   h.height <= static_cast<int>(kMaxSide);
  return info;
}

Result<Picture> DecodedLayout(uint32_t width, uint32_t height, int format) {
  const FormatInfo* f = FindFormat(format);
  if (f == nullptr) {
    return Error(code::kInvalidParam, FormatName(format), " is not a decode output format");
  }
  Picture p;
  p.format = format;
  p.width = width;
  p.height = height;
  p.width_stride = AlignUp(static_cast<uint32_t>(RowBytes(*f, width)), kDecodeWidthAlign);
  p.height_stride = AlignUp(height, kDecodeHeightAlign);
  p.size = PictureBytes(*f, p.width_stride, p.height_stride);
  return p;
}

Status DecodeJpeg(const uint8_t* data, uint64_t size, const Picture& out) {
  TjHandle tj(tjInitDecompress());
  if (!tj) return Error(code::kFailure, "TurboJPEG: cannot create a decompressor");
  KILN_ASSIGN_OR_RETURN(Header h, ReadHeader(tj.get(), data, size));
  if (static_cast<uint32_t>(h.width) != out.width ||
      static_cast<uint32_t>(h.height) != out.height) {
    return Error(code::kInvalidParam, "the JPEG is ", h.width, "x", h.height,
                 ", the output picture ", out.width, "x", out.height);
  }
  const FormatInfo& f = *FindFormat(out.format);
  const Rect all{0, 0, out.width, out.height};
  const auto jsize = static_cast<unsigned long>(size);
  if (h.colorspace == TJCS_YCbCr || h.colorspace == TJCS_GRAY) {
    // Decode to the JPEG's own planes, then resample chroma to the output's subsampling.
    std::vector<uint8_t> planes[3];
    unsigned char* ptrs[3] = {};
    int strides[3] = {};
    const int comps = h.subsamp == TJSAMP_GRAY ? 1 : 3;
    for (int c = 0; c < comps; ++c) {
      strides[c] = tjPlaneWidth(c, h.width, h.subsamp);
      planes[c].resize(static_cast<size_t>(strides[c]) * tjPlaneHeight(c, h.height, h.subsamp));
      ptrs[c] = planes[c].data();
    }
    if (tjDecompressToYUVPlanes(tj.get(), data, jsize, ptrs, h.width, strides, h.height, 0) != 0 &&
        tjGetErrorCode(tj.get()) == TJERR_FATAL) {
      return Error(code::kFailure, "JPEG decode failed: ", tjGetErrorStr2(tj.get()));
    }
    Yuv img;
    img.y = Plane(out.width, out.height);
    for (uint32_t y = 0; y < out.height; ++y) {
      std::memcpy(img.y.row(y), ptrs[0] + size_t{y} * strides[0], out.width);
    }
    if (comps == 1) {
      img.sub_x = img.sub_y = 2;
      img.u = Plane(CeilDiv(out.width, 2), CeilDiv(out.height, 2), 128);
      img.v = img.u;
    } else {
      Factors(h.subsamp, &img.sub_x, &img.sub_y);
      for (int c = 1; c < 3; ++c) {
        Plane& p = c == 1 ? img.u : img.v;
        p = Plane(CeilDiv(out.width, img.sub_x), CeilDiv(out.height, img.sub_y));
        for (uint32_t y = 0; y < p.h; ++y) {
          std::memcpy(p.row(y), ptrs[c] + size_t{y} * strides[c], p.w);
        }
      }
    }
    WriteScaled(img, out.width, out.height, out, f, all, Filter::kBilinear);
    return Status::Ok();
  }
  if (h.colorspace != TJCS_RGB) {
    return Error(code::kUnsupportedJpeg, "JPEG colour space ",
                 h.colorspace == TJCS_CMYK ? "CMYK" : "YCCK", " is not decoded (DVPP decodes",
                 " grey, YCbCr and RGB JPEGs)");
  }
  Argb img(out.width, out.height);
  if (tjDecompress2(tj.get(), data, jsize, img.px.data(), h.width, h.width * 4, h.height, TJPF_BGRA,
                    0) != 0 &&
      tjGetErrorCode(tj.get()) == TJERR_FATAL) {
    return Error(code::kFailure, "JPEG decode failed: ", tjGetErrorStr2(tj.get()));
  }
  WriteArgb(img, out, f, all);
  return Status::Ok();
}

uint64_t PredictJpegEncSize(const Picture& in) {
  const FormatInfo* f = FindFormat(in.format);
  int subsamp = f != nullptr && f->is_yuv() ? TjSubsamp(*f) : TJSAMP_444;
  return tjBufSize(static_cast<int>(in.width), static_cast<int>(in.height), subsamp);
}

Result<uint64_t> EncodeJpeg(const Picture& in, int quality, uint8_t* dst, uint64_t cap) {
  const FormatInfo& f = *FindFormat(in.format);
  TjHandle tj(tjInitCompress());
  if (!tj) return Error(code::kFailure, "TurboJPEG: cannot create a compressor");
  const Rect all{0, 0, in.width, in.height};
  unsigned char* buf = nullptr;
  unsigned long len = 0;
  int rc = 0;
  const int w = static_cast<int>(in.width), h = static_cast<int>(in.height);
  if (f.is_yuv()) {
    Yuv img = ReadYuv(in, f, all);
    int subsamp = TjSubsamp(f);
    const unsigned char* planes[3] = {img.y.px.data(), img.u.px.data(), img.v.px.data()};
    int strides[3] = {static_cast<int>(img.y.w), static_cast<int>(img.u.w),
                      static_cast<int>(img.v.w)};
    rc = tjCompressFromYUVPlanes(tj.get(), planes, w, strides, h, subsamp, &buf, &len, quality, 0);
  } else {
    Argb img = ReadArgb(in, f, all);
    rc = tjCompress2(tj.get(), img.px.data(), w, w * 4, h, TJPF_BGRA, &buf, &len, TJSAMP_444,
                     quality, 0);
  }
  std::unique_ptr<unsigned char, void (*)(unsigned char*)> owned(buf, tjFree);
  if (rc != 0) return Error(code::kFailure, "JPEG encode failed: ", tjGetErrorStr2(tj.get()));
  if (len > cap) {
    return Error(code::kInvalidParam, "the encoded JPEG takes ", len,
                 " bytes; the output buffer holds ", cap);
  }
  std::memcpy(dst, buf, len);
  return uint64_t{len};
}

}  // namespace kiln::media
