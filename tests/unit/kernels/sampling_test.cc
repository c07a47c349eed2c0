// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Reference kernels of the sampling family. Expected values are worked by hand (the cubic
// weights from Keys' kernel with alpha = -0.75, written out in the comments).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kernel_test_util.h"

namespace kiln::kernels {
namespace {

using testing::Def;
using testing::F32;
using testing::I64;
using testing::Make;
using testing::RunReference;
using testing::Values;

constexpr DataType kF32 = DataType::kFloat32;

void ExpectNear(const std::vector<float>& got, const std::vector<float>& want, float tol = 1e-5f) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << "at " << i;
}

NodeDef GridDef(const HostTensor& x, const HostTensor& grid, const char* mode, const char* pad,
                int64_t align, int opset = 22) {
  NodeDef def = Def("GridSample", {&x, &grid}, {x.dtype}, opset);
  def.attrs["mode"] = std::string(mode);
  def.attrs["padding_mode"] = std::string(pad);
  def.attrs["align_corners"] = align;
  return def;
}

// ---------------------------------------------------------------------------------------------
// GridSample.

TEST(SamplingKernelTest, GridSampleBilinearWithAlignedCorners) {
  HostTensor x = F32({1, 1, 2, 2}, {1, 2, 3, 4});
  // Points (x, y): the centre, the top-left corner, the top-right corner.
  HostTensor grid = F32({1, 1, 3, 2}, {0, 0, -1, -1, 1, -1});
  auto out = RunReference(GridDef(x, grid, "linear", "zeros", 1), {&x, &grid});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ((*out)[0].dims, (Dims{1, 1, 1, 3}));
  ExpectNear(Values<float>((*out)[0]), {2.5f, 1, 2});
}

TEST(SamplingKernelTest, GridSamplePaddingModes) {
  // align_corners = 0: (-1, -1) is pixel coordinate -0.5 on both axes, (2, 0) is x = 2.5 and
  // y = 0.5 — zeros: all four taps of x are outside; border: x clamps to 1; reflection: x
  // folds back to 0.5.
  HostTensor x = F32({1, 1, 2, 2}, {1, 2, 3, 4});
  HostTensor grid = F32({1, 1, 3, 2}, {0, 0, -1, -1, 2, 0});
  const struct {
    const char* pad;
    std::vector<float> want;
  } cases[] = {
      {"zeros", {2.5f, 0.25f, 0}}, {"border", {2.5f, 1, 3}}, {"reflection", {2.5f, 1, 2.5f}}};
  for (const auto& c : cases) {
    auto out = RunReference(GridDef(x, grid, "linear", c.pad, 0), {&x, &grid});
    ASSERT_TRUE(out.ok()) << out.status().message();
    ExpectNear(Values<float>((*out)[0]), c.want);
  }
}

TEST(SamplingKernelTest, GridSampleNearestRoundsHalfToEven) {
  // Width 4, align_corners = 0: x = 0 -> 1.5 -> 2; x = -0.5 -> 0.5 -> 0; x = 1 -> 3.5 -> 4,
  // outside (zeros).
  HostTensor x = F32({1, 1, 1, 4}, {10, 20, 30, 40});
  HostTensor grid = F32({1, 1, 3, 2}, {0, 0, -0.5f, 0, 1, 0});
  auto out = RunReference(GridDef(x, grid, "nearest", "zeros", 0), {&x, &grid});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(Values<float>((*out)[0]), (std::vector<float>{30, 10, 0}));
}

TEST(SamplingKernelTest, GridSampleCubicUsesFourTapsPerAxis) {
  // align_corners = 1, width 4: x = 0 -> 1.5, weights [-0.09375, 0.59375, 0.59375, -0.09375]
  // -> 2.5; x = -5/6 -> 0.25, weights [-0.10546875, 0.87890625, 0.26171875, -0.03515625] ->
  // zeros: 1.296875 (tap -1 reads 0), border: 1.19140625 (tap -1 reads X[0] = 1).
  HostTensor x = F32({1, 1, 1, 4}, {1, 2, 3, 4});
  HostTensor grid = F32({1, 1, 2, 2}, {0, 0, -5.0f / 6.0f, 0});
  auto out = RunReference(GridDef(x, grid, "cubic", "zeros", 1), {&x, &grid});
  ASSERT_TRUE(out.ok()) << out.status().message();
  ExpectNear(Values<float>((*out)[0]), {2.5f, 1.296875f});
  out = RunReference(GridDef(x, grid, "cubic", "border", 1), {&x, &grid});
  ASSERT_TRUE(out.ok()) << out.status().message();
  ExpectNear(Values<float>((*out)[0]), {2.5f, 1.19140625f});
}

TEST(SamplingKernelTest, GridSampleIntegerInputsTruncateAndSaturate) {
  HostTensor x = Make(DataType::kInt32, {1, 1, 1, 2}, std::vector<int32_t>{0, 3});
  HostTensor grid = F32({1, 1, 1, 2}, {0, 0});
  auto out = RunReference(GridDef(x, grid, "linear", "zeros", 1), {&x, &grid});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(Values<int32_t>((*out)[0]), (std::vector<int32_t>{1}));  // 1.5 truncated
  // Cubic overshoot below 0 saturates an uint8 output: 255 * -0.09375 -> 0.
  HostTensor u = Make(DataType::kUint8, {1, 1, 1, 4}, std::vector<uint8_t>{255, 0, 0, 0});
  out = RunReference(GridDef(u, grid, "cubic", "zeros", 1), {&u, &grid});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(Values<uint8_t>((*out)[0]), (std::vector<uint8_t>{0}));
}

TEST(SamplingKernelTest, GridSampleVolumetricAtOpset20) {
  HostTensor x = F32({1, 1, 2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7});
  // (x, y, z) = the centre (mean 3.5) and (1, -1, -1) = X[0][0][1].
  HostTensor grid = F32({1, 1, 1, 2, 3}, {0, 0, 0, 1, -1, -1});
  auto out = RunReference(GridDef(x, grid, "linear", "zeros", 1, 20), {&x, &grid});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ((*out)[0].dims, (Dims{1, 1, 1, 1, 2}));
  ExpectNear(Values<float>((*out)[0]), {3.5f, 1});
  // Opset 16 samples 4-D inputs only.
  NodeDef old = GridDef(x, grid, "bilinear", "zeros", 1, 16);
  EXPECT_EQ(RunReference(old, {&x, &grid}).status().code(), code::kInvalidParam);
}

TEST(SamplingKernelTest, GridSampleModeNamesFollowTheOpset) {
  HostTensor x = F32({1, 1, 2, 2}, {1, 2, 3, 4});
  HostTensor grid = F32({1, 1, 1, 2}, {0, 0});
  auto out = RunReference(GridDef(x, grid, "bilinear", "zeros", 0, 16), {&x, &grid});
  ASSERT_TRUE(out.ok()) << out.status().message();
  ExpectNear(Values<float>((*out)[0]), {2.5f});
  EXPECT_EQ(RunReference(GridDef(x, grid, "bilinear", "zeros", 0, 20), {&x, &grid}).status().code(),
            code::kInvalidParam);
  EXPECT_EQ(RunReference(GridDef(x, grid, "linear", "wrap", 0, 20), {&x, &grid}).status().code(),
            code::kInvalidParam);
  // A grid whose last dim is not the spatial rank.
  HostTensor bad = F32({1, 1, 1, 3}, {0, 0, 0});
  auto st = RunReference(GridDef(x, bad, "linear", "zeros", 0), {&x, &bad}).status();
  EXPECT_EQ(st.code(), code::kInvalidParam);
  EXPECT_NE(st.message().find("GridSample 'n'"), std::string::npos);
}

// ---------------------------------------------------------------------------------------------
// AffineGrid.

TEST(SamplingKernelTest, AffineGridIdentityGivesPixelCentresOrCorners) {
  HostTensor theta = F32({1, 2, 3}, {1, 0, 0, 0, 1, 0});
  HostTensor size = I64({4}, {1, 1, 2, 2});
  NodeDef def = Def("AffineGrid", {&theta, &size}, {kF32}, 20);
  auto out = RunReference(def, {&theta, &size});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ((*out)[0].dims, (Dims{1, 2, 2, 2}));
  ExpectNear(Values<float>((*out)[0]), {-0.5f, -0.5f, 0.5f, -0.5f, -0.5f, 0.5f, 0.5f, 0.5f});
  // x' = x + 0.5, y' = 2y with the corners at +-1.
  HostTensor theta2 = F32({1, 2, 3}, {1, 0, 0.5f, 0, 2, 0});
  def.attrs["align_corners"] = int64_t{1};
  out = RunReference(def, {&theta2, &size});
  ASSERT_TRUE(out.ok()) << out.status().message();
  ExpectNear(Values<float>((*out)[0]), {-0.5f, -2, 1.5f, -2, -0.5f, 2, 1.5f, 2});
}

TEST(SamplingKernelTest, AffineGridThreeDimensional) {
  // Rows: x' = z, y' = x, z' = y + 0.5; D = 2 (z = -0.5, 0.5), H = W = 1 (y = x = 0).
  HostTensor theta = F32({1, 3, 4}, {0, 0, 1, 0, 1, 0, 0, 0, 0, 1, 0, 0.5f});
  HostTensor size = I64({5}, {1, 1, 2, 1, 1});
  NodeDef def = Def("AffineGrid", {&theta, &size}, {kF32}, 20);
  auto out = RunReference(def, {&theta, &size});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ((*out)[0].dims, (Dims{1, 2, 1, 1, 3}));
  ExpectNear(Values<float>((*out)[0]), {-0.5f, 0, 0.5f, 0.5f, 0, 0.5f});
  // A 2-D theta with a 3-D size.
  HostTensor theta2 = F32({1, 2, 3}, {1, 0, 0, 0, 1, 0});
  EXPECT_EQ(RunReference(def, {&theta2, &size}).status().code(), code::kInvalidParam);
}

// ---------------------------------------------------------------------------------------------
// Col2Im.

NodeDef Col2ImDef(const HostTensor& x, const HostTensor& image, const HostTensor& block) {
  return Def("Col2Im", {&x, &image, &block}, {x.dtype}, 18);
}

TEST(SamplingKernelTest, Col2ImPlacesOneBlockAndSumsOverlaps) {
  HostTensor x = F32({1, 4, 1}, {1, 2, 3, 4});
  HostTensor image = I64({2}, {2, 2});
  HostTensor block = I64({2}, {2, 2});
  auto out = RunReference(Col2ImDef(x, image, block), {&x, &image, &block});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ((*out)[0].dims, (Dims{1, 1, 2, 2}));
  EXPECT_EQ(Values<float>((*out)[0]), (std::vector<float>{1, 2, 3, 4}));
  // A 1x3 image from two 1x2 blocks: rows (offset 0) [1, 2] and (offset 1) [10, 20].
  HostTensor x2 = F32({1, 2, 2}, {1, 2, 10, 20});
  HostTensor image2 = I64({2}, {1, 3});
  HostTensor block2 = I64({2}, {1, 2});
  out = RunReference(Col2ImDef(x2, image2, block2), {&x2, &image2, &block2});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(Values<float>((*out)[0]), (std::vector<float>{1, 12, 20}));
}

TEST(SamplingKernelTest, Col2ImPadsStridesAndDilations) {
  // Pads of 1 on both sides of width 2 with 1x1 blocks: 4 blocks, the outer two dropped.
  HostTensor x = F32({1, 1, 4}, {5, 6, 7, 8});
  HostTensor image = I64({2}, {1, 2});
  HostTensor block = I64({2}, {1, 1});
  NodeDef def = Col2ImDef(x, image, block);
  def.attrs["pads"] = std::vector<int64_t>{0, 1, 0, 1};
  auto out = RunReference(def, {&x, &image, &block});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(Values<float>((*out)[0]), (std::vector<float>{6, 7}));
  // Width 5, 1x2 blocks dilated by 2 at stride 2: block l, offset k lands on 2l + 2k.
  HostTensor x2 = F32({1, 2, 2}, {1, 2, 10, 20});
  HostTensor image2 = I64({2}, {1, 5});
  HostTensor block2 = I64({2}, {1, 2});
  NodeDef def2 = Col2ImDef(x2, image2, block2);
  def2.attrs["dilations"] = std::vector<int64_t>{1, 2};
  def2.attrs["strides"] = std::vector<int64_t>{1, 2};
  out = RunReference(def2, {&x2, &image2, &block2});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(Values<float>((*out)[0]), (std::vector<float>{1, 0, 12, 0, 20}));
}

TEST(SamplingKernelTest, Col2ImIntegerAndBoolInputs) {
  HostTensor image = I64({2}, {1, 3});
  HostTensor block = I64({2}, {1, 2});
  HostTensor xi = Make(DataType::kInt32, {1, 2, 2}, std::vector<int32_t>{1, 2, 10, 20});
  auto out = RunReference(Col2ImDef(xi, image, block), {&xi, &image, &block});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(Values<int32_t>((*out)[0]), (std::vector<int32_t>{1, 12, 20}));
  HostTensor xb = Make(DataType::kBool, {1, 2, 2}, std::vector<uint8_t>{1, 0, 0, 1});
  out = RunReference(Col2ImDef(xb, image, block), {&xb, &image, &block});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(Values<uint8_t>((*out)[0]), (std::vector<uint8_t>{1, 0, 1}));
}

TEST(SamplingKernelTest, Col2ImRejectsAWrongBlockCount) {
  HostTensor x = F32({1, 2, 3}, {1, 2, 3, 4, 5, 6});  // 3 blocks, but the image makes 2
  HostTensor image = I64({2}, {1, 3});
  HostTensor block = I64({2}, {1, 2});
  auto st = RunReference(Col2ImDef(x, image, block), {&x, &image, &block}).status();
  EXPECT_EQ(st.code(), code::kInvalidParam);
  EXPECT_NE(st.message().find("Col2Im 'n'"), std::string::npos);
  HostTensor x3 = F32({1, 3, 2}, {1, 2, 3, 4, 5, 6});  // 3 rows, not a multiple of 2
  EXPECT_EQ(RunReference(Col2ImDef(x3, image, block), {&x3, &image, &block}).status().code(),
            code::kInvalidParam);
}

}  // namespace
}  // namespace kiln::kernels
