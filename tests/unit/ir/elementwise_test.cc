// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include "tests/unit/ir/test_util.h"

namespace kiln::ir {
namespace {

using testing::F32;
using testing::I64;
using testing::OneNode;
using testing::T;

TEST(ElementwiseInferenceTest, AddBroadcastsShapes) {
  OneNode n("Add", {F32({2, 1, 4}), F32({3, 1})}, 1);
  ASSERT_TRUE(n.Infer().ok());
  EXPECT_EQ(n.out().dtype, DataType::kFloat32);
  EXPECT_EQ(n.out().shape.ToString(), "[2,3,4]");
}

TEST(ElementwiseInferenceTest, AddRejectsMixedTypesAndBadBroadcasts) {
  OneNode mixed("Add", {F32({2}), I64({2})}, 1);
  Status s = mixed.Infer();
  EXPECT_EQ(s.code(), code::kInvalidParam);
  EXPECT_NE(s.message().find("Add 'n' (opset 17)"), std::string::npos);
  OneNode bad("Mul", {F32({3}), F32({4})}, 1);
  EXPECT_EQ(bad.Infer().code(), code::kInvalidParam);
}

TEST(ElementwiseInferenceTest, ComparisonsProduceBool) {
  OneNode n("Less", {F32({5}), F32({1})}, 1);
  ASSERT_TRUE(n.Infer().ok());
  EXPECT_EQ(n.out().dtype, DataType::kBool);
  EXPECT_EQ(n.out().shape.ToString(), "[5]");
}

TEST(ElementwiseInferenceTest, WhereTakesTheBranchType) {
  OneNode n("Where", {T(DataType::kBool, {2, 1}), I64({1, 3}), I64({1})}, 1);
  ASSERT_TRUE(n.Infer().ok());
  EXPECT_EQ(n.out().dtype, DataType::kInt64);
  EXPECT_EQ(n.out().shape.ToString(), "[2,3]");
}

TEST(ElementwiseInferenceTest, CastUsesTheToAttribute) {
  OneNode n("Cast", {F32({2, 2})}, 1);
  n.node->set_attr("to", int64_t{10});
  ASSERT_TRUE(n.Infer().ok());
  EXPECT_EQ(n.out().dtype, DataType::kFloat16);
  OneNode str("Cast", {F32({2})}, 1);
  str.node->set_attr("to", int64_t{8});
  EXPECT_EQ(str.Infer().code(), code::kFeatureUnsupported);
}

TEST(ElementwiseInferenceTest, FloatOnlyOpsRejectIntegers) {
  OneNode n("Sqrt", {I64({3})}, 1);
  EXPECT_EQ(n.Infer().code(), code::kInvalidParam);
}

TEST(ElementwiseInferenceTest, VariadicMaxTakesManyInputs) {
  OneNode n("Max", {F32({4, 1}), F32({1, 5}), F32({1})}, 1);
  ASSERT_TRUE(n.Infer().ok());
  EXPECT_EQ(n.out().shape.ToString(), "[4,5]");
}

TEST(ElementwiseInferenceTest, OldOpsetsAreRefusedWithTheFirstSupportedOne) {
  OneNode n("Add", {F32({1}), F32({1})}, 1, /*opset=*/6);
  Status s = n.Infer();
  EXPECT_EQ(s.code(), code::kFeatureUnsupported);
  EXPECT_NE(s.message().find("from opset 7"), std::string::npos);
}

TEST(ElementwiseInferenceTest, ClipBoundsMustBeScalars) {
  OneNode n("Clip", {F32({4}), F32({2}), F32({})}, 1);
  EXPECT_EQ(n.Infer().code(), code::kInvalidParam);
  OneNode ok("Clip", {F32({4}), F32({}), F32({})}, 1);
  EXPECT_TRUE(ok.Infer().ok());
}

TEST(ElementwiseInferenceTest, BitwiseBinaryOpsBroadcastIntegersOnly) {
  for (const char* op : {"BitwiseAnd", "BitwiseOr", "BitwiseXor"}) {
    OneNode n(op, {T(DataType::kUint8, {2, 1, 3}), T(DataType::kUint8, {4, 1})}, 1, 18);
    ASSERT_TRUE(n.Infer().ok()) << op;
    EXPECT_EQ(n.out().dtype, DataType::kUint8);
    EXPECT_EQ(n.out().shape.ToString(), "[2,4,3]");
    OneNode f(op, {F32({2}), F32({2})}, 1, 18);
    EXPECT_EQ(f.Infer().code(), code::kInvalidParam) << op;
    OneNode old(op, {I64({2}), I64({2})}, 1, 17);
    EXPECT_EQ(old.Infer().code(), code::kFeatureUnsupported) << op;
  }
}

TEST(ElementwiseInferenceTest, BitwiseNotKeepsTheIntegerType) {
  OneNode n("BitwiseNot", {T(DataType::kInt16, {3, 4})}, 1, 18);
  ASSERT_TRUE(n.Infer().ok());
  EXPECT_EQ(n.out().dtype, DataType::kInt16);
  EXPECT_EQ(n.out().shape.ToString(), "[3,4]");
  OneNode b("BitwiseNot", {T(DataType::kBool, {3})}, 1, 18);
  EXPECT_EQ(b.Infer().code(), code::kInvalidParam);
}

TEST(ElementwiseInferenceTest, ShrinkTakesAnyNumberFromOpset9) {
  OneNode n("Shrink", {T(DataType::kInt8, {5})}, 1, 9);
  ASSERT_TRUE(n.Infer().ok());
  EXPECT_EQ(n.out().dtype, DataType::kInt8);
  OneNode b("Shrink", {T(DataType::kBool, {5})}, 1, 9);
  EXPECT_EQ(b.Infer().code(), code::kInvalidParam);
  OneNode old("Shrink", {F32({5})}, 1, 8);
  EXPECT_EQ(old.Infer().code(), code::kFeatureUnsupported);
}

TEST(ElementwiseInferenceTest, SwishIsAFloatOpFromOpset24) {
  OneNode n("Swish", {F32({2, 3})}, 1, 24);
  ASSERT_TRUE(n.Infer().ok());
  EXPECT_EQ(n.out().shape.ToString(), "[2,3]");
  OneNode i("Swish", {I64({2})}, 1, 24);
  EXPECT_EQ(i.Infer().code(), code::kInvalidParam);
  OneNode old("Swish", {F32({2})}, 1, 23);
  EXPECT_EQ(old.Infer().code(), code::kFeatureUnsupported);
}

TEST(ElementwiseInferenceTest, BitCastNeedsATypeOfTheSameWidth) {
  OneNode n("BitCast", {F32({2, 2})}, 1, 26);
  n.node->set_attr("to", int64_t{6});  // int32
  ASSERT_TRUE(n.Infer().ok());
  EXPECT_EQ(n.out().dtype, DataType::kInt32);
  EXPECT_EQ(n.out().shape.ToString(), "[2,2]");
  OneNode wide("BitCast", {F32({2})}, 1, 26);
  wide.node->set_attr("to", int64_t{7});  // int64
  EXPECT_EQ(wide.Infer().code(), code::kInvalidParam);
  OneNode str("BitCast", {F32({2})}, 1, 26);
  str.node->set_attr("to", int64_t{8});
  EXPECT_EQ(str.Infer().code(), code::kFeatureUnsupported);
  OneNode none("BitCast", {F32({2})}, 1, 26);
  EXPECT_EQ(none.Infer().code(), code::kInvalidParam);
}

}  // namespace
}  // namespace kiln::ir
