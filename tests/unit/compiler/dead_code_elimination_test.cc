// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "compiler/passes/passes.h"
#include "tests/unit/compiler/pass_test_util.h"

namespace kiln::compiler {
namespace {

using ir::DataType;
using testing::GraphBuilder;

// Runs the pass; returns whether it reported a change (a failure fails the test).
bool Eliminate(GraphBuilder& g) {
  PassContext ctx;
  auto changed = CreateDeadCodeEliminationPass()->Run(g.graph, ctx);
  EXPECT_TRUE(changed.ok()) << changed.status().message();
  return changed.ok() && *changed;
}

bool HasOrigin(const ir::Node* node, const std::string& origin) {
  return std::find(node->origins().begin(), node->origins().end(), origin) != node->origins().end();
}

// A branch graph whose one node reads `captured` from the enclosing graph by name.
std::shared_ptr<ir::Graph> BranchReading(const std::string& captured, const std::string& tag) {
  auto sub = std::make_shared<ir::Graph>();
  ir::Value* in = *sub->AddValue(captured, {});
  ir::Value* out = *sub->AddValue(tag + "_y", {DataType::kFloat32, ir::Shape::Of({4})});
  (void)sub->AddNode("Relu", "", tag + "_relu", 17, {in}, {out});
  sub->outputs().push_back(out);
  return sub;
}

TEST(DeadCodeEliminationPassTest, RemovesNodesThatReachNoGraphOutput) {
  GraphBuilder g;
  ir::Value* x = g.In("x", DataType::kFloat32, {4});
  ir::Value* a = g.Op("Relu", "relu", {x});
  ir::Value* b = g.Op("Exp", "exp", {x});
  g.Op("Neg", "neg", {b});
  g.Out(a);

  EXPECT_TRUE(Eliminate(g));

  EXPECT_EQ(g.OpTypes(), "Relu");
  EXPECT_EQ(g.graph.FindValue("exp_out0"), nullptr);
  EXPECT_EQ(g.graph.FindValue("neg_out0"), nullptr);
}

TEST(DeadCodeEliminationPassTest, UnusedGraphInputsStayAndUnusedInitializersGo) {
  GraphBuilder g;
  ir::Value* x = g.In("x", DataType::kFloat32, {4});
  g.In("unused", DataType::kFloat32, {4});
  g.ConstF("w", {1}, {1});
  g.Out(g.Op("Relu", "relu", {x}));

  EXPECT_TRUE(Eliminate(g));

  EXPECT_EQ(g.OpTypes(), "Relu");
  ASSERT_EQ(g.graph.inputs().size(), 2u);
  EXPECT_EQ(g.graph.inputs()[1]->name(), "unused");
  EXPECT_EQ(g.graph.FindValue("w"), nullptr);
}

TEST(DeadCodeEliminationPassTest, LiveGraphReportsNoChange) {
  GraphBuilder g;
  ir::Value* x = g.In("x", DataType::kFloat32, {4});
  ir::Value* a = g.Op("Relu", "relu", {x});
  g.Out(g.Op("Add", "add", {a, g.ConstF("w", {1}, {1})}));

  EXPECT_FALSE(Eliminate(g));
  EXPECT_EQ(g.OpTypes(), "Relu,Add");
}

TEST(DeadCodeEliminationPassTest, IdentityBetweenTwoNodesIsBypassed) {
  GraphBuilder g;
  ir::Value* x = g.In("x", DataType::kFloat32, {4});
  ir::Value* a = g.Op("Relu", "relu", {x});
  ir::Value* b = g.Op("Identity", "id", {a});
  ir::Value* c = g.Op("Neg", "neg", {b});
  g.Out(c);

  EXPECT_TRUE(Eliminate(g));

  EXPECT_EQ(g.OpTypes(), "Relu,Neg");
  EXPECT_EQ(g.FindNode("Neg")->input(0), a);
  EXPECT_EQ(g.graph.FindValue("id_out0"), nullptr);
}

TEST(DeadCodeEliminationPassTest, IdentityProducingAGraphOutputHandsTheNameToItsProducer) {
  GraphBuilder g;
  ir::Value* x = g.In("x", DataType::kFloat32, {4});
  ir::Value* a = g.Op("Relu", "relu", {x});
  ir::Value* side = g.Op("Neg", "neg", {a});  // a has another reader
  ir::Value* y = g.Op("Identity", "id", {a});
  g.Out(y);
  g.Out(side);

  EXPECT_TRUE(Eliminate(g));

  EXPECT_EQ(g.OpTypes(), "Relu,Neg");
  ASSERT_EQ(g.graph.outputs().size(), 2u);
  EXPECT_EQ(g.graph.outputs()[0], y);
  EXPECT_EQ(y->name(), "id_out0");
  const ir::Node* relu = g.FindNode("Relu");
  EXPECT_EQ(relu->name(), "relu");
  EXPECT_EQ(relu->output(0), y);
  EXPECT_EQ(y->producer(), relu);
  EXPECT_TRUE(HasOrigin(relu, "relu"));
  EXPECT_TRUE(HasOrigin(relu, "id"));
  EXPECT_EQ(g.FindNode("Neg")->input(0), y);
  EXPECT_EQ(g.graph.FindValue("relu_out0"), nullptr);
}

TEST(DeadCodeEliminationPassTest, ChainOfIdentitiesBeforeAGraphOutputCollapses) {
  GraphBuilder g;
  ir::Value* x = g.In("x", DataType::kFloat32, {4});
  ir::Value* a = g.Op("Relu", "relu", {x});
  ir::Value* b = g.Op("Identity", "id1", {a});
  ir::Value* y = g.Op("Identity", "id2", {b});
  g.Out(y);

  EXPECT_TRUE(Eliminate(g));

  EXPECT_EQ(g.OpTypes(), "Relu");
  EXPECT_EQ(g.FindNode("Relu")->output(0), y);
  EXPECT_EQ(g.graph.outputs()[0]->name(), "id2_out0");
}

TEST(DeadCodeEliminationPassTest, IdentityFromAGraphInputToAGraphOutputStays) {
  GraphBuilder g;
  ir::Value* x = g.In("x", DataType::kFloat32, {4});
  g.Out(g.Op("Identity", "id", {x}));

  EXPECT_FALSE(Eliminate(g));
  EXPECT_EQ(g.OpTypes(), "Identity");
}

TEST(DeadCodeEliminationPassTest, IdentityBetweenTwoGraphOutputsStays) {
  GraphBuilder g;
  ir::Value* x = g.In("x", DataType::kFloat32, {4});
  ir::Value* a = g.Op("Relu", "relu", {x});
  g.Out(a);
  g.Out(g.Op("Identity", "id", {a}));

  EXPECT_FALSE(Eliminate(g));
  EXPECT_EQ(g.OpTypes(), "Relu,Identity");
}

TEST(DeadCodeEliminationPassTest, InferenceModeDropoutIsBypassed) {
  GraphBuilder g;
  ir::Value* x = g.In("x", DataType::kFloat32, {4});
  ir::Value* a = g.Op("Relu", "relu", {x});
  ir::Value* d1 = g.Op("Dropout", "drop_v10", {a}, {{"ratio", 0.5f}}, 10);
  ir::Value* d2 =
      g.Op("Dropout", "drop_off",
           {d1, g.ConstF("ratio", {}, {0.1f}),
            g.Const("mode", ir::Tensor::FromVector(DataType::kBool, {}, std::vector<uint8_t>{0}))});
  ir::Value* d3 = g.OpN("Dropout", "drop_mask_unread", {d2}, 2)[0];
  g.Out(g.Op("Neg", "neg", {d3}));

  EXPECT_TRUE(Eliminate(g));

  EXPECT_EQ(g.OpTypes(), "Relu,Neg");
  EXPECT_EQ(g.FindNode("Neg")->input(0), a);
  EXPECT_EQ(g.graph.FindValue("ratio"), nullptr);
  EXPECT_EQ(g.graph.FindValue("drop_mask_unread_out1"), nullptr);
}

TEST(DeadCodeEliminationPassTest, TrainingDropoutAndDropoutWithAReadMaskStay) {
  GraphBuilder g;
  ir::Value* x = g.In("x", DataType::kFloat32, {4});
  ir::Value* train =
      g.Const("train", ir::Tensor::FromVector(DataType::kBool, {}, std::vector<uint8_t>{1}));
  ir::Value* d1 = g.Op("Dropout", "training", {x, nullptr, train});
  std::vector<ir::Value*> d2 = g.OpN("Dropout", "masked", {d1}, 2);
  g.Out(d2[0]);
  g.Out(d2[1]);

  EXPECT_FALSE(Eliminate(g));
  EXPECT_EQ(g.OpTypes(), "Dropout,Dropout");
}

TEST(DeadCodeEliminationPassTest, NodeReadByNameInsideALiveIfBranchStays) {
  GraphBuilder g;
  ir::Value* cond = g.In("cond", DataType::kBool, {});
  ir::Value* x = g.In("x", DataType::kFloat32, {4});
  ir::Value* k = g.Op("Neg", "neg", {x});  // "neg_out0", read only by the branches
  ASSERT_EQ(k->name(), "neg_out0");
  ir::Value* y = g.Op("If", "if", {cond},
                      {{"then_branch", BranchReading("neg_out0", "then")},
                       {"else_branch", BranchReading("x", "else")}});
  g.Out(y);

  EXPECT_FALSE(Eliminate(g));

  EXPECT_EQ(g.OpTypes(), "Neg,If");
  EXPECT_EQ(g.graph.FindValue("neg_out0"), k);
}

TEST(DeadCodeEliminationPassTest, InitializerReadOnlyByALiveIfBranchStays) {
  GraphBuilder g;
  ir::Value* cond = g.In("cond", DataType::kBool, {});
  ir::Value* w = g.ConstF("w", {4}, {1, 2, 3, 4});
  ir::Value* y = g.Op(
      "If", "if", {cond},
      {{"then_branch", BranchReading("w", "then")}, {"else_branch", BranchReading("w", "else")}});
  g.Out(y);

  EXPECT_FALSE(Eliminate(g));
  EXPECT_EQ(g.graph.FindValue("w"), w);
}

TEST(DeadCodeEliminationPassTest, DeadIfTakesTheNodesOnlyItsBranchesReadWithIt) {
  GraphBuilder g;
  ir::Value* cond = g.In("cond", DataType::kBool, {});
  ir::Value* x = g.In("x", DataType::kFloat32, {4});
  g.Op("Neg", "neg", {x});
  g.Op("If", "if", {cond},
       {{"then_branch", BranchReading("neg_out0", "then")},
        {"else_branch", BranchReading("neg_out0", "else")}});
  g.Out(g.Op("Relu", "relu", {x}));

  EXPECT_TRUE(Eliminate(g));

  EXPECT_EQ(g.OpTypes(), "Relu");
  EXPECT_EQ(g.graph.FindValue("neg_out0"), nullptr);
}

TEST(DeadCodeEliminationPassTest, IdentityWhoseOutputABranchReadsByNameStays) {
  GraphBuilder g;
  ir::Value* cond = g.In("cond", DataType::kBool, {});
  ir::Value* x = g.In("x", DataType::kFloat32, {4});
  ir::Value* a = g.Op("Relu", "relu", {x});
  g.Op("Identity", "id", {a});  // "id_out0"
  ir::Value* y = g.Op("If", "if", {cond},
                      {{"then_branch", BranchReading("id_out0", "then")},
                       {"else_branch", BranchReading("x", "else")}});
  g.Out(y);

  EXPECT_FALSE(Eliminate(g));
  EXPECT_EQ(g.OpTypes(), "Relu,Identity,If");
}

}  // namespace
}  // namespace kiln::compiler
