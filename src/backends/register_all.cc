// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "backends/register_all.h"

#include <mutex>

#include "backends/cpu/cpu_driver.h"
#include "backends/cpu/kernels/register.h"
#ifdef KILN_WITH_CUDA
#include "backends/cuda/cuda_driver.h"
#include "backends/cuda/kernels/register.h"
#endif
#include "hal/driver.h"
#include "kernels/registry.h"

namespace kiln::backends {

void RegisterAll() {
  static std::once_flag once;
  std::call_once(once, [] {
  // The CUDA driver, when built, goes first: GPUs take the low physical device ids
  // (docs/design.md §4); without a GPU it lists none.
#ifdef KILN_WITH_CUDA
    hal::RegisterDriver(cuda::CreateCudaDriver());
#endif
    hal::RegisterDriver(cpu::CreateCpuDriver());
    cpu::RegisterCpuKernels(kernels::KernelRegistry::Global());
#ifdef KILN_WITH_CUDA
    cuda::RegisterCudaKernels(kernels::KernelRegistry::Global());
#endif
  });
}

}  // namespace kiln::backends
