// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "runtime/memory_pool.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <map>

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

TEST(MemoryPoolTest, ZeroBytesIsInvalid) {
  CountingAllocator device;
  MemoryPool pool(device, 0, kMiB);
  EXPECT_EQ(pool.Allocate(0, false).status().code(), code::kInvalidParam);
}

}  // namespace
}  // namespace kiln::runtime
