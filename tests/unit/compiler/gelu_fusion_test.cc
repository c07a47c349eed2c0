// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

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

ir::Value* Scalar(GraphBuilder& g, const std::string& name, float v) {
  return g.ConstF(name, {}, {v});
}

void ExpectGelu(const GraphBuilder& g, ir::Value* x, ir::Value* y, const std::string& approximate) {
  EXPECT_EQ(g.OpTypes(), "Gelu");
  const ir::Node* gelu = NodeAt(g, 0);
  ASSERT_NE(gelu, nullptr);
  EXPECT_EQ(gelu->domain(), "");
  EXPECT_EQ(gelu->opset(), 20);
  EXPECT_EQ(gelu->inputs(), (std::vector<ir::Value*>{x}));
  EXPECT_EQ(gelu->outputs(), (std::vector<ir::Value*>{y}));
  EXPECT_TRUE(gelu->has_attr("approximate"));
  EXPECT_EQ(gelu->attr_string("approximate"), approximate);
  EXPECT_EQ(g.graph.outputs().back(), y);
}

// x * (1 + Erf(x / c)) * half: the PyTorch export order (half last).
struct ExactDivHalfLast {
  explicit ExactDivHalfLast(float c = 1.4142135f, float half = 0.5f) {
    x = g.In("x", DataType::kFloat32, {2, 8});
    t = g.Op("Div", "div", {x, Scalar(g, "sqrt2", c)});
    e = g.Op("Erf", "erf", {t});
    a = g.Op("Add", "add", {e, Scalar(g, "one", 1)});
    m = g.Op("Mul", "mul", {x, a});
    y = g.Op("Mul", "half", {m, Scalar(g, "c_half", half)});
    g.Out(y);
  }
  GraphBuilder g;
  ir::Value *x, *t, *e, *a, *m, *y;
};

TEST(GeluFusionPassTest, ExactGeluDividedByRootTwoWithHalfLastBecomesGelu) {
  ExactDivHalfLast m;
  auto pass = CreateGeluFusionPass();
  ASSERT_NE(pass, nullptr);
  EXPECT_STREQ(pass->name(), "gelu_fusion");
  EXPECT_TRUE(RunPass(*pass, m.g));
  ExpectGelu(m.g, m.x, m.y, "none");
  EXPECT_EQ(NodeAt(m.g, 0)->origins(), (testing::Names{"erf", "div", "add", "mul", "half"}));
  EXPECT_EQ(m.g.graph.FindValue("sqrt2"), nullptr);
}

TEST(GeluFusionPassTest, ExactGeluMultipliedByRootHalfWithHalfFirstBecomesGelu) {
  GraphBuilder g;
  ir::Value* x = g.In("x", DataType::kFloat32, {2, 8});
  ir::Value* h = g.Op("Mul", "half", {x, Scalar(g, "c_half", 0.5f)});
  ir::Value* t = g.Op("Mul", "scale", {x, Scalar(g, "rsqrt2", 0.70710678f)});
  ir::Value* a = g.Op("Add", "add", {Scalar(g, "one", 1), g.Op("Erf", "erf", {t})});
  ir::Value* y = g.Op("Mul", "mul", {h, a});
  g.Out(y);
  auto pass = CreateGeluFusionPass();
  EXPECT_TRUE(RunPass(*pass, g));
  ExpectGelu(g, x, y, "none");
  EXPECT_EQ(NodeAt(g, 0)->origins(), (testing::Names{"erf", "scale", "add", "half", "mul"}));
}

TEST(GeluFusionPassTest, HalfAppliedToTheErfSumIsAccepted) {
  GraphBuilder g;
  ir::Value* x = g.In("x", DataType::kFloat32, {2, 8});
  ir::Value* t = g.Op("Div", "div", {x, Scalar(g, "sqrt2", 1.4142135f)});
  ir::Value* a = g.Op("Add", "add", {g.Op("Erf", "erf", {t}), Scalar(g, "one", 1)});
  ir::Value* m = g.Op("Mul", "half", {a, Scalar(g, "c_half", 0.5f)});
  ir::Value* y = g.Op("Mul", "mul", {x, m});
  g.Out(y);
  auto pass = CreateGeluFusionPass();
  EXPECT_TRUE(RunPass(*pass, g));
  ExpectGelu(g, x, y, "none");
}

