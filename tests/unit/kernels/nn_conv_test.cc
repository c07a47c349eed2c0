// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Reference convolution, pool and fused-op kernels. Expected values are worked by hand or come
// from the ONNX node test data (named where they do).
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

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

using Ints = std::vector<int64_t>;
using Floats = std::vector<float>;

std::vector<float> Iota(int64_t n, float start) {
  std::vector<float> v(static_cast<size_t>(n));
  std::iota(v.begin(), v.end(), start);
  return v;
}

void ExpectNear(const Floats& got, const Floats& want, float tol = 1e-5f) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << "at " << i;
}

// Runs `def` on `inputs` and returns output `i` as floats, failing the test on an error.
Floats RunF32(const NodeDef& def, const std::vector<const HostTensor*>& inputs, Dims want_dims,
              size_t i = 0) {
  auto r = RunReference(def, inputs);
  EXPECT_TRUE(r.ok()) << r.status().message();
  if (!r.ok()) return {};
  EXPECT_EQ((*r)[i].dims, want_dims);
  return Values<float>((*r)[i]);
}

int RunCode(const NodeDef& def, const std::vector<const HostTensor*>& inputs) {
  auto r = RunReference(def, inputs);
  return r.ok() ? code::kSuccess : r.status().code();
}

HostTensor F16(Dims dims, const Floats& v) {
  std::vector<uint16_t> bits;
  for (float f : v) bits.push_back(FloatToHalf(f));
  return Make(DataType::kFloat16, std::move(dims), bits);
}
Floats FromF16(const HostTensor& t) {
  Floats out;
  for (uint16_t b : Values<uint16_t>(t)) out.push_back(HalfToFloat(b));
  return out;
}

NodeDef FusedDef(const std::string& op, const std::vector<const HostTensor*>& inputs,
                 DataType out) {
  NodeDef def = Def(op, inputs, {out}, 1);
  def.domain = "com.kiln";
  return def;
}

// ---------------------------------------------------------------------------------------------
// Conv.

TEST(ConvKernelConvTest, PadsWindowWithZerosAsInOnnxBasicConvWithPadding) {
  HostTensor x = F32({1, 1, 5, 5}, Iota(25, 0));
  HostTensor w = F32({1, 1, 3, 3}, Floats(9, 1.f));
  NodeDef def = Def("Conv", {&x, &w}, {DataType::kFloat32});
  def.attrs["pads"] = Ints{1, 1, 1, 1};
  ExpectNear(RunF32(def, {&x, &w}, {1, 1, 5, 5}),
             {12,  21, 27, 33,  24,  33,  54,  63, 72,  51,  63,  99, 108,
              117, 81, 93, 144, 153, 162, 111, 72, 111, 117, 123, 84});
  def.attrs.erase("pads");
  ExpectNear(RunF32(def, {&x, &w}, {1, 1, 3, 3}), {54, 63, 72, 99, 108, 117, 144, 153, 162});
}

TEST(ConvKernelConvTest, StridesWithAsymmetricPadsMatchOnnxTestData) {
  HostTensor x = F32({1, 1, 7, 5}, Iota(35, 0));
  HostTensor w = F32({1, 1, 3, 3}, Floats(9, 1.f));
  NodeDef def = Def("Conv", {&x, &w}, {DataType::kFloat32});
  def.attrs["strides"] = Ints{2, 2};
  def.attrs["pads"] = Ints{1, 0, 1, 0};
  ExpectNear(RunF32(def, {&x, &w}, {1, 1, 4, 2}), {21, 33, 99, 117, 189, 207, 171, 183});
  def.attrs["pads"] = Ints{1, 1, 1, 1};
  ExpectNear(RunF32(def, {&x, &w}, {1, 1, 4, 3}),
             {12, 27, 24, 63, 108, 81, 123, 198, 141, 112, 177, 124});
}

TEST(ConvKernelConvTest, DilationSpreadsTheKernel) {
  HostTensor x = F32({1, 1, 5}, {1, 2, 3, 4, 5});
  HostTensor w = F32({1, 1, 2}, {1, 10});
  NodeDef def = Def("Conv", {&x, &w}, {DataType::kFloat32});
  def.attrs["dilations"] = Ints{2};
  // y[i] = x[i] + 10 * x[i + 2].
  ExpectNear(RunF32(def, {&x, &w}, {1, 1, 3}), {31, 42, 53});
}

TEST(ConvKernelConvTest, GroupsAndDepthwiseKeepChannelsApart) {
  // Two channels, two groups, two output channels per group.
  HostTensor x = F32({1, 2, 3}, {1, 2, 3, 10, 20, 30});
  HostTensor w = F32({4, 1, 2}, {1, 0, 0, 1, 1, 1, 2, -1});
  HostTensor b = F32({4}, {0, 0, 0, 100});
  NodeDef def = Def("Conv", {&x, &w, &b}, {DataType::kFloat32});
  def.attrs["group"] = int64_t{2};
  ExpectNear(RunF32(def, {&x, &w, &b}, {1, 4, 2}), {1, 2, 2, 3, 30, 50, 100, 110});
}

TEST(ConvKernelConvTest, GroupedConvSumsOnlyItsGroupsInputChannels) {
  // Four input channels in two groups of two; one output channel per group.
  HostTensor x = F32({1, 4, 1}, {1, 2, 3, 4});
  HostTensor w = F32({2, 2, 1}, {1, 10, 100, 1000});
  NodeDef def = Def("Conv", {&x, &w}, {DataType::kFloat32});
  def.attrs["group"] = int64_t{2};
  ExpectNear(RunF32(def, {&x, &w}, {1, 2, 1}), {21, 4300});
}

