// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "compiler/passes/output_selection.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "compiler/passes/passes.h"
#include "tests/unit/compiler/pass_test_util.h"

namespace kiln::compiler {
namespace {

using ir::DataType;
using testing::GraphBuilder;
using Values = std::vector<ir::Value*>;

// Runs the pass; returns whether it reported a change (a failure fails the test).
bool Select(GraphBuilder& g, std::vector<std::string> out_nodes, PassContext* ctx = nullptr) {
  PassContext local;
  auto changed = CreateOutputSelectionPass(std::move(out_nodes))->Run(g.graph, ctx ? *ctx : local);
  EXPECT_TRUE(changed.ok()) << changed.status().message();
  return changed.ok() && *changed;
}

// Runs the pass, expecting it to fail with kInvalidParam; returns the message.
std::string SelectError(GraphBuilder& g, std::vector<std::string> out_nodes) {
  PassContext ctx;
  auto changed = CreateOutputSelectionPass(std::move(out_nodes))->Run(g.graph, ctx);
  EXPECT_FALSE(changed.ok());
  if (changed.ok()) return "";
  EXPECT_EQ(changed.status().code(), code::kInvalidParam);
  return changed.status().message();
}

// x -> Relu 'relu' -> a; a -> Neg 'neg' -> b (the output); a -> Sigmoid 'sig' -> c.
struct Chain {
  Chain() { g.Out(b); }
  GraphBuilder g;
  ir::Value* x = g.In("x", DataType::kFloat32, {2, 3});
  ir::Value* a = g.Op("Relu", "relu", {x});
  ir::Value* b = g.Op("Neg", "neg", {a});
  ir::Value* c = g.Op("Sigmoid", "sig", {a});
};

TEST(OutputSelectionPassTest, PassIsNamedOutputSelection) {
  EXPECT_STREQ(CreateOutputSelectionPass({})->name(), "output_selection");
}

TEST(OutputSelectionPassTest, SelectedValuesBecomeTheOutputsInTheGivenOrder) {
  Chain m;
  PassContext ctx;

  EXPECT_TRUE(Select(m.g, {"sig:0", "relu_out0"}, &ctx));

  EXPECT_EQ(m.g.graph.outputs(), (Values{m.c, m.a}));
  ASSERT_EQ(ctx.log.size(), 1u);
  EXPECT_EQ(ctx.log[0], "output_selection: outputs 'neg_out0' -> 'sig_out0', 'relu_out0'");
  // Only the outputs are rewired; nodes stay for dead_code_elimination.
  EXPECT_EQ(m.g.OpTypes(), "Relu,Neg,Sigmoid");
}

TEST(OutputSelectionPassTest, NodeIndexPicksThatOutputOfASplit) {
  GraphBuilder g;
  ir::Value* x = g.In("x", DataType::kFloat32, {6});
  Values parts = g.OpN("Split", "split", {x}, 3);
  g.Out(parts[0]);

  EXPECT_TRUE(Select(g, {"split:2", "split:0"}));

  EXPECT_EQ(g.graph.outputs(), (Values{parts[2], parts[0]}));
}

TEST(OutputSelectionPassTest, NodeIndexOnePicksTheIndicesOfATopK) {
  GraphBuilder g;
  ir::Value* x = g.In("x", DataType::kFloat32, {5});
  Values topk = g.OpN("TopK", "topk", {x, g.ConstI("k", {2})}, 2);
  g.Out(topk[0]);

  EXPECT_TRUE(Select(g, {"topk:1"}));

  EXPECT_EQ(g.graph.outputs(), (Values{topk[1]}));
}

TEST(OutputSelectionPassTest, NameOfANodeFusedIntoAnotherFindsTheFusedNode) {
  GraphBuilder g;
  ir::Value* x = g.In("x", DataType::kFloat32, {1, 1, 2, 2});
  ir::Value* w = g.ConstF("w", {1, 1, 1, 1}, {2});
  ir::Value* y = *g.graph.AddValue("y", {});
  ir::Node* fused = *g.graph.AddNode("FusedConv", "com.kiln", "conv", 1, {x, w}, {y});
  fused->add_origins({"relu"});
  ir::Value* z = g.Op("Neg", "neg", {y});
  g.Out(z);

  EXPECT_TRUE(Select(g, {"relu:0"}));

  EXPECT_EQ(g.graph.outputs(), (Values{y}));
}

TEST(OutputSelectionPassTest, NodeNamedSoWinsOverAnotherNodesOrigin) {
  GraphBuilder g;
  ir::Value* x = g.In("x", DataType::kFloat32, {4});
  ir::Value* y = *g.graph.AddValue("y", {});
  ir::Node* other = *g.graph.AddNode("Relu", "", "other", 17, {x}, {y});
  other->add_origins({"neg"});
  ir::Value* z = g.Op("Neg", "neg", {y});
  g.Out(y);

  EXPECT_TRUE(Select(g, {"neg:0"}));

  EXPECT_EQ(g.graph.outputs(), (Values{z}));
}

TEST(OutputSelectionPassTest, TensorNameWithAColonIsFoundWhenNoNodeHasThePrefixAsName) {
  // tf2onnx names tensors "node/op:0".
  GraphBuilder g;
  ir::Value* x = g.In("x", DataType::kFloat32, {4});
  ir::Value* y = *g.graph.AddValue("dense/BiasAdd:0", {});
  (void)*g.graph.AddNode("Relu", "", "dense/Relu", 17, {x}, {y});
  g.Out(g.Op("Neg", "neg", {y}));

  EXPECT_TRUE(Select(g, {"dense/BiasAdd:0"}));

  EXPECT_EQ(g.graph.outputs(), (Values{y}));
}

TEST(OutputSelectionPassTest, TensorNamedLikeNodeIndexIsUsedWhenTheNodeHasNoSuchOutput) {
  GraphBuilder g;
  ir::Value* x = g.In("x", DataType::kFloat32, {4});
  ir::Value* a = g.Op("Relu", "relu", {x});  // one output: "relu:1" is no node output
  ir::Value* t = *g.graph.AddValue("relu:1", {});
  (void)*g.graph.AddNode("Neg", "", "neg", 17, {a}, {t});
  g.Out(a);

  EXPECT_TRUE(Select(g, {"relu:1"}));

  EXPECT_EQ(g.graph.outputs(), (Values{t}));
}

TEST(OutputSelectionPassTest, GraphInputCanBeSelected) {
  Chain m;

  EXPECT_TRUE(Select(m.g, {"x", "neg:0"}));

  EXPECT_EQ(m.g.graph.outputs(), (Values{m.x, m.b}));
}

TEST(OutputSelectionPassTest, SelectingTheCurrentOutputsChangesNothing) {
  Chain m;

  EXPECT_FALSE(Select(m.g, {"neg:0"}));

  EXPECT_EQ(m.g.graph.outputs(), (Values{m.b}));
}

TEST(OutputSelectionPassTest, EmptyListChangesNothing) {
  Chain m;

  EXPECT_FALSE(Select(m.g, {}));

  EXPECT_EQ(m.g.graph.outputs(), (Values{m.b}));
}

TEST(OutputSelectionPassTest, DeadCodeEliminationThenDropsWhatNoSelectedOutputNeeds) {
  Chain m;
  PassContext ctx;

  ASSERT_TRUE(Select(m.g, {"relu:0"}));
  auto dce = CreateDeadCodeEliminationPass()->Run(m.g.graph, ctx);
  ASSERT_TRUE(dce.ok()) << dce.status().message();

  EXPECT_EQ(m.g.OpTypes(), "Relu");
  EXPECT_EQ(m.g.graph.outputs(), (Values{m.a}));
}

TEST(OutputSelectionPassTest, UnknownNodeIsAnErrorListingTheNodes) {
  Chain m;

  EXPECT_EQ(SelectError(m.g, {"nope:0"}),
            "--out_nodes entry 'nope:0': no node is named 'nope' and no tensor 'nope:0'; nodes "
            "are: 'relu', 'neg', 'sig'");
}

TEST(OutputSelectionPassTest, IndexOutOfRangeIsAnErrorListingTheNodesOutputs) {
  GraphBuilder g;
  ir::Value* x = g.In("x", DataType::kFloat32, {6});
  g.Out(g.OpN("Split", "split", {x}, 3)[0]);

  EXPECT_EQ(SelectError(g, {"split:3"}),
            "--out_nodes entry 'split:3': Split 'split' has 3 output(s) (0 'split_out0', 1 "
            "'split_out1', 2 'split_out2'); index 3 is out of range");
}

TEST(OutputSelectionPassTest, HugeIndexIsOutOfRangeNotAnOverflow) {
  Chain m;

  EXPECT_EQ(SelectError(m.g, {"relu:99999999999999999999"}),
            "--out_nodes entry 'relu:99999999999999999999': Relu 'relu' has 1 output(s) (0 "
            "'relu_out0'); index 99999999999999999999 is out of range");
}

TEST(OutputSelectionPassTest, IndexOutOfRangeOnAFusedNodeSaysWhatItWasFusedInto) {
  GraphBuilder g;
  ir::Value* x = g.In("x", DataType::kFloat32, {4});
  ir::Value* y = *g.graph.AddValue("y", {});
  ir::Node* fused = *g.graph.AddNode("FusedMatMul", "com.kiln", "mm", 1, {x, x}, {y});
  fused->add_origins({"relu"});
  g.Out(y);

  EXPECT_EQ(SelectError(g, {"relu:1"}),
            "--out_nodes entry 'relu:1': FusedMatMul 'mm' ('relu' was fused into it) has 1 "
            "output(s) (0 'y'); index 1 is out of range");
}

TEST(OutputSelectionPassTest, UnknownTensorIsAnErrorListingTheTensors) {
  Chain m;

  EXPECT_EQ(SelectError(m.g, {"prob"}),
            "--out_nodes entry 'prob': no tensor has this name (give a tensor name or "
            "\"node:index\"); tensors are: 'x', 'relu_out0', 'neg_out0', 'sig_out0'");
}

TEST(OutputSelectionPassTest, TensorLeftBehindByARemovedNodeIsUnknown) {
  Chain m;
  m.g.graph.RemoveNode(m.c->producer());

  EXPECT_EQ(SelectError(m.g, {"sig_out0"}),
            "--out_nodes entry 'sig_out0': no tensor has this name (give a tensor name or "
            "\"node:index\"); tensors are: 'x', 'relu_out0', 'neg_out0'");
}

TEST(OutputSelectionPassTest, LongListsInMessagesAreCut) {
  GraphBuilder g;
  ir::Value* v = g.In("x", DataType::kFloat32, {1});
  for (int i = 0; i < 25; ++i) v = g.Op("Relu", "r" + std::to_string(i), {v});
  g.Out(v);

  const std::string message = SelectError(g, {"nope:0"});

  EXPECT_NE(message.find("'r19' and 5 more"), std::string::npos) << message;
  EXPECT_EQ(message.find("'r20'"), std::string::npos) << message;
}

TEST(OutputSelectionPassTest, ConstantIsAnError) {
  Chain m;
  m.g.ConstF("w", {1}, {1});

  EXPECT_EQ(SelectError(m.g, {"w"}),
            "--out_nodes entry 'w' names 'w', a constant (an initializer or a value computed at "
            "compile time), which cannot be a model output; computed tensors are: 'x', "
            "'relu_out0', 'neg_out0', 'sig_out0'");
}

TEST(OutputSelectionPassTest, TwoEntriesNamingOneValueAreAnError) {
  Chain m;

  EXPECT_EQ(SelectError(m.g, {"relu:0", "sig:0", "relu_out0"}),
            "--out_nodes entries 'relu:0' and 'relu_out0' both name tensor 'relu_out0'; list "
            "each output once");
}

TEST(OutputSelectionPassTest, EmptyEntryIsAnError) {
  Chain m;

  EXPECT_EQ(SelectError(m.g, {"relu:0", ""}),
            "--out_nodes has an empty entry; entries are \"node:index\" or tensor names "
            "separated by ';'");
}

TEST(OutputSelectionPassTest, NameThatSeveralNodesCarryIsAnError) {
  GraphBuilder g;
  ir::Value* x = g.In("x", DataType::kFloat32, {4});
  ir::Value* a = g.Op("Relu", "dup", {x});
  g.Out(g.Op("Neg", "dup", {a}));

  EXPECT_EQ(SelectError(g, {"dup:0"}),
            "--out_nodes entry 'dup:0': 2 nodes carry the name 'dup' (Relu 'dup', Neg 'dup'); "
            "name the tensor instead");
}

TEST(OutputSelectionPassTest, ErrorLeavesTheOutputsUntouched) {
  Chain m;

  SelectError(m.g, {"sig:0", "nope"});

  EXPECT_EQ(m.g.graph.outputs(), (Values{m.b}));
}

TEST(OutputSelectionPassTest, ResolveOutputEntryNamesTheFlagItServes) {
  Chain m;

  auto v = ResolveOutputEntry(m.g.graph, "nope", "--output_type");

  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().message().rfind("--output_type entry 'nope': ", 0), 0u)
      << v.status().message();
}

}  // namespace
}  // namespace kiln::compiler
