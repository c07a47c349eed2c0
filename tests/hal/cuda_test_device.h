// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// GPU 0 for the gpu-labelled tests, or a skip where the machine has none.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <memory>

#include "backends/cuda/cuda_driver.h"

namespace kiln::cuda::testing {

// A test fixture holding CUDA device 0; every case skips where there is no GPU.
class CudaDeviceFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("KILN_ENABLE_CUDA", "1", 1);
    driver_ = CreateCudaDriver();
    if (driver_->DeviceCount() == 0) GTEST_SKIP() << "no CUDA device on this machine";
    auto device = driver_->OpenDevice(0);
    ASSERT_TRUE(device.ok()) << device.status().message();
    device_ = std::move(*device);
  }
  std::unique_ptr<hal::Driver> driver_;
  std::unique_ptr<hal::Device> device_;
};

}  // namespace kiln::cuda::testing