TEST(ConvKernelConvTest, SameUpperPadsTheEndAndSameLowerTheBeginning) {
  HostTensor x = F32({1, 1, 4}, {1, 2, 3, 4});
  HostTensor w = F32({1, 1, 2}, {1, 1});
  NodeDef def = Def("Conv", {&x, &w}, {DataType::kFloat32});
  def.attrs["auto_pad"] = std::string("SAME_UPPER");
  ExpectNear(RunF32(def, {&x, &w}, {1, 1, 4}), {3, 5, 7, 4});
  def.attrs["auto_pad"] = std::string("SAME_LOWER");
  ExpectNear(RunF32(def, {&x, &w}, {1, 1, 4}), {1, 3, 5, 7});
  // With stride 2 the output is ceil(4 / 2) = 2: total pad (2-1)*2 + 2 - 4 = 0.
  def.attrs["strides"] = Ints{2};
  ExpectNear(RunF32(def, {&x, &w}, {1, 1, 2}), {3, 7});
}

TEST(ConvKernelConvTest, ValidIgnoresPadsAndDropsPartialWindows) {
  HostTensor x = F32({1, 1, 6}, {1, 2, 3, 4, 5, 6});
  HostTensor w = F32({1, 1, 3}, {1, 1, 1});
  NodeDef def = Def("Conv", {&x, &w}, {DataType::kFloat32});
  def.attrs["auto_pad"] = std::string("VALID");
  def.attrs["pads"] = Ints{0, 0};
  def.attrs["strides"] = Ints{2};
  ExpectNear(RunF32(def, {&x, &w}, {1, 1, 2}), {6, 12});
}

TEST(ConvKernelConvTest, ThreeDimensionalConvAddsBias) {
  HostTensor x = F32({1, 1, 2, 2, 2}, Iota(8, 1));
  HostTensor w = F32({1, 1, 2, 1, 2}, {1, 1, 1, 1});
  HostTensor b = F32({1}, {0.5f});
  NodeDef def = Def("Conv", {&x, &w, &b}, {DataType::kFloat32});
  // y[0, h, 0] = x[0,h,0] + x[0,h,1] + x[1,h,0] + x[1,h,1] + 0.5.
  ExpectNear(RunF32(def, {&x, &w, &b}, {1, 1, 1, 2, 1}),
             {1 + 2 + 5 + 6 + 0.5f, 3 + 4 + 7 + 8 + 0.5f});
}

TEST(ConvKernelConvTest, BatchesAreIndependent) {
  HostTensor x = F32({2, 1, 2}, {1, 2, 3, 4});
  HostTensor w = F32({1, 1, 2}, {1, -1});
  NodeDef def = Def("Conv", {&x, &w}, {DataType::kFloat32});
  ExpectNear(RunF32(def, {&x, &w}, {2, 1, 1}), {-1, -1});
}

TEST(ConvKernelConvTest, Float16AndFloat64Compute) {
  HostTensor xh = F16({1, 1, 5}, {1, 2, 3, 4, 5});
  HostTensor wh = F16({1, 1, 2}, {1, 0.5f});
  NodeDef def = Def("Conv", {&xh, &wh}, {DataType::kFloat16});
  auto r = RunReference(def, {&xh, &wh});
  ASSERT_TRUE(r.ok()) << r.status().message();
  ExpectNear(FromF16((*r)[0]), {2, 3.5f, 5, 6.5f});

  HostTensor xd = Make(DataType::kFloat64, {1, 1, 3}, std::vector<double>{1, 2, 3});
  HostTensor wd = Make(DataType::kFloat64, {1, 1, 2}, std::vector<double>{1e-9, 1});
  NodeDef dd = Def("Conv", {&xd, &wd}, {DataType::kFloat64});
  auto rd = RunReference(dd, {&xd, &wd});
  ASSERT_TRUE(rd.ok()) << rd.status().message();
  auto v = Values<double>((*rd)[0]);
  ASSERT_EQ(v.size(), 2u);
  EXPECT_DOUBLE_EQ(v[0], 2 + 1e-9);
  EXPECT_DOUBLE_EQ(v[1], 3 + 2e-9);
}

TEST(ConvKernelConvTest, InputsThatDoNotFitAreInvalidParam) {
  HostTensor x = F32({1, 3, 4}, Floats(12, 1.f));
  HostTensor w = F32({1, 2, 2}, Floats(4, 1.f));  // 2 channels, X has 3
  EXPECT_EQ(RunCode(Def("Conv", {&x, &w}, {DataType::kFloat32}), {&x, &w}), code::kInvalidParam);

  HostTensor w3 = F32({2, 3, 2}, Floats(12, 1.f));
  HostTensor b = F32({3}, {1, 2, 3});  // W has 2 output channels
  EXPECT_EQ(RunCode(Def("Conv", {&x, &w3, &b}, {DataType::kFloat32}), {&x, &w3, &b}),
            code::kInvalidParam);

  HostTensor big = F32({2, 3, 5}, Floats(30, 1.f));  // window 5 > input 4
  EXPECT_EQ(RunCode(Def("Conv", {&x, &big}, {DataType::kFloat32}), {&x, &big}),
            code::kInvalidParam);

  NodeDef ks = Def("Conv", {&x, &w3}, {DataType::kFloat32});
  ks.attrs["kernel_shape"] = Ints{3};
  EXPECT_EQ(RunCode(ks, {&x, &w3}), code::kInvalidParam);

  NodeDef st = Def("Conv", {&x, &w3}, {DataType::kFloat32});
  st.attrs["strides"] = Ints{1, 1};  // two strides for one spatial dim
  EXPECT_EQ(RunCode(st, {&x, &w3}), code::kInvalidParam);

  HostTensor x2 = F32({3, 4}, Floats(12, 1.f));
  EXPECT_EQ(RunCode(Def("Conv", {&x2, &w3}, {DataType::kFloat32}), {&x2, &w3}),
            code::kInvalidParam);
}

