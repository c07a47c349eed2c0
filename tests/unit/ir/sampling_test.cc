// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Inference for the sampling family (GridSample, AffineGrid, Col2Im); expected shapes are
// worked by hand from the ONNX operator definitions.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "test_util.h"

namespace kiln::ir {
namespace {

using testing::F32;
using testing::I64;
using testing::Ints;
using testing::OneNode;
using testing::T;

std::string OutShape(const OneNode& n) { return n.out(0).shape.ToString(); }

void ExpectFailure(OneNode& n, int code, const std::string& text) {
  Status s = n.Infer();
  EXPECT_EQ(s.code(), code) << s.message();
  EXPECT_NE(s.message().find(n.node->op_type() + " 'n'"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find(text), std::string::npos) << s.message();
}

// ---------------------------------------------------------------------------------------------
// GridSample.

TEST(SamplingInferenceTest, GridSampleTakesBatchAndChannelsFromXAndSizesFromTheGrid) {
  OneNode n("GridSample", {T(DataType::kUint8, {2, 3, 8, 8}), F32({2, 5, 6, 2})}, 1, 16);
  ASSERT_TRUE(n.Infer().ok()) << n.Infer().message();
  EXPECT_EQ(n.out().dtype, DataType::kUint8);
  EXPECT_EQ(OutShape(n), "[2,3,5,6]");
  // Volumetric from opset 20.
  OneNode v("GridSample", {F32({1, 1, 3, 2, 2}), F32({1, 2, 4, 2, 3})}, 1, 20);
  ASSERT_TRUE(v.Infer().ok()) << v.Infer().message();
  EXPECT_EQ(OutShape(v), "[1,1,2,4,2]");
}

TEST(SamplingInferenceTest, GridSampleRanksAndGridWidthAreChecked) {
  OneNode v16("GridSample", {F32({1, 1, 3, 2, 2}), F32({1, 2, 4, 2, 3})}, 1, 16);
  ExpectFailure(v16, code::kInvalidParam, "rank 4 (opset 16)");
  OneNode width("GridSample", {F32({1, 1, 3, 2}), F32({1, 2, 4, 3})}, 1, 22);
  ExpectFailure(width, code::kInvalidParam, "its last dim must be 2");
  OneNode batch("GridSample", {F32({2, 1, 3, 2}), F32({1, 2, 4, 2})}, 1, 22);
  ExpectFailure(batch, code::kInvalidParam, "batch sizes differ");
  OneNode rank("GridSample", {F32({1, 1, 3, 2}), F32({1, 2, 2})}, 1, 22);
  ExpectFailure(rank, code::kInvalidParam, "same rank");
}

TEST(SamplingInferenceTest, GridSampleModeNamesDependOnTheOpset) {
  OneNode old("GridSample", {F32({1, 1, 3, 2}), F32({1, 2, 4, 2})}, 1, 16);
  old.node->set_attr("mode", std::string("bicubic"));
  EXPECT_TRUE(old.Infer().ok());
  OneNode renamed("GridSample", {F32({1, 1, 3, 2}), F32({1, 2, 4, 2})}, 1, 20);
  renamed.node->set_attr("mode", std::string("bicubic"));
  ExpectFailure(renamed, code::kInvalidParam, "linear, nearest or cubic");
  OneNode pad("GridSample", {F32({1, 1, 3, 2}), F32({1, 2, 4, 2})}, 1, 22);
  pad.node->set_attr("padding_mode", std::string("wrap"));
  ExpectFailure(pad, code::kInvalidParam, "padding_mode");
}

TEST(SamplingInferenceTest, GridSampleGridTypesAndStringInputs) {
  OneNode bf16("GridSample", {F32({1, 1, 3, 2}), T(DataType::kBFloat16, {1, 2, 4, 2})}, 1, 20);
  ExpectFailure(bf16, code::kInvalidParam, "grid is bfloat16");
  OneNode bf22("GridSample", {F32({1, 1, 3, 2}), T(DataType::kBFloat16, {1, 2, 4, 2})}, 1, 22);
  EXPECT_TRUE(bf22.Infer().ok());
  OneNode str("GridSample", {T(DataType::kString, {1, 1, 3, 2}), F32({1, 2, 4, 2})}, 1, 22);
  ExpectFailure(str, code::kFeatureUnsupported, "string");
}

// ---------------------------------------------------------------------------------------------
// AffineGrid.

TEST(SamplingInferenceTest, AffineGridShapeFromAConstantSize) {
  OneNode n("AffineGrid", {F32({2, 2, 3}), I64({4})}, 1, 20, {std::nullopt, Ints({2, 3, 5, 6})});
  ASSERT_TRUE(n.Infer().ok()) << n.Infer().message();
  EXPECT_EQ(OutShape(n), "[2,5,6,2]");
  OneNode m("AffineGrid", {F32({2, 3, 4}), I64({5})}, 1, 20, {std::nullopt, Ints({2, 3, 4, 5, 6})});
  ASSERT_TRUE(m.Infer().ok()) << m.Infer().message();
  EXPECT_EQ(OutShape(m), "[2,4,5,6,3]");
}

TEST(SamplingInferenceTest, AffineGridWithARuntimeSizeKnowsOnlyTheRank) {
  OneNode n("AffineGrid", {F32({2, 3, 4}), I64({5})}, 1, 20);
  ASSERT_TRUE(n.Infer().ok()) << n.Infer().message();
  EXPECT_EQ(OutShape(n), "[2,?,?,?,3]");
}

TEST(SamplingInferenceTest, AffineGridThetaMustMatchTheSize) {
  OneNode n("AffineGrid", {F32({2, 2, 3}), I64({5})}, 1, 20);
  ExpectFailure(n, code::kInvalidParam, "theta has shape [2,2,3]");
  OneNode batch("AffineGrid", {F32({2, 2, 3}), I64({4})}, 1, 20,
                {std::nullopt, Ints({3, 1, 5, 6})});
  ExpectFailure(batch, code::kInvalidParam, "theta has 2 matrices");
  OneNode ints("AffineGrid", {I64({2, 2, 3}), I64({4})}, 1, 20);
  ExpectFailure(ints, code::kInvalidParam, "floating-point");
}

// ---------------------------------------------------------------------------------------------
// Col2Im.

TEST(SamplingInferenceTest, Col2ImShapeFromConstantImageAndBlockShapes) {
  // 10 rows / prod(1,1,5) = 2 channels; image 3x4x5 with 1x1x5 blocks: 3*4*1 = 12 blocks.
  OneNode n("Col2Im", {F32({1, 10, 12}), I64({3}), I64({3})}, 1, 18,
            {std::nullopt, Ints({3, 4, 5}), Ints({1, 1, 5})});
  ASSERT_TRUE(n.Infer().ok()) << n.Infer().message();
  EXPECT_EQ(OutShape(n), "[1,2,3,4,5]");
  // Strides 2 on a 5x5 image with 3x3 blocks: ((5 - 3) / 2 + 1)^2 = 4 blocks.
  OneNode s("Col2Im", {F32({1, 9, 4}), I64({2}), I64({2})}, 1, 18,
            {std::nullopt, Ints({5, 5}), Ints({3, 3})});
  s.node->set_attr("strides", std::vector<int64_t>{2, 2});
  ASSERT_TRUE(s.Infer().ok()) << s.Infer().message();
  EXPECT_EQ(OutShape(s), "[1,1,5,5]");
}

TEST(SamplingInferenceTest, Col2ImWithRuntimeShapesKnowsTheRank) {
  OneNode n("Col2Im", {F32({1, 10, 12}), I64({3}), I64({3})}, 1, 18);
  ASSERT_TRUE(n.Infer().ok()) << n.Infer().message();
  EXPECT_EQ(OutShape(n), "[1,?,?,?,?]");
}

TEST(SamplingInferenceTest, Col2ImChecksBlocksAndAttributes) {
  OneNode blocks("Col2Im", {F32({1, 9, 5}), I64({2}), I64({2})}, 1, 18,
                 {std::nullopt, Ints({5, 5}), Ints({3, 3})});
  blocks.node->set_attr("strides", std::vector<int64_t>{2, 2});
  ExpectFailure(blocks, code::kInvalidParam, "make 4 blocks");
  OneNode rows("Col2Im", {F32({1, 8, 9}), I64({2}), I64({2})}, 1, 18,
               {std::nullopt, Ints({5, 5}), Ints({3, 3})});
  ExpectFailure(rows, code::kInvalidParam, "multiple of prod(block_shape) = 9");
  OneNode pads("Col2Im", {F32({1, 9, 9}), I64({2}), I64({2})}, 1, 18);
  pads.node->set_attr("pads", std::vector<int64_t>{1, 1});
  ExpectFailure(pads, code::kInvalidParam, "'pads' = [1,1] needs 4 values");
  OneNode rank("Col2Im", {F32({9, 9}), I64({2}), I64({2})}, 1, 18);
  ExpectFailure(rank, code::kInvalidParam, "rank 3");
}

TEST(SamplingInferenceTest, Col2ImBoundsItsGeometry) {
  // Values past 2^31 would overflow the block arithmetic.
  OneNode big("Col2Im", {F32({1, 1, 1}), I64({1}), I64({1})}, 1, 18,
              {std::nullopt, Ints({int64_t{1} << 40}), Ints({1})});
  ExpectFailure(big, code::kInvalidParam, "exceeds 2^31");
}

// ---------------------------------------------------------------------------------------------
// Declared attributes.

TEST(SamplingInferenceTest, DefaultsFollowTheOpset) {
  OneNode v16("GridSample", {F32({1, 1, 3, 2}), F32({1, 2, 4, 2})}, 1, 16);
  ASSERT_TRUE(v16.Infer().ok());
  EXPECT_EQ(v16.node->attr_string("mode"), "bilinear");
  EXPECT_EQ(v16.node->attr_string("padding_mode"), "zeros");
  EXPECT_EQ(v16.node->attr_int("align_corners"), 0);
  OneNode v20("GridSample", {F32({1, 1, 3, 2}), F32({1, 2, 4, 2})}, 1, 20);
  ASSERT_TRUE(v20.Infer().ok());
  EXPECT_EQ(v20.node->attr_string("mode"), "linear");
  // Col2Im's window attributes have one entry per spatial axis: no default is filled in.
  OneNode col("Col2Im", {F32({1, 9, 9}), I64({2}), I64({2})}, 1, 18,
              {std::nullopt, Ints({5, 5}), Ints({3, 3})});
  ASSERT_TRUE(col.Infer().ok()) << col.Infer().message();
  EXPECT_FALSE(col.node->has_attr("strides"));
}

TEST(SamplingInferenceTest, GridSampleNeedsSomethingToSample) {
  OneNode empty("GridSample", {F32({1, 1, 0, 2}), F32({1, 2, 4, 2})}, 1, 16);
  ExpectFailure(empty, code::kInvalidParam, "an empty spatial axis has nothing to sample");
  OneNode nothing("GridSample", {F32({1, 1, 0, 2}), F32({1, 0, 4, 2})}, 1, 16);
  EXPECT_TRUE(nothing.Infer().ok());  // an empty output reads nothing
}

}  // namespace
}  // namespace kiln::ir
