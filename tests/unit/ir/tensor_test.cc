// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Type and shape inference of the tensor op family. Expected shapes are worked by hand from the
// ONNX operator spec.
#include <gtest/gtest.h>

#include <cctype>
#include <cmath>
#include <limits>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "tests/unit/ir/test_util.h"

namespace kiln::ir {
namespace {

using testing::F32;
using testing::I64;
using testing::Ints;
using testing::OneNode;
using testing::T;

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
const std::optional<Tensor> kNone;

// A type from "N,3,?": numbers are known dims, "?" unknown, anything else a symbol.
TensorType Sym(DataType dt, const std::string& dims) {
  std::vector<Dim> out;
  std::stringstream in(dims);
  for (std::string tok; std::getline(in, tok, ',');) {
    if (tok == "?") {
      out.push_back(Dim::Unknown());
    } else if (std::isdigit(static_cast<unsigned char>(tok[0]))) {
      out.push_back(Dim::Known(std::stoll(tok)));
    } else {
      out.push_back(Dim::Symbol(tok));
    }
  }
  return {dt, Shape(std::move(out))};
}
TensorType F32Sym(const std::string& dims) { return Sym(DataType::kFloat32, dims); }

Tensor Floats(std::vector<float> v) {
  return Tensor::FromVector(DataType::kFloat32, {static_cast<int64_t>(v.size())}, v);
}
Tensor ScalarI64(int64_t v) {
  return Tensor::FromVector(DataType::kInt64, {}, std::vector<int64_t>{v});
}
Tensor ScalarF32(float v) {
  return Tensor::FromVector(DataType::kFloat32, {}, std::vector<float>{v});
}

// Runs inference; output 0's shape, or "error: <message>".
std::string InferShape(OneNode& n) {
  Status s = n.Infer();
  return s.ok() ? n.out().shape.ToString() : "error: " + s.message();
}

::testing::AssertionResult FailsWith(OneNode& n, const std::string& fragment,
                                     int want = code::kInvalidParam) {
  Status s = n.Infer();
  if (s.ok()) return ::testing::AssertionFailure() << "inferred " << n.out().shape.ToString();
  if (s.code() != want) return ::testing::AssertionFailure() << s.code() << ": " << s.message();
  if (s.message().find(fragment) == std::string::npos) {
    return ::testing::AssertionFailure() << "\"" << fragment << "\" not in: " << s.message();
  }
  return ::testing::AssertionSuccess();
}

void SetInts(OneNode& n, const char* name, std::vector<int64_t> v) {
  n.node->set_attr(name, std::move(v));
}
void SetInt(OneNode& n, const char* name, int64_t v) { n.node->set_attr(name, v); }
void SetStr(OneNode& n, const char* name, const std::string& v) { n.node->set_attr(name, v); }
// Leaves optional input i out, as an ONNX "" input name does.
void Omit(OneNode& n, size_t i) { n.node->set_input(i, nullptr); }

// --- Reshape --------------------------------------------------------------------------------

TEST(ReshapeInferenceTest, ZeroCopiesADimAndMinusOneTakesTheRest) {
  OneNode n("Reshape", {F32({2, 3, 4}), I64({2})}, 1, 13, {kNone, Ints({0, -1})});
  EXPECT_EQ(InferShape(n), "[2,12]");
  EXPECT_EQ(n.out().dtype, DataType::kFloat32);
}

TEST(ReshapeInferenceTest, AllowZeroMakesZeroALiteralDim) {
  OneNode lit("Reshape", {F32({2, 0, 4}), I64({2})}, 1, 14, {kNone, Ints({0, 4})});
  SetInt(lit, "allowzero", 1);
  EXPECT_EQ(InferShape(lit), "[0,4]");
  // Without allowzero the 0 copies dim 0 (2), giving 8 elements where the input has 0.
  OneNode copy("Reshape", {F32({2, 0, 4}), I64({2})}, 1, 14, {kNone, Ints({0, 4})});
  EXPECT_TRUE(FailsWith(copy, "0 elements"));
}

TEST(ReshapeInferenceTest, TwoMinusOnesAreRejectedNamingTheNode) {
  OneNode n("Reshape", {F32({2, 3, 4}), I64({3})}, 1, 13, {kNone, Ints({-1, 2, -1})});
  EXPECT_TRUE(FailsWith(n, "Reshape 'n' (opset 13)"));
  EXPECT_TRUE(FailsWith(n, "more than one -1"));
}

TEST(ReshapeInferenceTest, AllowZeroWithMinusOneIsRejected) {
  OneNode n("Reshape", {F32({2, 3}), I64({2})}, 1, 14, {kNone, Ints({0, -1})});
  SetInt(n, "allowzero", 1);
  EXPECT_TRUE(FailsWith(n, "both 0 and -1"));
}

TEST(ReshapeInferenceTest, SymbolicBatchPassesThroughAZero) {
  OneNode n("Reshape", {F32Sym("N,3,4"), I64({2})}, 1, 13, {kNone, Ints({0, 12})});
  EXPECT_EQ(InferShape(n), "[N,12]");
}

TEST(ReshapeInferenceTest, MinusOneRecoversASymbolWhenTheRestCancels) {
  OneNode same("Reshape", {F32Sym("N,3,4"), I64({2})}, 1, 13, {kNone, Ints({-1, 12})});
  EXPECT_EQ(InferShape(same), "[N,12]");
  OneNode folded("Reshape", {F32Sym("N,3,4"), I64({2})}, 1, 13, {kNone, Ints({-1, 6})});
  EXPECT_EQ(InferShape(folded), "[?,6]");
}

TEST(ReshapeInferenceTest, StaticElementCountMismatchIsRejected) {
  OneNode n("Reshape", {F32({2, 3, 4}), I64({2})}, 1, 13, {kNone, Ints({5, 5})});
  EXPECT_TRUE(FailsWith(n, "24 elements"));
  OneNode indivisible("Reshape", {F32({2, 3, 4}), I64({2})}, 1, 13, {kNone, Ints({5, -1})});
  EXPECT_TRUE(FailsWith(indivisible, "not divisible by 5"));
}

TEST(ReshapeInferenceTest, MinusOneBesideAZeroIsAmbiguous) {
  // [0, -1] of an empty input: any size fits the -1, so no shape is defined (numpy refuses it).
  OneNode n("Reshape", {F32({0, 3}), I64({2})}, 1, 14, {kNone, Ints({0, -1})});
  EXPECT_TRUE(FailsWith(n, "the -1 is ambiguous beside a dim of 0"));
  OneNode sym("Reshape", {F32Sym("N,3"), I64({3})}, 1, 14, {kNone, Ints({-1, 0, 2})});
  SetInt(sym, "allowzero", 1);
  EXPECT_TRUE(FailsWith(sym, "both 0 and -1"));
}

TEST(ReshapeInferenceTest, AnElementCountThatOverflowsIsRejected) {
  OneNode n("Reshape", {F32({2, 3}), I64({3})}, 1, 13, {kNone, Ints({kMax, kMax, 2})});
  EXPECT_TRUE(FailsWith(n, "cannot reshape [2,3]"));
}

TEST(ReshapeInferenceTest, ComputedShapeOfKnownLengthGivesOnlyTheRank) {
  OneNode n("Reshape", {F32({2, 3, 4}), I64({3})}, 1);
  EXPECT_EQ(InferShape(n), "[?,?,?]");
  OneNode unknown("Reshape", {F32({2, 3, 4}), I64({-1})}, 1);
  EXPECT_EQ(InferShape(unknown), "[*]");
}

// --- Transpose ------------------------------------------------------------------------------

TEST(TransposeInferenceTest, DefaultPermReversesTheDims) {
  OneNode n("Transpose", {F32({2, 3, 4})}, 1);
  EXPECT_EQ(InferShape(n), "[4,3,2]");
}

TEST(TransposeInferenceTest, ExplicitPermKeepsSymbols) {
  OneNode n("Transpose", {F32Sym("N,3,4")}, 1);
  SetInts(n, "perm", {0, 2, 1});
  EXPECT_EQ(InferShape(n), "[N,4,3]");
}

TEST(TransposeInferenceTest, PermMustBeAPermutationOfTheRank) {
  OneNode dup("Transpose", {F32({2, 3, 4})}, 1);
  SetInts(dup, "perm", {0, 0, 1});
  EXPECT_TRUE(FailsWith(dup, "not a permutation"));
  OneNode short_perm("Transpose", {F32({2, 3, 4})}, 1);
  SetInts(short_perm, "perm", {1, 0});
  EXPECT_TRUE(FailsWith(short_perm, "has rank 3"));
}

// --- Concat ---------------------------------------------------------------------------------

TEST(ConcatInferenceTest, SumsTheAxisDims) {
  OneNode n("Concat", {F32({2, 3}), F32({2, 5}), F32({2, 1})}, 1);
  SetInt(n, "axis", 1);
  EXPECT_EQ(InferShape(n), "[2,9]");
}

TEST(ConcatInferenceTest, SymbolicDimsOffTheAxisAreKeptOrResolved) {
  OneNode keep("Concat", {F32Sym("N,3"), F32Sym("N,5")}, 1);
  SetInt(keep, "axis", -1);
  EXPECT_EQ(InferShape(keep), "[N,8]");
  OneNode resolve("Concat", {F32Sym("N,3"), F32({2, 5})}, 1);
  SetInt(resolve, "axis", 1);
  EXPECT_EQ(InferShape(resolve), "[2,8]");
}

TEST(ConcatInferenceTest, SymbolicAxisDimMakesTheSumUnknownUnlessTheRestIsEmpty) {
  OneNode sum("Concat", {F32Sym("N,3"), F32({2, 3})}, 1);
  SetInt(sum, "axis", 0);
  EXPECT_EQ(InferShape(sum), "[?,3]");
  OneNode empty("Concat", {F32Sym("N,3"), F32({0, 3})}, 1);
  SetInt(empty, "axis", 0);
  EXPECT_EQ(InferShape(empty), "[N,3]");
}

TEST(ConcatInferenceTest, RankAndDimMismatchesAreRejected) {
  OneNode rank("Concat", {F32({2, 3}), F32({2, 3, 1})}, 1);
  SetInt(rank, "axis", 0);
  EXPECT_TRUE(FailsWith(rank, "ranks must match"));
  OneNode dim("Concat", {F32({2, 3}), F32({4, 3})}, 1);
  SetInt(dim, "axis", 1);
  EXPECT_TRUE(FailsWith(dim, "at dim 0"));
  OneNode no_axis("Concat", {F32({2, 3}), F32({2, 3})}, 1);
  EXPECT_TRUE(FailsWith(no_axis, "'axis' is required"));
}

// --- Split ----------------------------------------------------------------------------------

TEST(SplitInferenceTest, Opset11TakesSizesFromTheAttribute) {
  OneNode n("Split", {F32({6, 4})}, 2, 11);
  SetInts(n, "split", {2, 4});
  EXPECT_EQ(InferShape(n), "[2,4]");
  EXPECT_EQ(n.out(1).shape.ToString(), "[4,4]");
}

TEST(SplitInferenceTest, Opset13TakesSizesFromTheInput) {
  OneNode n("Split", {F32Sym("N,6"), I64({2})}, 2, 13, {kNone, Ints({1, 5})});
  SetInt(n, "axis", 1);
  EXPECT_EQ(InferShape(n), "[N,1]");
  EXPECT_EQ(n.out(1).shape.ToString(), "[N,5]");
}

TEST(SplitInferenceTest, Opset18NumOutputsMakesTheLastChunkSmaller) {
  OneNode n("Split", {F32({7})}, 3, 18);
  SetInt(n, "num_outputs", 3);
  EXPECT_EQ(InferShape(n), "[3]");
  EXPECT_EQ(n.out(1).shape.ToString(), "[3]");
  EXPECT_EQ(n.out(2).shape.ToString(), "[1]");
  OneNode mismatch("Split", {F32({7})}, 3, 18);
  SetInt(mismatch, "num_outputs", 2);
  EXPECT_TRUE(FailsWith(mismatch, "num_outputs is 2"));
}

TEST(SplitInferenceTest, WithoutSizesSplitsEquallyOrFails) {
  OneNode n("Split", {F32({6, 3})}, 3, 13);
  SetInt(n, "axis", -1);
  EXPECT_EQ(InferShape(n), "[6,1]");
  EXPECT_EQ(n.out(2).shape.ToString(), "[6,1]");
  OneNode uneven("Split", {F32({7})}, 2, 13);
  EXPECT_TRUE(FailsWith(uneven, "evenly"));
}

TEST(SplitInferenceTest, SizesMustSumToTheAxis) {
  OneNode n("Split", {F32({6, 4})}, 2, 11);
  SetInts(n, "split", {2, 3});
  EXPECT_TRUE(FailsWith(n, "sums to 5"));
}

TEST(SplitInferenceTest, AnEmptySplitInputSplitsEqually) {
  // An empty 'split' is ONNX's other way of leaving it out, as the kernels read it.
  OneNode n("Split", {F32({6, 2}), I64({0})}, 2, 13, {kNone, Ints({})});
  ASSERT_TRUE(n.Infer().ok());
  EXPECT_EQ(n.out(0).shape.ToString(), "[3,2]");
  EXPECT_EQ(n.out(1).shape.ToString(), "[3,2]");
}

// --- Slice ----------------------------------------------------------------------------------

TEST(SliceInferenceTest, NegativeStartsWithInt64MaxEndsCountFromTheBack) {
  OneNode n("Slice", {F32({10, 20}), I64({1}), I64({1}), I64({1})}, 1, 13,
            {kNone, Ints({-3}), Ints({kMax}), Ints({1})});
  EXPECT_EQ(InferShape(n), "[10,3]");
}

TEST(SliceInferenceTest, NegativeStepsWalkBackwards) {
  OneNode every2("Slice", {F32({10}), I64({1}), I64({1}), I64({1}), I64({1})}, 1, 13,
                 {kNone, Ints({8}), Ints({2}), Ints({0}), Ints({-2})});
  EXPECT_EQ(InferShape(every2), "[3]");  // 8, 6, 4
  OneNode reverse("Slice", {F32({10}), I64({1}), I64({1}), I64({1}), I64({1})}, 1, 13,
                  {kNone, Ints({-1}), Ints({kMin}), Ints({0}), Ints({-1})});
  EXPECT_EQ(InferShape(reverse), "[10]");
}

TEST(SliceInferenceTest, OutOfRangeStartsAndEndsAreClamped) {
  OneNode all("Slice", {F32({5}), I64({1}), I64({1})}, 1, 13, {kNone, Ints({-100}), Ints({100})});
  EXPECT_EQ(InferShape(all), "[5]");
  OneNode none("Slice", {F32({5}), I64({1}), I64({1})}, 1, 13, {kNone, Ints({7}), Ints({9})});
  EXPECT_EQ(InferShape(none), "[0]");
}

TEST(SliceInferenceTest, StepsTakeEveryNthElement) {
  OneNode n("Slice", {F32({10, 6, 4}), I64({2}), I64({2}), I64({2}), I64({2})}, 1, 13,
            {kNone, Ints({1, 2}), Ints({8, 5}), Ints({0, 2}), Ints({3, 1})});
  EXPECT_EQ(InferShape(n), "[3,6,2]");  // 1, 4, 7; 2, 3
}

TEST(SliceInferenceTest, AxesDefaultToTheLeadingDims) {
  OneNode n("Slice", {F32({10, 6, 4}), I64({2}), I64({2})}, 1, 13,
            {kNone, Ints({1, 2}), Ints({8, 5})});
  EXPECT_EQ(InferShape(n), "[7,3,4]");
}

TEST(SliceInferenceTest, Opset1UsesAttributes) {
  OneNode n("Slice", {F32({4, 6})}, 1, 1);
  SetInts(n, "starts", {1});
  SetInts(n, "ends", {1000});
  SetInts(n, "axes", {1});
  EXPECT_EQ(InferShape(n), "[4,5]");
}

TEST(SliceInferenceTest, ComputedStartsMakeOnlyTheSlicedDimsUnknown) {
  OneNode n("Slice", {F32Sym("N,8,8"), I64({1}), I64({1}), I64({1})}, 1, 13,
            {kNone, kNone, Ints({4}), Ints({1})});
  EXPECT_EQ(InferShape(n), "[N,?,8]");
}

TEST(SliceInferenceTest, WholeRangeKeepsASymbolicDim) {
  OneNode whole("Slice", {F32Sym("N,4"), I64({1}), I64({1}), I64({1})}, 1, 13,
                {kNone, Ints({0}), Ints({kMax}), Ints({0})});
  EXPECT_EQ(InferShape(whole), "[N,4]");
  OneNode part("Slice", {F32Sym("N,4"), I64({1}), I64({1}), I64({1})}, 1, 13,
               {kNone, Ints({1}), Ints({kMax}), Ints({0})});
  EXPECT_EQ(InferShape(part), "[?,4]");
}

TEST(SliceInferenceTest, ZeroStepsAndMismatchedLengthsAreRejected) {
  OneNode zero("Slice", {F32({10}), I64({1}), I64({1}), I64({1}), I64({1})}, 1, 13,
               {kNone, Ints({0}), Ints({5}), Ints({0}), Ints({0})});
  EXPECT_TRUE(FailsWith(zero, "has a 0"));
  OneNode lengths("Slice", {F32({10, 4}), I64({2}), I64({1})}, 1, 13,
                  {kNone, Ints({0, 0}), Ints({5})});
  EXPECT_TRUE(FailsWith(lengths, "'ends' has 1 entries"));
}

// --- Gather and Scatter ---------------------------------------------------------------------

TEST(GatherInferenceTest, IndicesReplaceTheAxis) {
  OneNode n("Gather", {F32({4, 5, 6}), I64({2, 3})}, 1);
  SetInt(n, "axis", 1);
  EXPECT_EQ(InferShape(n), "[4,2,3,6]");
  OneNode scalar("Gather", {F32Sym("N,5"), I64({})}, 1);
  SetInt(scalar, "axis", -1);
  EXPECT_EQ(InferShape(scalar), "[N]");
}

TEST(GatherInferenceTest, BadAxisAndFloatIndicesAreRejected) {
  OneNode axis("Gather", {F32({4, 5}), I64({2})}, 1);
  SetInt(axis, "axis", 2);
  EXPECT_TRUE(FailsWith(axis, "axis 2 is out of range for rank 2"));
  OneNode idx("Gather", {F32({4, 5}), F32({2})}, 1);
  EXPECT_TRUE(FailsWith(idx, "int32 or int64"));
}

TEST(GatherInferenceTest, GatherElementsTakesTheIndicesShape) {
  OneNode n("GatherElements", {F32({3, 4}), I64({3, 2})}, 1);
  SetInt(n, "axis", 1);
  EXPECT_EQ(InferShape(n), "[3,2]");
  OneNode rank("GatherElements", {F32({3, 4}), I64({3})}, 1);
  EXPECT_TRUE(FailsWith(rank, "rank of data"));
}

TEST(GatherInferenceTest, ElementsIndicesFitDataOffTheAxis) {
  OneNode fits("GatherElements", {F32({3, 4}), I64({5, 2})}, 1, 13);
  EXPECT_EQ(InferShape(fits), "[5,2]");  // axis 0 may be longer
  OneNode wide("GatherElements", {F32({3, 4}), I64({2, 5})}, 1, 13);
  EXPECT_TRUE(FailsWith(wide, "indices [2,5] exceed data [3,4] at dim 1"));
  OneNode scatter("ScatterElements", {F32({3, 4}), I64({2, 5}), F32({2, 5})}, 1, 13);
  SetInt(scatter, "axis", 1);
  EXPECT_EQ(InferShape(scatter), "[3,4]");
  OneNode upd("ScatterElements", {F32({3, 4}), I64({2, 2}), F32({2, 3})}, 1, 13);
  EXPECT_TRUE(FailsWith(upd, "updates [2,3] must have the shape of indices [2,2]"));
}

TEST(GatherInferenceTest, GatherNdDropsTheIndexedDims) {
  OneNode n("GatherND", {F32({4, 5, 6}), I64({3, 1})}, 1, 13);
  EXPECT_EQ(InferShape(n), "[3,5,6]");
  OneNode batched("GatherND", {F32({2, 3, 4, 5}), I64({2, 6, 2})}, 1, 13);
  SetInt(batched, "batch_dims", 1);
  EXPECT_EQ(InferShape(batched), "[2,6,5]");
  OneNode deep("GatherND", {F32({4, 5}), I64({2, 3})}, 1, 13);
  EXPECT_TRUE(FailsWith(deep, "allows 1 to 2"));
}

TEST(GatherInferenceTest, ScatterNdKeepsTheDataShapeAndChecksUpdates) {
  OneNode n("ScatterND", {F32({4, 5, 6}), I64({2, 1}), F32({2, 5, 6})}, 1, 16);
  EXPECT_EQ(InferShape(n), "[4,5,6]");
  OneNode bad("ScatterND", {F32({4, 5, 6}), I64({2, 1}), F32({2, 5})}, 1, 16);
  EXPECT_TRUE(FailsWith(bad, "updates must be indices.shape[:-1] + data.shape[k:]"));
  // The dims must agree too, not only the rank: one update slice [5,6] per index tuple.
  OneNode dims("ScatterND", {F32({4, 5, 6}), I64({2, 1}), F32({2, 5, 7})}, 1, 16);
  EXPECT_TRUE(FailsWith(dims, "do not fit data [4,5,6]"));
  OneNode tuples("ScatterND", {F32({4, 5, 6}), I64({2, 1}), F32({3, 5, 6})}, 1, 16);
  EXPECT_TRUE(FailsWith(tuples, "do not fit data [4,5,6]"));
  OneNode scalar("ScatterND", {F32({4}), I64({}), F32({})}, 1, 16);
  EXPECT_TRUE(FailsWith(scalar, "indices must have rank >= 1"));
}

TEST(GatherInferenceTest, ScatterElementsChecksRanksAndReductions) {
  OneNode n("ScatterElements", {F32({3, 3}), I64({1, 2}), F32({1, 2})}, 1, 18);
  SetStr(n, "reduction", "max");
  EXPECT_EQ(InferShape(n), "[3,3]");
  OneNode old("ScatterElements", {F32({3, 3}), I64({1, 2}), F32({1, 2})}, 1, 16);
  SetStr(old, "reduction", "max");
  EXPECT_TRUE(FailsWith(old, "'reduction' is \"max\""));
  OneNode rank("ScatterElements", {F32({3, 3}), I64({2}), F32({2})}, 1, 16);
  EXPECT_TRUE(FailsWith(rank, "rank of data"));
}

// --- Squeeze and Unsqueeze ------------------------------------------------------------------

TEST(SqueezeInferenceTest, Opset11ReadsTheAxesAttribute) {
  OneNode n("Squeeze", {F32({1, 3, 1, 5})}, 1, 11);
  SetInts(n, "axes", {0, 2});
  EXPECT_EQ(InferShape(n), "[3,5]");
}

TEST(SqueezeInferenceTest, Opset13ReadsTheAxesInput) {
  OneNode n("Squeeze", {F32({1, 3, 1, 5}), I64({1})}, 1, 13, {kNone, Ints({-2})});
  EXPECT_EQ(InferShape(n), "[1,3,5]");
}

TEST(SqueezeInferenceTest, NoAxesDropsEveryOneOrGivesUpOnDynamicDims) {
  OneNode n("Squeeze", {F32({1, 3, 1, 5})}, 1, 13);
  EXPECT_EQ(InferShape(n), "[3,5]");
  OneNode dynamic("Squeeze", {F32Sym("1,N")}, 1, 13);
  EXPECT_EQ(InferShape(dynamic), "[*]");
}

TEST(SqueezeInferenceTest, SqueezingADimOtherThanOneIsRejected) {
  OneNode n("Squeeze", {F32({2, 3}), I64({1})}, 1, 13, {kNone, Ints({0})});
  EXPECT_TRUE(FailsWith(n, "its size is 2"));
}

TEST(SqueezeInferenceTest, UnsqueezeAtOpset11And13InsertsOnes) {
  OneNode attr("Unsqueeze", {F32({3, 4})}, 1, 11);
  SetInts(attr, "axes", {0, 3});
  EXPECT_EQ(InferShape(attr), "[1,3,4,1]");
  OneNode input("Unsqueeze", {F32Sym("N,4"), I64({2})}, 1, 13, {kNone, Ints({0, -1})});
  EXPECT_EQ(InferShape(input), "[1,N,4,1]");
}

TEST(SqueezeInferenceTest, UnsqueezeRejectsRepeatedAxes) {
  OneNode n("Unsqueeze", {F32({3, 4}), I64({2})}, 1, 13,
            {kNone, Ints({1, -3})});  // -3 is axis 1 of the rank-4 output
  EXPECT_TRUE(FailsWith(n, "repeat axis"));
}

// --- Shape queries, broadcasting and generators ---------------------------------------------

TEST(ShapeOpsInferenceTest, ShapeIsAnInt64VectorOfTheRank) {
  OneNode n("Shape", {F32Sym("N,3,4")}, 1);
  EXPECT_EQ(InferShape(n), "[3]");
  EXPECT_EQ(n.out().dtype, DataType::kInt64);
}

TEST(ShapeOpsInferenceTest, ShapeStartAndEndClampFromOpset15) {
  OneNode start("Shape", {F32({2, 3, 4})}, 1, 15);
  SetInt(start, "start", -1);
  EXPECT_EQ(InferShape(start), "[1]");
  OneNode both("Shape", {F32({2, 3, 4})}, 1, 15);
  SetInt(both, "start", 1);
  SetInt(both, "end", -1);
  EXPECT_EQ(InferShape(both), "[1]");
  OneNode empty("Shape", {F32({2, 3, 4})}, 1, 15);
  SetInt(empty, "end", -10);
  EXPECT_EQ(InferShape(empty), "[0]");
  OneNode old("Shape", {F32({2, 3, 4})}, 1, 13);
  SetInt(old, "start", 1);  // not an attribute before opset 15
  EXPECT_EQ(InferShape(old), "[3]");
}

TEST(ShapeOpsInferenceTest, SizeIsAnInt64Scalar) {
  OneNode n("Size", {F32Sym("N,3")}, 1);
  EXPECT_EQ(InferShape(n), "[]");
  EXPECT_EQ(n.out().dtype, DataType::kInt64);
}

TEST(ShapeOpsInferenceTest, ExpandBroadcastsToTheConstantShape) {
  OneNode n("Expand", {F32({3, 1}), I64({3})}, 1, 13, {kNone, Ints({2, 1, 6})});
  EXPECT_EQ(InferShape(n), "[2,3,6]");
  OneNode sym("Expand", {F32Sym("N,1"), I64({2})}, 1, 13, {kNone, Ints({1, 4})});
  EXPECT_EQ(InferShape(sym), "[N,4]");
  OneNode bad("Expand", {F32({3}), I64({1})}, 1, 13, {kNone, Ints({4})});
  EXPECT_TRUE(FailsWith(bad, "cannot be expanded to [4]"));
}

TEST(ShapeOpsInferenceTest, TileMultipliesEachDim) {
  OneNode n("Tile", {F32({2, 3}), I64({2})}, 1, 13, {kNone, Ints({2, 2})});
  EXPECT_EQ(InferShape(n), "[4,6]");
  OneNode sym("Tile", {F32Sym("N,3"), I64({2})}, 1, 13, {kNone, Ints({1, 2})});
  EXPECT_EQ(InferShape(sym), "[N,6]");
  OneNode bad("Tile", {F32({2, 3}), I64({1})}, 1, 13, {kNone, Ints({2})});
  EXPECT_TRUE(FailsWith(bad, "repeats has 1 entries"));
}

TEST(ShapeOpsInferenceTest, TileAndDepthToSpaceRejectDimsThatOverflow) {
  OneNode tile("Tile", {F32({2, 3}), I64({2})}, 1, 13, {kNone, Ints({kMax, 1})});
  EXPECT_TRUE(FailsWith(tile, "overflows"));
  OneNode d2s("DepthToSpace", {F32({1, 4, kMax / 2 + 1, 1})}, 1, 13);
  SetInt(d2s, "blocksize", 2);
  EXPECT_TRUE(FailsWith(d2s, "overflows"));
  OneNode huge("DepthToSpace", {F32({1, 4, 2, 2})}, 1, 13);
  SetInt(huge, "blocksize", int64_t{1} << 40);
  EXPECT_TRUE(FailsWith(huge, "blocksize must be in [1, 2^31]"));
}

TEST(ShapeOpsInferenceTest, ConstantOfShapeTakesTheValueType) {
  OneNode n("ConstantOfShape", {I64({2})}, 1, 13, {Ints({2, 3})});
  n.node->set_attr("value", Tensor::FromVector(DataType::kInt32, {1}, std::vector<int32_t>{7}));
  EXPECT_EQ(InferShape(n), "[2,3]");
  EXPECT_EQ(n.out().dtype, DataType::kInt32);
  OneNode dflt("ConstantOfShape", {I64({1})}, 1, 13, {Ints({5})});
  EXPECT_EQ(InferShape(dflt), "[5]");
  EXPECT_EQ(dflt.out().dtype, DataType::kFloat32);
  OneNode neg("ConstantOfShape", {I64({1})}, 1, 13, {Ints({-5})});
  EXPECT_TRUE(FailsWith(neg, "negative"));
}

TEST(ShapeOpsInferenceTest, ConstantOfShapeValueMustBeOneNumber) {
  OneNode two("ConstantOfShape", {I64({1})}, 1, 13, {Ints({5})});
  two.node->set_attr("value",
                     Tensor::FromVector(DataType::kInt32, {2}, std::vector<int32_t>{1, 2}));
  EXPECT_TRUE(FailsWith(two, "one-element numeric or bool tensor"));
  OneNode ints("ConstantOfShape", {I64({1})}, 1, 13, {Ints({5})});
  SetInts(ints, "value", {1});  // ints, not a tensor: refused by the declared kind
  EXPECT_TRUE(FailsWith(ints, "attribute 'value' is a ints; ConstantOfShape takes a tensor"));
}

TEST(ShapeOpsInferenceTest, ConstantTakesItsValueAttribute) {
  OneNode tensor("Constant", {}, 1, 13);
  tensor.node->set_attr(
      "value", Tensor::FromVector(DataType::kInt32, {2, 2}, std::vector<int32_t>{1, 2, 3, 4}));
  EXPECT_EQ(InferShape(tensor), "[2,2]");
  EXPECT_EQ(tensor.out().dtype, DataType::kInt32);
  OneNode ints("Constant", {}, 1, 13);
  SetInts(ints, "value_ints", {1, 2, 3});
  EXPECT_EQ(InferShape(ints), "[3]");
  EXPECT_EQ(ints.out().dtype, DataType::kInt64);
  OneNode flt("Constant", {}, 1, 13);
  flt.node->set_attr("value_float", 1.5f);
  EXPECT_EQ(InferShape(flt), "[]");
  EXPECT_EQ(flt.out().dtype, DataType::kFloat32);
}

TEST(ShapeOpsInferenceTest, ConstantStringsAreUnsupportedAndTwoValuesInvalid) {
  OneNode str("Constant", {}, 1, 13);
  SetStr(str, "value_string", "hi");
  EXPECT_TRUE(FailsWith(str, "value_string", code::kFeatureUnsupported));
  OneNode two("Constant", {}, 1, 13);
  SetInt(two, "value_int", 1);
  two.node->set_attr("value_float", 1.0f);
  EXPECT_TRUE(FailsWith(two, "exactly one value attribute"));
}

TEST(ShapeOpsInferenceTest, RangeLengthIsComputedFromConstants) {
  OneNode ints("Range", {I64({}), I64({}), I64({})}, 1, 13,
               {ScalarI64(0), ScalarI64(10), ScalarI64(3)});
  EXPECT_EQ(InferShape(ints), "[4]");  // 0, 3, 6, 9
  OneNode down("Range", {F32({}), F32({}), F32({})}, 1, 13,
               {ScalarF32(1), ScalarF32(0), ScalarF32(-0.3f)});
  EXPECT_EQ(InferShape(down), "[4]");  // 1, 0.7, 0.4, 0.1
  EXPECT_EQ(down.out().dtype, DataType::kFloat32);
  OneNode empty("Range", {I64({}), I64({}), I64({})}, 1, 13,
                {ScalarI64(5), ScalarI64(0), ScalarI64(1)});
  EXPECT_EQ(InferShape(empty), "[0]");
  OneNode computed("Range", {I64({}), I64({}), I64({})}, 1, 13, {ScalarI64(0)});
  EXPECT_EQ(InferShape(computed), "[?]");
}

TEST(ShapeOpsInferenceTest, RangeRejectsZeroDeltaAndNonScalars) {
  OneNode zero("Range", {I64({}), I64({}), I64({})}, 1, 13,
               {ScalarI64(0), ScalarI64(10), ScalarI64(0)});
  EXPECT_TRUE(FailsWith(zero, "delta is 0"));
  OneNode vec("Range", {I64({1}), I64({}), I64({})}, 1, 13);
  EXPECT_TRUE(FailsWith(vec, "'start' must be a scalar"));
}

TEST(ShapeOpsInferenceTest, RangeLengthMatchesTheKernelsArithmetic) {
  // limit - start overflows int64; the kernel computes it in 128 bits, so does the length.
  OneNode wide("Range", {I64({}), I64({}), I64({})}, 1, 13,
               {ScalarI64(kMin), ScalarI64(kMax), ScalarI64(kMax)});
  EXPECT_EQ(InferShape(wide), "[3]");  // kMin, -1, kMax - 1
  OneNode inf("Range", {F32({}), F32({}), F32({})}, 1, 13,
              {ScalarF32(0), ScalarF32(std::numeric_limits<float>::infinity()), ScalarF32(1)});
  EXPECT_TRUE(FailsWith(inf, "has no finite length"));
  uint16_t bf[3] = {0x0000, 0x4120, 0x4000};  // bfloat16 0, 10, 2
  std::vector<std::optional<Tensor>> consts;
  for (uint16_t b : bf) {
    consts.push_back(Tensor::FromVector(DataType::kBFloat16, {}, std::vector<uint16_t>{b}));
  }
  TensorType t{DataType::kBFloat16, Shape::Scalar()};
  OneNode bf16("Range", {t, t, t}, 1, 13, consts);
  EXPECT_EQ(InferShape(bf16), "[5]");
}

TEST(ShapeOpsInferenceTest, NonZeroIsInt64RankByUnknown) {
  OneNode n("NonZero", {F32({3, 4})}, 1);
  EXPECT_EQ(InferShape(n), "[2,?]");
  EXPECT_EQ(n.out().dtype, DataType::kInt64);
}

TEST(ShapeOpsInferenceTest, EyeLikeTakesItsDtypeAttribute) {
  OneNode n("EyeLike", {F32({3, 4})}, 1);
  SetInt(n, "dtype", 7);
  EXPECT_EQ(InferShape(n), "[3,4]");
  EXPECT_EQ(n.out().dtype, DataType::kInt64);
  OneNode rank3("EyeLike", {F32({3, 4, 5})}, 1);
  EXPECT_TRUE(FailsWith(rank3, "must be 2-D"));
}

TEST(ShapeOpsInferenceTest, DepthToSpaceAndSpaceToDepthMoveBlocks) {
  OneNode d2s("DepthToSpace", {F32({1, 8, 2, 3})}, 1);
  SetInt(d2s, "blocksize", 2);
  SetStr(d2s, "mode", "CRD");
  EXPECT_EQ(InferShape(d2s), "[1,2,4,6]");
  OneNode s2d("SpaceToDepth", {F32({1, 2, 4, 6})}, 1);
  SetInt(s2d, "blocksize", 2);
  EXPECT_EQ(InferShape(s2d), "[1,8,2,3]");
  OneNode odd("DepthToSpace", {F32({1, 6, 2, 2})}, 1);
  SetInt(odd, "blocksize", 2);
  EXPECT_TRUE(FailsWith(odd, "channels 6 is not divisible by 4"));
  OneNode mode("DepthToSpace", {F32({1, 8, 2, 3})}, 1);
  SetInt(mode, "blocksize", 2);
  SetStr(mode, "mode", "RCD");
  EXPECT_TRUE(FailsWith(mode, "\"RCD\""));
}

TEST(ShapeOpsInferenceTest, OneHotInsertsTheDepthAtTheAxis) {
  OneNode last("OneHot", {I64({2, 3}), I64({}), F32({2})}, 1, 13, {kNone, ScalarI64(10)});
  EXPECT_EQ(InferShape(last), "[2,3,10]");
  EXPECT_EQ(last.out().dtype, DataType::kFloat32);
  OneNode first("OneHot", {I64({2, 3}), I64({}), F32({2})}, 1, 13, {kNone, ScalarI64(10)});
  SetInt(first, "axis", 0);
  EXPECT_EQ(InferShape(first), "[10,2,3]");
}

TEST(ShapeOpsInferenceTest, NonZeroCountsAScalarAsOneDim) {
  OneNode n("NonZero", {F32({})}, 1);
  EXPECT_EQ(InferShape(n), "[1,?]");
}

TEST(ShapeOpsInferenceTest, CumProdKeepsTheShapeFromOpset26) {
  OneNode cum("CumProd", {F32Sym("N,4"), I64({})}, 1, 26, {kNone, ScalarI64(-1)});
  EXPECT_EQ(InferShape(cum), "[N,4]");
  OneNode old("CumProd", {F32({3, 4}), I64({})}, 1, 25, {kNone, ScalarI64(0)});
  EXPECT_TRUE(FailsWith(old, "from opset 26", code::kFeatureUnsupported));
}

TEST(ShapeOpsInferenceTest, CompressCountsAConstantCondition) {
  Tensor cond = Tensor::FromVector(DataType::kBool, {3}, std::vector<uint8_t>{1, 0, 1});
  OneNode axis("Compress", {F32Sym("3,N"), T(DataType::kBool, {3})}, 1, 11, {kNone, cond});
  SetInt(axis, "axis", 0);
  EXPECT_EQ(InferShape(axis), "[2,N]");
  OneNode flat("Compress", {F32({2, 3}), T(DataType::kBool, {3})}, 1, 11, {kNone, cond});
  EXPECT_EQ(InferShape(flat), "[2]");
  OneNode computed("Compress", {F32({4, 5}), T(DataType::kBool, {4})}, 1, 11);
  SetInt(computed, "axis", -2);
  EXPECT_EQ(InferShape(computed), "[?,5]");
  OneNode too_long("Compress", {F32({2, 5}), T(DataType::kBool, {3})}, 1, 11, {kNone, cond});
  SetInt(too_long, "axis", 0);
  EXPECT_TRUE(FailsWith(too_long, "condition has 3 entries"));
  OneNode not_bool("Compress", {F32({4}), I64({4})}, 1, 11);
  EXPECT_TRUE(FailsWith(not_bool, "bool is required"));
}

TEST(ShapeOpsInferenceTest, ReverseSequenceKeepsTheShapeAndChecksAxes) {
  OneNode n("ReverseSequence", {F32Sym("T,B,8"), I64({4})}, 1, 10);
  EXPECT_EQ(InferShape(n), "[T,B,8]");
  OneNode same("ReverseSequence", {F32({3, 4}), I64({4})}, 1, 10);
  SetInt(same, "batch_axis", 0);
  EXPECT_TRUE(FailsWith(same, "must be 0 and 1"));
  OneNode batch("ReverseSequence", {F32({3, 4}), I64({3})}, 1, 10);
  EXPECT_TRUE(FailsWith(batch, "one entry per batch"));
  OneNode vec("ReverseSequence", {F32({3}), I64({3})}, 1, 10);
  EXPECT_TRUE(FailsWith(vec, "rank >= 2"));
}

TEST(ShapeOpsInferenceTest, CenterCropPadTakesTheShapeOnItsAxes) {
  OneNode all("CenterCropPad", {F32Sym("N,5"), I64({2})}, 1, 18, {kNone, Ints({2, 7})});
  EXPECT_EQ(InferShape(all), "[2,7]");
  OneNode axes("CenterCropPad", {F32Sym("N,5,6"), I64({1})}, 1, 18, {kNone, Ints({3})});
  SetInts(axes, "axes", {-1});
  EXPECT_EQ(InferShape(axes), "[N,5,3]");
  OneNode computed("CenterCropPad", {F32Sym("N,5"), I64({1})}, 1, 18);
  SetInts(computed, "axes", {1});
  EXPECT_EQ(InferShape(computed), "[N,?]");
  OneNode count("CenterCropPad", {F32({4, 5}), I64({1})}, 1, 18, {kNone, Ints({3})});
  EXPECT_TRUE(FailsWith(count, "shape has 1 entries for 2 axes"));
}

TEST(ShapeOpsInferenceTest, CumSumAndTriluKeepTheShape) {
  OneNode cum("CumSum", {F32Sym("N,4"), I64({})}, 1, 14, {kNone, ScalarI64(1)});
  EXPECT_EQ(InferShape(cum), "[N,4]");
  OneNode bad_axis("CumSum", {F32({3, 4}), I64({})}, 1, 14, {kNone, ScalarI64(2)});
  EXPECT_TRUE(FailsWith(bad_axis, "axis 2 is out of range"));
  OneNode tri("Trilu", {F32Sym("B,3,3")}, 1, 14);
  EXPECT_EQ(InferShape(tri), "[B,3,3]");
  OneNode vec("Trilu", {F32({3})}, 1, 14);
  EXPECT_TRUE(FailsWith(vec, "rank >= 2"));
}

// --- TopK, ArgMax, NonMaxSuppression --------------------------------------------------------

TEST(TopKInferenceTest, Opset11ReadsKFromTheInput) {
  OneNode n("TopK", {F32({3, 5}), I64({1})}, 2, 11, {kNone, Ints({2})});
  SetInt(n, "axis", 1);
  EXPECT_EQ(InferShape(n), "[3,2]");
  EXPECT_EQ(n.out(0).dtype, DataType::kFloat32);
  EXPECT_EQ(n.out(1).dtype, DataType::kInt64);
  EXPECT_EQ(n.out(1).shape.ToString(), "[3,2]");
}

TEST(TopKInferenceTest, Opset1ReadsKFromTheAttribute) {
  OneNode n("TopK", {F32({4, 5})}, 2, 1);
  SetInt(n, "k", 3);
  EXPECT_EQ(InferShape(n), "[4,3]");
}

TEST(TopKInferenceTest, KLargerThanTheAxisIsRejected) {
  OneNode n("TopK", {F32({3, 5}), I64({1})}, 2, 11, {kNone, Ints({6})});
  EXPECT_TRUE(FailsWith(n, "k = 6 exceeds the size 5"));
}

TEST(TopKInferenceTest, ArgMaxAndArgMinHonourKeepdims) {
  OneNode keep("ArgMax", {F32({3, 4, 5})}, 1, 13);
  SetInt(keep, "axis", 1);
  EXPECT_EQ(InferShape(keep), "[3,1,5]");
  EXPECT_EQ(keep.out().dtype, DataType::kInt64);
  OneNode drop("ArgMin", {F32Sym("N,4,5")}, 1, 13);
  SetInt(drop, "axis", -1);
  SetInt(drop, "keepdims", 0);
  EXPECT_EQ(InferShape(drop), "[N,4]");
}

TEST(TopKInferenceTest, NonMaxSuppressionSelectsInt64Triples) {
  OneNode n("NonMaxSuppression", {F32({1, 6, 4}), F32({1, 2, 6})}, 1, 11);
  EXPECT_EQ(InferShape(n), "[?,3]");
  EXPECT_EQ(n.out().dtype, DataType::kInt64);
  OneNode bad("NonMaxSuppression", {F32({1, 6, 5}), F32({1, 2, 6})}, 1, 11);
  EXPECT_TRUE(FailsWith(bad, "boxes must be"));
}

TEST(TopKInferenceTest, NonMaxSuppressionScoresFitTheBoxes) {
  OneNode batches("NonMaxSuppression", {F32({2, 6, 4}), F32({1, 2, 6})}, 1, 11);
  EXPECT_TRUE(FailsWith(batches, "batches and box counts must agree"));
  OneNode count("NonMaxSuppression", {F32({1, 6, 4}), F32({1, 2, 5})}, 1, 11);
  EXPECT_TRUE(FailsWith(count, "batches and box counts must agree"));
  OneNode types("NonMaxSuppression", {F32({1, 6, 4}), T(DataType::kFloat64, {1, 2, 6})}, 1, 11);
  EXPECT_TRUE(FailsWith(types, "must have the same type"));
}

TEST(TopKInferenceTest, OneHotDepthMustBeAFiniteCount) {
  OneNode nan("OneHot", {I64({3}), F32({}), F32({2})}, 1, 11,
              {kNone, ScalarF32(std::nanf("")), kNone});
  EXPECT_TRUE(FailsWith(nan, "depth must be one value >= 1"));
  OneNode ok("OneHot", {I64({3}), F32({}), F32({2})}, 1, 11, {kNone, ScalarF32(4), kNone});
  EXPECT_EQ(InferShape(ok), "[3,4]");
}

// --- Pad, Resize, Upsample ------------------------------------------------------------------

TEST(PadResizeInferenceTest, Opset2PadsComeFromTheAttribute) {
  OneNode n("Pad", {F32({1, 3, 4, 4})}, 1, 2);
  SetInts(n, "pads", {0, 0, 1, 1, 0, 0, 1, 1});
  EXPECT_EQ(InferShape(n), "[1,3,6,6]");
}

TEST(PadResizeInferenceTest, Opset11PadsComeFromTheInput) {
  OneNode n("Pad", {F32Sym("N,3,4,4"), I64({8})}, 1, 11, {kNone, Ints({0, 0, 1, 2, 0, 0, 3, 4})});
  EXPECT_EQ(InferShape(n), "[N,3,8,10]");
  OneNode computed("Pad", {F32({2, 4}), I64({4})}, 1, 11);
  EXPECT_EQ(InferShape(computed), "[?,?]");
}

TEST(PadResizeInferenceTest, Opset18AxesPadOnlyTheNamedAxes) {
  OneNode n("Pad", {F32({1, 3, 4, 4}), I64({2}), F32({}), I64({1})}, 1, 18,
            {kNone, Ints({2, 3}), kNone, Ints({-1})});
  Omit(n, 2);
  EXPECT_EQ(InferShape(n), "[1,3,4,9]");
}

TEST(PadResizeInferenceTest, NegativePadsCropButNotPastZero) {
  OneNode crop("Pad", {F32({5}), I64({2})}, 1, 13, {kNone, Ints({-1, -2})});
  EXPECT_EQ(InferShape(crop), "[2]");
  OneNode over("Pad", {F32({5}), I64({2})}, 1, 13, {kNone, Ints({-3, -3})});
  EXPECT_TRUE(FailsWith(over, "pads -3 and -3 do not fit an axis of 5"));
  OneNode begin("Pad", {F32({5}), I64({2})}, 1, 13, {kNone, Ints({-6, 4})});
  EXPECT_TRUE(FailsWith(begin, "pads -6 and 4 do not fit an axis of 5"));
  OneNode huge("Pad", {F32({5}), I64({2})}, 1, 13, {kNone, Ints({kMax, 1})});
  EXPECT_TRUE(FailsWith(huge, "overflow"));
  OneNode count("Pad", {F32({5, 5}), I64({2})}, 1, 13, {kNone, Ints({1, 1})});
  EXPECT_TRUE(FailsWith(count, "pads has 2 entries; 4"));
}

TEST(PadResizeInferenceTest, ReflectEdgeAndWrapNeedSomethingLeftToCopy) {
  for (const char* mode : {"reflect", "edge", "wrap"}) {
    OneNode gone("Pad", {F32({2}), I64({2})}, 1, 19, {kNone, Ints({-2, 3})});
    SetStr(gone, "mode", mode);
    EXPECT_TRUE(FailsWith(gone, "cropped to nothing")) << mode;
  }
  OneNode constant("Pad", {F32({2}), I64({2})}, 1, 19, {kNone, Ints({-2, 3})});
  EXPECT_EQ(InferShape(constant), "[3]");
}

TEST(PadResizeInferenceTest, WrapModeNeedsOpset19) {
  OneNode old("Pad", {F32({5}), I64({2})}, 1, 18, {kNone, Ints({1, 1})});
  SetStr(old, "mode", "wrap");
  EXPECT_TRUE(FailsWith(old, "'mode' is \"wrap\"; opset 18 allows"));
  OneNode now("Pad", {F32({5}), I64({2})}, 1, 19, {kNone, Ints({1, 1})});
  SetStr(now, "mode", "wrap");
  EXPECT_EQ(InferShape(now), "[7]");
}

TEST(PadResizeInferenceTest, ResizeByScalesFloorsEachDim) {
  OneNode up("Resize", {F32Sym("N,3,4,4"), F32({0}), F32({4})}, 1, 13,
             {kNone, kNone, Floats({1, 1, 2, 2})});
  Omit(up, 1);
  EXPECT_EQ(InferShape(up), "[N,3,8,8]");
  OneNode down("Resize", {F32({1, 3, 5, 5}), F32({0}), F32({4})}, 1, 13,
               {kNone, kNone, Floats({1, 1, 0.6f, 0.5f})});
  Omit(down, 1);
  EXPECT_EQ(InferShape(down), "[1,3,3,2]");
}

TEST(PadResizeInferenceTest, ResizeBySizesTakesThemAsGiven) {
  OneNode n("Resize", {F32({1, 3, 4, 4}), F32({0}), F32({0}), I64({4})}, 1, 13,
            {kNone, kNone, kNone, Ints({1, 3, 7, 9})});
  Omit(n, 1);
  Omit(n, 2);
  EXPECT_EQ(InferShape(n), "[1,3,7,9]");
  // Opset 11 style: roi and scales present but empty.
  OneNode empty("Resize", {F32({1, 3, 4, 4}), F32({0}), F32({0}), I64({4})}, 1, 11,
                {kNone, Floats({}), Floats({}), Ints({1, 3, 7, 9})});
  EXPECT_EQ(InferShape(empty), "[1,3,7,9]");
}

TEST(PadResizeInferenceTest, ResizeKeepAspectRatioPolicyScalesUniformly) {
  OneNode larger("Resize", {F32({1, 3, 4, 8}), F32({0}), F32({0}), I64({2})}, 1, 18,
                 {kNone, kNone, kNone, Ints({8, 8})});
  Omit(larger, 1);
  Omit(larger, 2);
  SetInts(larger, "axes", {2, 3});
  SetStr(larger, "keep_aspect_ratio_policy", "not_larger");
  EXPECT_EQ(InferShape(larger), "[1,3,4,8]");  // scale min(8/4, 8/8) = 1
  OneNode smaller("Resize", {F32({1, 3, 4, 8}), F32({0}), F32({0}), I64({2})}, 1, 18,
                  {kNone, kNone, kNone, Ints({8, 8})});
  Omit(smaller, 1);
  Omit(smaller, 2);
  SetInts(smaller, "axes", {2, 3});
  SetStr(smaller, "keep_aspect_ratio_policy", "not_smaller");
  EXPECT_EQ(InferShape(smaller), "[1,3,8,16]");  // scale max(2, 1) = 2
}

TEST(PadResizeInferenceTest, ResizeNeedsExactlyOneOfScalesAndSizes) {
  OneNode both("Resize", {F32({1, 3, 4, 4}), F32({0}), F32({4}), I64({4})}, 1, 13,
               {kNone, kNone, Floats({1, 1, 2, 2}), Ints({1, 3, 8, 8})});
  Omit(both, 1);
  EXPECT_TRUE(FailsWith(both, "exactly one of 'scales' and 'sizes'"));
  OneNode neither("Resize", {F32({1, 3, 4, 4})}, 1, 13);
  EXPECT_TRUE(FailsWith(neither, "exactly one of 'scales' and 'sizes'"));
}

TEST(PadResizeInferenceTest, ResizeRejectsWhatNoOutputHas) {
  OneNode inf("Resize", {F32({1, 1, 2, 2}), F32({0}), F32({4})}, 1, 13,
              {kNone, kNone, Floats({1, 1, std::numeric_limits<float>::infinity(), 1})});
  Omit(inf, 1);
  EXPECT_TRUE(FailsWith(inf, "must be finite and > 0"));
  OneNode huge("Resize", {F32({1, 1, 2, 2}), F32({0}), F32({4})}, 1, 13,
               {kNone, kNone, Floats({1, 1, 1e30f, 1})});
  Omit(huge, 1);
  EXPECT_TRUE(FailsWith(huge, "overflows"));
  OneNode empty("Resize", {F32({1, 1, 0, 2}), F32({0}), F32({0}), I64({4})}, 1, 13,
                {kNone, kNone, kNone, Ints({1, 1, 3, 2})});
  Omit(empty, 1);
  Omit(empty, 2);
  EXPECT_TRUE(FailsWith(empty, "cannot resize the empty axis 2"));
  OneNode crop("Resize", {F32({1, 1, 2, 2}), F32({4}), F32({4})}, 1, 13,
               {kNone, kNone, Floats({1, 1, 2, 2})});
  SetStr(crop, "coordinate_transformation_mode", "tf_crop_and_resize");
  EXPECT_TRUE(FailsWith(crop, "needs a roi of 8 values, got 4"));
}

TEST(PadResizeInferenceTest, ResizeWithComputedInputsKeepsOnlyTheRank) {
  // Scales of unknown length may be the empty placeholder, so the constant sizes decide.
  OneNode maybe("Resize", {F32({1, 3, 4, 4}), F32({0}), F32({-1}), I64({4})}, 1, 13,
                {kNone, kNone, kNone, Ints({1, 3, 7, 9})});
  Omit(maybe, 1);
  EXPECT_EQ(InferShape(maybe), "[1,3,7,9]");
  OneNode computed("Resize", {F32Sym("N,3,4,4"), F32({0}), F32({4})}, 1, 13);
  Omit(computed, 1);
  EXPECT_EQ(InferShape(computed), "[?,?,?,?]");
}

TEST(PadResizeInferenceTest, ResizeModesFollowTheOpset) {
  auto make = [](int opset, const char* attr, const char* value) {
    auto n = std::make_unique<OneNode>(
        "Resize", std::vector<TensorType>{F32({1, 1, 2, 2}), F32({0}), F32({4})}, 1, opset,
        std::vector<std::optional<Tensor>>{kNone, kNone, Floats({1, 1, 2, 2})});
    Omit(*n, 1);
    SetStr(*n, attr, value);
    return n;
  };
  const char* ctm = "coordinate_transformation_mode";
  EXPECT_EQ(InferShape(*make(11, ctm, "tf_half_pixel_for_nn")), "[1,1,4,4]");
  EXPECT_TRUE(FailsWith(*make(13, ctm, "tf_half_pixel_for_nn"), "tf_half_pixel_for_nn"));
  EXPECT_TRUE(FailsWith(*make(18, ctm, "half_pixel_symmetric"), "half_pixel_symmetric"));
  EXPECT_EQ(InferShape(*make(19, ctm, "half_pixel_symmetric")), "[1,1,4,4]");
  EXPECT_TRUE(FailsWith(*make(13, "mode", "bilinear"), "'mode' is \"bilinear\""));
  EXPECT_TRUE(FailsWith(*make(13, "nearest_mode", "round"), "'nearest_mode' is \"round\""));
}

TEST(PadResizeInferenceTest, ResizeOpset10TakesScalesAsInputOne) {
  OneNode n("Resize", {F32({1, 3, 4, 4}), F32({4})}, 1, 10, {kNone, Floats({1, 1, 2, 2})});
  EXPECT_EQ(InferShape(n), "[1,3,8,8]");
  OneNode cubic("Resize", {F32({1, 3, 4, 4}), F32({4})}, 1, 10, {kNone, Floats({1, 1, 2, 2})});
  SetStr(cubic, "mode", "cubic");
  EXPECT_TRUE(FailsWith(cubic, "'mode' is \"cubic\""));
}

TEST(PadResizeInferenceTest, UpsampleTakesScalesByOpsetAndIsGoneAt10) {
  OneNode attr("Upsample", {F32({1, 3, 4, 4})}, 1, 7);
  attr.node->set_attr("scales", std::vector<float>{1, 1, 2, 3});
  EXPECT_EQ(InferShape(attr), "[1,3,8,12]");
  OneNode input("Upsample", {F32({1, 3, 4, 4}), F32({4})}, 1, 9, {kNone, Floats({1, 1, 2, 3})});
  EXPECT_EQ(InferShape(input), "[1,3,8,12]");
  OneNode shrink("Upsample", {F32({1, 3, 4, 4}), F32({4})}, 1, 9, {kNone, Floats({1, 1, 0.5f, 1})});
  EXPECT_TRUE(FailsWith(shrink, "scales must be >= 1"));
  OneNode gone("Upsample", {F32({1, 3, 4, 4}), F32({4})}, 1, 10, {kNone, Floats({1, 1, 2, 3})});
  EXPECT_TRUE(FailsWith(gone, "use Resize", code::kFeatureUnsupported));
}

// --- Declared attributes --------------------------------------------------------------------

TEST(TensorAttributesTest, DefaultsAreFilledInByOpset) {
  OneNode gather("Gather", {F32({3, 4}), I64({2})}, 1, 13);
  ASSERT_TRUE(gather.Infer().ok());
  EXPECT_EQ(gather.node->attr_int("axis"), 0);
  OneNode v10("Resize", {F32({1, 3, 4, 4}), F32({4})}, 1, 10, {kNone, Floats({1, 1, 2, 2})});
  ASSERT_TRUE(v10.Infer().ok());
  EXPECT_EQ(v10.node->attr_string("mode"), "nearest");
  EXPECT_FALSE(v10.node->has_attr("coordinate_transformation_mode"));  // opset 11 on
  OneNode v11("Resize", {F32({1, 3, 4, 4}), F32({0}), F32({4})}, 1, 11,
              {kNone, kNone, Floats({1, 1, 2, 2})});
  Omit(v11, 1);
  ASSERT_TRUE(v11.Infer().ok());
  EXPECT_EQ(v11.node->attr_string("coordinate_transformation_mode"), "half_pixel");
  EXPECT_FLOAT_EQ(v11.node->attr_float("cubic_coeff_a"), -0.75f);
  EXPECT_FALSE(v11.node->has_attr("keep_aspect_ratio_policy"));  // opset 18 on
  OneNode topk("TopK", {F32({3, 5}), I64({1})}, 2, 11, {kNone, Ints({2})});
  ASSERT_TRUE(topk.Infer().ok());
  EXPECT_EQ(topk.node->attr_int("axis"), -1);
  EXPECT_EQ(topk.node->attr_int("largest"), 1);
  // Attributes whose default depends on the input stay absent.
  OneNode t("Transpose", {F32({2, 3})}, 1, 13);
  ASSERT_TRUE(t.Infer().ok());
  EXPECT_FALSE(t.node->has_attr("perm"));
}

TEST(TensorAttributesTest, RequiredAttributesAndKindsAreChecked) {
  OneNode concat("Concat", {F32({2}), F32({3})}, 1, 13);
  EXPECT_TRUE(FailsWith(concat, "attribute 'axis' is required"));
  OneNode d2s("DepthToSpace", {F32({1, 4, 2, 2})}, 1, 13);
  EXPECT_TRUE(FailsWith(d2s, "attribute 'blocksize' is required"));
  OneNode topk("TopK", {F32({3, 5})}, 2, 1);
  EXPECT_TRUE(FailsWith(topk, "attribute 'k' is required"));
  OneNode pad("Pad", {F32({5})}, 1, 2);
  EXPECT_TRUE(FailsWith(pad, "attribute 'pads' is required"));
  OneNode kind("Gather", {F32({3, 4}), I64({2})}, 1, 13);
  SetStr(kind, "axis", "0");
  EXPECT_TRUE(FailsWith(kind, "attribute 'axis' is a string; Gather takes a int"));
}

// --- Registry -------------------------------------------------------------------------------

TEST(TensorRegistryTest, EveryTensorOpIsRegisteredInTheTensorFamily) {
  const std::vector<std::pair<const char*, int>> ops = {{"Reshape", 5},
                                                        {"Transpose", 1},
                                                        {"Concat", 4},
                                                        {"Split", 2},
                                                        {"Slice", 1},
                                                        {"Gather", 1},
                                                        {"GatherElements", 11},
                                                        {"GatherND", 11},
                                                        {"ScatterND", 11},
                                                        {"ScatterElements", 11},
                                                        {"Squeeze", 1},
                                                        {"Unsqueeze", 1},
                                                        {"Shape", 1},
                                                        {"Size", 1},
                                                        {"Expand", 8},
                                                        {"Tile", 6},
                                                        {"Pad", 2},
                                                        {"Resize", 10},
                                                        {"Upsample", 7},
                                                        {"ConstantOfShape", 9},
                                                        {"Constant", 1},
                                                        {"Range", 11},
                                                        {"DepthToSpace", 1},
                                                        {"SpaceToDepth", 1},
                                                        {"OneHot", 9},
                                                        {"NonZero", 9},
                                                        {"TopK", 1},
                                                        {"CumSum", 11},
                                                        {"CumProd", 26},
                                                        {"Compress", 9},
                                                        {"ReverseSequence", 10},
                                                        {"CenterCropPad", 18},
                                                        {"Trilu", 14},
                                                        {"EyeLike", 9},
                                                        {"ArgMax", 1},
                                                        {"ArgMin", 1},
                                                        {"NonMaxSuppression", 10}};
  for (const auto& [op, since] : ops) {
    const OpSchema* s = OpRegistry::Global().Find("", op);
    ASSERT_NE(s, nullptr) << op;
    EXPECT_EQ(s->family, "tensor") << op;
    EXPECT_EQ(s->since_version, since) << op;
  }
}

}  // namespace
}  // namespace kiln::ir
