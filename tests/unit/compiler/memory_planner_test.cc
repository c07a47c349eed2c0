// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "compiler/memory_planner.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/unit/compiler/pass_test_util.h"

namespace kiln::compiler {
namespace {

using ir::DataType;
using testing::GraphBuilder;

TEST(MemoryPlannerTest, ChainReusesStorageOfDeadTensors) {
  // x -> Conv-ish chain of non-in-place ops: a, b, c each 1x4x8x8 floats (1024 B).
  GraphBuilder g;
  ir::Value* x = g.In("x", DataType::kFloat32, {1, 4, 8, 8});
  ir::Value* a = g.Op("Transpose", "t1", {x}, {{"perm", std::vector<int64_t>{0, 1, 3, 2}}});
  ir::Value* b = g.Op("Transpose", "t2", {a}, {{"perm", std::vector<int64_t>{0, 1, 3, 2}}});
  ir::Value* c = g.Op("Transpose", "t3", {b}, {{"perm", std::vector<int64_t>{0, 1, 3, 2}}});
  ir::Value* d = g.Op("Transpose", "t4", {c}, {{"perm", std::vector<int64_t>{0, 1, 3, 2}}});
  g.Out(d);
  // Shapes set by hand: the tensor family may not be registered in this build.
  for (ir::Value* v : {a, b, c, d}) v->type() = {DataType::kFloat32, ir::Shape::Of({1, 4, 8, 8})};
  auto plan = PlanMemory(g.graph);
  ASSERT_TRUE(plan.ok());
  // a and b overlap (b is written while a is read); c may reuse a's storage.
  EXPECT_EQ(plan->work_size, 2048u);
  EXPECT_EQ(plan->naive_size, 3072u);
  EXPECT_NE(plan->activations[a].offset, plan->activations[b].offset);
  EXPECT_EQ(plan->activations[c].offset, plan->activations[a].offset);
  EXPECT_EQ(plan->activations.count(d), 0u);  // graph outputs live in the caller's buffer
}

TEST(MemoryPlannerTest, ElementwiseOpRunsInPlaceOnADyingInput) {
  GraphBuilder g;
  ir::Value* x = g.In("x", DataType::kFloat32, {256});
  ir::Value* a = g.Op("Exp", "e", {x});
  ir::Value* b = g.Op("Relu", "r", {a});
  ir::Value* c = g.Op("Neg", "n", {b});
  g.Out(c);
  ASSERT_TRUE(g.Infer().ok());
  auto plan = PlanMemory(g.graph);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->activations[b].alias_of, a);
  EXPECT_EQ(plan->activations[b].offset, plan->activations[a].offset);
  EXPECT_EQ(plan->work_size, 1024u);
}

TEST(MemoryPlannerTest, ReshapesOfADyingInputShareItsStorage) {
  GraphBuilder g;
  ir::Value* x = g.In("x", DataType::kFloat32, {4, 64});
  ir::Value* a = g.Op("Exp", "e", {x});
  ir::Value* b = g.Op("Reshape", "r", {a, g.ConstI("shape", {16, 16})});
  ir::Value* c = g.Op("Flatten", "f", {b});
  ir::Value* d = g.Op("Unsqueeze", "u", {c, g.ConstI("axes", {0})});
  g.Out(g.Op("Neg", "n", {d}));
  ASSERT_TRUE(g.Infer().ok());
  auto plan = PlanMemory(g.graph);
  ASSERT_TRUE(plan.ok());
  for (ir::Value* v : {b, c, d}) {
    EXPECT_EQ(plan->activations[v].alias_of, a) << v->name();
    EXPECT_EQ(plan->activations[v].offset, plan->activations[a].offset) << v->name();
  }
  EXPECT_EQ(plan->work_size, 1024u);
}

// x -> Exp -> z; FusedConv(x, w, b?, z) -> y, then `after` reads z again or not: the fused
// convolution's output takes its residual's memory only when the residual dies there.
void CheckResidualInPlace(bool z_read_later) {
  GraphBuilder g;
  ir::Value* x = g.In("x", DataType::kFloat32, {1, 2, 4, 4});
  ir::Value* z = g.Op("Exp", "e", {x});
  ir::Value* w = g.ConstF("w", {2, 2, 1, 1}, std::vector<float>(4, 0.5f));
  ir::Value* y = g.graph.AddUniqueValue("y", {});
  g.graph.opsets().emplace("com.kiln", 1);
  ir::Node* conv = *g.graph.AddNode("FusedConv", "com.kiln", "conv", 1, {x, w, nullptr, z}, {y});
  conv->set_attr("activation", std::string());
  ir::Value* out = g.Op("Neg", "n", {y});
  if (z_read_later) out = g.Op("Add", "a", {out, z});
  g.Out(out);
  ASSERT_TRUE(g.Infer().ok());
  auto plan = PlanMemory(g.graph);
  ASSERT_TRUE(plan.ok());
  if (z_read_later) {
    EXPECT_EQ(plan->activations[y].alias_of, nullptr);
    EXPECT_NE(plan->activations[y].offset, plan->activations[z].offset);
  } else {
    EXPECT_EQ(plan->activations[y].alias_of, z);
    EXPECT_EQ(plan->activations[y].offset, plan->activations[z].offset);
  }
}

TEST(MemoryPlannerTest, FusedConvOutputTakesItsDyingResidualsMemory) {
  CheckResidualInPlace(false);
}

TEST(MemoryPlannerTest, FusedConvResidualStillReadLaterIsNotOverwritten) {
  CheckResidualInPlace(true);
}

TEST(MemoryPlannerTest, InputStillReadLaterIsNotOverwrittenInPlace) {
  GraphBuilder g;
  ir::Value* x = g.In("x", DataType::kFloat32, {16});
  ir::Value* a = g.Op("Exp", "e", {x});
  ir::Value* b = g.Op("Relu", "r", {a});
  ir::Value* c = g.Op("Add", "add", {a, b});  // a is read again after Relu
  g.Out(c);
  ASSERT_TRUE(g.Infer().ok());
  auto plan = PlanMemory(g.graph);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->activations[b].alias_of, nullptr);
  EXPECT_NE(plan->activations[b].offset, plan->activations[a].offset);
}

