// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "hal/driver.h"

namespace kiln::hal {

const std::vector<Driver*>& Drivers() {
  static const std::vector<Driver*>* drivers = [] {
    // Kept for the life of the process: devices opened from them outlive static destructors.
    auto* owned = new std::vector<std::unique_ptr<Driver>>();
    RegisterBuiltinDrivers(*owned);
    auto* view = new std::vector<Driver*>();
    for (auto& d : *owned) view->push_back(d.get());
    return view;
  }();
  return *drivers;
}

}  // namespace kiln::hal
