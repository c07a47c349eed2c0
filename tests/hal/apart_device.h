// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// A device whose memory the host cannot address (hal::DeviceInfo::host_addressable false), as a
// GPU is to the kernel registry: for tests of kernel choice, which never touch its memory.
#pragma once

#include <cstdlib>
#include <memory>
#include <string>

#include "hal/device.h"

namespace kiln::hal::testing {

class ApartDevice final : public Device {
 public:
  explicit ApartDevice(std::string backend, bool host_addressable = false) {
    info_.backend = std::move(backend);
    info_.host_addressable = host_addressable;
  }
  const DeviceInfo& info() const override { return info_; }
  Allocator& allocator() override { std::abort(); }  // kernel choice allocates nothing
  std::shared_ptr<Queue> CreateQueue() override { return nullptr; }
  std::shared_ptr<Event> CreateEvent() override { return nullptr; }
  uint64_t busy_ns() const override { return 0; }

 private:
  DeviceInfo info_;
};

}  // namespace kiln::hal::testing
