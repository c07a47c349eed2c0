// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "ir/graph.h"

#include <gtest/gtest.h>

#include "ir/op_schema.h"

namespace kiln::ir {
namespace {

TEST(ShapeTest, BroadcastsLikeNumpy) {
  auto s = Broadcast(Shape::Of({8, 1, 6, 1}), Shape::Of({7, 1, 5}));
  ASSERT_TRUE(s);
  EXPECT_EQ(s->ToString(), "[8,7,6,5]");
  EXPECT_FALSE(Broadcast(Shape::Of({3}), Shape::Of({4})).has_value());
  auto sym = Broadcast(Shape({Dim::Symbol("batch"), Dim::Known(1)}), Shape::Of({4}));
  ASSERT_TRUE(sym);
  EXPECT_EQ(sym->ToString(), "[batch,4]");
  EXPECT_FALSE(Broadcast(Shape(), Shape::Of({2}))->rank_known());
}

TEST(ShapeTest, CountsElementsOnlyForStaticShapes) {
  EXPECT_EQ(Shape::Of({2, 3, 4}).NumElements(), 24);
  EXPECT_EQ(Shape::Scalar().NumElements(), 1);
  EXPECT_FALSE(Shape({Dim::Symbol("n"), Dim::Known(3)}).NumElements().has_value());
  EXPECT_EQ(Shape().ToString(), "[*]");
}

TEST(GraphTest, RejectsDuplicateValuesAndProducers) {
  Graph g;
  ASSERT_TRUE(g.AddValue("x", {}).ok());
  EXPECT_EQ(g.AddValue("x", {}).status().code(), code::kInvalidParam);
  Value* y = *g.AddValue("y", {});
  ASSERT_TRUE(g.AddNode("Relu", "", "a", 13, {g.FindValue("x")}, {y}).ok());
  auto second = g.AddNode("Relu", "", "b", 13, {g.FindValue("x")}, {y});
  ASSERT_FALSE(second.ok());
  EXPECT_NE(second.status().message().find("Relu 'a'"), std::string::npos);
}

TEST(GraphTest, TopologicalSortOrdersNodesAndReportsMissingValues) {
  Graph g;
  Value* x = *g.AddValue("x", {});
  Value* a = *g.AddValue("a", {});
  Value* b = *g.AddValue("b", {});
  g.inputs().push_back(x);
  ASSERT_TRUE(g.AddNode("Relu", "", "second", 13, {a}, {b}).ok());
  ASSERT_TRUE(g.AddNode("Relu", "", "first", 13, {x}, {a}).ok());
  ASSERT_TRUE(g.TopologicalSort().ok());
  EXPECT_EQ(g.nodes().front()->name(), "first");
  Value* ghost = *g.AddValue("ghost", {});
  Value* c = *g.AddValue("c", {});
  ASSERT_TRUE(g.AddNode("Relu", "", "orphan", 13, {ghost}, {c}).ok());
  Status s = g.TopologicalSort();
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("'ghost'"), std::string::npos);
}

TEST(GraphTest, ReplaceAllUsesAndPrune) {
  Graph g;
  Value* x = *g.AddValue("x", {});
  Value* y = *g.AddValue("y", {});
  Value* z = *g.AddValue("z", {});
  g.inputs().push_back(x);
  Node* id = *g.AddNode("Identity", "", "id", 13, {x}, {y});
  ASSERT_TRUE(g.AddNode("Relu", "", "r", 13, {y}, {z}).ok());
  g.outputs().push_back(z);
  g.ReplaceAllUses(y, x);
  g.RemoveNode(id);
  g.Prune();
  EXPECT_EQ(g.FindValue("y"), nullptr);
  EXPECT_EQ(g.Uses(x).size(), 1u);
  EXPECT_EQ(g.nodes().size(), 1u);
}

TEST(GraphTest, ReplaceOutputRepointsANodeInPlace) {
  Graph g;
  Value* x = *g.AddValue("x", {});
  Value* a = *g.AddValue("a", {});
  Value* b = *g.AddValue("b", {});
  Node* n = *g.AddNode("Relu", "", "r", 13, {x}, {a});
  ASSERT_TRUE(g.ReplaceOutput(n, a, b).ok());
  EXPECT_EQ(n->output(0), b);
  EXPECT_EQ(b->producer(), n);
  EXPECT_EQ(a->producer(), nullptr);
  EXPECT_EQ(g.ReplaceOutput(n, a, b).code(), code::kInvalidParam);  // a is no longer an output
  Value* c = *g.AddValue("c", {});
  ASSERT_TRUE(g.AddNode("Neg", "", "m", 13, {x}, {c}).ok());
  EXPECT_EQ(g.ReplaceOutput(n, b, c).code(), code::kInvalidParam);  // c has a producer
}

TEST(GraphTest, CapturedNamesSeeReadsOfNestedBodiesAndPruneKeepsThem) {
  Graph g;
  Value* x = *g.AddValue("x", {});
  Value* outer = *g.AddValue("outer", {});
  Value* cond = *g.AddValue("cond", {});
  Value* y = *g.AddValue("y", {});
  g.inputs() = {x, cond};
  ASSERT_TRUE(g.AddNode("Relu", "", "r", 13, {x}, {outer}).ok());
  // then-branch: an inner If whose own branch reads "outer" from two scopes up.
  auto inner = std::make_shared<Graph>();
  Value* captured = *inner->AddValue("outer", {});
  Value* inner_out = *inner->AddValue("inner_out", {});
  ASSERT_TRUE(inner->AddNode("Neg", "", "neg", 13, {captured}, {inner_out}).ok());
  inner->outputs().push_back(inner_out);
  auto then_branch = std::make_shared<Graph>();
  Value* c2 = *then_branch->AddValue("cond", {});
  Value* t_out = *then_branch->AddValue("t_out", {});
  Node* nested = *then_branch->AddNode("If", "", "if_inner", 13, {c2}, {t_out});
  nested->set_attr("then_branch", inner);
  then_branch->outputs().push_back(t_out);
  Node* iff = *g.AddNode("If", "", "if_outer", 13, {cond}, {y});
  iff->set_attr("then_branch", then_branch);
  g.outputs().push_back(y);
  EXPECT_EQ(CapturedNames(*iff), (std::set<std::string>{"cond", "outer"}));
  EXPECT_EQ(CapturedNames(g).count("outer"), 1u);
  EXPECT_EQ(g.Uses(outer).size(), 0u);  // only the body reads it
  g.Prune();
  EXPECT_NE(g.FindValue("outer"), nullptr);
}

TEST(OpRegistryTest, UnknownOpIsUnsupportedAndNamesTheNode) {
  Graph g;
  Value* x = *g.AddValue("x", {DataType::kFloat32, Shape::Of({1})});
  Value* y = *g.AddValue("y", {});
  Node* n = *g.AddNode("FancyOp", "", "my_node", 13, {x}, {y});
  Status s = InferNode(OpRegistry::Global(), *n);
  EXPECT_EQ(s.code(), code::kFeatureUnsupported);
  EXPECT_NE(s.message().find("FancyOp 'my_node' (opset 13)"), std::string::npos);
}

TEST(OpRegistryTest, RegistersAtLeastTheElementwiseFamily) {
  const auto& r = OpRegistry::Global();
  for (const char* op : {"Add", "Relu", "Cast", "Where", "Clip", "Erf"}) {
    EXPECT_NE(r.Find("", op), nullptr) << op;
  }
  EXPECT_NE(r.Find("ai.onnx", "Add"), nullptr);
}

}  // namespace
}  // namespace kiln::ir