TEST(ConvKernelConvTest, BadAttributesFailAtPrepare) {
  HostTensor x = F32({1, 1, 4}, Floats(4, 1.f));
  HostTensor w = F32({1, 1, 2}, Floats(2, 1.f));
  NodeDef def = Def("Conv", {&x, &w}, {DataType::kFloat32});
  def.attrs["auto_pad"] = std::string("SAME");
  auto k = KernelRegistry::Global().Create(kReferenceBackend, def);
  ASSERT_FALSE(k.ok());
  EXPECT_EQ(k.status().code(), code::kInvalidParam);
  EXPECT_NE(k.status().message().find("Conv 'n'"), std::string::npos);

  NodeDef g = Def("Conv", {&x, &w}, {DataType::kFloat32});
  g.attrs["group"] = int64_t{0};
  EXPECT_EQ(KernelRegistry::Global().Create(kReferenceBackend, g).status().code(),
            code::kInvalidParam);

  HostTensor xi = I64({1, 1, 4}, {1, 2, 3, 4});
  HostTensor wi = I64({1, 1, 2}, {1, 1});
  NodeDef ints = Def("Conv", {&xi, &wi}, {DataType::kInt64});  // ONNX's Conv takes floats
  EXPECT_EQ(KernelRegistry::Global().Create(kReferenceBackend, ints).status().code(),
            code::kInvalidParam);
}

// ---------------------------------------------------------------------------------------------
// ConvTranspose.

TEST(ConvKernelConvTransposeTest, ScattersEachInputThroughTheKernel) {
  HostTensor x = F32({1, 1, 3}, {1, 2, 3});
  HostTensor w = F32({1, 1, 3}, {1, 1, 1});
  NodeDef def = Def("ConvTranspose", {&x, &w}, {DataType::kFloat32});
  ExpectNear(RunF32(def, {&x, &w}, {1, 1, 5}), {1, 3, 6, 5, 3});
}

TEST(ConvKernelConvTransposeTest, StridesPadsOutputPaddingAndBias) {
  HostTensor x = F32({1, 1, 2}, {1, 2});
  HostTensor w = F32({1, 1, 2}, {1, 1});
  HostTensor b = F32({1}, {10});
  NodeDef def = Def("ConvTranspose", {&x, &w}, {DataType::kFloat32});
  def.attrs["strides"] = Ints{2};
  ExpectNear(RunF32(def, {&x, &w}, {1, 1, 4}), {1, 1, 2, 2});
  def.attrs["pads"] = Ints{1, 0};
  ExpectNear(RunF32(def, {&x, &w}, {1, 1, 3}), {1, 2, 2});
  def.attrs.erase("pads");
  def.attrs["output_padding"] = Ints{1};
  NodeDef with_bias = Def("ConvTranspose", {&x, &w, &b}, {DataType::kFloat32});
  with_bias.attrs = def.attrs;
  ExpectNear(RunF32(with_bias, {&x, &w, &b}, {1, 1, 5}), {11, 11, 12, 12, 10});
}

TEST(ConvKernelConvTransposeTest, OutputShapeAndAutoPadSplitTheTotalPadding) {
  HostTensor x = F32({1, 1, 2}, {1, 2});
  HostTensor w = F32({1, 1, 3}, {1, 1, 1});
  // The full result of stride 2 is [1, 1, 3, 2, 2]; SAME keeps 2 * 2 = 4 of it.
  NodeDef def = Def("ConvTranspose", {&x, &w}, {DataType::kFloat32});
  def.attrs["strides"] = Ints{2};
  def.attrs["auto_pad"] = std::string("SAME_UPPER");
  ExpectNear(RunF32(def, {&x, &w}, {1, 1, 4}), {1, 1, 3, 2});
  def.attrs["auto_pad"] = std::string("SAME_LOWER");
  ExpectNear(RunF32(def, {&x, &w}, {1, 1, 4}), {1, 3, 2, 2});
  // output_shape beyond the full result extends it at the end (ONNX
  // test_convtranspose_output_shape); it may also list N and C.
  NodeDef shape = Def("ConvTranspose", {&x, &w}, {DataType::kFloat32});
  shape.attrs["strides"] = Ints{2};
  shape.attrs["output_shape"] = Ints{6};
  ExpectNear(RunF32(shape, {&x, &w}, {1, 1, 6}), {1, 1, 3, 2, 2, 0});
  shape.attrs["output_shape"] = Ints{1, 1, 6};
  ExpectNear(RunF32(shape, {&x, &w}, {1, 1, 6}), {1, 1, 3, 2, 2, 0});
}

TEST(ConvKernelConvTransposeTest, GroupsAndDilations) {
  HostTensor x = F32({1, 2, 2}, {1, 2, 3, 4});
  HostTensor w = F32({2, 1, 1}, {2, 3});
  NodeDef def = Def("ConvTranspose", {&x, &w}, {DataType::kFloat32});
  def.attrs["group"] = int64_t{2};
  ExpectNear(RunF32(def, {&x, &w}, {1, 2, 2}), {2, 4, 9, 12});

  HostTensor x1 = F32({1, 1, 2}, {1, 2});
  HostTensor w1 = F32({1, 1, 2}, {1, 10});
  NodeDef dil = Def("ConvTranspose", {&x1, &w1}, {DataType::kFloat32});
  dil.attrs["dilations"] = Ints{2};
  // Output length (2-1) + 2*(2-1) + 1 = 4: x[i] lands at i and 10 * x[i] at i + 2.
  ExpectNear(RunF32(dil, {&x1, &w1}, {1, 1, 4}), {1, 2, 10, 20});
}

