// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "hal/allocator.h"

namespace kiln::cpu {

// Host memory aligned to `alignment` (a power of two, a multiple of sizeof(void*)), or null when
// the host has none left. With `huge_pages` and at least 2 MiB, the block is 2 MiB-aligned and
// its whole 2 MiB pages are advised onto transparent huge pages (one TLB entry and one page
// fault per 2 MiB instead of 512); the tail stays on small pages. Freed with std::free.
void* AllocateAligned(size_t bytes, size_t alignment, bool huge_pages);

// A block of `bytes` of its own (mmap), 2 MiB-aligned, unmapped when its last owner lets it go;
// with `huge_pages` its whole 2 MiB pages are advised onto transparent huge pages. Unlike a heap
// block's, the advice goes with it: a freed heap range keeps it for the next block carved there
// (which a run may touch in part). Null when the host has no memory left.
std::shared_ptr<uint8_t> MapBlock(size_t bytes, bool huge_pages);

// A 64-byte aligned piece of `bytes` for data written once and read on every run (packed
// weights), on transparent huge pages whatever its size: pieces under 4 MiB are carved one after
// another from shared 16 MiB slabs advised whole (a slab's untouched pages never become
// resident; at most its last partly used 2 MiB page is slack), larger ones get a block of their
// own (MapBlock with huge pages). Small packed weights used to sit on 4 KiB pages each:
// on a VM, where a TLB miss walks two page tables, streaming 200 MB read at 23 GB/s on 4 KiB
// pages against 35 on 2 MiB ones. A slab lives as long as one of its pieces does (the returned
// pointer shares its ownership); null when the host has no memory left. Thread-safe.
std::shared_ptr<uint8_t> AllocateOnHugePages(size_t bytes);

// CPU "device" memory is host memory: AllocateAligned blocks.
class CpuAllocator final : public hal::Allocator {
 public:
  Result<void*> Allocate(size_t bytes, size_t alignment, bool huge_pages) override;
  void Free(void* ptr, size_t bytes) override;
  void Copy(void* dst, const void* src, size_t bytes) override;
  void Fill(void* dst, int value, size_t bytes) override;
};

}  // namespace kiln::cpu
