// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Inference for the nn family. Every expected shape is worked by hand from the ONNX operator
// definitions (the arithmetic is in the comments).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ir/ops/nn.h"
#include "tests/unit/ir/test_util.h"

namespace kiln::ir {
namespace {

using testing::F32;
using testing::I64;
using testing::OneNode;
using testing::T;

using Ints = std::vector<int64_t>;

Dim K(int64_t v) { return Dim::Known(v); }
Dim S(const char* symbol) { return Dim::Symbol(symbol); }
TensorType F32Dims(std::vector<Dim> dims) { return {DataType::kFloat32, Shape(std::move(dims))}; }
TensorType Unranked(DataType dt = DataType::kFloat32) { return {dt, Shape()}; }

std::string OutShape(const OneNode& n, size_t i = 0) { return n.out(i).shape.ToString(); }

// Infers `n` and expects failure with `code`, a message naming the node, and `text`.
void ExpectFailure(OneNode& n, int code, const std::string& text) {
  Status s = n.Infer();
  EXPECT_EQ(s.code(), code) << s.message();
  std::string prefix = n.node->op_type() + " 'n' (opset " + std::to_string(n.node->opset()) + "): ";
  EXPECT_NE(s.message().find(prefix), std::string::npos) << s.message();
  EXPECT_NE(s.message().find(text), std::string::npos) << s.message();
}

// A one-node graph whose output i is omitted (ONNX's empty output name) where !present[i].
class SparseOutputs {
 public:
  SparseOutputs(const std::string& op_type, std::vector<TensorType> inputs,
                std::vector<bool> present, int opset) {
    std::vector<Value*> ins, outs;
    for (size_t i = 0; i < inputs.size(); ++i) {
      ins.push_back(*graph.AddValue("in" + std::to_string(i), inputs[i]));
    }
    for (size_t i = 0; i < present.size(); ++i) {
      outs.push_back(present[i] ? *graph.AddValue("out" + std::to_string(i), {}) : nullptr);
    }
    node = *graph.AddNode(op_type, "", "n", opset, ins, outs);
  }
  Status Infer() { return InferNode(OpRegistry::Global(), *node); }

