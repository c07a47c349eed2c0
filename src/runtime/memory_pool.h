// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "base/status.h"
#include "hal/allocator.h"
#include "runtime/usage_record.h"

namespace kiln::runtime {

struct PoolStats {
  uint64_t capacity = 0;         // most bytes the pool may hold from the device
  uint64_t live_bytes = 0;       // bytes in blocks handed out
  uint64_t reserved_bytes = 0;   // live + cached blocks
  uint64_t peak_live_bytes = 0;  // the most ever live at once
  uint64_t live_blocks = 0;
  uint64_t allocations = 0;  // served so far
  uint64_t cache_hits = 0;   // of which from a cached block
};

// A per-device caching pool (docs/design.md §4): freed blocks are kept, keyed by size, and
// handed out again to a request of a close size, so a steady per-frame allocate/free loop does
// not reach the device allocator. Reserved memory never exceeds the capacity: when a request
// would pass it, cached blocks are returned to the device first; if it still does not fit, the
// request fails with kRtMemoryAllocation and nothing changes. The cache itself is bounded: it
// holds at most the larger of `cache_floor` and the most bytes ever live at once; a free that
// would pass that returns the largest cached blocks to the device (so reserved memory stays
// within twice the application's peak use plus the floor, whatever sizes it cycles through).
// Thread-safe.
class MemoryPool {
 public:
  static constexpr uint64_t kDefaultCacheFloor = uint64_t{256} << 20;

  // `owner` keeps the allocator's device alive as long as the pool (may be null).
  MemoryPool(hal::Allocator& allocator, int32_t device_id, uint64_t capacity,
             std::shared_ptr<const void> owner = nullptr,
             uint64_t cache_floor = kDefaultCacheFloor);
  // Returns every block, live (leaked by the application) or cached, to the device.
  ~MemoryPool();
  MemoryPool(const MemoryPool&) = delete;
  MemoryPool& operator=(const MemoryPool&) = delete;

  // A block of at least `bytes` (> 0), 64-byte aligned.
  Result<void*> Allocate(size_t bytes, bool huge_pages);
  // Gives back a block from Allocate. Fails (kInvalidParam) for any other pointer.
  Status Free(void* ptr);
  // Returns cached blocks to the device.
  void Trim();
  // Bytes from `ptr` to the end of the live allocation it lies in (the bytes asked of Allocate,
  // not the block's size class: a copy past them is refused even where the block has room);
  // 0 when `ptr` lies in none.
  size_t BytesFrom(const void* ptr) const;
  // Whether `ptr` lies in a block this pool handed out and took back (freed, kept cached): a
  // use after free the pool can still name.
  bool WasFreed(const void* ptr) const;
  PoolStats stats() const;
  int32_t device() const { return device_id_; }
  // From now on the pool stores its live and reserved bytes into `slot` on every change (the
  // usage record `kiln smi` reads); null stops it.
  void PublishUsage(std::shared_ptr<UsageSlot> slot);

 private:
  struct Block {
    size_t size;  // as allocated from the device
    bool huge;
    size_t requested = 0;  // what Allocate was asked for (<= size)
  };
  void TrimLocked();
  // Puts a block that was live into the cache; false (nothing changed) when there is no memory
  // for the cache's own nodes.
  bool CacheLocked(void* ptr, size_t size, bool huge) noexcept;
  // Takes the cached block at `it` out of the cache (and its address index).
  void UncacheLocked(std::multimap<size_t, std::pair<void*, bool>>::iterator it);
  // Returns the largest cached blocks to the device while the cache holds more than its bound.
  void BoundCacheLocked();
  void PublishLocked() {
    if (usage_) usage_->Set(stats_.live_bytes, stats_.reserved_bytes);
  }

  std::shared_ptr<const void> owner_;
  hal::Allocator& allocator_;
  const int32_t device_id_;
  const uint64_t cache_floor_;
  mutable std::mutex mu_;
  PoolStats stats_;
  std::map<uintptr_t, Block> live_;                       // by start address (interior lookups)
  std::multimap<size_t, std::pair<void*, bool>> cached_;  // size -> (block, huge)
  std::map<uintptr_t, size_t> cached_by_address_;         // start -> size (WasFreed lookups)
  uint64_t cached_bytes_ = 0;
  std::shared_ptr<UsageSlot> usage_;
};

}  // namespace kiln::runtime
