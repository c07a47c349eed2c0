// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "tests/unit/ir/test_util.h"

namespace kiln::ir {
namespace {

using testing::F32;

// One fused node in the com.kiln domain (OneNode builds default-domain nodes).
struct FusedNode {
  FusedNode(const std::string& op, std::vector<TensorType> inputs) {
    std::vector<Value*> ins;
    for (size_t i = 0; i < inputs.size(); ++i) {
      ins.push_back(*graph.AddValue("in" + std::to_string(i), inputs[i]));
    }
    Value* out = *graph.AddValue("out", {});
    node = *graph.AddNode(op, "com.kiln", "f", 17, ins, {out});
  }
  Status Infer() { return InferNode(OpRegistry::Global(), *node); }
  Graph graph;
  Node* node;
};

TEST(FusedInferenceTest, FusedConvInfersLikeConvAndChecksTheResidual) {
  FusedNode n("FusedConv", {F32({1, 3, 8, 8}), F32({4, 3, 3, 3}), F32({4}), F32({1, 4, 6, 6})});
  n.node->set_attr("activation", std::string("Relu"));
  ASSERT_TRUE(n.Infer().ok()) << n.Infer().message();
  EXPECT_EQ(n.node->output(0)->shape().ToString(), "[1,4,6,6]");
  FusedNode bad("FusedConv", {F32({1, 3, 8, 8}), F32({4, 3, 3, 3}), F32({4}), F32({1, 4, 8, 8})});
  Status s = bad.Infer();
  EXPECT_EQ(s.code(), code::kInvalidParam);
  EXPECT_NE(s.message().find("residual shape [1,4,8,8]"), std::string::npos);
}

TEST(FusedInferenceTest, UnknownActivationIsUnsupported) {
  FusedNode n("FusedGemm", {F32({2, 3}), F32({3, 5})});
  n.node->set_attr("activation", std::string("Swoosh"));
  EXPECT_EQ(n.Infer().code(), code::kFeatureUnsupported);
}

TEST(FusedInferenceTest, FusedMatMulBiasMustMatchTheLastDim) {
  FusedNode ok("FusedMatMul", {F32({2, 3, 4}), F32({4, 5}), F32({5})});
  ASSERT_TRUE(ok.Infer().ok());
  EXPECT_EQ(ok.node->output(0)->shape().ToString(), "[2,3,5]");
  FusedNode bad("FusedMatMul", {F32({2, 3, 4}), F32({4, 5}), F32({4})});
  EXPECT_EQ(bad.Infer().code(), code::kInvalidParam);
}

TEST(FusedInferenceTest, FusedMatMulBiasOfAScalarProductHasOneValue) {
  FusedNode ok("FusedMatMul", {F32({4}), F32({4}), F32({1})});
  ASSERT_TRUE(ok.Infer().ok());
  EXPECT_EQ(ok.node->output(0)->shape().ToString(), "[]");
  FusedNode bad("FusedMatMul", {F32({4}), F32({4}), F32({3})});
  EXPECT_EQ(bad.Infer().code(), code::kInvalidParam);
  FusedNode type("FusedMatMul", {F32({2, 4}), F32({4, 3}), {DataType::kFloat16, Shape::Of({3})}});
  EXPECT_EQ(type.Infer().code(), code::kInvalidParam);
}

TEST(FusedInferenceTest, LayoutFlagsNeedATwoDimensionalConvolution) {
  // Z is rank 4, but the convolution is 1-D.
  FusedNode n("FusedConv", {F32({1, 3, 8}), F32({4, 3, 3}), F32({4}), F32({1, 4, 6, 1})});
  n.node->set_attr("kiln_z_nhwc", int64_t{1});
  Status s = n.Infer();
  EXPECT_EQ(s.code(), code::kInvalidParam);
  EXPECT_NE(s.message().find("needs a 2-D op"), std::string::npos) << s.message();
}

TEST(FusedInferenceTest, OwnAttributesAndTheBaseOpsAreDeclared) {
  FusedNode gemm("FusedGemm", {F32({2, 3}), F32({3, 5})});
  ASSERT_TRUE(gemm.Infer().ok());
  EXPECT_EQ(gemm.node->attr_string("activation"), "");
  EXPECT_FLOAT_EQ(gemm.node->attr_float("alpha"), 1.0f);
  EXPECT_EQ(gemm.node->attr_int("transB"), 0);
  // The activation's parameters default with the activation; the layout flags' absence is NCHW.
  EXPECT_FALSE(gemm.node->has_attr("activation_alpha"));
  FusedNode conv("FusedConv", {F32({1, 3, 8, 8}), F32({4, 3, 3, 3})});
  ASSERT_TRUE(conv.Infer().ok());
  EXPECT_EQ(conv.node->attr_int("group"), 1);
  EXPECT_FALSE(conv.node->has_attr("kiln_x_nhwc"));
}

TEST(FusedInferenceTest, PackedQkvAttentionSplitsItsWidthIntoQKAndVHeads) {
  // 4 query heads and 2 key / value heads of 8: (4 + 2 + 2) * 8 = 64 columns; Y [2, 9, 4 * 8].
  auto packed = [](std::vector<TensorType> in, int64_t hq, int64_t hkv) {
    auto n = std::make_unique<FusedNode>("PackedQkvAttention", std::move(in));
    if (hq > 0) n->node->set_attr("q_num_heads", hq);
    if (hkv > 0) n->node->set_attr("kv_num_heads", hkv);
    return n;
  };
  auto ok = packed({F32({2, 9, 64}), F32({2, 1, 1, 9})}, 4, 2);
  ASSERT_TRUE(ok->Infer().ok()) << ok->Infer().message();
  EXPECT_EQ(ok->node->output(0)->shape().ToString(), "[2,9,32]");
  struct Bad {
    std::vector<TensorType> in;
    int64_t hq, hkv;
    const char* text;
  };
  const Bad bad[] = {
      {{F32({2, 9, 60})}, 4, 2, "not a multiple of 'q_num_heads + 2 * kv_num_heads'"},
      {{F32({2, 9, 64})}, 4, 0, "'q_num_heads' and 'kv_num_heads' are required"},
      {{F32({2, 9, 64})}, 3, 2, "not a multiple of 'kv_num_heads'"},
      {{F32({2, 9, 4, 16})}, 4, 2, "rank 3 is required"},
      {{F32({2, 9, 64}), F32({2, 1, 1, 8})}, 4, 2, "does not broadcast"},
      {{{DataType::kInt64, Shape::Of({2, 9, 64})}}, 4, 2, "floating-point"},
  };
  for (const Bad& b : bad) {
    SCOPED_TRACE(b.text);
    auto n = packed(b.in, b.hq, b.hkv);
    Status s = n->Infer();
    EXPECT_EQ(s.code(), code::kInvalidParam) << s.message();
    EXPECT_NE(s.message().find(b.text), std::string::npos) << s.message();
  }
}

}  // namespace
}  // namespace kiln::ir