TEST(ConvKernelConvTransposeTest, TwoDimensionalMatchesOnnxAutopadSame) {
  HostTensor x = F32({1, 1, 3, 3}, Iota(9, 0));
  HostTensor w = F32({1, 2, 3, 3}, Floats(18, 1.f));
  NodeDef def = Def("ConvTranspose", {&x, &w}, {DataType::kFloat32});
  def.attrs["strides"] = Ints{2, 2};
  def.attrs["auto_pad"] = std::string("SAME_UPPER");
  Floats plane = {0, 0, 1, 1, 3, 2, 0, 0, 1,  1,  3,  2,  3, 3, 8,  5, 12, 7,
                  3, 3, 7, 4, 9, 5, 9, 9, 20, 11, 24, 13, 6, 6, 13, 7, 15, 8};
  Floats want = plane;
  want.insert(want.end(), plane.begin(), plane.end());
  ExpectNear(RunF32(def, {&x, &w}, {1, 2, 6, 6}), want);
}

TEST(ConvKernelConvTransposeTest, MismatchedChannelsAreInvalidParam) {
  HostTensor x = F32({1, 2, 2}, Floats(4, 1.f));
  HostTensor w = F32({3, 1, 1}, Floats(3, 1.f));
  EXPECT_EQ(RunCode(Def("ConvTranspose", {&x, &w}, {DataType::kFloat32}), {&x, &w}),
            code::kInvalidParam);
  HostTensor w2 = F32({2, 1, 3}, Floats(6, 1.f));
  NodeDef pads = Def("ConvTranspose", {&x, &w2}, {DataType::kFloat32});
  pads.attrs["pads"] = Ints{2, 2};  // (2-1) + 3 - 4 = 0 outputs
  EXPECT_EQ(RunCode(pads, {&x, &w2}), code::kInvalidParam);
}

// ---------------------------------------------------------------------------------------------
// Pools.

TEST(ConvKernelPoolTest, MaxPoolWithIndicesInBothStorageOrders) {
  // ONNX test_maxpool_with_argmax_2d_precomputed_strides.
  HostTensor x = F32({1, 1, 5, 5}, Iota(25, 1));
  NodeDef def = Def("MaxPool", {&x}, {DataType::kFloat32, DataType::kInt64});
  def.attrs["kernel_shape"] = Ints{2, 2};
  def.attrs["strides"] = Ints{2, 2};
  auto r = RunReference(def, {&x});
  ASSERT_TRUE(r.ok()) << r.status().message();
  ExpectNear(Values<float>((*r)[0]), {7, 9, 17, 19});
  EXPECT_EQ(Values<int64_t>((*r)[1]), (Ints{6, 8, 16, 18}));
  def.attrs["storage_order"] = int64_t{1};
  r = RunReference(def, {&x});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(Values<int64_t>((*r)[1]), (Ints{6, 16, 8, 18}));
}

TEST(ConvKernelPoolTest, MaxPoolIndicesCountBatchAndChannel) {
  HostTensor x = F32({2, 1, 2}, {5, 1, 0, 7});
  NodeDef def = Def("MaxPool", {&x}, {DataType::kFloat32, DataType::kInt64});
  def.attrs["kernel_shape"] = Ints{2};
  auto r = RunReference(def, {&x});
  ASSERT_TRUE(r.ok()) << r.status().message();
  ExpectNear(Values<float>((*r)[0]), {5, 7});
  EXPECT_EQ(Values<int64_t>((*r)[1]), (Ints{0, 3}));
}

TEST(ConvKernelPoolTest, MaxPoolPadsIgnorePaddingAsInOnnxPrecomputedPads) {
  HostTensor x = F32({1, 1, 5, 5}, Iota(25, 1));
  NodeDef def = Def("MaxPool", {&x}, {DataType::kFloat32, DataType::kInt64});
  def.attrs["kernel_shape"] = Ints{5, 5};
  def.attrs["pads"] = Ints{2, 2, 2, 2};
  auto r = RunReference(def, {&x});
  ASSERT_TRUE(r.ok()) << r.status().message();
  Floats want = {13, 14, 15, 15, 15, 18, 19, 20, 20, 20, 23, 24, 25,
                 25, 25, 23, 24, 25, 25, 25, 23, 24, 25, 25, 25};
  ExpectNear(Values<float>((*r)[0]), want);
  Ints idx;
  for (float v : want) idx.push_back(static_cast<int64_t>(v) - 1);
  EXPECT_EQ(Values<int64_t>((*r)[1]), idx);
}

TEST(ConvKernelPoolTest, MaxPoolCeilModeAndDilationsMatchOnnx) {
  HostTensor x = F32({1, 1, 4, 4}, Iota(16, 1));
  NodeDef ceil = Def("MaxPool", {&x}, {DataType::kFloat32});
  ceil.attrs["kernel_shape"] = Ints{3, 3};
  ceil.attrs["strides"] = Ints{2, 2};
  ceil.attrs["ceil_mode"] = int64_t{1};
  ExpectNear(RunF32(ceil, {&x}, {1, 1, 2, 2}), {11, 12, 15, 16});
  ceil.attrs["ceil_mode"] = int64_t{0};
  ExpectNear(RunF32(ceil, {&x}, {1, 1, 1, 1}), {11});

  NodeDef dil = Def("MaxPool", {&x}, {DataType::kFloat32});
  dil.attrs["kernel_shape"] = Ints{2, 2};
  dil.attrs["dilations"] = Ints{2, 2};
  ExpectNear(RunF32(dil, {&x}, {1, 1, 2, 2}), {11, 12, 15, 16});
}

