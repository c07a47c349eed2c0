// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Inference for the state_space family (LinearAttention, CausalConvWithState); expected shapes
// are worked by hand from the ONNX opset-27 specs, and the refusals are those of ONNX's own
// shape inference for the same nodes.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "test_util.h"

namespace kiln::ir {
namespace {

using testing::F32;
using testing::OneNode;
using testing::T;

TensorType F16(std::vector<int64_t> dims) { return T(DataType::kFloat16, std::move(dims)); }

void ExpectCode(const Status& s, int code, const std::string& text = "") {
  EXPECT_EQ(s.code(), code) << s.message();
  EXPECT_NE(s.message().find(text), std::string::npos) << s.message();
}

// A LinearAttention node over (query, key, value, past_state, decay, beta); an input with an
// undefined type is left out.
std::unique_ptr<OneNode> Attention(std::vector<TensorType> in, int64_t hq, int64_t hkv,
                                   const char* rule) {
  std::vector<size_t> omitted;
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i].dtype == DataType::kUndefined) omitted.push_back(i);
  }
  auto n = std::make_unique<OneNode>("LinearAttention", std::move(in), 2, 27);
  for (size_t i : omitted) n->node->set_input(i, nullptr);
  n->node->set_attr("q_num_heads", hq);
  n->node->set_attr("kv_num_heads", hkv);
  if (rule != nullptr) n->node->set_attr("update_rule", std::string(rule));
  return n;
}

const TensorType kNone{};  // an omitted input

TEST(StateSpaceInferenceTest, TheFamilyIsStateSpaceFromOpset27) {
  for (const char* op : {"LinearAttention", "CausalConvWithState"}) {
    const OpSchema* s = OpRegistry::Global().Find("", op);
    ASSERT_NE(s, nullptr) << op;
    EXPECT_EQ(s->family, "state_space") << op;
    EXPECT_EQ(s->since_version, 27) << op;
  }
}

// ---- LinearAttention ------------------------------------------------------------------------

TEST(StateSpaceInferenceTest, LinearAttentionUnpacksTheHeads) {
  // Hq = 2 query heads share Hkv = 1 key/value head: dk = 8 / 2 = 4 (key: 4 / 1), dv = 6 / 1;
  // output [B, T, Hq * dv] = [2, 3, 12], present_state [B, Hkv, dk, dv] = [2, 1, 4, 6].
  auto n = Attention({F32({2, 3, 8}), F32({2, 3, 4}), F32({2, 3, 6})}, 2, 1, "linear");
  ASSERT_TRUE(n->Infer().ok()) << n->Infer().message();
  EXPECT_EQ(n->out(0).dtype, DataType::kFloat32);
  EXPECT_EQ(n->out(0).shape.ToString(), "[2,3,12]");
  EXPECT_EQ(n->out(1).dtype, DataType::kFloat32);
  EXPECT_EQ(n->out(1).shape.ToString(), "[2,1,4,6]");
}

TEST(StateSpaceInferenceTest, LinearAttentionFillsInItsDefaults) {
  // The default rule is gated_delta, which takes decay and beta.
  auto n = Attention(
      {F32({1, 1, 4}), F32({1, 1, 4}), F32({1, 1, 4}), kNone, F32({1, 1, 2}), F32({1, 1, 1})}, 2, 2,
      nullptr);
  ASSERT_TRUE(n->Infer().ok()) << n->Infer().message();
  EXPECT_EQ(n->node->attr_string("update_rule"), "gated_delta");
  EXPECT_EQ(n->node->attr_int("chunk_size"), 64);
  EXPECT_EQ(n->node->attr_float("scale"), 0.0f);
  EXPECT_EQ(n->out(1).shape.ToString(), "[1,2,2,2]");
}

TEST(StateSpaceInferenceTest, LinearAttentionNeedsTheHeadCounts) {
  OneNode n("LinearAttention", {F32({1, 1, 4}), F32({1, 1, 4}), F32({1, 1, 4})}, 2, 27);
  n.node->set_attr("q_num_heads", int64_t{1});
  n.node->set_attr("update_rule", std::string("linear"));
  ExpectCode(n.Infer(), code::kInvalidParam, "kv_num_heads");
}

