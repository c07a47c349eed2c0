// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// com.kiln Aipp (static AIPP, docs/aipp.md "Execution") on the reference kernel, which is also
// the CPU device's. Every expected value is worked by hand from CANN's formulas in the comments.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "base/aipp.h"
#include "base/fp16.h"
#include "kernels/attrs.h"
#include "tests/unit/kernels/kernel_test_util.h"

namespace kiln::kernels {
namespace {

using testing::Make;
using testing::Values;

HostTensor Image(Dims dims, const std::vector<uint8_t>& bytes) {
  return Make(DataType::kUint8, std::move(dims), bytes);
}

NodeDef AippDef(const HostTensor& image, const std::string& format, int64_t w, int64_t h,
                DataType out = DataType::kFloat32) {
  NodeDef def = testing::Def("Aipp", {&image}, {out}, 1);
  def.domain = "com.kiln";
  def.attrs["input_format"] = format;
  def.attrs["src_image_size"] = std::vector<int64_t>{w, h};
  def.attrs["to"] = static_cast<int64_t>(out);
  return def;
}

Result<HostTensor> RunAipp(const NodeDef& def, const HostTensor& image) {
  KILN_ASSIGN_OR_RETURN(auto out, testing::RunReference(def, {&image}));
  return out.at(0);
}

// 2x2 RGB888: pixel k (row-major) is (10 + 30k, 20 + 30k, 30 + 30k). Normalised
// (v - mean - min) * var_reci per channel; Y is NCHW.
TEST(AippKernelTest, Rgb888NormalisesEachChannel) {
  const HostTensor img = Image({1, 2, 2, 3}, {10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120});
  NodeDef def = AippDef(img, "RGB888_U8", 2, 2);
  def.attrs["mean_chn"] = std::vector<int64_t>{4, 0, 0, 0};
  def.attrs["min_chn"] = std::vector<float>{6, 20, 30, 0};
  def.attrs["var_reci_chn"] = std::vector<float>{0.5f, 1, 2, 1};
  auto y = RunAipp(def, img);
  ASSERT_TRUE(y.ok()) << y.status().message();
  EXPECT_EQ(y->dims, (Dims{1, 3, 2, 2}));
  // R: (R - 10) * 0.5; G: G - 20; B: (B - 30) * 2.
  EXPECT_EQ(Values<float>(*y), (std::vector<float>{0, 15, 30, 45, 0, 30, 60, 90, 0, 60, 120, 180}));
  // rbuv_swap: channel 0 reads B, channel 2 reads R (same normalisation per channel).
  def.attrs["rbuv_swap"] = int64_t{1};
  y = RunAipp(def, img);
  ASSERT_TRUE(y.ok()) << y.status().message();
  EXPECT_EQ(Values<float>(*y),
            (std::vector<float>{10, 25, 40, 55, 0, 30, 60, 90, -40, 20, 80, 140}));
}

// A 3x2 image, pixel (y, x) = (10k, 10k + 1, 10k + 2) with k = 3y + x; crop the 2x2 window at
// (1, 0), pad 1 row on top and 1 column on the right with -1: Y is 3x3.
TEST(AippKernelTest, CropThenPadding) {
  std::vector<uint8_t> bytes;
  for (uint8_t k = 0; k < 6; ++k) {
    for (uint8_t c = 0; c < 3; ++c) bytes.push_back(static_cast<uint8_t>(10 * k + c));
  }
  const HostTensor img = Image({1, 2, 3, 3}, bytes);
  NodeDef def = AippDef(img, "RGB888_U8", 3, 2);
  def.attrs["crop"] = std::vector<int64_t>{1, 0, 2, 2};
  def.attrs["padding"] = std::vector<int64_t>{1, 0, 0, 1};  // top, bottom, left, right
  def.attrs["padding_value"] = -1.0f;
  auto y = RunAipp(def, img);
  ASSERT_TRUE(y.ok()) << y.status().message();
  ASSERT_EQ(y->dims, (Dims{1, 3, 3, 3}));
  const std::vector<float> v = Values<float>(*y);
  for (int c = 0; c < 3; ++c) {
    const float f = static_cast<float>(c);
    const std::vector<float> plane(v.begin() + 9 * c, v.begin() + 9 * (c + 1));
    EXPECT_EQ(plane, (std::vector<float>{-1, -1, -1, 10 + f, 20 + f, -1, 40 + f, 50 + f, -1}))
        << "channel " << c;
  }
}

// NV12 2x2 (Y 100 150 200 250, one chroma pair U 90, V 170) with the vpc sample's full-range
// YUV->RGB matrix and input bias (0, 128, 128), uint8 out (no normalisation):
//   Y=100: R = (256*100 + 359*42) >> 8 = 40678 >> 8 = 158; G = (25600 + 88*38 - 183*42) >> 8 =
//   21258 >> 8 = 83; B = (25600 - 454*38) >> 8 = 8348 >> 8 = 32. Y=150: 208, 133, 82.
//   Y=200: R 66278 >> 8 = 258 -> 255, G 183, B 132. Y=250: R -> 255, G 233, B 182.
TEST(AippKernelTest, Yuv420SpToRgbInIntegers) {
  const std::vector<int64_t> matrix = {256, 0, 359, 256, -88, -183, 256, 454, 0};
  for (const bool nv21 : {false, true}) {
    const HostTensor img = nv21 ? Image({1, 3, 2, 1}, {100, 150, 200, 250, 170, 90})
                                : Image({1, 3, 2, 1}, {100, 150, 200, 250, 90, 170});
    NodeDef def = AippDef(img, "YUV420SP_U8", 2, 2, DataType::kUint8);
    def.attrs["csc_matrix"] = matrix;
    def.attrs["csc_input_bias"] = std::vector<int64_t>{0, 128, 128};
    def.attrs["csc_output_bias"] = std::vector<int64_t>{16, 128, 128};  // unused: YUV source
    def.attrs["rbuv_swap"] = int64_t{nv21 ? 1 : 0};
    def.attrs["min_chn"] = std::vector<float>{50, 50, 50, 50};  // no normalisation for uint8
    auto y = RunAipp(def, img);
    ASSERT_TRUE(y.ok()) << y.status().message();
    EXPECT_EQ(y->dims, (Dims{1, 3, 2, 2}));
    EXPECT_EQ(Values<uint8_t>(*y),
              (std::vector<uint8_t>{158, 208, 255, 255, 83, 133, 183, 233, 32, 82, 132, 182}))
        << (nv21 ? "NV21" : "NV12");
  }
}

// The 4:2:2 formats and AYUV with the same full-range matrix (uint8 out). YUYV 2x1: Y0 U Y1 V =
// 100 90 150 170 gives the NV12 test's first two pixels. YUV422SP 2x2: row 0's chroma (90, 170)
// as there, row 1's (128, 128) neutral, so Y 200 and 250 stay grey. AYUV: A passes through.
TEST(AippKernelTest, Yuv422AndAyuvToRgb) {
  const std::vector<int64_t> matrix = {256, 0, 359, 256, -88, -183, 256, 454, 0};
  auto csc = [&](NodeDef& def) {
    def.attrs["csc_matrix"] = matrix;
    def.attrs["csc_input_bias"] = std::vector<int64_t>{0, 128, 128};
    def.attrs["csc_output_bias"] = std::vector<int64_t>{0, 0, 0};
  };
  for (const bool swap : {false, true}) {
    const HostTensor yuyv =
        swap ? Image({1, 1, 2, 2}, {100, 170, 150, 90}) : Image({1, 1, 2, 2}, {100, 90, 150, 170});
    NodeDef def = AippDef(yuyv, "YUYV_U8", 2, 1, DataType::kUint8);
    csc(def);
    def.attrs["rbuv_swap"] = int64_t{swap};
    auto y = RunAipp(def, yuyv);
    ASSERT_TRUE(y.ok()) << y.status().message();
    EXPECT_EQ(Values<uint8_t>(*y), (std::vector<uint8_t>{158, 208, 83, 133, 32, 82}))
        << "YUYV, rbuv_swap " << swap;
  }
  const HostTensor sp = Image({1, 4, 2, 1}, {100, 150, 200, 250, 90, 170, 128, 128});
  NodeDef def = AippDef(sp, "YUV422SP_U8", 2, 2, DataType::kUint8);
  csc(def);
  auto y = RunAipp(def, sp);
  ASSERT_TRUE(y.ok()) << y.status().message();
  EXPECT_EQ(Values<uint8_t>(*y),
            (std::vector<uint8_t>{158, 208, 200, 250, 83, 133, 200, 250, 32, 82, 200, 250}));
  for (const bool ax : {false, true}) {
    const HostTensor ayuv = ax ? Image({1, 1, 2, 4}, {100, 90, 170, 7, 100, 90, 170, 7})
                               : Image({1, 1, 2, 4}, {7, 100, 90, 170, 7, 100, 90, 170});
    NodeDef a = AippDef(ayuv, "AYUV444_U8", 2, 1);
    csc(a);
    a.attrs["ax_swap"] = int64_t{ax};
    auto out = RunAipp(a, ayuv);
    ASSERT_TRUE(out.ok()) << out.status().message();
    EXPECT_EQ(Values<float>(*out), (std::vector<float>{7, 7, 158, 158, 83, 83, 32, 32}))
        << "ax_swap " << ax;
  }
}

// RGB->YUV (BT.601, output bias 0, 128, 128): (255, 0, 0) gives Y = 19635 >> 8 = 76,
// U = (-43*255) >> 8 = floor(-42.8) = -43, + 128 = 85, V = 32640 >> 8 = 127, + 128 = 255;
// (0, 0, 255) gives Y = 7395 >> 8 = 28, U = 127 + 128 = 255, V = floor(-20.9) + 128 = 107.
// The shift rounds towards -inf (truncation would give 86 and 108).
TEST(AippKernelTest, RgbToYuvShiftRoundsDown) {
  const HostTensor img = Image({1, 1, 2, 3}, {255, 0, 0, 0, 0, 255});
  NodeDef def = AippDef(img, "RGB888_U8", 2, 1);
  def.attrs["csc_matrix"] = std::vector<int64_t>{77, 150, 29, -43, -85, 128, 128, -107, -21};
  def.attrs["csc_input_bias"] = std::vector<int64_t>{16, 128, 128};  // unused: RGB source
  def.attrs["csc_output_bias"] = std::vector<int64_t>{0, 128, 128};
  auto y = RunAipp(def, img);
  ASSERT_TRUE(y.ok()) << y.status().message();
  EXPECT_EQ(Values<float>(*y), (std::vector<float>{76, 28, 85, 255, 255, 107}));
}

// XRGB8888: 4 channels A, R, G, B. ax_swap reads RGBA; rbuv_swap swaps R and B.
TEST(AippKernelTest, Xrgb8888Swaps) {
  struct Case {
    bool ax, rbuv;
    std::vector<uint8_t> pixel;
  };
  for (const Case& c : {Case{false, false, {40, 10, 20, 30}}, Case{true, false, {10, 20, 30, 40}},
                        Case{true, true, {30, 20, 10, 40}}}) {
    for (const char* format : {"XRGB8888_U8", "ARGB8888_U8"}) {
      std::vector<uint8_t> two = c.pixel;  // a 2x1 image (CANN's least width): the pixel twice
      two.insert(two.end(), c.pixel.begin(), c.pixel.end());
      const HostTensor img = Image({1, 1, 2, 4}, two);
      NodeDef def = AippDef(img, format, 2, 1);
      def.attrs["ax_swap"] = int64_t{c.ax};
      def.attrs["rbuv_swap"] = int64_t{c.rbuv};
      def.attrs["mean_chn"] = std::vector<int64_t>{1, 2, 3, 4};
      auto y = RunAipp(def, img);
      ASSERT_TRUE(y.ok()) << y.status().message();
      // A, R, G, B = 40, 10, 20, 30 minus the means 1, 2, 3, 4.
      EXPECT_EQ(Values<float>(*y), (std::vector<float>{39, 39, 8, 8, 17, 17, 26, 26}))
          << format << " ax_swap " << c.ax << " rbuv_swap " << c.rbuv;
    }
  }
}

// YUV400 into a float16 input, two images of 1x2.
TEST(AippKernelTest, Yuv400ToFloat16PerImage) {
  const HostTensor img = Image({2, 1, 2, 1}, {0, 255, 7, 9});
  NodeDef def = AippDef(img, "YUV400_U8", 2, 1, DataType::kFloat16);
  def.attrs["min_chn"] = std::vector<float>{1, 0, 0, 0};
  def.attrs["var_reci_chn"] = std::vector<float>{0.5f, 1, 1, 1};
  auto y = RunAipp(def, img);
  ASSERT_TRUE(y.ok()) << y.status().message();
  EXPECT_EQ(y->dims, (Dims{2, 1, 1, 2}));
  EXPECT_EQ(testing::HalfValues(*y), (std::vector<float>{-0.5f, 127, 3, 4}));
}

// The definition refuses what the kernel could not read safely.
TEST(AippKernelTest, DefinitionRefusesBadNodes) {
  const HostTensor img = Image({1, 2, 2, 3}, std::vector<uint8_t>(12, 0));
  NodeDef wrong_size = AippDef(img, "RGB888_U8", 3, 2);  // the image is 2 wide
  auto r = RunAipp(wrong_size, img);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("[N, 2, 3, 3]"), std::string::npos) << r.status().message();

