// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "hal/allocator.h"

namespace kiln::cpu {

// Host memory aligned to `alignment` (a power of two, a multiple of sizeof(void*)), or null when
// the host has none left. With `huge_pages` and at least 2 MiB, the block is 2 MiB-aligned and
// its whole 2 MiB pages are advised onto transparent huge pages (one TLB entry and one page
// fault per 2 MiB instead of 512); the tail stays on small pages. Freed with std::free.
void* AllocateAligned(size_t bytes, size_t alignment, bool huge_pages);

// CPU "device" memory is host memory: AllocateAligned blocks.
class CpuAllocator final : public hal::Allocator {
 public:
  Result<void*> Allocate(size_t bytes, size_t alignment, bool huge_pages) override;
  void Free(void* ptr, size_t bytes) override;
  void Copy(void* dst, const void* src, size_t bytes) override;
  void Fill(void* dst, int value, size_t bytes) override;
};

}  // namespace kiln::cpu
