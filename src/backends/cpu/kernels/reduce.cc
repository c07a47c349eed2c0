// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "backends/cpu/kernels/families.h"

namespace kiln::cpu {

void RegisterCpuReduceKernels(kernels::KernelRegistry& registry) {}

}  // namespace kiln::cpu
