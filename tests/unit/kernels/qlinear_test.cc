// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Reference kernels of the qlinear family (QLinearConv, ConvInteger, QLinearMatMul,
// MatMulInteger). Expected values are worked by hand in the comments, or taken from the ONNX
// operator examples where named.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kernel_test_util.h"

namespace kiln::kernels {
namespace {

using testing::Def;
using testing::F32;
using testing::Halfs;
using testing::Make;
using testing::RunReference;
using testing::Values;

HostTensor U8(Dims dims, const std::vector<uint8_t>& v) {
  return Make(DataType::kUint8, std::move(dims), v);
}
HostTensor I8(Dims dims, const std::vector<int8_t>& v) {
  return Make(DataType::kInt8, std::move(dims), v);
}
HostTensor I32(Dims dims, const std::vector<int32_t>& v) {
  return Make(DataType::kInt32, std::move(dims), v);
}

HostTensor RunOk(const NodeDef& def, const std::vector<const HostTensor*>& inputs) {
  auto out = RunReference(def, inputs);
  EXPECT_TRUE(out.ok()) << out.status().message();
  return out.ok() ? (*out)[0] : HostTensor();
}

int RunCode(const NodeDef& def, const std::vector<const HostTensor*>& inputs) {
  return RunReference(def, inputs).status().code();
}

// ---- ConvInteger ----------------------------------------------------------------------------

TEST(QLinearKernelTest, ConvIntegerSubtractsTheZeroPoint) {
  // ONNX test_convinteger_without_padding: x - 1 = [[1,2,3],[4,5,6],[7,8,9]], 2x2 window sums.
  HostTensor x = U8({1, 1, 3, 3}, {2, 3, 4, 5, 6, 7, 8, 9, 10});
  HostTensor w = U8({1, 1, 2, 2}, {1, 1, 1, 1});
  HostTensor xz = U8({}, {1});
  NodeDef def = Def("ConvInteger", {&x, &w, &xz}, {DataType::kInt32}, 10);
  HostTensor y = RunOk(def, {&x, &w, &xz});
  EXPECT_EQ(y.dims, (Dims{1, 1, 2, 2}));
  EXPECT_EQ(Values<int32_t>(y), (std::vector<int32_t>{12, 16, 24, 28}));
}

TEST(QLinearKernelTest, ConvIntegerPadsWithTheZeroPointAndTakesPerChannelWeightZeroPoints) {
  // x - 1 = [[1,2,3],[4,5,6],[7,8,9]] padded by 1 with zeros (the zero point: a real 0). Filter 0
  // is all ones (zero point 0): 2x2 sums. Filter 1 is [-1,-1,-1,0] less its zero point -1 =
  // [0,0,0,1]: each window's bottom-right element, i.e. x - 1 at the output position itself.
  HostTensor x = U8({1, 1, 3, 3}, {2, 3, 4, 5, 6, 7, 8, 9, 10});
  HostTensor w = I8({2, 1, 2, 2}, {1, 1, 1, 1, -1, -1, -1, 0});
  HostTensor xz = U8({}, {1});
  HostTensor wz = I8({2}, {0, -1});
  NodeDef def = Def("ConvInteger", {&x, &w, &xz, &wz}, {DataType::kInt32}, 10);
  def.attrs["pads"] = std::vector<int64_t>{1, 1, 1, 1};
  HostTensor y = RunOk(def, {&x, &w, &xz, &wz});
  EXPECT_EQ(y.dims, (Dims{1, 2, 4, 4}));
  EXPECT_EQ(Values<int32_t>(y), (std::vector<int32_t>{1,  3,  5,  3,  5, 12, 16, 9,  //
                                                      11, 24, 28, 15, 7, 15, 17, 9,  //
                                                      1,  2,  3,  0,  4, 5,  6,  0,  //
                                                      7,  8,  9,  0,  0, 0,  0,  0}));
}

TEST(QLinearKernelTest, ConvIntegerSamePadsPutTheOddPixelWhereTheModeSays) {
  // x = [1,2,3,4], w = [1,10]: SAME pads one pixel in total. SAME_UPPER pads the end:
  // y[o] = x[o] + 10 x[o+1]; SAME_LOWER the beginning: y[o] = x[o-1] + 10 x[o].
  HostTensor x = I8({1, 1, 4}, {1, 2, 3, 4});
  HostTensor w = I8({1, 1, 2}, {1, 10});
  NodeDef upper = Def("ConvInteger", {&x, &w}, {DataType::kInt32}, 10);
  upper.attrs["auto_pad"] = std::string("SAME_UPPER");
  EXPECT_EQ(Values<int32_t>(RunOk(upper, {&x, &w})), (std::vector<int32_t>{21, 32, 43, 4}));
  NodeDef lower = upper;
  lower.attrs["auto_pad"] = std::string("SAME_LOWER");
  EXPECT_EQ(Values<int32_t>(RunOk(lower, {&x, &w})), (std::vector<int32_t>{10, 21, 32, 43}));
}

TEST(QLinearKernelTest, ConvIntegerGroupsStridesAndDilations) {
  // Two groups of one channel, kernel 2 dilated by 2 (extent 3), stride 2 over 5: outputs at
  // 0 and 2. Filter 0 [1,1] on channel 0: 1+3, 3+5; filter 1 [1,-1] on channel 1: 10-30, 30-50.
  HostTensor x = I8({1, 2, 5}, {1, 2, 3, 4, 5, 10, 20, 30, 40, 50});
  HostTensor w = I8({2, 1, 2}, {1, 1, 1, -1});
  NodeDef def = Def("ConvInteger", {&x, &w}, {DataType::kInt32}, 10);
  def.attrs["group"] = int64_t{2};
  def.attrs["dilations"] = std::vector<int64_t>{2};
  def.attrs["strides"] = std::vector<int64_t>{2};
  HostTensor y = RunOk(def, {&x, &w});
  EXPECT_EQ(y.dims, (Dims{1, 2, 2}));
  EXPECT_EQ(Values<int32_t>(y), (std::vector<int32_t>{4, 8, -20, -20}));
}

// ---- QLinearConv ----------------------------------------------------------------------------

TEST(QLinearKernelTest, QLinearConvPerChannelScalesBiasAndPadding) {
  // x - 2 = [[1,2],[3,4]]; w - w_zero_point = [2, -2] (1x1 filters); one end pad on W, where
  // the sum is the bias alone. Channel 0: (2 x' + 1) * 0.5 * 0.25 / 0.5 + 10 = [10.75, 11.25,
  // 10.25; 11.75, 12.25, 10.25] -> [11, 11, 10; 12, 12, 10] (11.25 rounds down, 12.25 too).
  // Channel 1: (-2 x' - 4) * 0.5 * 1 / 0.5 + 10 = [4, 2, 6; 0, -2, 6] -> -2 saturates to 0.
  HostTensor x = U8({1, 1, 2, 2}, {3, 4, 5, 6});
  HostTensor xs = F32({}, {0.5f});
  HostTensor xz = U8({}, {2});
  HostTensor w = I8({2, 1, 1, 1}, {2, -3});
  HostTensor ws = F32({2}, {0.25f, 1.0f});
  HostTensor wz = I8({2}, {0, -1});
  HostTensor ys = F32({}, {0.5f});
  HostTensor yz = U8({}, {10});
  HostTensor b = I32({2}, {1, -4});
  std::vector<const HostTensor*> in = {&x, &xs, &xz, &w, &ws, &wz, &ys, &yz, &b};
  NodeDef def = Def("QLinearConv", in, {DataType::kUint8}, 10);
  def.attrs["pads"] = std::vector<int64_t>{0, 0, 0, 1};
  HostTensor y = RunOk(def, in);
  EXPECT_EQ(y.dims, (Dims{1, 2, 2, 3}));
  EXPECT_EQ(Values<uint8_t>(y), (std::vector<uint8_t>{11, 11, 10, 12, 12, 10, 4, 2, 6, 0, 0, 6}));
}

TEST(QLinearKernelTest, QLinearConvInt8OutputRoundsHalfToEvenAndSaturates) {
  // 1x1 filter 1, all scales 1 except y_scale 2: y = round(x / 2) + y_zero_point (int8 -1),
  // rounded before the zero point is added, as the ONNX spec writes it. x = 1, 3, 5, -3 ->
  // 0.5, 1.5, 2.5, -1.5 -> 0, 2, 2, -2 -> -1, 1, 1, -3; 127 -> 63.5 -> 64 - 1 = 63; -128 -> -65.
  HostTensor x = I8({1, 1, 6}, {1, 3, 5, -3, 127, -128});
  HostTensor one = F32({}, {1.0f});
  HostTensor two = F32({}, {2.0f});
  HostTensor zero = I8({}, {0});
  HostTensor w = I8({1, 1, 1}, {1});
  HostTensor yz = I8({}, {-1});
  std::vector<const HostTensor*> in = {&x, &one, &zero, &w, &one, &zero, &two, &yz};
  NodeDef def = Def("QLinearConv", in, {DataType::kInt8}, 10);
  EXPECT_EQ(Values<int8_t>(RunOk(def, in)), (std::vector<int8_t>{-1, 1, 1, -3, 63, -65}));
  HostTensor wz = I8({}, {-127});
  std::vector<const HostTensor*> in2 = {&x, &one, &zero, &w, &one, &wz, &two, &yz};
  // w_zero_point -127 makes w' = 128: y = 64 x - 1 -> 63, then 191, 319, -193, ... saturate.
  EXPECT_EQ(Values<int8_t>(RunOk(Def("QLinearConv", in2, {DataType::kInt8}, 10), in2)),
            (std::vector<int8_t>{63, 127, 127, -128, 127, -128}));
}

TEST(QLinearKernelTest, QLinearConvRejectsParametersThatFitNoGranularity) {
  // w_scale has 3 values for 2 output channels; x_scale has 2 (it is per tensor).
  HostTensor x = U8({1, 1, 2, 2}, {3, 4, 5, 6});
  HostTensor s = F32({}, {1.0f});
  HostTensor s3 = F32({3}, {1, 1, 1});
  HostTensor s2 = F32({2}, {1, 1});
  HostTensor z = U8({}, {0});
  HostTensor w = U8({2, 1, 1, 1}, {1, 1});
  std::vector<const HostTensor*> bad_w = {&x, &s, &z, &w, &s3, &z, &s, &z};
  EXPECT_EQ(RunCode(Def("QLinearConv", bad_w, {DataType::kUint8}, 10), bad_w), code::kInvalidParam);
  std::vector<const HostTensor*> bad_x = {&x, &s2, &z, &w, &s, &z, &s, &z};
  EXPECT_EQ(RunCode(Def("QLinearConv", bad_x, {DataType::kUint8}, 10), bad_x), code::kInvalidParam);
  // A float x is not a quantized tensor.
  HostTensor xf = F32({1, 1, 2, 2}, {3, 4, 5, 6});
  std::vector<const HostTensor*> float_x = {&xf, &s, &z, &w, &s, &z, &s, &z};
  EXPECT_EQ(RunCode(Def("QLinearConv", float_x, {DataType::kUint8}, 10), float_x),
            code::kInvalidParam);
}

// ---- MatMulInteger --------------------------------------------------------------------------

TEST(QLinearKernelTest, MatMulIntegerPerTensorZeroPoint) {
  // ONNX test_matmulinteger: A - 12 = [[-1,-5,-9],[-2,-6,-10],[-3,-7,-11],[-4,-8,-12]] times
  // [[1,4],[2,5],[3,6]]: row 0 is -1 - 10 - 27 = -38 and -4 - 25 - 54 = -83.
  HostTensor a = U8({4, 3}, {11, 7, 3, 10, 6, 2, 9, 5, 1, 8, 4, 0});
  HostTensor b = U8({3, 2}, {1, 4, 2, 5, 3, 6});
  HostTensor az = U8({1}, {12});
  HostTensor bz = U8({1}, {0});
  NodeDef def = Def("MatMulInteger", {&a, &b, &az, &bz}, {DataType::kInt32}, 10);
  HostTensor y = RunOk(def, {&a, &b, &az, &bz});
  EXPECT_EQ(y.dims, (Dims{4, 2}));
  EXPECT_EQ(Values<int32_t>(y), (std::vector<int32_t>{-38, -83, -44, -98, -50, -113, -56, -128}));
}

TEST(QLinearKernelTest, MatMulIntegerPerRowAndPerColumnZeroPointsWithBatches) {
  // a_zero_point [5, 7] is one per row of A (not numpy's broadcast along K):
  // A' = [[5,6],[9,8]] - [[5],[7]] = [[0,1],[2,1]]. b_zero_point [2, 1, 2] is one per column of
  // each batch of B: B0' = [[2,2],[3,5]] - [1,2] = [[1,0],[2,3]], B1' = [[-1,0],[1,2]] - 0.
  // A' B0' = [[2,3],[4,3]]; A' B1' = [[1,2],[-1,2]] (A broadcast over B's batch).
  HostTensor a = U8({2, 2}, {5, 6, 9, 8});
  HostTensor b = I8({2, 2, 2}, {2, 2, 3, 5, -1, 0, 1, 2});
  HostTensor az = U8({2}, {5, 7});
  HostTensor bz = I8({2, 1, 2}, {1, 2, 0, 0});
  NodeDef def = Def("MatMulInteger", {&a, &b, &az, &bz}, {DataType::kInt32}, 10);
  HostTensor y = RunOk(def, {&a, &b, &az, &bz});
  EXPECT_EQ(y.dims, (Dims{2, 2, 2}));
  EXPECT_EQ(Values<int32_t>(y), (std::vector<int32_t>{2, 3, 4, 3, 1, 2, -1, 2}));
}

TEST(QLinearKernelTest, MatMulIntegerVectorTimesMatrix) {
  // [1,2,3] x [[1,0],[0,1],[1,1]] = [4, 5]; the vector's added dim is dropped.
  HostTensor a = U8({3}, {1, 2, 3});
  HostTensor b = U8({3, 2}, {1, 0, 0, 1, 1, 1});
  NodeDef def = Def("MatMulInteger", {&a, &b}, {DataType::kInt32}, 10);
  HostTensor y = RunOk(def, {&a, &b});
  EXPECT_EQ(y.dims, (Dims{2}));
  EXPECT_EQ(Values<int32_t>(y), (std::vector<int32_t>{4, 5}));
}

TEST(QLinearKernelTest, MatMulIntegerRejectsBadZeroPoints) {
  HostTensor a = U8({2, 3}, {1, 2, 3, 4, 5, 6});
  HostTensor b = U8({3, 2}, {1, 0, 0, 1, 1, 1});
  // An int8 zero point for a uint8 A.
  HostTensor az_i8 = I8({}, {0});
  EXPECT_EQ(
      RunCode(Def("MatMulInteger", {&a, &b, &az_i8}, {DataType::kInt32}, 10), {&a, &b, &az_i8}),
      code::kInvalidParam);
  // Three values: A has 2 rows.
  HostTensor az3 = U8({3}, {0, 0, 0});
  EXPECT_EQ(RunCode(Def("MatMulInteger", {&a, &b, &az3}, {DataType::kInt32}, 10), {&a, &b, &az3}),
            code::kInvalidParam);
  // [3, 1] is one value per row of B, not per column.
  HostTensor bz = U8({3, 1}, {0, 0, 0});
  EXPECT_EQ(RunCode(Def("MatMulInteger", {&a, &b, nullptr, &bz}, {DataType::kInt32}, 10),
                    {&a, &b, nullptr, &bz}),
            code::kInvalidParam);
}

// ---- QLinearMatMul --------------------------------------------------------------------------

TEST(QLinearKernelTest, QLinearMatMulOnnxExample) {
  // The ONNX operator example (test_qlinearmatmul_2D_uint8_float32), and the same with float16
  // scales (opset 21), which give the same result.
  HostTensor a = U8({2, 4}, {208, 236, 0, 238, 3, 214, 255, 29});
  HostTensor az = U8({1}, {113});
  HostTensor b = U8({4, 3}, {152, 51, 244, 60, 26, 255, 0, 127, 246, 127, 254, 247});
  HostTensor bz = U8({1}, {114});
  HostTensor yz = U8({1}, {118});
  const std::vector<uint8_t> want = {168, 115, 255, 1, 66, 151};
  HostTensor as = F32({1}, {0.0066f}), bs = F32({1}, {0.00705f}), ys = F32({1}, {0.0107f});
  std::vector<const HostTensor*> in = {&a, &as, &az, &b, &bs, &bz, &ys, &yz};
  HostTensor y = RunOk(Def("QLinearMatMul", in, {DataType::kUint8}, 10), in);
  EXPECT_EQ(y.dims, (Dims{2, 3}));
  EXPECT_EQ(Values<uint8_t>(y), want);
  HostTensor ah = Halfs({1}, {0.0066f}), bh = Halfs({1}, {0.00705f}), yh = Halfs({1}, {0.0107f});
  std::vector<const HostTensor*> in16 = {&a, &ah, &az, &b, &bh, &bz, &yh, &yz};
  EXPECT_EQ(Values<uint8_t>(RunOk(Def("QLinearMatMul", in16, {DataType::kUint8}, 21), in16)), want);
  // Before opset 21 the scales are float32 only.
  EXPECT_EQ(RunCode(Def("QLinearMatMul", in16, {DataType::kUint8}, 20), in16), code::kInvalidParam);
}

TEST(QLinearKernelTest, QLinearMatMulRoundsHalfToEvenAndSaturates) {
  // a [6, 1] times b [1, 2] = [2, 127], scales 1, 1 and y_scale 4. Column 0 is a / 2:
  // 0.5, 1.5, 2.5, -0.5, -1.5, -2.5 -> 0, 2, 2, 0, -2, -2. Column 1 is a * 31.75: 31.75,
  // 95.25, 158.75, ... -> 32, 95, 127 (saturated), -32, -95, -128 (saturated).
  HostTensor a = I8({6, 1}, {1, 3, 5, -1, -3, -5});
  HostTensor b = I8({1, 2}, {2, 127});
  HostTensor one = F32({}, {1.0f}), four = F32({}, {4.0f});
  HostTensor zero = I8({}, {0});
  std::vector<const HostTensor*> in = {&a, &one, &zero, &b, &one, &zero, &four, &zero};
  EXPECT_EQ(Values<int8_t>(RunOk(Def("QLinearMatMul", in, {DataType::kInt8}, 10), in)),
            (std::vector<int8_t>{0, 32, 2, 95, 2, 127, 0, -32, -2, -95, -2, -128}));
  // A uint8 y (its type is y_zero_point's, whatever a's): + 128, clamped to [0, 255]:
  // 128.5 -> 128, 129.5 -> 130, 130.5 -> 130, 127.5 -> 128, 126.5 -> 126, 125.5 -> 126;
  // 159.75 -> 160, 223.25 -> 223, 286.75 -> 255, 96.25 -> 96, 32.75 -> 33, -30.75 -> 0.
  HostTensor yz = U8({}, {128});
  std::vector<const HostTensor*> in_u8 = {&a, &one, &zero, &b, &one, &zero, &four, &yz};
  EXPECT_EQ(Values<uint8_t>(RunOk(Def("QLinearMatMul", in_u8, {DataType::kUint8}, 10), in_u8)),
            (std::vector<uint8_t>{128, 160, 130, 223, 130, 255, 128, 96, 126, 33, 126, 0}));
}

TEST(QLinearKernelTest, QLinearMatMulPerRowAndPerColumnScales) {
  // a' = [10, 15] - [0, 5] = [10, 10] (a [2, 1]), b' = [1, 1] (b [1, 2]): every sum is 10.
  // y[i][j] = 10 * a_scale[i] * b_scale[j] / 1 = 10 * [1, 2] x [1, 3] = [[10, 30], [20, 60]].
  HostTensor a = U8({2, 1}, {10, 15});
  HostTensor as = F32({2}, {1, 2});
  HostTensor az = U8({2}, {0, 5});
  HostTensor b = U8({1, 2}, {1, 1});
  HostTensor bs = F32({2}, {1, 3});
  HostTensor bz = U8({2}, {0, 0});
  HostTensor ys = F32({}, {1});
  HostTensor yz = U8({}, {0});
  std::vector<const HostTensor*> in = {&a, &as, &az, &b, &bs, &bz, &ys, &yz};
  HostTensor y = RunOk(Def("QLinearMatMul", in, {DataType::kUint8}, 10), in);
  EXPECT_EQ(y.dims, (Dims{2, 2}));
  EXPECT_EQ(Values<uint8_t>(y), (std::vector<uint8_t>{10, 30, 20, 60}));
  // A b_scale of 3 values fits neither b's 2 columns nor one value.
  HostTensor bs3 = F32({3}, {1, 1, 1});
  HostTensor bz3 = U8({3}, {0, 0, 0});
  std::vector<const HostTensor*> bad = {&a, &as, &az, &b, &bs3, &bz3, &ys, &yz};
  EXPECT_EQ(RunCode(Def("QLinearMatMul", bad, {DataType::kUint8}, 10), bad), code::kInvalidParam);
  // A scale and its zero point must have the same shape.
  HostTensor az1 = U8({}, {0});
  std::vector<const HostTensor*> unpaired = {&a, &as, &az1, &b, &bs, &bz, &ys, &yz};
  EXPECT_EQ(RunCode(Def("QLinearMatMul", unpaired, {DataType::kUint8}, 10), unpaired),
            code::kInvalidParam);
}

}  // namespace
}  // namespace kiln::kernels
