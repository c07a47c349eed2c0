// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "test_util.h"

namespace kiln::ir {
namespace {

using testing::F32;
using testing::OneNode;
using testing::T;

TensorType U8(std::vector<int64_t> dims) { return T(DataType::kUint8, std::move(dims)); }
TensorType I8(std::vector<int64_t> dims) { return T(DataType::kInt8, std::move(dims)); }

void ExpectCode(const Status& s, int code, const std::string& text = "") {
  EXPECT_EQ(s.code(), code) << s.message();
  EXPECT_NE(s.message().find(text), std::string::npos) << s.message();
}

// ---- QuantizeLinear -------------------------------------------------------------------------

TEST(QuantizeInferenceTest, QuantizeDefaultsToUint8WithTheInputShape) {
  OneNode n("QuantizeLinear", {F32({2, 3}), F32({})}, 1, /*opset=*/13);
  ASSERT_TRUE(n.Infer().ok());
  EXPECT_EQ(n.out().dtype, DataType::kUint8);
  EXPECT_EQ(n.out().shape.ToString(), "[2,3]");
}

TEST(QuantizeInferenceTest, DeclaredAttributesFollowTheOpset) {
  OneNode q10("QuantizeLinear", {F32({2, 3}), F32({})}, 1, /*opset=*/10);
  ASSERT_TRUE(q10.Infer().ok());
  EXPECT_FALSE(q10.node->has_attr("axis"));  // per-axis quantization came with opset 13
  OneNode q21("QuantizeLinear", {F32({2, 3}), F32({})}, 1, /*opset=*/21);
  ASSERT_TRUE(q21.Infer().ok());
  EXPECT_EQ(q21.node->attr_int("axis"), 1);
  EXPECT_EQ(q21.node->attr_int("block_size"), 0);
  EXPECT_EQ(q21.node->attr_int("output_dtype"), 0);
  EXPECT_FALSE(q21.node->has_attr("precision"));
  OneNode d23("DequantizeLinear", {U8({2, 3}), F32({})}, 1, /*opset=*/23);
  ASSERT_TRUE(d23.Infer().ok());
  EXPECT_EQ(d23.node->attr_int("output_dtype"), 0);
  EXPECT_EQ(d23.out().dtype, DataType::kFloat32);
}

TEST(QuantizeInferenceTest, QuantizeTakesTheZeroPointType) {
  OneNode n("QuantizeLinear", {F32({4}), F32({}), I8({})}, 1, /*opset=*/10);
  ASSERT_TRUE(n.Infer().ok());
  EXPECT_EQ(n.out().dtype, DataType::kInt8);
}

TEST(QuantizeInferenceTest, QuantizeOutputDtypeFromOpset21) {
  OneNode n("QuantizeLinear", {F32({3, 4}), F32({3, 2})}, 1, /*opset=*/21);
  n.node->set_attr("output_dtype", int64_t{5});  // int16
  n.node->set_attr("block_size", int64_t{2});
  ASSERT_TRUE(n.Infer().ok()) << n.Infer().message();
  EXPECT_EQ(n.out().dtype, DataType::kInt16);
  EXPECT_EQ(n.out().shape.ToString(), "[3,4]");
}

TEST(QuantizeInferenceTest, QuantizeOutputDtypeMustMatchTheZeroPoint) {
  OneNode n("QuantizeLinear", {F32({4}), F32({}), U8({})}, 1, /*opset=*/21);
  n.node->set_attr("output_dtype", int64_t{3});  // int8
  ExpectCode(n.Infer(), code::kInvalidParam, "does not match");
}

TEST(QuantizeInferenceTest, LowPrecisionTypesFollowTheOpset) {
  // {ONNX type, the first opset whose QuantizeLinear takes it}: float8 19, int4/uint4 21,
  // float4e2m1 23, int2/uint2 25.
  const std::pair<int64_t, int> types[] = {{17, 19}, {20, 19}, {21, 21}, {22, 21},
                                           {23, 23}, {25, 25}, {26, 25}};
  for (const auto& [type, since] : types) {
    const DataType t = ir::FromOnnx(static_cast<int32_t>(type));
    OneNode early("QuantizeLinear", {F32({4}), F32({}), T(t, {})}, 1, since - 1);
    ExpectCode(early.Infer(), code::kInvalidParam, "y_zero_point");
    OneNode late("QuantizeLinear", {F32({4}), F32({}), T(t, {})}, 1, since);
    ASSERT_TRUE(late.Infer().ok()) << type;
    EXPECT_EQ(late.out().dtype, t);
    if (since >= 21) {
      OneNode by_attr("QuantizeLinear", {F32({4}), F32({})}, 1, since);
      by_attr.node->set_attr("output_dtype", type);
      ASSERT_TRUE(by_attr.Infer().ok()) << type;
      EXPECT_EQ(by_attr.out().dtype, t);
    }
    OneNode dq("DequantizeLinear", {T(t, {4}), F32({})}, 1, since);
    ASSERT_TRUE(dq.Infer().ok()) << type;
    EXPECT_EQ(dq.out().dtype, DataType::kFloat32);
  }
  OneNode not_quantized("QuantizeLinear", {F32({4}), F32({})}, 1, /*opset=*/21);
  not_quantized.node->set_attr("output_dtype", int64_t{1});  // float
  ExpectCode(not_quantized.Infer(), code::kInvalidParam, "output_dtype");
}

TEST(QuantizeInferenceTest, SixteenBitTypesNeedOpset21) {
  OneNode early("QuantizeLinear", {F32({4}), F32({}), T(DataType::kInt16, {})}, 1, 19);
  ExpectCode(early.Infer(), code::kInvalidParam, "y_zero_point");
  OneNode late("QuantizeLinear", {F32({4}), F32({}), T(DataType::kUint16, {})}, 1, 21);
  ASSERT_TRUE(late.Infer().ok());
  EXPECT_EQ(late.out().dtype, DataType::kUint16);
}

TEST(QuantizeInferenceTest, QuantizeInputAndScaleTypesFollowTheOpset) {
  OneNode half_early("QuantizeLinear", {T(DataType::kFloat16, {4}), T(DataType::kFloat16, {})}, 1,
                     13);
  ExpectCode(half_early.Infer(), code::kInvalidParam, "x is float16");
  OneNode half("QuantizeLinear", {T(DataType::kFloat16, {4}), T(DataType::kFloat16, {})}, 1, 19);
  EXPECT_TRUE(half.Infer().ok());
  OneNode mixed("QuantizeLinear", {T(DataType::kFloat16, {4}), F32({})}, 1, 19);
  ExpectCode(mixed.Infer(), code::kInvalidParam, "same type");
  OneNode mixed23("QuantizeLinear", {T(DataType::kFloat16, {4}), F32({})}, 1, 23);
  EXPECT_TRUE(mixed23.Infer().ok());
  OneNode ints("QuantizeLinear", {T(DataType::kInt64, {4}), F32({})}, 1, 13);
  ExpectCode(ints.Infer(), code::kInvalidParam, "x is int64");
}

TEST(QuantizeInferenceTest, PerAxisScaleMustMatchTheAxis) {
  OneNode ok("QuantizeLinear", {F32({1, 3, 2}), F32({3}), U8({3})}, 1, 13);
  EXPECT_TRUE(ok.Infer().ok());
  OneNode last("QuantizeLinear", {F32({1, 3, 2}), F32({2})}, 1, 13);
  last.node->set_attr("axis", int64_t{-1});
  EXPECT_TRUE(last.Infer().ok());
  OneNode wrong_len("QuantizeLinear", {F32({1, 3, 2}), F32({2})}, 1, 13);
  ExpectCode(wrong_len.Infer(), code::kInvalidParam, "per-axis");
  OneNode bad_axis("QuantizeLinear", {F32({1, 3, 2}), F32({2})}, 1, 13);
  bad_axis.node->set_attr("axis", int64_t{3});
  ExpectCode(bad_axis.Infer(), code::kInvalidParam, "out of range");
  OneNode opset10("QuantizeLinear", {F32({1, 3, 2}), F32({3})}, 1, 10);
  ExpectCode(opset10.Infer(), code::kInvalidParam, "opset 13");
  OneNode zp_shape("QuantizeLinear", {F32({1, 3, 2}), F32({3}), U8({2})}, 1, 13);
  ExpectCode(zp_shape.Infer(), code::kInvalidParam, "same shape");
}

TEST(QuantizeInferenceTest, BlockedScaleMustFitBlockSize) {
  OneNode ok("QuantizeLinear", {F32({3, 5}), F32({3, 3})}, 1, 21);
  ok.node->set_attr("block_size", int64_t{2});
  EXPECT_TRUE(ok.Infer().ok());
  OneNode too_many("QuantizeLinear", {F32({3, 4}), F32({3, 3})}, 1, 21);
  too_many.node->set_attr("block_size", int64_t{2});
  ExpectCode(too_many.Infer(), code::kInvalidParam, "block_size");
  OneNode no_block("QuantizeLinear", {F32({3, 4}), F32({3, 2})}, 1, 21);
  ExpectCode(no_block.Infer(), code::kInvalidParam, "block_size");
  OneNode negative("QuantizeLinear", {F32({3, 4}), F32({3, 2})}, 1, 21);
  negative.node->set_attr("block_size", int64_t{-1});
  ExpectCode(negative.Infer(), code::kInvalidParam, "negative");
}

TEST(QuantizeInferenceTest, QuantizeBeforeOpset10IsUnsupported) {
  OneNode n("QuantizeLinear", {F32({4}), F32({})}, 1, 9);
  EXPECT_EQ(n.Infer().code(), code::kFeatureUnsupported);
}

// ---- DequantizeLinear -----------------------------------------------------------------------

TEST(QuantizeInferenceTest, DequantizeOutputsTheScaleType) {
  OneNode n("DequantizeLinear", {U8({2, 2}), F32({}), U8({})}, 1, 13);
  ASSERT_TRUE(n.Infer().ok());
  EXPECT_EQ(n.out().dtype, DataType::kFloat32);
  EXPECT_EQ(n.out().shape.ToString(), "[2,2]");
  OneNode half("DequantizeLinear", {I8({4}), T(DataType::kFloat16, {})}, 1, 19);
  ASSERT_TRUE(half.Infer().ok());
  EXPECT_EQ(half.out().dtype, DataType::kFloat16);
  OneNode int32("DequantizeLinear", {T(DataType::kInt32, {4}), F32({})}, 1, 10);
  EXPECT_TRUE(int32.Infer().ok());
}

TEST(QuantizeInferenceTest, DequantizeOutputDtypeFromOpset23) {
  OneNode n("DequantizeLinear", {U8({4}), F32({})}, 1, 23);
  n.node->set_attr("output_dtype", int64_t{10});  // float16
  ASSERT_TRUE(n.Infer().ok());
  EXPECT_EQ(n.out().dtype, DataType::kFloat16);
  OneNode bad("DequantizeLinear", {U8({4}), F32({})}, 1, 23);
  bad.node->set_attr("output_dtype", int64_t{6});  // int32
  ExpectCode(bad.Infer(), code::kInvalidParam, "output_dtype");
}

TEST(QuantizeInferenceTest, DequantizeChecksTypes) {
  OneNode zp("DequantizeLinear", {U8({4}), F32({}), I8({})}, 1, 13);
  ExpectCode(zp.Infer(), code::kInvalidParam, "x_zero_point");
  OneNode x("DequantizeLinear", {F32({4}), F32({})}, 1, 13);
  ExpectCode(x.Infer(), code::kInvalidParam, "x is float32");
  OneNode scale("DequantizeLinear", {U8({4}), T(DataType::kFloat16, {})}, 1, 13);
  ExpectCode(scale.Infer(), code::kInvalidParam, "x_scale");
  OneNode i16("DequantizeLinear", {T(DataType::kInt16, {4}), F32({})}, 1, 19);
  ExpectCode(i16.Infer(), code::kInvalidParam, "x is int16");
}

// ---- DynamicQuantizeLinear ------------------------------------------------------------------

TEST(QuantizeInferenceTest, DynamicQuantizeGivesUint8AndScalarParameters) {
  OneNode n("DynamicQuantizeLinear", {F32({3, 4})}, 3, 11);
  ASSERT_TRUE(n.Infer().ok());
  EXPECT_EQ(n.out(0).dtype, DataType::kUint8);
  EXPECT_EQ(n.out(0).shape.ToString(), "[3,4]");
  EXPECT_EQ(n.out(1).dtype, DataType::kFloat32);
  EXPECT_EQ(n.out(1).shape.ToString(), "[]");
  EXPECT_EQ(n.out(2).dtype, DataType::kUint8);
  EXPECT_EQ(n.out(2).shape.ToString(), "[]");
  OneNode half("DynamicQuantizeLinear", {T(DataType::kFloat16, {3})}, 3, 11);
  ExpectCode(half.Infer(), code::kInvalidParam, "float32");
}

}  // namespace
}  // namespace kiln::ir