TEST(ConvKernelPoolTest, MaxPoolBeforeOpset10IgnoresCeilMode) {
  HostTensor x = F32({1, 1, 4, 4}, Iota(16, 1));
  NodeDef def = Def("MaxPool", {&x}, {DataType::kFloat32}, 8);
  def.attrs["kernel_shape"] = Ints{3, 3};
  def.attrs["strides"] = Ints{2, 2};
  def.attrs["ceil_mode"] = int64_t{1};
  ExpectNear(RunF32(def, {&x}, {1, 1, 1, 1}), {11});
}

TEST(ConvKernelPoolTest, MaxPoolOnUint8AndInt8) {
  HostTensor x = Make(DataType::kUint8, {1, 1, 4}, std::vector<uint8_t>{1, 250, 3, 4});
  NodeDef def = Def("MaxPool", {&x}, {DataType::kUint8});
  def.attrs["kernel_shape"] = Ints{2};
  def.attrs["strides"] = Ints{2};
  auto r = RunReference(def, {&x});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(Values<uint8_t>((*r)[0]), (std::vector<uint8_t>{250, 4}));

  HostTensor xi = Make(DataType::kInt8, {1, 1, 3}, std::vector<int8_t>{-100, -3, -128});
  NodeDef di = Def("MaxPool", {&xi}, {DataType::kInt8});
  di.attrs["kernel_shape"] = Ints{2};
  di.attrs["pads"] = Ints{1, 1};
  auto ri = RunReference(di, {&xi});
  ASSERT_TRUE(ri.ok()) << ri.status().message();
  EXPECT_EQ(Values<int8_t>((*ri)[0]), (std::vector<int8_t>{-100, -3, -3, -128}));
}

TEST(ConvKernelPoolTest, MaxPoolSameUpperAndLower) {
  HostTensor x = F32({1, 1, 4}, {4, 1, 2, 3});
  NodeDef def = Def("MaxPool", {&x}, {DataType::kFloat32});
  def.attrs["kernel_shape"] = Ints{2};
  def.attrs["auto_pad"] = std::string("SAME_UPPER");
  ExpectNear(RunF32(def, {&x}, {1, 1, 4}), {4, 2, 3, 3});
  def.attrs["auto_pad"] = std::string("SAME_LOWER");
  ExpectNear(RunF32(def, {&x}, {1, 1, 4}), {4, 4, 2, 3});
}

TEST(ConvKernelPoolTest, AveragePoolCountIncludePad) {
  HostTensor x = F32({1, 1, 3, 3}, Iota(9, 1));
  NodeDef def = Def("AveragePool", {&x}, {DataType::kFloat32});
  def.attrs["kernel_shape"] = Ints{3, 3};
  def.attrs["pads"] = Ints{1, 1, 1, 1};
  // Corner (0,0) covers 1, 2, 4, 5; the middle covers all nine.
  Floats got = RunF32(def, {&x}, {1, 1, 3, 3});
  ASSERT_EQ(got.size(), 9u);
  EXPECT_NEAR(got[0], 3.f, 1e-5);
  EXPECT_NEAR(got[4], 5.f, 1e-5);
  EXPECT_NEAR(got[8], (5 + 6 + 8 + 9) / 4.f, 1e-5);
  def.attrs["count_include_pad"] = int64_t{1};
  got = RunF32(def, {&x}, {1, 1, 3, 3});
  ASSERT_EQ(got.size(), 9u);
  EXPECT_NEAR(got[0], 12.f / 9, 1e-5);
  EXPECT_NEAR(got[1], (1 + 2 + 3 + 4 + 5 + 6) / 9.f, 1e-5);
}

TEST(ConvKernelPoolTest, AveragePoolCeilModeMatchesOnnx) {
  HostTensor x = F32({1, 1, 4, 4}, Iota(16, 1));
  NodeDef def = Def("AveragePool", {&x}, {DataType::kFloat32});
  def.attrs["kernel_shape"] = Ints{3, 3};
  def.attrs["strides"] = Ints{2, 2};
  def.attrs["ceil_mode"] = int64_t{1};
  ExpectNear(RunF32(def, {&x}, {1, 1, 2, 2}), {6, 7.5f, 12, 13.5f});
}

TEST(ConvKernelPoolTest, AveragePoolCeilWindowPastThePadsCountsOnlyThePads) {
  // ONNX test_averagepool_2d_ceil_last_window_starts_on_pad: one window over rows and columns
  // -1..1 of a 2x2 input padded by 1, divided by all 9 positions it covers inside the pads.
  HostTensor x = F32({1, 1, 2, 2}, {0.858f, 0.0786f, 0.2692f, 0.1537f});
  NodeDef def = Def("AveragePool", {&x}, {DataType::kFloat32});
  def.attrs["kernel_shape"] = Ints{3, 3};
  def.attrs["strides"] = Ints{3, 3};
  def.attrs["pads"] = Ints{1, 1, 1, 1};
  def.attrs["ceil_mode"] = int64_t{1};
  def.attrs["count_include_pad"] = int64_t{1};
  ExpectNear(RunF32(def, {&x}, {1, 1, 1, 1}), {(0.858f + 0.0786f + 0.2692f + 0.1537f) / 9}, 1e-4f);
}

