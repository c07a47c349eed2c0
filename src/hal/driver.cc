// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "hal/driver.h"

namespace kiln::hal {

const std::vector<Driver*>& Drivers() {
  struct Registry {
    std::vector<std::unique_ptr<Driver>> owned;
    std::vector<Driver*> view;
  };
  // Kept for the life of the process: devices opened from the drivers outlive static
  // destructors of the application.
  static Registry* registry = [] {
    auto* r = new Registry();
    RegisterBuiltinDrivers(r->owned);
    for (auto& d : r->owned) r->view.push_back(d.get());
    return r;
  }();
  return registry->view;
}

}  // namespace kiln::hal
