// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "kernels/registry.h"

namespace kiln::cuda {

inline constexpr const char* kCudaBackend = "cuda";

// Registers the CUDA device's kernels for backend "cuda". A node with none is refused at load
// (the device's memory is not the host's: no reference fallback, kernels/registry.h).
void RegisterCudaKernels(kernels::KernelRegistry& registry);

// One family each (elementwise.cc, ...).
void RegisterCudaElementwiseKernels(kernels::KernelRegistry& registry);

}  // namespace kiln::cuda
