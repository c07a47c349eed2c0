// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
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

// x [1,2,1,1] -> Conv(W [2,2,1,1], B [2]) -> BatchNormalization(eps 1) -> out.
// Per channel: sqrt(var + eps) = {2, 4}, so f = scale / sqrt(var + eps) = {1, 0.125}.
struct OneByOneConvBn {
  GraphBuilder g;
  ir::Value* x = g.In("x", DataType::kFloat32, {1, 2, 1, 1});
  ir::Value* w = g.ConstF("w", {2, 2, 1, 1}, {1, 2, 3, 4});
  ir::Value* b = g.ConstF("b", {2}, {0.5f, -1});
  ir::Value* y = g.Op("Conv", "conv", {x, w, b},
                      {{"kernel_shape", std::vector<int64_t>{1, 1}},
                       {"strides", std::vector<int64_t>{1, 1}},
                       {"pads", std::vector<int64_t>{0, 0, 0, 0}}});
  ir::Value* out = g.Op("BatchNormalization", "bn",
                        {y, g.ConstF("scale", {2}, {2, 0.5f}), g.ConstF("bias", {2}, {1, -1}),
                         g.ConstF("mean", {2}, {0.5f, 1}), g.ConstF("var", {2}, {3, 15})},
                        {{"epsilon", 1.0f}}, 15);
  OneByOneConvBn() { g.Out(out); }
};

TEST(ConvBnFoldPassTest, FoldsBatchNormIntoConvWeightsAndBias) {
  OneByOneConvBn m;
  auto pass = CreateConvBnFoldPass();
  ASSERT_NE(pass, nullptr);
  EXPECT_STREQ(pass->name(), "conv_bn_fold");
  EXPECT_TRUE(RunPass(*pass, m.g));
  EXPECT_EQ(m.g.OpTypes(), "Conv");
  const ir::Node* conv = m.g.FindNode("Conv");
  ASSERT_NE(conv, nullptr);
  ASSERT_EQ(conv->inputs().size(), 3u);
  EXPECT_EQ(conv->input(0), m.x);
  // W' = W * f per output channel; B' = (B - mean) * f + bias.
  testing::ExpectAllNear(Floats(conv->input(1)), {1.0f, 2.0f, 0.375f, 0.5f}, 1e-6f);
  EXPECT_EQ(conv->input(1)->constant()->dims(), (std::vector<int64_t>{2, 2, 1, 1}));
  testing::ExpectAllNear(Floats(conv->input(2)), {1.0f, -1.25f}, 1e-6f);
  EXPECT_EQ(conv->input(2)->constant()->dims(), (std::vector<int64_t>{2}));
}

