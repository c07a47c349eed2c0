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

TEST(ElementwiseInferenceTest, InferenceFillsInTheOnnxDefaults) {
  OneNode leaky("LeakyRelu", {F32({2})}, 1);
  ASSERT_TRUE(leaky.Infer().ok());
  EXPECT_EQ(leaky.node->attr_float("alpha"), 0.01f);
  OneNode hard("HardSigmoid", {F32({2})}, 1);
  hard.node->set_attr("beta", 0.25f);
  ASSERT_TRUE(hard.Infer().ok());
  EXPECT_EQ(hard.node->attr_float("alpha"), 0.2f);
  EXPECT_EQ(hard.node->attr_float("beta"), 0.25f);  // a given value stays
  OneNode selu("Selu", {F32({2})}, 1);
  ASSERT_TRUE(selu.Infer().ok());
  EXPECT_EQ(selu.node->attr_float("alpha"), 1.67326319217681884765625f);
  EXPECT_EQ(selu.node->attr_float("gamma"), 1.05070102214813232421875f);
  OneNode gelu("Gelu", {F32({2})}, 1, 20);
  ASSERT_TRUE(gelu.Infer().ok());
  EXPECT_EQ(gelu.node->attr_string("approximate"), "none");
  OneNode inf("IsInf", {F32({2})}, 1, 10);
  ASSERT_TRUE(inf.Infer().ok());
  EXPECT_EQ(inf.node->attr_int("detect_positive"), 1);
  EXPECT_EQ(inf.node->attr_int("detect_negative"), 1);
  // Attributes of later opsets are not added to earlier ones.
  OneNode cast13("Cast", {F32({2})}, 1, 13);
  cast13.node->set_attr("to", int64_t{7});
  ASSERT_TRUE(cast13.Infer().ok());
  EXPECT_FALSE(cast13.node->has_attr("saturate"));
  OneNode cast19("Cast", {F32({2})}, 1, 19);
  cast19.node->set_attr("to", int64_t{7});
  ASSERT_TRUE(cast19.Infer().ok());
  EXPECT_EQ(cast19.node->attr_int("saturate"), 1);
  EXPECT_FALSE(cast19.node->has_attr("round_mode"));
}

TEST(ElementwiseInferenceTest, RequiredAttributesAndAttributeKindsAreChecked) {
  OneNode no_to("Cast", {F32({2})}, 1);
  Status s = no_to.Infer();
  EXPECT_EQ(s.code(), code::kInvalidParam);
  EXPECT_NE(s.message().find("'to' is required"), std::string::npos) << s.message();
  OneNode no_direction("BitShift", {T(DataType::kUint8, {2}), T(DataType::kUint8, {2})}, 1, 11);
  EXPECT_EQ(no_direction.Infer().code(), code::kInvalidParam);
  OneNode int_alpha("LeakyRelu", {F32({2})}, 1);
  int_alpha.node->set_attr("alpha", int64_t{1});
  EXPECT_EQ(int_alpha.Infer().code(), code::kInvalidParam);
}

TEST(ElementwiseInferenceTest, AttributeValuesAreCheckedOnce) {
  OneNode gelu("Gelu", {F32({2})}, 1, 20);
  gelu.node->set_attr("approximate", std::string("fast"));
  Status s = gelu.Infer();
  EXPECT_EQ(s.code(), code::kInvalidParam);
  EXPECT_NE(s.message().find("'approximate'"), std::string::npos) << s.message();
  OneNode celu("Celu", {F32({2})}, 1, 12);
  celu.node->set_attr("alpha", 0.0f);
  EXPECT_EQ(celu.Infer().code(), code::kInvalidParam);
  OneNode mod("Mod", {I64({2}), I64({2})}, 1, 13);
  mod.node->set_attr("fmod", int64_t{2});
  EXPECT_EQ(mod.Infer().code(), code::kInvalidParam);
  OneNode float_mod("Mod", {F32({2}), F32({2})}, 1, 13);
  EXPECT_EQ(float_mod.Infer().code(), code::kInvalidParam);  // floats need fmod=1
}

TEST(ElementwiseInferenceTest, ArithmeticAndComparisonsTakeNumbers) {
  const TensorType b = T(DataType::kBool, {2});
  for (const char* op : {"Add", "Mul", "Max", "Sum"}) {
    OneNode n(op, {b, b}, 1);
    EXPECT_EQ(n.Infer().code(), code::kInvalidParam) << op;
  }
  OneNode less("Less", {b, b}, 1);
  EXPECT_EQ(less.Infer().code(), code::kInvalidParam);
  OneNode equal("Equal", {b, b}, 1);
  EXPECT_TRUE(equal.Infer().ok());
  OneNode pow("Pow", {F32({2}), b}, 1, 15);
  EXPECT_EQ(pow.Infer().code(), code::kInvalidParam);
  OneNode mixed_pow("Pow", {F32({2}), I64({1})}, 1, 15);
  ASSERT_TRUE(mixed_pow.Infer().ok());
  EXPECT_EQ(mixed_pow.out().dtype, DataType::kFloat32);
  OneNode clip("Clip", {b}, 1, 13);
  EXPECT_EQ(clip.Infer().code(), code::kInvalidParam);
  OneNode prelu("PRelu", {b, b}, 1);
  EXPECT_EQ(prelu.Infer().code(), code::kInvalidParam);
}

TEST(ElementwiseInferenceTest, DropoutMaskAndInputs) {
  OneNode old("Dropout", {F32({2, 3})}, 2, 7);
  ASSERT_TRUE(old.Infer().ok());
  EXPECT_EQ(old.out(1).dtype, DataType::kFloat32);  // Dropout-7 types the mask like the input
  EXPECT_EQ(old.node->attr_float("ratio"), 0.5f);
  OneNode n("Dropout", {F32({2, 3}), F32({}), T(DataType::kBool, {})}, 2, 13);
  ASSERT_TRUE(n.Infer().ok());
  EXPECT_EQ(n.out(0).shape.ToString(), "[2,3]");
  EXPECT_EQ(n.out(1).dtype, DataType::kBool);
  EXPECT_EQ(n.out(1).shape.ToString(), "[2,3]");
  EXPECT_FALSE(n.node->has_attr("ratio"));
  OneNode vector_ratio("Dropout", {F32({2}), F32({2})}, 1, 13);
  EXPECT_EQ(vector_ratio.Infer().code(), code::kInvalidParam);
  OneNode float_mode("Dropout", {F32({2}), F32({}), F32({})}, 1, 13);
  EXPECT_EQ(float_mode.Infer().code(), code::kInvalidParam);
}

}  // namespace
}  // namespace kiln::ir