// An ArithmeticChain writes over X0 when X0 dies there, but not when it also reads X0 as a later
// step's operand (it would read what its first step overwrote).
TEST(MemoryPlannerTest, AnArithmeticChainRunsInPlaceOnX0UnlessItReadsX0Again) {
  GraphBuilder g;
  ir::Value* x = g.In("x", DataType::kFloat32, {1, 8, 4, 4});
  ir::Value* s = g.ConstF("s", {1, 8, 1, 1}, std::vector<float>(8, 2.0f));
  ir::Value* a = g.Op("Exp", "e", {x});
  ir::Value* b = g.Op("Exp", "f", {x});
  g.graph.opsets().emplace("com.kiln", 1);
  auto chain = [&](const char* name, std::vector<ir::Value*> in) {
    ir::Value* out = g.graph.AddUniqueValue(std::string(name) + "_out", {});
    ir::Node* n = *g.graph.AddNode("ArithmeticChain", "com.kiln", name, 1, std::move(in), {out});
    n->set_attr("ops", std::vector<std::string>{"Mul", "Add"});
    return out;
  };
  ir::Value* once = chain("once", {a, s, s});    // a dies here
  ir::Value* twice = chain("twice", {b, s, b});  // b read again by the Add step
  g.Out(g.Op("Add", "sum", {once, twice}));
  Status ok = g.Infer();
  ASSERT_TRUE(ok.ok()) << ok.message();
  auto plan = PlanMemory(g.graph);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->activations[once].alias_of, a);
  EXPECT_EQ(plan->activations[twice].alias_of, nullptr);
  EXPECT_NE(plan->activations[twice].offset, plan->activations[b].offset);
}

