// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "runtime/memory_pool.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <random>
#include <vector>

namespace kiln::runtime {
namespace {

// Counts what reaches the device, so the tests see what the pool caches.
class CountingAllocator : public hal::Allocator {
 public:
  Result<void*> Allocate(size_t bytes, size_t alignment, bool) override {
    void* p = std::aligned_alloc(alignment, (bytes + alignment - 1) / alignment * alignment);
    if (!p) return Error(code::kRtMemoryAllocation, "host");
    ++allocations;
    live[p] = bytes;
    return p;
  }
  void Free(void* ptr, size_t bytes) override {
    EXPECT_EQ(live[ptr], bytes);
    live.erase(ptr);
    ++frees;
    std::free(ptr);
  }
  void Copy(void* d, const void* s, size_t n) override { std::memcpy(d, s, n); }
  void Fill(void* d, int v, size_t n) override { std::memset(d, v, n); }
  int allocations = 0, frees = 0;
  std::map<void*, size_t> live;
};

constexpr uint64_t kMiB = 1 << 20;

TEST(MemoryPoolTest, ReusesAFreedBlockOfTheSameSize) {
  CountingAllocator device;
  MemoryPool pool(device, 0, 64 * kMiB);
  auto a = pool.Allocate(6 * kMiB, false);
  ASSERT_TRUE(a.ok());
  ASSERT_TRUE(pool.Free(*a).ok());
  auto b = pool.Allocate(6 * kMiB - 100, false);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(*b, *a);
  EXPECT_EQ(device.allocations, 1);
  EXPECT_EQ(pool.stats().cache_hits, 1u);
}

TEST(MemoryPoolTest, ReturnsSixtyFourByteAlignedBlocks) {
  CountingAllocator device;
  MemoryPool pool(device, 0, 64 * kMiB);
  for (size_t size : {1u, 33u, 1000u, 70000u}) {
    auto p = pool.Allocate(size, false);
    ASSERT_TRUE(p.ok());
    EXPECT_EQ(reinterpret_cast<uintptr_t>(*p) % 64, 0u);
  }
}

TEST(MemoryPoolTest, ExhaustionFailsCleanlyAndRecovers) {
  CountingAllocator device;
  MemoryPool pool(device, 3, 16 * kMiB);
  auto a = pool.Allocate(10 * kMiB, false);
  ASSERT_TRUE(a.ok());
  auto b = pool.Allocate(10 * kMiB, false);
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.status().code(), code::kRtMemoryAllocation);
  EXPECT_NE(b.status().message().find("device 3"), std::string::npos);
  EXPECT_EQ(pool.stats().live_bytes, 10 * kMiB);
  ASSERT_TRUE(pool.Free(*a).ok());
  EXPECT_TRUE(pool.Allocate(10 * kMiB, false).ok());
}

TEST(MemoryPoolTest, TrimsTheCacheBeforeRefusingARequest) {
  CountingAllocator device;
  MemoryPool pool(device, 0, 16 * kMiB);
  auto a = pool.Allocate(12 * kMiB, false);
  ASSERT_TRUE(a.ok());
  ASSERT_TRUE(pool.Free(*a).ok());          // 12 MiB cached
  auto b = pool.Allocate(8 * kMiB, false);  // 12 MiB block too wasteful; 12 + 8 > 16
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(device.frees, 1);
  EXPECT_LE(pool.stats().reserved_bytes, 16 * kMiB);
}

TEST(MemoryPoolTest, FreeOfAForeignOrInteriorPointerIsAnError) {
  CountingAllocator device;
  MemoryPool pool(device, 0, 16 * kMiB);
  auto a = pool.Allocate(4096, false);
  ASSERT_TRUE(a.ok());
  int local = 0;
  EXPECT_EQ(pool.Free(&local).code(), code::kInvalidParam);
  EXPECT_EQ(pool.Free(static_cast<char*>(*a) + 64).code(), code::kInvalidParam);
  EXPECT_TRUE(pool.Free(*a).ok());
  EXPECT_EQ(pool.Free(*a).code(), code::kInvalidParam);  // double free
}

// The extent of an allocation is what was asked for, not its size class: the class's spare
// bytes are not the caller's. Freed blocks the pool still holds are told apart.
TEST(MemoryPoolTest, BytesFromSeesInteriorPointersOfLiveAllocationsOnly) {
  CountingAllocator device;
  MemoryPool pool(device, 0, 16 * kMiB);
  auto a = pool.Allocate(1000, false);  // one 1024-byte class block
  ASSERT_TRUE(a.ok());
  char* base = static_cast<char*>(*a);
  EXPECT_EQ(pool.BytesFrom(base), 1000u);
  EXPECT_EQ(pool.BytesFrom(base + 999), 1u);
  EXPECT_EQ(pool.BytesFrom(base + 1000), 0u);  // in the block, past the allocation
  EXPECT_FALSE(pool.WasFreed(base));
  ASSERT_TRUE(pool.Free(*a).ok());
  EXPECT_EQ(pool.BytesFrom(base), 0u);
  EXPECT_TRUE(pool.WasFreed(base + 10));
  auto b = pool.Allocate(900, false);  // the cached block, handed out again
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(*b, *a);
  EXPECT_EQ(pool.BytesFrom(base), 900u);
  EXPECT_FALSE(pool.WasFreed(base));
  pool.Trim();
  ASSERT_TRUE(pool.Free(*b).ok());
  pool.Trim();  // returned to the device: no longer known as freed
  EXPECT_FALSE(pool.WasFreed(base));
}

TEST(MemoryPoolTest, DestructionReturnsLeakedAndCachedBlocks) {
  CountingAllocator device;
  {
    MemoryPool pool(device, 0, 64 * kMiB);
    ASSERT_TRUE(pool.Allocate(kMiB, false).ok());  // leaked
    auto b = pool.Allocate(2 * kMiB, false);
    ASSERT_TRUE(b.ok());
    ASSERT_TRUE(pool.Free(*b).ok());  // cached
  }
  EXPECT_TRUE(device.live.empty());
  EXPECT_EQ(device.frees, 2);
}

// Cycling through ever-new sizes does not grow the pool: the cache keeps at most the larger of
// its floor and the peak live bytes, returning its largest blocks to the device beyond that.
TEST(MemoryPoolTest, TheCacheHoldsAtMostItsFloorOrThePeakLiveBytes) {
  CountingAllocator device;
  constexpr uint64_t kFloor = 4 * kMiB;
  MemoryPool pool(device, 0, 1024 * kMiB, nullptr, kFloor);
  std::mt19937 rng(7);
  void* kept = nullptr;  // one block live throughout
  {
    auto p = pool.Allocate(100000, false);
    ASSERT_TRUE(p.ok());
    kept = *p;
  }
  for (int i = 0; i < 300; ++i) {
    const size_t bytes = 1 + rng() % (3 * kMiB);
    auto p = pool.Allocate(bytes, false);
    ASSERT_TRUE(p.ok());
    std::memset(*p, 1, bytes);
    ASSERT_TRUE(pool.Free(*p).ok());
    const PoolStats s = pool.stats();
    ASSERT_LE(s.reserved_bytes - s.live_bytes, std::max(kFloor, s.peak_live_bytes)) << i;
    uint64_t at_device = 0;
    for (const auto& [ptr, n] : device.live) at_device += n;
    ASSERT_EQ(at_device, s.reserved_bytes) << i;
    // What is cached is still known as freed; what went back to the device is not.
    EXPECT_TRUE(device.live.count(*p) ? pool.WasFreed(*p) : !pool.WasFreed(*p)) << i;
  }
  EXPECT_GT(device.frees, 0);  // the bound was reached and enforced
  EXPECT_GT(pool.stats().cache_hits, 0u);
  ASSERT_TRUE(pool.Free(kept).ok());
}

// A steady loop whose live bytes exceed the floor keeps its blocks cached: the bound follows the
// peak, so nothing goes back to the device and every round after the first is a cache hit.
TEST(MemoryPoolTest, ASteadyLoopAboveTheFloorStaysCached) {
  CountingAllocator device;
  MemoryPool pool(device, 0, 1024 * kMiB, nullptr, /*cache_floor=*/kMiB);
  for (int round = 0; round < 5; ++round) {
    std::vector<void*> frame;
    for (size_t mib : {3, 5, 8}) {
      auto p = pool.Allocate(mib * kMiB, false);
      ASSERT_TRUE(p.ok());
      frame.push_back(*p);
    }
    for (void* p : frame) ASSERT_TRUE(pool.Free(p).ok());
  }
  EXPECT_EQ(device.allocations, 3);
  EXPECT_EQ(device.frees, 0);
  EXPECT_EQ(pool.stats().cache_hits, 12u);
}

TEST(MemoryPoolTest, ZeroBytesIsInvalid) {
  CountingAllocator device;
  MemoryPool pool(device, 0, kMiB);
  EXPECT_EQ(pool.Allocate(0, false).status().code(), code::kInvalidParam);
}

}  // namespace
}  // namespace kiln::runtime