TEST(ConvKernelPoolTest, AveragePoolDilationsFromOpset19AndSameUpper) {
  HostTensor x = F32({1, 1, 5}, {1, 2, 3, 4, 5});
  NodeDef def = Def("AveragePool", {&x}, {DataType::kFloat32}, 19);
  def.attrs["kernel_shape"] = Ints{2};
  def.attrs["dilations"] = Ints{2};
  ExpectNear(RunF32(def, {&x}, {1, 1, 3}), {2, 3, 4});

  HostTensor y = F32({1, 1, 4}, {1, 2, 3, 4});
  NodeDef same = Def("AveragePool", {&y}, {DataType::kFloat32});
  same.attrs["kernel_shape"] = Ints{2};
  same.attrs["auto_pad"] = std::string("SAME_UPPER");
  ExpectNear(RunF32(same, {&y}, {1, 1, 4}), {1.5f, 2.5f, 3.5f, 4});
}

TEST(ConvKernelPoolTest, LpPoolSumsPowersOfTheValuesInside) {
  HostTensor x = F32({1, 1, 4}, {3, -4, 0, 1});
  NodeDef def = Def("LpPool", {&x}, {DataType::kFloat32}, 18);
  def.attrs["kernel_shape"] = Ints{2};
  def.attrs["strides"] = Ints{2};
  ExpectNear(RunF32(def, {&x}, {1, 1, 2}), {5, 1});
  def.attrs["p"] = int64_t{1};
  ExpectNear(RunF32(def, {&x}, {1, 1, 2}), {7, 1});
  // Padding adds nothing (ONNX test_lppool_2d_pads: an edge window is the lone value).
  def.attrs["p"] = int64_t{3};
  def.attrs["pads"] = Ints{1, 0};
  def.attrs["strides"] = Ints{3};
  ExpectNear(RunF32(def, {&x}, {1, 1, 2}), {3, std::cbrt(1.f)});
}

TEST(ConvKernelPoolTest, GlobalPoolsReduceEachPlane) {
  HostTensor x = F32({1, 2, 2, 2}, {1, 2, 3, 4, -1, -2, -3, -4});
  ExpectNear(RunF32(Def("GlobalAveragePool", {&x}, {DataType::kFloat32}), {&x}, {1, 2, 1, 1}),
             {2.5f, -2.5f});
  ExpectNear(RunF32(Def("GlobalMaxPool", {&x}, {DataType::kFloat32}), {&x}, {1, 2, 1, 1}), {4, -1});
  NodeDef lp = Def("GlobalLpPool", {&x}, {DataType::kFloat32});
  ExpectNear(RunF32(lp, {&x}, {1, 2, 1, 1}), {std::sqrt(30.f), std::sqrt(30.f)});
  lp.attrs["p"] = int64_t{1};
  ExpectNear(RunF32(lp, {&x}, {1, 2, 1, 1}), {10, 10});
}

TEST(ConvKernelPoolTest, Float16Pools) {
  HostTensor x = F16({1, 1, 4}, {1, 2, 3, 5});
  NodeDef def = Def("AveragePool", {&x}, {DataType::kFloat16});
  def.attrs["kernel_shape"] = Ints{2};
  def.attrs["strides"] = Ints{2};
  auto r = RunReference(def, {&x});
  ASSERT_TRUE(r.ok()) << r.status().message();
  ExpectNear(FromF16((*r)[0]), {1.5f, 4});
  auto g = RunReference(Def("GlobalMaxPool", {&x}, {DataType::kFloat16}), {&x});
  ASSERT_TRUE(g.ok()) << g.status().message();
  ExpectNear(FromF16((*g)[0]), {5});
}

TEST(ConvKernelPoolTest, BadPoolsAreRejected) {
  HostTensor x = F32({1, 1, 4}, Floats(4, 1.f));
  NodeDef no_kernel = Def("MaxPool", {&x}, {DataType::kFloat32});
  EXPECT_EQ(KernelRegistry::Global().Create(kReferenceBackend, no_kernel).status().code(),
            code::kInvalidParam);

  HostTensor xi = I64({1, 1, 4}, {1, 2, 3, 4});
  NodeDef avg_int = Def("AveragePool", {&xi}, {DataType::kInt64});
  avg_int.attrs["kernel_shape"] = Ints{2};
  EXPECT_EQ(KernelRegistry::Global().Create(kReferenceBackend, avg_int).status().code(),
            code::kInvalidParam);

  NodeDef pads = Def("AveragePool", {&x}, {DataType::kFloat32});
  pads.attrs["kernel_shape"] = Ints{2};
  pads.attrs["pads"] = Ints{1, 1, 1};
  EXPECT_EQ(KernelRegistry::Global().Create(kReferenceBackend, pads).status().code(),
            code::kInvalidParam);

  // A 2-D kernel over a 1-D input, and an input too small for the window.
  NodeDef rank = Def("MaxPool", {&x}, {DataType::kFloat32});
  rank.attrs["kernel_shape"] = Ints{2, 2};
  EXPECT_EQ(RunCode(rank, {&x}), code::kInvalidParam);
  NodeDef big = Def("MaxPool", {&x}, {DataType::kFloat32});
  big.attrs["kernel_shape"] = Ints{5};
  EXPECT_EQ(RunCode(big, {&x}), code::kInvalidParam);

  HostTensor flat = F32({2, 2}, Floats(4, 1.f));
  EXPECT_EQ(RunCode(Def("GlobalAveragePool", {&flat}, {DataType::kFloat32}), {&flat}),
            code::kInvalidParam);
}

// ---------------------------------------------------------------------------------------------
// Fused ops.

