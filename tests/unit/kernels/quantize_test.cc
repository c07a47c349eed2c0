// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "kernel_test_util.h"

namespace kiln::kernels {
namespace {

using testing::Def;
using testing::F32;
using testing::Halfs;
using testing::HalfValues;
using testing::Make;
using testing::RunReference;
using testing::Values;

HostTensor U8(Dims dims, const std::vector<uint8_t>& v) {
  return Make(DataType::kUint8, std::move(dims), v);
}

// Runs `op` and returns output 0; fails the test on error.
HostTensor RunOk(const NodeDef& def, const std::vector<const HostTensor*>& inputs) {
  auto out = RunReference(def, inputs);
  EXPECT_TRUE(out.ok()) << out.status().message();
  return out.ok() ? (*out)[0] : HostTensor();
}

int RunCode(const NodeDef& def, const std::vector<const HostTensor*>& inputs) {
  return RunReference(def, inputs).status().code();
}

// ---- QuantizeLinear -------------------------------------------------------------------------

TEST(QuantizeKernelTest, QuantizeRoundsHalfToEvenAndSaturates) {
  // ONNX test_quantizelinear plus ties: 3/2, 5/2, 7/2, -3/2.
  HostTensor x = F32({10}, {0, 2, 3, 1000, -254, -1000, 5, 7, -3, 1});
  HostTensor scale = F32({}, {2});
  HostTensor zp = U8({}, {128});
  NodeDef def = Def("QuantizeLinear", {&x, &scale, &zp}, {DataType::kUint8}, 13);
  HostTensor y = RunOk(def, {&x, &scale, &zp});
  EXPECT_EQ(y.dims, (Dims{10}));
  EXPECT_EQ(Values<uint8_t>(y),
            (std::vector<uint8_t>{128, 129, 130, 255, 1, 0, 130, 132, 126, 128}));
}

TEST(QuantizeKernelTest, QuantizeWithoutZeroPointGivesUint8) {
  HostTensor x = F32({3}, {-1, 100, 600});
  HostTensor scale = F32({1}, {2});
  NodeDef def = Def("QuantizeLinear", {&x, &scale}, {DataType::kUint8}, 10);
  EXPECT_EQ(Values<uint8_t>(RunOk(def, {&x, &scale})), (std::vector<uint8_t>{0, 50, 255}));
}

TEST(QuantizeKernelTest, QuantizePerAxis) {
  // ONNX test_quantizelinear_axis: the default axis 1 of [1, 3, 3, 2].
  HostTensor x = F32({1, 3, 3, 2}, {-162, 10, -100, 232, -20, -50, -76, 0, 0, 252, 32, -44, 245,
                                    -485, -960, -270, -375, -470});
  HostTensor scale = F32({3}, {2, 4, 5});
  HostTensor zp = U8({3}, {84, 24, 196});
  NodeDef def = Def("QuantizeLinear", {&x, &scale, &zp}, {DataType::kUint8}, 13);
  EXPECT_EQ(Values<uint8_t>(RunOk(def, {&x, &scale, &zp})),
            (std::vector<uint8_t>{3, 89, 34, 200, 74, 59, 5, 24, 24, 87, 32, 13, 245, 99, 4, 142,
                                  121, 102}));
}

TEST(QuantizeKernelTest, QuantizeBlocked) {
  // ONNX test_quantizelinear_blocked_asymmetric and _symmetric (output_dtype int16).
  HostTensor x = F32({3, 4}, {6, 12, 50, 5, 1, 8, 4, 5, 0, 20, 10, 4});
  HostTensor scale = F32({3, 2}, {1.5f, 2.5f, 3, 4.9f, 5.1f, 6.9f});
  HostTensor zp = U8({3, 2}, {0, 1, 1, 0, 2, 3});
  NodeDef def = Def("QuantizeLinear", {&x, &scale, &zp}, {DataType::kUint8}, 21);
  def.attrs["axis"] = int64_t{1};
  def.attrs["block_size"] = int64_t{2};
  EXPECT_EQ(Values<uint8_t>(RunOk(def, {&x, &scale, &zp})),
            (std::vector<uint8_t>{4, 8, 21, 3, 1, 4, 1, 1, 2, 6, 4, 4}));

  HostTensor xs = F32({3, 4}, {6, -8, -10, 5, 1, 8, 4, 5, 0, 20, 10, 4});
  NodeDef sym = Def("QuantizeLinear", {&xs, &scale}, {DataType::kInt16}, 21);
  sym.attrs["axis"] = int64_t{1};
  sym.attrs["block_size"] = int64_t{2};
  sym.attrs["output_dtype"] = int64_t{5};
  EXPECT_EQ(Values<int16_t>(RunOk(sym, {&xs, &scale})),
            (std::vector<int16_t>{4, -5, -4, 2, 0, 3, 1, 1, 0, 4, 1, 1}));
}

TEST(QuantizeKernelTest, QuantizeBlockedWithAPartialLastBlock) {
  // x [1, 5] in blocks of 2 along axis 1: scales 1, 10, 100 for columns {0,1} {2,3} {4}.
  HostTensor x = F32({1, 5}, {3, 4, 50, 60, 700});
  HostTensor scale = F32({1, 3}, {1, 10, 100});
  NodeDef def = Def("QuantizeLinear", {&x, &scale}, {DataType::kUint8}, 21);
  def.attrs["block_size"] = int64_t{2};
  EXPECT_EQ(Values<uint8_t>(RunOk(def, {&x, &scale})), (std::vector<uint8_t>{3, 4, 5, 6, 7}));
}

TEST(QuantizeKernelTest, QuantizeSixteenBitTypes) {
  // ONNX test_quantizelinear_int16 and _uint16.
  HostTensor x = F32({16}, {0, -514, 3, -3, 2.9f, -2.9f, 3.1f, -3.1f, 65022, -66046, 65023, -66047,
                            65024, -66048, 70000, -70000});
  HostTensor scale = F32({}, {2});
  HostTensor zp = Make<int16_t>(DataType::kInt16, {}, {256});
  NodeDef def = Def("QuantizeLinear", {&x, &scale, &zp}, {DataType::kInt16}, 21);
  EXPECT_EQ(Values<int16_t>(RunOk(def, {&x, &scale, &zp})),
            (std::vector<int16_t>{256, -1, 258, 254, 257, 255, 258, 254, 32767, -32767, 32767,
                                  -32768, 32767, -32768, 32767, -32768}));
  HostTensor xu =
      F32({12}, {0, -128, 3, -3, 2.9f, -2.9f, 3.1f, -3.1f, 65536, -65534, 70000, -70000});
  HostTensor zpu = Make<uint16_t>(DataType::kUint16, {}, {32767});
  NodeDef defu = Def("QuantizeLinear", {&xu, &scale, &zpu}, {DataType::kUint16}, 21);
  EXPECT_EQ(Values<uint16_t>(RunOk(defu, {&xu, &scale, &zpu})),
            (std::vector<uint16_t>{32767, 32703, 32769, 32765, 32768, 32766, 32769, 32765, 65535, 0,
                                   65535, 0}));
}

TEST(QuantizeKernelTest, QuantizeInt8FromHalfAndInt32Inputs) {
  HostTensor x = Halfs({3}, {2, 7, -9});
  HostTensor scale = Halfs({}, {2});
  HostTensor zp = Make<int8_t>(DataType::kInt8, {}, {0});
  NodeDef def = Def("QuantizeLinear", {&x, &scale, &zp}, {DataType::kInt8}, 19);
  EXPECT_EQ(Values<int8_t>(RunOk(def, {&x, &scale, &zp})), (std::vector<int8_t>{1, 4, -4}));

  HostTensor xi = Make<int32_t>(DataType::kInt32, {3}, {1000, -7, -2000});
  HostTensor s10 = F32({}, {10});
  NodeDef defi = Def("QuantizeLinear", {&xi, &s10, &zp}, {DataType::kInt8}, 13);
  EXPECT_EQ(Values<int8_t>(RunOk(defi, {&xi, &s10, &zp})), (std::vector<int8_t>{100, -1, -128}));
}

TEST(QuantizeKernelTest, QuantizePrecisionAttributeRoundsTheQuotient) {
  // 2049 is not a float16 value: divided in float16 it becomes 2048.
  HostTensor x = F32({1}, {2049});
  HostTensor scale = F32({}, {1});
  HostTensor zp = Make<int16_t>(DataType::kInt16, {}, {0});
  NodeDef def = Def("QuantizeLinear", {&x, &scale, &zp}, {DataType::kInt16}, 23);
  EXPECT_EQ(Values<int16_t>(RunOk(def, {&x, &scale, &zp})), (std::vector<int16_t>{2049}));
  def.attrs["precision"] = int64_t{10};  // float16
  EXPECT_EQ(Values<int16_t>(RunOk(def, {&x, &scale, &zp})), (std::vector<int16_t>{2048}));
}

TEST(QuantizeKernelTest, QuantizeNanGivesTheLowestValue) {
  HostTensor x = F32({1}, {std::nanf("")});
  HostTensor scale = F32({}, {1});
  HostTensor zp = Make<int8_t>(DataType::kInt8, {}, {5});
  NodeDef def = Def("QuantizeLinear", {&x, &scale, &zp}, {DataType::kInt8}, 13);
  EXPECT_EQ(Values<int8_t>(RunOk(def, {&x, &scale, &zp})), (std::vector<int8_t>{-128}));
}

TEST(QuantizeKernelTest, QuantizeRejectsParametersThatFitNoGranularity) {
  HostTensor x = F32({2, 3}, {1, 2, 3, 4, 5, 6});
  HostTensor s2 = F32({2}, {1, 1});
  HostTensor s3 = F32({3}, {1, 1, 1});
  HostTensor zp2 = U8({2}, {0, 0});
  NodeDef per_axis = Def("QuantizeLinear", {&x, &s2}, {DataType::kUint8}, 13);
  EXPECT_EQ(RunCode(per_axis, {&x, &s2}), code::kInvalidParam);  // axis 1 has 3
  per_axis.attrs["axis"] = int64_t{0};
  EXPECT_EQ(Values<uint8_t>(RunOk(per_axis, {&x, &s2})), (std::vector<uint8_t>{1, 2, 3, 4, 5, 6}));
  per_axis.attrs["axis"] = int64_t{2};
  EXPECT_EQ(RunCode(per_axis, {&x, &s2}), code::kInvalidParam);
  NodeDef zp_shape = Def("QuantizeLinear", {&x, &s3, &zp2}, {DataType::kUint8}, 13);
  EXPECT_EQ(RunCode(zp_shape, {&x, &s3, &zp2}), code::kInvalidParam);
  NodeDef opset10 = Def("QuantizeLinear", {&x, &s3}, {DataType::kUint8}, 10);
  EXPECT_EQ(RunCode(opset10, {&x, &s3}), code::kInvalidParam);
  HostTensor blocked = F32({2, 1}, {1, 1});
  NodeDef wrong_blocks = Def("QuantizeLinear", {&x, &blocked}, {DataType::kUint8}, 21);
  wrong_blocks.attrs["block_size"] = int64_t{2};  // 3 columns need 2 blocks
  EXPECT_EQ(RunCode(wrong_blocks, {&x, &blocked}), code::kInvalidParam);
}

TEST(QuantizeKernelTest, QuantizeToFloatIsInvalid) {
  HostTensor x = F32({1}, {1});
  HostTensor scale = F32({}, {1});
  NodeDef def = Def("QuantizeLinear", {&x, &scale}, {DataType::kFloat32}, 21);
  EXPECT_EQ(RunCode(def, {&x, &scale}), code::kInvalidParam);
}

// ---- DequantizeLinear -----------------------------------------------------------------------

TEST(QuantizeKernelTest, DequantizePerTensor) {
  // ONNX test_dequantizelinear.
  HostTensor x = U8({4}, {0, 3, 128, 255});
  HostTensor scale = F32({}, {2});
  HostTensor zp = U8({}, {128});
  NodeDef def = Def("DequantizeLinear", {&x, &scale, &zp}, {DataType::kFloat32}, 13);
  EXPECT_EQ(Values<float>(RunOk(def, {&x, &scale, &zp})), (std::vector<float>{-256, -250, 0, 254}));
}

TEST(QuantizeKernelTest, DequantizePerAxisAndBlocked) {
  // ONNX test_dequantizelinear_axis.
  HostTensor x =
      U8({1, 3, 3, 2}, {3, 89, 34, 200, 74, 59, 5, 24, 24, 87, 32, 13, 245, 99, 4, 142, 121, 102});
  HostTensor scale = F32({3}, {2, 4, 5});
  HostTensor zp = U8({3}, {84, 24, 196});
  NodeDef def = Def("DequantizeLinear", {&x, &scale, &zp}, {DataType::kFloat32}, 13);
  EXPECT_EQ(Values<float>(RunOk(def, {&x, &scale, &zp})),
            (std::vector<float>{-162, 10, -100, 232, -20, -50, -76, 0, 0, 252, 32, -44, 245, -485,
                                -960, -270, -375, -470}));
  // ONNX test_dequantizelinear_blocked.
  HostTensor xb = U8({1, 4, 3, 2}, {3, 89, 34, 200, 74, 59, 5,   24, 24, 87,  32,  13,
                                    5, 12, 12, 33,  65, 42, 245, 99, 4,  142, 121, 102});
  HostTensor sb = F32({1, 2, 3, 2}, {3, 2, 4, 1, 2, 2, 5, 2, 4, 3, 5, 2});
  HostTensor zb = U8({1, 2, 3, 2}, {1, 0, 0, 1, 2, 20, 3, 2, 4, 3, 15, 2});
  NodeDef blocked = Def("DequantizeLinear", {&xb, &sb, &zb}, {DataType::kFloat32}, 21);
  blocked.attrs["axis"] = int64_t{1};
  blocked.attrs["block_size"] = int64_t{2};
  EXPECT_EQ(Values<float>(RunOk(blocked, {&xb, &sb, &zb})),
            (std::vector<float>{6,  178, 136, 199, 144, 78, 12,   48,  96, 86,  60,  -14,
                                10, 20,  32,  90,  250, 80, 1210, 194, 0,  417, 530, 200}));
}

TEST(QuantizeKernelTest, DequantizeSixteenAndThirtyTwoBitInputs) {
  // ONNX test_dequantizelinear_int16 and _uint16.
  HostTensor x = Make<int16_t>(DataType::kInt16, {4}, {-300, -30, -1025, 1270});
  HostTensor scale = F32({}, {2});
  HostTensor zp = Make<int16_t>(DataType::kInt16, {}, {-1024});
  NodeDef def = Def("DequantizeLinear", {&x, &scale, &zp}, {DataType::kFloat32}, 21);
  EXPECT_EQ(Values<float>(RunOk(def, {&x, &scale, &zp})),
            (std::vector<float>{1448, 1988, -2, 4588}));
  HostTensor xu = Make<uint16_t>(DataType::kUint16, {4}, {30000, 31000, 32768, 33000});
  HostTensor zpu = Make<uint16_t>(DataType::kUint16, {}, {32767});
  NodeDef defu = Def("DequantizeLinear", {&xu, &scale, &zpu}, {DataType::kFloat32}, 21);
  EXPECT_EQ(Values<float>(RunOk(defu, {&xu, &scale, &zpu})),
            (std::vector<float>{-5534, -3534, 2, 466}));
  HostTensor xi = Make<int32_t>(DataType::kInt32, {2}, {-300, 100});
  HostTensor half = F32({}, {0.5f});
  NodeDef defi = Def("DequantizeLinear", {&xi, &half}, {DataType::kFloat32}, 10);
  EXPECT_EQ(Values<float>(RunOk(defi, {&xi, &half})), (std::vector<float>{-150, 50}));
}

TEST(QuantizeKernelTest, DequantizeToHalfAndBFloat16) {
  HostTensor x = Make<int8_t>(DataType::kInt8, {3}, {1, 2, -3});
  HostTensor scale = Halfs({}, {0.5f});
  NodeDef def = Def("DequantizeLinear", {&x, &scale}, {DataType::kFloat16}, 19);
  EXPECT_EQ(HalfValues(RunOk(def, {&x, &scale})), (std::vector<float>{0.5f, 1, -1.5f}));
  // output_dtype (opset 23) picks bfloat16 from a float32 scale.
  HostTensor fscale = F32({}, {0.25f});
  NodeDef bf = Def("DequantizeLinear", {&x, &fscale}, {DataType::kBFloat16}, 23);
  bf.attrs["output_dtype"] = int64_t{16};
  std::vector<float> got;
  for (BFloat16 b : Values<BFloat16>(RunOk(bf, {&x, &fscale})))
    got.push_back(BFloat16ToFloat(b.bits));
  EXPECT_EQ(got, (std::vector<float>{0.25f, 0.5f, -0.75f}));
}

TEST(QuantizeKernelTest, DequantizeRejectsMismatchedZeroPointAndFloatInput) {
  HostTensor x = U8({2}, {1, 2});
  HostTensor scale = F32({}, {1});
  HostTensor zp = Make<int8_t>(DataType::kInt8, {}, {0});
  NodeDef def = Def("DequantizeLinear", {&x, &scale, &zp}, {DataType::kFloat32}, 13);
  EXPECT_EQ(RunCode(def, {&x, &scale, &zp}), code::kInvalidParam);
  HostTensor fx = F32({2}, {1, 2});
  NodeDef fdef = Def("DequantizeLinear", {&fx, &scale}, {DataType::kFloat32}, 13);
  EXPECT_EQ(RunCode(fdef, {&fx, &scale}), code::kInvalidParam);
  HostTensor s3 = F32({3}, {1, 1, 1});
  NodeDef axis = Def("DequantizeLinear", {&x, &s3}, {DataType::kFloat32}, 13);
  axis.attrs["axis"] = int64_t{0};
  EXPECT_EQ(RunCode(axis, {&x, &s3}), code::kInvalidParam);
}

// ---- DynamicQuantizeLinear ------------------------------------------------------------------

struct Dynamic {
  std::vector<uint8_t> y;
  float scale = 0;
  uint8_t zero_point = 0;
};

Dynamic RunDynamic(const HostTensor& x) {
  NodeDef def = Def("DynamicQuantizeLinear", {&x},
                    {DataType::kUint8, DataType::kFloat32, DataType::kUint8}, 11);
  auto out = RunReference(def, {&x});
  EXPECT_TRUE(out.ok()) << out.status().message();
  if (!out.ok()) return {};
  EXPECT_EQ((*out)[0].dims, x.dims);
  EXPECT_EQ((*out)[1].dims, Dims{});
  EXPECT_EQ((*out)[2].dims, Dims{});
  return {Values<uint8_t>((*out)[0]), Values<float>((*out)[1])[0], Values<uint8_t>((*out)[2])[0]};
}

TEST(QuantizeKernelTest, DynamicQuantizeMatchesTheOnnxCases) {
  // ONNX test_dynamicquantizelinear, _max_adjusted and _min_adjusted.
  Dynamic a = RunDynamic(F32({6}, {0, 2, -3, -2.5f, 1.34f, 0.5f}));
  EXPECT_EQ(a.y, (std::vector<uint8_t>{153, 255, 0, 26, 221, 179}));
  EXPECT_EQ(a.scale, 5.f / 255.f);
  EXPECT_EQ(a.zero_point, 153);
  Dynamic b = RunDynamic(F32({6}, {-1, -2.1f, -1.3f, -2.5f, -3.34f, -4}));
  EXPECT_EQ(b.y, (std::vector<uint8_t>{191, 121, 172, 96, 42, 0}));
  EXPECT_EQ(b.scale, 4.f / 255.f);
  EXPECT_EQ(b.zero_point, 255);
  Dynamic c =
      RunDynamic(F32({3, 4}, {1, 2.1f, 1.3f, 2.5f, 3.34f, 4, 1.5f, 2.6f, 3.9f, 4, 3, 2.345f}));
  EXPECT_EQ(c.y, (std::vector<uint8_t>{64, 134, 83, 159, 213, 255, 96, 166, 249, 255, 191, 149}));
  EXPECT_EQ(c.scale, 4.f / 255.f);
  EXPECT_EQ(c.zero_point, 0);
}

TEST(QuantizeKernelTest, DynamicQuantizeOfZerosUsesUnitRange) {
  Dynamic d = RunDynamic(F32({2}, {0, 0}));
  EXPECT_EQ(d.y, (std::vector<uint8_t>{0, 0}));
  EXPECT_EQ(d.scale, 1.f / 255.f);
  EXPECT_EQ(d.zero_point, 0);
}

}  // namespace
}  // namespace kiln::kernels
