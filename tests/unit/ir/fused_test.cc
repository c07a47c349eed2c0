// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace kiln::ir
