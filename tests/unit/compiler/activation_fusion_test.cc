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

bool Fuse(GraphBuilder& g) {
  auto pass = CreateActivationFusionPass();
  EXPECT_STREQ(pass->name(), "activation_fusion");
  return RunPass(*pass, g);
}

void ExpectSingle(const GraphBuilder& g, const std::string& op, int opset, ir::Value* x,
                  ir::Value* y) {
  ASSERT_EQ(g.OpTypes(), op);
  const ir::Node* n = NodeAt(g, 0);
  EXPECT_EQ(n->domain(), "");
  EXPECT_EQ(n->opset(), opset);
  EXPECT_EQ(n->inputs(), (std::vector<ir::Value*>{x}));
  EXPECT_EQ(n->outputs(), (std::vector<ir::Value*>{y}));
  EXPECT_EQ(g.graph.outputs().back(), y);
}

TEST(ActivationFusionPassTest, SigmoidTimesItsInputBecomesSwishInEitherOrder) {
  for (bool sigmoid_first : {false, true}) {
    GraphBuilder g;
    ir::Value* x = g.In("x", DataType::kFloat32, {1, 16, 8, 8});
    ir::Value* s = g.Op("Sigmoid", "sig", {x});
    ir::Value* y = g.Op("Mul", "mul", {sigmoid_first ? s : x, sigmoid_first ? x : s});
    g.Out(y);
    EXPECT_TRUE(Fuse(g));
    ExpectSingle(g, "Swish", 24, x, y);
    EXPECT_TRUE(NodeAt(g, 0)->has_attr("alpha"));
    EXPECT_FLOAT_EQ(NodeAt(g, 0)->attr_float("alpha"), 1.0f);
    EXPECT_EQ(NodeAt(g, 0)->origins(), (testing::Names{"mul", "sig"}));
  }
}

TEST(ActivationFusionPassTest, SigmoidGatingAnotherValueOrUsedTwiceStays) {
  GraphBuilder g;
  ir::Value* x = g.In("x", DataType::kFloat32, {1, 16, 8, 8});
  ir::Value* z = g.In("z", DataType::kFloat32, {1, 16, 8, 8});
  g.Out(g.Op("Mul", "gate", {z, g.Op("Sigmoid", "sig", {x})}));  // z * sigmoid(x)
  ir::Value* s2 = g.Op("Sigmoid", "sig2", {x});
  g.Out(g.Op("Mul", "mul2", {x, s2}));
  g.Out(s2);  // the sigmoid is also a graph output
  EXPECT_FALSE(Fuse(g));
  EXPECT_EQ(g.OpTypes(), "Sigmoid,Mul,Sigmoid,Mul");
}

// x * clip(x + 3, 0, 6) / 6 in the spellings exporters use.
struct HardSwishCase {
  bool add_three_first = false;
  bool scale_clip_first = false;   // x * (clip / 6) instead of (x * clip) / 6
  bool multiply_by_sixth = false;  // Mul(.., 1/6) instead of Div(.., 6)
  int clip_opset = 12;
  float lo = 0, hi = 6, three = 3, six = 6;
};

void BuildHardSwish(GraphBuilder& g, const HardSwishCase& c, ir::Value** x, ir::Value** y) {
  *x = g.In("x", DataType::kFloat32, {1, 16, 8, 8});
  ir::Value* three = Scalar(g, "three", c.three);
  ir::Value* a =
      g.Op("Add", "add", {c.add_three_first ? three : *x, c.add_three_first ? *x : three});
  ir::Value* clip = c.clip_opset < 11
                        ? g.Op("Clip", "clip", {a}, {{"min", c.lo}, {"max", c.hi}}, c.clip_opset)
                        : g.Op("Clip", "clip", {a, Scalar(g, "lo", c.lo), Scalar(g, "hi", c.hi)},
                               {}, c.clip_opset);
  auto scale = [&](ir::Value* v) {
    return c.multiply_by_sixth ? g.Op("Mul", "scale", {v, Scalar(g, "sixth", 1 / c.six)})
                               : g.Op("Div", "scale", {v, Scalar(g, "six", c.six)});
  };
  *y = c.scale_clip_first ? g.Op("Mul", "mul", {*x, scale(clip)})
                          : scale(g.Op("Mul", "mul", {*x, clip}));
  g.Out(*y);
}

TEST(ActivationFusionPassTest, DecomposedHardSwishBecomesHardSwishInEverySpelling) {
  for (int variant = 0; variant < 16; ++variant) {
    HardSwishCase c;
    c.add_three_first = variant & 1;
    c.scale_clip_first = variant & 2;
    c.multiply_by_sixth = variant & 4;
    c.clip_opset = (variant & 8) ? 6 : 12;
    GraphBuilder g;
    ir::Value *x, *y;
    BuildHardSwish(g, c, &x, &y);
    EXPECT_TRUE(Fuse(g)) << "variant " << variant;
    ExpectSingle(g, "HardSwish", 14, x, y);
    EXPECT_EQ(NodeAt(g, 0)->origins().size(), 4u) << "variant " << variant;  // add clip mul scale
    EXPECT_EQ(g.graph.FindValue("three"), nullptr);
  }
}

TEST(ActivationFusionPassTest, OtherConstantsOrSharedIntermediatesAreNotHardSwish) {
  std::vector<HardSwishCase> cases(4);
  cases[0].hi = 5;     // relu5, not relu6
  cases[1].three = 2;  // x + 2
  cases[2].six = 5;    // divided by 5
  cases[3].lo = -1;
  for (const HardSwishCase& c : cases) {
    GraphBuilder g;
    ir::Value *x, *y;
    BuildHardSwish(g, c, &x, &y);
    EXPECT_FALSE(Fuse(g));
    EXPECT_EQ(g.OpTypes(), "Add,Clip,Mul,Div");
  }
  GraphBuilder g;  // the clipped value is read elsewhere too
  ir::Value *x, *y;
  BuildHardSwish(g, HardSwishCase{}, &x, &y);
  g.Out(g.graph.FindValue("clip_out0"));
  EXPECT_FALSE(Fuse(g));
}

}  // namespace
}  // namespace kiln::compiler
