// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "hal/allocator.h"

namespace kiln::cpu {

// CPU "device" memory is host memory: aligned allocations, 2 MiB-aligned and advised onto
// transparent huge pages when asked for and at least 2 MiB.
class CpuAllocator final : public hal::Allocator {
 public:
  Result<void*> Allocate(size_t bytes, size_t alignment, bool huge_pages) override;
  void Free(void* ptr, size_t bytes) override;
  void Copy(void* dst, const void* src, size_t bytes) override;
  void Fill(void* dst, int value, size_t bytes) override;
};

}  // namespace kiln::cpu
