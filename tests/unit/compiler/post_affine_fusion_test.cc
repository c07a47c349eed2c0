// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "compiler/passes/passes.h"
#include "compiler/passes/pattern_util.h"
#include "tests/unit/compiler/fusion_test_util.h"
#include "tests/unit/compiler/pass_test_util.h"

namespace kiln::compiler {
namespace {

using ir::DataType;
using testing::GraphBuilder;
using testing::NodeAt;
using testing::RunPass;
using testing::SetType;

// x [1,2,4,4] -> FusedConv(3x3, pads 1, HardSwish) -> y [1,2,4,4] (typed by hand).
struct FusedBlock {
  FusedBlock() {
    g.graph.opsets().emplace(pattern::kKilnDomain, pattern::kKilnOpset);
    y = g.graph.AddUniqueValue("y", {});
    ir::Node* n = *g.graph.AddNode("FusedConv", pattern::kKilnDomain, "conv", pattern::kKilnOpset,
                                   {x, w, b}, {y});
    n->set_attr("kernel_shape", std::vector<int64_t>{3, 3});
    n->set_attr("pads", std::vector<int64_t>{1, 1, 1, 1});
    n->set_attr("activation", std::string("HardSwish"));
    SetType(y, DataType::kFloat32, {1, 2, 4, 4});
  }
  GraphBuilder g;
  ir::Value* x = g.In("x", DataType::kFloat32, {1, 2, 4, 4});
  ir::Value* w = g.ConstF("w", {2, 2, 3, 3}, std::vector<float>(36, 0.5f));
  ir::Value* b = g.ConstF("b", {2}, {1, -1});
  ir::Value* y = nullptr;
};

ir::Value* Typed(ir::Value* v) {
  SetType(v, DataType::kFloat32, {1, 2, 4, 4});
  return v;
}

TEST(PostAffineFusionPassTest, ScalarMulAddSubDivChainBecomesPostScaleAndShift) {
  FusedBlock m;
  ir::Value* v = Typed(m.g.Op("Mul", "scale", {m.g.ConstF("s", {}, {2.0f}), m.y}));
  v = Typed(m.g.Op("Add", "shift", {v, m.g.ConstF("t", {1}, {0.5f})}));
  v = Typed(m.g.Op("Div", "div", {v, m.g.ConstF("d", {1, 1, 1, 1}, {4.0f})}));
  ir::Value* out = Typed(m.g.Op("Sub", "sub", {v, m.g.ConstF("u", {}, {1.0f})}));
  m.g.Out(out);
  auto pass = CreatePostAffineFusionPass();
  EXPECT_STREQ(pass->name(), "post_affine_fusion");
  PassContext ctx;
  EXPECT_TRUE(RunPass(*pass, m.g, ctx));
  EXPECT_EQ(m.g.OpTypes(), "FusedConv");
  const ir::Node* fused = NodeAt(m.g, 0);
  ASSERT_NE(fused, nullptr);
  EXPECT_EQ(fused->inputs(), (std::vector<ir::Value*>{m.x, m.w, m.b}));
  EXPECT_EQ(fused->outputs(), (std::vector<ir::Value*>{out}));
  EXPECT_EQ(fused->attr_string("activation"), "HardSwish");
  // ((y * 2 + 0.5) / 4) - 1 = y * 0.5 - 0.875.
  EXPECT_FLOAT_EQ(fused->attr_float("post_scale"), 0.5f);
  EXPECT_FLOAT_EQ(fused->attr_float("post_shift"), -0.875f);
  EXPECT_EQ(fused->origins(), (testing::Names{"conv", "scale", "shift", "div", "sub"}));
  EXPECT_EQ(ctx.log.size(), 4u);
}

// Attention's scores: MatMul(Q, K^T) / sqrt(d) becomes a FusedMatMul (activation "") with
// post_scale 1 / sqrt(d); the matrix product's inputs, name and origins are kept.
TEST(PostAffineFusionPassTest, MatMulDividedByAScalarBecomesAFusedMatMul) {
  GraphBuilder g;
  ir::Value* q = g.In("q", DataType::kFloat32, {1, 2, 4, 8});
  ir::Value* k = g.In("k", DataType::kFloat32, {1, 2, 8, 4});
  ir::Value* scores = g.Op("MatMul", "qk", {q, k});
  SetType(scores, DataType::kFloat32, {1, 2, 4, 4});
  ir::Value* out = g.Op("Div", "scale", {scores, g.ConstF("d", {}, {8.0f})});
  SetType(out, DataType::kFloat32, {1, 2, 4, 4});
  g.Out(out);
  auto pass = CreatePostAffineFusionPass();
  ASSERT_TRUE(RunPass(*pass, g));
  EXPECT_EQ(g.OpTypes(), "FusedMatMul");
  const ir::Node* fused = NodeAt(g, 0);
  EXPECT_EQ(fused->domain(), pattern::kKilnDomain);
  EXPECT_EQ(fused->name(), "qk");
  EXPECT_EQ(fused->inputs(), (std::vector<ir::Value*>{q, k}));
  EXPECT_EQ(fused->outputs(), (std::vector<ir::Value*>{out}));
  EXPECT_EQ(fused->attr_string("activation"), "");
  EXPECT_FLOAT_EQ(fused->attr_float("post_scale"), 0.125f);
  EXPECT_FLOAT_EQ(fused->attr_float("post_shift"), 0.0f);
  EXPECT_EQ(fused->origins(), (testing::Names{"qk", "scale"}));
  Status ok = g.Infer();  // FusedMatMul's schema takes the attributes
  EXPECT_TRUE(ok.ok()) << ok.message();
}

// An integer MatMul (MatMulInteger's kin) keeps its Mul: post affines are float32 only.
TEST(PostAffineFusionPassTest, IntegerMatMulIsLeftAlone) {
  GraphBuilder g;
  ir::Value* a = g.In("a", DataType::kInt32, {4, 8});
  ir::Value* b = g.In("b", DataType::kInt32, {8, 4});
  ir::Value* y = g.Op("MatMul", "mm", {a, b});
  SetType(y, DataType::kInt32, {4, 4});
  ir::Value* out = g.Op(
      "Mul", "twice",
      {y, g.Const("two", ir::Tensor::FromVector(DataType::kInt32, {}, std::vector<int32_t>{2}))});
  SetType(out, DataType::kInt32, {4, 4});
  g.Out(out);
  auto pass = CreatePostAffineFusionPass();
  EXPECT_FALSE(RunPass(*pass, g));
  EXPECT_EQ(g.OpTypes(), "MatMul,Mul");
}

// A second run composes with what the FusedConv already carries.
TEST(PostAffineFusionPassTest, ComposesWithAnExistingPostAffine) {
  FusedBlock m;
  m.g.Out(Typed(m.g.Op("Mul", "scale", {m.y, m.g.ConstF("s", {}, {3.0f})})));
  auto pass = CreatePostAffineFusionPass();
  ASSERT_TRUE(RunPass(*pass, m.g));
  ir::Node* fused = m.g.graph.nodes().front().get();
  ir::Value* out = Typed(m.g.Op("Add", "shift", {fused->output(0), m.g.ConstF("t", {}, {1.0f})}));
  m.g.graph.outputs() = {out};
  ASSERT_TRUE(RunPass(*pass, m.g));
  const ir::Node* again = NodeAt(m.g, 0);
  EXPECT_FLOAT_EQ(again->attr_float("post_scale"), 3.0f);
  EXPECT_FLOAT_EQ(again->attr_float("post_shift"), 1.0f);
}

// Left alone: a per-channel constant (not one value), a constant that would broadcast the output
// larger, the constant on the left of Sub or Div, a Div by zero, a computed operand, a FusedConv
// output that something else also reads.
TEST(PostAffineFusionPassTest, LeavesWhatIsNotAScalarAffineStep) {
  struct Case {
    const char* op;
    bool const_left;
    std::vector<int64_t> dims;
    std::vector<float> values;
  };
  for (const Case& t :
       {Case{"Mul", false, {1, 2, 1, 1}, {1, 2}}, Case{"Mul", false, {1, 1, 1, 1, 1}, {2}},
        Case{"Sub", true, {}, {1}}, Case{"Div", true, {}, {2}}, Case{"Div", false, {}, {0}}}) {
    SCOPED_TRACE(std::string(t.op) + (t.const_left ? " left" : " right"));
    FusedBlock m;
    ir::Value* c = m.g.ConstF("c", t.dims, t.values);
    m.g.Out(
        m.g.Op(t.op, "step",
               t.const_left ? std::vector<ir::Value*>{c, m.y} : std::vector<ir::Value*>{m.y, c}));
    auto pass = CreatePostAffineFusionPass();
    EXPECT_FALSE(RunPass(*pass, m.g));
  }
  {
    FusedBlock m;
    ir::Value* z = m.g.In("z", DataType::kFloat32, {1, 2, 4, 4});
    m.g.Out(m.g.Op("Mul", "step", {m.y, z}));
    auto pass = CreatePostAffineFusionPass();
    EXPECT_FALSE(RunPass(*pass, m.g));
  }
  {
    FusedBlock m;
    m.g.Out(m.g.Op("Mul", "step", {m.y, m.g.ConstF("s", {}, {2.0f})}));
    m.g.Out(m.y);
    auto pass = CreatePostAffineFusionPass();
    EXPECT_FALSE(RunPass(*pass, m.g));
  }
}

}  // namespace
}  // namespace kiln::compiler
