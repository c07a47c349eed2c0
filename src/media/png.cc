// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "media/png.h"

#include <png.h>

#include <csetjmp>
#include <cstdio>
#include <cstring>
#include <vector>

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

namespace {

// libpng's reader over memory; a read past the end is a libpng error (longjmp to Rows).
struct MemoryReader {
  const uint8_t* data;
  uint64_t size;
  uint64_t pos;
};

void ReadFromMemory(png_structp png, png_bytep out, png_size_t n) {
  auto* r = static_cast<MemoryReader*>(png_get_io_ptr(png));
  if (n > r->size - r->pos) png_error(png, "the PNG data ends early");
  std::memcpy(out, r->data + r->pos, n);
  r->pos += n;
}

void OnError(png_structp png, png_const_charp message) {
  auto* text = static_cast<char*>(png_get_error_ptr(png));
  std::snprintf(text, 200, "%s", message);
  png_longjmp(png, 1);
}

void OnWarning(png_structp, png_const_charp) {}

// Decodes into `rows` (h pointers to w * 4 bytes, B, G, R, A) with libpng's transforms: palette
// and low bit depths expanded, transparency to alpha, 16-bit samples to their high byte (as
// Pillow reads them), grey to RGB; gamma chunks ignored (the samples are the file's, as Pillow
// gives them). Only plain C objects live across the setjmp. False with `error` set on failure.
bool Rows(const uint8_t* data, uint64_t size, png_bytep* rows, uint32_t w, uint32_t h,
          char* error) {
  MemoryReader reader{data, size, 0};
  png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, error, OnError, OnWarning);
  if (png == nullptr) {
    std::snprintf(error, 200, "out of memory");
    return false;
  }
  png_infop info = png_create_info_struct(png);
  if (info == nullptr || setjmp(png_jmpbuf(png))) {
    png_destroy_read_struct(&png, &info, nullptr);
    return false;
  }
  png_set_read_fn(png, &reader, ReadFromMemory);
  png_read_info(png, info);
  if (png_get_image_width(png, info) != w || png_get_image_height(png, info) != h) {
    png_error(png, "the image size changed between reads");
  }
  png_set_expand(png);
  png_set_strip_16(png);
  png_set_gray_to_rgb(png);
  png_set_bgr(png);
  png_set_add_alpha(png, 0xFF, PNG_FILLER_AFTER);
  (void)png_set_interlace_handling(png);
  png_read_update_info(png, info);
  png_read_image(png, rows);
  png_read_end(png, nullptr);
  png_destroy_read_struct(&png, &info, nullptr);
  return true;
}

}  // namespace

Status DecodePng(const uint8_t* data, uint64_t size, const Picture& out) {
  KILN_ASSIGN_OR_RETURN(PngInfo info, ReadPngInfo(data, size));
  if (info.width != out.width || info.height != out.height) {
    return Error(code::kInvalidParam, "the PNG is ", info.width, "x", info.height,
                 ", the output picture ", out.width, "x", out.height);
  }
  Argb argb(out.width, out.height);  // libyuv's ARGB byte order: B, G, R, A
  std::vector<png_bytep> rows(out.height);
  for (uint32_t y = 0; y < out.height; ++y) rows[y] = argb.row(y);
  char error[200] = {};
  if (!Rows(data, size, rows.data(), out.width, out.height, error)) {
    return Error(code::kFailure, "PNG decode failed: ", error);
  }
  WriteArgb(argb, out, *FindFormat(out.format), Rect{0, 0, out.width, out.height});
  return Status::Ok();
}

}  // namespace kiln::media
