// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Reference kernels of the nn family (normalisations, softmax family, losses, matrix products,
// Flatten, recurrent ops). Expected values are worked by hand (the arithmetic is in the
// comments) or taken from the ONNX operator docs and node tests.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "base/fp16.h"
#include "kernel_test_util.h"

namespace kiln::kernels {
namespace {

using testing::Def;
using testing::F32;
using testing::I64;
using testing::Make;
using testing::RunReference;
using testing::Values;

using Inputs = std::vector<const HostTensor*>;
using Floats = std::vector<float>;

HostTensor F16(Dims dims, const Floats& v) {
  std::vector<uint16_t> h;
  for (float f : v) h.push_back(FloatToHalf(f));
  return Make(DataType::kFloat16, std::move(dims), h);
}
Floats HalfValues(const HostTensor& t) {
  Floats f;
  for (uint16_t h : Values<uint16_t>(t)) f.push_back(HalfToFloat(h));
  return f;
}
HostTensor I32(Dims dims, const std::vector<int32_t>& v) {
  return Make(DataType::kInt32, std::move(dims), v);
}

// Runs `def` on `inputs`; the outputs, or empty tensors after failing the test.
std::vector<HostTensor> RunOk(const NodeDef& def, const Inputs& inputs) {
  auto out = RunReference(def, inputs);
  EXPECT_TRUE(out.ok()) << out.status().message();
  return out.ok() ? *out : std::vector<HostTensor>(def.output_types.size());
}

// The error code of running `def` (0 when it succeeds).
int ErrorOf(const NodeDef& def, const Inputs& inputs) {
  auto out = RunReference(def, inputs);
  return out.ok() ? 0 : out.status().code();
}

void ExpectNear(const Floats& got, const Floats& want, float tol = 1e-5f) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << "element " << i;
}
void ExpectF32(const HostTensor& t, const Dims& dims, const Floats& want, float tol = 1e-5f) {
  EXPECT_EQ(t.dtype, DataType::kFloat32);
  EXPECT_EQ(t.dims, dims);
  ExpectNear(Values<float>(t), want, tol);
}

constexpr DataType kF32 = DataType::kFloat32;

// ---------------------------------------------------------------------------------------------
// Normalisations.

TEST(NnKernelNormTest, BatchNormalizationUsesTheRunningStatistics) {
  HostTensor x = F32({1, 2, 1, 2}, {1, 2, 3, 4});
  HostTensor scale = F32({2}, {1, 2}), bias = F32({2}, {0, 1});
  HostTensor mean = F32({2}, {1, 3}), var = F32({2}, {4, 1});
  Inputs in{&x, &scale, &bias, &mean, &var};
  NodeDef def = Def("BatchNormalization", in, {kF32}, 15);
  def.attrs["epsilon"] = 0.0f;
  // Channel 0: (x - 1) / 2 * 1 + 0; channel 1: (x - 3) / 1 * 2 + 1.
  ExpectF32(RunOk(def, in)[0], {1, 2, 1, 2}, {0, 0.5f, 1, 3});
}

TEST(NnKernelNormTest, BatchNormalizationParametersMayHaveTheirOwnType) {
  HostTensor x = F16({2, 2}, {1, 2, 3, 4});  // [N, C]: no spatial dims
  HostTensor scale = F32({2}, {1, 2}), bias = F32({2}, {0, 1});
  HostTensor mean = F32({2}, {1, 3}), var = F32({2}, {4, 1});
  Inputs in{&x, &scale, &bias, &mean, &var};
  NodeDef def = Def("BatchNormalization", in, {DataType::kFloat16}, 15);
  def.attrs["epsilon"] = 0.0f;
  // (1-1)/2, (2-3)*2+1, (3-1)/2, (4-3)*2+1
  ExpectNear(HalfValues(RunOk(def, in)[0]), {0, -1, 1, 3});
}

TEST(NnKernelNormTest, BatchNormalizationTrainingModeUsesTheBatchStatistics) {
  // Channel 0 holds 1, 3, 5, 7 over N and W (mean 4, variance 5); channel 1 holds 2, 4, 2, 4
  // (mean 3, variance 1).
  HostTensor x = F32({2, 2, 2}, {1, 3, 2, 4, 5, 7, 2, 4});
  HostTensor scale = F32({2}, {1, 1}), bias = F32({2}, {0, 0});
  HostTensor mean = F32({2}, {0, 10}), var = F32({2}, {1, 1});
  Inputs in{&x, &scale, &bias, &mean, &var};
  NodeDef def = Def("BatchNormalization", in, {kF32, kF32, kF32}, 15);
  def.attrs["training_mode"] = int64_t{1};
  def.attrs["epsilon"] = 0.0f;
  def.attrs["momentum"] = 0.75f;
  std::vector<HostTensor> out = RunOk(def, in);
  const float s = std::sqrt(5.0f);
  ExpectF32(out[0], {2, 2, 2}, {-3 / s, -1 / s, -1, 1, 1 / s, 3 / s, -1, 1});
  // running = given * 0.75 + batch * 0.25.
  ExpectF32(out[1], {2}, {1, 8.25f});
  ExpectF32(out[2], {2}, {2, 1});
}

TEST(NnKernelNormTest, BatchNormalizationRefusesOldTrainingAndBadParameters) {
  HostTensor x = F32({1, 2, 2}, {1, 2, 3, 4});
  HostTensor p = F32({2}, {1, 1}), bad = F32({3}, {1, 1, 1});
  Inputs in{&x, &p, &p, &p, &p};
  NodeDef old = Def("BatchNormalization", in, {kF32, kF32, kF32}, 9);
  EXPECT_EQ(ErrorOf(old, in), code::kFeatureUnsupported);
  NodeDef extra = Def("BatchNormalization", in, {kF32, kF32, kF32}, 15);  // no training_mode
  EXPECT_EQ(ErrorOf(extra, in), code::kInvalidParam);
  Inputs bad_in{&x, &p, &p, &bad, &p};
  EXPECT_EQ(ErrorOf(Def("BatchNormalization", bad_in, {kF32}, 15), bad_in), code::kInvalidParam);
  HostTensor ints = I64({1, 2}, {1, 2});
  Inputs int_in{&ints, &p, &p, &p, &p};
  EXPECT_EQ(ErrorOf(Def("BatchNormalization", int_in, {DataType::kInt64}, 15), int_in),
            code::kInvalidParam);
}

TEST(NnKernelNormTest, InstanceNormalizationNormalisesEachChannelOfEachInstance) {
  HostTensor x = F32({1, 2, 2}, {1, 3, 2, 2});
  HostTensor scale = F32({2}, {2, 1}), bias = F32({2}, {0, 5});
  Inputs in{&x, &scale, &bias};
  NodeDef def = Def("InstanceNormalization", in, {kF32});
  def.attrs["epsilon"] = 1e-6f;
  // Channel 0: mean 2, variance 1 -> [-1, 1] * 2. Channel 1: variance 0 -> 0 + 5.
  ExpectF32(RunOk(def, in)[0], {1, 2, 2}, {-2, 2, 5, 5}, 1e-5f);
  HostTensor flat = F32({2, 2}, {1, 2, 3, 4});
  Inputs flat_in{&flat, &scale, &bias};
  EXPECT_EQ(ErrorOf(Def("InstanceNormalization", flat_in, {kF32}), flat_in), code::kInvalidParam);
}

TEST(NnKernelNormTest, GroupNormalizationScalesPerGroupBeforeOpset21AndPerChannelFrom21) {
  // Groups of 2 channels: [1, 3] (mean 2, std 1) and [10, 14] (mean 12, std 2) -> [-1, 1] each.
  HostTensor x = F32({1, 4, 1}, {1, 3, 10, 14});
  HostTensor gs = F32({2}, {2, 3}), gb = F32({2}, {0, 1});
  Inputs old_in{&x, &gs, &gb};
  NodeDef old_def = Def("GroupNormalization", old_in, {kF32}, 18);
  old_def.attrs["num_groups"] = int64_t{2};
  old_def.attrs["epsilon"] = 0.0f;
  ExpectF32(RunOk(old_def, old_in)[0], {1, 4, 1}, {-2, 2, -2, 4});

  HostTensor cs = F32({4}, {1, 2, 3, 4}), cb = F32({4}, {0, 0, 0, 1});
  Inputs new_in{&x, &cs, &cb};
  NodeDef new_def = Def("GroupNormalization", new_in, {kF32}, 21);
  new_def.attrs["num_groups"] = int64_t{2};
  new_def.attrs["epsilon"] = 0.0f;
  ExpectF32(RunOk(new_def, new_in)[0], {1, 4, 1}, {-1, 2, -3, 5});

  // Per-channel parameters at opset 18 are the wrong shape.
  NodeDef mixed = Def("GroupNormalization", new_in, {kF32}, 18);
  mixed.attrs["num_groups"] = int64_t{2};
  EXPECT_EQ(ErrorOf(mixed, new_in), code::kInvalidParam);
  NodeDef three = Def("GroupNormalization", old_in, {kF32}, 18);
  three.attrs["num_groups"] = int64_t{3};  // 4 channels do not split into 3 groups
  EXPECT_EQ(ErrorOf(three, old_in), code::kInvalidParam);
}

TEST(NnKernelNormTest, LayerNormalizationEmitsMeanAndInverseStdDev) {
  HostTensor x = F32({2, 2}, {1, 3, 2, 6});
  HostTensor scale = F32({2}, {1, 2}), bias = F32({2}, {0, 1});
  Inputs in{&x, &scale, &bias};
  NodeDef def = Def("LayerNormalization", in, {kF32, kF32, kF32});
  def.attrs["epsilon"] = 0.0f;
  // Row 0: mean 2, std 1; row 1: mean 4, std 2; both normalise to [-1, 1] -> [-1*1+0, 1*2+1].
  std::vector<HostTensor> out = RunOk(def, in);
  ExpectF32(out[0], {2, 2}, {-1, 3, -1, 3});
  ExpectF32(out[1], {2, 1}, {2, 4});
  ExpectF32(out[2], {2, 1}, {1, 0.5f});
}

TEST(NnKernelNormTest, LayerNormalizationAxisAndBroadcastScaleWithoutBias) {
  // axis 1 normalises all 4 values of each instance: mean 2.5, variance 1.25.
  HostTensor x = F32({1, 2, 2}, {1, 2, 3, 4});
  HostTensor scale = F32({1}, {2});
  Inputs in{&x, &scale};
  NodeDef def = Def("LayerNormalization", in, {kF32});
  def.attrs["axis"] = int64_t{1};
  def.attrs["epsilon"] = 0.0f;
  const float s = 2 / std::sqrt(1.25f);
  ExpectF32(RunOk(def, in)[0], {1, 2, 2}, {-1.5f * s, -0.5f * s, 0.5f * s, 1.5f * s});
  HostTensor bad = F32({3}, {1, 1, 1});
  Inputs bad_in{&x, &bad};
  EXPECT_EQ(ErrorOf(Def("LayerNormalization", bad_in, {kF32}), bad_in), code::kInvalidParam);
}

TEST(NnKernelNormTest, RmsNormalizationDividesByTheRootMeanSquare) {
  HostTensor x = F32({1, 2}, {3, 4});
  HostTensor scale = F16({2}, {1, 2});
  Inputs in{&x, &scale};
  NodeDef def = Def("RMSNormalization", in, {DataType::kFloat16}, 23);
  def.attrs["epsilon"] = 0.0f;
  // rms = sqrt((9 + 16) / 2) = 3.5355; Y takes the scale's type.
  ExpectNear(HalfValues(RunOk(def, in)[0]), {0.848528f, 2.262742f}, 2e-3f);
}

TEST(NnKernelNormTest, LrnSumsSquaresOverNeighbouringChannels) {
  HostTensor x = F32({1, 3, 1, 1}, {1, 2, 3});
  Inputs in{&x};
  NodeDef def = Def("LRN", in, {kF32});
  def.attrs["size"] = int64_t{3};
  def.attrs["alpha"] = 3.0f;  // alpha / size = 1
  def.attrs["beta"] = 1.0f;
  def.attrs["bias"] = 1.0f;
  // Windows {0,1}, {0,1,2}, {1,2}: sums 5, 14, 13 -> x / (1 + sum).
  ExpectF32(RunOk(def, in)[0], {1, 3, 1, 1}, {1.f / 6, 2.f / 15, 3.f / 14});
  def.attrs["size"] = int64_t{2};  // windows {0,1}, {1,2}, {2}
  def.attrs["alpha"] = 2.0f;
  ExpectF32(RunOk(def, in)[0], {1, 3, 1, 1}, {1.f / 6, 2.f / 14, 3.f / 10});
}

TEST(NnKernelNormTest, MeanVarianceNormalizationUsesTheDefaultAxes) {
  // Channel 0 holds 1, 3, 5, 7 over N and W (mean 4, std sqrt(5)); channel 1 is constant.
  HostTensor x = F32({2, 2, 1, 2}, {1, 3, 2, 2, 5, 7, 2, 2});
  Inputs in{&x};
  const float s = std::sqrt(5.0f);
  ExpectF32(RunOk(Def("MeanVarianceNormalization", in, {kF32}, 13), in)[0], {2, 2, 1, 2},
            {-3 / s, -1 / s, 0, 0, 1 / s, 3 / s, 0, 0});
  NodeDef axes = Def("MeanVarianceNormalization", in, {kF32}, 13);
  axes.attrs["axes"] = std::vector<int64_t>{5};
  EXPECT_EQ(ErrorOf(axes, in), code::kInvalidParam);
}

TEST(NnKernelNormTest, LpNormalizationL1UsesAbsoluteValuesAndZeroNormGivesZero) {
  HostTensor x = F32({2, 2}, {-1, 3, 0, 0});
  Inputs in{&x};
  NodeDef l1 = Def("LpNormalization", in, {kF32});
  l1.attrs["p"] = int64_t{1};
  ExpectF32(RunOk(l1, in)[0], {2, 2}, {-0.25f, 0.75f, 0, 0});
  HostTensor y = F32({2, 2}, {3, 1, 4, 1});
  Inputs y_in{&y};
  NodeDef l2 = Def("LpNormalization", y_in, {kF32});
  l2.attrs["axis"] = int64_t{0};  // columns [3, 4] and [1, 1]
  const float r2 = std::sqrt(2.0f);
  ExpectF32(RunOk(l2, y_in)[0], {2, 2}, {0.6f, 1 / r2, 0.8f, 1 / r2});
  NodeDef p3 = Def("LpNormalization", in, {kF32});
  p3.attrs["p"] = int64_t{3};
  EXPECT_EQ(ErrorOf(p3, in), code::kInvalidParam);
}

// ---------------------------------------------------------------------------------------------
// Softmax, LogSoftmax, Hardmax.

TEST(NnKernelSoftmaxTest, FromOpset13OnlyTheAxisIsNormalised) {
  HostTensor x = F32({1, 2, 2}, {0, 0, 0, std::log(5.0f)});
  Inputs in{&x};
  // exp = [1, 1], [1, 5].
  ExpectF32(RunOk(Def("Softmax", in, {kF32}, 13), in)[0], {1, 2, 2},
            {0.5f, 0.5f, 1.f / 6, 5.f / 6});
  ExpectF32(RunOk(Def("LogSoftmax", in, {kF32}, 13), in)[0], {1, 2, 2},
            {std::log(0.5f), std::log(0.5f), std::log(1.f / 6), std::log(5.f / 6)});
}

TEST(NnKernelSoftmaxTest, BeforeOpset13TheInputIsFlattenedAtTheAxis) {
  HostTensor x = F32({1, 2, 2}, {0, 0, 0, std::log(5.0f)});
  Inputs in{&x};
  // Default axis 1: one row of 4 values, exp = [1, 1, 1, 5], sum 8.
  ExpectF32(RunOk(Def("Softmax", in, {kF32}, 11), in)[0], {1, 2, 2},
            {1.f / 8, 1.f / 8, 1.f / 8, 5.f / 8});
  ExpectF32(RunOk(Def("LogSoftmax", in, {kF32}, 11), in)[0], {1, 2, 2},
            {std::log(1.f / 8), std::log(1.f / 8), std::log(1.f / 8), std::log(5.f / 8)});
}

TEST(NnKernelSoftmaxTest, HardmaxMarksTheFirstMaximum) {
  HostTensor x = F32({2, 3}, {1, 3, 3, 2, 0, 1});
  Inputs in{&x};
  ExpectF32(RunOk(Def("Hardmax", in, {kF32}, 13), in)[0], {2, 3}, {0, 1, 0, 1, 0, 0});
  NodeDef axis0 = Def("Hardmax", in, {kF32}, 13);
  axis0.attrs["axis"] = int64_t{0};  // columns
  ExpectF32(RunOk(axis0, in)[0], {2, 3}, {0, 1, 1, 1, 0, 0});
  NodeDef flat = Def("Hardmax", in, {kF32}, 11);
  flat.attrs["axis"] = int64_t{0};  // one row of all 6 values
  ExpectF32(RunOk(flat, in)[0], {2, 3}, {0, 1, 0, 0, 0, 0});
}

TEST(NnKernelSoftmaxTest, LargeValuesDoNotOverflowAndHalfWorks) {
  HostTensor x = F32({3}, {1000, 1000, 1000});
  Inputs in{&x};
  ExpectF32(RunOk(Def("Softmax", in, {kF32}, 13), in)[0], {3}, {1.f / 3, 1.f / 3, 1.f / 3});
  HostTensor h = F16({2}, {0, std::log(3.0f)});
  Inputs h_in{&h};
  ExpectNear(HalfValues(RunOk(Def("Softmax", h_in, {DataType::kFloat16}, 13), h_in)[0]),
             {0.25f, 0.75f}, 1e-3f);
}

TEST(NnKernelSoftmaxTest, AxisOutOfRangeAndIntegersFail) {
  HostTensor x = F32({2, 3}, {1, 2, 3, 4, 5, 6});
  Inputs in{&x};
  NodeDef def = Def("Softmax", in, {kF32}, 13);
  def.attrs["axis"] = int64_t{2};
  EXPECT_EQ(ErrorOf(def, in), code::kInvalidParam);
  HostTensor ints = I64({2}, {1, 2});
  Inputs int_in{&ints};
  EXPECT_EQ(ErrorOf(Def("Softmax", int_in, {DataType::kInt64}, 13), int_in), code::kInvalidParam);
}

// ---------------------------------------------------------------------------------------------
// Losses (the examples of the NegativeLogLikelihoodLoss operator doc).

struct NllExample {
  HostTensor input = F32({2, 3, 2}, {1, 2, 2, 2, 3, 2, 0, 1, 2, 2, 1, 2});
  HostTensor target = I64({2, 2}, {2, 1, 0, 2});
  HostTensor weight = F32({3}, {0.2f, 0.3f, 0.1f});
};

TEST(NnKernelLossTest, NegativeLogLikelihoodLossReductions) {
  NllExample e;
  Inputs plain{&e.input, &e.target};
  NodeDef none = Def("NegativeLogLikelihoodLoss", plain, {kF32}, 13);
  none.attrs["reduction"] = std::string("none");
  ExpectF32(RunOk(none, plain)[0], {2, 2}, {-3, -2, 0, -2});

  Inputs weighted{&e.input, &e.target, &e.weight};
  NodeDef sum = Def("NegativeLogLikelihoodLoss", weighted, {kF32}, 13);
  sum.attrs["reduction"] = std::string("sum");
  ExpectF32(RunOk(sum, weighted)[0], {}, {-1.1f});
  // Mean: -1.1 / (0.1 + 0.3 + 0.2 + 0.1).
  ExpectF32(RunOk(Def("NegativeLogLikelihoodLoss", weighted, {kF32}, 13), weighted)[0], {},
            {-1.57142857f});
}

TEST(NnKernelLossTest, IgnoredLabelsAddNoLossAndNoWeight) {
  NllExample e;
  Inputs plain{&e.input, &e.target};
  NodeDef mean = Def("NegativeLogLikelihoodLoss", plain, {kF32}, 13);
  mean.attrs["ignore_index"] = int64_t{2};
  // Only (0,1) -> -2 and (1,0) -> -0 remain: mean over 2 samples.
  ExpectF32(RunOk(mean, plain)[0], {}, {-1});
  HostTensor bad = I64({2, 2}, {2, 3, 0, 2});
  Inputs bad_in{&e.input, &bad};
  EXPECT_EQ(ErrorOf(mean, bad_in), code::kInvalidParam);  // label 3 of 3 classes
  HostTensor short_target = I64({2}, {0, 1});
  Inputs short_in{&e.input, &short_target};
  EXPECT_EQ(ErrorOf(Def("NegativeLogLikelihoodLoss", short_in, {kF32}, 13), short_in),
            code::kInvalidParam);
}

TEST(NnKernelLossTest, SoftmaxCrossEntropyLossEmitsLogProbabilities) {
  HostTensor scores = F32({1, 2}, {0, std::log(3.0f)});  // softmax [0.25, 0.75]
  HostTensor labels = I32({1}, {1});
  Inputs in{&scores, &labels};
  std::vector<HostTensor> out = RunOk(Def("SoftmaxCrossEntropyLoss", in, {kF32, kF32}, 13), in);
  ExpectF32(out[0], {}, {-std::log(0.75f)});
  ExpectF32(out[1], {1, 2}, {std::log(0.25f), std::log(0.75f)});
  NodeDef none = Def("SoftmaxCrossEntropyLoss", in, {kF32}, 13);
  none.attrs["reduction"] = std::string("none");
  ExpectF32(RunOk(none, in)[0], {1}, {-std::log(0.75f)});
  NodeDef bad = Def("SoftmaxCrossEntropyLoss", in, {kF32}, 13);
  bad.attrs["reduction"] = std::string("max");
  EXPECT_EQ(ErrorOf(bad, in), code::kInvalidParam);
}

// ---------------------------------------------------------------------------------------------
// MatMul, Gemm, Einsum, Flatten.

TEST(NnKernelMatMulTest, MatrixTimesMatrix) {
  HostTensor a = F32({2, 3}, {1, 2, 3, 4, 5, 6}), b = F32({3, 2}, {7, 8, 9, 10, 11, 12});
  Inputs in{&a, &b};
  // [1*7+2*9+3*11, 1*8+2*10+3*12; 4*7+5*9+6*11, 4*8+5*10+6*12]
  ExpectF32(RunOk(Def("MatMul", in, {kF32}, 13), in)[0], {2, 2}, {58, 64, 139, 154});
}

TEST(NnKernelMatMulTest, VectorsLoseThePromotedDimAndBatchesBroadcast) {
  HostTensor v = F32({2}, {1, 2}), w = F32({2}, {3, 4});
  Inputs dot{&v, &w};
  ExpectF32(RunOk(Def("MatMul", dot, {kF32}, 13), dot)[0], {}, {11});
  // a [2,1,2] x b [2,1]: each batch row times b = [1*1+2*2], [3*1+4*2].
  HostTensor a = F32({2, 1, 2}, {1, 2, 3, 4}), b = F32({2, 1}, {1, 2});
  Inputs batched{&a, &b};
  ExpectF32(RunOk(Def("MatMul", batched, {kF32}, 13), batched)[0], {2, 1, 1}, {5, 11});
  // v [2] x a [2,2,1]... : a's batches [[1],[2]] and [[3],[4]] -> [5], [11].
  HostTensor m = F32({2, 2, 1}, {1, 2, 3, 4});
  Inputs vec_mat{&v, &m};
  ExpectF32(RunOk(Def("MatMul", vec_mat, {kF32}, 13), vec_mat)[0], {2, 1}, {5, 11});
}

TEST(NnKernelMatMulTest, IntegersWrapLikeTheirType) {
  HostTensor a = Make<uint8_t>(DataType::kUint8, {1, 2}, {16, 1});
  HostTensor b = Make<uint8_t>(DataType::kUint8, {2, 1}, {16, 3});
  Inputs in{&a, &b};
  // 16*16 + 1*3 = 259 = 3 mod 256.
  EXPECT_EQ(Values<uint8_t>(RunOk(Def("MatMul", in, {DataType::kUint8}, 13), in)[0]),
            std::vector<uint8_t>{3});
  HostTensor c = I64({2, 2}, {-1, 2, 3, -4}), d = I64({2}, {5, 6});
  Inputs ints{&c, &d};
  EXPECT_EQ(Values<int64_t>(RunOk(Def("MatMul", ints, {DataType::kInt64}, 13), ints)[0]),
            (std::vector<int64_t>{7, -9}));
}

TEST(NnKernelMatMulTest, MismatchedShapesFail) {
  HostTensor a = F32({2, 3}, {1, 2, 3, 4, 5, 6}), b = F32({2, 2}, {1, 2, 3, 4});
  Inputs in{&a, &b};
  EXPECT_EQ(ErrorOf(Def("MatMul", in, {kF32}, 13), in), code::kInvalidParam);
  HostTensor x = F32({2, 2, 3}, Floats(12, 1)), y = F32({3, 3, 2}, Floats(18, 1));
  Inputs batch{&x, &y};
  EXPECT_EQ(ErrorOf(Def("MatMul", batch, {kF32}, 13), batch), code::kInvalidParam);
}

TEST(NnKernelGemmTest, TransposesScalesAndBroadcastsC) {
  // A^T = [[1, 2], [3, 4]] from A = [[1, 3], [2, 4]]; B^T = I from B = I.
  HostTensor a = F32({2, 2}, {1, 3, 2, 4}), b = F32({2, 2}, {1, 0, 0, 1});
  HostTensor c = F32({2}, {10, 20});
  Inputs in{&a, &b, &c};
  NodeDef def = Def("Gemm", in, {kF32}, 13);
  def.attrs["transA"] = int64_t{1};
  def.attrs["transB"] = int64_t{1};
  def.attrs["alpha"] = 2.0f;
  def.attrs["beta"] = 0.5f;
  // 2 * [[1, 2], [3, 4]] + 0.5 * [10, 20] per row.
  ExpectF32(RunOk(def, in)[0], {2, 2}, {7, 14, 11, 18});
  Inputs no_c{&a, &b};
  ExpectF32(RunOk(Def("Gemm", no_c, {kF32}, 13), no_c)[0], {2, 2}, {1, 3, 2, 4});
}

TEST(NnKernelGemmTest, ColumnBiasAndIntegerFactors) {
  HostTensor a = I64({2, 1}, {1, 2}), b = I64({1, 2}, {3, 4}), c = I64({2, 1}, {100, 200});
  Inputs in{&a, &b, &c};
  NodeDef def = Def("Gemm", in, {DataType::kInt64}, 13);
  def.attrs["alpha"] = 3.0f;
  // 3 * [[3, 4], [6, 8]] + [[100], [200]].
  EXPECT_EQ(Values<int64_t>(RunOk(def, in)[0]), (std::vector<int64_t>{109, 112, 218, 224}));
  HostTensor bad = I64({3}, {1, 2, 3});
  Inputs bad_in{&a, &b, &bad};
  EXPECT_EQ(ErrorOf(Def("Gemm", bad_in, {DataType::kInt64}, 13), bad_in), code::kInvalidParam);
}

NodeDef EinsumDef(const std::string& eq, const Inputs& in, DataType t = kF32) {
  NodeDef def = Def("Einsum", in, {t}, 12);
  def.attrs["equation"] = eq;
  return def;
}

TEST(NnKernelEinsumTest, ExplicitAndImplicitOutputs) {
  HostTensor a = F32({2, 3}, {1, 2, 3, 4, 5, 6}), b = F32({3, 2}, {7, 8, 9, 10, 11, 12});
  Inputs ab{&a, &b};
  ExpectF32(RunOk(EinsumDef("ij,jk->ik", ab), ab)[0], {2, 2}, {58, 64, 139, 154});
  ExpectF32(RunOk(EinsumDef("ij, jk", ab), ab)[0], {2, 2}, {58, 64, 139, 154});  // implicit: "ik"
  Inputs a_only{&a};
  ExpectF32(RunOk(EinsumDef("ba", a_only), a_only)[0], {3, 2}, {1, 4, 2, 5, 3, 6});  // "ab"
  ExpectF32(RunOk(EinsumDef("ij->", a_only), a_only)[0], {}, {21});
  ExpectF32(RunOk(EinsumDef("ij->j", a_only), a_only)[0], {3}, {5, 7, 9});
}

TEST(NnKernelEinsumTest, RepeatedLabelsTakeDiagonalsAndTraces) {
  HostTensor m = F32({3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  Inputs in{&m};
  ExpectF32(RunOk(EinsumDef("ii->i", in), in)[0], {3}, {1, 5, 9});
  ExpectF32(RunOk(EinsumDef("ii", in), in)[0], {}, {15});
  HostTensor v = I64({3}, {1, 2, 3});
  Inputs outer{&v, &v};
  EXPECT_EQ(Values<int64_t>(RunOk(EinsumDef("i,j->ij", outer, DataType::kInt64), outer)[0]),
            (std::vector<int64_t>{1, 2, 3, 2, 4, 6, 3, 6, 9}));
}

TEST(NnKernelEinsumTest, EllipsisDimsBroadcast) {
  // Batched diagonal: two 2x2 matrices.
  HostTensor x = F32({2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  Inputs in{&x};
  ExpectF32(RunOk(EinsumDef("...ii->...i", in), in)[0], {2, 2}, {1, 4, 5, 8});
  // "..." of [2] and [] broadcast: y[b] = x[b] . w.
  HostTensor a = F32({2, 2}, {1, 2, 3, 4}), w = F32({2}, {10, 1});
  Inputs aw{&a, &w};
  ExpectF32(RunOk(EinsumDef("...j,j->...", aw), aw)[0], {2}, {12, 34});
}

TEST(NnKernelEinsumTest, BadEquationsAndShapesFail) {
  HostTensor a = F32({2, 3}, {1, 2, 3, 4, 5, 6});
  Inputs in{&a};
  EXPECT_EQ(ErrorOf(EinsumDef("ij,jk->ik", in), in), code::kInvalidParam);  // 2 terms, 1 input
  EXPECT_EQ(ErrorOf(EinsumDef("ij->ik", in), in), code::kInvalidParam);     // k not an input label
  EXPECT_EQ(ErrorOf(EinsumDef("ijk->i", in), in), code::kInvalidParam);     // rank 2, 3 labels
  EXPECT_EQ(ErrorOf(EinsumDef("ii->i", in), in), code::kInvalidParam);      // 2 != 3 diagonal
  EXPECT_EQ(ErrorOf(EinsumDef("i1->i", in), in), code::kInvalidParam);
}

TEST(NnKernelFlattenTest, AxisSplitsTheDims) {
  HostTensor f = F32({2, 3, 2}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
  Inputs in{&f};
  for (auto [axis, dims] : std::vector<std::pair<int64_t, Dims>>{
           {0, {1, 12}}, {1, {2, 6}}, {2, {6, 2}}, {3, {12, 1}}, {-1, {6, 2}}}) {
    NodeDef def = Def("Flatten", in, {kF32}, 13);
    def.attrs["axis"] = axis;
    std::vector<HostTensor> out = RunOk(def, in);
    EXPECT_EQ(out[0].dims, dims) << axis;
    EXPECT_EQ(Values<float>(out[0]), Values<float>(f)) << axis;
  }
  HostTensor flags = Make<uint8_t>(DataType::kBool, {2, 1, 3}, {1, 0, 1, 0, 1, 1});
  Inputs bool_in{&flags};
  std::vector<HostTensor> out = RunOk(Def("Flatten", bool_in, {DataType::kBool}, 13), bool_in);
  EXPECT_EQ(out[0].dims, (Dims{2, 3}));
  EXPECT_EQ(Values<uint8_t>(out[0]), (std::vector<uint8_t>{1, 0, 1, 0, 1, 1}));
  NodeDef old = Def("Flatten", in, {kF32}, 9);
  old.attrs["axis"] = int64_t{-1};
  EXPECT_EQ(ErrorOf(old, in), code::kInvalidParam);
  NodeDef far = Def("Flatten", in, {kF32}, 13);
  far.attrs["axis"] = int64_t{4};
  EXPECT_EQ(ErrorOf(far, in), code::kInvalidParam);
}

// ---------------------------------------------------------------------------------------------
// RNN, GRU, LSTM: hidden size 1 and input size 1, so each step is scalar arithmetic.

TEST(NnKernelRecurrentTest, RnnForwardWithBiasAndInitialState) {
  HostTensor x = F32({2, 1, 1}, {1, 2}), w = F32({1, 1, 1}, {0.5f}), r = F32({1, 1, 1}, {-0.3f});
  HostTensor b = F32({1, 2}, {0.1f, 0.2f}), h0 = F32({1, 1, 1}, {0.4f});
  Inputs in{&x, &w, &r, &b, nullptr, &h0};
  // h1 = tanh(0.5*1 - 0.3*0.4 + 0.3); h2 = tanh(0.5*2 - 0.3*h1 + 0.3).
  std::vector<HostTensor> out = RunOk(Def("RNN", in, {kF32, kF32}, 14), in);
  ExpectF32(out[0], {2, 1, 1, 1}, {0.5915194f, 0.8084520f});
  ExpectF32(out[1], {1, 1, 1}, {0.8084520f});
}

TEST(NnKernelRecurrentTest, BidirectionalRnnRunsTheSecondDirectionBackwards) {
  HostTensor x = F32({2, 1, 1}, {1, 2}), w = F32({2, 1, 1}, {0.5f, 0.5f});
  HostTensor r = F32({2, 1, 1}, {-0.3f, -0.3f}), b = F32({2, 2}, {0.1f, 0.2f, 0.1f, 0.2f});
  HostTensor h0 = F32({2, 1, 1}, {0.4f, 0.4f});
  Inputs in{&x, &w, &r, &b, nullptr, &h0};
  NodeDef def = Def("RNN", in, {kF32, kF32}, 14);
  def.attrs["direction"] = std::string("bidirectional");
  // Backward: b1 = tanh(0.5*2 - 0.3*0.4 + 0.3) at t=1, then b0 = tanh(0.5 - 0.3*b1 + 0.3).
  std::vector<HostTensor> out = RunOk(def, in);
  ExpectF32(out[0], {2, 2, 1, 1}, {0.5915194f, 0.5018415f, 0.8084520f, 0.8274516f});
  ExpectF32(out[1], {2, 1, 1}, {0.8084520f, 0.5018415f});
}

TEST(NnKernelRecurrentTest, SequenceLensPadWithZerosAndLayoutOnePutsBatchFirst) {
  // Two batch rows, layout 1 (X [batch, seq, input]); row 1 has length 1, so Y[1, 1] is 0 and its
  // Y_h is its first step.
  HostTensor x = F32({2, 2, 1}, {1, 2, 1, 7}), w = F32({1, 1, 1}, {0.5f});
  HostTensor r = F32({1, 1, 1}, {-0.3f}), b = F32({1, 2}, {0.1f, 0.2f});
  HostTensor lens = I32({2}, {2, 1}), h0 = F32({2, 1, 1}, {0.4f, 0.4f});
  Inputs in{&x, &w, &r, &b, &lens, &h0};
  NodeDef def = Def("RNN", in, {kF32, kF32}, 14);
  def.attrs["layout"] = int64_t{1};
  std::vector<HostTensor> out = RunOk(def, in);
  ExpectF32(out[0], {2, 2, 1, 1}, {0.5915194f, 0.8084520f, 0.5915194f, 0});
  ExpectF32(out[1], {2, 1, 1}, {0.8084520f, 0.5915194f});
  HostTensor too_long = I32({2}, {3, 1});
  Inputs bad{&x, &w, &r, &b, &too_long, &h0};
  EXPECT_EQ(ErrorOf(def, bad), code::kInvalidParam);
}

TEST(NnKernelRecurrentTest, ActivationsTakeAlphaAndBeta) {
  HostTensor x = F32({2, 1, 1}, {1, 2}), w = F32({1, 1, 1}, {0.5f}), r = F32({1, 1, 1}, {-0.3f});
  HostTensor h0 = F32({1, 1, 1}, {0.4f});
  Inputs in{&x, &w, &r, nullptr, nullptr, &h0};
  NodeDef def = Def("RNN", in, {kF32}, 14);
  def.attrs["activations"] = std::vector<std::string>{"Affine"};
  def.attrs["activation_alpha"] = std::vector<float>{2};
  def.attrs["activation_beta"] = std::vector<float>{1};
  // h1 = 2*(0.5 - 0.12) + 1 = 1.76; h2 = 2*(1 - 0.3*1.76) + 1 = 1.944.
  ExpectF32(RunOk(def, in)[0], {2, 1, 1, 1}, {1.76f, 1.944f});
  def.attrs["activations"] = std::vector<std::string>{"Cosine"};
  EXPECT_EQ(ErrorOf(def, in), code::kInvalidParam);
}

TEST(NnKernelRecurrentTest, GruLinearBeforeResetMovesTheResetGate) {
  HostTensor x = F32({1, 1, 1}, {1.5f}), w = F32({1, 3, 1}, {0.2f, -0.4f, 0.6f});
  HostTensor r = F32({1, 3, 1}, {0.3f, 0.5f, -0.7f});
  HostTensor b = F32({1, 6}, {0.1f, 0.2f, 0.3f, -0.1f, 0.05f, 0.4f});
  HostTensor h0 = F32({1, 1, 1}, {0.5f});
  Inputs in{&x, &w, &r, &b, nullptr, &h0};
  // z = sig(0.2*1.5 + 0.3*0.5 + 0.1 - 0.1), r = sig(-0.4*1.5 + 0.5*0.5 + 0.2 + 0.05);
  // default: h~ = tanh(0.6*1.5 - 0.7*(r*0.5) + 0.4 + 0.3);
  // linear_before_reset: h~ = tanh(0.6*1.5 + r*(-0.7*0.5 + 0.4) + 0.3); H = (1-z)*h~ + z*0.5.
  NodeDef def = Def("GRU", in, {kF32, kF32}, 14);
  ExpectF32(RunOk(def, in)[1], {1, 1, 1}, {0.6527973f});
  def.attrs["linear_before_reset"] = int64_t{1};
  ExpectF32(RunOk(def, in)[1], {1, 1, 1}, {0.6326775f});
}

struct LstmCase {
  HostTensor x = F32({1, 1, 1}, {2});
  HostTensor w = F32({1, 4, 1}, {0.1f, 0.2f, 0.3f, 0.4f});  // i, o, f, c
  HostTensor r = F32({1, 4, 1}, {-0.1f, 0.5f, 0.2f, -0.3f});
  HostTensor b = F32({1, 8}, {0.05f, 0.1f, -0.05f, 0.2f, 0, 0.1f, 0.3f, -0.1f});
  HostTensor h0 = F32({1, 1, 1}, {0.5f}), c0 = F32({1, 1, 1}, {-0.4f});
  HostTensor p = F32({1, 3}, {0.3f, -0.2f, 0.1f});  // i, o, f
  Inputs in() const { return {&x, &w, &r, &b, nullptr, &h0, &c0, &p}; }
};

TEST(NnKernelRecurrentTest, LstmWithPeepholesEmitsAllThreeOutputs) {
  LstmCase c;
  // i = sig(0.2 - 0.05 + 0.05 + 0.3*-0.4), f = sig(0.6 + 0.1 + 0.25 + 0.1*-0.4),
  // g = tanh(0.8 - 0.15 + 0.1), C = f*-0.4 + i*g, o = sig(0.4 + 0.25 + 0.2 - 0.2*C),
  // H = o * tanh(C).
  std::vector<HostTensor> out = RunOk(Def("LSTM", c.in(), {kF32, kF32, kF32}, 14), c.in());
  ExpectF32(out[0], {1, 1, 1, 1}, {0.0314683f});
  ExpectF32(out[1], {1, 1, 1}, {0.0314683f});
  ExpectF32(out[2], {1, 1, 1}, {0.0450706f});
}

TEST(NnKernelRecurrentTest, LstmInputForgetAndClip) {
  LstmCase c;
  NodeDef coupled = Def("LSTM", c.in(), {kF32, kF32, kF32}, 14);
  coupled.attrs["input_forget"] = int64_t{1};  // f = 1 - i
  std::vector<HostTensor> out = RunOk(coupled, c.in());
  ExpectF32(out[1], {1, 1, 1}, {0.0954509f});
  ExpectF32(out[2], {1, 1, 1}, {0.1382664f});
  NodeDef clipped = Def("LSTM", c.in(), {kF32, kF32, kF32}, 14);
  clipped.attrs["clip"] = 0.1f;  // every gate input clamped to [-0.1, 0.1]
  out = RunOk(clipped, c.in());
  ExpectF32(out[1], {1, 1, 1}, {-0.0823480f});
  ExpectF32(out[2], {1, 1, 1}, {-0.1581654f});
}

TEST(NnKernelRecurrentTest, LstmMatchesTheOnnxPeepholeNodeTest) {
  // test_lstm_with_peepholes: every weight 0.1, zero bias and states, X = 1..8.
  Floats xs{1, 2, 3, 4, 5, 6, 7, 8};
  HostTensor x = F32({1, 2, 4}, xs), w = F32({1, 12, 4}, Floats(48, 0.1f));
  HostTensor r = F32({1, 12, 3}, Floats(36, 0.1f)), b = F32({1, 24}, Floats(24, 0));
  HostTensor lens = I32({2}, {1, 1}), h0 = F32({1, 2, 3}, Floats(6, 0));
  HostTensor c0 = F32({1, 2, 3}, Floats(6, 0)), p = F32({1, 9}, Floats(9, 0.1f));
  Inputs in{&x, &w, &r, &b, &lens, &h0, &c0, &p};
  NodeDef def = Def("LSTM", in, {DataType::kUndefined, kF32}, 7);  // Y left out
  def.attrs["hidden_size"] = int64_t{3};
  std::vector<HostTensor> out = RunOk(def, in);
  ExpectF32(out[1], {1, 2, 3},
            {0.3750691f, 0.3750691f, 0.3750691f, 0.6801309f, 0.6801309f, 0.6801309f});
  EXPECT_TRUE(out[0].bytes.empty());  // Y was left out: not bound, not written
}

TEST(NnKernelRecurrentTest, BadShapesAndAttributesFail) {
  LstmCase c;
  HostTensor bad_w = F32({1, 3, 1}, {0.1f, 0.2f, 0.3f});
  Inputs in{&c.x, &bad_w, &c.r};
  EXPECT_EQ(ErrorOf(Def("LSTM", in, {kF32}, 14), in), code::kInvalidParam);
  NodeDef dir = Def("LSTM", c.in(), {kF32}, 14);
  dir.attrs["direction"] = std::string("sideways");
  EXPECT_EQ(ErrorOf(dir, c.in()), code::kInvalidParam);
  NodeDef hidden = Def("LSTM", c.in(), {kF32}, 14);
  hidden.attrs["hidden_size"] = int64_t{2};  // R says 1
  EXPECT_EQ(ErrorOf(hidden, c.in()), code::kInvalidParam);
  NodeDef two_dirs = Def("LSTM", c.in(), {kF32}, 14);
  two_dirs.attrs["direction"] = std::string("bidirectional");  // weights hold one direction
  EXPECT_EQ(ErrorOf(two_dirs, c.in()), code::kInvalidParam);
}

}  // namespace
}  // namespace kiln::kernels
