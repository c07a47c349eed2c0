// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// PNG decode on libpng: the header through its simplified API, the pixels through its
// transforms (16-bit samples to their high byte, gamma chunks ignored: the file's samples, as
// Pillow and OpenCV read them). DVPP's PNG decoder writes RGB or RGBA (any packed RGB format
// here); PIXEL_FORMAT_UNKNOWN asks for the image's own: RGBA when it has alpha, else RGB.
// Strides as for JPEG (media/jpeg.h: DecodedLayout).
#pragma once

#include <cstdint>

#include "media/picture.h"

namespace kiln::media {

inline constexpr int kPixelFormatUnknown = 10000;

struct PngInfo {
  uint32_t width = 0, height = 0;
  int32_t components = 0;  // 1 grey, 2 grey+alpha, 3 RGB, 4 RGBA
};

Result<PngInfo> ReadPngInfo(const uint8_t* data, uint64_t size);
// The output format of a decode asked for as `format` (resolves PIXEL_FORMAT_UNKNOWN); refuses
// formats the PNG decoder does not write.
Result<int> PngOutputFormat(const PngInfo& info, int format);
// Decodes into `out`, whose format, width, height and strides are set and checked.
Status DecodePng(const uint8_t* data, uint64_t size, const Picture& out);

}  // namespace kiln::media
