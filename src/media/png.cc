// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "media/png.h"

#include <png.h>

#include "media/convert.h"

namespace kiln::media {
namespace {

// A png_image read from memory, freed on every path.
struct PngImage {
  PngImage() { image.version = PNG_IMAGE_VERSION; }
  ~PngImage() { png_image_free(&image); }
  png_image image{};
};

Status Begin(PngImage* img, const uint8_t* data, uint64_t size) {
  if (data == nullptr || size == 0) return Error(code::kInvalidParam, "the PNG data is empty");
  if (png_image_begin_read_from_memory(&img->image, data, size) == 0) {
    return Error(code::kInvalidParam, "not a PNG image (", size, " bytes): ", img->image.message);
  }
  return Status::Ok();
}

}  // namespace

Result<PngInfo> ReadPngInfo(const uint8_t* data, uint64_t size) {
  PngImage img;
  KILN_RETURN_IF_ERROR(Begin(&img, data, size), "");
  PngInfo info;
  info.width = img.image.width;
  info.height = img.image.height;
  const bool colour = (img.image.format & PNG_FORMAT_FLAG_COLOR) != 0;
  const bool alpha = (img.image.format & PNG_FORMAT_FLAG_ALPHA) != 0;
  info.components = (colour ? 3 : 1) + (alpha ? 1 : 0);
  return info;
}

Result<int> PngOutputFormat(const PngInfo& info, int format) {
  if (format == kPixelFormatUnknown) {
    const bool alpha = info.components == 2 || info.components == 4;
    return alpha ? 16 : 12;  // PIXEL_FORMAT_RGBA_8888 : PIXEL_FORMAT_RGB_888
  }
  const FormatInfo* f = FindFormat(format);
  if (f == nullptr || f->is_yuv()) {
    return Error(code::kInvalidParam, "the PNG decoder writes packed RGB formats (or",
                 " PIXEL_FORMAT_UNKNOWN for the image's own), not ", FormatName(format));
  }
  return format;
}

Status DecodePng(const uint8_t* data, uint64_t size, const Picture& out) {
  PngImage img;
  KILN_RETURN_IF_ERROR(Begin(&img, data, size), "");
  if (img.image.width != out.width || img.image.height != out.height) {
    return Error(code::kInvalidParam, "the PNG is ", img.image.width, "x", img.image.height,
                 ", the output picture ", out.width, "x", out.height);
  }
  img.image.format = PNG_FORMAT_BGRA;  // libyuv's ARGB byte order
  Argb argb(out.width, out.height);
  if (png_image_finish_read(&img.image, nullptr, argb.px.data(),
                            static_cast<png_int_32>(out.width * 4), nullptr) == 0) {
    return Error(code::kFailure, "PNG decode failed: ", img.image.message);
  }
  WriteArgb(argb, out, *FindFormat(out.format), Rect{0, 0, out.width, out.height});
  return Status::Ok();
}

}  // namespace kiln::media