TEST(ConvKernelFusedTest, FusedConvAddsBiasThenResidualThenActivation) {
  HostTensor x = F32({1, 1, 3}, {1, -2, 3});
  HostTensor w = F32({1, 1, 1}, {2});
  HostTensor b = F32({1}, {1});
  HostTensor z = F32({1, 1, 3}, {0, 0, -10});
  NodeDef def = FusedDef("FusedConv", {&x, &w, &b, &z}, DataType::kFloat32);
  def.attrs["activation"] = std::string("Relu");
  // Conv + B = [3, -3, 7]; + Z = [3, -3, -3]; Relu.
  ExpectNear(RunF32(def, {&x, &w, &b, &z}, {1, 1, 3}), {3, 0, 0});
  // Without B (omitted input) and with a broadcast residual.
  HostTensor z1 = F32({1}, {0.5f});
  NodeDef nb = FusedDef("FusedConv", {&x, &w, nullptr, &z1}, DataType::kFloat32);
  ExpectNear(RunF32(nb, {&x, &w, nullptr, &z1}, {1, 1, 3}), {2.5f, -3.5f, 6.5f});
}

TEST(ConvKernelFusedTest, FusedConvAppliesEachActivation) {
  HostTensor x = F32({1, 1, 3}, {-1, 0, 1});
  HostTensor w = F32({1, 1, 1}, {1});
  struct Case {
    const char* act;
    std::vector<float> attrs;  // alpha, beta when given
    Floats want;
  };
  const std::vector<Case> cases = {
      {"", {}, {-1, 0, 1}},
      {"LeakyRelu", {}, {-0.01f, 0, 1}},
      {"LeakyRelu", {0.5f}, {-0.5f, 0, 1}},
      {"Clip", {-0.5f, 0.25f}, {-0.5f, 0, 0.25f}},
      {"Sigmoid", {}, {0.26894142f, 0.5f, 0.73105858f}},
      {"Tanh", {}, {-0.76159416f, 0, 0.76159416f}},
      {"HardSigmoid", {}, {0.3f, 0.5f, 0.7f}},
      {"HardSigmoid", {0.5f, 0.25f}, {0, 0.25f, 0.75f}},
      {"HardSwish", {}, {-1.f / 3, 0, 2.f / 3}},
      {"Gelu", {}, {-0.15865525f, 0, 0.84134475f}},
      {"Swish", {}, {-0.26894142f, 0, 0.73105858f}},      // x * sigmoid(x)
      {"Swish", {2.0f}, {-0.11920292f, 0, 0.88079708f}},  // x * sigmoid(2x)
  };
  for (const Case& c : cases) {
    NodeDef def = FusedDef("FusedConv", {&x, &w}, DataType::kFloat32);
    def.attrs["activation"] = std::string(c.act);
    if (c.attrs.size() > 0) def.attrs["activation_alpha"] = c.attrs[0];
    if (c.attrs.size() > 1) def.attrs["activation_beta"] = c.attrs[1];
    SCOPED_TRACE(c.act);
    ExpectNear(RunF32(def, {&x, &w}, {1, 1, 3}), c.want);
  }
}

TEST(ConvKernelFusedTest, FusedConvRejectsBadResidualAndUnknownActivation) {
  HostTensor x = F32({1, 1, 3}, {1, 2, 3});
  HostTensor w = F32({1, 1, 1}, {1});
  HostTensor z = F32({1, 1, 2}, {1, 2});
  NodeDef def = FusedDef("FusedConv", {&x, &w, nullptr, &z}, DataType::kFloat32);
  EXPECT_EQ(RunCode(def, {&x, &w, nullptr, &z}), code::kInvalidParam);

  NodeDef act = FusedDef("FusedConv", {&x, &w}, DataType::kFloat32);
  act.attrs["activation"] = std::string("Softplus");
  EXPECT_EQ(KernelRegistry::Global().Create(kReferenceBackend, act).status().code(),
            code::kFeatureUnsupported);
}

TEST(ConvKernelFusedTest, FusedConvFloat16RoundsLikeTheUnfusedOps) {
  HostTensor x = F16({1, 1, 2}, {1, -3});
  HostTensor w = F16({1, 1, 1}, {2});
  HostTensor z = F16({1, 1, 2}, {0.5f, 1});
  NodeDef def = FusedDef("FusedConv", {&x, &w, nullptr, &z}, DataType::kFloat16);
  def.attrs["activation"] = std::string("Relu");
  auto r = RunReference(def, {&x, &w, nullptr, &z});
  ASSERT_TRUE(r.ok()) << r.status().message();
  ExpectNear(FromF16((*r)[0]), {2.5f, 0});
}

TEST(ConvKernelFusedTest, FusedGemmTransposesScalesAndBroadcastsC) {
  HostTensor a = F32({3, 2}, {1, 4, 2, 5, 3, 6});   // A^T = [[1,2,3],[4,5,6]]
  HostTensor b = F32({2, 3}, {1, 0, 1, 0, 1, -1});  // B^T = [[1,0],[0,1],[1,-1]]
  HostTensor c = F32({2}, {10, -100});
  NodeDef def = FusedDef("FusedGemm", {&a, &b, &c}, DataType::kFloat32);
  def.attrs["transA"] = int64_t{1};
  def.attrs["transB"] = int64_t{1};
  def.attrs["alpha"] = 2.f;
  def.attrs["beta"] = 0.5f;
  def.attrs["activation"] = std::string("Relu");
  // A^T B^T = [[4, -1], [10, -1]]; 2x + 0.5 C = [[13, -52], [25, -52]]; Relu.
  ExpectNear(RunF32(def, {&a, &b, &c}, {2, 2}), {13, 0, 25, 0});

  NodeDef no_c = FusedDef("FusedGemm", {&a, &b}, DataType::kFloat32);
  no_c.attrs["transA"] = int64_t{1};
  no_c.attrs["transB"] = int64_t{1};
  ExpectNear(RunF32(no_c, {&a, &b}, {2, 2}), {4, -1, 10, -1});

  HostTensor cm = F32({2, 1}, {1, 2});  // one value per row
  NodeDef col = FusedDef("FusedGemm", {&a, &b, &cm}, DataType::kFloat32);
  col.attrs = no_c.attrs;
  ExpectNear(RunF32(col, {&a, &b, &cm}, {2, 2}), {5, 0, 12, 1});
}

