// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Fuzz target: compressed images and video through the DVPP media layer (src/media): a JPEG
// (FF D8) or PNG (89 'PNG') through header parsing and decode into NV12 and RGB pictures of the
// layout the decoders give; anything else as an H.264 and as an H.265 stream. Any input may be
// refused; none may crash, hang or read or write outside the pictures.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "media/jpeg.h"
#include "media/png.h"
#include "media/video.h"

namespace {

constexpr uint32_t kMaxPixels = 1u << 20;  // larger headers are parsed, not decoded (time)

void DecodeInto(int format, uint32_t w, uint32_t h, bool png, const uint8_t* data, size_t size) {
  auto layout = kiln::media::DecodedLayout(w, h, format);
  if (!layout.ok()) return;
  std::vector<uint8_t> buffer(layout->size);
  layout->data = buffer.data();
  if (png) {
    (void)kiln::media::DecodePng(data, size, *layout);
  } else {
    (void)kiln::media::DecodeJpeg(data, size, *layout);
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) { return 0; }

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size >= 2 && data[0] == 0xFF && data[1] == 0xD8) {
    auto info = kiln::media::ReadJpegInfo(data, size);
    if (info.ok() && info->decodable && uint64_t{info->width} * info->height <= kMaxPixels) {
      DecodeInto(1, info->width, info->height, false, data, size);   // YUV420SP
      DecodeInto(13, info->width, info->height, false, data, size);  // BGR_888
    }
    return 0;
  }
  if (size >= 4 && data[0] == 0x89 && data[1] == 'P' && data[2] == 'N' && data[3] == 'G') {
    auto info = kiln::media::ReadPngInfo(data, size);
    if (info.ok() && info->width > 0 && info->height > 0 &&
        uint64_t{info->width} * info->height <= kMaxPixels) {
      auto format = kiln::media::PngOutputFormat(*info, kiln::media::kPixelFormatUnknown);
      if (format.ok()) DecodeInto(*format, info->width, info->height, true, data, size);
    }
    return 0;
  }
  for (auto codec : {kiln::media::VideoCodec::kH264, kiln::media::VideoCodec::kH265}) {
    auto decoder = kiln::media::VideoDecoder::Open(codec);
    if (!decoder.ok()) continue;
    std::vector<kiln::media::Yuv> frames;
    (void)(*decoder)->Decode(data, size, &frames);
    (void)(*decoder)->Flush(&frames);
  }
  return 0;
}
