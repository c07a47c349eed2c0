// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "hal/driver.h"

#include <mutex>

namespace kiln::hal {
namespace {

struct Registry {
  std::mutex mu;
  std::vector<std::unique_ptr<Driver>> owned;
};

Registry& Global() {
  static Registry* registry = new Registry();  // never destroyed: devices outlive exit
  return *registry;
}

}  // namespace

void RegisterDriver(std::unique_ptr<Driver> driver) {
  if (driver == nullptr) return;
  Registry& r = Global();
  std::lock_guard<std::mutex> lock(r.mu);
  r.owned.push_back(std::move(driver));
}

std::vector<Driver*> Drivers() {
  Registry& r = Global();
  std::lock_guard<std::mutex> lock(r.mu);
  std::vector<Driver*> view;
  view.reserve(r.owned.size());
  for (auto& d : r.owned) view.push_back(d.get());
  return view;
}

}  // namespace kiln::hal