TEST(ConvKernelFusedTest, FusedGemmOnIntegersAndItsErrors) {
  HostTensor a = Make(DataType::kInt32, {1, 2}, std::vector<int32_t>{3, -4});
  HostTensor b = Make(DataType::kInt32, {2, 2}, std::vector<int32_t>{1, 2, 3, -4});
  NodeDef def = FusedDef("FusedGemm", {&a, &b}, DataType::kInt32);
  def.attrs["activation"] = std::string("Relu");
  auto r = RunReference(def, {&a, &b});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(Values<int32_t>((*r)[0]), (std::vector<int32_t>{0, 22}));  // [-9, 22]

  def.attrs["activation"] = std::string("Clip");
  def.attrs["activation_alpha"] = -5.5f;
  def.attrs["activation_beta"] = 20.f;
  r = RunReference(def, {&a, &b});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(Values<int32_t>((*r)[0]), (std::vector<int32_t>{-5, 20}));

  NodeDef sig = FusedDef("FusedGemm", {&a, &b}, DataType::kInt32);
  sig.attrs["activation"] = std::string("Sigmoid");
  EXPECT_EQ(KernelRegistry::Global().Create(kReferenceBackend, sig).status().code(),
            code::kFeatureUnsupported);

  HostTensor bad = Make(DataType::kInt32, {3, 2}, std::vector<int32_t>(6, 1));
  EXPECT_EQ(RunCode(FusedDef("FusedGemm", {&a, &bad}, DataType::kInt32), {&a, &bad}),
            code::kInvalidParam);
  HostTensor c = Make(DataType::kInt32, {3}, std::vector<int32_t>(3, 1));
  EXPECT_EQ(RunCode(FusedDef("FusedGemm", {&a, &b, &c}, DataType::kInt32), {&a, &b, &c}),
            code::kInvalidParam);
}

TEST(ConvKernelFusedTest, FusedMatMulBroadcastsBatchesAndAddsBias) {
  // A [2, 1, 2, 2] x B [2, 2] + Bias [2], Relu.
  HostTensor a = F32({2, 1, 2, 2}, {1, 0, 0, 1, 1, 1, -1, -1});
  HostTensor b = F32({2, 2}, {1, 2, 3, 4});
  HostTensor bias = F32({2}, {0, -5});
  NodeDef def = FusedDef("FusedMatMul", {&a, &b, &bias}, DataType::kFloat32);
  def.attrs["activation"] = std::string("Relu");
  // Products: [[1,2],[3,4]] and [[4,6],[-4,-6]]; + bias; Relu.
  ExpectNear(RunF32(def, {&a, &b, &bias}, {2, 1, 2, 2}), {1, 0, 3, 0, 4, 1, 0, 0});
}

TEST(ConvKernelFusedTest, FusedMatMulVectorsAndBatchedB) {
  HostTensor v = F32({2}, {1, 2});
  HostTensor b = F32({2, 2, 1}, {1, 1, 2, -1});
  // [2] x [2, 2, 1] -> [2, 1].
  ExpectNear(RunF32(FusedDef("FusedMatMul", {&v, &b}, DataType::kFloat32), {&v, &b}, {2, 1}),
             {3, 0});
  HostTensor m = F32({2, 2}, {1, 2, 3, 4});
  // [2, 2] x [2] -> [2].
  ExpectNear(RunF32(FusedDef("FusedMatMul", {&m, &v}, DataType::kFloat32), {&m, &v}, {2}), {5, 11});
}

TEST(ConvKernelFusedTest, FusedMatMulFloat16AndErrors) {
  HostTensor a = F16({1, 2}, {0.5f, 2});
  HostTensor b = F16({2, 1}, {4, -1});
  HostTensor bias = F16({1}, {1});
  NodeDef def = FusedDef("FusedMatMul", {&a, &b, &bias}, DataType::kFloat16);
  def.attrs["activation"] = std::string("Sigmoid");
  auto r = RunReference(def, {&a, &b, &bias});
  ASSERT_TRUE(r.ok()) << r.status().message();
  ExpectNear(FromF16((*r)[0]), {0.7310586f}, 1e-3f);

  HostTensor x = F32({2, 3}, Floats(6, 1.f));
  HostTensor y = F32({2, 2}, Floats(4, 1.f));
  EXPECT_EQ(RunCode(FusedDef("FusedMatMul", {&x, &y}, DataType::kFloat32), {&x, &y}),
            code::kInvalidParam);
  HostTensor y3 = F32({3, 2}, Floats(6, 1.f));
  HostTensor bias3 = F32({3}, {1, 2, 3});
  EXPECT_EQ(
      RunCode(FusedDef("FusedMatMul", {&x, &y3, &bias3}, DataType::kFloat32), {&x, &y3, &bias3}),
      code::kInvalidParam);
  HostTensor a3 = F32({2, 2, 3}, Floats(12, 1.f));
  HostTensor b3 = F32({3, 3, 2}, Floats(18, 1.f));
  EXPECT_EQ(RunCode(FusedDef("FusedMatMul", {&a3, &b3}, DataType::kFloat32), {&a3, &b3}),
            code::kInvalidParam);
}

}  // namespace
}  // namespace kiln::kernels
