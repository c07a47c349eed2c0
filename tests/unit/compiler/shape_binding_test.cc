// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "compiler/passes/passes.h"
#include "tests/unit/compiler/pass_test_util.h"

namespace kiln::compiler {
namespace {

using ir::DataType;
using testing::GraphBuilder;
using Shapes = std::map<std::string, std::vector<int64_t>>;

Result<bool> Bind(GraphBuilder& g, Shapes shapes) {
  PassContext ctx;
  return CreateShapeBindingPass(std::move(shapes))->Run(g.graph, ctx);
}

// x: [batch,3,?,?], as a model with a named batch dim declares it.
ir::Value* ImageInput(GraphBuilder& g) {
  ir::Value* x = g.In("x", DataType::kFloat32, {-1, 3, -1, -1});
  x->type().shape[0] = ir::Dim::Symbol("batch");
  return x;
}

TEST(ShapeBindingPassTest, FixesEveryDimOfANamedInput) {
  GraphBuilder g;
  ir::Value* x = ImageInput(g);
  g.Out(g.Op("Relu", "relu", {x}));

  auto changed = Bind(g, {{"x", {2, 3, 224, 224}}});

  ASSERT_TRUE(changed.ok()) << changed.status().message();
  EXPECT_TRUE(*changed);
  EXPECT_EQ(x->shape(), ir::Shape::Of({2, 3, 224, 224}));
  EXPECT_EQ(x->dtype(), DataType::kFloat32);
}

TEST(ShapeBindingPassTest, MinusOneKeepsTheModelsSymbolOrLeavesTheDimUnknown) {
  GraphBuilder g;
  ir::Value* x = ImageInput(g);

  auto changed = Bind(g, {{"x", {-1, 3, -1, 16}}});

  ASSERT_TRUE(changed.ok()) << changed.status().message();
  EXPECT_TRUE(*changed);
  EXPECT_EQ(x->shape().ToString(), "[batch,3,?,16]");
  EXPECT_EQ(x->shape()[0], ir::Dim::Symbol("batch"));
}

TEST(ShapeBindingPassTest, MinusOneMakesAFixedModelDimDynamic) {
  GraphBuilder g;
  ir::Value* x = g.In("x", DataType::kFloat32, {1, 3});

  auto changed = Bind(g, {{"x", {-1, 3}}});

  ASSERT_TRUE(changed.ok()) << changed.status().message();
  EXPECT_TRUE(*changed);
  EXPECT_EQ(x->shape().ToString(), "[?,3]");
}

TEST(ShapeBindingPassTest, InputOfUnknownRankTakesTheGivenRank) {
  GraphBuilder g;
  ir::Value* x = *g.graph.AddValue("x", {DataType::kInt64, ir::Shape()});
  g.graph.inputs().push_back(x);

  auto changed = Bind(g, {{"x", {2, 5}}});

  ASSERT_TRUE(changed.ok()) << changed.status().message();
  EXPECT_TRUE(*changed);
  EXPECT_EQ(x->shape(), ir::Shape::Of({2, 5}));
}

TEST(ShapeBindingPassTest, ShapeTheModelAlreadyHasReportsNoChange) {
  GraphBuilder g;
  ir::Value* x = g.In("x", DataType::kFloat32, {1, 3});

  auto same = Bind(g, {{"x", {1, 3}}});
  ASSERT_TRUE(same.ok()) << same.status().message();
  EXPECT_FALSE(*same);
  auto none = Bind(g, {});
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(*none);
  EXPECT_EQ(x->shape(), ir::Shape::Of({1, 3}));
}

TEST(ShapeBindingPassTest, NameThatIsNotAGraphInputIsAnErrorListingTheInputs) {
  GraphBuilder g;
  g.In("x", DataType::kFloat32, {1, 3});
  g.In("mask", DataType::kBool, {1, 3});
  g.ConstF("w", {3}, {1, 2, 3});  // an initializer is not an input either

  for (const char* name : {"image", "w"}) {
    auto changed = Bind(g, {{name, {1, 3}}});
    ASSERT_FALSE(changed.ok()) << name;
    EXPECT_EQ(changed.status().code(), code::kInvalidParam);
    EXPECT_NE(changed.status().message().find(std::string("'") + name + "'"), std::string::npos)
        << changed.status().message();
    EXPECT_NE(changed.status().message().find("x, mask"), std::string::npos)
        << changed.status().message();
  }
}

TEST(ShapeBindingPassTest, RankDifferentFromTheModelsIsAnError) {
  GraphBuilder g;
  ir::Value* x = g.In("x", DataType::kFloat32, {1, 3, 8, 8});

  auto changed = Bind(g, {{"x", {1, 3, 8}}});

  ASSERT_FALSE(changed.ok());
  EXPECT_EQ(changed.status().code(), code::kInvalidParam);
  const std::string& msg = changed.status().message();
  EXPECT_NE(msg.find("'x'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("[1,3,8]"), std::string::npos) << msg;
  EXPECT_NE(msg.find("rank 4"), std::string::npos) << msg;
  EXPECT_EQ(x->shape(), ir::Shape::Of({1, 3, 8, 8}));
}

TEST(ShapeBindingPassTest, FixedDimContradictingTheModelIsAnErrorAndChangesNothing) {
  GraphBuilder g;
  ir::Value* a = g.In("a", DataType::kFloat32, {-1, 4});
  ir::Value* x = g.In("x", DataType::kFloat32, {1, 3, 8, 8});

  auto changed = Bind(g, {{"a", {2, 4}}, {"x", {1, 4, 8, 8}}});

  ASSERT_FALSE(changed.ok());
  EXPECT_EQ(changed.status().code(), code::kInvalidParam);
  const std::string& msg = changed.status().message();
  EXPECT_NE(msg.find("dim 1 = 4"), std::string::npos) << msg;
  EXPECT_NE(msg.find("fixes it to 3"), std::string::npos) << msg;
  // The valid entry for "a" was not applied either.
  EXPECT_EQ(a->shape().ToString(), "[?,4]");
  EXPECT_EQ(x->shape(), ir::Shape::Of({1, 3, 8, 8}));
}

TEST(ShapeBindingPassTest, DimBelowMinusOneIsAnError) {
  GraphBuilder g;
  g.In("x", DataType::kFloat32, {-1, 3});

  auto changed = Bind(g, {{"x", {-2, 3}}});

  ASSERT_FALSE(changed.ok());
  EXPECT_EQ(changed.status().code(), code::kInvalidParam);
  EXPECT_NE(changed.status().message().find("-1 for dynamic"), std::string::npos)
      << changed.status().message();
}

TEST(ShapeBindingPassTest, BoundShapeLetsConstantFoldingFoldTheShapeSubGraph) {
  GraphBuilder g;
  ir::Value* x = ImageInput(g);
  ir::Value* shape = g.Op("Shape", "shape", {x});
  g.Out(shape);

  auto bound = Bind(g, {{"x", {2, 3, 32, 32}}});
  ASSERT_TRUE(bound.ok()) << bound.status().message();
  PassContext ctx;
  auto folded = CreateConstantFoldingPass()->Run(g.graph, ctx);
  ASSERT_TRUE(folded.ok()) << folded.status().message();

  EXPECT_TRUE(*folded);
  EXPECT_EQ(g.OpTypes(), "");
  ASSERT_NE(shape->constant(), nullptr);
  EXPECT_EQ(shape->constant()->AsInt64s(), (std::vector<int64_t>{2, 3, 32, 32}));
}

}  // namespace
}  // namespace kiln::compiler
