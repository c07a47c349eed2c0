// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Reference kernels of the tensor family. Expected values are worked by hand from the ONNX
// operator spec (several are the spec's own examples).
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
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

using Attrs = std::map<std::string, ir::Attribute>;
using Outputs = Result<std::vector<HostTensor>>;

constexpr DataType kF32 = DataType::kFloat32;
constexpr DataType kI64 = DataType::kInt64;

ir::Attribute Int(int64_t v) { return v; }
ir::Attribute Ints(std::vector<int64_t> v) { return v; }
ir::Attribute Str(const char* v) { return std::string(v); }
ir::Attribute Flt(float v) { return v; }

// Runs the reference kernel as the executor does (testing::RunReference): Prepare, the op's
// shape function on the actual inputs, then the kernel on the bound outputs.
Outputs RunOp(const std::string& op, const std::vector<const HostTensor*>& ins,
              std::vector<DataType> outs, Attrs attrs = {}, int opset = 19) {
  NodeDef def = Def(op, ins, std::move(outs), opset);
  def.attrs = std::move(attrs);
  return RunReference(def, ins);
}

HostTensor I32(Dims dims, const std::vector<int32_t>& v) {
  return Make(DataType::kInt32, std::move(dims), v);
}
HostTensor U8(Dims dims, const std::vector<uint8_t>& v) {
  return Make(DataType::kUint8, std::move(dims), v);
}
HostTensor Bool(Dims dims, const std::vector<uint8_t>& v) {
  return Make(DataType::kBool, std::move(dims), v);
}
HostTensor F16(Dims dims, const std::vector<uint16_t>& v) {
  return Make(DataType::kFloat16, std::move(dims), v);
}

// Output `i` of a run that must succeed.
HostTensor Out(const Outputs& r, size_t i = 0) {
  if (!r.ok()) {
    ADD_FAILURE() << r.status().message();
  } else if (r->size() <= i) {
    ADD_FAILURE() << "no output " << i;
  } else {
    return (*r)[i];
  }
  return HostTensor(DataType::kFloat32, {0});
}

// A run that fails with `code` and a message naming the node.
::testing::AssertionResult FailsWith(const Outputs& r, int code) {
  if (r.ok()) return ::testing::AssertionFailure() << "the run succeeded";
  if (r.status().code() != code) {
    return ::testing::AssertionFailure() << r.status().code() << ": " << r.status().message();
  }
  if (r.status().message().find(" 'n'") == std::string::npos) {
    return ::testing::AssertionFailure() << "the node is not named: " << r.status().message();
  }
  return ::testing::AssertionSuccess();
}

constexpr int kBad = code::kInvalidParam;
constexpr int kUnsupported = code::kFeatureUnsupported;

// --- Reshaping ---------------------------------------------------------------------------