TEST(GeluFusionPassTest, ConstantsOnTheLeftOfEveryMulAndAddAreAccepted) {
  GraphBuilder g;
  ir::Value* x = g.In("x", DataType::kFloat32, {2, 8});
  ir::Value* t = g.Op("Mul", "scale", {Scalar(g, "rsqrt2", 0.70710678f), x});
  ir::Value* a = g.Op("Add", "add", {Scalar(g, "one", 1), g.Op("Erf", "erf", {t})});
  ir::Value* m = g.Op("Mul", "mul", {a, x});
  ir::Value* y = g.Op("Mul", "half", {Scalar(g, "c_half", 0.5f), m});
  g.Out(y);
  auto pass = CreateGeluFusionPass();
  EXPECT_TRUE(RunPass(*pass, g));
  ExpectGelu(g, x, y, "none");
}

TEST(GeluFusionPassTest, ConstantWithinTheToleranceIsAccepted) {
  ExactDivHalfLast m(1.41425f);  // 3.6e-5 from sqrt(2)
  auto pass = CreateGeluFusionPass();
  EXPECT_TRUE(RunPass(*pass, m.g));
  ExpectGelu(m.g, m.x, m.y, "none");
}

TEST(GeluFusionPassTest, DivisorOutsideTheToleranceIsNotFused) {
  ExactDivHalfLast m(1.4145f);  // 2.9e-4 from sqrt(2)
  auto pass = CreateGeluFusionPass();
  EXPECT_FALSE(RunPass(*pass, m.g));
  EXPECT_EQ(m.g.OpTypes(), "Div,Erf,Add,Mul,Mul");
}

TEST(GeluFusionPassTest, OuterFactorOtherThanAHalfIsNotFused) {
  ExactDivHalfLast m(1.4142135f, 0.6f);
  auto pass = CreateGeluFusionPass();
  EXPECT_FALSE(RunPass(*pass, m.g));
  EXPECT_EQ(m.g.OpTypes(), "Div,Erf,Add,Mul,Mul");
}

TEST(GeluFusionPassTest, ErfOfAnotherTensorIsNotFused) {
  GraphBuilder g;
  ir::Value* x = g.In("x", DataType::kFloat32, {2, 8});
  ir::Value* other = g.In("other", DataType::kFloat32, {2, 8});
  ir::Value* t = g.Op("Div", "div", {other, Scalar(g, "sqrt2", 1.4142135f)});
  ir::Value* a = g.Op("Add", "add", {g.Op("Erf", "erf", {t}), Scalar(g, "one", 1)});
  ir::Value* m = g.Op("Mul", "mul", {x, a});
  g.Out(g.Op("Mul", "half", {m, Scalar(g, "c_half", 0.5f)}));
  auto pass = CreateGeluFusionPass();
  EXPECT_FALSE(RunPass(*pass, g));
  EXPECT_EQ(g.OpTypes(), "Div,Erf,Add,Mul,Mul");
}

TEST(GeluFusionPassTest, SecondUseOfTheErfOutputBlocksFusion) {
  ExactDivHalfLast m;
  m.g.Out(m.g.Op("Relu", "relu", {m.e}));
  auto pass = CreateGeluFusionPass();
  EXPECT_FALSE(RunPass(*pass, m.g));
  EXPECT_EQ(m.g.OpTypes(), "Div,Erf,Add,Mul,Mul,Relu");
}

TEST(GeluFusionPassTest, IntermediateThatIsAGraphOutputBlocksFusion) {
  ExactDivHalfLast m;
  m.g.Out(m.m);
  auto pass = CreateGeluFusionPass();
  EXPECT_FALSE(RunPass(*pass, m.g));
  EXPECT_EQ(m.g.OpTypes(), "Div,Erf,Add,Mul,Mul");
}

TEST(GeluFusionPassTest, TanhApproximationBecomesGeluWithApproximateTanh) {
  GraphBuilder g;
  ir::Value* x = g.In("x", DataType::kFloat32, {2, 8});
  ir::Value* p = g.Op("Pow", "pow", {x, Scalar(g, "three", 3)});
  ir::Value* q = g.Op("Mul", "coeff", {Scalar(g, "c", 0.044715f), p});
  ir::Value* r = g.Op("Add", "inner", {x, q});
  ir::Value* u = g.Op("Mul", "scale", {r, Scalar(g, "k", 0.7978845608f)});
  ir::Value* a = g.Op("Add", "add", {g.Op("Tanh", "tanh", {u}), Scalar(g, "one", 1)});
  ir::Value* h = g.Op("Mul", "half", {Scalar(g, "c_half", 0.5f), x});
  ir::Value* y = g.Op("Mul", "mul", {h, a});
  g.Out(y);
  auto pass = CreateGeluFusionPass();
  EXPECT_TRUE(RunPass(*pass, g));
  ExpectGelu(g, x, y, "tanh");
  EXPECT_EQ(NodeAt(g, 0)->origins(),
            (testing::Names{"tanh", "pow", "coeff", "inner", "scale", "add", "half", "mul"}));
}

