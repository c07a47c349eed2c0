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

// Every driver linked into the process, in the order physical device ids are numbered
// (CUDA GPUs first, then the CPU; docs/design.md §4). Built once, on first call.
const std::vector<Driver*>& Drivers();

// Defined by src/backends/register_backends.cc: the one place that registers the built-in
// backends (explicit, no static-initialiser self-registration).
void RegisterBuiltinDrivers(std::vector<std::unique_ptr<Driver>>& drivers);

}  // namespace kiln::hal
