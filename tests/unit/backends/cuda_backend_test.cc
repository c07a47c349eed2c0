// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The CUDA backend where no GPU is needed: its queues (the conformance suite runs on their host
// workers; the GPU calls they make fail harmlessly without one), its error mapping, and a
// machine without a GPU or driver seeing no CUDA device and no error. The GPU itself is tested
// by cuda_device_test (label gpu).
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstdlib>

#include "backends/cuda/cuda_driver.h"
#include "backends/cuda/cuda_queue.h"
#include "backends/cuda/cuda_status.h"
#include "backends/cuda/kernels/elementwise_launch.h"
#include "backends/cuda/kernels/register.h"
#include "ir/op_schema.h"
#include "queue_conformance.h"
#include "tests/hal/apart_device.h"

namespace kiln::cuda {
namespace {

using hal::testing::QueueConformanceTest;
INSTANTIATE_TEST_SUITE_P(
    Cuda, QueueConformanceTest,
    ::testing::Values(hal::testing::QueueMaker{
        "cuda", [] { return std::shared_ptr<hal::Queue>(std::make_shared<CudaQueue>(0)); }}),
    hal::testing::QueueMakerName);

bool MachineHasAGpu() {
  int count = 0;
  bool has = cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
  (void)cudaGetLastError();
  return has;
}

TEST(CudaStatusTest, NamesTheCallTheCudaErrorAndMapsItsCode) {
  Status oom = CudaStatus(cudaErrorMemoryAllocation, "cudaMalloc");
  EXPECT_EQ(oom.code(), code::kRtMemoryAllocation);
  EXPECT_NE(oom.message().find("cudaMalloc: cudaErrorMemoryAllocation"), std::string::npos)
      << oom.message();
  EXPECT_EQ(CudaStatus(cudaErrorNoDevice, "x").code(), code::kRtNoDevice);
  EXPECT_EQ(CudaStatus(cudaErrorInsufficientDriver, "x").code(), code::kRtNoDevice);
  EXPECT_EQ(CudaStatus(cudaErrorLaunchFailure, "x").code(), code::kRtInternalError);
  EXPECT_TRUE(CudaStatus(cudaSuccess, "x").ok());
}

TEST(CudaDriverTest, ListsNoGpuUnlessEnabled) {
  unsetenv("KILN_ENABLE_CUDA");
  auto driver = CreateCudaDriver();
  EXPECT_EQ(driver->name(), "cuda");
  EXPECT_EQ(driver->DeviceCount(), 0);
  auto opened = driver->OpenDevice(0);
  ASSERT_FALSE(opened.ok());
  EXPECT_EQ(opened.status().code(), code::kRtInvalidDeviceId);
  EXPECT_NE(opened.status().message().find("CUDA device 0 does not exist"), std::string::npos);
}

TEST(CudaDriverTest, AMachineWithoutAGpuOrDriverHasNoCudaDeviceAndNoError) {
  if (MachineHasAGpu()) GTEST_SKIP() << "this machine has a GPU (cuda_device_test covers it)";
  setenv("KILN_ENABLE_CUDA", "1", 1);
  auto driver = CreateCudaDriver();
  EXPECT_EQ(driver->DeviceCount(), 0);
  EXPECT_EQ(driver->OpenDevice(0).status().code(), code::kRtInvalidDeviceId);
  EXPECT_EQ(driver->DeviceCount(), 0);  // asked again: the same answer, still no error
  unsetenv("KILN_ENABLE_CUDA");
}

// The broadcast indexing the kernels do (BroadcastOffsets, the same function), on the host:
// every output element's operand offsets must be numpy's.
TEST(CudaBroadcastTest, StridesGiveNumpysOperandOffsets) {
  const int64_t a[] = {4, 1, 6}, b[] = {5, 1}, out[] = {4, 5, 6};
  BroadcastShape s;
  ASSERT_TRUE(MakeBroadcastShape(a, 3, b, 2, out, 3, &s));
  EXPECT_EQ(s.rank, 3);
  for (int64_t i = 0; i < 4 * 5 * 6; ++i) {
    int64_t ai = 0, bi = 0;
    BroadcastOffsets(s, i, &ai, &bi);
    const int64_t x = i / 30, y = (i / 6) % 5, z = i % 6;
    EXPECT_EQ(ai, x * 6 + z) << i;  // a[x, 0, z]
    EXPECT_EQ(bi, y) << i;          // b[y, 0]
  }
  const int64_t scalar[] = {0}, nine[] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  EXPECT_TRUE(MakeBroadcastShape(scalar, 0, out, 3, out, 3, &s));
  EXPECT_EQ(s.a_strides[0] + s.a_strides[1] + s.a_strides[2], 0);
  EXPECT_FALSE(MakeBroadcastShape(nine, 9, nine, 9, nine, 9, &s));  // more dims than it takes
  EXPECT_FALSE(MakeBroadcastShape(out, 3, b, 2, b, 2, &s));         // an operand outranks out
}

TEST(CudaKernelsTest, EveryOpTheyRegisterIsAnOpTheCompilerKnows) {
  kernels::KernelRegistry registry;
  RegisterCudaKernels(registry);
  const auto ops = registry.Ops(kCudaBackend);
  EXPECT_GE(ops.size(), 20u);
  for (const auto& [domain, op] : ops) {
    EXPECT_NE(ir::OpRegistry::Global().Find(domain, op), nullptr) << domain << "." << op;
  }
}

TEST(CudaKernelsTest, ANodeTheyDoNotTakeIsRefusedAtLoadNamingWhy) {
  kernels::KernelRegistry& registry = kernels::KernelRegistry::Global();
  static bool once = (RegisterCudaKernels(registry), true);
  (void)once;
  hal::testing::ApartDevice gpu(kCudaBackend);
  kernels::NodeDef def;
  def.op_type = "Add";
  def.name = "add_ints";
  def.opset = 17;
  def.has_input = {true, true};
  def.input_types = {kernels::DataType::kInt8, kernels::DataType::kInt8};
  def.input_dims = {{2}, {2}};
  def.constants = {nullptr, nullptr};
  def.output_types = {kernels::DataType::kInt8};
  def.output_dims = {{2}};
  def.device = &gpu;
  auto refused = registry.Create(kCudaBackend, def);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), code::kFeatureUnsupported);
  EXPECT_NE(refused.status().message().find("Add 'add_ints'"), std::string::npos)
      << refused.status().message();
  EXPECT_NE(refused.status().message().find("float32"), std::string::npos);
  def.op_type = "Add";  // float32, but broadcast over more dims than the kernels index
  def.name = "add_9d";
  def.input_types = {kernels::DataType::kFloat32, kernels::DataType::kFloat32};
  def.input_dims = {{1, 1, 1, 1, 1, 1, 1, 1, 2}, {2}};
  def.output_types = {kernels::DataType::kFloat32};
  def.output_dims = {{1, 1, 1, 1, 1, 1, 1, 1, 2}};
  auto too_deep = registry.Create(kCudaBackend, def);
  ASSERT_FALSE(too_deep.ok());
  EXPECT_NE(too_deep.status().message().find("Add 'add_9d'"), std::string::npos)
      << too_deep.status().message();
  EXPECT_NE(too_deep.status().message().find("broadcasts up to 8 dims"), std::string::npos);
  def.op_type = "Hardmax";  // no CUDA kernel at all: no host fallback either
  def.name = "probs";
  def.has_input = {true};
  def.input_types = {kernels::DataType::kFloat32};
  def.input_dims = {{2}};
  def.constants = {nullptr};
  def.output_types = {kernels::DataType::kFloat32};
  def.output_dims = {{2}};
  auto none = registry.Create(kCudaBackend, def);
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("no kernel for op 'Hardmax' on backend 'cuda'"),
            std::string::npos)
      << none.status().message();
}

}  // namespace
}  // namespace kiln::cuda