  Graph graph;
  Node* node = nullptr;
};

// ---------------------------------------------------------------------------------------------
// Conv and ConvTranspose.

TEST(ConvInferenceTest, StrideTwoPadThreeSevenBySevenHalvesTheImage) {
  OneNode n("Conv", {F32({1, 3, 224, 224}), F32({64, 3, 7, 7}), F32({64})}, 1);
  n.node->set_attr("strides", Ints{2, 2});
  n.node->set_attr("pads", Ints{3, 3, 3, 3});
  ASSERT_TRUE(n.Infer().ok());
  EXPECT_EQ(n.out().dtype, DataType::kFloat32);
  // (224 + 3 + 3 - 7) / 2 + 1 = 112
  EXPECT_EQ(OutShape(n), "[1,64,112,112]");
}

TEST(ConvInferenceTest, SameUpperWithStrideTwoRoundsOddSizesUp) {
  for (const char* pad : {"SAME_UPPER", "SAME_LOWER"}) {
    OneNode n("Conv", {F32({1, 1, 7, 9}), F32({4, 1, 3, 3})}, 1);
    n.node->set_attr("auto_pad", std::string(pad));
    n.node->set_attr("strides", Ints{2, 2});
    ASSERT_TRUE(n.Infer().ok()) << pad;
    // ceil(7 / 2) = 4, ceil(9 / 2) = 5
    EXPECT_EQ(OutShape(n), "[1,4,4,5]") << pad;
  }
}

TEST(ConvInferenceTest, ValidPaddingDropsTheRemainderAndIgnoresPads) {
  OneNode n("Conv", {F32({1, 1, 8, 8}), F32({1, 1, 3, 3})}, 1);
  n.node->set_attr("auto_pad", std::string("VALID"));
  n.node->set_attr("strides", Ints{2, 2});
  n.node->set_attr("pads", Ints{0, 0, 0, 0});
  ASSERT_TRUE(n.Infer().ok());
  // floor((8 - 3) / 2) + 1 = 3
  EXPECT_EQ(OutShape(n), "[1,1,3,3]");
}

TEST(ConvInferenceTest, DilationWidensTheKernel) {
  OneNode n("Conv", {F32({1, 1, 10, 10}), F32({2, 1, 3, 3})}, 1);
  n.node->set_attr("dilations", Ints{2, 3});
  ASSERT_TRUE(n.Infer().ok());
  // Extents 2*2+1 = 5 and 3*2+1 = 7: 10 - 5 + 1 = 6, 10 - 7 + 1 = 4.
  EXPECT_EQ(OutShape(n), "[1,2,6,4]");
}

TEST(ConvInferenceTest, GroupedConvSplitsChannels) {
  OneNode n("Conv", {F32({1, 8, 5, 5}), F32({16, 4, 3, 3})}, 1);
  n.node->set_attr("group", int64_t{2});
  ASSERT_TRUE(n.Infer().ok());
  EXPECT_EQ(OutShape(n), "[1,16,3,3]");
}

TEST(ConvInferenceTest, DepthwiseConvKeepsChannelsAndSize) {
  OneNode n("Conv", {F32({1, 32, 10, 10}), F32({32, 1, 3, 3}), F32({32})}, 1);
  n.node->set_attr("group", int64_t{32});
  n.node->set_attr("pads", Ints{1, 1, 1, 1});
  ASSERT_TRUE(n.Infer().ok());
  EXPECT_EQ(OutShape(n), "[1,32,10,10]");
}

TEST(ConvInferenceTest, InputChannelsMustEqualWeightChannelsTimesGroup) {
  OneNode n("Conv", {F32({1, 8, 5, 5}), F32({16, 3, 3, 3})}, 1);
  n.node->set_attr("group", int64_t{2});
  ExpectFailure(n, code::kInvalidParam, "X has 8 channels but W.shape[1] * group = 3 * 2 = 6");
  // A group whose product with W's channels overflows (a crafted file) is refused, not UB.
  n.node->set_attr("group", int64_t{1} << 62);
  ExpectFailure(n, code::kInvalidParam, "3 * 4611686018427387904 overflows");
}

// Window sizes whose arithmetic would overflow int64 (pads and strides near 2^62 from a crafted
// file) are refused with the dim named, not computed with undefined behaviour.
TEST(ConvInferenceTest, WindowSizesThatOverflowAreRefused) {
  OneNode n("MaxPool", {F32({1, 2, 14, 14})}, 1);
  n.node->set_attr("kernel_shape", Ints{2, 2});
  n.node->set_attr("pads", Ints{INT64_MAX, 0, 0, 0});
  ExpectFailure(n, code::kInvalidParam, "spatial dim 0: the window's sizes");
  OneNode c("Conv", {F32({1, 2, 14, 14}), F32({4, 2, 3, 3})}, 1);
  c.node->set_attr("dilations", Ints{int64_t{1} << 62, 1});
  c.node->set_attr("auto_pad", std::string("SAME_UPPER"));
  ExpectFailure(c, code::kInvalidParam, "spatial dim 0: the window's sizes");
}

TEST(ConvInferenceTest, OutputChannelsMustDivideIntoGroups) {
  OneNode n("Conv", {F32({1, 8, 5, 5}), F32({6, 2, 3, 3})}, 1);
  n.node->set_attr("group", int64_t{4});
  ExpectFailure(n, code::kInvalidParam, "W has 6 output channels, not a multiple of group 4");
}

TEST(ConvInferenceTest, OneAndThreeSpatialDimsWork) {
  OneNode conv1d("Conv", {F32({2, 4, 100}), F32({8, 4, 5})}, 1);
  conv1d.node->set_attr("strides", Ints{3});
  ASSERT_TRUE(conv1d.Infer().ok());
  // (100 - 5) / 3 + 1 = 32
  EXPECT_EQ(OutShape(conv1d), "[2,8,32]");

  OneNode conv3d("Conv", {F32({1, 2, 8, 6, 4}), F32({4, 2, 3, 3, 3})}, 1);
  conv3d.node->set_attr("pads", Ints{1, 1, 1, 1, 1, 1});
  ASSERT_TRUE(conv3d.Infer().ok());
  EXPECT_EQ(OutShape(conv3d), "[1,4,8,6,4]");
}

TEST(ConvInferenceTest, SymbolicBatchAndSizePreservingSpatialDimsKeepTheirSymbols) {
  OneNode n("Conv", {F32Dims({S("N"), K(3), S("H"), S("W")}), F32({8, 3, 3, 3})}, 1);
  n.node->set_attr("pads", Ints{1, 1, 1, 1});
  ASSERT_TRUE(n.Infer().ok());
  EXPECT_EQ(OutShape(n), "[N,8,H,W]");

  OneNode strided("Conv", {F32Dims({S("N"), K(3), S("H"), S("W")}), F32({8, 3, 3, 3})}, 1);
  strided.node->set_attr("strides", Ints{2, 2});
  ASSERT_TRUE(strided.Infer().ok());
  EXPECT_EQ(OutShape(strided), "[N,8,?,?]");
}

TEST(ConvInferenceTest, KernelShapeMustMatchTheWeights) {
  OneNode ok("Conv", {F32({1, 3, 9, 9}), F32({4, 3, 3, 3})}, 1);
  ok.node->set_attr("kernel_shape", Ints{3, 3});
  ASSERT_TRUE(ok.Infer().ok());
  EXPECT_EQ(OutShape(ok), "[1,4,7,7]");

  OneNode bad("Conv", {F32({1, 3, 9, 9}), F32({4, 3, 3, 3})}, 1);
  bad.node->set_attr("kernel_shape", Ints{5, 5});
  ExpectFailure(bad, code::kInvalidParam, "kernel_shape");
}

TEST(ConvInferenceTest, KernelShapeStandsInForSymbolicWeightDims) {
  OneNode n("Conv", {F32({1, 3, 9, 9}), F32Dims({K(4), K(3), S("kh"), S("kw")})}, 1);
  n.node->set_attr("kernel_shape", Ints{3, 5});
  ASSERT_TRUE(n.Infer().ok());
  EXPECT_EQ(OutShape(n), "[1,4,7,5]");
}

TEST(ConvInferenceTest, BiasMustHaveOneValuePerOutputChannel) {
  OneNode n("Conv", {F32({1, 3, 8, 8}), F32({64, 3, 3, 3}), F32({32})}, 1);
  ExpectFailure(n, code::kInvalidParam, "B has shape [32]; [64] is required");
}

TEST(ConvInferenceTest, ErrorsNameTheNodeAndOpset) {
  OneNode n("Conv", {F32({1, 3, 4, 4}), F32({8, 3, 7, 7})}, 1, /*opset=*/11);
  Status s = n.Infer();
  EXPECT_EQ(s.code(), code::kInvalidParam);
  EXPECT_NE(s.message().find("Conv 'n' (opset 11)"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("window extent 7 exceeds the padded input size 4"), std::string::npos)
      << s.message();
}

TEST(ConvInferenceTest, RejectsBadAutoPadRanksAndTypes) {
  OneNode pad("Conv", {F32({1, 3, 8, 8}), F32({4, 3, 3, 3})}, 1);
  pad.node->set_attr("auto_pad", std::string("SAME"));
  ExpectFailure(pad, code::kInvalidParam, "auto_pad");

  OneNode rank("Conv", {F32({1, 3, 8, 8}), F32({4, 3, 3})}, 1);
  ExpectFailure(rank, code::kInvalidParam, "W has shape [4,3,3]; rank 4 is required");

  OneNode strides("Conv", {F32({1, 3, 8, 8}), F32({4, 3, 3, 3})}, 1);
  strides.node->set_attr("strides", Ints{2});
  ExpectFailure(strides, code::kInvalidParam, "'strides'");

  OneNode ints("Conv", {I64({1, 3, 8, 8}), I64({4, 3, 3, 3})}, 1);
  ExpectFailure(ints, code::kInvalidParam, "floating-point");
}

TEST(ConvInferenceTest, UnknownRanksGiveAnUnknownShapeButATypedOutput) {
  OneNode n("Conv", {Unranked(), Unranked()}, 1);
  ASSERT_TRUE(n.Infer().ok());
  EXPECT_EQ(n.out().dtype, DataType::kFloat32);
  EXPECT_FALSE(n.out().shape.rank_known());

  OneNode from_w("Conv", {Unranked(), F32({4, 3, 3, 3})}, 1);
  ASSERT_TRUE(from_w.Infer().ok());
  EXPECT_EQ(OutShape(from_w), "[?,4,?,?]");
}

TEST(ConvInferenceTest, ConvTransposeUpsamplesWithStridesPadsAndOutputPadding) {
  OneNode n("ConvTranspose", {F32({1, 16, 14, 14}), F32({16, 8, 3, 3}), F32({8})}, 1);
  n.node->set_attr("strides", Ints{2, 2});
  n.node->set_attr("pads", Ints{1, 1, 1, 1});
  n.node->set_attr("output_padding", Ints{1, 1});
  ASSERT_TRUE(n.Infer().ok());
  // 2 * (14 - 1) + 1 + 3 - 1 - 1 = 28
  EXPECT_EQ(OutShape(n), "[1,8,28,28]");
}

TEST(ConvInferenceTest, ConvTransposeDefaultsGrowByTheKernel) {
  OneNode n("ConvTranspose", {F32({1, 1, 3, 3}), F32({1, 2, 3, 3})}, 1);
  ASSERT_TRUE(n.Infer().ok());
  // (3 - 1) + 3 = 5
  EXPECT_EQ(OutShape(n), "[1,2,5,5]");
}

TEST(ConvInferenceTest, ConvTransposeGroupsMultiplyOutputChannels) {
  OneNode n("ConvTranspose", {F32({1, 4, 5, 5}), F32({4, 3, 1, 1}), F32({6})}, 1);
  n.node->set_attr("group", int64_t{2});
  ASSERT_TRUE(n.Infer().ok());
  EXPECT_EQ(OutShape(n), "[1,6,5,5]");
}

TEST(ConvInferenceTest, ConvTransposeOutputShapeWins) {
  OneNode n("ConvTranspose", {F32({1, 3, 5, 5}), F32({3, 2, 3, 3})}, 1);
  n.node->set_attr("strides", Ints{3, 3});
  n.node->set_attr("output_shape", Ints{16, 17});
  ASSERT_TRUE(n.Infer().ok());
  EXPECT_EQ(OutShape(n), "[1,2,16,17]");

  OneNode full("ConvTranspose", {F32({1, 3, 5, 5}), F32({3, 2, 3, 3})}, 1);
  full.node->set_attr("output_shape", Ints{1, 2, 10, 8});
  ASSERT_TRUE(full.Infer().ok());
  EXPECT_EQ(OutShape(full), "[1,2,10,8]");

  OneNode bad("ConvTranspose", {F32({1, 3, 5, 5}), F32({3, 2, 3, 3})}, 1);
  bad.node->set_attr("output_shape", Ints{10, 10, 10});
  ExpectFailure(bad, code::kInvalidParam, "output_shape");
}

TEST(ConvInferenceTest, ConvTransposeSameUpperMultipliesByTheStride) {
  OneNode n("ConvTranspose", {F32Dims({S("N"), K(1), K(5), K(6)}), F32({1, 1, 3, 3})}, 1);
  n.node->set_attr("auto_pad", std::string("SAME_UPPER"));
  n.node->set_attr("strides", Ints{2, 2});
  ASSERT_TRUE(n.Infer().ok());
  EXPECT_EQ(OutShape(n), "[N,1,10,12]");
}

TEST(ConvInferenceTest, ConvTransposeInputChannelsMustMatchWeights) {
  OneNode n("ConvTranspose", {F32({1, 4, 5, 5}), F32({3, 2, 3, 3})}, 1);
  ExpectFailure(n, code::kInvalidParam, "X has 4 channels but W.shape[0] is 3");
}

// ---------------------------------------------------------------------------------------------
// Pools.

TEST(PoolInferenceTest, MaxPoolFloorsByDefaultAndCeilModeRoundsUp) {
  OneNode floor("MaxPool", {F32({1, 1, 4, 4})}, 1);
  floor.node->set_attr("kernel_shape", Ints{3, 3});
  floor.node->set_attr("strides", Ints{2, 2});
  ASSERT_TRUE(floor.Infer().ok());
  // (4 - 3) / 2 + 1 = 1; ceil((4 - 3) / 2) + 1 = 2
  EXPECT_EQ(OutShape(floor), "[1,1,1,1]");

  OneNode ceil("MaxPool", {F32({1, 1, 4, 4})}, 1);
  ceil.node->set_attr("kernel_shape", Ints{3, 3});
  ceil.node->set_attr("strides", Ints{2, 2});
  ceil.node->set_attr("ceil_mode", int64_t{1});
  ASSERT_TRUE(ceil.Infer().ok());
  EXPECT_EQ(OutShape(ceil), "[1,1,2,2]");
}

TEST(PoolInferenceTest, CeilModeDropsAWindowThatStartsInTheEndPadding) {
  OneNode n("MaxPool", {F32({1, 1, 5})}, 1);
  n.node->set_attr("kernel_shape", Ints{2});
  n.node->set_attr("strides", Ints{2});
  n.node->set_attr("pads", Ints{1, 1});
  n.node->set_attr("ceil_mode", int64_t{1});
  ASSERT_TRUE(n.Infer().ok());
  // Windows start at -1, 1, 3 and 5; index 5 is end padding, so 3 windows, not ceil(5/2)+1 = 4.
  EXPECT_EQ(OutShape(n), "[1,1,3]");
}

TEST(PoolInferenceTest, MaxPoolIndicesAreInt64OfTheOutputShape) {
  OneNode n("MaxPool", {F32Dims({S("N"), K(3), K(32), K(32)})}, 2);
  n.node->set_attr("kernel_shape", Ints{2, 2});
  n.node->set_attr("strides", Ints{2, 2});
  ASSERT_TRUE(n.Infer().ok());
  EXPECT_EQ(OutShape(n, 0), "[N,3,16,16]");
  EXPECT_EQ(n.out(1).dtype, DataType::kInt64);
  EXPECT_EQ(OutShape(n, 1), "[N,3,16,16]");
}

TEST(PoolInferenceTest, MaxPoolDilationsWidenTheWindow) {
  OneNode n("MaxPool", {F32({1, 1, 8, 8})}, 1);
  n.node->set_attr("kernel_shape", Ints{2, 2});
  n.node->set_attr("dilations", Ints{2, 2});
  ASSERT_TRUE(n.Infer().ok());
  // Extent 2 * 1 + 1 = 3: 8 - 3 + 1 = 6
  EXPECT_EQ(OutShape(n), "[1,1,6,6]");
}

TEST(PoolInferenceTest, MaxPoolBeforeOpset10HasNoCeilModeOrDilations) {
  OneNode n("MaxPool", {F32({1, 1, 4, 4})}, 1, /*opset=*/8);
  n.node->set_attr("kernel_shape", Ints{3, 3});
  n.node->set_attr("strides", Ints{2, 2});
  n.node->set_attr("ceil_mode", int64_t{1});
  n.node->set_attr("dilations", Ints{2, 2});
  ASSERT_TRUE(n.Infer().ok());
  EXPECT_EQ(OutShape(n), "[1,1,1,1]");
}

TEST(PoolInferenceTest, MaxPoolIndicesNeedOpset8AndInt8NeedsOpset12) {
  OneNode indices("MaxPool", {F32({1, 1, 4, 4})}, 2, /*opset=*/7);
  indices.node->set_attr("kernel_shape", Ints{2, 2});
  ExpectFailure(indices, code::kInvalidParam, "Indices");

  OneNode int8_old("MaxPool", {T(DataType::kInt8, {1, 1, 4, 4})}, 1, /*opset=*/11);
  int8_old.node->set_attr("kernel_shape", Ints{2, 2});
  ExpectFailure(int8_old, code::kInvalidParam, "int8");

  OneNode int8_new("MaxPool", {T(DataType::kInt8, {1, 1, 4, 4})}, 1, /*opset=*/12);
  int8_new.node->set_attr("kernel_shape", Ints{2, 2});
  ASSERT_TRUE(int8_new.Infer().ok());
  EXPECT_EQ(int8_new.out().dtype, DataType::kInt8);
  EXPECT_EQ(OutShape(int8_new), "[1,1,3,3]");
}

TEST(PoolInferenceTest, AveragePoolWithPaddingKeepsTheSize) {
  OneNode n("AveragePool", {F32({1, 3, 32, 32})}, 1);
  n.node->set_attr("kernel_shape", Ints{3, 3});
  n.node->set_attr("pads", Ints{1, 1, 1, 1});
  n.node->set_attr("count_include_pad", int64_t{1});
  ASSERT_TRUE(n.Infer().ok());
  EXPECT_EQ(OutShape(n), "[1,3,32,32]");
}

TEST(PoolInferenceTest, AveragePoolSameUpperAndStrides) {
  OneNode n("AveragePool", {F32({2, 3, 5, 7})}, 1);
  n.node->set_attr("kernel_shape", Ints{2, 2});
  n.node->set_attr("strides", Ints{2, 2});
  n.node->set_attr("auto_pad", std::string("SAME_UPPER"));
  ASSERT_TRUE(n.Infer().ok());
  // ceil(5 / 2) = 3, ceil(7 / 2) = 4
  EXPECT_EQ(OutShape(n), "[2,3,3,4]");
}

TEST(PoolInferenceTest, AveragePoolDilationsCountFromOpset19Only) {
  OneNode old("AveragePool", {F32({1, 1, 8, 8})}, 1, /*opset=*/18);
  old.node->set_attr("kernel_shape", Ints{2, 2});
  old.node->set_attr("dilations", Ints{3, 3});
  ASSERT_TRUE(old.Infer().ok());
  EXPECT_EQ(OutShape(old), "[1,1,7,7]");

  OneNode now("AveragePool", {F32({1, 1, 8, 8})}, 1, /*opset=*/19);
  now.node->set_attr("kernel_shape", Ints{2, 2});
  now.node->set_attr("dilations", Ints{3, 3});
  ASSERT_TRUE(now.Infer().ok());
  // Extent 3 + 1 = 4: 8 - 4 + 1 = 5
  EXPECT_EQ(OutShape(now), "[1,1,5,5]");
}

TEST(PoolInferenceTest, LpPoolWindowsLikeTheOtherPools) {
  OneNode n("LpPool", {F32({1, 2, 6, 6})}, 1);
  n.node->set_attr("kernel_shape", Ints{2, 2});
  n.node->set_attr("strides", Ints{2, 2});
  n.node->set_attr("p", int64_t{2});
  ASSERT_TRUE(n.Infer().ok());
  EXPECT_EQ(OutShape(n), "[1,2,3,3]");
}

TEST(PoolInferenceTest, PoolsNeedKernelShape) {
  OneNode n("MaxPool", {F32({1, 1, 4, 4})}, 1);
  ExpectFailure(n, code::kInvalidParam, "attribute 'kernel_shape' is required");
}

TEST(PoolInferenceTest, PoolOnUnknownRankTakesTheRankFromKernelShape) {
  OneNode n("AveragePool", {Unranked()}, 1);
  n.node->set_attr("kernel_shape", Ints{3, 3, 3});
  ASSERT_TRUE(n.Infer().ok());
  EXPECT_EQ(OutShape(n), "[?,?,?,?,?]");
}

TEST(PoolInferenceTest, SymbolicSpatialDimsSurviveOnlySizePreservingPools) {
  OneNode same("MaxPool", {F32Dims({S("N"), S("C"), S("H"), S("W")})}, 1);
  same.node->set_attr("kernel_shape", Ints{3, 3});
  same.node->set_attr("pads", Ints{1, 1, 1, 1});
  ASSERT_TRUE(same.Infer().ok());
  EXPECT_EQ(OutShape(same), "[N,C,H,W]");

  OneNode half("MaxPool", {F32Dims({S("N"), S("C"), S("H"), S("W")})}, 1);
  half.node->set_attr("kernel_shape", Ints{2, 2});
  half.node->set_attr("strides", Ints{2, 2});
  ASSERT_TRUE(half.Infer().ok());
  EXPECT_EQ(OutShape(half), "[N,C,?,?]");
}

TEST(PoolInferenceTest, GlobalPoolsReduceEverySpatialDimToOne) {
  OneNode avg("GlobalAveragePool", {F32Dims({S("N"), K(64), K(7), K(7)})}, 1);
  ASSERT_TRUE(avg.Infer().ok());
  EXPECT_EQ(OutShape(avg), "[N,64,1,1]");

  OneNode max("GlobalMaxPool", {F32({2, 3, 4, 5, 6})}, 1);
  ASSERT_TRUE(max.Infer().ok());
  EXPECT_EQ(OutShape(max), "[2,3,1,1,1]");

  OneNode lp("GlobalLpPool", {F32({2, 3})}, 1);
  ExpectFailure(lp, code::kInvalidParam, "rank >= 3");
}

// ---------------------------------------------------------------------------------------------
// Normalisations and the softmax family.

TEST(NormInferenceTest, BatchNormalizationKeepsTheInputShape) {
  OneNode n("BatchNormalization",
            {F32Dims({S("N"), K(3), K(8), K(8)}), F32({3}), F32({3}), F32({3}), F32({3})}, 1);
  ASSERT_TRUE(n.Infer().ok());
  EXPECT_EQ(OutShape(n), "[N,3,8,8]");

  OneNode flat("BatchNormalization", {F32({4, 3}), F32({3}), F32({3}), F32({3}), F32({3})}, 1);
  ASSERT_TRUE(flat.Infer().ok());
  EXPECT_EQ(OutShape(flat), "[4,3]");
}

TEST(NormInferenceTest, BatchNormalizationParametersNeedOneValuePerChannel) {
  OneNode n("BatchNormalization", {F32({1, 3, 8, 8}), F32({3}), F32({3}), F32({4}), F32({3})}, 1);
  ExpectFailure(n, code::kInvalidParam, "input_mean has shape [4]; [3] is required");
}

TEST(NormInferenceTest, BatchNormalizationTrainingModeNeedsOpset14) {
  std::vector<TensorType> ins = {F32({1, 3, 4, 4}), F32({3}), F32({3}), F32({3}), F32({3})};
  OneNode training("BatchNormalization", ins, 3, /*opset=*/15);
  training.node->set_attr("training_mode", int64_t{1});
  ASSERT_TRUE(training.Infer().ok());
  EXPECT_EQ(OutShape(training, 0), "[1,3,4,4]");
  EXPECT_EQ(OutShape(training, 1), "[3]");
  EXPECT_EQ(OutShape(training, 2), "[3]");

  OneNode flag("BatchNormalization", ins, 1, /*opset=*/15);
  flag.node->set_attr("training_mode", int64_t{2});
  ExpectFailure(flag, code::kInvalidParam, "'training_mode' must be 0 or 1");

  OneNode extra("BatchNormalization", ins, 3, /*opset=*/15);
  ExpectFailure(extra, code::kInvalidParam, "need training_mode=1");

  OneNode old("BatchNormalization", ins, 5, /*opset=*/9);
  ExpectFailure(old, code::kFeatureUnsupported, "training mode");
}

TEST(NormInferenceTest, BatchNormalizationOmittedExtraOutputsAreFine) {
  SparseOutputs n("BatchNormalization", {F32({1, 3, 4, 4}), F32({3}), F32({3}), F32({3}), F32({3})},
                  {true, false, false, false, false}, /*opset=*/9);
  ASSERT_TRUE(n.Infer().ok());
  EXPECT_EQ(n.node->output(0)->shape().ToString(), "[1,3,4,4]");
}

TEST(NormInferenceTest, BatchNormalizationParameterTypesSplitFromOpset15) {
  std::vector<TensorType> ins = {T(DataType::kFloat16, {1, 3, 4, 4}), F32({3}), F32({3}), F32({3}),
                                 F32({3})};
  OneNode now("BatchNormalization", ins, 1, /*opset=*/15);
  ASSERT_TRUE(now.Infer().ok());
  EXPECT_EQ(now.out().dtype, DataType::kFloat16);

  OneNode old("BatchNormalization", ins, 1, /*opset=*/14);
  ExpectFailure(old, code::kInvalidParam, "same type");
}

TEST(NormInferenceTest, InstanceNormalizationChecksPerChannelParameters) {
  OneNode n("InstanceNormalization", {F32({2, 4, 5, 5}), F32({4}), F32({4})}, 1);
  ASSERT_TRUE(n.Infer().ok());
  EXPECT_EQ(OutShape(n), "[2,4,5,5]");

  OneNode bad("InstanceNormalization", {F32({2, 4, 5, 5}), F32({4}), F32({5})}, 1);
  ExpectFailure(bad, code::kInvalidParam, "B has shape [5]; [4] is required");

  OneNode flat("InstanceNormalization", {F32({2, 4}), F32({4}), F32({4})}, 1);
  ExpectFailure(flat, code::kInvalidParam, "rank >= 3");
}

TEST(NormInferenceTest, LayerNormalizationStatisticsKeepLeadingDimsInStashType) {
  SparseOutputs n(
      "LayerNormalization",
      {T(DataType::kFloat16, {2, 5, 8}), T(DataType::kFloat16, {8}), T(DataType::kFloat16, {8})},
      {true, true, true}, /*opset=*/17);
  ASSERT_TRUE(n.Infer().ok());
  EXPECT_EQ(n.node->output(0)->dtype(), DataType::kFloat16);
  EXPECT_EQ(n.node->output(0)->shape().ToString(), "[2,5,8]");
  EXPECT_EQ(n.node->output(1)->dtype(), DataType::kFloat32);
  EXPECT_EQ(n.node->output(1)->shape().ToString(), "[2,5,1]");
  EXPECT_EQ(n.node->output(2)->shape().ToString(), "[2,5,1]");
}

TEST(NormInferenceTest, LayerNormalizationAxisSetsTheNormalisedDims) {
  OneNode n("LayerNormalization", {F32Dims({S("B"), K(5), K(8)}), F32({5, 8})}, 2);
  n.node->set_attr("axis", int64_t{1});
  ASSERT_TRUE(n.Infer().ok());
  EXPECT_EQ(OutShape(n, 1), "[B,1,1]");

  OneNode range("LayerNormalization", {F32({2, 5, 8}), F32({8})}, 1);
  range.node->set_attr("axis", int64_t{3});
  ExpectFailure(range, code::kInvalidParam, "'axis' = 3 is out of range for rank 3");
}

TEST(NormInferenceTest, LayerNormalizationScaleMustBroadcastToTheInput) {
  OneNode n("LayerNormalization", {F32({2, 5, 8}), F32({5})}, 1);
  ExpectFailure(n, code::kInvalidParam, "Scale has shape [5]");
}

TEST(NormInferenceTest, GroupNormalizationParametersArePerGroupBeforeOpset21) {
  OneNode per_group("GroupNormalization", {F32({2, 6, 4, 4}), F32({3}), F32({3})}, 1, 18);
  per_group.node->set_attr("num_groups", int64_t{3});
  ASSERT_TRUE(per_group.Infer().ok());
  EXPECT_EQ(OutShape(per_group), "[2,6,4,4]");

  OneNode per_channel_old("GroupNormalization", {F32({2, 6, 4, 4}), F32({6}), F32({6})}, 1, 18);
  per_channel_old.node->set_attr("num_groups", int64_t{3});
  ExpectFailure(per_channel_old, code::kInvalidParam, "scale has shape [6]; [3] is required");
}

TEST(NormInferenceTest, GroupNormalizationParametersArePerChannelFromOpset21) {
  OneNode per_channel("GroupNormalization", {F32({2, 6, 4, 4}), F32({6}), F32({6})}, 1, 21);
  per_channel.node->set_attr("num_groups", int64_t{3});
  ASSERT_TRUE(per_channel.Infer().ok());
  EXPECT_EQ(OutShape(per_channel), "[2,6,4,4]");

  OneNode per_group("GroupNormalization", {F32({2, 6, 4, 4}), F32({3}), F32({3})}, 1, 21);
  per_group.node->set_attr("num_groups", int64_t{3});
  ExpectFailure(per_group, code::kInvalidParam, "scale has shape [3]; [6] is required");
}

TEST(NormInferenceTest, GroupNormalizationGroupsMustDivideChannels) {
  OneNode n("GroupNormalization", {F32({2, 6, 4, 4}), F32({4}), F32({4})}, 1, 18);
  n.node->set_attr("num_groups", int64_t{4});
  ExpectFailure(n, code::kInvalidParam, "6 channels, not a multiple of num_groups 4");

  OneNode missing("GroupNormalization", {F32({2, 6, 4, 4}), F32({3}), F32({3})}, 1, 18);
  ExpectFailure(missing, code::kInvalidParam, "'num_groups' is required");

  OneNode old("GroupNormalization", {F32({2, 6, 4, 4}), F32({3}), F32({3})}, 1, 17);
  old.node->set_attr("num_groups", int64_t{3});
  EXPECT_EQ(old.Infer().code(), code::kFeatureUnsupported);
}

TEST(NormInferenceTest, LrnNeedsASizeAndKeepsTheShape) {
  OneNode n("LRN", {F32({1, 3, 4, 4})}, 1);
  n.node->set_attr("size", int64_t{3});
  ASSERT_TRUE(n.Infer().ok());
  EXPECT_EQ(OutShape(n), "[1,3,4,4]");

  OneNode missing("LRN", {F32({1, 3, 4, 4})}, 1);
  ExpectFailure(missing, code::kInvalidParam, "'size' is required");
}

TEST(NormInferenceTest, MeanVarianceNormalizationDefaultAxesNeedRankFour) {
  OneNode n("MeanVarianceNormalization", {F32({2, 3, 4, 5})}, 1);
  ASSERT_TRUE(n.Infer().ok());
  EXPECT_EQ(OutShape(n), "[2,3,4,5]");

  OneNode rank3("MeanVarianceNormalization", {F32({2, 3, 4})}, 1);
  ExpectFailure(rank3, code::kInvalidParam, "'axes' = [0,2,3] is out of range");

  OneNode axes("MeanVarianceNormalization", {F32({2, 3, 4})}, 1);
  axes.node->set_attr("axes", Ints{-1});
  EXPECT_TRUE(axes.Infer().ok());
}

TEST(SoftmaxInferenceTest, SoftmaxFamilyKeepsTheShape) {
  for (const char* op : {"Softmax", "LogSoftmax", "Hardmax"}) {
    OneNode n(op, {F32Dims({S("N"), K(10)})}, 1, /*opset=*/13);
    ASSERT_TRUE(n.Infer().ok()) << op;
    EXPECT_EQ(OutShape(n), "[N,10]") << op;
  }
}

TEST(SoftmaxInferenceTest, DefaultAxisIsOneBeforeOpset13AndMinusOneFrom13) {
  OneNode now("Softmax", {F32({10})}, 1, /*opset=*/13);
  ASSERT_TRUE(now.Infer().ok());
  EXPECT_EQ(OutShape(now), "[10]");

  OneNode old("Softmax", {F32({10})}, 1, /*opset=*/11);
  ExpectFailure(old, code::kInvalidParam, "'axis' = 1 is out of range for rank 1");

  OneNode explicit_axis("Softmax", {F32({2, 10})}, 1, /*opset=*/13);
  explicit_axis.node->set_attr("axis", int64_t{2});
  ExpectFailure(explicit_axis, code::kInvalidParam, "'axis' = 2");
}

TEST(SoftmaxInferenceTest, SoftmaxRejectsIntegers) {
  OneNode n("Softmax", {I64({3})}, 1);
  ExpectFailure(n, code::kInvalidParam, "floating-point");
}

TEST(NormInferenceTest, RmsNormalizationOutputTakesTheScaleType) {
  OneNode n("RMSNormalization", {F32Dims({S("B"), K(5), K(8)}), T(DataType::kFloat16, {8})}, 1,
            /*opset=*/23);
  ASSERT_TRUE(n.Infer().ok());
  EXPECT_EQ(n.out().dtype, DataType::kFloat16);
  EXPECT_EQ(OutShape(n), "[B,5,8]");

  OneNode bad_scale("RMSNormalization", {F32({2, 5, 8}), F32({5})}, 1, 23);
  ExpectFailure(bad_scale, code::kInvalidParam, "scale has shape [5]");

  OneNode bad_axis("RMSNormalization", {F32({2, 5, 8}), F32({8})}, 1, 23);
  bad_axis.node->set_attr("axis", int64_t{-4});
  ExpectFailure(bad_axis, code::kInvalidParam, "'axis' = -4 is out of range for rank 3");

  OneNode old("RMSNormalization", {F32({2, 5, 8}), F32({8})}, 1, 22);
  EXPECT_EQ(old.Infer().code(), code::kFeatureUnsupported);
}

TEST(NormInferenceTest, LpNormalizationKeepsTheShapeAndNeedsPOneOrTwo) {
  OneNode n("LpNormalization", {F32({3, 4})}, 1);
  n.node->set_attr("axis", int64_t{0});
  ASSERT_TRUE(n.Infer().ok());
  EXPECT_EQ(OutShape(n), "[3,4]");

  OneNode p3("LpNormalization", {F32({3, 4})}, 1);
  p3.node->set_attr("p", int64_t{3});
  ExpectFailure(p3, code::kInvalidParam, "'p' must be 1 or 2, got 3");

  OneNode ints("LpNormalization", {I64({3, 4})}, 1);
  ExpectFailure(ints, code::kInvalidParam, "floating-point");
}

// ---------------------------------------------------------------------------------------------
// Losses.

TEST(LossInferenceTest, ReductionNoneKeepsTheLabelShapeOtherwiseAScalar) {
  for (const char* op : {"NegativeLogLikelihoodLoss", "SoftmaxCrossEntropyLoss"}) {
    OneNode none(op, {F32({2, 5, 3, 4}), I64({2, 3, 4}), F32({5})}, 1, 13);
    none.node->set_attr("reduction", std::string("none"));
    ASSERT_TRUE(none.Infer().ok()) << op;
    EXPECT_EQ(OutShape(none), "[2,3,4]") << op;

    OneNode mean(op, {F32({2, 5}), T(DataType::kInt32, {2})}, 1, 13);
    ASSERT_TRUE(mean.Infer().ok()) << op;
    EXPECT_EQ(OutShape(mean), "[]") << op;
    EXPECT_EQ(mean.out().dtype, DataType::kFloat32) << op;
  }
}

TEST(LossInferenceTest, SoftmaxCrossEntropyLogProbHasTheScoresShape) {
  OneNode n("SoftmaxCrossEntropyLoss", {F32Dims({S("N"), K(5), K(3)}), I64({2, 3})}, 2, 13);
  n.node->set_attr("reduction", std::string("sum"));
  ASSERT_TRUE(n.Infer().ok());
  EXPECT_EQ(OutShape(n, 0), "[]");
  EXPECT_EQ(OutShape(n, 1), "[N,5,3]");
}

TEST(LossInferenceTest, LabelsWeightsAndReductionAreChecked) {
  OneNode labels("NegativeLogLikelihoodLoss", {F32({2, 5, 3}), I64({2, 4})}, 1, 13);
  ExpectFailure(labels, code::kInvalidParam, "input 1 (labels) has shape [2,4]; [2,3] is required");

  OneNode weight("NegativeLogLikelihoodLoss", {F32({2, 5}), I64({2}), F32({4})}, 1, 13);
  ExpectFailure(weight, code::kInvalidParam, "input 2 (weight) has shape [4]; [5] is required");

  OneNode float_labels("NegativeLogLikelihoodLoss", {F32({2, 5}), F32({2})}, 1, 13);
  ExpectFailure(float_labels, code::kInvalidParam, "int32 or int64 is required");

  OneNode reduction("SoftmaxCrossEntropyLoss", {F32({2, 5}), I64({2})}, 1, 13);
  reduction.node->set_attr("reduction", std::string("max"));
  ExpectFailure(reduction, code::kInvalidParam, "\"max\"");

  OneNode rank1("SoftmaxCrossEntropyLoss", {F32({5}), I64({})}, 1, 13);
  ExpectFailure(rank1, code::kInvalidParam, "rank >= 2");
}

// ---------------------------------------------------------------------------------------------
// MatMul, Gemm, Flatten, Einsum.

TEST(MatMulInferenceTest, BatchedMatrixTimesMatrix) {
  OneNode n("MatMul", {F32({2, 3, 4}), F32({4, 5})}, 1);
  ASSERT_TRUE(n.Infer().ok());
  EXPECT_EQ(OutShape(n), "[2,3,5]");
}

TEST(MatMulInferenceTest, VectorOperandsLoseTheirPromotedDim) {
  OneNode left("MatMul", {F32({4}), F32({4, 5})}, 1);
  ASSERT_TRUE(left.Infer().ok());
  EXPECT_EQ(OutShape(left), "[5]");

  OneNode right("MatMul", {F32({2, 3, 4}), F32({4})}, 1);
  ASSERT_TRUE(right.Infer().ok());
  EXPECT_EQ(OutShape(right), "[2,3]");

  OneNode dot("MatMul", {F32({4}), F32({4})}, 1);
  ASSERT_TRUE(dot.Infer().ok());
  EXPECT_EQ(OutShape(dot), "[]");
}

TEST(MatMulInferenceTest, BatchDimsBroadcast) {
  OneNode n("MatMul", {F32({2, 1, 3, 4}), F32({5, 4, 6})}, 1);
  ASSERT_TRUE(n.Infer().ok());
  EXPECT_EQ(OutShape(n), "[2,5,3,6]");

  OneNode bad("MatMul", {F32({2, 3, 4}), F32({3, 4, 5})}, 1);
  ExpectFailure(bad, code::kInvalidParam, "batch dims");
}

TEST(MatMulInferenceTest, MismatchedInnerDimsFail) {
  OneNode n("MatMul", {F32({2, 3}), F32({4, 5})}, 1);
  ExpectFailure(n, code::kInvalidParam, "inner dim (3 vs 4)");
}

TEST(MatMulInferenceTest, SymbolicDimsPropagate) {
  OneNode n("MatMul", {F32Dims({S("N"), S("S"), K(64)}), F32({64, 128})}, 1);
  ASSERT_TRUE(n.Infer().ok());
  EXPECT_EQ(OutShape(n), "[N,S,128]");

  OneNode unranked("MatMul", {Unranked(), F32({64, 128})}, 1);
  ASSERT_TRUE(unranked.Infer().ok());
  EXPECT_EQ(unranked.out().dtype, DataType::kFloat32);
  EXPECT_FALSE(unranked.out().shape.rank_known());
}

TEST(MatMulInferenceTest, IntegersNeedOpset9AndTypesMustMatch) {
  OneNode ints("MatMul", {T(DataType::kInt32, {2, 3}), T(DataType::kInt32, {3, 2})}, 1, 13);
  ASSERT_TRUE(ints.Infer().ok());
  EXPECT_EQ(ints.out().dtype, DataType::kInt32);

  OneNode old("MatMul", {T(DataType::kInt32, {2, 3}), T(DataType::kInt32, {3, 2})}, 1, 8);
  ExpectFailure(old, code::kInvalidParam, "floating-point");

  OneNode mixed("MatMul", {F32({2, 3}), I64({3, 2})}, 1);
  ExpectFailure(mixed, code::kInvalidParam, "same type");
}

TEST(GemmInferenceTest, TransposeFlagsPickMAndN) {
  struct Case {
    Ints a, b;
    int64_t trans_a, trans_b;
  };
  for (const Case& c : {Case{{3, 4}, {4, 5}, 0, 0}, Case{{4, 3}, {4, 5}, 1, 0},
                        Case{{3, 4}, {5, 4}, 0, 1}, Case{{4, 3}, {5, 4}, 1, 1}}) {
    OneNode n("Gemm", {F32(c.a), F32(c.b), F32({5})}, 1);
    n.node->set_attr("transA", c.trans_a);
    n.node->set_attr("transB", c.trans_b);
    ASSERT_TRUE(n.Infer().ok()) << c.trans_a << c.trans_b;
    EXPECT_EQ(OutShape(n), "[3,5]") << c.trans_a << c.trans_b;
  }
}

TEST(GemmInferenceTest, InnerDimsMustAgreeAfterTransposition) {
  OneNode n("Gemm", {F32({3, 4}), F32({4, 5})}, 1);
  n.node->set_attr("transB", int64_t{1});
  ExpectFailure(n, code::kInvalidParam, "disagree on K (4 vs 5)");
}

TEST(GemmInferenceTest, CBroadcastsUnidirectionallyToMByN) {
  for (Ints c : {Ints{5}, Ints{3, 1}, Ints{1, 5}, Ints{3, 5}, Ints{}}) {
    OneNode n("Gemm", {F32({3, 4}), F32({4, 5}), F32(c)}, 1);
    EXPECT_TRUE(n.Infer().ok()) << Shape::Of(c).ToString();
  }
  OneNode bad("Gemm", {F32({3, 4}), F32({4, 5}), F32({3})}, 1);
  ExpectFailure(bad, code::kInvalidParam, "does not broadcast to [M,N] = [3,5]");
  OneNode too_big("Gemm", {F32({3, 4}), F32({4, 5}), F32({2, 3, 5})}, 1);
  ExpectFailure(too_big, code::kInvalidParam, "C has shape [2,3,5]");
}

TEST(GemmInferenceTest, CIsOptionalFromOpset11AndInputsAreMatrices) {
  OneNode now("Gemm", {F32Dims({S("N"), K(4)}), F32({4, 5})}, 1, /*opset=*/11);
  ASSERT_TRUE(now.Infer().ok());
  EXPECT_EQ(OutShape(now), "[N,5]");

  OneNode old("Gemm", {F32({3, 4}), F32({4, 5})}, 1, /*opset=*/9);
  ExpectFailure(old, code::kInvalidParam, "input C is required");

  OneNode rank3("Gemm", {F32({2, 3, 4}), F32({4, 5})}, 1);
  ExpectFailure(rank3, code::kInvalidParam, "A has shape [2,3,4]; rank 2 is required");
}

TEST(FlattenInferenceTest, AxisSplitsTheDimsIntoTwoProducts) {
  struct Case {
    int64_t axis;
    const char* want;
  };
  for (const Case& c : {Case{1, "[2,60]"}, Case{0, "[1,120]"}, Case{4, "[120,1]"},
                        Case{-1, "[24,5]"}, Case{-4, "[1,120]"}}) {
    OneNode n("Flatten", {F32({2, 3, 4, 5})}, 1);
    n.node->set_attr("axis", c.axis);
    ASSERT_TRUE(n.Infer().ok()) << c.axis;
    EXPECT_EQ(OutShape(n), c.want) << c.axis;
  }
}

TEST(FlattenInferenceTest, SymbolicBatchStaysAndMixedProductsAreUnknown) {
  OneNode n("Flatten", {F32Dims({S("N"), K(3), K(4)})}, 1);
  ASSERT_TRUE(n.Infer().ok());
  EXPECT_EQ(OutShape(n), "[N,12]");

  OneNode mixed("Flatten", {F32Dims({S("N"), K(3), S("H")})}, 1);
  ASSERT_TRUE(mixed.Infer().ok());
  EXPECT_EQ(OutShape(mixed), "[N,?]");

  OneNode unranked("Flatten", {Unranked(DataType::kInt64)}, 1);
  unranked.node->set_attr("axis", int64_t{0});
  ASSERT_TRUE(unranked.Infer().ok());
  EXPECT_EQ(unranked.out().dtype, DataType::kInt64);
  EXPECT_EQ(OutShape(unranked), "[1,?]");
}

TEST(FlattenInferenceTest, NegativeAxisNeedsOpset11AndAxisStaysInRange) {
  OneNode old("Flatten", {F32({2, 3})}, 1, /*opset=*/9);
  old.node->set_attr("axis", int64_t{-1});
  ExpectFailure(old, code::kInvalidParam, "out of range [0, 2]");

  OneNode big("Flatten", {F32({2, 3})}, 1);
  big.node->set_attr("axis", int64_t{3});
  ExpectFailure(big, code::kInvalidParam, "'axis' = 3");
}

TEST(EinsumInferenceTest, BatchedMatrixProduct) {
  OneNode n("Einsum", {F32({2, 3, 4}), F32({2, 4, 5})}, 1, 12);
  n.node->set_attr("equation", std::string("bij,bjk->bik"));
  ASSERT_TRUE(n.Infer().ok());
  EXPECT_EQ(OutShape(n), "[2,3,5]");
}

TEST(EinsumInferenceTest, RepeatedLabelTakesTheDiagonal) {
  OneNode n("Einsum", {F32({3, 3})}, 1, 12);
  n.node->set_attr("equation", std::string("ii->i"));
  ASSERT_TRUE(n.Infer().ok());
  EXPECT_EQ(OutShape(n), "[3]");

  OneNode trace("Einsum", {F32({3, 3})}, 1, 12);
  trace.node->set_attr("equation", std::string("ii"));
  ASSERT_TRUE(trace.Infer().ok());
  EXPECT_EQ(OutShape(trace), "[]");
}

TEST(EinsumInferenceTest, ImplicitOutputSortsTheLabelsUsedOnce) {
  OneNode n("Einsum", {F32({2, 3}), F32({3, 5})}, 1, 12);
  n.node->set_attr("equation", std::string("ij,jk"));
  ASSERT_TRUE(n.Infer().ok());
  EXPECT_EQ(OutShape(n), "[2,5]");

  // "ba" alone is a transpose: the output is "ab".
  OneNode transpose("Einsum", {F32({2, 3})}, 1, 12);
  transpose.node->set_attr("equation", std::string("ba"));
  ASSERT_TRUE(transpose.Infer().ok());
  EXPECT_EQ(OutShape(transpose), "[3,2]");
}

TEST(EinsumInferenceTest, EllipsisDimsBroadcastAndLeadTheImplicitOutput) {
  OneNode n("Einsum", {F32({5, 2, 3}), F32({1, 3, 4})}, 1, 12);
  n.node->set_attr("equation", std::string(" ...ij , ...jk -> ...ik "));
  ASSERT_TRUE(n.Infer().ok());
  EXPECT_EQ(OutShape(n), "[5,2,4]");

  OneNode implicit("Einsum", {F32Dims({S("B"), K(7), K(2), K(3)})}, 1, 12);
  implicit.node->set_attr("equation", std::string("i...j"));
  ASSERT_TRUE(implicit.Infer().ok());
  // Labels i = B and j = 3; "..." covers [7,2]; implicit output "...ij".
  EXPECT_EQ(OutShape(implicit), "[7,2,B,3]");
}

TEST(EinsumInferenceTest, BadEquationsFail) {
  OneNode sizes("Einsum", {F32({2, 3}), F32({4, 5})}, 1, 12);
  sizes.node->set_attr("equation", std::string("ij,jk->ik"));
  ExpectFailure(sizes, code::kInvalidParam, "label 'j' has sizes 3 and 4");

  OneNode terms("Einsum", {F32({2, 3})}, 1, 12);
  terms.node->set_attr("equation", std::string("ij,jk->ik"));
  ExpectFailure(terms, code::kInvalidParam, "2 operand terms but the node has 1 inputs");

  OneNode rank("Einsum", {F32({2, 3, 4})}, 1, 12);
  rank.node->set_attr("equation", std::string("ij->j"));
  ExpectFailure(rank, code::kInvalidParam, "operand 0 has shape [2,3,4]");

  OneNode label("Einsum", {F32({2, 3})}, 1, 12);
  label.node->set_attr("equation", std::string("ij->iz"));
  ExpectFailure(label, code::kInvalidParam, "output label 'z'");

  OneNode chars("Einsum", {F32({2, 3})}, 1, 12);
  chars.node->set_attr("equation", std::string("i1->i"));
  ExpectFailure(chars, code::kInvalidParam, "unexpected '1'");

  OneNode missing("Einsum", {F32({2, 3})}, 1, 12);
  ExpectFailure(missing, code::kInvalidParam, "'equation' is required");
}

// ---------------------------------------------------------------------------------------------
// RNN, GRU, LSTM.

TEST(RnnInferenceTest, BidirectionalLstmHasTwoDirectionsInEveryOutput) {
  // seq 7, batch 2, input 10, hidden 20: W [2, 4*20, 10], R [2, 80, 20], B [2, 8*20].
  OneNode n("LSTM", {F32({7, 2, 10}), F32({2, 80, 10}), F32({2, 80, 20}), F32({2, 160})}, 3);
  n.node->set_attr("direction", std::string("bidirectional"));
  n.node->set_attr("hidden_size", int64_t{20});
  ASSERT_TRUE(n.Infer().ok());
  EXPECT_EQ(OutShape(n, 0), "[7,2,2,20]");
  EXPECT_EQ(OutShape(n, 1), "[2,2,20]");
  EXPECT_EQ(OutShape(n, 2), "[2,2,20]");
  EXPECT_EQ(n.out(2).dtype, DataType::kFloat32);
}

TEST(RnnInferenceTest, LayoutOnePutsBatchFirstFromOpset14) {
  OneNode n("LSTM", {F32({3, 7, 10}), F32({1, 80, 10}), F32({1, 80, 20})}, 3, /*opset=*/14);
  n.node->set_attr("layout", int64_t{1});
  n.node->set_attr("hidden_size", int64_t{20});
  ASSERT_TRUE(n.Infer().ok());
  EXPECT_EQ(OutShape(n, 0), "[3,7,1,20]");
  EXPECT_EQ(OutShape(n, 1), "[3,1,20]");

  // Opset 13 has no layout attribute: X is [seq, batch, input].
  OneNode old("LSTM", {F32({3, 7, 10}), F32({1, 80, 10}), F32({1, 80, 20})}, 2, /*opset=*/13);
  old.node->set_attr("layout", int64_t{1});
  ASSERT_TRUE(old.Infer().ok());
  EXPECT_EQ(OutShape(old, 0), "[3,1,7,20]");
  EXPECT_EQ(OutShape(old, 1), "[1,7,20]");
}

TEST(RnnInferenceTest, GruTakesTheHiddenSizeFromR) {
  OneNode n("GRU", {F32Dims({K(5), S("N"), K(8)}), F32({1, 48, 8}), F32({1, 48, 16})}, 2);
  ASSERT_TRUE(n.Infer().ok());
  EXPECT_EQ(OutShape(n, 0), "[5,1,N,16]");
  EXPECT_EQ(OutShape(n, 1), "[1,N,16]");
}

TEST(RnnInferenceTest, ReverseRnnHasOneDirection) {
  OneNode n("RNN", {F32({4, 2, 3}), F32({1, 5, 3}), F32({1, 5, 5})}, 2);
  n.node->set_attr("direction", std::string("reverse"));
  n.node->set_attr("hidden_size", int64_t{5});
  ASSERT_TRUE(n.Infer().ok());
  EXPECT_EQ(OutShape(n, 0), "[4,1,2,5]");
  EXPECT_EQ(OutShape(n, 1), "[1,2,5]");
}

TEST(RnnInferenceTest, EveryOutputIsOptional) {
  SparseOutputs n("LSTM", {F32({7, 2, 10}), F32({1, 80, 10}), F32({1, 80, 20})},
                  {false, true, false}, /*opset=*/14);
  ASSERT_TRUE(n.Infer().ok());
  EXPECT_EQ(n.node->output(1)->shape().ToString(), "[1,2,20]");
}

TEST(RnnInferenceTest, WeightsMustMatchDirectionsGatesAndSizes) {
  OneNode dirs("LSTM", {F32({7, 2, 10}), F32({1, 80, 10}), F32({1, 80, 20})}, 1);
  dirs.node->set_attr("direction", std::string("bidirectional"));
  ExpectFailure(dirs, code::kInvalidParam, "W has shape [1,80,10]; [2,80,10] is required");

  // GRU has 3 gates, so W [1, 4*20, 10] (an LSTM's) is wrong.
  OneNode gates("GRU", {F32({7, 2, 10}), F32({1, 80, 10}), F32({1, 80, 20})}, 1);
  gates.node->set_attr("hidden_size", int64_t{20});
  ExpectFailure(gates, code::kInvalidParam, "W has shape [1,80,10]; [1,60,10] is required");

  OneNode input("RNN", {F32({7, 2, 10}), F32({1, 20, 12}), F32({1, 20, 20})}, 1);
  ExpectFailure(input, code::kInvalidParam, "W has shape [1,20,12]; [1,20,10] is required");
}

TEST(RnnInferenceTest, OptionalInputsAreCheckedWhenGiven) {
  OneNode n("LSTM",
            {F32({7, 2, 10}), F32({1, 80, 10}), F32({1, 80, 20}), F32({1, 160}),
             T(DataType::kInt32, {2}), F32({1, 2, 20}), F32({1, 2, 20}), F32({1, 60})},
            2);
  ASSERT_TRUE(n.Infer().ok());
  EXPECT_EQ(OutShape(n, 1), "[1,2,20]");

  OneNode skipped("LSTM",
                  {F32({7, 2, 10}), F32({1, 80, 10}), F32({1, 80, 20}), F32({1, 160}), F32({1}),
                   F32({1, 3, 20})},
                  1);
  skipped.node->set_input(4, nullptr);  // sequence_lens omitted
  ExpectFailure(skipped, code::kInvalidParam, "initial_h has shape [1,3,20]; [1,2,20]");

  OneNode lens("RNN", {F32({7, 2, 10}), F32({1, 20, 10}), F32({1, 20, 20}), F32({1, 40}), I64({2})},
               1);
  ExpectFailure(lens, code::kInvalidParam, "sequence_lens is int64; int32 is required");
}

TEST(RnnInferenceTest, DirectionMustBeKnown) {
  OneNode n("RNN", {F32({7, 2, 10}), F32({1, 20, 10}), F32({1, 20, 20})}, 1);
  n.node->set_attr("direction", std::string("sideways"));
  ExpectFailure(n, code::kInvalidParam, "\"sideways\"");
}

TEST(RnnInferenceTest, ClipAndActivationsAreChecked) {
  auto rnn = [](const char* op, int64_t gates) {
    return OneNode(op, {F32({7, 2, 10}), F32({1, gates * 5, 10}), F32({1, gates * 5, 5})}, 1);
  };
  OneNode clip = rnn("RNN", 1);
  clip.node->set_attr("clip", -1.0f);
  ExpectFailure(clip, code::kInvalidParam, "attribute 'clip' must be positive, got -1");

  OneNode name = rnn("RNN", 1);
  name.node->set_attr("activations", std::vector<std::string>{"Tanh", "Swoosh"});
  ExpectFailure(name, code::kInvalidParam, "unknown function \"Swoosh\"");

  // An LSTM cell takes 3 functions per direction.
  OneNode count = rnn("LSTM", 4);
  count.node->set_attr("activations", std::vector<std::string>{"Sigmoid", "Tanh"});
  ExpectFailure(count, code::kInvalidParam, "'activations' has 2 names; 3 per direction");

  // Names are case-insensitive; one direction's set may be given twice (RNN's default is).
  OneNode ok = rnn("GRU", 3);
  ok.node->set_attr("activations",
                    std::vector<std::string>{"sigmoid", "TANH", "HardSigmoid", "Relu"});
  EXPECT_TRUE(ok.Infer().ok());
}

// ---------------------------------------------------------------------------------------------
// What moved out of the kernels: the definitions check it once.

TEST(PoolInferenceTest, LpPoolsNeedAPositiveP) {
  OneNode pool("LpPool", {F32({1, 1, 4, 4})}, 1);
  pool.node->set_attr("kernel_shape", Ints{2, 2});
  pool.node->set_attr("p", int64_t{0});
  ExpectFailure(pool, code::kInvalidParam, "attribute 'p' must be >= 1, got 0");
  OneNode global("GlobalLpPool", {F32({1, 1, 4, 4})}, 1);
  global.node->set_attr("p", int64_t{-2});
  ExpectFailure(global, code::kInvalidParam, "attribute 'p' must be >= 1, got -2");
}

TEST(ConvInferenceTest, MoreThanEightSpatialDimsAreUnsupported) {
  OneNode n("Conv",
            {F32({1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}), F32({1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1})}, 1);
  ExpectFailure(n, code::kFeatureUnsupported, "9 spatial dims");
}

TEST(ConvInferenceTest, ConvTransposeOutputShapeMustFit) {
  OneNode negative("ConvTranspose", {F32({1, 1, 3, 3}), F32({1, 1, 3, 3})}, 1);
  negative.node->set_attr("output_shape", Ints{5, -1});
  ExpectFailure(negative, code::kInvalidParam, "has a negative size");
  OneNode length("ConvTranspose", {F32({1, 1, 3, 3}), F32({1, 1, 3, 3})}, 1);
  length.node->set_attr("output_shape", Ints{1, 5, 5});
  ExpectFailure(length, code::kInvalidParam, "needs 2 spatial sizes");
  // All dims, as some exporters write them, are fine: the spatial ones count.
  OneNode all("ConvTranspose", {F32({1, 1, 3, 3}), F32({1, 1, 3, 3})}, 1);
  all.node->set_attr("output_shape", Ints{1, 1, 6, 7});
  ASSERT_TRUE(all.Infer().ok());
  EXPECT_EQ(OutShape(all), "[1,1,6,7]");
}

TEST(EinsumInferenceTest, ADiagonalNeedsEqualSizes) {
  // Across operands a size of 1 broadcasts; within one operand (a diagonal) it does not.
  OneNode n("Einsum", {F32({1, 3})}, 1, 12);
  n.node->set_attr("equation", std::string("ii->i"));
  ExpectFailure(n, code::kInvalidParam, "repeats label 'i' over dims of 1 and 3");
  OneNode across("Einsum", {F32({1, 3}), F32({3, 3})}, 1, 12);
  across.node->set_attr("equation", std::string("ij,ij->ij"));
  ASSERT_TRUE(across.Infer().ok());
  EXPECT_EQ(OutShape(across), "[3,3]");
}

// ---------------------------------------------------------------------------------------------
// Attribute declarations: the defaults every reader relies on.

TEST(NnAttributeTest, DefaultsAreFilledInAsTheNodesOpsetHasThem) {
  OneNode softmax11("Softmax", {F32({2, 3})}, 1, 11);
  ASSERT_TRUE(softmax11.Infer().ok());
  EXPECT_EQ(softmax11.node->attr_int("axis"), 1);
  OneNode softmax13("Softmax", {F32({2, 3})}, 1, 13);
  ASSERT_TRUE(softmax13.Infer().ok());
  EXPECT_EQ(softmax13.node->attr_int("axis"), -1);

  const std::vector<TensorType> bn = {F32({1, 2, 3}), F32({2}), F32({2}), F32({2}), F32({2})};
  OneNode bn7("BatchNormalization", bn, 1, 7);
  ASSERT_TRUE(bn7.Infer().ok());
  EXPECT_EQ(bn7.node->attr_int("spatial"), 1);
  EXPECT_FALSE(bn7.node->has_attr("training_mode"));
  EXPECT_FLOAT_EQ(bn7.node->attr_float("epsilon"), 1e-5f);
  OneNode bn14("BatchNormalization", bn, 1, 14);
  ASSERT_TRUE(bn14.Infer().ok());
  EXPECT_FALSE(bn14.node->has_attr("spatial"));
  EXPECT_EQ(bn14.node->attr_int("training_mode"), 0);
  EXPECT_FLOAT_EQ(bn14.node->attr_float("momentum"), 0.9f);

  OneNode pool8("MaxPool", {F32({1, 1, 4, 4})}, 1, 8);
  pool8.node->set_attr("kernel_shape", Ints{2, 2});
  ASSERT_TRUE(pool8.Infer().ok());
  EXPECT_EQ(pool8.node->attr_string("auto_pad"), "NOTSET");
  EXPECT_EQ(pool8.node->attr_int("storage_order"), 0);
  EXPECT_FALSE(pool8.node->has_attr("ceil_mode"));
  EXPECT_FALSE(pool8.node->has_attr("pads"));  // optional: absent stays absent

  OneNode rnn("RNN", {F32({7, 2, 10}), F32({1, 5, 10}), F32({1, 5, 5})}, 1, 14);
  ASSERT_TRUE(rnn.Infer().ok());
  EXPECT_EQ(rnn.node->attr_strings("activations"), (std::vector<std::string>{"Tanh", "Tanh"}));
  EXPECT_EQ(rnn.node->attr_string("direction"), "forward");
  EXPECT_EQ(rnn.node->attr_int("layout"), 0);
  OneNode lstm("LSTM", {F32({7, 2, 10}), F32({1, 20, 10}), F32({1, 20, 5})}, 1, 7);
  ASSERT_TRUE(lstm.Infer().ok());
  EXPECT_FALSE(lstm.node->has_attr("activations"));  // the spec names them, with no default
  EXPECT_FALSE(lstm.node->has_attr("layout"));       // from opset 14

  OneNode mvn("MeanVarianceNormalization", {F32({1, 2, 3, 4})}, 1, 13);
  ASSERT_TRUE(mvn.Infer().ok());
  EXPECT_EQ(mvn.node->attr_ints("axes"), (Ints{0, 2, 3}));
}

TEST(NnAttributeTest, AnAttributeOfTheWrongKindIsRefused) {
  // LpPool's p is a float in opset 1 only; from 2 it is an int.
  OneNode n("LpPool", {F32({1, 1, 4, 4})}, 1);
  n.node->set_attr("kernel_shape", Ints{2, 2});
  n.node->set_attr("p", 2.0f);
  ExpectFailure(n, code::kInvalidParam, "attribute 'p' is a float; LpPool takes a int");
}

// ---------------------------------------------------------------------------------------------
// The window, written once for the shape functions and the kernels.

TEST(WindowTest, SameSplitsThePaddingWithTheOddOneAtTheEndOrTheStart) {
  WindowAttrs a;
  a.strides = {2};
  a.auto_pad = AutoPad::kSameUpper;
  // out = ceil(7 / 2) = 4; total = (4 - 1) * 2 + 4 - 7 = 3.
  Result<WindowDim> upper = ResolveWindowDim(a, 0, 1, 7, 4);
  ASSERT_TRUE(upper.ok());
  EXPECT_EQ(upper->out, 4);
  EXPECT_EQ(upper->pad_begin, 1);
  EXPECT_EQ(upper->pad_end, 2);
  a.auto_pad = AutoPad::kSameLower;
  Result<WindowDim> lower = ResolveWindowDim(a, 0, 1, 7, 4);
  ASSERT_TRUE(lower.ok());
  EXPECT_EQ(lower->pad_begin, 2);
  EXPECT_EQ(lower->pad_end, 1);
}

TEST(WindowTest, CeilModeAndExplicitPads) {
  WindowAttrs a;
  a.strides = {2};
  a.pads = {1, 0};
  // span = 6 + 1 - 3 = 4: floor 4 / 2 + 1 = 3, and ceil the same.
  Result<WindowDim> d = ResolveWindowDim(a, 0, 1, 6, 3);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->out, 3);
  EXPECT_EQ(d->pad_begin, 1);
  a.pads = {0, 0};
  a.ceil_mode = true;
  // span = 6 - 3 = 3: ceil(3 / 2) + 1 = 3 (floor would give 2).
  EXPECT_EQ(ResolveWindowDim(a, 0, 1, 6, 3)->out, 3);
  Result<WindowDim> wide = ResolveWindowDim(a, 0, 1, 2, 5);
  ASSERT_FALSE(wide.ok());
  EXPECT_NE(wide.status().message().find("window extent 5 exceeds the padded input size 2"),
            std::string::npos);
}

TEST(WindowTest, TransposedOutputShapeSetsThePads) {
  WindowAttrs a;
  a.transposed = true;
  a.strides = {2};
  // The full result: (3 - 1) * 2 + 3 = 7; output_shape 8 leaves a total padding of -1, split
  // with floor division (NOTSET puts the larger half first).
  a.output_shape = {8};
  Result<Window> w = ResolveWindow(a, {3}, {3});
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(w->out, (std::vector<int64_t>{8}));
  EXPECT_EQ(w->pad_begin, (std::vector<int64_t>{0}));
  EXPECT_EQ(w->pad_end, (std::vector<int64_t>{-1}));
  // Without output_shape the pads shrink the full result.
  a.output_shape.clear();
  a.pads = {1, 1};
  EXPECT_EQ(ResolveWindow(a, {3}, {3})->out, (std::vector<int64_t>{5}));
}

TEST(NnRegistryTest, EveryNnOpIsRegisteredInTheNnFamily) {
  for (const char* op : {"Conv",
                         "ConvTranspose",
                         "MaxPool",
                         "AveragePool",
                         "LpPool",
                         "GlobalAveragePool",
                         "GlobalMaxPool",
                         "GlobalLpPool",
                         "BatchNormalization",
                         "InstanceNormalization",
                         "LayerNormalization",
                         "GroupNormalization",
                         "LRN",
                         "MeanVarianceNormalization",
                         "RMSNormalization",
                         "LpNormalization",
                         "NegativeLogLikelihoodLoss",
                         "SoftmaxCrossEntropyLoss",
                         "Softmax",
                         "LogSoftmax",
                         "Hardmax",
                         "MatMul",
                         "Gemm",
                         "Flatten",
                         "Einsum",
                         "RNN",
                         "GRU",
                         "LSTM"}) {
    const OpSchema* s = OpRegistry::Global().Find("", op);
    ASSERT_NE(s, nullptr) << op;
    EXPECT_EQ(s->family, "nn") << op;
  }
}

}  // namespace
}  // namespace kiln::ir
