// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// media/jpeg and media/png below the C API: layouts, format resolution, refusal of non-images.
// Decoding real files is tested through the API (tests/capi/dvpp_test.cc, tests/python).
#include <gtest/gtest.h>

#include <vector>

#include "media/jpeg.h"
#include "media/png.h"

namespace kiln::media {
namespace {

TEST(CodecTest, DecodedLayoutAlignsRowsTo128AndHeightTo16) {
  auto nv12 = DecodedLayout(333, 250, 1);
  ASSERT_TRUE(nv12.ok());
  EXPECT_EQ(nv12->width_stride, 384u);
  EXPECT_EQ(nv12->height_stride, 256u);
  EXPECT_EQ(nv12->size, 384u * 256 * 3 / 2);
  auto rgb = DecodedLayout(50, 20, 12);
  ASSERT_TRUE(rgb.ok());
  EXPECT_EQ(rgb->width_stride, 256u);  // 150 bytes, aligned up to 128
  EXPECT_FALSE(DecodedLayout(50, 20, 18).ok());
}

TEST(CodecTest, NonImagesAreRefusedWithTheLibrarysReason) {
  const std::vector<uint8_t> junk(64, 0x42);
  auto jpeg = ReadJpegInfo(junk.data(), junk.size());
  ASSERT_FALSE(jpeg.ok());
  EXPECT_EQ(jpeg.status().code(), code::kInvalidParam);
  EXPECT_FALSE(ReadJpegInfo(nullptr, 10).ok());
  auto png = ReadPngInfo(junk.data(), junk.size());
  ASSERT_FALSE(png.ok());
  EXPECT_NE(png.status().message().find("not a PNG"), std::string::npos);
}

TEST(CodecTest, PngOutputFormatResolvesUnknownByAlpha) {
  PngInfo rgb{4, 4, 3}, grey_alpha{4, 4, 2};
  EXPECT_EQ(*PngOutputFormat(rgb, kPixelFormatUnknown), 12);
  EXPECT_EQ(*PngOutputFormat(grey_alpha, kPixelFormatUnknown), 16);
  EXPECT_EQ(*PngOutputFormat(rgb, 17), 17);
  EXPECT_FALSE(PngOutputFormat(rgb, 1).ok());  // the PNG decoder writes RGB formats
}

}  // namespace
}  // namespace kiln::media