TEST(GeluFusionPassTest, TanhApproximationWithTheCubeAsProductsIsAccepted) {
  GraphBuilder g;
  ir::Value* x = g.In("x", DataType::kFloat32, {2, 8});
  ir::Value* sq = g.Op("Mul", "sq", {x, x});
  ir::Value* p = g.Op("Mul", "cube", {sq, x});
  ir::Value* q = g.Op("Mul", "coeff", {p, Scalar(g, "c", 0.044715f)});
  ir::Value* r = g.Op("Add", "inner", {q, x});
  ir::Value* u = g.Op("Mul", "scale", {Scalar(g, "k", 0.7978846f), r});
  ir::Value* a = g.Op("Add", "add", {Scalar(g, "one", 1), g.Op("Tanh", "tanh", {u})});
  ir::Value* m = g.Op("Mul", "mul", {x, a});
  ir::Value* y = g.Op("Mul", "half", {m, Scalar(g, "c_half", 0.5f)});
  g.Out(y);
  auto pass = CreateGeluFusionPass();
  EXPECT_TRUE(RunPass(*pass, g));
  ExpectGelu(g, x, y, "tanh");
}

TEST(GeluFusionPassTest, TanhApproximationWithTheWrongCubicCoefficientIsNotFused) {
  GraphBuilder g;
  ir::Value* x = g.In("x", DataType::kFloat32, {2, 8});
  ir::Value* p = g.Op("Pow", "pow", {x, Scalar(g, "three", 3)});
  ir::Value* q = g.Op("Mul", "coeff", {p, Scalar(g, "c", 0.05f)});
  ir::Value* r = g.Op("Add", "inner", {x, q});
  ir::Value* u = g.Op("Mul", "scale", {r, Scalar(g, "k", 0.7978845608f)});
  ir::Value* a = g.Op("Add", "add", {g.Op("Tanh", "tanh", {u}), Scalar(g, "one", 1)});
  g.Out(g.Op("Mul", "half", {g.Op("Mul", "mul", {x, a}), Scalar(g, "c_half", 0.5f)}));
  auto pass = CreateGeluFusionPass();
  EXPECT_FALSE(RunPass(*pass, g));
  EXPECT_EQ(g.OpTypes(), "Pow,Mul,Add,Mul,Tanh,Add,Mul,Mul");
}

TEST(GeluFusionPassTest, TwoGelusInOneGraphAreBothFused) {
  GraphBuilder g;
  ir::Value* x = g.In("x", DataType::kFloat32, {2, 8});
  auto gelu = [&](const std::string& tag, ir::Value* in) {
    ir::Value* t = g.Op("Div", "div" + tag, {in, Scalar(g, "sqrt2" + tag, 1.4142135f)});
    ir::Value* a =
        g.Op("Add", "add" + tag, {g.Op("Erf", "erf" + tag, {t}), Scalar(g, "one" + tag, 1)});
    return g.Op("Mul", "half" + tag,
                {g.Op("Mul", "mul" + tag, {in, a}), Scalar(g, "h" + tag, 0.5f)});
  };
  ir::Value* y1 = gelu("1", x);
  ir::Value* y2 = gelu("2", g.Op("Neg", "neg", {y1}));
  g.Out(y2);
  auto pass = CreateGeluFusionPass();
  EXPECT_TRUE(RunPass(*pass, g));
  EXPECT_EQ(g.OpTypes(), "Gelu,Neg,Gelu");
  ASSERT_NE(NodeAt(g, 2), nullptr);
  EXPECT_EQ(NodeAt(g, 0)->output(0), y1);
  EXPECT_EQ(NodeAt(g, 2)->output(0), y2);
}

TEST(GeluFusionPassTest, LoneErfIsReportedUnchanged) {
  GraphBuilder g;
  ir::Value* x = g.In("x", DataType::kFloat32, {2, 8});
  g.Out(g.Op("Erf", "erf", {x}));
  auto pass = CreateGeluFusionPass();
  EXPECT_FALSE(RunPass(*pass, g));
  EXPECT_EQ(g.OpTypes(), "Erf");
}

}  // namespace
}  // namespace kiln::compiler