TEST(TensorKernelReshapeTest, CopiesZeroDimsAndInfersMinusOne) {
  HostTensor x = F32({2, 3, 2}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
  HostTensor s = I64({2}, {0, -1});
  HostTensor y = Out(RunOp("Reshape", {&x, &s}, {kF32}), 0);
  EXPECT_EQ(y.dims, (Dims{2, 6}));
  EXPECT_EQ(Values<float>(y), Values<float>(x));
}

TEST(TensorKernelReshapeTest, AllowZeroKeepsARealZero) {
  HostTensor x = F32({0, 3}, {});
  HostTensor s = I64({2}, {3, 0});
  HostTensor y = Out(RunOp("Reshape", {&x, &s}, {kF32}, {{"allowzero", Int(1)}}), 0);
  EXPECT_EQ(y.dims, (Dims{3, 0}));
}

TEST(TensorKernelReshapeTest, RejectsAnElementCountMismatch) {
  HostTensor x = F32({2, 3}, {0, 1, 2, 3, 4, 5});
  HostTensor s = I64({2}, {4, -1});
  EXPECT_TRUE(FailsWith(RunOp("Reshape", {&x, &s}, {kF32}), kBad));
  HostTensor two = I64({2}, {-1, -1});
  EXPECT_TRUE(FailsWith(RunOp("Reshape", {&x, &two}, {kF32}), kBad));
}

TEST(TensorKernelTransposeTest, PermutesAndDefaultsToReversal) {
  HostTensor x = Make(DataType::kInt8, {2, 3}, std::vector<int8_t>{1, 2, 3, 4, 5, 6});
  HostTensor y = Out(RunOp("Transpose", {&x}, {DataType::kInt8}), 0);
  EXPECT_EQ(y.dims, (Dims{3, 2}));
  EXPECT_EQ(Values<int8_t>(y), (std::vector<int8_t>{1, 4, 2, 5, 3, 6}));
  HostTensor z = F16({1, 2, 2}, {10, 11, 12, 13});
  HostTensor t =
      Out(RunOp("Transpose", {&z}, {DataType::kFloat16}, {{"perm", Ints({2, 0, 1})}}), 0);
  EXPECT_EQ(t.dims, (Dims{2, 1, 2}));
  EXPECT_EQ(Values<uint16_t>(t), (std::vector<uint16_t>{10, 12, 11, 13}));
}

TEST(TensorKernelTransposeTest, RejectsABadPerm) {
  HostTensor x = F32({2, 3}, {0, 1, 2, 3, 4, 5});
  EXPECT_TRUE(FailsWith(RunOp("Transpose", {&x}, {kF32}, {{"perm", Ints({0, 0})}}), kBad));
  EXPECT_TRUE(FailsWith(RunOp("Transpose", {&x}, {kF32}, {{"perm", Ints({0, 1, 2})}}), kBad));
}

TEST(TensorKernelSqueezeTest, TakesAxesFromTheAttributeOrTheInput) {
  HostTensor x = F32({1, 3, 1}, {1, 2, 3});
  HostTensor y = Out(RunOp("Squeeze", {&x}, {kF32}, {{"axes", Ints({-1})}}, 11), 0);
  EXPECT_EQ(y.dims, (Dims{1, 3}));
  HostTensor axes = I64({1}, {0});
  HostTensor z = Out(RunOp("Squeeze", {&x, &axes}, {kF32}), 0);
  EXPECT_EQ(z.dims, (Dims{3, 1}));
  HostTensor all = Out(RunOp("Squeeze", {&x}, {kF32}), 0);
  EXPECT_EQ(all.dims, (Dims{3}));
  EXPECT_EQ(Values<float>(all), (std::vector<float>{1, 2, 3}));
  HostTensor bad = I64({1}, {1});
  EXPECT_TRUE(FailsWith(RunOp("Squeeze", {&x, &bad}, {kF32}), kBad));
}

TEST(TensorKernelUnsqueezeTest, InsertsOnesAtTheOutputAxes) {
  HostTensor x = F32({3}, {1, 2, 3});
  HostTensor axes = I64({2}, {-1, 0});
  HostTensor y = Out(RunOp("Unsqueeze", {&x, &axes}, {kF32}), 0);
  EXPECT_EQ(y.dims, (Dims{1, 3, 1}));
  HostTensor z = Out(RunOp("Unsqueeze", {&x}, {kF32}, {{"axes", Ints({1})}}, 11), 0);
  EXPECT_EQ(z.dims, (Dims{3, 1}));
  HostTensor dup = I64({2}, {0, 0});
  EXPECT_TRUE(FailsWith(RunOp("Unsqueeze", {&x, &dup}, {kF32}), kBad));
}

TEST(TensorKernelExpandTest, BroadcastsBothWays) {
  HostTensor x = F32({3, 1}, {1, 2, 3});
  HostTensor s = I64({3}, {2, 1, 2});
  HostTensor y = Out(RunOp("Expand", {&x, &s}, {kF32}), 0);
  EXPECT_EQ(y.dims, (Dims{2, 3, 2}));
  EXPECT_EQ(Values<float>(y), (std::vector<float>{1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3}));
  HostTensor bad = I64({2}, {2, 1});  // 3 against 2
  EXPECT_TRUE(FailsWith(RunOp("Expand", {&x, &bad}, {kF32}), kBad));
}

TEST(TensorKernelTileTest, RepeatsEachAxis) {
  HostTensor x = Bool({2, 1}, {1, 0});
  HostTensor reps = I64({2}, {2, 3});
  HostTensor y = Out(RunOp("Tile", {&x, &reps}, {DataType::kBool}), 0);
  EXPECT_EQ(y.dims, (Dims{4, 3}));
  EXPECT_EQ(Values<uint8_t>(y), (std::vector<uint8_t>{1, 1, 1, 0, 0, 0, 1, 1, 1, 0, 0, 0}));
  HostTensor short_reps = I64({1}, {2});
  EXPECT_TRUE(FailsWith(RunOp("Tile", {&x, &short_reps}, {DataType::kBool}), kBad));
}

TEST(TensorKernelDepthToSpaceTest, DcrAndCrdOrderChannelsDifferently) {
  HostTensor x = F32({1, 8, 1, 1}, {0, 1, 2, 3, 4, 5, 6, 7});
  Attrs dcr = {{"blocksize", Int(2)}};
  HostTensor y = Out(RunOp("DepthToSpace", {&x}, {kF32}, dcr), 0);
  EXPECT_EQ(y.dims, (Dims{1, 2, 2, 2}));
  EXPECT_EQ(Values<float>(y), (std::vector<float>{0, 2, 4, 6, 1, 3, 5, 7}));
  Attrs crd = {{"blocksize", Int(2)}, {"mode", Str("CRD")}};
  HostTensor z = Out(RunOp("DepthToSpace", {&x}, {kF32}, crd), 0);
  EXPECT_EQ(Values<float>(z), (std::vector<float>{0, 1, 2, 3, 4, 5, 6, 7}));
  // SpaceToDepth undoes DCR.
  HostTensor back = Out(RunOp("SpaceToDepth", {&y}, {kF32}, dcr), 0);
  EXPECT_EQ(back.dims, x.dims);
  EXPECT_EQ(Values<float>(back), Values<float>(x));
  HostTensor odd = F32({1, 3, 1, 1}, {0, 1, 2});
  EXPECT_TRUE(FailsWith(RunOp("DepthToSpace", {&odd}, {kF32}, dcr), kBad));
  EXPECT_TRUE(FailsWith(RunOp("SpaceToDepth", {&odd}, {kF32}, dcr), kBad));
}

// --- Concat, Split, Slice ----------------------------------------------------------------

TEST(TensorKernelConcatTest, JoinsAlongANegativeAxis) {
  HostTensor a = F32({2, 1}, {1, 2});
  HostTensor b = F32({2, 2}, {3, 4, 5, 6});
  HostTensor y = Out(RunOp("Concat", {&a, &b}, {kF32}, {{"axis", Int(-1)}}), 0);
  EXPECT_EQ(y.dims, (Dims{2, 3}));
  EXPECT_EQ(Values<float>(y), (std::vector<float>{1, 3, 4, 2, 5, 6}));
  HostTensor c = F32({3, 1}, {1, 2, 3});
  EXPECT_TRUE(FailsWith(RunOp("Concat", {&a, &c}, {kF32}, {{"axis", Int(1)}}), kBad));
  EXPECT_TRUE(FailsWith(RunOp("Concat", {&a, &b}, {kF32}, {{"axis", Int(2)}}), kBad));
}

TEST(TensorKernelSplitTest, SplitsEquallyOrBySizes) {
  HostTensor x = F32({2, 4}, {0, 1, 2, 3, 4, 5, 6, 7});
  auto eq = RunOp("Split", {&x}, {kF32, kF32}, {{"axis", Int(1)}});
  EXPECT_EQ(Values<float>(Out(eq, 0)), (std::vector<float>{0, 1, 4, 5}));
  EXPECT_EQ(Values<float>(Out(eq, 1)), (std::vector<float>{2, 3, 6, 7}));
  HostTensor sizes = I64({2}, {1, 3});
  auto by = RunOp("Split", {&x, &sizes}, {kF32, kF32}, {{"axis", Int(1)}});
  EXPECT_EQ(Out(by, 1).dims, (Dims{2, 3}));
  EXPECT_EQ(Values<float>(Out(by, 1)), (std::vector<float>{1, 2, 3, 5, 6, 7}));
  auto attr = RunOp("Split", {&x}, {kF32, kF32}, {{"axis", Int(1)}, {"split", Ints({3, 1})}}, 11);
  EXPECT_EQ(Values<float>(Out(attr, 1)), (std::vector<float>{3, 7}));
}

TEST(TensorKernelSplitTest, AnOutputTheGraphLeavesOutIsSkipped) {
  // The outputs the graph uses are bound; the one it leaves out still takes its part of x.
  HostTensor x = F32({6}, {0, 1, 2, 3, 4, 5});
  HostTensor sizes = I64({3}, {1, 2, 3});
  auto by = RunOp("Split", {&x, &sizes}, {kF32, DataType::kUndefined, kF32});
  EXPECT_EQ(Values<float>(Out(by, 0)), (std::vector<float>{0}));
  EXPECT_EQ(Values<float>(Out(by, 2)), (std::vector<float>{3, 4, 5}));
  auto even = RunOp("Split", {&x}, {DataType::kUndefined, kF32, kF32});
  EXPECT_EQ(Values<float>(Out(even, 1)), (std::vector<float>{2, 3}));
  EXPECT_EQ(Values<float>(Out(even, 2)), (std::vector<float>{4, 5}));
}

TEST(TensorKernelSplitTest, NumOutputsLeavesASmallerLastChunk) {
  HostTensor x = F32({5}, {0, 1, 2, 3, 4});
  auto r = RunOp("Split", {&x}, {kF32, kF32, kF32}, {{"num_outputs", Int(3)}}, 18);
  EXPECT_EQ(Out(r, 0).dims, (Dims{2}));
  EXPECT_EQ(Values<float>(Out(r, 2)), (std::vector<float>{4}));
  EXPECT_TRUE(FailsWith(RunOp("Split", {&x}, {kF32, kF32}, {}, 13), kBad));
  HostTensor bad = I64({2}, {1, 2});
  EXPECT_TRUE(FailsWith(RunOp("Split", {&x, &bad}, {kF32, kF32}), kBad));
}

TEST(TensorKernelSliceTest, ClampsAndStepsBackwards) {
  HostTensor x = F32({10}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  HostTensor starts = I64({1}, {-1}), ends = I64({1}, {-1000}), axes = I64({1}, {0});
  HostTensor steps = I64({1}, {-3});
  HostTensor y = Out(RunOp("Slice", {&x, &starts, &ends, &axes, &steps}, {kF32}), 0);
  EXPECT_EQ(Values<float>(y), (std::vector<float>{9, 6, 3, 0}));
  HostTensor s2 = I64({1}, {7}), e2 = I64({1}, {1000});
  HostTensor z = Out(RunOp("Slice", {&x, &s2, &e2}, {kF32}), 0);
  EXPECT_EQ(Values<float>(z), (std::vector<float>{7, 8, 9}));
  HostTensor empty = Out(RunOp("Slice", {&x, &e2, &s2}, {kF32}), 0);
  EXPECT_EQ(empty.dims, (Dims{0}));
  HostTensor zero = I64({1}, {0});
  EXPECT_TRUE(FailsWith(RunOp("Slice", {&x, &starts, &ends, &axes, &zero}, {kF32}), kBad));
  HostTensor far = I64({1}, {1});
  EXPECT_TRUE(FailsWith(RunOp("Slice", {&x, &starts, &ends, &far}, {kF32}), kBad));
}

TEST(TensorKernelSliceTest, OpsetNineTakesAttributes) {
  HostTensor x = F32({2, 3}, {0, 1, 2, 3, 4, 5});
  Attrs a = {{"starts", Ints({1, 0})}, {"ends", Ints({2, -1})}};
  HostTensor y = Out(RunOp("Slice", {&x}, {kF32}, a, 9), 0);
  EXPECT_EQ(y.dims, (Dims{1, 2}));
  EXPECT_EQ(Values<float>(y), (std::vector<float>{3, 4}));
}

// --- Generators and shape queries ----------------------------------------------------------

TEST(TensorKernelShapeTest, ShapeHonoursStartAndEndAndSizeCounts) {
  HostTensor x = F32({2, 3, 4, 5}, std::vector<float>(120));
  HostTensor s = Out(RunOp("Shape", {&x}, {kI64}, {{"start", Int(1)}, {"end", Int(-1)}}), 0);
  EXPECT_EQ(Values<int64_t>(s), (std::vector<int64_t>{3, 4}));
  HostTensor all = Out(RunOp("Shape", {&x}, {kI64}, {{"start", Int(-9)}}, 13), 0);
  EXPECT_EQ(Values<int64_t>(all), (std::vector<int64_t>{2, 3, 4, 5}));
  HostTensor n = Out(RunOp("Size", {&x}, {kI64}), 0);
  EXPECT_EQ(n.dims, Dims{});
  EXPECT_EQ(Values<int64_t>(n), (std::vector<int64_t>{120}));
}

TEST(TensorKernelConstantTest, EmitsEveryValueForm) {
  std::vector<uint16_t> half = {0x3c00, 0xc000};
  Attrs t = {{"value", ir::Tensor::FromVector(DataType::kFloat16, {2}, half)}};
  HostTensor y = Out(RunOp("Constant", {}, {DataType::kFloat16}, t), 0);
  EXPECT_EQ(Values<uint16_t>(y), half);
  HostTensor ints = Out(RunOp("Constant", {}, {kI64}, {{"value_ints", Ints({4, -5})}}), 0);
  EXPECT_EQ(Values<int64_t>(ints), (std::vector<int64_t>{4, -5}));
  HostTensor f = Out(RunOp("Constant", {}, {kF32}, {{"value_float", Flt(2.5f)}}), 0);
  EXPECT_EQ(f.dims, Dims{});
  EXPECT_EQ(Values<float>(f), (std::vector<float>{2.5f}));
  HostTensor i = Out(RunOp("Constant", {}, {kI64}, {{"value_int", Int(-7)}}), 0);
  EXPECT_EQ(Values<int64_t>(i), (std::vector<int64_t>{-7}));
  EXPECT_TRUE(FailsWith(RunOp("Constant", {}, {kF32}, {{"value_string", Str("a")}}), kUnsupported));
  EXPECT_TRUE(FailsWith(RunOp("Constant", {}, {kF32}, {{"value_int", Int(1)}}), kBad));
}

TEST(TensorKernelConstantOfShapeTest, FillsWithTheValueOrZero) {
  HostTensor s = I64({2}, {2, 1});
  Attrs v = {{"value", ir::Tensor::FromVector(DataType::kInt32, {1}, std::vector<int32_t>{7})}};
  HostTensor y = Out(RunOp("ConstantOfShape", {&s}, {DataType::kInt32}, v), 0);
  EXPECT_EQ(y.dims, (Dims{2, 1}));
  EXPECT_EQ(Values<int32_t>(y), (std::vector<int32_t>{7, 7}));
  HostTensor none = I64({0}, {});
  HostTensor z = Out(RunOp("ConstantOfShape", {&none}, {kF32}), 0);
  EXPECT_EQ(z.dims, Dims{});
  EXPECT_EQ(Values<float>(z), (std::vector<float>{0}));
  HostTensor neg = I64({1}, {-1});
  EXPECT_TRUE(FailsWith(RunOp("ConstantOfShape", {&neg}, {kF32}), kBad));
}

TEST(TensorKernelRangeTest, CountsCeilOfSpanOverDelta) {
  HostTensor s = F32({}, {1}), l = F32({}, {2}), d = F32({}, {0.3f});
  HostTensor y = Out(RunOp("Range", {&s, &l, &d}, {kF32}), 0);
  ASSERT_EQ(y.dims, (Dims{4}));
  std::vector<float> v = Values<float>(y);
  EXPECT_FLOAT_EQ(v[3], 1.9f);
  HostTensor a = I32({}, {10}), b = I32({}, {4}), c = I32({}, {-2});
  HostTensor z = Out(RunOp("Range", {&a, &b, &c}, {DataType::kInt32}), 0);
  EXPECT_EQ(Values<int32_t>(z), (std::vector<int32_t>{10, 8, 6}));
  HostTensor up = Out(RunOp("Range", {&b, &a, &c}, {DataType::kInt32}), 0);
  EXPECT_EQ(up.dims, (Dims{0}));
  HostTensor zero = I32({}, {0});
  EXPECT_TRUE(FailsWith(RunOp("Range", {&a, &b, &zero}, {DataType::kInt32}), kBad));
}

TEST(TensorKernelEyeLikeTest, PutsOnesOnTheKthDiagonal) {
  HostTensor x = F32({3, 3}, std::vector<float>(9));
  HostTensor y = Out(RunOp("EyeLike", {&x}, {DataType::kInt32},
                           {{"k", Int(1)}, {"dtype", Int(static_cast<int64_t>(DataType::kInt32))}}),
                     0);
  EXPECT_EQ(Values<int32_t>(y), (std::vector<int32_t>{0, 1, 0, 0, 0, 1, 0, 0, 0}));
  HostTensor b = Out(RunOp("EyeLike", {&x}, {DataType::kBool},
                           {{"k", Int(-2)}, {"dtype", Int(static_cast<int64_t>(DataType::kBool))}}),
                     0);
  EXPECT_EQ(Values<uint8_t>(b), (std::vector<uint8_t>{0, 0, 0, 0, 0, 0, 1, 0, 0}));
  HostTensor v = F32({3}, {1, 2, 3});
  EXPECT_TRUE(FailsWith(RunOp("EyeLike", {&v}, {kF32}), kBad));
}

TEST(TensorKernelTriluTest, KeepsTheUpperOrLowerTriangle) {
  HostTensor x = I32({3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  HostTensor up = Out(RunOp("Trilu", {&x}, {DataType::kInt32}), 0);
  EXPECT_EQ(Values<int32_t>(up), (std::vector<int32_t>{1, 2, 3, 0, 5, 6, 0, 0, 9}));
  HostTensor k = I64({}, {-1});
  HostTensor low = Out(RunOp("Trilu", {&x, &k}, {DataType::kInt32}, {{"upper", Int(0)}}), 0);
  EXPECT_EQ(Values<int32_t>(low), (std::vector<int32_t>{0, 0, 0, 4, 0, 0, 7, 8, 0}));
}

TEST(TensorKernelCumulativeTest, CumSumAndCumProdHonourExclusiveAndReverse) {
  HostTensor x = F32({4}, {1, 2, 3, 4});
  HostTensor axis = I32({}, {0});
  HostTensor s =
      Out(RunOp("CumSum", {&x, &axis}, {kF32}, {{"exclusive", Int(1)}, {"reverse", Int(1)}}), 0);
  EXPECT_EQ(Values<float>(s), (std::vector<float>{9, 7, 4, 0}));
  HostTensor p = Out(RunOp("CumProd", {&x, &axis}, {kF32}, {}, 26), 0);
  EXPECT_EQ(Values<float>(p), (std::vector<float>{1, 2, 6, 24}));
  HostTensor pe = Out(RunOp("CumProd", {&x, &axis}, {kF32}, {{"exclusive", Int(1)}}, 26), 0);
  EXPECT_EQ(Values<float>(pe), (std::vector<float>{1, 1, 2, 6}));
  HostTensor m = I64({2, 2}, {1, 2, 3, 4});
  HostTensor last = I64({}, {-1});
  HostTensor r = Out(RunOp("CumSum", {&m, &last}, {kI64}), 0);
  EXPECT_EQ(Values<int64_t>(r), (std::vector<int64_t>{1, 3, 3, 7}));
  HostTensor far = I64({}, {2});
  EXPECT_TRUE(FailsWith(RunOp("CumSum", {&m, &far}, {kI64}), kBad));
}

// --- Compress, ReverseSequence -------------------------------------------------------------

TEST(TensorKernelCompressTest, SelectsSlicesOrFlatElements) {
  HostTensor x = F32({3, 2}, {1, 2, 3, 4, 5, 6});
  HostTensor c = Bool({3}, {0, 1, 1});
  HostTensor y = Out(RunOp("Compress", {&x, &c}, {kF32}, {{"axis", Int(0)}}), 0);
  EXPECT_EQ(y.dims, (Dims{2, 2}));
  EXPECT_EQ(Values<float>(y), (std::vector<float>{3, 4, 5, 6}));
  HostTensor flat_c = Bool({5}, {0, 1, 0, 0, 1});
  HostTensor flat = Out(RunOp("Compress", {&x, &flat_c}, {kF32}), 0);
  EXPECT_EQ(Values<float>(flat), (std::vector<float>{2, 5}));
  EXPECT_TRUE(FailsWith(RunOp("Compress", {&x, &flat_c}, {kF32}, {{"axis", Int(-1)}}), kBad));
}

TEST(TensorKernelReverseSequenceTest, ReversesEachBatchPrefix) {
  // The spec's time_axis = 0, batch_axis = 1 example.
  HostTensor x = F32({4, 4}, {0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15});
  HostTensor lens = I64({4}, {4, 3, 2, 1});
  HostTensor y = Out(RunOp("ReverseSequence", {&x, &lens}, {kF32}), 0);
  EXPECT_EQ(Values<float>(y),
            (std::vector<float>{3, 6, 9, 12, 2, 5, 8, 13, 1, 4, 10, 14, 0, 7, 11, 15}));
  HostTensor long_lens = I64({4}, {5, 1, 1, 1});
  EXPECT_TRUE(FailsWith(RunOp("ReverseSequence", {&x, &long_lens}, {kF32}), kBad));
  Attrs same = {{"batch_axis", Int(0)}, {"time_axis", Int(0)}};
  EXPECT_TRUE(FailsWith(RunOp("ReverseSequence", {&x, &lens}, {kF32}, same), kBad));
}

// --- Indexing ------------------------------------------------------------------------------

TEST(TensorKernelGatherTest, TakesNegativeIndicesAndRejectsOutOfRange) {
  HostTensor x = F32({2, 3}, {1, 2, 3, 4, 5, 6});
  HostTensor idx = I64({2}, {-1, 0});
  HostTensor y = Out(RunOp("Gather", {&x, &idx}, {kF32}, {{"axis", Int(1)}}), 0);
  EXPECT_EQ(y.dims, (Dims{2, 2}));
  EXPECT_EQ(Values<float>(y), (std::vector<float>{3, 1, 6, 4}));
  HostTensor scalar = I32({}, {1});
  HostTensor row = Out(RunOp("Gather", {&x, &scalar}, {kF32}), 0);
  EXPECT_EQ(row.dims, (Dims{3}));
  EXPECT_EQ(Values<float>(row), (std::vector<float>{4, 5, 6}));
  HostTensor far = I64({1}, {3});
  EXPECT_TRUE(FailsWith(RunOp("Gather", {&x, &far}, {kF32}, {{"axis", Int(1)}}), kBad));
  HostTensor low = I64({1}, {-3});
  EXPECT_TRUE(FailsWith(RunOp("Gather", {&x, &low}, {kF32}), kBad));
}

TEST(TensorKernelGatherElementsTest, IndexesAlongTheAxis) {
  HostTensor x = I32({2, 2}, {1, 2, 3, 4});
  HostTensor idx = I64({2, 2}, {0, 0, 1, -2});
  HostTensor y =
      Out(RunOp("GatherElements", {&x, &idx}, {DataType::kInt32}, {{"axis", Int(1)}}), 0);
  EXPECT_EQ(Values<int32_t>(y), (std::vector<int32_t>{1, 1, 4, 3}));
  HostTensor far = I64({2, 2}, {0, 2, 0, 0});
  EXPECT_TRUE(
      FailsWith(RunOp("GatherElements", {&x, &far}, {DataType::kInt32}, {{"axis", Int(1)}}), kBad));
  HostTensor wide = I64({2, 3}, {0, 0, 0, 0, 0, 0});
  EXPECT_TRUE(FailsWith(RunOp("GatherElements", {&x, &wide}, {DataType::kInt32}), kBad));
}

TEST(TensorKernelGatherNdTest, HonoursBatchDims) {
  HostTensor x = F32({2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7});
  HostTensor idx = I64({2, 1}, {1, 0});
  HostTensor y = Out(RunOp("GatherND", {&x, &idx}, {kF32}, {{"batch_dims", Int(1)}}), 0);
  EXPECT_EQ(y.dims, (Dims{2, 2}));
  EXPECT_EQ(Values<float>(y), (std::vector<float>{2, 3, 4, 5}));
  HostTensor full = I64({2, 3}, {0, 1, 1, 1, 0, -2});
  HostTensor z = Out(RunOp("GatherND", {&x, &full}, {kF32}), 0);
  EXPECT_EQ(Values<float>(z), (std::vector<float>{3, 4}));
  HostTensor far = I64({1, 2}, {2, 0});
  EXPECT_TRUE(FailsWith(RunOp("GatherND", {&x, &far}, {kF32}), kBad));
  HostTensor deep = I64({1, 4}, {0, 0, 0, 0});
  EXPECT_TRUE(FailsWith(RunOp("GatherND", {&x, &deep}, {kF32}), kBad));
}

TEST(TensorKernelScatterNdTest, WritesAndReducesUpdates) {
  HostTensor x = F32({8}, {1, 2, 3, 4, 5, 6, 7, 8});
  HostTensor idx = I64({4, 1}, {4, 3, 1, 7});
  HostTensor upd = F32({4}, {9, 10, 11, 12});
  HostTensor y = Out(RunOp("ScatterND", {&x, &idx, &upd}, {kF32}), 0);
  EXPECT_EQ(Values<float>(y), (std::vector<float>{1, 11, 3, 10, 9, 6, 7, 12}));
  HostTensor dup = I64({2, 1}, {0, 0});
  HostTensor two = F32({2}, {5, -2});
  auto add = RunOp("ScatterND", {&x, &dup, &two}, {kF32}, {{"reduction", Str("add")}});
  EXPECT_EQ(Values<float>(Out(add, 0))[0], 4);
  auto mul = RunOp("ScatterND", {&x, &dup, &two}, {kF32}, {{"reduction", Str("mul")}});
  EXPECT_EQ(Values<float>(Out(mul, 0))[0], -10);
  auto max = RunOp("ScatterND", {&x, &dup, &two}, {kF32}, {{"reduction", Str("max")}});
  EXPECT_EQ(Values<float>(Out(max, 0))[0], 5);
  auto min = RunOp("ScatterND", {&x, &dup, &two}, {kF32}, {{"reduction", Str("min")}});
  EXPECT_EQ(Values<float>(Out(min, 0))[0], -2);
  EXPECT_TRUE(FailsWith(
      RunOp("ScatterND", {&x, &dup, &two}, {kF32}, {{"reduction", Str("max")}}, 16), kBad));
  HostTensor far = I64({2, 1}, {8, 0});
  EXPECT_TRUE(FailsWith(RunOp("ScatterND", {&x, &far, &two}, {kF32}), kBad));
  HostTensor three = F32({3}, {1, 2, 3});
  EXPECT_TRUE(FailsWith(RunOp("ScatterND", {&x, &dup, &three}, {kF32}), kBad));
}

TEST(TensorKernelScatterElementsTest, ScattersAlongTheAxis) {
  // The spec's example.
  HostTensor x = F32({3, 3}, std::vector<float>(9, 0));
  HostTensor idx = I64({2, 3}, {1, 0, 2, 0, 2, 1});
  HostTensor upd = F32({2, 3}, {1.0f, 1.1f, 1.2f, 2.0f, 2.1f, 2.2f});
  HostTensor y = Out(RunOp("ScatterElements", {&x, &idx, &upd}, {kF32}), 0);
  EXPECT_EQ(Values<float>(y), (std::vector<float>{2.0f, 1.1f, 0, 1.0f, 0, 2.2f, 0, 2.1f, 1.2f}));
  HostTensor ones = I64({1, 2}, {1, 2});
  HostTensor row = I64({1, 2}, {-1, 0});
  HostTensor u = I64({1, 2}, {5, 6});
  auto mul = RunOp("ScatterElements", {&ones, &row, &u}, {kI64},
                   {{"axis", Int(1)}, {"reduction", Str("mul")}});
  EXPECT_EQ(Values<int64_t>(Out(mul, 0)), (std::vector<int64_t>{6, 10}));
  HostTensor far = I64({1, 2}, {2, 0});
  EXPECT_TRUE(
      FailsWith(RunOp("ScatterElements", {&ones, &far, &u}, {kI64}, {{"axis", Int(1)}}), kBad));
}

TEST(TensorKernelOneHotTest, LeavesOutOfRangeIndicesOff) {
  HostTensor idx = I64({3}, {0, -1, 5});
  HostTensor depth = F32({}, {3});
  HostTensor values = I32({2}, {2, 9});
  HostTensor y = Out(RunOp("OneHot", {&idx, &depth, &values}, {DataType::kInt32}), 0);
  EXPECT_EQ(y.dims, (Dims{3, 3}));
  EXPECT_EQ(Values<int32_t>(y), (std::vector<int32_t>{9, 2, 2, 2, 2, 9, 2, 2, 2}));
  HostTensor z =
      Out(RunOp("OneHot", {&idx, &depth, &values}, {DataType::kInt32}, {{"axis", Int(0)}}), 0);
  EXPECT_EQ(Values<int32_t>(z), (std::vector<int32_t>{9, 2, 2, 2, 2, 2, 2, 9, 2}));
  HostTensor one = I32({1}, {1});
  EXPECT_TRUE(FailsWith(RunOp("OneHot", {&idx, &depth, &one}, {DataType::kInt32}), kBad));
}

TEST(TensorKernelNonZeroTest, ListsCoordinatesInRowMajorOrder) {
  HostTensor x = F16({2, 2}, {0x3c00, 0x8000, 0x3c00, 0x4000});  // 1, -0, 1, 2
  HostTensor y = Out(RunOp("NonZero", {&x}, {kI64}), 0);
  EXPECT_EQ(y.dims, (Dims{2, 3}));
  EXPECT_EQ(Values<int64_t>(y), (std::vector<int64_t>{0, 1, 1, 0, 0, 1}));
  HostTensor s = Bool({}, {1});
  HostTensor z = Out(RunOp("NonZero", {&s}, {kI64}), 0);
  EXPECT_EQ(z.dims, (Dims{1, 1}));
}

TEST(TensorKernelTopKTest, BreaksTiesByLowerIndex) {
  HostTensor x = F32({4}, {3, 1, 3, 2});
  HostTensor k = I64({1}, {2});
  auto big = RunOp("TopK", {&x, &k}, {kF32, kI64});
  EXPECT_EQ(Values<float>(Out(big, 0)), (std::vector<float>{3, 3}));
  EXPECT_EQ(Values<int64_t>(Out(big, 1)), (std::vector<int64_t>{0, 2}));
  auto small = RunOp("TopK", {&x, &k}, {kF32, kI64}, {{"largest", Int(0)}});
  EXPECT_EQ(Values<float>(Out(small, 0)), (std::vector<float>{1, 2}));
  EXPECT_EQ(Values<int64_t>(Out(small, 1)), (std::vector<int64_t>{1, 3}));
  HostTensor m = I32({2, 2}, {1, 4, 3, 2});
  auto col = RunOp("TopK", {&m}, {DataType::kInt32, kI64}, {{"k", Int(1)}, {"axis", Int(0)}}, 1);
  EXPECT_EQ(Values<int32_t>(Out(col, 0)), (std::vector<int32_t>{3, 4}));
  EXPECT_EQ(Values<int64_t>(Out(col, 1)), (std::vector<int64_t>{1, 0}));
  HostTensor five = I64({1}, {5});
  EXPECT_TRUE(FailsWith(RunOp("TopK", {&x, &five}, {kF32, kI64}), kBad));
}

TEST(TensorKernelNonMaxSuppressionTest, SuppressesOverlapsPerClass) {
  // Boxes [y1, x1, y2, x2]: 0 and 1 overlap with IoU 0.81 / 1.19 > 0.5; 2 is apart.
  HostTensor boxes = F32({1, 3, 4}, {0, 0, 1, 1, 0, 0.1f, 1, 1.1f, 0, 5, 1, 6});
  HostTensor scores = F32({1, 2, 3}, {0.9f, 0.95f, 0.3f, 0.1f, 0.2f, 0.8f});
  HostTensor max = I64({1}, {3}), iou = F32({1}, {0.5f}), min_score = F32({1}, {0.25f});
  HostTensor y =
      Out(RunOp("NonMaxSuppression", {&boxes, &scores, &max, &iou, &min_score}, {kI64}), 0);
  EXPECT_EQ(y.dims, (Dims{3, 3}));
  EXPECT_EQ(Values<int64_t>(y), (std::vector<int64_t>{0, 0, 1, 0, 0, 2, 0, 1, 2}));
  // Centre format: the same boxes as [x_c, y_c, w, h]; at most one box per class.
  HostTensor centre = F32({1, 3, 4}, {0.5f, 0.5f, 1, 1, 0.6f, 0.5f, 1, 1, 5.5f, 0.5f, 1, 1});
  HostTensor one = I64({1}, {1});
  HostTensor z = Out(RunOp("NonMaxSuppression", {&centre, &scores, &one, &iou}, {kI64},
                           {{"center_point_box", Int(1)}}),
                     0);
  EXPECT_EQ(Values<int64_t>(z), (std::vector<int64_t>{0, 0, 1, 0, 1, 2}));
  HostTensor none = Out(RunOp("NonMaxSuppression", {&boxes, &scores}, {kI64}), 0);
  EXPECT_EQ(none.dims, (Dims{0, 3}));
  HostTensor bad = F32({1, 3, 3}, std::vector<float>(9));
  EXPECT_TRUE(FailsWith(RunOp("NonMaxSuppression", {&bad, &scores}, {kI64}), kBad));
}

// --- Pad, CenterCropPad --------------------------------------------------------------------

TEST(TensorKernelPadTest, EveryModePadsAOneDTensor) {
  HostTensor x = F32({3}, {1, 2, 3});
  HostTensor pads = I64({2}, {2, 2});
  auto run = [&](const char* mode) {
    return Values<float>(Out(RunOp("Pad", {&x, &pads}, {kF32}, {{"mode", Str(mode)}}), 0));
  };
  EXPECT_EQ(run("constant"), (std::vector<float>{0, 0, 1, 2, 3, 0, 0}));
  EXPECT_EQ(run("reflect"), (std::vector<float>{3, 2, 1, 2, 3, 2, 1}));
  EXPECT_EQ(run("edge"), (std::vector<float>{1, 1, 1, 2, 3, 3, 3}));
  EXPECT_EQ(run("wrap"), (std::vector<float>{2, 3, 1, 2, 3, 1, 2}));
  HostTensor big = I64({2}, {5, 0});
  HostTensor r = Out(RunOp("Pad", {&x, &big}, {kF32}, {{"mode", Str("reflect")}}), 0);
  EXPECT_EQ(Values<float>(r), (std::vector<float>{2, 1, 2, 3, 2, 1, 2, 3}));
  EXPECT_TRUE(FailsWith(RunOp("Pad", {&x, &pads}, {kF32}, {{"mode", Str("wrap")}}, 18), kBad));
}

TEST(TensorKernelPadTest, NegativePadsCropAndTheValueMayBeGiven) {
  HostTensor x = F16({3}, {0x3c00, 0x4000, 0x4200});  // 1, 2, 3
  HostTensor pads = I64({2}, {-1, 1});
  HostTensor value = F16({}, {0x4400});  // 4
  HostTensor y = Out(RunOp("Pad", {&x, &pads, &value}, {DataType::kFloat16}), 0);
  EXPECT_EQ(Values<uint16_t>(y), (std::vector<uint16_t>{0x4000, 0x4200, 0x4400}));
  HostTensor too_much = I64({2}, {-2, -2});
  EXPECT_TRUE(FailsWith(RunOp("Pad", {&x, &too_much}, {DataType::kFloat16}), kBad));
  HostTensor odd = I64({3}, {1, 1, 1});
  EXPECT_TRUE(FailsWith(RunOp("Pad", {&x, &odd}, {DataType::kFloat16}), kBad));
}

TEST(TensorKernelPadTest, CroppingAnAxisAwayLeavesNothingToReflectWrapOrRepeat) {
  // pads (2, -3) on an axis of 3: the crop keeps nothing, yet 2 elements come before it.
  HostTensor x = F32({3}, {1, 2, 3});
  HostTensor pads = I64({2}, {2, -3});
  for (const char* mode : {"reflect", "edge", "wrap"}) {
    EXPECT_TRUE(FailsWith(RunOp("Pad", {&x, &pads}, {kF32}, {{"mode", Str(mode)}}, 19), kBad))
        << mode;
  }
  HostTensor y = Out(RunOp("Pad", {&x, &pads}, {kF32}), 0);  // constant: two fill values
  EXPECT_EQ(Values<float>(y), (std::vector<float>{0, 0}));
}

TEST(TensorKernelPadTest, AxesInputAndOpsetTwoAttributes) {
  HostTensor x = U8({2, 2}, {1, 2, 3, 4});
  HostTensor pads = I64({2}, {1, 0}), axes = I64({1}, {-1});
  HostTensor y = Out(
      RunOp("Pad", {&x, &pads, nullptr, &axes}, {DataType::kUint8}, {{"mode", Str("edge")}}), 0);
  EXPECT_EQ(y.dims, (Dims{2, 3}));
  EXPECT_EQ(Values<uint8_t>(y), (std::vector<uint8_t>{1, 1, 2, 3, 3, 4}));
  Attrs v2 = {{"pads", Ints({0, 0, 1, 0})}, {"value", Flt(7)}};
  HostTensor z = Out(RunOp("Pad", {&x}, {DataType::kUint8}, v2, 2), 0);
  EXPECT_EQ(Values<uint8_t>(z), (std::vector<uint8_t>{1, 2, 3, 4, 7, 7}));
}

TEST(TensorKernelCenterCropPadTest, CropsAndPadsAroundTheCentre) {
  HostTensor x = F32({5}, {1, 2, 3, 4, 5});
  HostTensor two = I64({1}, {2}), seven = I64({1}, {7});
  EXPECT_EQ(Values<float>(Out(RunOp("CenterCropPad", {&x, &two}, {kF32}), 0)),
            (std::vector<float>{2, 3}));
  EXPECT_EQ(Values<float>(Out(RunOp("CenterCropPad", {&x, &seven}, {kF32}), 0)),
            (std::vector<float>{0, 1, 2, 3, 4, 5, 0}));
  HostTensor m = I32({2, 3}, {1, 2, 3, 4, 5, 6});
  HostTensor shape = I64({1}, {4});
  HostTensor y =
      Out(RunOp("CenterCropPad", {&m, &shape}, {DataType::kInt32}, {{"axes", Ints({-1})}}), 0);
  EXPECT_EQ(Values<int32_t>(y), (std::vector<int32_t>{1, 2, 3, 0, 4, 5, 6, 0}));
  EXPECT_TRUE(FailsWith(RunOp("CenterCropPad", {&m, &shape}, {DataType::kInt32}), kBad));
}

// --- Resize, Upsample ----------------------------------------------------------------------

Outputs Resize(const HostTensor& x, const std::vector<float>& scales, Attrs attrs, int opset = 19) {
  HostTensor s = F32({static_cast<int64_t>(scales.size())}, scales);
  return RunOp("Resize", {&x, nullptr, &s}, {x.dtype}, std::move(attrs), opset);
}
Outputs ResizeTo(const HostTensor& x, const std::vector<int64_t>& sizes, Attrs attrs,
                 const HostTensor* roi = nullptr) {
  HostTensor s = I64({static_cast<int64_t>(sizes.size())}, sizes);
  return RunOp("Resize", {&x, roi, nullptr, &s}, {x.dtype}, std::move(attrs));
}

TEST(TensorKernelResizeTest, NearestModesRoundDifferently) {
  HostTensor x = F32({2}, {1, 2});
  EXPECT_EQ(Values<float>(Out(Resize(x, {2}, {}), 0)), (std::vector<float>{1, 1, 2, 2}));
  HostTensor y = F32({4}, {1, 2, 3, 4});
  // asymmetric x = y / 0.75: 0, 1.33, 2.67 at size 3 (scale 0.75).
  Attrs floor = {{"coordinate_transformation_mode", Str("asymmetric")},
                 {"nearest_mode", Str("floor")}};
  EXPECT_EQ(Values<float>(Out(Resize(y, {0.75f}, floor), 0)), (std::vector<float>{1, 2, 3}));
  Attrs ceil = {{"coordinate_transformation_mode", Str("asymmetric")},
                {"nearest_mode", Str("ceil")}};
  EXPECT_EQ(Values<float>(Out(Resize(y, {0.75f}, ceil), 0)), (std::vector<float>{1, 3, 4}));
  // align_corners from 2 to 3 elements reads x = 0, 0.5, 1: the tie goes by nearest_mode.
  HostTensor two = F32({2}, {1, 2});
  Attrs ac = {{"coordinate_transformation_mode", Str("align_corners")},
              {"nearest_mode", Str("round_prefer_ceil")}};
  EXPECT_EQ(Values<float>(Out(ResizeTo(two, {3}, ac), 0)), (std::vector<float>{1, 2, 2}));
  ac["nearest_mode"] = Str("round_prefer_floor");
  EXPECT_EQ(Values<float>(Out(ResizeTo(two, {3}, ac), 0)), (std::vector<float>{1, 1, 2}));
}

TEST(TensorKernelResizeTest, LinearClampsAtTheEdgesAndRoundsIntegers) {
  HostTensor x = F32({2}, {0, 10});
  Attrs lin = {{"mode", Str("linear")}};
  EXPECT_EQ(Values<float>(Out(Resize(x, {2}, lin), 0)), (std::vector<float>{0, 2.5f, 7.5f, 10}));
  Attrs ac = {{"mode", Str("linear")}, {"coordinate_transformation_mode", Str("align_corners")}};
  HostTensor three = F32({3}, {1, 3, 5});
  EXPECT_EQ(Values<float>(Out(ResizeTo(three, {5}, ac), 0)), (std::vector<float>{1, 2, 3, 4, 5}));
  // Integers round half to even: 0.5 -> 0, 1.5 -> 2.
  HostTensor i = Make(DataType::kInt8, {2, 2}, std::vector<int8_t>{0, 1, 1, 2});
  HostTensor y = Out(ResizeTo(i, {2, 3}, ac), 0);
  EXPECT_EQ(Values<int8_t>(y), (std::vector<int8_t>{0, 0, 1, 1, 2, 2}));
}

TEST(TensorKernelResizeTest, CubicWeightsAndExcludeOutside) {
  // Keys cubic with A = -0.75 at ratio 0.5: weights -0.09375, 0.59375, 0.59375, -0.09375.
  HostTensor x = F32({5}, {0, 0, 8, 0, 0});
  Attrs cubic = {{"mode", Str("cubic")}, {"coordinate_transformation_mode", Str("asymmetric")}};
  std::vector<float> y = Values<float>(Out(Resize(x, {2}, cubic), 0));
  ASSERT_EQ(y.size(), 10u);
  EXPECT_FLOAT_EQ(y[1], -0.75f);  // x = 0.5: taps -1..2
  EXPECT_FLOAT_EQ(y[3], 4.75f);   // x = 1.5
  EXPECT_FLOAT_EQ(y[4], 8);       // x = 2
  cubic["exclude_outside"] = Int(1);
  std::vector<float> e = Values<float>(Out(Resize(x, {2}, cubic), 0));
  EXPECT_NEAR(e[1], -0.75 / 1.09375, 1e-6);  // tap -1 dropped, weights renormalised
  EXPECT_FLOAT_EQ(e[3], 4.75f);
}

TEST(TensorKernelResizeTest, TfCropAndResizeExtrapolates) {
  HostTensor x = F32({5}, {1, 2, 3, 4, 5});
  HostTensor roi = F32({2}, {0.5f, 1.5f});
  Attrs a = {{"mode", Str("linear")},
             {"coordinate_transformation_mode", Str("tf_crop_and_resize")},
             {"extrapolation_value", Flt(9)}};
  // x = 2 + y * 4 * 1 / 2: 2, 4, 6 (outside).
  EXPECT_EQ(Values<float>(Out(ResizeTo(x, {3}, a, &roi), 0)), (std::vector<float>{3, 5, 9}));
  a["mode"] = Str("nearest");
  EXPECT_EQ(Values<float>(Out(ResizeTo(x, {3}, a, &roi), 0)), (std::vector<float>{3, 5, 9}));
  EXPECT_TRUE(FailsWith(ResizeTo(x, {3}, a), kBad));  // no roi
}

TEST(TensorKernelResizeTest, AxesAndKeepAspectRatio) {
  HostTensor x = F32({2, 4}, {1, 2, 3, 4, 5, 6, 7, 8});
  Attrs a = {{"axes", Ints({1})}};
  HostTensor y = Out(ResizeTo(x, {2}, a), 0);
  EXPECT_EQ(y.dims, (Dims{2, 2}));
  EXPECT_EQ(Values<float>(y), (std::vector<float>{1, 3, 5, 7}));  // x = 0.5, 2.5 round down
  Attrs keep = {{"keep_aspect_ratio_policy", Str("not_larger")}};
  EXPECT_EQ(Out(ResizeTo(x, {1, 3}, keep), 0).dims, (Dims{1, 2}));
  keep["keep_aspect_ratio_policy"] = Str("not_smaller");
  EXPECT_EQ(Out(ResizeTo(x, {1, 3}, keep), 0).dims, (Dims{2, 3}));
}

TEST(TensorKernelResizeTest, NearestMovesAnyTypeAndChecksItsInputs) {
  HostTensor b = Bool({2}, {1, 0});
  // half_pixel reads x = -0.17, 0.5 (a tie, rounded down), 1.17.
  EXPECT_EQ(Values<uint8_t>(Out(Resize(b, {1.5f}, {}), 0)), (std::vector<uint8_t>{1, 1, 0}));
  HostTensor x = F32({2}, {1, 2});
  HostTensor s = F32({1}, {2}), sizes = I64({1}, {4});
  EXPECT_TRUE(FailsWith(RunOp("Resize", {&x, nullptr, &s, &sizes}, {kF32}), kBad));
  EXPECT_TRUE(FailsWith(Resize(x, {2, 2}, {}), kBad));
  EXPECT_TRUE(FailsWith(Resize(x, {2}, {{"mode", Str("area")}}), kBad));
  EXPECT_TRUE(FailsWith(Resize(b, {2}, {{"mode", Str("linear")}}), kUnsupported));
}

TEST(TensorKernelResizeTest, OpsetTenAndUpsampleUseAsymmetricCoordinates) {
  // Opset 10 nearest rounds down, up when downscaling: 1 / 0.6 = 1.67 -> 2, 3.33 -> 4.
  HostTensor x = F32({5}, {1, 2, 3, 4, 5});
  HostTensor s = F32({1}, {0.6f});
  HostTensor y = Out(RunOp("Resize", {&x, &s}, {kF32}, {}, 10), 0);
  EXPECT_EQ(Values<float>(y), (std::vector<float>{1, 3, 5}));
  HostTensor two = F32({2}, {0, 10});
  HostTensor up = F32({1}, {2});
  EXPECT_EQ(Values<float>(Out(RunOp("Upsample", {&two, &up}, {kF32}, {}, 9), 0)),
            (std::vector<float>{0, 0, 10, 10}));
  Attrs lin = {{"mode", Str("linear")}};
  EXPECT_EQ(Values<float>(Out(RunOp("Upsample", {&two, &up}, {kF32}, lin, 9), 0)),
            (std::vector<float>{0, 5, 10, 10}));
  Attrs v7 = {{"scales", std::vector<float>{1, 3}}};
  HostTensor m = I32({1, 2}, {4, 5});
  HostTensor z = Out(RunOp("Upsample", {&m}, {DataType::kInt32}, v7, 7), 0);
  EXPECT_EQ(Values<int32_t>(z), (std::vector<int32_t>{4, 4, 4, 5, 5, 5}));
  HostTensor down = F32({1}, {0.5f});
  EXPECT_TRUE(FailsWith(RunOp("Upsample", {&two, &down}, {kF32}, {}, 9), kBad));
  EXPECT_TRUE(FailsWith(RunOp("Upsample", {&two, &up}, {kF32}, {}, 10), kUnsupported));
}

TEST(TensorKernelTest, StringTensorsAreUnsupported) {
  HostTensor x(DataType::kString, {1});
  HostTensor shape = I64({1}, {1});
  NodeDef def = Def("Reshape", {&x, &shape}, {DataType::kString});
  auto k = KernelRegistry::Global().Create(kReferenceBackend, def);
  ASSERT_FALSE(k.ok());
  EXPECT_EQ(k.status().code(), kUnsupported);
}

}  // namespace
}  // namespace kiln::kernels
