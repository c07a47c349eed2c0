// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "kernels/registry.h"

namespace kiln::cuda {

inline constexpr const char* kCudaBackend = "cuda";

// Registers the CUDA device's kernels for backend "cuda". A node with none is refused at load
// (the device's memory is not the host's: no reference fallback, kernels/registry.h).
void RegisterCudaKernels(kernels::KernelRegistry& registry);

// One family each (elementwise.cc, nn.cc, tensor.cc).
void RegisterCudaElementwiseKernels(kernels::KernelRegistry& registry);
void RegisterCudaNnKernels(kernels::KernelRegistry& registry);
void RegisterCudaTensorKernels(kernels::KernelRegistry& registry);

// Shared by the families: float32 inputs and outputs, or a decline (kFeatureUnsupported)
// naming what the kernel does not take.
Status RequireFloat32(const kernels::NodeDef& def);
// The run's CUDA stream (null: the legacy default stream, outside an execution).
void* StreamOf(const kernels::KernelContext& ctx);
// A launcher's result (a cudaError_t as an int, from the *_launch.h headers) as a Status.
Status Launched(int error, const char* what);

}  // namespace kiln::cuda
