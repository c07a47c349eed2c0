// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// JPEG decode and encode on libjpeg-turbo's TurboJPEG API, with DVPP's output rules: a decoded
// picture's width stride is its row aligned up to 128 bytes and its height stride the height
// aligned up to 16 (docs/dvpp.md, "JPEG").
#pragma once

#include <cstdint>

#include "media/picture.h"

namespace kiln::media {

// acldvppJpegFormat values.
inline constexpr int kJpegCss444 = 0, kJpegCss422 = 1, kJpegCss420 = 2, kJpegCssGray = 3,
                     kJpegCss440 = 4, kJpegCss411 = 5, kJpegCssUnknown = 1000;

struct JpegInfo {
  uint32_t width = 0, height = 0;
  int32_t components = 0;  // 1 grey, 3 colour, 4 CMYK/YCCK
  int css = kJpegCssUnknown;
  bool decodable = false;  // false for CMYK/YCCK and unusual subsamplings
};

inline constexpr uint32_t kDecodeWidthAlign = 128, kDecodeHeightAlign = 16;

Result<JpegInfo> ReadJpegInfo(const uint8_t* data, uint64_t size);

// The output picture DVPP gives for a `format` decode of an image this size: strides and size.
Result<Picture> DecodedLayout(uint32_t width, uint32_t height, int format);

// Decodes into `out`, whose format, width, height and strides are set and checked.
Status DecodeJpeg(const uint8_t* data, uint64_t size, const Picture& out);

// An upper bound of the encoded size of `in` (any handled format).
uint64_t PredictJpegEncSize(const Picture& in);
// Encodes `in` at `quality` (1..100) into dst (capacity `cap`); the encoded size.
Result<uint64_t> EncodeJpeg(const Picture& in, int quality, uint8_t* dst, uint64_t cap);

}  // namespace kiln::media