TEST(StateSpaceInferenceTest, LinearAttentionStateTakesPastStateTypeElseTheActivations) {
  // float16 activations with a float32 state: the state stays float32.
  auto with = Attention({F16({1, 2, 4}), F16({1, 2, 4}), F16({1, 2, 4}), F32({1, 1, 4, 4})}, 1, 1,
                        "linear");
  ASSERT_TRUE(with->Infer().ok()) << with->Infer().message();
  EXPECT_EQ(with->out(0).dtype, DataType::kFloat16);
  EXPECT_EQ(with->out(1).dtype, DataType::kFloat32);
  // Without past_state, the activations' type.
  auto without = Attention({F16({1, 2, 4}), F16({1, 2, 4}), F16({1, 2, 4})}, 1, 1, "linear");
  ASSERT_TRUE(without->Infer().ok()) << without->Infer().message();
  EXPECT_EQ(without->out(1).dtype, DataType::kFloat16);
}

TEST(StateSpaceInferenceTest, LinearAttentionTakesDimsFromWhicheverInputKnowsThem) {
  // Symbolic batch and sequence pass through; the query's rank is unknown, so dk comes from the
  // key (8 / 2 = 4), and dv = 6 / 2 = 3.
  TensorType k{DataType::kFloat32, Shape({Dim::Symbol("B"), Dim::Symbol("T"), Dim::Known(8)})};
  TensorType v{DataType::kFloat32, Shape({Dim::Unknown(), Dim::Unknown(), Dim::Known(6)})};
  auto n = Attention({{DataType::kFloat32, Shape()}, k, v}, 4, 2, "linear");
  ASSERT_TRUE(n->Infer().ok()) << n->Infer().message();
  EXPECT_EQ(n->out(0).shape.ToString(), "[B,T,12]");
  EXPECT_EQ(n->out(1).shape.ToString(), "[B,2,4,3]");
  // A per-element decay gives dk when no other input does: 8 / 2 = 4.
  TensorType u{DataType::kFloat32, Shape({Dim::Known(1), Dim::Known(5), Dim::Unknown()})};
  auto g = Attention({u, u, F32({1, 5, 6}), kNone, F32({1, 5, 8})}, 2, 2, "gated");
  ASSERT_TRUE(g->Infer().ok()) << g->Infer().message();
  EXPECT_EQ(g->out(1).shape.ToString(), "[1,2,4,3]");
}

TEST(StateSpaceInferenceTest, LinearAttentionDecayAndBetaGoWithTheirRules) {
  const std::vector<TensorType> qkv = {F32({2, 3, 8}), F32({2, 3, 8}), F32({2, 3, 8})};
  auto with = [&](TensorType decay, TensorType beta) {
    std::vector<TensorType> in = qkv;
    in.insert(in.end(), {kNone, decay, beta});
    return in;
  };
  // Per-head (Hkv = 2) and per-element (2 * 4) decays, per-head and shared betas.
  for (const TensorType& decay : {F32({2, 3, 2}), F32({2, 3, 8})}) {
    for (const TensorType& beta : {F32({2, 3, 2}), F32({2, 3, 1})}) {
      auto n = Attention(with(decay, beta), 2, 2, "gated_delta");
      EXPECT_TRUE(n->Infer().ok()) << n->Infer().message();
    }
  }
  ExpectCode(Attention(with(kNone, F32({2, 3, 2})), 2, 2, "gated_delta")->Infer(),
             code::kInvalidParam, "update_rule 'gated_delta' requires decay");
  ExpectCode(Attention(with(F32({2, 3, 2}), kNone), 2, 2, "delta")->Infer(), code::kInvalidParam,
             "update_rule 'delta' does not take decay");
  ExpectCode(Attention(with(kNone, kNone), 2, 2, "delta")->Infer(), code::kInvalidParam,
             "requires beta");
  ExpectCode(Attention(with(kNone, F32({2, 3, 1})), 2, 2, "linear")->Infer(), code::kInvalidParam,
             "does not take beta");
  ExpectCode(Attention(with(F32({2, 3, 3}), F32({2, 3, 1})), 2, 2, "gated_delta")->Infer(),
             code::kInvalidParam, "the last dim of decay (3) must be kv_num_heads (2)");
  ExpectCode(Attention(with(F32({2, 3, 2}), F32({2, 3, 4})), 2, 2, "gated_delta")->Infer(),
             code::kInvalidParam, "the last dim of beta (4)");
  ExpectCode(Attention(with(F32({2, 4, 2}), F32({2, 3, 1})), 2, 2, "gated_delta")->Infer(),
             code::kInvalidParam, "sequence dims of query and decay");
  ExpectCode(Attention(with(F32({2, 3, 2}), F32({2, 3})), 2, 2, "gated_delta")->Infer(),
             code::kInvalidParam, "beta has shape [2,3]; rank 3");
}

