// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

#include "compiler/passes/passes.h"
#include "tests/unit/compiler/fusion_test_util.h"
#include "tests/unit/compiler/pass_test_util.h"

namespace kiln::compiler {
namespace {

using ir::DataType;
using testing::Floats;
using testing::GraphBuilder;
using testing::RunPass;

// x [1,1,2,2] -> Conv(W [2,1,1,1], no B, strides and pads set) -> y.
struct ConvNoBias {
  GraphBuilder g;
  ir::Value* x = g.In("x", DataType::kFloat32, {1, 1, 2, 2});
  ir::Value* w = g.ConstF("w", {2, 1, 1, 1}, {1, -1});
  ir::Value* y = g.Op("Conv", "conv", {x, w},
                      {{"strides", std::vector<int64_t>{1, 1}},
                       {"pads", std::vector<int64_t>{0, 0, 0, 0}},
                       {"group", int64_t{1}}});
};

const ir::Node* OnlyNode(const GraphBuilder& g) {
  return g.graph.nodes().size() == 1 ? g.graph.nodes().front().get() : nullptr;
}

TEST(BiasActivationFusionPassTest, ConvFollowedByReluBecomesFusedConvWithReluActivation) {
  GraphBuilder g;
  ir::Value* x = g.In("x", DataType::kFloat32, {1, 1, 2, 2});
  ir::Value* w = g.ConstF("w", {2, 1, 1, 1}, {1, -1});
  ir::Value* b = g.ConstF("b", {2}, {0, 1});
  ir::Value* y = g.Op("Conv", "conv", {x, w, b}, {{"strides", std::vector<int64_t>{1, 1}}});
  ir::Value* out = g.Op("Relu", "relu", {y});
  g.Out(out);
  auto pass = CreateBiasActivationFusionPass();
  ASSERT_NE(pass, nullptr);
  EXPECT_STREQ(pass->name(), "bias_activation_fusion");
  EXPECT_TRUE(RunPass(*pass, g));
  EXPECT_EQ(g.OpTypes(), "FusedConv");
  const ir::Node* fused = OnlyNode(g);
  ASSERT_NE(fused, nullptr);
  EXPECT_EQ(fused->domain(), "com.kiln");
  EXPECT_EQ(fused->inputs(), (std::vector<ir::Value*>{x, w, b}));
  EXPECT_EQ(fused->outputs(), (std::vector<ir::Value*>{out}));
  EXPECT_EQ(g.graph.outputs()[0], out);
  EXPECT_TRUE(fused->has_attr("activation"));
  EXPECT_EQ(fused->attr_string("activation"), "Relu");
  EXPECT_FALSE(fused->has_attr("activation_alpha"));
  EXPECT_EQ(fused->attr_ints("strides"), (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(fused->origins(), (testing::Names{"conv", "relu"}));
  EXPECT_EQ(g.graph.opsets().count("com.kiln"), 1u);
}

TEST(BiasActivationFusionPassTest, ChannelBiasAddAndLeakyReluFoldIntoOneFusedConv) {
  ConvNoBias m;
  ir::Value* a = m.g.Op("Add", "add", {m.y, m.g.ConstF("bias", {1, 2, 1, 1}, {1, 2})});
  ir::Value* out = m.g.Op("LeakyRelu", "lrelu", {a}, {{"alpha", 0.2f}});
  m.g.Out(out);
  auto pass = CreateBiasActivationFusionPass();
  EXPECT_TRUE(RunPass(*pass, m.g));
  EXPECT_EQ(m.g.OpTypes(), "FusedConv");
  const ir::Node* fused = OnlyNode(m.g);
  ASSERT_NE(fused, nullptr);
  ASSERT_EQ(fused->inputs().size(), 3u);
  EXPECT_EQ(fused->input(0), m.x);
  EXPECT_EQ(fused->input(1), m.w);
  // The [1,2,1,1] bias becomes the Conv's [2] bias under a new name.
  EXPECT_EQ(fused->input(2)->constant()->dims(), (std::vector<int64_t>{2}));
  EXPECT_EQ(Floats(fused->input(2)), (std::vector<float>{1.0f, 2.0f}));
  EXPECT_NE(fused->input(2)->name(), "bias");
  EXPECT_EQ(fused->output(0), out);
  EXPECT_TRUE(fused->has_attr("activation"));
  EXPECT_EQ(fused->attr_string("activation"), "LeakyRelu");
  EXPECT_TRUE(fused->has_attr("activation_alpha"));
  EXPECT_FLOAT_EQ(fused->attr_float("activation_alpha"), 0.2f);
  EXPECT_FALSE(fused->has_attr("activation_beta"));
  EXPECT_EQ(fused->attr_ints("pads"), (std::vector<int64_t>{0, 0, 0, 0}));
  EXPECT_EQ(fused->origins(), (testing::Names{"conv", "add", "lrelu"}));
}

TEST(BiasActivationFusionPassTest, BiasShapedCx1x1AddedFromTheLeftFusesWithoutActivation) {
  ConvNoBias m;
  ir::Value* out = m.g.Op("Add", "add", {m.g.ConstF("bias", {2, 1, 1}, {0.5f, -0.5f}), m.y});
  m.g.Out(out);
  auto pass = CreateBiasActivationFusionPass();
  EXPECT_TRUE(RunPass(*pass, m.g));
  const ir::Node* fused = OnlyNode(m.g);
  ASSERT_NE(fused, nullptr);
  EXPECT_EQ(fused->op_type(), "FusedConv");
  EXPECT_EQ(Floats(fused->input(2)), (std::vector<float>{0.5f, -0.5f}));
  EXPECT_TRUE(fused->has_attr("activation"));
  EXPECT_EQ(fused->attr_string("activation"), "");
  EXPECT_EQ(fused->output(0), out);
  EXPECT_EQ(fused->origins(), (testing::Names{"conv", "add"}));
}

TEST(BiasActivationFusionPassTest, OneElementBiasIsRepeatedForEveryChannel) {
  ConvNoBias m;
  m.g.Out(m.g.Op("Add", "add", {m.y, m.g.ConstF("bias", {1}, {0.25f})}));
  auto pass = CreateBiasActivationFusionPass();
  EXPECT_TRUE(RunPass(*pass, m.g));
  const ir::Node* fused = OnlyNode(m.g);
  ASSERT_NE(fused, nullptr);
  EXPECT_EQ(Floats(fused->input(2)), (std::vector<float>{0.25f, 0.25f}));
}

TEST(BiasActivationFusionPassTest, AddOfASpatialTensorIsNotTakenAsABias) {
  ConvNoBias m;
  ir::Value* a = m.g.Op("Add", "add", {m.y, m.g.ConstF("bias", {1, 1, 2, 2}, {1, 2, 3, 4})});
  m.g.Out(m.g.Op("Relu", "relu", {a}));
  auto pass = CreateBiasActivationFusionPass();
  EXPECT_FALSE(RunPass(*pass, m.g));
  EXPECT_EQ(m.g.OpTypes(), "Conv,Add,Relu");
}

TEST(BiasActivationFusionPassTest, ConvThatAlreadyHasABiasDoesNotAbsorbAnAdd) {
  GraphBuilder g;
  ir::Value* x = g.In("x", DataType::kFloat32, {1, 1, 2, 2});
  ir::Value* y =
      g.Op("Conv", "conv", {x, g.ConstF("w", {2, 1, 1, 1}, {1, -1}), g.ConstF("b", {2}, {0, 1})});
  ir::Value* a = g.Op("Add", "add", {y, g.ConstF("bias", {2, 1, 1}, {1, 2})});
  g.Out(g.Op("Relu", "relu", {a}));
  auto pass = CreateBiasActivationFusionPass();
  EXPECT_FALSE(RunPass(*pass, g));
  EXPECT_EQ(g.OpTypes(), "Conv,Add,Relu");
}

TEST(BiasActivationFusionPassTest, ClipWithConstantBoundsCarriesThemAsAlphaAndBeta) {
  ConvNoBias m;
  m.g.Out(
      m.g.Op("Clip", "clip", {m.y, m.g.ConstF("lo", {}, {0}), m.g.ConstF("hi", {}, {6})}, {}, 13));
  auto pass = CreateBiasActivationFusionPass();
  EXPECT_TRUE(RunPass(*pass, m.g));
  const ir::Node* fused = OnlyNode(m.g);
  ASSERT_NE(fused, nullptr);
  EXPECT_TRUE(fused->has_attr("activation"));
  EXPECT_EQ(fused->attr_string("activation"), "Clip");
  EXPECT_TRUE(fused->has_attr("activation_alpha"));
  EXPECT_FLOAT_EQ(fused->attr_float("activation_alpha"), 0.0f);
  EXPECT_TRUE(fused->has_attr("activation_beta"));
  EXPECT_FLOAT_EQ(fused->attr_float("activation_beta"), 6.0f);
  EXPECT_EQ(fused->inputs().size(), 2u);  // no bias: the Clip bounds are not inputs
}

TEST(BiasActivationFusionPassTest, ClipBeforeOpset11TakesItsBoundsFromAttributes) {
  ConvNoBias m;
  m.g.Out(m.g.Op("Clip", "clip", {m.y}, {{"min", -1.0f}, {"max", 1.0f}}, 6));
  auto pass = CreateBiasActivationFusionPass();
  EXPECT_TRUE(RunPass(*pass, m.g));
  const ir::Node* fused = OnlyNode(m.g);
  ASSERT_NE(fused, nullptr);
  EXPECT_TRUE(fused->has_attr("activation"));
  EXPECT_EQ(fused->attr_string("activation"), "Clip");
  EXPECT_TRUE(fused->has_attr("activation_alpha"));
  EXPECT_FLOAT_EQ(fused->attr_float("activation_alpha"), -1.0f);
  EXPECT_TRUE(fused->has_attr("activation_beta"));
  EXPECT_FLOAT_EQ(fused->attr_float("activation_beta"), 1.0f);
}

TEST(BiasActivationFusionPassTest, ClipWithAnOmittedMinUsesTheLowestFloat) {
  ConvNoBias m;
  m.g.Out(m.g.Op("Clip", "clip", {m.y, nullptr, m.g.ConstF("hi", {}, {6})}, {}, 13));
  auto pass = CreateBiasActivationFusionPass();
  EXPECT_TRUE(RunPass(*pass, m.g));
  const ir::Node* fused = OnlyNode(m.g);
  ASSERT_NE(fused, nullptr);
  EXPECT_TRUE(fused->has_attr("activation_alpha"));
  EXPECT_EQ(fused->attr_float("activation_alpha"), std::numeric_limits<float>::lowest());
  EXPECT_TRUE(fused->has_attr("activation_beta"));
  EXPECT_FLOAT_EQ(fused->attr_float("activation_beta"), 6.0f);
}

TEST(BiasActivationFusionPassTest, ClipWithAComputedBoundIsNotFused) {
  ConvNoBias m;
  ir::Value* hi = m.g.In("hi", DataType::kFloat32, {});
  m.g.Out(m.g.Op("Clip", "clip", {m.y, m.g.ConstF("lo", {}, {0}), hi}, {}, 13));
  auto pass = CreateBiasActivationFusionPass();
  EXPECT_FALSE(RunPass(*pass, m.g));
  EXPECT_EQ(m.g.OpTypes(), "Conv,Clip");
}

TEST(BiasActivationFusionPassTest, HardSigmoidWithoutAttributesGetsTheOnnxDefaults) {
  ConvNoBias m;
  m.g.Out(m.g.Op("HardSigmoid", "hsig", {m.y}));
  auto pass = CreateBiasActivationFusionPass();
  EXPECT_TRUE(RunPass(*pass, m.g));
  const ir::Node* fused = OnlyNode(m.g);
  ASSERT_NE(fused, nullptr);
  EXPECT_TRUE(fused->has_attr("activation"));
  EXPECT_EQ(fused->attr_string("activation"), "HardSigmoid");
  EXPECT_TRUE(fused->has_attr("activation_alpha"));
  EXPECT_FLOAT_EQ(fused->attr_float("activation_alpha"), 0.2f);
  EXPECT_TRUE(fused->has_attr("activation_beta"));
  EXPECT_FLOAT_EQ(fused->attr_float("activation_beta"), 0.5f);
}

TEST(BiasActivationFusionPassTest, LeakyReluWithoutAlphaGetsTheOnnxDefault) {
  ConvNoBias m;
  m.g.Out(m.g.Op("LeakyRelu", "lrelu", {m.y}));
  auto pass = CreateBiasActivationFusionPass();
  EXPECT_TRUE(RunPass(*pass, m.g));
  const ir::Node* fused = OnlyNode(m.g);
  ASSERT_NE(fused, nullptr);
  EXPECT_TRUE(fused->has_attr("activation_alpha"));
  EXPECT_FLOAT_EQ(fused->attr_float("activation_alpha"), 0.01f);
}

TEST(BiasActivationFusionPassTest, EachParameterlessActivationIsNamedInTheFusedConv) {
  for (const char* act : {"Relu", "Sigmoid", "Tanh", "HardSwish", "Gelu"}) {
    ConvNoBias m;
    m.g.Out(m.g.Op(act, "act", {m.y}, {}, 20));
    auto pass = CreateBiasActivationFusionPass();
    EXPECT_TRUE(RunPass(*pass, m.g)) << act;
    const ir::Node* fused = OnlyNode(m.g);
    ASSERT_NE(fused, nullptr) << act;
    EXPECT_TRUE(fused->has_attr("activation"));
    EXPECT_EQ(fused->attr_string("activation"), act);
    EXPECT_FALSE(fused->has_attr("activation_alpha")) << act;
    EXPECT_FALSE(fused->has_attr("activation_beta")) << act;
  }
}

TEST(BiasActivationFusionPassTest, SwishCarriesItsAlpha) {
  for (float alpha : {1.0f, 1.702f}) {
    ConvNoBias m;
    m.g.Out(m.g.Op("Swish", "act", {m.y}, {{"alpha", alpha}}, 24));
    auto pass = CreateBiasActivationFusionPass();
    EXPECT_TRUE(RunPass(*pass, m.g));
    const ir::Node* fused = OnlyNode(m.g);
    ASSERT_NE(fused, nullptr);
    EXPECT_TRUE(fused->has_attr("activation"));
    EXPECT_EQ(fused->attr_string("activation"), "Swish");
    EXPECT_TRUE(fused->has_attr("activation_alpha"));
    EXPECT_FLOAT_EQ(fused->attr_float("activation_alpha"), alpha);
  }
}

TEST(BiasActivationFusionPassTest, TanhApproximatedGeluIsNotFused) {
  ConvNoBias m;
  m.g.Out(m.g.Op("Gelu", "gelu", {m.y}, {{"approximate", std::string("tanh")}}, 20));
  auto pass = CreateBiasActivationFusionPass();
  EXPECT_FALSE(RunPass(*pass, m.g));
  EXPECT_EQ(m.g.OpTypes(), "Conv,Gelu");
}

TEST(BiasActivationFusionPassTest, UnsupportedFollowerLeavesTheConvAlone) {
  ConvNoBias m;
  m.g.Out(m.g.Op("Softmax", "softmax", {m.y}));
  auto pass = CreateBiasActivationFusionPass();
  EXPECT_FALSE(RunPass(*pass, m.g));
  EXPECT_EQ(m.g.OpTypes(), "Conv,Softmax");
}

TEST(BiasActivationFusionPassTest, GemmFollowedBySigmoidBecomesFusedGemmWithGemmAttributes) {
  GraphBuilder g;
  ir::Value* a = g.In("a", DataType::kFloat32, {2, 3});
  ir::Value* b = g.ConstF("b", {4, 3}, std::vector<float>(12, 1.0f));
  ir::Value* c = g.ConstF("c", {4}, {1, 2, 3, 4});
  ir::Value* y = g.Op("Gemm", "gemm", {a, b, c}, {{"transB", int64_t{1}}, {"alpha", 2.0f}}, 13);
  ir::Value* out = g.Op("Sigmoid", "sig", {y});
  g.Out(out);
  auto pass = CreateBiasActivationFusionPass();
  EXPECT_TRUE(RunPass(*pass, g));
  EXPECT_EQ(g.OpTypes(), "FusedGemm");
  const ir::Node* fused = OnlyNode(g);
  ASSERT_NE(fused, nullptr);
  EXPECT_EQ(fused->domain(), "com.kiln");
  EXPECT_EQ(fused->inputs(), (std::vector<ir::Value*>{a, b, c}));
  EXPECT_EQ(fused->output(0), out);
  EXPECT_EQ(fused->attr_int("transB"), 1);
  EXPECT_TRUE(fused->has_attr("alpha"));
  EXPECT_FLOAT_EQ(fused->attr_float("alpha"), 2.0f);
  EXPECT_TRUE(fused->has_attr("activation"));
  EXPECT_EQ(fused->attr_string("activation"), "Sigmoid");
  EXPECT_EQ(fused->origins(), (testing::Names{"gemm", "sig"}));
}

TEST(BiasActivationFusionPassTest, ConvTransposeAndReluBecomeFusedConvTranspose) {
  // A segmentation / text-detection head: ConvTranspose (its BatchNormalization folded) + Relu.
  GraphBuilder g;
  ir::Value* x = g.In("x", DataType::kFloat32, {1, 4, 5, 5});
  ir::Value* w = g.ConstF("w", {4, 2, 2, 2}, std::vector<float>(32, 0.5f));
  ir::Value* b = g.ConstF("b", {2}, {1, -1});
  ir::Value* y = g.Op("ConvTranspose", "up", {x, w, b}, {{"strides", std::vector<int64_t>{2, 2}}});
  ir::Value* out = g.Op("Relu", "relu", {y});
  g.Out(out);
  auto pass = CreateBiasActivationFusionPass();
  EXPECT_TRUE(RunPass(*pass, g));
  ASSERT_EQ(g.OpTypes(), "FusedConvTranspose");
  const ir::Node* fused = OnlyNode(g);
  EXPECT_EQ(fused->domain(), "com.kiln");
  EXPECT_EQ(fused->inputs(), (std::vector<ir::Value*>{x, w, b}));
  EXPECT_EQ(fused->output(0), out);
  EXPECT_EQ(fused->attr_ints("strides"), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(fused->attr_string("activation"), "Relu");
  EXPECT_EQ(fused->origins(), (testing::Names{"up", "relu"}));
  ASSERT_TRUE(g.Infer().ok());
  EXPECT_EQ(out->shape(), ir::Shape::Of({1, 2, 10, 10}));
}

TEST(BiasActivationFusionPassTest, GemmWithoutAnActivationIsLeftAlone) {
  GraphBuilder g;
  ir::Value* a = g.In("a", DataType::kFloat32, {2, 3});
  g.Out(g.Op("Gemm", "gemm", {a, g.ConstF("b", {3, 1}, {1, 2, 3})}));
  auto pass = CreateBiasActivationFusionPass();
  EXPECT_FALSE(RunPass(*pass, g));
  EXPECT_EQ(g.OpTypes(), "Gemm");
}

TEST(BiasActivationFusionPassTest, MatMulBiasAddAndTanhBecomeFusedMatMul) {
  GraphBuilder g;
  ir::Value* a = g.In("a", DataType::kFloat32, {2, 3});
  ir::Value* b = g.ConstF("b", {3, 4}, std::vector<float>(12, 0.5f));
  ir::Value* bias = g.ConstF("bias", {4}, {1, 2, 3, 4});
  ir::Value* y = g.Op("MatMul", "mm", {a, b});
  ir::Value* s = g.Op("Add", "add", {bias, y});  // bias on the left
  ir::Value* out = g.Op("Tanh", "tanh", {s});
  g.Out(out);
  auto pass = CreateBiasActivationFusionPass();
  EXPECT_TRUE(RunPass(*pass, g));
  EXPECT_EQ(g.OpTypes(), "FusedMatMul");
  const ir::Node* fused = OnlyNode(g);
  ASSERT_NE(fused, nullptr);
  EXPECT_EQ(fused->domain(), "com.kiln");
  EXPECT_EQ(fused->inputs(), (std::vector<ir::Value*>{a, b, bias}));
  EXPECT_EQ(fused->output(0), out);
  EXPECT_TRUE(fused->has_attr("activation"));
  EXPECT_EQ(fused->attr_string("activation"), "Tanh");
  EXPECT_EQ(fused->origins(), (testing::Names{"mm", "add", "tanh"}));
}

TEST(BiasActivationFusionPassTest, MatMulBiasAddWithoutActivationStillFuses) {
  GraphBuilder g;
  ir::Value* a = g.In("a", DataType::kFloat32, {5, 2, 3});
  ir::Value* b = g.In("b", DataType::kFloat32, {3, 4});  // computed weights are fine
  ir::Value* bias = g.ConstF("bias", {4}, {1, 1, 1, 1});
  ir::Value* s = g.Op("Add", "add", {g.Op("MatMul", "mm", {a, b}), bias});
  g.Out(s);
  auto pass = CreateBiasActivationFusionPass();
  EXPECT_TRUE(RunPass(*pass, g));
  const ir::Node* fused = OnlyNode(g);
  ASSERT_NE(fused, nullptr);
  EXPECT_EQ(fused->op_type(), "FusedMatMul");
  EXPECT_EQ(fused->inputs(), (std::vector<ir::Value*>{a, b, bias}));
  EXPECT_TRUE(fused->has_attr("activation"));
  EXPECT_EQ(fused->attr_string("activation"), "");
  EXPECT_EQ(fused->output(0), s);
}

TEST(BiasActivationFusionPassTest, MatMulBiasOfTheWrongLengthOrRankIsNotFused) {
  for (std::vector<int64_t> dims : {std::vector<int64_t>{3}, std::vector<int64_t>{1, 4}}) {
    GraphBuilder g;
    ir::Value* a = g.In("a", DataType::kFloat32, {2, 3});
    ir::Value* y = g.Op("MatMul", "mm", {a, g.ConstF("b", {3, 4}, std::vector<float>(12, 1))});
    int64_t n = dims.size() == 1 ? dims[0] : dims[1];
    g.Out(g.Op("Add", "add", {y, g.ConstF("bias", dims, std::vector<float>(n, 1))}));
    auto pass = CreateBiasActivationFusionPass();
    EXPECT_FALSE(RunPass(*pass, g)) << dims.size();
    EXPECT_EQ(g.OpTypes(), "MatMul,Add");
  }
}

TEST(BiasActivationFusionPassTest, MatMulWithoutABiasAddIsLeftAlone) {
  GraphBuilder g;
  ir::Value* a = g.In("a", DataType::kFloat32, {2, 3});
  ir::Value* y = g.Op("MatMul", "mm", {a, g.ConstF("b", {3, 4}, std::vector<float>(12, 1))});
  g.Out(g.Op("Relu", "relu", {y}));
  auto pass = CreateBiasActivationFusionPass();
  EXPECT_FALSE(RunPass(*pass, g));
  EXPECT_EQ(g.OpTypes(), "MatMul,Relu");
}

TEST(BiasActivationFusionPassTest, SecondUseOfTheConvOutputBlocksFusion) {
  ConvNoBias m;
  m.g.Out(m.g.Op("Relu", "relu", {m.y}));
  m.g.Out(m.g.Op("Sigmoid", "sig", {m.y}));
  auto pass = CreateBiasActivationFusionPass();
  EXPECT_FALSE(RunPass(*pass, m.g));
  EXPECT_EQ(m.g.OpTypes(), "Conv,Relu,Sigmoid");
}

TEST(BiasActivationFusionPassTest, ConvOutputThatIsAGraphOutputBlocksFusion) {
  ConvNoBias m;
  m.g.Out(m.g.Op("Relu", "relu", {m.y}));
  m.g.Out(m.y);
  auto pass = CreateBiasActivationFusionPass();
  EXPECT_FALSE(RunPass(*pass, m.g));
  EXPECT_EQ(m.g.OpTypes(), "Conv,Relu");
}

TEST(BiasActivationFusionPassTest, BiasSumThatIsAGraphOutputStopsTheFusionBeforeTheActivation) {
  ConvNoBias m;
  ir::Value* a = m.g.Op("Add", "add", {m.y, m.g.ConstF("bias", {2, 1, 1}, {1, 2})});
  ir::Value* r = m.g.Op("Relu", "relu", {a});
  m.g.Out(a);
  m.g.Out(r);
  auto pass = CreateBiasActivationFusionPass();
  EXPECT_TRUE(RunPass(*pass, m.g));
  EXPECT_EQ(m.g.OpTypes(), "FusedConv,Relu");
  const ir::Node* fused = m.g.FindNode("FusedConv");
  ASSERT_NE(fused, nullptr);
  EXPECT_EQ(fused->output(0), a);
  EXPECT_TRUE(fused->has_attr("activation"));
  EXPECT_EQ(fused->attr_string("activation"), "");
  ASSERT_NE(m.g.FindNode("Relu"), nullptr);
  EXPECT_EQ(m.g.FindNode("Relu")->input(0), a);
}

TEST(BiasActivationFusionPassTest, SeveralConvsInOneGraphAreEachFused) {
  GraphBuilder g;
  ir::Value* x = g.In("x", DataType::kFloat32, {1, 1, 2, 2});
  ir::Value* y1 =
      g.Op("Relu", "relu1", {g.Op("Conv", "c1", {x, g.ConstF("w1", {1, 1, 1, 1}, {1})})});
  ir::Value* y2 =
      g.Op("Tanh", "tanh2", {g.Op("Conv", "c2", {y1, g.ConstF("w2", {1, 1, 1, 1}, {2})})});
  g.Out(y2);
  auto pass = CreateBiasActivationFusionPass();
  EXPECT_TRUE(RunPass(*pass, g));
  EXPECT_EQ(g.OpTypes(), "FusedConv,FusedConv");
  ASSERT_NE(testing::NodeAt(g, 1), nullptr);
  EXPECT_EQ(testing::NodeAt(g, 1)->input(0), y1);
  EXPECT_TRUE(testing::NodeAt(g, 1)->has_attr("activation"));
  EXPECT_EQ(testing::NodeAt(g, 1)->attr_string("activation"), "Tanh");
}

TEST(BiasActivationFusionPassTest, GraphWithNothingToFuseIsReportedUnchanged) {
  GraphBuilder g;
  ir::Value* x = g.In("x", DataType::kFloat32, {4});
  g.Out(g.Op("Relu", "relu", {g.Op("Exp", "exp", {x})}));
  auto pass = CreateBiasActivationFusionPass();
  EXPECT_FALSE(RunPass(*pass, g));
  EXPECT_EQ(g.OpTypes(), "Exp,Relu");
  EXPECT_EQ(g.graph.opsets().count("com.kiln"), 0u);
}

}  // namespace
}  // namespace kiln::compiler
