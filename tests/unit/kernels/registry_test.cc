// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "kernels/registry.h"

#include <gtest/gtest.h>

#include "ir/op_schema.h"
#include "kernel_test_util.h"
#include "tests/hal/apart_device.h"

namespace kiln::kernels {
namespace {

using testing::Def;
using testing::F32;

// A context whose execution slot holds a kernel state, as the executor's does.
class SlotContext final : public testing::TestContext {
 public:
  using TestContext::TestContext;
  KernelState* state() const override { return &state_; }

 private:
  mutable KernelState state_;
};

TEST(ForwardingContextTest, PassesTheRunOnButNotTheOuterKernelsState) {
  HostTensor x = F32({2}, {1.f, -2.f});
  SlotContext outer({&x}, {DataType::kFloat32});
  ASSERT_NE(outer.state(), nullptr);
  ForwardingContext inner(outer);
  EXPECT_EQ(inner.state(), nullptr);
  EXPECT_EQ(inner.num_inputs(), 1u);
  EXPECT_EQ(inner.input(0), outer.input(0));
  EXPECT_EQ(inner.num_outputs(), 1u);
  ASSERT_TRUE(inner.DynamicOutput(0, {2}).ok());
  EXPECT_EQ(outer.outputs()[0].dims, (Dims{2}));  // bound in the outer context
  EXPECT_EQ(inner.exec(), outer.exec());
}

TEST(KernelRegistryTest, EveryOpTheCompilerAcceptsHasAReferenceKernel) {
  const auto& reg = KernelRegistry::Global();
  std::vector<std::string> missing;
  for (const ir::OpSchema* s : ir::OpRegistry::Global().All()) {
    if (!reg.Has(kReferenceBackend, s->domain, s->op_type)) missing.push_back(s->op_type);
  }
  EXPECT_TRUE(missing.empty()) << ::testing::PrintToString(missing);
}

TEST(KernelRegistryTest, UnknownOpIsUnsupportedAndNamesNodeAndBackend) {
  HostTensor x = F32({1}, {1.f});
  NodeDef def = Def("NoSuchOp", {&x}, {DataType::kFloat32});
  auto k = KernelRegistry::Global().Create("cpu", def);
  ASSERT_FALSE(k.ok());
  EXPECT_EQ(k.status().code(), code::kFeatureUnsupported);
  EXPECT_NE(k.status().message().find("NoSuchOp 'n'"), std::string::npos);
  EXPECT_NE(k.status().message().find("'cpu'"), std::string::npos);
}

TEST(KernelRegistryTest, BackendKernelOverridesAndFallsBackWhenItDeclines) {
  KernelRegistry reg;
  int made = 0;
  reg.Register(
      kReferenceBackend, "", "Op", [&](const NodeDef& d) -> Result<std::unique_ptr<Kernel>> {
        ++made;
        return MakeFunctionKernel(d, [](const NodeDef&, KernelContext&) { return Status::Ok(); });
      });
  reg.Register("fast", "", "Op", [](const NodeDef& d) -> Result<std::unique_ptr<Kernel>> {
    return d.Fail(code::kFeatureUnsupported, "declined");
  });
  HostTensor x = F32({1}, {1.f});
  NodeDef def = Def("Op", {&x}, {DataType::kFloat32});
  ASSERT_TRUE(reg.Create("fast", def).ok());
  EXPECT_EQ(made, 1);
  EXPECT_TRUE(reg.Has("fast", "", "Op"));
  EXPECT_FALSE(reg.Has("other", "", "Op"));
  EXPECT_NE(reg.Find("other", "", "Op"), nullptr);  // falls back to the reference kernel
}

TEST(KernelRegistryTest, ADeviceTheHostCannotAddressGetsNoReferenceFallback) {
  KernelRegistry reg;
  reg.Register(
      kReferenceBackend, "", "Op", [](const NodeDef& d) -> Result<std::unique_ptr<Kernel>> {
        return MakeFunctionKernel(d, [](const NodeDef&, KernelContext&) { return Status::Ok(); });
      });
  reg.Register("gpu", "", "Declines", [](const NodeDef& d) -> Result<std::unique_ptr<Kernel>> {
    return d.Fail(code::kFeatureUnsupported, "int4 weights are not supported");
  });
  reg.Register(
      kReferenceBackend, "", "Declines", [](const NodeDef& d) -> Result<std::unique_ptr<Kernel>> {
        return MakeFunctionKernel(d, [](const NodeDef&, KernelContext&) { return Status::Ok(); });
      });
  HostTensor x = F32({1}, {1.f});
  hal::testing::ApartDevice gpu("gpu"), host("gpu", /*host_addressable=*/true);
  NodeDef def = Def("Op", {&x}, {DataType::kFloat32});
  def.device = &gpu;
  auto refused = reg.Create("gpu", def);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), code::kFeatureUnsupported);
  EXPECT_NE(refused.status().message().find("Op 'n': no kernel for op 'Op' on backend 'gpu'"),
            std::string::npos)
      << refused.status().message();
  def.op_type = "Declines";  // the device's own kernel declines: its reason, not the oracle
  auto declined = reg.Create("gpu", def);
  ASSERT_FALSE(declined.ok());
  EXPECT_NE(declined.status().message().find("int4 weights"), std::string::npos);
  def.op_type = "Op";
  def.device = &host;  // host memory: the reference kernel stands in
  EXPECT_TRUE(reg.Create("gpu", def).ok());
}

}  // namespace
}  // namespace kiln::kernels
