// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

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

TEST(SumToAddPassTest, SumOfTwoBecomesAnAddReadingAndWritingTheSameValues) {
  GraphBuilder g;
  ir::Value* a = g.In("a", DataType::kFloat32, {1, 8, 4, 4});
  ir::Value* b = g.In("b", DataType::kFloat32, {1, 8, 1, 1});  // broadcast, as Sum-8 allows
  ir::Value* y = g.Op("Sum", "sum", {a, b}, {}, 8);
  g.Out(y);
  auto pass = CreateSumToAddPass();
  EXPECT_STREQ(pass->name(), "sum_to_add");
  EXPECT_TRUE(RunPass(*pass, g));
  EXPECT_EQ(g.OpTypes(), "Add");
  const ir::Node* add = NodeAt(g, 0);
  ASSERT_NE(add, nullptr);
  EXPECT_EQ(add->domain(), "");
  EXPECT_EQ(add->opset(), 8);
  EXPECT_EQ(add->name(), "sum");
  EXPECT_EQ(add->inputs(), (std::vector<ir::Value*>{a, b}));
  EXPECT_EQ(add->outputs(), (std::vector<ir::Value*>{y}));
  EXPECT_EQ(g.graph.outputs()[0], y);
}

TEST(SumToAddPassTest, BeforeOpset8OnlyProvablyEqualShapesAreRewritten) {
  GraphBuilder g;
  ir::Value* a = g.In("a", DataType::kFloat32, {2, 3});
  ir::Value* b = g.In("b", DataType::kFloat32, {2, 3});
  ir::Value* c = g.In("c", DataType::kFloat32, {1, 3});
  g.Out(g.Op("Sum", "same", {a, b}, {}, 6));
  g.Out(g.Op("Sum", "differ", {a, c}, {}, 6));
  EXPECT_TRUE(RunPass(*CreateSumToAddPass(), g));
  EXPECT_EQ(NodeAt(g, 0)->op_type(), "Add");
  EXPECT_EQ(NodeAt(g, 0)->name(), "same");
  EXPECT_EQ(NodeAt(g, 1)->op_type(), "Sum");
}

TEST(SumToAddPassTest, SumsOfOneOrThreeInputsStay) {
  GraphBuilder g;
  ir::Value* a = g.In("a", DataType::kFloat32, {4});
  ir::Value* b = g.In("b", DataType::kFloat32, {4});
  g.Out(g.Op("Sum", "one", {a}, {}, 13));
  g.Out(g.Op("Sum", "three", {a, b, a}, {}, 13));
  EXPECT_FALSE(RunPass(*CreateSumToAddPass(), g));
  EXPECT_EQ(g.OpTypes(), "Sum,Sum");
}

}  // namespace
}  // namespace kiln::compiler
