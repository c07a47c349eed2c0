// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "backends/cuda/kernels/register.h"

namespace kiln::cuda {

void RegisterCudaKernels(kernels::KernelRegistry& registry) {
  RegisterCudaElementwiseKernels(registry);
}

}  // namespace kiln::cuda