TEST(MemoryPlannerTest, ValuesReadByAnIfBodyLiveUntilTheIf) {
  GraphBuilder g;
  ir::Value* x = g.In("x", DataType::kFloat32, {256});
  ir::Value* cond = g.In("cond", DataType::kBool, {});
  ir::Value* t = g.Op("Exp", "e", {x});
  ir::Value* n = g.Op("Neg", "n", {t});  // t's last *input* use; the If still reads it by name
  auto body = std::make_shared<ir::Graph>();
  ir::Value* captured = *body->AddValue(t->name(), {DataType::kFloat32, ir::Shape::Of({256})});
  ir::Value* r = *body->AddValue("r", {DataType::kFloat32, ir::Shape::Of({256})});
  ASSERT_TRUE(body->AddNode("Relu", "", "br", 17, {captured}, {r}).ok());
  body->outputs().push_back(r);
  ir::Value* y = g.Op("If", "if", {cond}, {{"then_branch", body}, {"else_branch", body}});
  ir::Value* z = g.Op("Add", "add", {y, n});
  g.Out(z);
  for (ir::Value* v : {t, n, y}) v->type() = {DataType::kFloat32, ir::Shape::Of({256})};
  auto plan = PlanMemory(g.graph);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->activations[n].alias_of, nullptr);  // not in place over t
  EXPECT_NE(plan->activations[n].offset, plan->activations[t].offset);
  EXPECT_NE(plan->activations[y].offset, plan->activations[t].offset);
}

// A Concat over channels at batch 1: each input is a whole byte range of the output, so the
// inputs are placed there (the Concat copies nothing) and the output lives from the first on.
TEST(MemoryPlannerTest, ConcatInputsAtBatchOneArePlacedInsideTheOutput) {
  GraphBuilder g;
  ir::Value* x = g.In("x", DataType::kFloat32, {1, 4, 8, 8});
  ir::Value* a = g.Op("Exp", "e", {x});
  ir::Value* b = g.Op("Neg", "n", {x});
  ir::Value* c = g.Op("Concat", "cat", {a, b}, {{"axis", int64_t{1}}});
  ir::Value* d = g.Op("Transpose", "t", {c}, {{"perm", std::vector<int64_t>{0, 1, 3, 2}}});
  g.Out(d);
  ASSERT_TRUE(g.Infer().ok());
  auto plan = PlanMemory(g.graph);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->activations[a].part_of, c);
  EXPECT_EQ(plan->activations[b].part_of, c);
  EXPECT_EQ(plan->activations[a].offset, plan->activations[c].offset);
  EXPECT_EQ(plan->activations[b].offset, plan->activations[c].offset + 1024);
  EXPECT_EQ(plan->work_size, 2048u);  // a and b take no storage of their own
  EXPECT_EQ(plan->naive_size, 4096u);

  PlanOptions off;
  off.concat_in_place = false;  // as gears plan
  auto copied = PlanMemory(g.graph, off);
  ASSERT_TRUE(copied.ok());
  EXPECT_EQ(copied->activations[a].part_of, nullptr);
  EXPECT_EQ(copied->work_size, 4096u);
}

// Not in place: at batch 2 an input's rows interleave with the other's; an input read after the
// Concat (its reader would see the output's storage, which a later in-place op may overwrite);
// an input given twice.
TEST(MemoryPlannerTest, ConcatInputsStayApartWhereTheyAreNotWholeRanges) {
  GraphBuilder g;
  ir::Value* x = g.In("x", DataType::kFloat32, {2, 4, 8, 8});
  ir::Value* y = g.In("y", DataType::kFloat32, {1, 4, 8, 8});
  ir::Value* a = g.Op("Exp", "e", {x});
  ir::Value* b = g.Op("Neg", "n", {x});
  ir::Value* c = g.Op("Concat", "cat", {a, b}, {{"axis", int64_t{1}}});
  ir::Value* e = g.Op("Exp", "e2", {y});
  ir::Value* f = g.Op("Neg", "n2", {y});
  ir::Value* h = g.Op("Concat", "cat2", {e, f, e}, {{"axis", int64_t{1}}});
  ir::Value* k = g.Op("Add", "late", {f, y});  // f read after cat2
  g.Out(c);
  g.Out(h);
  g.Out(k);
  ASSERT_TRUE(g.Infer().ok());
  auto plan = PlanMemory(g.graph);
  ASSERT_TRUE(plan.ok());
  for (ir::Value* v : {a, b, e, f}) EXPECT_EQ(plan->activations[v].part_of, nullptr);
}

