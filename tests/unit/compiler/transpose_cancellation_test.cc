// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "compiler/passes/passes.h"
#include "tests/unit/compiler/pass_test_util.h"

namespace kiln::compiler {
namespace {

using ir::DataType;
using testing::GraphBuilder;
using Perm = std::vector<int64_t>;

// Runs the pass; returns whether it reported a change (a failure fails the test).
bool Cancel(GraphBuilder& g) {
  PassContext ctx;
  auto changed = CreateTransposeCancellationPass()->Run(g.graph, ctx);
  EXPECT_TRUE(changed.ok()) << changed.status().message();
  return changed.ok() && *changed;
}

ir::Value* T(GraphBuilder& g, const std::string& name, ir::Value* in, Perm perm) {
  return g.Op("Transpose", name, {in}, {{"perm", std::move(perm)}});
}

std::vector<std::string> SortedOrigins(const ir::Node* node) {
  std::vector<std::string> o = node->origins();
  std::sort(o.begin(), o.end());
  return o;
}

TEST(TransposeCancellationPassTest, InversePairDisappears) {
  GraphBuilder g;
  ir::Value* x = g.In("x", DataType::kFloat32, {1, 2, 3, 4});
  ir::Value* nhwc = T(g, "to_nhwc", x, {0, 2, 3, 1});
  ir::Value* nchw = T(g, "to_nchw", nhwc, {0, 3, 1, 2});
  g.Out(g.Op("Relu", "relu", {nchw}));

  EXPECT_TRUE(Cancel(g));

  EXPECT_EQ(g.OpTypes(), "Relu");
  EXPECT_EQ(g.FindNode("Relu")->input(0), x);
}

TEST(TransposeCancellationPassTest, PairMergesIntoOneTransposeWithTheComposedPerm) {
  // x [A,B,C,D] -> [0,2,3,1] -> [A,C,D,B] -> [1,0,2,3] -> [C,A,D,B] = x under [2,0,3,1].
  GraphBuilder g;
  ir::Value* x = g.In("x", DataType::kFloat32, {1, 2, 3, 4});
  ir::Value* a = T(g, "t1", x, {0, 2, 3, 1});
  ir::Value* y = T(g, "t2", a, {1, 0, 2, 3});
  g.Out(g.Op("Relu", "relu", {y}));

  EXPECT_TRUE(Cancel(g));

  EXPECT_EQ(g.OpTypes(), "Transpose,Relu");
  const ir::Node* t = g.FindNode("Transpose");
  EXPECT_EQ(t->attr_ints("perm"), (Perm{2, 0, 3, 1}));
  EXPECT_EQ(t->input(0), x);
  EXPECT_EQ(t->output(0), y);
  EXPECT_EQ(y->name(), "t2_out0");
  EXPECT_EQ(t->name(), "t2");
  EXPECT_EQ(SortedOrigins(t), (std::vector<std::string>{"t1", "t2"}));
}

TEST(TransposeCancellationPassTest, ChainOfThreeMergesIntoOne) {
  // [A,B,C] -> [1,2,0] -> [B,C,A] -> [1,2,0] -> [C,A,B] -> [0,2,1] -> [C,B,A] = x under [2,1,0].
  GraphBuilder g;
  ir::Value* x = g.In("x", DataType::kFloat32, {2, 3, 4});
  ir::Value* y = T(g, "t3", T(g, "t2", T(g, "t1", x, {1, 2, 0}), {1, 2, 0}), {0, 2, 1});
  g.Out(g.Op("Relu", "relu", {y}));

  EXPECT_TRUE(Cancel(g));

  EXPECT_EQ(g.OpTypes(), "Transpose,Relu");
  const ir::Node* t = g.FindNode("Transpose");
  EXPECT_EQ(t->attr_ints("perm"), (Perm{2, 1, 0}));
  EXPECT_EQ(t->input(0), x);
  EXPECT_EQ(SortedOrigins(t), (std::vector<std::string>{"t1", "t2", "t3"}));
}

TEST(TransposeCancellationPassTest, DefaultPermsReverseAndCancel) {
  GraphBuilder g;
  ir::Value* x = g.In("x", DataType::kFloat32, {2, 3, 4});
  ir::Value* a = g.Op("Transpose", "t1", {x});
  ir::Value* b = g.Op("Transpose", "t2", {a});
  g.Out(g.Op("Relu", "relu", {b}));

  EXPECT_TRUE(Cancel(g));

  EXPECT_EQ(g.OpTypes(), "Relu");
  EXPECT_EQ(g.FindNode("Relu")->input(0), x);
}

TEST(TransposeCancellationPassTest, LoneIdentityPermTransposeIsRemoved) {
  GraphBuilder g;
  ir::Value* x = g.In("x", DataType::kFloat32, {2, 3, 4});
  ir::Value* a = T(g, "t", x, {0, 1, 2});
  g.Out(g.Op("Relu", "relu", {a}));

  EXPECT_TRUE(Cancel(g));

  EXPECT_EQ(g.OpTypes(), "Relu");
  EXPECT_EQ(g.FindNode("Relu")->input(0), x);
}

TEST(TransposeCancellationPassTest, FirstTransposeWithAnotherReaderIsLeftAlone) {
  GraphBuilder g;
  ir::Value* x = g.In("x", DataType::kFloat32, {2, 3});
  ir::Value* a = T(g, "t1", x, {1, 0});
  ir::Value* b = T(g, "t2", a, {1, 0});
  g.Out(g.Op("Relu", "relu", {a}));
  g.Out(g.Op("Neg", "neg", {b}));

  EXPECT_FALSE(Cancel(g));
  EXPECT_EQ(g.OpTypes(), "Transpose,Transpose,Relu,Neg");
}

TEST(TransposeCancellationPassTest, InversePairBeforeAGraphOutputKeepsTheOutputName) {
  GraphBuilder g;
  ir::Value* x = g.In("x", DataType::kFloat32, {2, 3});
  ir::Value* a = g.Op("Relu", "relu", {x});
  ir::Value* y = T(g, "t2", T(g, "t1", a, {1, 0}), {1, 0});
  g.Out(y);

  EXPECT_TRUE(Cancel(g));

  // An Identity keeps the name "t2_out0" for the caller ...
  EXPECT_EQ(g.OpTypes(), "Relu,Identity");
  const ir::Node* id = g.FindNode("Identity");
  EXPECT_EQ(id->input(0), a);
  EXPECT_EQ(id->output(0), y);
  EXPECT_EQ(SortedOrigins(id), (std::vector<std::string>{"t1", "t2"}));

  // ... and dead_code_elimination then lets the Relu produce it directly.
  PassContext ctx;
  auto changed = CreateDeadCodeEliminationPass()->Run(g.graph, ctx);
  ASSERT_TRUE(changed.ok()) << changed.status().message();
  EXPECT_TRUE(*changed);
  EXPECT_EQ(g.OpTypes(), "Relu");
  EXPECT_EQ(g.graph.outputs()[0], y);
  EXPECT_EQ(y->producer(), g.FindNode("Relu"));
}

TEST(TransposeCancellationPassTest, NonCancellingTransposesReportNoChange) {
  GraphBuilder g;
  ir::Value* x = g.In("x", DataType::kFloat32, {2, 3});
  g.Out(T(g, "t", x, {1, 0}));
  ir::Value* unknown_rank = *g.graph.AddValue("u", {});
  g.graph.inputs().push_back(unknown_rank);
  g.Out(g.Op("Transpose", "t_default", {unknown_rank}));  // rank unknown: perm unknown

  EXPECT_FALSE(Cancel(g));
  EXPECT_EQ(g.OpTypes(), "Transpose,Transpose");
}

}  // namespace
}  // namespace kiln::compiler
