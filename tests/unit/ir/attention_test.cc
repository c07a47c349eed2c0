// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Inference for the attention family (Attention, RotaryEmbedding); expected shapes are worked
// by hand from the ONNX operator definitions.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "test_util.h"

namespace kiln::ir {
namespace {

using testing::F32;
using testing::I64;
using testing::OneNode;
using testing::T;

std::string OutShape(const OneNode& n, size_t i = 0) { return n.out(i).shape.ToString(); }

void ExpectFailure(OneNode& n, int code, const std::string& text) {
  Status s = n.Infer();
  EXPECT_EQ(s.code(), code) << s.message();
  EXPECT_NE(s.message().find(n.node->op_type() + " 'n'"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find(text), std::string::npos) << s.message();
}

// ---------------------------------------------------------------------------------------------
// Attention.

TEST(AttentionInferenceTest, FourDimensionalInputsGiveEveryOutput) {
  // Q [2,9,4,8], K [2,3,6,8], V [2,3,6,10] with a 12-token cache: total = 12 + 6 = 18.
  OneNode n("Attention",
            {F32({2, 9, 4, 8}), F32({2, 3, 6, 8}), F32({2, 3, 6, 10}), F32({4, 18}),
             F32({2, 3, 12, 8}), F32({2, 3, 12, 10})},
            4, 23);
  ASSERT_TRUE(n.Infer().ok()) << n.Infer().message();
  EXPECT_EQ(OutShape(n, 0), "[2,9,4,10]");
  EXPECT_EQ(OutShape(n, 1), "[2,3,18,8]");
  EXPECT_EQ(OutShape(n, 2), "[2,3,18,10]");
  EXPECT_EQ(OutShape(n, 3), "[2,9,4,18]");
  EXPECT_EQ(n.out(0).dtype, DataType::kFloat32);
}

TEST(AttentionInferenceTest, ThreeDimensionalInputsUseTheHeadAttributes) {
  // Q [2,4,72] with 9 heads of 8; V [2,6,30] with 3 heads of 10 -> Y [2,4,9*10].
  OneNode n("Attention", {F32({2, 4, 72}), F32({2, 6, 24}), F32({2, 6, 30})}, 3, 23);
  n.node->set_attr("q_num_heads", int64_t{9});
  n.node->set_attr("kv_num_heads", int64_t{3});
  ASSERT_TRUE(n.Infer().ok()) << n.Infer().message();
  EXPECT_EQ(OutShape(n, 0), "[2,4,90]");
  EXPECT_EQ(OutShape(n, 1), "[2,3,6,8]");
  EXPECT_EQ(OutShape(n, 2), "[2,3,6,10]");
}

TEST(AttentionInferenceTest, ThreeDimensionalInputsWithoutHeadCountsAreRejected) {
  OneNode n("Attention", {F32({2, 4, 24}), F32({2, 6, 24}), F32({2, 6, 24})}, 1, 23);
  ExpectFailure(n, code::kInvalidParam, "'q_num_heads' and 'kv_num_heads'");
  OneNode m("Attention", {F32({2, 4, 24}), F32({2, 6, 24}), F32({2, 6, 24})}, 1, 23);
  m.node->set_attr("q_num_heads", int64_t{5});
  m.node->set_attr("kv_num_heads", int64_t{3});
  ExpectFailure(m, code::kInvalidParam, "not a multiple of 'q_num_heads'");
}

TEST(AttentionInferenceTest, QueryHeadsMustBeAMultipleOfKeyValueHeads) {
  OneNode n("Attention", {F32({1, 4, 2, 8}), F32({1, 3, 2, 8}), F32({1, 3, 2, 8})}, 1, 23);
  ExpectFailure(n, code::kInvalidParam, "not a multiple of K and V's 3 heads");
}

TEST(AttentionInferenceTest, HeadSizesAndTypesMustAgree) {
  OneNode n("Attention", {F32({1, 1, 2, 8}), F32({1, 1, 2, 6}), F32({1, 1, 2, 8})}, 1, 23);
  ExpectFailure(n, code::kInvalidParam, "head sizes of Q and K");
  OneNode m("Attention",
            {F32({1, 1, 2, 8}), T(DataType::kFloat16, {1, 1, 2, 8}), F32({1, 1, 2, 8})}, 1, 23);
  ExpectFailure(m, code::kInvalidParam, "same type");
  OneNode i("Attention", {I64({1, 1, 2, 8}), I64({1, 1, 2, 8}), I64({1, 1, 2, 8})}, 1, 23);
  ExpectFailure(i, code::kInvalidParam, "floating-point");
}

TEST(AttentionInferenceTest, MaskMustBroadcastButMayBeShortFromOpset24) {
  // total = 6; a mask of 4 columns is padded at opset 24 and an error at opset 23.
  std::vector<TensorType> in = {F32({2, 3, 4, 8}), F32({2, 3, 6, 8}), F32({2, 3, 6, 8}),
                                F32({2, 3, 4, 4})};
  OneNode n23("Attention", in, 1, 23);
  ExpectFailure(n23, code::kInvalidParam, "does not broadcast");
  OneNode n24("Attention", in, 1, 24);
  ASSERT_TRUE(n24.Infer().ok()) << n24.Infer().message();
  EXPECT_EQ(OutShape(n24), "[2,3,4,8]");
  in[3] = F32({2, 1, 4, 6});
  OneNode ok("Attention", in, 1, 23);
  EXPECT_TRUE(ok.Infer().ok());
  in[3] = F32({3, 1, 4, 6});
  OneNode bad("Attention", in, 1, 23);
  ExpectFailure(bad, code::kInvalidParam, "does not broadcast");
}

TEST(AttentionInferenceTest, NonpadLengthsNeedOpset24AndPastNeedsBothCaches) {
  std::vector<TensorType> in = {F32({2, 3, 4, 8}), F32({2, 3, 6, 8}), F32({2, 3, 6, 8}),
                                F32({4, 6}),       F32({2, 3, 1, 8}), F32({2, 3, 1, 8}),
                                I64({2})};
  OneNode n("Attention", in, 1, 23);
  ExpectFailure(n, code::kInvalidParam, "needs opset 24");
  OneNode m("Attention", in, 1, 24);
  m.node->set_input(5, nullptr);
  ExpectFailure(m, code::kInvalidParam, "past_key and past_value must be given together");
}

TEST(AttentionInferenceTest, AttributeValuesAreChecked) {
  std::vector<TensorType> in = {F32({1, 1, 2, 8}), F32({1, 1, 2, 8}), F32({1, 1, 2, 8})};
  OneNode mode("Attention", in, 1, 23);
  mode.node->set_attr("qk_matmul_output_mode", int64_t{4});
  ExpectFailure(mode, code::kInvalidParam, "qk_matmul_output_mode");
  OneNode prec("Attention", in, 1, 23);
  prec.node->set_attr("softmax_precision", int64_t{7});  // int64
  ExpectFailure(prec, code::kInvalidParam, "softmax_precision");
  OneNode cap("Attention", in, 1, 23);
  cap.node->set_attr("softcap", -1.0f);
  ExpectFailure(cap, code::kInvalidParam, "softcap");
  OneNode causal("Attention", in, 1, 23);
  causal.node->set_attr("is_causal", int64_t{2});
  ExpectFailure(causal, code::kInvalidParam, "is_causal");
}

TEST(AttentionInferenceTest, DeclaredDefaultsAreFilledInAndInputDependentOnesLeftOut) {
  std::vector<TensorType> in = {F32({1, 1, 2, 8}), F32({1, 1, 2, 8}), F32({1, 1, 2, 8})};
  OneNode n("Attention", in, 1, 23);
  ASSERT_TRUE(n.Infer().ok()) << n.Infer().message();
  EXPECT_EQ(n.node->attr_int("is_causal"), 0);
  EXPECT_EQ(n.node->attr_int("qk_matmul_output_mode"), 0);
  EXPECT_FLOAT_EQ(n.node->attr_float("softcap"), 0.0f);
  // 1 / sqrt(head size) and the input's type: what the inputs give, so no default is stored.
  EXPECT_FALSE(n.node->has_attr("scale"));
  EXPECT_FALSE(n.node->has_attr("softmax_precision"));
  OneNode kind("Attention", in, 1, 23);
  kind.node->set_attr("scale", int64_t{1});
  ExpectFailure(kind, code::kInvalidParam, "attribute 'scale' is a int; Attention takes a float");
}

TEST(AttentionInferenceTest, UnknownSequenceLengthsStayUnknown) {
  TensorType k = {DataType::kFloat32,
                  Shape({Dim::Known(1), Dim::Known(2), Dim::Symbol("kv"), Dim::Known(8)})};
  OneNode n("Attention", {F32({1, 2, 3, 8}), k, k, F32({1}), F32({1, 2, 5, 8}), F32({1, 2, 5, 8})},
            4, 23);
  n.node->set_input(3, nullptr);  // no mask
  ASSERT_TRUE(n.Infer().ok()) << n.Infer().message();
  EXPECT_EQ(OutShape(n, 0), "[1,2,3,8]");
  EXPECT_EQ(OutShape(n, 1), "[1,2,?,8]");
  EXPECT_EQ(OutShape(n, 3), "[1,2,3,?]");
}

TEST(AttentionInferenceTest, OpsetBelow23IsUnsupported) {
  OneNode n("Attention", {F32({1, 1, 2, 8}), F32({1, 1, 2, 8}), F32({1, 1, 2, 8})}, 1, 22);
  EXPECT_EQ(n.Infer().code(), code::kFeatureUnsupported);
}

// ---------------------------------------------------------------------------------------------
// RotaryEmbedding.

TEST(AttentionInferenceTest, RotaryEmbeddingKeepsTheInputShape) {
  OneNode n("RotaryEmbedding", {F32({2, 4, 3, 8}), F32({50, 4}), F32({50, 4}), I64({2, 3})}, 1, 23);
  ASSERT_TRUE(n.Infer().ok()) << n.Infer().message();
  EXPECT_EQ(OutShape(n), "[2,4,3,8]");
  // Without position ids the caches are [batch, seq, rot / 2]; rotary_embedding_dim = 4.
  OneNode m("RotaryEmbedding", {F32({2, 4, 3, 8}), F32({2, 3, 2}), F32({2, 3, 2})}, 1, 23);
  m.node->set_attr("rotary_embedding_dim", int64_t{4});
  ASSERT_TRUE(m.Infer().ok()) << m.Infer().message();
  EXPECT_EQ(OutShape(m), "[2,4,3,8]");
}

TEST(AttentionInferenceTest, RotaryEmbeddingChecksHeadsCachesAndDims) {
  OneNode no_heads("RotaryEmbedding", {F32({2, 3, 32}), F32({50, 4}), F32({50, 4}), I64({2, 3})}, 1,
                   23);
  ExpectFailure(no_heads, code::kInvalidParam, "'num_heads'");
  OneNode cache("RotaryEmbedding", {F32({2, 4, 3, 8}), F32({50, 3}), F32({50, 3}), I64({2, 3})}, 1,
                23);
  ExpectFailure(cache, code::kInvalidParam, "cos_cache has shape [50,3]");
  OneNode odd("RotaryEmbedding", {F32({2, 4, 3, 8}), F32({50, 4}), F32({50, 4}), I64({2, 3})}, 1,
              23);
  odd.node->set_attr("rotary_embedding_dim", int64_t{3});
  ExpectFailure(odd, code::kInvalidParam, "must be even");
  OneNode dbl("RotaryEmbedding",
              {T(DataType::kFloat64, {2, 4, 3, 8}), T(DataType::kFloat64, {50, 4}),
               T(DataType::kFloat64, {50, 4})},
              1, 23);
  ExpectFailure(dbl, code::kInvalidParam, "float32, float16 or bfloat16");
}

}  // namespace
}  // namespace kiln::ir