TEST(StateSpaceInferenceTest, LinearAttentionRefusesBadNodes) {
  const std::vector<TensorType> qkv = {F32({2, 3, 8}), F32({2, 3, 4}), F32({2, 3, 6})};
  ExpectCode(Attention(qkv, 2, 1, "softmax")->Infer(), code::kInvalidParam, "update_rule");
  ExpectCode(Attention(qkv, 3, 2, "linear")->Infer(), code::kInvalidParam,
             "q_num_heads (3) must be a positive multiple of kv_num_heads (2)");
  ExpectCode(Attention(qkv, 0, 0, "linear")->Infer(), code::kInvalidParam, "positive multiple");
  // 8 / 3 query heads; 6 / 4 value heads.
  ExpectCode(Attention(qkv, 3, 1, "linear")->Infer(), code::kInvalidParam,
             "the last dim of query (8) is not divisible by q_num_heads (3)");
  ExpectCode(Attention({F32({2, 3, 8}), F32({2, 3, 8}), F32({2, 3, 6})}, 4, 4, "linear")->Infer(),
             code::kInvalidParam, "the last dim of value (6) is not divisible by kv_num_heads (4)");
  // Key heads of 5 against query heads of 4.
  ExpectCode(Attention({F32({2, 3, 8}), F32({2, 3, 5}), F32({2, 3, 6})}, 2, 1, "linear")->Infer(),
             code::kInvalidParam, "head sizes of query and key");
  ExpectCode(Attention({F32({2, 3, 8}), F32({1, 3, 4}), F32({2, 3, 6})}, 2, 1, "linear")->Infer(),
             code::kInvalidParam, "batch dims of query and key");
  ExpectCode(
      Attention({F32({2, 3, 8, 1}), F32({2, 3, 4}), F32({2, 3, 6})}, 2, 1, "linear")->Infer(),
      code::kInvalidParam, "query has shape [2,3,8,1]; rank 3");
  // past_state must be [B, Hkv, dk, dv] = [2, 1, 4, 6].
  for (const TensorType& past :
       {F32({2, 1, 4, 5}), F32({3, 1, 4, 6}), F32({2, 2, 4, 6}), F32({2, 1, 6})}) {
    std::vector<TensorType> in = qkv;
    in.push_back(past);
    EXPECT_EQ(Attention(in, 2, 1, "linear")->Infer().code(), code::kInvalidParam)
        << past.shape.ToString();
  }
  // Types: float16, bfloat16 or float32, the activations all of one.
  ExpectCode(Attention({T(DataType::kFloat64, {2, 3, 8}), T(DataType::kFloat64, {2, 3, 4}),
                        T(DataType::kFloat64, {2, 3, 6})},
                       2, 1, "linear")
                 ->Infer(),
             code::kInvalidParam, "query is float64");
  ExpectCode(Attention({F32({2, 3, 8}), F16({2, 3, 4}), F32({2, 3, 6})}, 2, 1, "linear")->Infer(),
             code::kInvalidParam, "key is float16 but query is float32");
  std::vector<TensorType> in = qkv;
  in.push_back(T(DataType::kInt32, {2, 1, 4, 6}));
  ExpectCode(Attention(in, 2, 1, "linear")->Infer(), code::kInvalidParam, "past_state is int32");
}

// ---- CausalConvWithState --------------------------------------------------------------------