  NodeDef outside = AippDef(img, "RGB888_U8", 2, 2);
  outside.attrs["crop"] = std::vector<int64_t>{1, 0, 2, 2};
  r = RunAipp(outside, img);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("does not lie inside"), std::string::npos)
      << r.status().message();

  const HostTensor gray = Image({1, 2, 2, 1}, std::vector<uint8_t>(4, 0));
  NodeDef csc = AippDef(gray, "YUV400_U8", 2, 2);
  csc.attrs["csc_matrix"] = std::vector<int64_t>(9, 1);
  csc.attrs["csc_input_bias"] = std::vector<int64_t>{0, 0, 0};
  csc.attrs["csc_output_bias"] = std::vector<int64_t>{0, 0, 0};
  r = RunAipp(csc, gray);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), code::kFeatureUnsupported) << r.status().message();

  // The kernel's own reading checks the geometry too: a node the definition never saw (a crafted
  // model's body graph) must not address outside the image.
  for (const std::vector<int64_t>& crop :
       {std::vector<int64_t>{1000, 0, 2, 2}, std::vector<int64_t>{0, 0, 3, 2}}) {
    NodeDef unchecked = AippDef(img, "RGB888_U8", 2, 2);
    unchecked.attrs["crop"] = crop;
    auto read = ReadAippAttrs(unchecked);
    ASSERT_FALSE(read.ok());
    EXPECT_NE(read.status().message().find("does not lie inside"), std::string::npos)
        << read.status().message();
  }
  NodeDef odd = AippDef(img, "YUV420SP_U8", 4, 3);  // a 4:2:0 image of odd height
  EXPECT_FALSE(ReadAippAttrs(odd).ok());

  NodeDef format = AippDef(img, "NV12", 2, 2);
  r = RunAipp(format, img);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("NV12"), std::string::npos) << r.status().message();
}

