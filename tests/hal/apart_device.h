// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// A device whose memory the host cannot address (hal::DeviceInfo::host_addressable false), as a
// GPU is to the kernel registry: for tests of kernel choice, which never run a kernel on it. What
// a kernel uploads at Prepare (weights it keeps in another form) lands in host memory that the
// test may read, and is counted.
#pragma once

#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>

#include "hal/allocator.h"
#include "hal/device.h"

namespace kiln::hal::testing {

class ApartDevice final : public Device {
 public:
  explicit ApartDevice(std::string backend, bool host_addressable = false) {
    info_.backend = std::move(backend);
    info_.host_addressable = host_addressable;
  }
  const DeviceInfo& info() const override { return info_; }
  Allocator& allocator() override { return allocator_; }
  std::shared_ptr<Queue> CreateQueue() override { return nullptr; }
  std::shared_ptr<Event> CreateEvent() override { return nullptr; }
  uint64_t busy_ns() const override { return 0; }

  // Host memory standing in for the device's; `blocks` maps each live block to its bytes.
  class Uploads final : public Allocator {
   public:
    ~Uploads() override {
      for (auto& [p, bytes] : blocks) std::free(p);
    }
    Result<void*> Allocate(size_t bytes, size_t alignment, bool) override {
      void* p = std::aligned_alloc(alignment, (bytes + alignment - 1) / alignment * alignment);
      if (p == nullptr) return Error(code::kRtMemoryAllocation, "apart device: out of memory");
      blocks[p] = bytes;
      return p;
    }
    void Free(void* ptr, size_t) override {
      blocks.erase(ptr);
      std::free(ptr);
    }
    void Copy(void* dst, const void* src, size_t bytes) override { std::memmove(dst, src, bytes); }
    void Fill(void* dst, int value, size_t bytes) override { std::memset(dst, value, bytes); }
    std::map<void*, size_t> blocks;
  };
  Uploads& uploads() { return allocator_; }

 private:
  DeviceInfo info_;
  Uploads allocator_;
};

}  // namespace kiln::hal::testing