std::unique_ptr<OneNode> Conv(std::vector<TensorType> in, const char* activation = nullptr) {
  std::vector<size_t> omitted;
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i].dtype == DataType::kUndefined) omitted.push_back(i);
  }
  auto n = std::make_unique<OneNode>("CausalConvWithState", std::move(in), 2, 27);
  for (size_t i : omitted) n->node->set_input(i, nullptr);
  if (activation != nullptr) n->node->set_attr("activation", std::string(activation));
  return n;
}

TEST(StateSpaceInferenceTest, CausalConvKeepsTheInputShapeAndCarriesKMinusOne) {
  // k = 4: present_state keeps the last 3 positions.
  auto n = Conv({F32({2, 3, 5}), F32({3, 1, 4})});
  ASSERT_TRUE(n->Infer().ok()) << n->Infer().message();
  EXPECT_EQ(n->node->attr_string("activation"), "none");
  EXPECT_EQ(n->out(0).dtype, DataType::kFloat32);
  EXPECT_EQ(n->out(0).shape.ToString(), "[2,3,5]");
  EXPECT_EQ(n->out(1).dtype, DataType::kFloat32);
  EXPECT_EQ(n->out(1).shape.ToString(), "[2,3,3]");
  // k = 1 carries nothing.
  auto one = Conv({F16({2, 3, 5}), F16({3, 1, 1}), F16({3})}, "swish");
  ASSERT_TRUE(one->Infer().ok()) << one->Infer().message();
  EXPECT_EQ(one->out(1).dtype, DataType::kFloat16);
  EXPECT_EQ(one->out(1).shape.ToString(), "[2,3,0]");
  // A weight of unknown kernel size: past_state gives k - 1; symbolic dims pass through.
  TensorType x{DataType::kFloat32, Shape({Dim::Symbol("B"), Dim::Known(3), Dim::Symbol("L")})};
  TensorType w{DataType::kFloat32, Shape({Dim::Known(3), Dim::Known(1), Dim::Unknown()})};
  auto past = Conv({x, w, kNone, F32({2, 3, 2})}, "silu");
  ASSERT_TRUE(past->Infer().ok()) << past->Infer().message();
  EXPECT_EQ(past->out(0).shape.ToString(), "[2,3,L]");
  EXPECT_EQ(past->out(1).shape.ToString(), "[2,3,2]");
}

TEST(StateSpaceInferenceTest, CausalConvRefusesBadNodes) {
  const TensorType x = F32({2, 3, 5});
  ExpectCode(Conv({x, F32({3, 1, 4})}, "relu")->Infer(), code::kInvalidParam, "activation");
  ExpectCode(Conv({x, F32({4, 1, 4})})->Infer(), code::kInvalidParam,
             "channels of input and weight");
  ExpectCode(Conv({x, F32({3, 2, 4})})->Infer(), code::kInvalidParam, "a depthwise weight");
  ExpectCode(Conv({x, F32({3, 1, 0})})->Infer(), code::kInvalidParam, "kernel size 0");
  ExpectCode(Conv({x, F32({3, 4})})->Infer(), code::kInvalidParam, "weight has shape [3,4]");
  ExpectCode(Conv({F32({2, 3, 5, 1}), F32({3, 1, 4})})->Infer(), code::kInvalidParam, "rank 3");
  ExpectCode(Conv({x, F32({3, 1, 4}), F32({4})})->Infer(), code::kInvalidParam,
             "channels of input and bias");
  ExpectCode(Conv({x, F32({3, 1, 4}), F32({3, 1})})->Infer(), code::kInvalidParam,
             "bias has shape");
  ExpectCode(Conv({x, F32({3, 1, 4}), kNone, F32({2, 3, 2})})->Infer(), code::kInvalidParam,
             "dim 2 of past_state");
  ExpectCode(Conv({x, F32({3, 1, 4}), kNone, F32({1, 3, 3})})->Infer(), code::kInvalidParam,
             "batch dims of input and past_state");
  ExpectCode(Conv({x, F32({3, 1, 4}), kNone, F16({2, 3, 3})})->Infer(), code::kInvalidParam,
             "past_state is float16 but input is float32");
  ExpectCode(Conv({T(DataType::kFloat64, {2, 3, 5}), T(DataType::kFloat64, {3, 1, 4})})->Infer(),
             code::kInvalidParam, "input is float64");
}

}  // namespace
}  // namespace kiln::ir
