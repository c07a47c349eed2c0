// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "backends/register_all.h"

#include <mutex>

#include "backends/cpu/cpu_driver.h"
#include "backends/cpu/kernels/register.h"
#include "hal/driver.h"
#include "kernels/registry.h"

namespace kiln::backends {

void RegisterAll() {
  static std::once_flag once;
  std::call_once(once, [] {
    // A CUDA driver, when built, goes first: GPUs take the low physical device ids.
    hal::RegisterDriver(cpu::CreateCpuDriver());
    cpu::RegisterCpuKernels(kernels::KernelRegistry::Global());
  });
}

}  // namespace kiln::backends
