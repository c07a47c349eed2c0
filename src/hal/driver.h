// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "hal/device.h"

namespace kiln::hal {

// A backend: enumerates its devices and opens them.
class Driver {
 public:
  virtual ~Driver() = default;
  virtual std::string name() const = 0;
  // Devices this driver can open on this machine (0 when none).
  virtual int DeviceCount() = 0;
  // Opens device `index` (< DeviceCount()).
  virtual Result<std::unique_ptr<Device>> OpenDevice(int index) = 0;
};

// The driver registry. Drivers are added explicitly — the built-in ones by
// backends::RegisterAll (src/backends/register_all.h), which the runtime calls once before it
// lists devices; a test adds its own (the null backend, tests/hal/null_driver.h). The HAL
// itself links no backend.
//
// Adds `driver` after those registered so far (physical device ids follow registration order:
// CUDA GPUs first, then the CPU; docs/design.md §4). The registry owns it for the life of the
// process: devices opened from it outlive static destructors of the application.
void RegisterDriver(std::unique_ptr<Driver> driver);

// Every registered driver, in registration order. The returned vector is a snapshot.
std::vector<Driver*> Drivers();

}  // namespace kiln::hal
