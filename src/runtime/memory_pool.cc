// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "runtime/memory_pool.h"

#include <algorithm>
#include <iterator>

#include "base/log.h"

namespace kiln::runtime {
namespace {

constexpr size_t kAlignment = 64;
constexpr size_t kSmallClass = 512;              // below 1 MiB: multiples of 512 B
constexpr size_t kLargeClass = size_t{1} << 20;  // from 1 MiB: multiples of 1 MiB

size_t SizeClass(size_t bytes) {
  size_t unit = bytes < kLargeClass ? kSmallClass : kLargeClass;
  return (bytes + unit - 1) / unit * unit;
}

}  // namespace

MemoryPool::MemoryPool(hal::Allocator& allocator, int32_t device_id, uint64_t capacity,
                       std::shared_ptr<const void> owner, uint64_t cache_floor)
    : owner_(std::move(owner)),
      allocator_(allocator),
      device_id_(device_id),
      cache_floor_(cache_floor) {
  stats_.capacity = capacity;
}

MemoryPool::~MemoryPool() {
  std::lock_guard<std::mutex> lock(mu_);
  if (!live_.empty()) {
    KILN_LOG(kRuntime, kInfo, "device ", device_id_, ": reclaiming ", live_.size(),
             " allocation(s) of ", stats_.live_bytes, " bytes the application did not free");
  }
  for (auto& [addr, block] : live_) allocator_.Free(reinterpret_cast<void*>(addr), block.size);
  live_.clear();
  TrimLocked();
  usage_.reset();  // marks the device closed in the usage record
}

Result<void*> MemoryPool::Allocate(size_t bytes, bool huge_pages) {
  if (bytes == 0) return Error(code::kInvalidParam, "size 0 is invalid");
  if (bytes > SIZE_MAX - kLargeClass) {
    return Error(code::kRtMemoryAllocation, "size ", bytes, " is larger than any device");
  }
  size_t size = SizeClass(bytes);
  std::lock_guard<std::mutex> lock(mu_);
  // Best fit among cached blocks, wasting at most an eighth of the block.
  auto it = cached_.lower_bound(size);
  if (it != cached_.end() && it->first - size <= it->first / 8) {
    void* ptr = it->second.first;
    // May throw (out of memory for the node): then nothing changed.
    live_.emplace(reinterpret_cast<uintptr_t>(ptr), Block{it->first, it->second.second, bytes});
    ++stats_.allocations;
    stats_.live_bytes += it->first;
    stats_.peak_live_bytes = std::max(stats_.peak_live_bytes, stats_.live_bytes);
    ++stats_.live_blocks;
    ++stats_.cache_hits;
    UncacheLocked(it);
    PublishLocked();
    return ptr;
  }
  auto over = [&] {
    return size > stats_.capacity || stats_.reserved_bytes > stats_.capacity - size;
  };
  if (over()) TrimLocked();
  if (over()) {
    return Error(code::kRtMemoryAllocation, "device ", device_id_,
                 " memory pool exhausted: ", bytes, " bytes requested, ", stats_.live_bytes, " of ",
                 stats_.capacity,
                 " bytes in use (raise KILN_DEVICE_MEMORY_LIMIT or acl.json "
                 "kiln.device_memory_limit, or free memory first)");
  }
  auto ptr = allocator_.Allocate(size, kAlignment, huge_pages);
  if (!ptr.ok()) {
    Status status = ptr.status();
    return std::move(status).Annotate(StrCat("device ", device_id_));
  }
  try {
    live_.emplace(reinterpret_cast<uintptr_t>(*ptr), Block{size, huge_pages, bytes});
  } catch (...) {  // out of memory for the node: the block goes back, nothing changed
    allocator_.Free(*ptr, size);
    throw;
  }
  ++stats_.allocations;
  stats_.live_bytes += size;
  stats_.peak_live_bytes = std::max(stats_.peak_live_bytes, stats_.live_bytes);
  stats_.reserved_bytes += size;
  ++stats_.live_blocks;
  PublishLocked();
  return *ptr;
}

Status MemoryPool::Free(void* ptr) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = live_.find(reinterpret_cast<uintptr_t>(ptr));
  if (it == live_.end()) {
    return Error(code::kInvalidParam, "address ", PtrStr(ptr),
                 " is not the start of a live allocation on device ", device_id_);
  }
  const Block block = it->second;
  stats_.live_bytes -= block.size;
  --stats_.live_blocks;
  live_.erase(it);
  if (!CacheLocked(ptr, block.size, block.huge)) {
    allocator_.Free(ptr, block.size);  // no memory to remember it: it goes back to the device
    stats_.reserved_bytes -= block.size;
  }
  BoundCacheLocked();
  PublishLocked();
  return Status::Ok();
}

bool MemoryPool::CacheLocked(void* ptr, size_t size, bool huge) noexcept {
  try {
    auto by_size = cached_.emplace(size, std::make_pair(ptr, huge));
    try {
      cached_by_address_.emplace(reinterpret_cast<uintptr_t>(ptr), size);
    } catch (...) {
      cached_.erase(by_size);
      throw;
    }
  } catch (...) {
    return false;
  }
  cached_bytes_ += size;
  return true;
}

void MemoryPool::UncacheLocked(std::multimap<size_t, std::pair<void*, bool>>::iterator it) {
  cached_by_address_.erase(reinterpret_cast<uintptr_t>(it->second.first));
  cached_bytes_ -= it->first;
  cached_.erase(it);
}

void MemoryPool::BoundCacheLocked() {
  const uint64_t bound = std::max(cache_floor_, stats_.peak_live_bytes);
  while (cached_bytes_ > bound && !cached_.empty()) {
    auto largest = std::prev(cached_.end());
    allocator_.Free(largest->second.first, largest->first);
    stats_.reserved_bytes -= largest->first;
    UncacheLocked(largest);
  }
}

void MemoryPool::Trim() {
  std::lock_guard<std::mutex> lock(mu_);
  TrimLocked();
}

void MemoryPool::TrimLocked() {
  for (auto& [size, block] : cached_) {
    allocator_.Free(block.first, size);
    stats_.reserved_bytes -= size;
  }
  cached_.clear();
  cached_by_address_.clear();
  cached_bytes_ = 0;
  PublishLocked();
}

size_t MemoryPool::BytesFrom(const void* ptr) const {
  auto addr = reinterpret_cast<uintptr_t>(ptr);
  std::lock_guard<std::mutex> lock(mu_);
  auto it = live_.upper_bound(addr);
  if (it == live_.begin()) return 0;
  --it;
  uintptr_t end = it->first + it->second.requested;
  return addr < end ? end - addr : 0;
}

bool MemoryPool::WasFreed(const void* ptr) const {
  auto addr = reinterpret_cast<uintptr_t>(ptr);
  std::lock_guard<std::mutex> lock(mu_);
  auto it = cached_by_address_.upper_bound(addr);
  if (it == cached_by_address_.begin()) return false;
  --it;
  return addr < it->first + it->second;
}

void MemoryPool::PublishUsage(std::shared_ptr<UsageSlot> slot) {
  std::lock_guard<std::mutex> lock(mu_);
  usage_ = std::move(slot);
  PublishLocked();
}

PoolStats MemoryPool::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
}

}  // namespace kiln::runtime
