// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <memory>

#include "hal/driver.h"

namespace kiln::cuda {

// The CUDA backend's driver: one device per GPU the CUDA runtime sees (after
// CUDA_VISIBLE_DEVICES; ASCEND_RT_VISIBLE_DEVICES then filters and orders Kiln's devices). The
// runtime is linked statically and opens the driver library itself on first use, so on a machine
// without a GPU or an NVIDIA driver it reports 0 devices, without an error.
std::unique_ptr<hal::Driver> CreateCudaDriver();

}  // namespace kiln::cuda
