// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// An op's definition: attribute declarations (defaults, required, kinds, opset ranges) applied
// to a node, and a shape function that runs the same on a compile-time node and on a node
// described by plain data (as the runtime describes a loaded one).
#include "ir/op_schema.h"

#include <gtest/gtest.h>

#include "ir/ops/infer_util.h"

namespace kiln::ir {
namespace {

OpSchema Softmaxish() {
  return MakeSchema("Softmaxish", 1, 1, 1, 1, 1, "test", InferSameAsInput)
      .Attrs({Attr("axis", 1).Until(12), Attr("axis", -1).Since(13), Attr("alpha", 0.5),
              Attr("mode", "fast"), RequiredAttr("to", AttrKind::kInt),
              OptionalAttr("kernel_shape", AttrKind::kInts)});
}

TEST(OpSchemaTest, DefaultsAreFilledInForTheNodesOpset) {
  const OpSchema s = Softmaxish();
  AttrMap old_node = {{"to", int64_t{1}}};
  ASSERT_TRUE(ApplyAttrDefaults(s, 11, "Softmaxish 'a'", old_node).ok());
  EXPECT_EQ(std::get<int64_t>(old_node.at("axis")), 1);
  EXPECT_EQ(std::get<float>(old_node.at("alpha")), 0.5f);
  EXPECT_EQ(std::get<std::string>(old_node.at("mode")), "fast");
  EXPECT_EQ(old_node.count("kernel_shape"), 0u);  // optional: its absence means something
  AttrMap new_node = {{"to", int64_t{1}}};
  ASSERT_TRUE(ApplyAttrDefaults(s, 13, "Softmaxish 'b'", new_node).ok());
  EXPECT_EQ(std::get<int64_t>(new_node.at("axis")), -1);
  // A given value is kept, and applying twice changes nothing.
  AttrMap given = {{"to", int64_t{1}}, {"axis", int64_t{0}}};
  ASSERT_TRUE(ApplyAttrDefaults(s, 13, "Softmaxish 'c'", given).ok());
  AttrMap again = given;
  ASSERT_TRUE(ApplyAttrDefaults(s, 13, "Softmaxish 'c'", again).ok());
  EXPECT_EQ(std::get<int64_t>(given.at("axis")), 0);
  EXPECT_EQ(again.size(), given.size());
  EXPECT_EQ(std::get<int64_t>(again.at("axis")), 0);
}

TEST(OpSchemaTest, AMissingRequiredAttributeOrOneOfAnotherKindIsRefusedByName) {
  const OpSchema s = Softmaxish();
  AttrMap missing;
  Status st = ApplyAttrDefaults(s, 13, "Softmaxish 'n1'", missing);
  EXPECT_EQ(st.code(), code::kInvalidParam);
  EXPECT_NE(st.message().find("Softmaxish 'n1'"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("'to' is required"), std::string::npos) << st.message();
  // A tensor given for an int attribute (what a crafted model does) is named with both kinds.
  AttrMap tensor = {{"to", int64_t{1}},
                    {"axis", Tensor::FromVector<int64_t>(DataType::kInt64, {1}, {1})}};
  st = ApplyAttrDefaults(s, 13, "Softmaxish 'n2'", tensor);
  EXPECT_EQ(st.code(), code::kInvalidParam);
  EXPECT_NE(st.message().find("'axis' is a tensor; Softmaxish takes a int"), std::string::npos)
      << st.message();
}

TEST(OpSchemaTest, TheSameShapeFunctionRunsOnANodeDescribedByData) {
  // Reshape's function at compile time (an ir::Node with a constant shape) and on plain data
  // (the runtime's view of a loaded node with every input's value known) agree.
  AttrMap attrs;
  Tensor shape = Tensor::FromVector<int64_t>(DataType::kInt64, {2}, {3, -1});
  std::vector<InferenceContext::Input> inputs = {
      {true, {DataType::kFloat32, Shape::Of({2, 6})}, nullptr},
      {true, {DataType::kInt64, Shape::Of({2})}, &shape}};
  InferenceContext ctx("Reshape", "r", 17, attrs, inputs, {true});
  ASSERT_EQ(ctx.attr_int("allowzero"), 0);  // absent and not yet applied: reads as zero
  const OpSchema* reshape = OpRegistry::Global().Find("", "Reshape");
  ASSERT_NE(reshape, nullptr);
  ASSERT_TRUE(reshape->infer(ctx).ok());
  EXPECT_EQ(ctx.outputs()[0].shape, Shape::Of({3, 4}));
  EXPECT_EQ(ctx.outputs()[0].dtype, DataType::kFloat32);
  // Input that breaks the op's rules fails with the node named.
  Tensor bad = Tensor::FromVector<int64_t>(DataType::kInt64, {2}, {5, -1});
  inputs[1].constant = &bad;
  InferenceContext bad_ctx("Reshape", "r", 17, attrs, inputs, {true});
  Status st = reshape->infer(bad_ctx);
  EXPECT_EQ(st.code(), code::kInvalidParam);
  EXPECT_NE(st.message().find("Reshape 'r' (opset 17)"), std::string::npos) << st.message();
}

TEST(OpSchemaTest, TraitsAreDeclaredWithTheOps) {
  const OpRegistry& r = OpRegistry::Global();
  EXPECT_TRUE(r.Find("", "Relu")->has(kTraitInPlace));
  EXPECT_TRUE(r.Find("", "Relu")->has(kTraitFusableActivation));
  EXPECT_FALSE(r.Find("", "Sin")->has(kTraitFusableActivation));
  EXPECT_TRUE(r.Find("", "Reshape")->has(kTraitInPlace));
  EXPECT_FALSE(r.Find("", "Concat")->has(kTraitInPlace));
  EXPECT_TRUE(r.Find("", "NonZero")->has(kTraitDataDependentShape));
  EXPECT_TRUE(r.Find("", "Shape")->has(kTraitReadsShapeOnly));
}

}  // namespace
}  // namespace kiln::ir
