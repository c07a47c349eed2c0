// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "media/picture.h"

#include <gtest/gtest.h>

namespace kiln::media {
namespace {

Picture Pic(int format, uint32_t w, uint32_t h, uint32_t ws, uint32_t hs, uint64_t size) {
  static uint8_t anchor;
  Picture p;
  p.data = &anchor;
  p.format = format;
  p.width = w;
  p.height = h;
  p.width_stride = ws;
  p.height_stride = hs;
  p.size = size;
  return p;
}

TEST(PictureTest, BytesFollowEachFamilysPlanes) {
  EXPECT_EQ(PictureBytes(*FindFormat(1), 128, 48), 128u * 48 * 3 / 2);  // NV12
  EXPECT_EQ(PictureBytes(*FindFormat(4), 64, 10), 64u * 10 * 2);        // YVU 4:2:2 SP
  EXPECT_EQ(PictureBytes(*FindFormat(5), 32, 4), 32u * 4 * 3);          // YUV 4:4:4 SP
  EXPECT_EQ(PictureBytes(*FindFormat(0), 32, 4), 32u * 4);              // grey
  EXPECT_EQ(PictureBytes(*FindFormat(14), 64, 4), 64u * 4);             // ARGB: one plane
  EXPECT_EQ(RowBytes(*FindFormat(7), 5), 12u);  // YUYV: 3 pixel pairs of 4 bytes
  EXPECT_EQ(RowBytes(*FindFormat(12), 5), 15u);
  EXPECT_EQ(FindFormat(18), nullptr);  // 10-bit: not handled
  EXPECT_EQ(FormatName(2), "PIXEL_FORMAT_YVU_SEMIPLANAR_420 (2)");
  EXPECT_EQ(FormatName(50), "pixel format 50");
}

TEST(PictureTest, CheckPictureNamesTheRuleItBreaks) {
  EXPECT_TRUE(CheckPicture("in", Pic(1, 33, 17, 48, 18, 48 * 18 * 3 / 2)).ok());
  auto stride = CheckPicture("in", Pic(1, 33, 17, 40, 18, 10000));
  ASSERT_FALSE(stride.ok());
  EXPECT_NE(stride.status().message().find("width stride 40"), std::string::npos);
  auto rows = CheckPicture("in", Pic(12, 16, 4, 32, 4, 1000));  // 16 RGB pixels need 48 bytes
  EXPECT_FALSE(rows.ok());
  auto odd = CheckPicture("in", Pic(1, 16, 3, 16, 3, 1000));
  ASSERT_FALSE(odd.ok());
  EXPECT_NE(odd.status().message().find("height stride 3"), std::string::npos);
  auto small = CheckPicture("in", Pic(1, 16, 4, 16, 4, 95));  // needs 96
  ASSERT_FALSE(small.ok());
  EXPECT_NE(small.status().message().find("size 95"), std::string::npos);
  EXPECT_FALSE(CheckPicture("in", Pic(1, 0, 4, 16, 4, 96)).ok());
  EXPECT_FALSE(CheckPicture("in", Pic(1, 8193, 4, 8208, 4, 1u << 20)).ok());
  EXPECT_FALSE(CheckPicture("in", Pic(99, 16, 4, 16, 4, 96)).ok());
  Picture null_data = Pic(1, 16, 4, 16, 4, 96);
  null_data.data = nullptr;
  EXPECT_FALSE(CheckPicture("in", null_data).ok());
}

TEST(PictureTest, RegionsKeepToTheChromaGridExceptAtTheEdge) {
  const Picture p = Pic(1, 33, 17, 48, 18, 48 * 18 * 3 / 2);
  const FormatInfo& nv12 = *FindFormat(1);
  EXPECT_TRUE(CheckRect("crop", Rect{2, 2, 4, 4}, p, nv12).ok());
  EXPECT_FALSE(CheckRect("crop", Rect{1, 2, 4, 4}, p, nv12).ok());    // odd left
  EXPECT_FALSE(CheckRect("crop", Rect{2, 2, 3, 4}, p, nv12).ok());    // odd width inside
  EXPECT_TRUE(CheckRect("crop", Rect{30, 14, 3, 3}, p, nv12).ok());   // ends at the edges
  EXPECT_FALSE(CheckRect("crop", Rect{30, 14, 4, 4}, p, nv12).ok());  // past them
  EXPECT_FALSE(CheckRect("crop", Rect{0, 0, 0, 4}, p, nv12).ok());
  // 4:2:2 shares chroma across columns only; RGB not at all.
  EXPECT_TRUE(CheckRect("crop", Rect{2, 1, 4, 3}, p, *FindFormat(3)).ok());
  EXPECT_TRUE(CheckRect("crop", Rect{1, 1, 3, 3}, p, *FindFormat(12)).ok());
}

}  // namespace
}  // namespace kiln::media
