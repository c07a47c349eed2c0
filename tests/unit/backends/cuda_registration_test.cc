// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Where the CUDA driver stands among the built-in backends (a test of its own: it links every
// backend, oneDNN included, which the GPU test bundle leaves out).
#include <gtest/gtest.h>

#include <vector>

#include "backends/register_all.h"
#include "hal/driver.h"

namespace kiln::cuda {
namespace {

TEST(CudaDriverTest, RegisteredBeforeTheCpuSoGpusTakeTheLowDeviceIds) {
  backends::RegisterAll();
  std::vector<hal::Driver*> drivers = hal::Drivers();
  ASSERT_EQ(drivers.size(), 2u);
  EXPECT_EQ(drivers[0]->name(), "cuda");
  EXPECT_EQ(drivers[1]->name(), "cpu");
}

}  // namespace
}  // namespace kiln::cuda
