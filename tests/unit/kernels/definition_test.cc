// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The op definitions applied to loaded nodes (kernels/definition.h): the one check of a node
// before any kernel sees it, and the output dims of nodes whose dims are known at run time only.
#include "kernels/definition.h"

#include <gtest/gtest.h>

#include "kernels/registry.h"
#include "tests/unit/kernels/kernel_test_util.h"

namespace kiln::kernels::testing {
namespace {

// A loaded Concat of two [2,3] float inputs on axis `axis`, recording output dims `out`.
NodeDef LoadedConcat(int64_t axis, Dims out) {
  NodeDef def;
  def.op_type = "Concat";
  def.name = "cat";
  def.opset = 13;
  def.attrs["axis"] = axis;
  for (int i = 0; i < 2; ++i) {
    def.has_input.push_back(true);
    def.input_types.push_back(DataType::kFloat32);
    def.input_dims.push_back({2, 3});
    def.constants.push_back(nullptr);
  }
  def.output_types = {DataType::kFloat32};
  def.output_dims = {std::move(out)};
  return def;
}

TEST(DefinitionTest, ANodeThatAgreesWithItsDefinitionPasses) {
  NodeDef def = LoadedConcat(0, {4, 3});
  EXPECT_TRUE(ApplyDefinition(def).ok());
  NodeDef dynamic = LoadedConcat(1, {2, -1});  // a dim left to run time agrees with anything
  EXPECT_TRUE(ApplyDefinition(dynamic).ok());
}

TEST(DefinitionTest, RecordedDimsOrTypesThatTheDefinitionContradictsAreRefused) {
  // What a tampered .om records: dims that would make the kernel write past its output.
  NodeDef dims = LoadedConcat(0, {2, 3});
  Status st = ApplyDefinition(dims);
  EXPECT_EQ(st.code(), code::kInvalidParam);
  EXPECT_NE(st.message().find("Concat 'cat'"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("[2,3]"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("[4,3]"), std::string::npos) << st.message();
  NodeDef type = LoadedConcat(0, {4, 3});
  type.output_types = {DataType::kInt64};
  EXPECT_EQ(ApplyDefinition(type).code(), code::kInvalidParam);
  // A node that breaks the op's rules (axis out of range) never reaches a kernel.
  NodeDef axis = LoadedConcat(5, {4, 3});
  EXPECT_EQ(ApplyDefinition(axis).code(), code::kInvalidParam);
  EXPECT_EQ(KernelRegistry::Global().Create(kReferenceBackend, axis).status().code(),
            code::kInvalidParam);
}

TEST(DefinitionTest, OutputsLeftUnrankedGetTheDefinitionsDims) {
  NodeDef def = LoadedConcat(1, {});
  def.output_rank_known = {false};
  ASSERT_TRUE(ApplyDefinition(def).ok());
  EXPECT_EQ(def.output_dims[0], (Dims{2, 6}));
  EXPECT_TRUE(def.output_ranked(0));
}

TEST(DefinitionTest, RunTimeDimsComeFromTheShapeFunctionWithTheInputsValues) {
  // Reshape's target is a computed input: only its value at run time gives the output dims.
  NodeDef def;
  def.op_type = "Reshape";
  def.name = "r";
  def.opset = 14;
  def.has_input = {true, true};
  def.input_types = {DataType::kFloat32, DataType::kInt64};
  def.input_dims = {{-1, 6}, {2}};
  def.constants = {nullptr, nullptr};
  def.output_types = {DataType::kFloat32};
  def.output_dims = {{-1, -1}};
  ASSERT_TRUE(ApplyDefinition(def).ok());
  EXPECT_EQ(def.attr_int("allowzero"), 0);  // the declared default, filled in
  HostTensor x(DataType::kFloat32, {4, 6});
  HostTensor shape = I64({2}, {-1, 8});
  std::vector<Dims> dims;
  std::vector<bool> known;
  const uint64_t runs = ShapeFunctionRuns();
  const TensorView xv = x.view(), sv = shape.view();
  ASSERT_TRUE(InferOutputDims(def, {&xv, &sv}, &dims, &known).ok());
  EXPECT_EQ(ShapeFunctionRuns(), runs + 1);
  ASSERT_TRUE(known[0]);
  EXPECT_EQ(dims[0], (Dims{3, 8}));
  HostTensor bad = I64({2}, {-1, 7});
  const TensorView bv = bad.view();
  EXPECT_EQ(InferOutputDims(def, {&xv, &bv}, &dims, &known).code(), code::kInvalidParam);
}

TEST(DefinitionTest, DataDependentOpsLeaveTheirOutputsToTheKernel) {
  NodeDef def;
  def.op_type = "NonZero";
  def.name = "nz";
  def.opset = 13;
  def.has_input = {true};
  def.input_types = {DataType::kFloat32};
  def.input_dims = {{4}};
  def.constants = {nullptr};
  def.output_types = {DataType::kInt64};
  def.output_dims = {{1, -1}};
  EXPECT_TRUE(HasDataDependentShape(def));
  HostTensor x = F32({4}, {0, 1, 0, 2});
  std::vector<Dims> dims;
  std::vector<bool> known;
  const TensorView xv = x.view();
  ASSERT_TRUE(InferOutputDims(def, {&xv}, &dims, &known).ok());
  EXPECT_FALSE(known[0]);
  auto out = RunReference(def, {&x});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ((*out)[0].dims, (Dims{1, 2}));
}

}  // namespace
}  // namespace kiln::kernels::testing
