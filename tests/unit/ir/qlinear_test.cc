// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Inference for the qlinear family (QLinearConv, ConvInteger, QLinearMatMul, MatMulInteger);
// expected shapes are worked by hand from the ONNX operator specs.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "test_util.h"

namespace kiln::ir {
namespace {

using testing::F32;
using testing::OneNode;
using testing::T;

TensorType U8(std::vector<int64_t> dims) { return T(DataType::kUint8, std::move(dims)); }
TensorType I8(std::vector<int64_t> dims) { return T(DataType::kInt8, std::move(dims)); }
TensorType I32(std::vector<int64_t> dims) { return T(DataType::kInt32, std::move(dims)); }

void ExpectCode(const Status& s, int code, const std::string& text = "") {
  EXPECT_EQ(s.code(), code) << s.message();
  EXPECT_NE(s.message().find(text), std::string::npos) << s.message();
}

// QLinearConv's inputs around x and w: per-tensor scales and zero points, uint8 y.
std::vector<TensorType> QConvInputs(TensorType x, TensorType w, TensorType w_scale) {
  return {x, F32({}), U8({}), w, w_scale, I8({}), F32({}), U8({})};
}

TEST(QLinearInferenceTest, TheFamilyIsQLinear) {
  for (const char* op : {"QLinearConv", "ConvInteger", "QLinearMatMul", "MatMulInteger"}) {
    const OpSchema* s = OpRegistry::Global().Find("", op);
    ASSERT_NE(s, nullptr) << op;
    EXPECT_EQ(s->family, "qlinear") << op;
    EXPECT_EQ(s->since_version, 10) << op;
  }
}

// ---- Convolutions ---------------------------------------------------------------------------

TEST(QLinearInferenceTest, QLinearConvTakesTheOutputZeroPointTypeAndConvDims) {
  // 9 + 1 + 1 - 3 = 8, / 2 + 1 = 5; the symbolic batch passes through.
  TensorType x{DataType::kUint8,
               Shape({Dim::Symbol("N"), Dim::Known(3), Dim::Known(9), Dim::Known(9)})};
  std::vector<TensorType> in = QConvInputs(x, I8({8, 3, 3, 3}), F32({8}));
  in[5] = I8({8});
  in[7] = I8({});
  in.push_back(I32({8}));
  OneNode n("QLinearConv", in, 1, /*opset=*/10);
  n.node->set_attr("strides", std::vector<int64_t>{2, 2});
  n.node->set_attr("pads", std::vector<int64_t>{1, 1, 1, 1});
  ASSERT_TRUE(n.Infer().ok()) << n.Infer().message();
  EXPECT_EQ(n.out().dtype, DataType::kInt8);
  EXPECT_EQ(n.out().shape.ToString(), "[N,8,5,5]");
  // The definition filled in the defaults.
  EXPECT_EQ(n.node->attr_string("auto_pad"), "NOTSET");
  EXPECT_EQ(n.node->attr_int("group"), 1);
}

TEST(QLinearInferenceTest, QLinearConvWithUnknownXRankTakesItsRankFromW) {
  // Pads 1 around a 3-wide kernel at stride 1 keep each (unknown) spatial size.
  std::vector<TensorType> in = QConvInputs({DataType::kUint8, Shape()}, I8({8, 3, 3, 3}), F32({}));
  OneNode n("QLinearConv", in, 1, /*opset=*/10);
  n.node->set_attr("pads", std::vector<int64_t>{1, 1, 1, 1});
  ASSERT_TRUE(n.Infer().ok()) << n.Infer().message();
  EXPECT_EQ(n.out().shape.ToString(), "[?,8,?,?]");
}

TEST(QLinearInferenceTest, QLinearConvRefusesBadParameters) {
  {
    // w_scale must hold one value or one per output channel (8).
    OneNode n("QLinearConv", QConvInputs(U8({1, 3, 5, 5}), I8({8, 3, 1, 1}), F32({3})), 1, 10);
    ExpectCode(n.Infer(), code::kInvalidParam, "w_scale");
  }
  {
    // w_scale [8] with a per-tensor w_zero_point: the pair must have one shape.
    OneNode n("QLinearConv", QConvInputs(U8({1, 3, 5, 5}), I8({8, 3, 1, 1}), F32({8})), 1, 10);
    ExpectCode(n.Infer(), code::kInvalidParam, "same shape");
  }
  {
    // The bias is int32 [M].
    std::vector<TensorType> in = QConvInputs(U8({1, 3, 5, 5}), I8({8, 3, 1, 1}), F32({}));
    in.push_back(I32({4}));
    OneNode n("QLinearConv", in, 1, 10);
    ExpectCode(n.Infer(), code::kInvalidParam, "B has shape");
  }
  {
    // A uint8 x with an int8 zero point.
    std::vector<TensorType> in = QConvInputs(U8({1, 3, 5, 5}), I8({8, 3, 1, 1}), F32({}));
    in[2] = I8({});
    OneNode n("QLinearConv", in, 1, 10);
    ExpectCode(n.Infer(), code::kInvalidParam, "x_zero_point");
  }
  {
    // Float32 scales only.
    std::vector<TensorType> in = QConvInputs(U8({1, 3, 5, 5}), I8({8, 3, 1, 1}), F32({}));
    in[6] = T(DataType::kFloat16, {});
    OneNode n("QLinearConv", in, 1, 10);
    ExpectCode(n.Infer(), code::kInvalidParam, "y_scale");
  }
}

TEST(QLinearInferenceTest, ConvIntegerIsInt32WithSamePadding) {
  // SAME at stride 2: ceil(7 / 2) = 4, ceil(6 / 2) = 3.
  OneNode n("ConvInteger", {U8({2, 4, 7, 6}), U8({6, 2, 3, 3}), U8({}), U8({6})}, 1, 10);
  n.node->set_attr("auto_pad", std::string("SAME_LOWER"));
  n.node->set_attr("strides", std::vector<int64_t>{2, 2});
  n.node->set_attr("group", int64_t{2});
  ASSERT_TRUE(n.Infer().ok()) << n.Infer().message();
  EXPECT_EQ(n.out().dtype, DataType::kInt32);
  EXPECT_EQ(n.out().shape.ToString(), "[2,6,4,3]");
}

TEST(QLinearInferenceTest, ConvIntegerRefusesBadNodes) {
  {
    OneNode n("ConvInteger", {U8({1, 4, 5, 5}), U8({6, 2, 3, 3})}, 1, 10);  // 4 != 2 * 1
    ExpectCode(n.Infer(), code::kInvalidParam, "channels");
  }
  {
    OneNode n("ConvInteger", {U8({1, 2, 5, 5}), U8({6, 2, 3, 3})}, 1, 10);
    n.node->set_attr("kernel_shape", std::vector<int64_t>{2, 2});
    ExpectCode(n.Infer(), code::kInvalidParam, "kernel_shape");
  }
  {
    OneNode n("ConvInteger", {U8({1, 2, 5, 5}), U8({6, 2, 3, 3})}, 1, 10);
    n.node->set_attr("pads", std::vector<int64_t>{1, 1});
    ExpectCode(n.Infer(), code::kInvalidParam, "pads");
  }
  {
    OneNode n("ConvInteger", {U8({1, 2, 2, 2}), U8({6, 2, 3, 3})}, 1, 10);
    ExpectCode(n.Infer(), code::kInvalidParam, "exceeds");
  }
  {
    // x's zero point is per tensor.
    OneNode n("ConvInteger", {U8({1, 2, 5, 5}), U8({6, 2, 3, 3}), U8({2})}, 1, 10);
    ExpectCode(n.Infer(), code::kInvalidParam, "x_zero_point");
  }
  {
    OneNode n("ConvInteger", {F32({1, 2, 5, 5}), U8({6, 2, 3, 3})}, 1, 10);
    ExpectCode(n.Infer(), code::kInvalidParam, "uint8 or int8");
  }
  {
    OneNode n("ConvInteger", {U8({1, 2, 5, 5}), U8({6, 2, 3, 3})}, 1, 10);
    n.node->set_attr("auto_pad", std::string("SAME"));
    ExpectCode(n.Infer(), code::kInvalidParam, "auto_pad");
  }
}

// ---- Matrix products ------------------------------------------------------------------------

TEST(QLinearInferenceTest, MatMulIntegerBroadcastsBatchesAndTakesNdZeroPoints) {
  // [2,1,4,3] x [5,3,6] -> [2,5,4,6]; a_zero_point per row [2,1,4,1], b_zero_point per column
  // [5,1,6].
  OneNode n("MatMulInteger", {U8({2, 1, 4, 3}), I8({5, 3, 6}), U8({2, 1, 4, 1}), I8({5, 1, 6})}, 1,
            10);
  ASSERT_TRUE(n.Infer().ok()) << n.Infer().message();
  EXPECT_EQ(n.out().dtype, DataType::kInt32);
  EXPECT_EQ(n.out().shape.ToString(), "[2,5,4,6]");
}

TEST(QLinearInferenceTest, MatMulIntegerRefusesBadNodes) {
  {
    OneNode n("MatMulInteger", {U8({4, 3}), U8({2, 6})}, 1, 10);
    ExpectCode(n.Infer(), code::kInvalidParam, "inner dim");
  }
  {
    // [4, 3] is one per element, not per row.
    OneNode n("MatMulInteger", {U8({4, 3}), U8({3, 6}), U8({4, 3})}, 1, 10);
    ExpectCode(n.Infer(), code::kInvalidParam, "a_zero_point");
  }
  {
    // A vector's zero point is one value.
    OneNode n("MatMulInteger", {U8({3}), U8({3, 6}), U8({3})}, 1, 10);
    ExpectCode(n.Infer(), code::kInvalidParam, "vector");
  }
  {
    OneNode n("MatMulInteger", {I32({4, 3}), U8({3, 6})}, 1, 10);
    ExpectCode(n.Infer(), code::kInvalidParam, "uint8 or int8");
  }
}

std::vector<TensorType> QMatMulInputs(DataType scale) {
  const TensorType s = T(scale, {1});
  return {U8({2, 4}), s, U8({1}), I8({4, 3}), s, I8({1}), s, I8({1})};
}

TEST(QLinearInferenceTest, QLinearMatMulScaleTypesByOpset) {
  for (DataType t : {DataType::kFloat16, DataType::kBFloat16, DataType::kFloat32}) {
    OneNode n("QLinearMatMul", QMatMulInputs(t), 1, /*opset=*/21);
    ASSERT_TRUE(n.Infer().ok()) << n.Infer().message();
    EXPECT_EQ(n.out().dtype, DataType::kInt8);
    EXPECT_EQ(n.out().shape.ToString(), "[2,3]");
  }
  OneNode old("QLinearMatMul", QMatMulInputs(DataType::kFloat16), 1, /*opset=*/10);
  ExpectCode(old.Infer(), code::kInvalidParam, "float32");
  std::vector<TensorType> mixed = QMatMulInputs(DataType::kFloat16);
  mixed[4] = F32({1});
  OneNode m("QLinearMatMul", mixed, 1, /*opset=*/21);
  ExpectCode(m.Infer(), code::kInvalidParam, "b_scale");
}

TEST(QLinearInferenceTest, QLinearMatMulOutputParametersArePerTensor) {
  std::vector<TensorType> in = QMatMulInputs(DataType::kFloat32);
  in[6] = F32({2});
  in[7] = I8({2});
  OneNode n("QLinearMatMul", in, 1, 10);
  ExpectCode(n.Infer(), code::kInvalidParam, "y_scale");
}

}  // namespace
}  // namespace kiln::ir
