// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include <iterator>
#include <string>
#include <vector>

#include "compiler/passes/passes.h"
#include "tests/unit/compiler/fusion_test_util.h"
#include "tests/unit/compiler/pass_test_util.h"

namespace kiln::compiler {
namespace {

using ir::DataType;
using testing::GraphBuilder;
using testing::NodeAt;
using testing::RunPass;

struct LnOptions {
  int opset = 17;
  std::vector<int64_t> axes = {-1};
  std::vector<int64_t> var_axes = {};  // empty: same as `axes`
  bool square_by_mul = false;          // Mul(d, d) instead of Pow(d, 2)
  float exponent = 2.0f;
  bool swap_operands = false;  // constants on the left of Add and Mul
  bool with_beta = true;
};

// x [2,3,4] decomposed into ReduceMean, Sub, Pow, ReduceMean, Add(eps), Sqrt, Div, Mul(gamma),
// Add(beta); the nodes are named mean, sub, pow, var, add_eps, sqrt, div, mul, add.
struct DecomposedLayerNorm {
  explicit DecomposedLayerNorm(const LnOptions& o = {}) {
    g.graph.opsets()[""] = o.opset;
    x = g.In("x", DataType::kFloat32, {2, 3, 4});
    gamma = g.ConstF("gamma", {4}, {1, 2, 3, 4});
    beta = g.ConstF("beta", {4}, {0.5f, 0, -0.5f, 1});
    ir::Value* eps = g.ConstF("eps", {}, {1e-5f});
    mean = ReduceMean("mean", x, o.axes, o);
    d = g.Op("Sub", "sub", {x, mean}, {}, o.opset);
    sq = o.square_by_mul ? g.Op("Mul", "pow", {d, d}, {}, o.opset)
                         : g.Op("Pow", "pow", {d, g.ConstF("two", {}, {o.exponent})}, {}, o.opset);
    var = ReduceMean("var", sq, o.var_axes.empty() ? o.axes : o.var_axes, o);
    ve = Commuted("Add", "add_eps", var, eps, o);
    sd = g.Op("Sqrt", "sqrt", {ve}, {}, o.opset);
    n = g.Op("Div", "div", {d, sd}, {}, o.opset);
    scaled = Commuted("Mul", "mul", n, gamma, o);
    out = o.with_beta ? Commuted("Add", "add", scaled, beta, o) : scaled;
    g.Out(out);
  }
  ir::Value* ReduceMean(const std::string& name, ir::Value* in, const std::vector<int64_t>& axes,
                        const LnOptions& o) {
    if (o.opset >= 18)
      return g.Op("ReduceMean", name, {in, g.ConstI(name + "_axes", axes)}, {}, o.opset);
    return g.Op("ReduceMean", name, {in}, {{"axes", axes}}, o.opset);
  }
  ir::Value* Commuted(const std::string& op, const std::string& name, ir::Value* v, ir::Value* c,
                      const LnOptions& o) {
    return g.Op(op, name,
                o.swap_operands ? std::vector<ir::Value*>{c, v} : std::vector<ir::Value*>{v, c}, {},
                o.opset);
  }

