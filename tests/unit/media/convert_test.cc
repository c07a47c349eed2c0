// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "media/convert.h"

#include <gtest/gtest.h>

#include <cmath>

namespace kiln::media {
namespace {

// A one-row picture of `format` over `bytes`.
Picture Row(int format, std::vector<uint8_t>& bytes, uint32_t width) {
  Picture p;
  p.data = bytes.data();
  p.size = bytes.size();
  p.format = format;
  p.width = width;
  p.height = 1;
  p.width_stride = static_cast<uint32_t>(bytes.size());
  p.height_stride = 1;
  return p;
}

TEST(ConvertTest, PackedFormatsReadTheirBytesInTheirOrder) {
  // YVYU: Y0 V Y1 U. Two pixels with Y = 10, 20 sharing V = 30, U = 40.
  std::vector<uint8_t> yvyu = {10, 30, 20, 40};
  Picture p = Row(9, yvyu, 2);
  Yuv img = ReadYuv(p, *FindFormat(9), Rect{0, 0, 2, 1});
  EXPECT_EQ(img.y.px, (std::vector<uint8_t>{10, 20}));
  EXPECT_EQ(img.u.px, (std::vector<uint8_t>{40}));
  EXPECT_EQ(img.v.px, (std::vector<uint8_t>{30}));
  // Written back as VYUY (V Y0 U Y1).
  std::vector<uint8_t> vyuy(4, 0);
  Picture q = Row(10, vyuy, 2);
  WriteYuv(img, q, *FindFormat(10), Rect{0, 0, 2, 1});
  EXPECT_EQ(vyuy, (std::vector<uint8_t>{30, 10, 40, 20}));
  // ARGB_8888 is A, R, G, B in memory; to BGR_888 (B, G, R).
  std::vector<uint8_t> argb = {255, 1, 2, 3};
  Argb pixels = ReadArgb(Row(14, argb, 1), *FindFormat(14), Rect{0, 0, 1, 1});
  std::vector<uint8_t> bgr(3, 0);
  WriteArgb(pixels, Row(13, bgr, 1), *FindFormat(13), Rect{0, 0, 1, 1});
  EXPECT_EQ(bgr, (std::vector<uint8_t>{3, 2, 1}));
}

TEST(ConvertTest, RgbToYuvIsJfifAndComesBackWithinRounding) {
  Argb img(4, 1);
  const uint8_t rgb[4][3] = {{255, 0, 0}, {0, 255, 0}, {0, 0, 255}, {90, 140, 200}};
  for (int i = 0; i < 4; ++i) {
    img.px[i * 4 + 0] = rgb[i][2];
    img.px[i * 4 + 1] = rgb[i][1];
    img.px[i * 4 + 2] = rgb[i][0];
    img.px[i * 4 + 3] = 255;
  }
  Yuv yuv = ArgbToYuv(img, 1, 1);
  for (int i = 0; i < 4; ++i) {
    const double r = rgb[i][0], g = rgb[i][1], b = rgb[i][2];
    EXPECT_NEAR(yuv.y.px[i], 0.299 * r + 0.587 * g + 0.114 * b, 0.51) << i;
    EXPECT_NEAR(yuv.u.px[i], std::fmin(255, -0.168736 * r - 0.331264 * g + 0.5 * b + 128), 0.51);
    EXPECT_NEAR(yuv.v.px[i], std::fmin(255, 0.5 * r - 0.418688 * g - 0.081312 * b + 128), 0.51);
  }
  Argb back = YuvToArgb(yuv);
  for (int i = 0; i < 4; ++i) {
    EXPECT_NEAR(back.px[i * 4 + 2], rgb[i][0], 3) << i;
    EXPECT_NEAR(back.px[i * 4 + 1], rgb[i][1], 3) << i;
    EXPECT_NEAR(back.px[i * 4 + 0], rgb[i][2], 3) << i;
  }
}

TEST(ConvertTest, ScalingToTheSameSizeChangesOnlyTheSubsampling) {
  Yuv img;
  img.y = Plane(4, 2, 50);
  img.u = Plane(2, 1, 60);
  img.v = Plane(2, 1, 70);
  img.sub_x = 2;
  img.sub_y = 2;
  Yuv full = ScaleYuv(img, 4, 2, 1, 1, Filter::kNearest);
  EXPECT_EQ(full.y.px, img.y.px);
  EXPECT_EQ(full.u.w, 4u);
  EXPECT_EQ(full.u.h, 2u);
  EXPECT_EQ(full.u.px, std::vector<uint8_t>(8, 60));  // flat chroma stays flat
}

}  // namespace
}  // namespace kiln::media
