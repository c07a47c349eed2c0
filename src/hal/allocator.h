// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstddef>

#include "base/status.h"

namespace kiln::hal {

// Raw device memory. The runtime's caching pool sits on top of it and does all accounting,
// so an Allocator only talks to the device. Thread-safe.
class Allocator {
 public:
  virtual ~Allocator() = default;
  // Returns `bytes` (> 0) of device memory aligned to `alignment` (a power of two), backed by
  // huge pages where `huge_pages` asks and the device has them. Fails with
  // kRtMemoryAllocation when the device has no memory left.
  virtual Result<void*> Allocate(size_t bytes, size_t alignment, bool huge_pages) = 0;
  // Returns memory from Allocate; `bytes` is the size it was allocated with.
  virtual void Free(void* ptr, size_t bytes) = 0;
  // Host-visible copy and fill for memory of this device (and host memory). Synchronous.
  virtual void Copy(void* dst, const void* src, size_t bytes) = 0;
  virtual void Fill(void* dst, int value, size_t bytes) = 0;
};

}  // namespace kiln::hal