TEST(ConvBnFoldPassTest, FoldedConvProducesTheBatchNormOutputUnderFreshConstantNames) {
  OneByOneConvBn m;
  ir::Value* old_w = m.w;
  auto pass = CreateConvBnFoldPass();
  ASSERT_TRUE(RunPass(*pass, m.g));
  const ir::Node* conv = m.g.FindNode("Conv");
  ASSERT_NE(conv, nullptr);
  ASSERT_EQ(conv->outputs().size(), 1u);
  EXPECT_EQ(conv->output(0), m.out);
  EXPECT_EQ(conv->output(0)->name(), "bn_out0");
  ASSERT_EQ(m.g.graph.outputs().size(), 1u);
  EXPECT_EQ(m.g.graph.outputs()[0], m.out);
  EXPECT_NE(conv->input(1), old_w);
  EXPECT_NE(conv->input(1)->name(), "w");
  EXPECT_NE(conv->input(2)->name(), "b");
  EXPECT_NE(conv->input(1)->name(), conv->input(2)->name());
  // The old weights and the BN's statistics are no longer read, so they are dropped.
  for (const char* gone : {"w", "b", "scale", "bias", "mean", "var", "conv_out0"}) {
    EXPECT_EQ(m.g.graph.FindValue(gone), nullptr) << gone;
  }
  EXPECT_EQ(conv->origins(), (testing::Names{"conv", "bn"}));
  EXPECT_EQ(conv->name(), "conv");
  EXPECT_EQ(conv->attr_ints("kernel_shape"), (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(conv->attr_ints("pads"), (std::vector<int64_t>{0, 0, 0, 0}));
  EXPECT_EQ(conv->domain(), "");
  EXPECT_EQ(conv->opset(), 17);
}

TEST(ConvBnFoldPassTest, ConvWithoutBiasGetsOneMadeFromTheStatistics) {
  GraphBuilder g;
  ir::Value* x = g.In("x", DataType::kFloat32, {1, 1, 2, 2});
  ir::Value* y = g.Op("Conv", "conv", {x, g.ConstF("w", {2, 1, 1, 1}, {2, -3})});
  // sqrt(var + eps) = {0.5, 2} with eps 0.25; f = {4 / 0.5, 1 / 2} = {8, 0.5}.
  g.Out(g.Op("BatchNormalization", "bn",
             {y, g.ConstF("scale", {2}, {4, 1}), g.ConstF("bias", {2}, {0, 3}),
              g.ConstF("mean", {2}, {0.25f, -2}), g.ConstF("var", {2}, {0, 3.75f})},
             {{"epsilon", 0.25f}}));
  auto pass = CreateConvBnFoldPass();
  ASSERT_TRUE(RunPass(*pass, g));
  const ir::Node* conv = g.FindNode("Conv");
  ASSERT_NE(conv, nullptr);
  ASSERT_EQ(conv->inputs().size(), 3u);
  testing::ExpectAllNear(Floats(conv->input(1)), {16.0f, -1.5f}, 1e-6f);
  // B' = (0 - mean) * f + bias = {-0.25 * 8 + 0, 2 * 0.5 + 3}.
  testing::ExpectAllNear(Floats(conv->input(2)), {-2.0f, 4.0f}, 1e-6f);
}

TEST(ConvBnFoldPassTest, DefaultEpsilonIsUsedWhenTheAttributeIsAbsent) {
  GraphBuilder g;
  ir::Value* x = g.In("x", DataType::kFloat32, {1, 1, 1, 1});
  ir::Value* y = g.Op("Conv", "conv", {x, g.ConstF("w", {1, 1, 1, 1}, {1})});
  // var + 1e-5 = 0.01 + 1e-5: f = 1 / sqrt(0.01001) = 9.995004; without the epsilon it would be
  // exactly 10.
  g.Out(g.Op("BatchNormalization", "bn",
             {y, g.ConstF("scale", {1}, {1}), g.ConstF("bias", {1}, {0}),
              g.ConstF("mean", {1}, {0}), g.ConstF("var", {1}, {0.01f})}));
  auto pass = CreateConvBnFoldPass();
  ASSERT_TRUE(RunPass(*pass, g));
  const ir::Node* conv = g.FindNode("Conv");
  ASSERT_NE(conv, nullptr);
  testing::ExpectAllNear(Floats(conv->input(1)), {9.995004f}, 1e-4f);
}

// NCHW convolution with stride 1, `pad` zeros on every side and `group` groups; w is
// [m, c / group, k, k]. Written independently of the pass as the test's oracle.
std::vector<double> ConvRef(const std::vector<float>& x, int c, int h, int wd,
                            const std::vector<float>& w, int m, int k, const std::vector<float>& b,
                            int pad, int group) {
  int oh = h + 2 * pad - k + 1, ow = wd + 2 * pad - k + 1;
  int cpg = c / group, mpg = m / group;
  std::vector<double> out(static_cast<size_t>(m * oh * ow));
  for (int oc = 0; oc < m; ++oc) {
    int grp = oc / mpg;
    for (int oy = 0; oy < oh; ++oy) {
      for (int ox = 0; ox < ow; ++ox) {
        double acc = b.empty() ? 0.0 : b[oc];
        for (int ci = 0; ci < cpg; ++ci) {
          for (int ky = 0; ky < k; ++ky) {
            for (int kx = 0; kx < k; ++kx) {
              int iy = oy + ky - pad, ix = ox + kx - pad;
              if (iy < 0 || iy >= h || ix < 0 || ix >= wd) continue;
              acc += static_cast<double>(x[((grp * cpg + ci) * h + iy) * wd + ix]) *
                     w[((oc * cpg + ci) * k + ky) * k + kx];
            }
          }
        }
        out[(oc * oh + oy) * ow + ox] = acc;
      }
    }
  }
  return out;
}

void ExpectFoldedConvMatchesConvThenBatchNorm(int group) {
  const int c = 2, h = 4, wd = 4, m = 4, k = 3, pad = 1;
  const float eps = 1e-3f;
  std::vector<float> x(c * h * wd), w(m * (c / group) * k * k), b(m);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>((i * 7) % 11) / 4 - 1.25f;
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>((i * 5) % 13) / 6 - 1.0f;
  for (int i = 0; i < m; ++i) b[i] = 0.25f * i - 0.5f;
  std::vector<float> scale = {1.5f, -0.75f, 0.5f, 2.0f}, bias = {0.1f, -0.2f, 0.3f, 0.0f};
  std::vector<float> mean = {0.5f, -1.0f, 0.0f, 2.0f}, var = {0.25f, 1.0f, 4.0f, 0.5f};

  GraphBuilder g;
  ir::Value* in = g.In("x", DataType::kFloat32, {1, c, h, wd});
  ir::Value* y = g.Op(
      "Conv", "conv", {in, g.ConstF("w", {m, c / group, k, k}, w), g.ConstF("b", {m}, b)},
      {{"pads", std::vector<int64_t>{pad, pad, pad, pad}}, {"group", static_cast<int64_t>(group)}});
  g.Out(g.Op("BatchNormalization", "bn",
             {y, g.ConstF("scale", {m}, scale), g.ConstF("bias", {m}, bias),
              g.ConstF("mean", {m}, mean), g.ConstF("var", {m}, var)},
             {{"epsilon", eps}}));
  auto pass = CreateConvBnFoldPass();
  ASSERT_TRUE(RunPass(*pass, g));
  const ir::Node* conv = g.FindNode("Conv");
  ASSERT_NE(conv, nullptr);
  EXPECT_TRUE(conv->has_attr("group"));
  EXPECT_EQ(conv->attr_int("group"), group);

  std::vector<double> expected = ConvRef(x, c, h, wd, w, m, k, b, pad, group);
  const size_t plane = h * wd;
  for (size_t i = 0; i < expected.size(); ++i) {
    size_t oc = i / plane;
    expected[i] =
        scale[oc] * (expected[i] - mean[oc]) / std::sqrt(double{var[oc]} + eps) + bias[oc];
  }
  std::vector<double> folded =
      ConvRef(x, c, h, wd, Floats(conv->input(1)), m, k, Floats(conv->input(2)), pad, group);
  ASSERT_EQ(folded.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_NEAR(folded[i], expected[i], 1e-5) << "element " << i << ", group " << group;
  }
}

TEST(ConvBnFoldPassTest, FoldedConvMatchesConvThenBatchNormOnATinyInput) {
  ExpectFoldedConvMatchesConvThenBatchNorm(1);
}

TEST(ConvBnFoldPassTest, FoldedGroupedConvMatchesConvThenBatchNormOnATinyInput) {
  ExpectFoldedConvMatchesConvThenBatchNorm(2);
}

// PP-LCNet's learnable affine block: Conv -> Mul(scalar) -> Add(scalar), here after a
// BatchNormalization and followed by a per-channel Div and Sub, all in one Conv; its output
// matches the chain computed step by step (the test's own arithmetic) on a padded 3x3 conv.
TEST(ConvBnFoldPassTest, AffineChainOfMulAddSubDivFoldsWithBatchNorm) {
  const int c = 2, h = 4, wd = 4, m = 2, k = 3, pad = 1;
  std::vector<float> x(c * h * wd), w(m * c * k * k), b = {0.25f, -0.5f};
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>((i * 7) % 11) / 4 - 1.25f;
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>((i * 5) % 13) / 6 - 1.0f;
  const std::vector<float> scale = {1.5f, -0.75f}, bias = {0.1f, -0.2f}, mean = {0.5f, -1.0f},
                           var = {0.25f, 1.0f};
  const float mul = 0.8f, add = -0.3f, sub[2] = {0.5f, -2.0f}, div[2] = {4.0f, -0.5f};

  GraphBuilder g;
  ir::Value* in = g.In("x", DataType::kFloat32, {1, c, h, wd});
  ir::Value* y = g.Op("Conv", "conv", {in, g.ConstF("w", {m, c, k, k}, w), g.ConstF("b", {m}, b)},
                      {{"pads", std::vector<int64_t>{pad, pad, pad, pad}}});
  y = g.Op("BatchNormalization", "bn",
           {y, g.ConstF("scale", {m}, scale), g.ConstF("bias", {m}, bias),
            g.ConstF("mean", {m}, mean), g.ConstF("var", {m}, var)},
           {{"epsilon", 0.0f}});
  y = g.Op("Mul", "lab_scale", {g.ConstF("s", {}, {mul}), y});
  y = g.Op("Add", "lab_bias", {y, g.ConstF("a", {1}, {add})});
  y = g.Op("Div", "div", {y, g.ConstF("d", {1, m, 1, 1}, {div[0], div[1]})});
  g.Out(g.Op("Sub", "sub", {y, g.ConstF("u", {m, 1, 1}, {sub[0], sub[1]})}));
  auto pass = CreateConvBnFoldPass();
  ASSERT_TRUE(RunPass(*pass, g));
  EXPECT_EQ(g.OpTypes(), "Conv");
  const ir::Node* conv = g.FindNode("Conv");
  ASSERT_NE(conv, nullptr);
  EXPECT_EQ(conv->origins(), (testing::Names{"conv", "bn", "lab_scale", "lab_bias", "div", "sub"}));

  std::vector<double> expected = ConvRef(x, c, h, wd, w, m, k, b, pad, 1);
  const size_t plane = h * wd;
  for (size_t i = 0; i < expected.size(); ++i) {
    const size_t oc = i / plane;
    double v = scale[oc] * (expected[i] - mean[oc]) / std::sqrt(double{var[oc]}) + bias[oc];
    expected[i] = (v * mul + add) / div[oc] - sub[oc];
  }
  std::vector<double> folded =
      ConvRef(x, c, h, wd, Floats(conv->input(1)), m, k, Floats(conv->input(2)), pad, 1);
  ASSERT_EQ(folded.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) EXPECT_NEAR(folded[i], expected[i], 1e-5) << i;
}

// What is not a per-channel affine step of the conv's output stops the chain: a constant on the
// left of Sub or Div (c - y, c / y), a Div by a constant with a zero, a Mul whose constant
// varies along a spatial axis. The steps before it still fold.
TEST(ConvBnFoldPassTest, AffineChainStopsAtWhatIsNotPerChannelAffine) {
  struct Case {
    const char* op;
    bool const_left;
    std::vector<int64_t> dims;
    std::vector<float> values;
  };
  for (const Case& t :
       {Case{"Sub", true, {}, {1}}, Case{"Div", true, {}, {2}},
        Case{"Div", false, {2, 1, 1}, {2, 0}}, Case{"Mul", false, {1, 1, 2, 1}, {2, 3}}}) {
    SCOPED_TRACE(t.op);
    GraphBuilder g;
    ir::Value* x = g.In("x", DataType::kFloat32, {1, 1, 2, 1});
    ir::Value* y = g.Op("Conv", "conv", {x, g.ConstF("w", {2, 1, 1, 1}, {2, -3})});
    y = g.Op("Mul", "mul", {y, g.ConstF("s", {}, {0.5f})});
    ir::Value* k = g.ConstF("k", t.dims, t.values);
    g.Out(g.Op(t.op, "stop",
               t.const_left ? std::vector<ir::Value*>{k, y} : std::vector<ir::Value*>{y, k}));
    auto pass = CreateConvBnFoldPass();
    ASSERT_TRUE(RunPass(*pass, g));
    EXPECT_EQ(g.OpTypes(), std::string("Conv,") + t.op);
    testing::ExpectAllNear(Floats(g.FindNode("Conv")->input(1)), {1.0f, -1.5f}, 1e-6f);
  }
}

TEST(ConvBnFoldPassTest, ConvTransposeScalesItsSecondWeightAxisPerOutputChannel) {
  GraphBuilder g;
  ir::Value* x = g.In("x", DataType::kFloat32, {1, 4, 1, 1});
  // W is [C=4, M/group=1, 1, 1] with group 2: input channels 0,1 feed output 0; 2,3 feed 1.
  ir::Value* y = g.Op("ConvTranspose", "deconv", {x, g.ConstF("w", {4, 1, 1, 1}, {1, 2, 3, 4})},
                      {{"group", int64_t{2}}});
  // eps 1: sqrt(var + eps) = {1, 2}; f = {2, 0.5}.
  g.Out(g.Op("BatchNormalization", "bn",
             {y, g.ConstF("scale", {2}, {2, 1}), g.ConstF("bias", {2}, {0, 1}),
              g.ConstF("mean", {2}, {1, 0}), g.ConstF("var", {2}, {0, 3})},
             {{"epsilon", 1.0f}}));
  auto pass = CreateConvBnFoldPass();
  ASSERT_TRUE(RunPass(*pass, g));
  EXPECT_EQ(g.OpTypes(), "ConvTranspose");
  const ir::Node* deconv = g.FindNode("ConvTranspose");
  ASSERT_NE(deconv, nullptr);
  testing::ExpectAllNear(Floats(deconv->input(1)), {2.0f, 4.0f, 1.5f, 2.0f}, 1e-6f);
  // B' = (0 - mean) * f + bias = {-2, 1}.
  testing::ExpectAllNear(Floats(deconv->input(2)), {-2.0f, 1.0f}, 1e-6f);
  EXPECT_TRUE(deconv->has_attr("group"));
  EXPECT_EQ(deconv->attr_int("group"), 2);
}

TEST(ConvBnFoldPassTest, ConvTransposeWithoutGroupsScalesEachOutputColumn) {
  GraphBuilder g;
  ir::Value* x = g.In("x", DataType::kFloat32, {1, 1, 1, 1});
  // W is [C=1, M=2, 1, 1]: element j belongs to output channel j.
  ir::Value* y = g.Op("ConvTranspose", "deconv", {x, g.ConstF("w", {1, 2, 1, 1}, {3, 5})});
  g.Out(g.Op("BatchNormalization", "bn",
             {y, g.ConstF("scale", {2}, {2, 1}), g.ConstF("bias", {2}, {0, 1}),
              g.ConstF("mean", {2}, {1, 0}), g.ConstF("var", {2}, {0, 3})},
             {{"epsilon", 1.0f}}));
  auto pass = CreateConvBnFoldPass();
  ASSERT_TRUE(RunPass(*pass, g));
  const ir::Node* deconv = g.FindNode("ConvTranspose");
  ASSERT_NE(deconv, nullptr);
  testing::ExpectAllNear(Floats(deconv->input(1)), {6.0f, 2.5f}, 1e-6f);
}

TEST(ConvBnFoldPassTest, TwoConvBatchNormPairsInARowAreBothFolded) {
  GraphBuilder g;
  ir::Value* x = g.In("x", DataType::kFloat32, {1, 1, 1, 1});
  auto conv_bn = [&](const std::string& tag, ir::Value* in) {
    ir::Value* y = g.Op("Conv", "conv" + tag, {in, g.ConstF("w" + tag, {1, 1, 1, 1}, {2})});
    return g.Op("BatchNormalization", "bn" + tag,
                {y, g.ConstF("s" + tag, {1}, {3}), g.ConstF("c" + tag, {1}, {1}),
                 g.ConstF("m" + tag, {1}, {0}), g.ConstF("v" + tag, {1}, {1})},
                {{"epsilon", 0.0f}});
  };
  g.Out(conv_bn("2", g.Op("Relu", "relu", {conv_bn("1", x)})));
  auto pass = CreateConvBnFoldPass();
  ASSERT_TRUE(RunPass(*pass, g));
  EXPECT_EQ(g.OpTypes(), "Conv,Relu,Conv");
  for (const auto& n : g.graph.nodes()) {
    if (n->op_type() != "Conv") continue;
    EXPECT_EQ(Floats(n->input(1)), (std::vector<float>{6.0f})) << n->name();
    EXPECT_EQ(Floats(n->input(2)), (std::vector<float>{1.0f})) << n->name();
  }
}

TEST(ConvBnFoldPassTest, SecondUseOfTheConvOutputBlocksFolding) {
  OneByOneConvBn m;
  m.g.Out(m.g.Op("Relu", "relu", {m.y}));
  auto pass = CreateConvBnFoldPass();
  EXPECT_FALSE(RunPass(*pass, m.g));
  EXPECT_EQ(m.g.OpTypes(), "Conv,BatchNormalization,Relu");
}

TEST(ConvBnFoldPassTest, ConvOutputThatIsAGraphOutputBlocksFolding) {
  OneByOneConvBn m;
  m.g.Out(m.y);
  auto pass = CreateConvBnFoldPass();
  EXPECT_FALSE(RunPass(*pass, m.g));
  EXPECT_EQ(m.g.OpTypes(), "Conv,BatchNormalization");
}

TEST(ConvBnFoldPassTest, ConvOutputCapturedByASubgraphBlocksFolding) {
  OneByOneConvBn m;
  // An If whose then-branch reads the Conv output by name from the enclosing graph.
  auto body = std::make_shared<ir::Graph>();
  ir::Value* captured = *body->AddValue("conv_out0", {});
  ir::Value* copy = *body->AddValue("copy", {});
  ASSERT_TRUE(body->AddNode("Identity", "", "id", 17, {captured}, {copy}).ok());
  body->outputs().push_back(copy);
  ir::Value* cond = m.g.In("cond", DataType::kBool, {});
  m.g.Out(m.g.Op("If", "if", {cond}, {{"then_branch", body}, {"else_branch", body}}));
  auto pass = CreateConvBnFoldPass();
  EXPECT_FALSE(RunPass(*pass, m.g));
  EXPECT_EQ(m.g.OpTypes(), "Conv,BatchNormalization,If");
}

TEST(ConvBnFoldPassTest, SubgraphValueOfTheSameNameThatIsLocalDoesNotBlockFolding) {
  OneByOneConvBn m;
  auto body = std::make_shared<ir::Graph>();
  ir::Value* local = *body->AddValue("conv_out0", {});
  local->set_constant(ir::Tensor::FromVector(DataType::kFloat32, {1}, std::vector<float>{1}));
  ir::Value* copy = *body->AddValue("copy", {});
  ASSERT_TRUE(body->AddNode("Identity", "", "id", 17, {local}, {copy}).ok());
  body->outputs().push_back(copy);
  ir::Value* cond = m.g.In("cond", DataType::kBool, {});
  m.g.Out(m.g.Op("If", "if", {cond}, {{"then_branch", body}, {"else_branch", body}}));
  auto pass = CreateConvBnFoldPass();
  EXPECT_TRUE(RunPass(*pass, m.g));
  EXPECT_EQ(m.g.OpTypes(), "Conv,If");
}

TEST(ConvBnFoldPassTest, StatisticsThatAreNotConstantBlockFolding) {
  GraphBuilder g;
  ir::Value* x = g.In("x", DataType::kFloat32, {1, 1, 1, 1});
  ir::Value* scale = g.In("scale", DataType::kFloat32, {1});
  ir::Value* y = g.Op("Conv", "conv", {x, g.ConstF("w", {1, 1, 1, 1}, {1})});
  g.Out(g.Op("BatchNormalization", "bn",
             {y, scale, g.ConstF("bias", {1}, {0}), g.ConstF("mean", {1}, {0}),
              g.ConstF("var", {1}, {1})}));
  auto pass = CreateConvBnFoldPass();
  EXPECT_FALSE(RunPass(*pass, g));
  EXPECT_EQ(g.OpTypes(), "Conv,BatchNormalization");
}

TEST(ConvBnFoldPassTest, WeightsThatAreNotConstantBlockFolding) {
  GraphBuilder g;
  ir::Value* x = g.In("x", DataType::kFloat32, {1, 1, 1, 1});
  ir::Value* w = g.In("w", DataType::kFloat32, {1, 1, 1, 1});
  ir::Value* y = g.Op("Conv", "conv", {x, w});
  g.Out(g.Op("BatchNormalization", "bn",
             {y, g.ConstF("scale", {1}, {1}), g.ConstF("bias", {1}, {0}),
              g.ConstF("mean", {1}, {0}), g.ConstF("var", {1}, {1})}));
  auto pass = CreateConvBnFoldPass();
  EXPECT_FALSE(RunPass(*pass, g));
  EXPECT_EQ(g.OpTypes(), "Conv,BatchNormalization");
}

TEST(ConvBnFoldPassTest, Float16WeightsAreLeftAlone) {
  GraphBuilder g;
  ir::Value* x = g.In("x", DataType::kFloat16, {1, 1, 1, 1});
  const uint16_t one = 0x3C00;  // 1.0 in IEEE half precision
  ir::Value* w = g.Const("w", ir::Tensor::Copy(DataType::kFloat16, {1, 1, 1, 1}, &one, 2));
  ir::Value* y = g.Op("Conv", "conv", {x, w});
  auto half = [&](const char* name) {
    return g.Const(name, ir::Tensor::Copy(DataType::kFloat16, {1}, &one, 2));
  };
  g.Out(g.Op("BatchNormalization", "bn",
             {y, half("scale"), half("bias"), half("mean"), half("var")}));
  auto pass = CreateConvBnFoldPass();
  EXPECT_FALSE(RunPass(*pass, g));
  EXPECT_EQ(g.OpTypes(), "Conv,BatchNormalization");
}

TEST(ConvBnFoldPassTest, TrainingModeBatchNormIsNotFolded) {
  OneByOneConvBn m;
  ir::Node* bn = m.g.graph.nodes().back().get();
  ASSERT_EQ(bn->op_type(), "BatchNormalization");
  bn->set_attr("training_mode", int64_t{1});
  auto pass = CreateConvBnFoldPass();
  EXPECT_FALSE(RunPass(*pass, m.g));
  EXPECT_EQ(m.g.OpTypes(), "Conv,BatchNormalization");
}

TEST(ConvBnFoldPassTest, BatchNormWhoseRunningMeanOutputIsUsedIsNotFolded) {
  GraphBuilder g;
  ir::Value* x = g.In("x", DataType::kFloat32, {1, 1, 1, 1});
  ir::Value* y = g.Op("Conv", "conv", {x, g.ConstF("w", {1, 1, 1, 1}, {1})});
  auto outs = g.OpN("BatchNormalization", "bn",
                    {y, g.ConstF("scale", {1}, {1}), g.ConstF("bias", {1}, {0}),
                     g.ConstF("mean", {1}, {0}), g.ConstF("var", {1}, {1})},
                    3);
  g.Out(outs[0]);
  g.Out(outs[1]);
  auto pass = CreateConvBnFoldPass();
  EXPECT_FALSE(RunPass(*pass, g));
  EXPECT_EQ(g.OpTypes(), "Conv,BatchNormalization");
}

TEST(ConvBnFoldPassTest, GraphWithoutBatchNormIsReportedUnchanged) {
  GraphBuilder g;
  ir::Value* x = g.In("x", DataType::kFloat32, {1, 1, 1, 1});
  g.Out(g.Op("Relu", "relu", {g.Op("Conv", "conv", {x, g.ConstF("w", {1, 1, 1, 1}, {1})})}));
  auto pass = CreateConvBnFoldPass();
  PassContext ctx;
  EXPECT_FALSE(RunPass(*pass, g, ctx));
  EXPECT_EQ(g.OpTypes(), "Conv,Relu");
  EXPECT_TRUE(ctx.log.empty());
  EXPECT_NE(g.graph.FindValue("w"), nullptr);
}

// ConvTranspose (no B) + Add of a [1, m, 1, 1] constant + BatchNormalization: one
// ConvTranspose; the Add's constant is the bias the BN's statistics then shift and scale.
TEST(ConvBnFoldPassTest, ConvTransposeBiasAddAndBatchNormFoldTogether) {
  GraphBuilder g;
  ir::Value* x = g.In("x", DataType::kFloat32, {1, 1, 1, 1});
  // W [C=1, M=2, 1, 1].
  ir::Value* y = g.Op("ConvTranspose", "deconv", {x, g.ConstF("w", {1, 2, 1, 1}, {2, -3})});
  ir::Value* added = g.Op("Add", "add", {y, g.ConstF("c", {1, 2, 1, 1}, {1, 10})});
  // eps 0.25: sqrt(var + eps) = {0.5, 2}; f = {4 / 0.5, 1 / 2} = {8, 0.5}.
  g.Out(g.Op("BatchNormalization", "bn",
             {added, g.ConstF("scale", {2}, {4, 1}), g.ConstF("bias", {2}, {0, 3}),
              g.ConstF("mean", {2}, {0.25f, -2}), g.ConstF("var", {2}, {0, 3.75f})},
             {{"epsilon", 0.25f}}));
  auto pass = CreateConvBnFoldPass();
  ASSERT_TRUE(RunPass(*pass, g));
  EXPECT_EQ(g.OpTypes(), "ConvTranspose");
  const ir::Node* deconv = g.FindNode("ConvTranspose");
  ASSERT_NE(deconv, nullptr);
  ASSERT_EQ(deconv->inputs().size(), 3u);
  testing::ExpectAllNear(Floats(deconv->input(1)), {16.0f, -1.5f}, 1e-6f);
  // B' = (add - mean) * f + bias = {(1 - 0.25) * 8 + 0, (10 + 2) * 0.5 + 3}.
  testing::ExpectAllNear(Floats(deconv->input(2)), {6.0f, 9.0f}, 1e-6f);
  EXPECT_EQ(deconv->origins(), (testing::Names{"deconv", "add", "bn"}));
}

// A ConvTranspose's bias written as an Add (a scalar here) folds without a BatchNormalization;
// a Conv's bias Add alone is left to bias_activation_fusion; an Add whose constant varies along
// a spatial axis is not a bias.
TEST(ConvBnFoldPassTest, BiasAddFoldsIntoConvTransposeOnlyWhenPerChannel) {
  {
    GraphBuilder g;
    ir::Value* x = g.In("x", DataType::kFloat32, {1, 1, 1, 1});
    ir::Value* y = g.Op("ConvTranspose", "deconv", {x, g.ConstF("w", {1, 2, 1, 1}, {2, -3})});
    g.Out(g.Op("Add", "add", {g.ConstF("c", {}, {0.5f}), y}));
    auto pass = CreateConvBnFoldPass();
    ASSERT_TRUE(RunPass(*pass, g));
    EXPECT_EQ(g.OpTypes(), "ConvTranspose");
    testing::ExpectAllNear(Floats(g.FindNode("ConvTranspose")->input(2)), {0.5f, 0.5f}, 1e-6f);
  }
  {
    GraphBuilder g;
    ir::Value* x = g.In("x", DataType::kFloat32, {1, 1, 1, 1});
    ir::Value* y = g.Op("Conv", "conv", {x, g.ConstF("w", {2, 1, 1, 1}, {2, -3})});
    g.Out(g.Op("Add", "add", {y, g.ConstF("c", {2, 1, 1}, {1, 2})}));
    auto pass = CreateConvBnFoldPass();
    EXPECT_FALSE(RunPass(*pass, g));
  }
  {
    GraphBuilder g;
    ir::Value* x = g.In("x", DataType::kFloat32, {1, 1, 2, 1});
    ir::Value* y = g.Op("ConvTranspose", "deconv", {x, g.ConstF("w", {1, 2, 1, 1}, {2, -3})});
    g.Out(g.Op("Add", "add", {y, g.ConstF("c", {1, 1, 2, 1}, {1, 2})}));  // along H
    auto pass = CreateConvBnFoldPass();
    EXPECT_FALSE(RunPass(*pass, g));
  }
}

TEST(ConvBnFoldPassTest, EachFoldIsLoggedWithBothNodeNames) {
  OneByOneConvBn m;
  auto pass = CreateConvBnFoldPass();
  PassContext ctx;
  ASSERT_TRUE(RunPass(*pass, m.g, ctx));
  ASSERT_EQ(ctx.log.size(), 1u);
  EXPECT_NE(ctx.log[0].find("'bn'"), std::string::npos) << ctx.log[0];
  EXPECT_NE(ctx.log[0].find("'conv'"), std::string::npos) << ctx.log[0];
}

}  // namespace
}  // namespace kiln::compiler
