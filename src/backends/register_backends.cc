// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The one place where built-in backends are registered, in physical device order.
#include "backends/cpu/cpu_driver.h"
#include "hal/driver.h"

namespace kiln::hal {

void RegisterBuiltinDrivers(std::vector<std::unique_ptr<Driver>>& drivers) {
  drivers.push_back(cpu::CreateCpuDriver());
}

}  // namespace kiln::hal