// channels_last's com.kiln Concat: NHWC (the channels innermost) its inputs interleave; in
// channel blocks (N, C/b, H, W, b) at batch 1 each is a whole range of the output.
TEST(MemoryPlannerTest, AConcatInChannelBlocksTakesItsInputsInPlaceAndOneNhwcDoesNot) {
  for (const int64_t block : {0, 16}) {
    SCOPED_TRACE(block == 0 ? "NHWC" : "blocks of 16");
    GraphBuilder g;
    g.graph.opsets().emplace("com.kiln", 1);
    ir::Value* x = g.In("x", DataType::kFloat32, {1, 16, 4, 4});
    ir::Value* a = g.Op("Exp", "e", {x});
    ir::Value* b = g.Op("Neg", "n", {x});
    ir::Value* c = g.graph.AddUniqueValue("cat", {});
    ir::Node* cat = *g.graph.AddNode("Concat", "com.kiln", "cat", 1, {a, b}, {c});
    cat->set_attr("axis", int64_t{1});
    cat->set_attr("kiln_nhwc", int64_t{1});
    if (block != 0) cat->set_attr("kiln_cblock", block);
    g.Out(g.Op("Exp", "after", {c}));
    const Status st = g.Infer();
    ASSERT_TRUE(st.ok()) << st.message();
    auto plan = PlanMemory(g.graph);
    ASSERT_TRUE(plan.ok());
    EXPECT_EQ(plan->activations[a].part_of, block == 0 ? nullptr : c);
    EXPECT_EQ(plan->activations[b].part_of, block == 0 ? nullptr : c);
    if (block != 0) {
      EXPECT_EQ(plan->activations[b].offset, plan->activations[c].offset + 1024);
    }
  }
}

// DenseNet's blocks: each Concat's output is the next one's first input, read before by the
// layer that makes the next part. The whole block lands in the last output's storage.
TEST(MemoryPlannerTest, NestedConcatsShareTheOutermostOutput) {
  GraphBuilder g;
  ir::Value* x = g.In("x", DataType::kFloat32, {1, 4, 8, 8});
  ir::Value* x0 = g.Op("Exp", "stem", {x});
  ir::Value* y1 = g.Op("Neg", "l1", {x0});
  ir::Value* x1 = g.Op("Concat", "cat1", {x0, y1}, {{"axis", int64_t{1}}});
  ir::Value* y2 = g.Op("Neg", "l2", {x1});
  ir::Value* x2 = g.Op("Concat", "cat2", {x1, y2}, {{"axis", int64_t{1}}});
  ir::Value* out = g.Op("Transpose", "t", {x2}, {{"perm", std::vector<int64_t>{0, 1, 3, 2}}});
  g.Out(out);
  ASSERT_TRUE(g.Infer().ok());
  auto plan = PlanMemory(g.graph);
  ASSERT_TRUE(plan.ok());
  const uint64_t base = plan->activations[x2].offset;
  EXPECT_EQ(plan->activations[x1].part_of, x2);
  EXPECT_EQ(plan->activations[x0].part_of, x1);
  EXPECT_EQ(plan->activations[x0].offset, base);
  EXPECT_EQ(plan->activations[y1].offset, base + 1024);
  EXPECT_EQ(plan->activations[x1].offset, base);
  EXPECT_EQ(plan->activations[y2].offset, base + 2048);
  EXPECT_EQ(plan->work_size, 4096u);
}

TEST(MemoryPlannerTest, WeightsAreLaidOutAlignedAndDynamicTensorsAreMarked) {
  GraphBuilder g;
  ir::Value* x = g.In("x", DataType::kFloat32, {-1, 3});
  ir::Value* w1 = g.ConstF("w1", {3}, {1, 2, 3});
  ir::Value* w2 = g.ConstF("w2", {2}, {4, 5});
  ir::Value* a = g.Op("Add", "add", {x, w1});
  ir::Value* b = g.Op("Relu", "r", {a});
  g.Out(b);
  (void)w2;
  ASSERT_TRUE(g.Infer().ok());
  auto plan = PlanMemory(g.graph);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->weights[w1].offset % 64, 0u);
  EXPECT_EQ(plan->weights[w2].offset % 64, 0u);
  EXPECT_NE(plan->weights[w1].offset, plan->weights[w2].offset);
  EXPECT_EQ(plan->weight_size, 128u);
  EXPECT_TRUE(plan->activations[a].dynamic);
}

}  // namespace
}  // namespace kiln::compiler