// DynamicAipp: two 2x2 RGB888 images, each with its own parameters from one CANN block. Image 0:
// (v - 10) * 0.5 on channel 0, v on the others. Image 1: the 1x2 window at x = 1, padded on the
// left with one column (padding value 0 for the dynamic form), BGR (swap shared by both images).
TEST(AippKernelTest, DynamicParametersPerImage) {
  const HostTensor img = Image({24}, {10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120,
                                      11, 21, 31, 41, 51, 61, 71, 81, 91, 101, 111, 121});
  std::vector<uint8_t> block(aipp::DynamicBlockSize(2), 0);
  aipp::DynamicHeader head{};
  head.input_format = 3;  // RGB888_U8
  head.batch_num = 2;
  head.src_image_size_w = 2;
  head.src_image_size_h = 2;
  head.rbuv_swap_switch = 1;
  std::memcpy(block.data(), &head, sizeof head);
  aipp::DynamicBatch b0{}, b1{};
  for (auto* b : {&b0, &b1}) {
    for (uint16_t& v : b->var_reci) v = FloatToHalf(1.0f);
  }
  b0.min[0] = FloatToHalf(10.0f);
  b0.var_reci[0] = FloatToHalf(0.5f);
  b1.crop_switch = 1;
  b1.crop_start_w = 1;
  b1.crop_size_w = 1;
  b1.crop_size_h = 2;
  b1.padding_switch = 1;
  b1.padding_left = 1;
  std::memcpy(block.data() + sizeof head, &b0, sizeof b0);
  std::memcpy(block.data() + sizeof head + sizeof b0, &b1, sizeof b1);
  const HostTensor params = Image({static_cast<int64_t>(block.size())}, block);
  NodeDef def = testing::Def("DynamicAipp", {&img, &params}, {DataType::kFloat32}, 1);
  def.domain = "com.kiln";
  def.attrs["shape"] = std::vector<int64_t>{2, 3, 2, 2};
  auto y = testing::RunReference(def, {&img, &params});
  ASSERT_TRUE(y.ok()) << y.status().message();
  EXPECT_EQ(Values<float>(y->at(0)),
            (std::vector<float>{// image 0: B, G, R planes; B = (B - 10) * 0.5
                                10, 25, 40, 55, 20, 50, 80, 110, 10, 40, 70, 100,
                                // image 1: column 0 padded (0), column 1 = pixel x = 1
                                0, 61, 0, 121, 0, 51, 0, 111, 0, 41, 0, 101}));

  // A block for one image where the model takes two is refused, naming what to call.
  block[4] = 1;
  const HostTensor one = Image({static_cast<int64_t>(block.size())}, block);
  auto r = testing::RunReference(def, {&img, &one});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("aclmdlCreateAIPP"), std::string::npos)
      << r.status().message();
}

}  // namespace
}  // namespace kiln::kernels
