// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The CUDA device on a GPU (label gpu; every case skips where the machine has none): what it
// reports, its memory (allocate, fill, copy both ways, pinned host memory), its queues running
// work with the GPU current, its execution slots' streams. The prepared device script
// (scripts/cuda_device_check.sh) runs it on a lent GPU.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "tests/hal/cuda_test_device.h"

namespace kiln::cuda {
namespace {

using CudaDeviceTest = testing::CudaDeviceFixture;

TEST_F(CudaDeviceTest, ReportsItsComputeCapabilityAsTheTargetName) {
  const hal::DeviceInfo& info = device_->info();
  EXPECT_EQ(info.backend, "cuda");
  EXPECT_EQ(info.name.rfind("sm_", 0), 0u) << info.name;
  EXPECT_GT(info.memory_bytes, 0u);
  EXPECT_GT(info.compute_units, 0);
  EXPECT_FALSE(info.host_addressable);
}

TEST_F(CudaDeviceTest, MemoryFillsAndCopiesBothWays) {
  constexpr size_t kBytes = 1 << 20;
  hal::Allocator& a = device_->allocator();
  auto d1 = a.Allocate(kBytes, 64, false), d2 = a.Allocate(kBytes, 64, false);
  ASSERT_TRUE(d1.ok() && d2.ok());
  cudaPointerAttributes attrs{};
  ASSERT_EQ(cudaPointerGetAttributes(&attrs, *d1), cudaSuccess);
  EXPECT_EQ(attrs.type, cudaMemoryTypeDevice);
  std::vector<unsigned char> host(kBytes), back(kBytes, 0);
  for (size_t i = 0; i < kBytes; ++i) host[i] = static_cast<unsigned char>(i * 7);
  a.Copy(*d1, host.data(), kBytes);  // host to device
  a.Copy(*d2, *d1, kBytes);          // device to device
  a.Copy(back.data(), *d2, kBytes);  // device to host
  EXPECT_EQ(std::memcmp(host.data(), back.data(), kBytes), 0);
  a.Fill(*d2, 0x5a, kBytes / 2);
  a.Copy(back.data(), *d2, kBytes);
  EXPECT_EQ(back[0], 0x5a);
  EXPECT_EQ(back[kBytes / 2 - 1], 0x5a);
  EXPECT_EQ(back[kBytes / 2], host[kBytes / 2]);
  a.Free(*d1, kBytes);
  a.Free(*d2, kBytes);
}

TEST_F(CudaDeviceTest, AnImpossibleAllocationFailsWithTheMemoryCode) {
  auto huge = device_->allocator().Allocate(device_->info().memory_bytes * 4, 64, false);
  ASSERT_FALSE(huge.ok());
  EXPECT_EQ(huge.status().code(), code::kRtMemoryAllocation);
  auto fine = device_->allocator().Allocate(4096, 64, false);  // the device stays usable
  ASSERT_TRUE(fine.ok());
  device_->allocator().Free(*fine, 4096);
}

TEST_F(CudaDeviceTest, HostMemoryIsPageLocked) {
  auto host = device_->AllocateHost(1 << 16);
  ASSERT_TRUE(host.ok());
  cudaPointerAttributes attrs{};
  ASSERT_EQ(cudaPointerGetAttributes(&attrs, *host), cudaSuccess);
  EXPECT_EQ(attrs.type, cudaMemoryTypeHost);
  device_->FreeHost(*host);
}

TEST_F(CudaDeviceTest, QueueWorkRunsWithTheGpuCurrent) {
  auto queue = device_->CreateQueue();
  int current = -1;
  queue->Submit([&] {
    (void)cudaGetDevice(&current);
    return Status::Ok();
  });
  ASSERT_TRUE(queue->Synchronize(5000).ok());
  EXPECT_EQ(current, 0);
}

TEST_F(CudaDeviceTest, EachExecutionSlotHasItsOwnStream) {
  auto a = device_->CreateExecution(), b = device_->CreateExecution();
  EXPECT_NE(a->native_queue(), nullptr);
  EXPECT_NE(a->native_queue(), b->native_queue());
  a->Begin();
  a->End();
  EXPECT_GT(device_->busy_ns(), 0u);
}

}  // namespace
}  // namespace kiln::cuda