  GraphBuilder g;
  ir::Value *x, *gamma, *beta, *mean, *d, *sq, *var, *ve, *sd, *n, *scaled, *out;
};

void ExpectLayerNorm(const DecomposedLayerNorm& m, int64_t axis) {
  EXPECT_EQ(m.g.OpTypes(), "LayerNormalization");
  const ir::Node* ln = NodeAt(m.g, 0);
  ASSERT_NE(ln, nullptr);
  EXPECT_EQ(ln->domain(), "");
  EXPECT_EQ(ln->opset(), 17);
  EXPECT_EQ(ln->inputs(), (std::vector<ir::Value*>{m.x, m.gamma, m.beta}));
  EXPECT_EQ(ln->outputs(), (std::vector<ir::Value*>{m.out}));
  EXPECT_EQ(m.g.graph.outputs()[0], m.out);
  EXPECT_TRUE(ln->has_attr("axis"));
  EXPECT_EQ(ln->attr_int("axis"), axis);
  EXPECT_TRUE(ln->has_attr("epsilon"));
  EXPECT_FLOAT_EQ(ln->attr_float("epsilon"), 1e-5f);
}

TEST(LayerNormFusionPassTest, DecomposedLayerNormBecomesLayerNormalization) {
  DecomposedLayerNorm m;
  auto pass = CreateLayerNormFusionPass();
  ASSERT_NE(pass, nullptr);
  EXPECT_STREQ(pass->name(), "layer_norm_fusion");
  EXPECT_TRUE(RunPass(*pass, m.g));
  ExpectLayerNorm(m, -1);
  EXPECT_EQ(NodeAt(m.g, 0)->origins(),
            (testing::Names{"mean", "sub", "pow", "var", "add_eps", "sqrt", "div", "mul", "add"}));
  EXPECT_EQ(m.g.graph.FindValue("eps"), nullptr);  // the epsilon constant is no longer read
}

TEST(LayerNormFusionPassTest, EpsilonComesFromTheAddedConstant) {
  DecomposedLayerNorm m;
  ir::Node* add_eps = nullptr;
  for (auto& n : m.g.graph.nodes()) {
    if (n->name() == "add_eps") add_eps = n.get();
  }
  ASSERT_NE(add_eps, nullptr);
  add_eps->set_input(1, m.g.ConstF("eps2", {1}, {0.001f}));
  auto pass = CreateLayerNormFusionPass();
  EXPECT_TRUE(RunPass(*pass, m.g));
  ASSERT_NE(NodeAt(m.g, 0), nullptr);
  EXPECT_TRUE(NodeAt(m.g, 0)->has_attr("epsilon"));
  EXPECT_FLOAT_EQ(NodeAt(m.g, 0)->attr_float("epsilon"), 0.001f);
}

TEST(LayerNormFusionPassTest, Opset18AxesGivenAsAConstantInputAreRecognised) {
  LnOptions o;
  o.opset = 18;
  DecomposedLayerNorm m(o);
  auto pass = CreateLayerNormFusionPass();
  EXPECT_TRUE(RunPass(*pass, m.g));
  ExpectLayerNorm(m, -1);
}

TEST(LayerNormFusionPassTest, ModelBelowOpset17StillGetsAnOpset17LayerNormalization) {
  LnOptions o;
  o.opset = 13;
  DecomposedLayerNorm m(o);
  auto pass = CreateLayerNormFusionPass();
  EXPECT_TRUE(RunPass(*pass, m.g));
  ExpectLayerNorm(m, -1);
}

TEST(LayerNormFusionPassTest, DifferenceMultipliedByItselfCountsAsTheSquare) {
  LnOptions o;
  o.square_by_mul = true;
  DecomposedLayerNorm m(o);
  auto pass = CreateLayerNormFusionPass();
  EXPECT_TRUE(RunPass(*pass, m.g));
  ExpectLayerNorm(m, -1);
}

TEST(LayerNormFusionPassTest, ConstantsOnTheLeftOfAddAndMulAreAccepted) {
  LnOptions o;
  o.swap_operands = true;
  DecomposedLayerNorm m(o);
  auto pass = CreateLayerNormFusionPass();
  EXPECT_TRUE(RunPass(*pass, m.g));
  ExpectLayerNorm(m, -1);
}

TEST(LayerNormFusionPassTest, PositiveLastAxisIsTheSameAsMinusOne) {
  LnOptions o;
  o.axes = {2};
  DecomposedLayerNorm m(o);
  auto pass = CreateLayerNormFusionPass();
  EXPECT_TRUE(RunPass(*pass, m.g));
  ExpectLayerNorm(m, -1);
}

TEST(LayerNormFusionPassTest, TwoTrailingAxesGiveAxisMinusTwo) {
  LnOptions o;
  o.axes = {-1, -2};
  DecomposedLayerNorm m(o);
  auto pass = CreateLayerNormFusionPass();
  EXPECT_TRUE(RunPass(*pass, m.g));
  ExpectLayerNorm(m, -2);
}

TEST(LayerNormFusionPassTest, WithoutABetaAddTheLayerNormalizationHasNoBias) {
  LnOptions o;
  o.with_beta = false;
  DecomposedLayerNorm m(o);
  auto pass = CreateLayerNormFusionPass();
  EXPECT_TRUE(RunPass(*pass, m.g));
  EXPECT_EQ(m.g.OpTypes(), "LayerNormalization");
  const ir::Node* ln = NodeAt(m.g, 0);
  ASSERT_NE(ln, nullptr);
  EXPECT_EQ(ln->inputs(), (std::vector<ir::Value*>{m.x, m.gamma}));
  EXPECT_EQ(ln->output(0), m.scaled);
}

TEST(LayerNormFusionPassTest, ReductionOverANonTrailingAxisIsNotFused) {
  LnOptions o;
  o.axes = {1};
  DecomposedLayerNorm m(o);
  auto pass = CreateLayerNormFusionPass();
  EXPECT_FALSE(RunPass(*pass, m.g));
  EXPECT_EQ(m.g.OpTypes(), "ReduceMean,Sub,Pow,ReduceMean,Add,Sqrt,Div,Mul,Add");
}

TEST(LayerNormFusionPassTest, MeansOverDifferentAxesAreNotFused) {
  LnOptions o;
  o.var_axes = {-2, -1};
  DecomposedLayerNorm m(o);
  auto pass = CreateLayerNormFusionPass();
  EXPECT_FALSE(RunPass(*pass, m.g));
  EXPECT_EQ(m.g.OpTypes(), "ReduceMean,Sub,Pow,ReduceMean,Add,Sqrt,Div,Mul,Add");
}

TEST(LayerNormFusionPassTest, ExponentOtherThanTwoIsNotFused) {
  LnOptions o;
  o.exponent = 3.0f;
  DecomposedLayerNorm m(o);
  auto pass = CreateLayerNormFusionPass();
  EXPECT_FALSE(RunPass(*pass, m.g));
  EXPECT_EQ(m.g.OpTypes(), "ReduceMean,Sub,Pow,ReduceMean,Add,Sqrt,Div,Mul,Add");
}

TEST(LayerNormFusionPassTest, SubtractingTheMeanFromAnotherTensorIsNotFused) {
  DecomposedLayerNorm m;
  ir::Value* other = m.g.In("other", DataType::kFloat32, {2, 3, 4});
  m.g.graph.nodes().front()->set_input(0, other);  // mean of `other`, subtracted from x
  auto pass = CreateLayerNormFusionPass();
  EXPECT_FALSE(RunPass(*pass, m.g));
  EXPECT_EQ(m.g.graph.nodes().size(), 9u);
}

TEST(LayerNormFusionPassTest, GammaThatIsNotConstantIsNotFused) {
  DecomposedLayerNorm m;
  ir::Value* gamma = m.g.In("gamma_in", DataType::kFloat32, {4});
  for (auto& n : m.g.graph.nodes()) {
    if (n->name() == "mul") n->set_input(1, gamma);
  }
  auto pass = CreateLayerNormFusionPass();
  EXPECT_FALSE(RunPass(*pass, m.g));
  EXPECT_EQ(m.g.graph.nodes().size(), 9u);
}

TEST(LayerNormFusionPassTest, SecondUseOfTheMeanBlocksFusion) {
  DecomposedLayerNorm m;
  m.g.Out(m.g.Op("Relu", "relu", {m.mean}));
  auto pass = CreateLayerNormFusionPass();
  EXPECT_FALSE(RunPass(*pass, m.g));
  EXPECT_EQ(m.g.graph.nodes().size(), 10u);
}

TEST(LayerNormFusionPassTest, ThirdUseOfTheDifferenceBlocksFusion) {
  DecomposedLayerNorm m;
  m.g.Out(m.g.Op("Relu", "relu", {m.d}));
  auto pass = CreateLayerNormFusionPass();
  EXPECT_FALSE(RunPass(*pass, m.g));
  EXPECT_EQ(m.g.graph.nodes().size(), 10u);
}

TEST(LayerNormFusionPassTest, ExtraDivisionOfTheDifferenceListedEarlierBlocksFusion) {
  DecomposedLayerNorm m;
  ir::Value* z = m.g.In("z", DataType::kFloat32, {2, 3, 4});
  m.g.Out(m.g.Op("Div", "div2", {m.d, z}));
  // Move div2 right after the Sub, so that it is d's first reader in node order.
  auto& nodes = m.g.graph.nodes();
  auto sub = std::next(nodes.begin());
  ASSERT_EQ((*sub)->name(), "sub");
  nodes.splice(std::next(sub), nodes, std::prev(nodes.end()));
  auto pass = CreateLayerNormFusionPass();
  EXPECT_FALSE(RunPass(*pass, m.g));
  EXPECT_EQ(m.g.graph.nodes().size(), 10u);
}

TEST(LayerNormFusionPassTest, StandardDeviationThatIsAGraphOutputBlocksFusion) {
  DecomposedLayerNorm m;
  m.g.Out(m.sd);
  auto pass = CreateLayerNormFusionPass();
  EXPECT_FALSE(RunPass(*pass, m.g));
  EXPECT_EQ(m.g.graph.nodes().size(), 9u);
}

TEST(LayerNormFusionPassTest, GraphWithoutTheDecompositionIsReportedUnchanged) {
  GraphBuilder g;
  ir::Value* x = g.In("x", DataType::kFloat32, {2, 4});
  ir::Value* mean = g.Op("ReduceMean", "mean", {x}, {{"axes", std::vector<int64_t>{-1}}});
  g.Out(g.Op("Sub", "sub", {x, mean}));
  auto pass = CreateLayerNormFusionPass();
  EXPECT_FALSE(RunPass(*pass, g));
  EXPECT_EQ(g.OpTypes(), "ReduceMean,Sub");
}

}  // namespace
}  // namespace kiln::compiler
