// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The one place where built-in backends are registered, in physical device order, with their
// optimised kernels.
#include <mutex>

#include "backends/cpu/cpu_driver.h"
#include "backends/cpu/kernels/register.h"
#include "hal/driver.h"

namespace kiln::hal {

void RegisterBuiltinDrivers(std::vector<std::unique_ptr<Driver>>& drivers) {
  drivers.push_back(cpu::CreateCpuDriver());
  // Kernels are prepared for a device's backend only after the drivers exist.
  static std::once_flag cpu_kernels;
  std::call_once(cpu_kernels, [] { cpu::RegisterCpuKernels(kernels::KernelRegistry::Global()); });
}

}  // namespace kiln::hal
