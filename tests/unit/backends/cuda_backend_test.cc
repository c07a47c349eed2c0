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

#include "backends/cuda/cuda_driver.h"
#include "backends/cuda/cuda_queue.h"
#include "backends/cuda/cuda_status.h"
#include "backends/register_all.h"
#include "hal/driver.h"
#include "queue_conformance.h"

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

TEST(CudaDriverTest, RegisteredBeforeTheCpuSoGpusTakeTheLowDeviceIds) {
  backends::RegisterAll();
  std::vector<hal::Driver*> drivers = hal::Drivers();
  ASSERT_EQ(drivers.size(), 2u);
  EXPECT_EQ(drivers[0]->name(), "cuda");
  EXPECT_EQ(drivers[1]->name(), "cpu");
}

}  // namespace
}  // namespace kiln::cuda
