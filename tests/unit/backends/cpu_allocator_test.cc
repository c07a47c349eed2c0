// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "backends/cpu/cpu_allocator.h"

#include "backends/cpu/kernels/dnnl_common.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

namespace kiln::cpu {
namespace {

constexpr size_t kHuge = size_t{2} << 20;

// The VmFlags line of the mapping of /proc/self/smaps that holds `p` ("" when none does).
std::string VmFlagsAt(const void* p) {
  const auto at = reinterpret_cast<uintptr_t>(p);
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    uintptr_t begin = 0, end = 0;
    char dash = 0;
    std::istringstream head(line);
    if (head >> std::hex >> begin >> dash >> end && dash == '-') {
      inside = begin <= at && at < end;
    } else if (inside && line.rfind("VmFlags:", 0) == 0) {
      return line;
    }
  }
  return "";
}

TEST(AllocateAlignedTest, SmallBlocksKeepTheAskedAlignment) {
  void* p = AllocateAligned(1000, 64, /*huge_pages=*/true);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 64, 0u);
  std::memset(p, 1, 1000);
  std::free(p);
}

// From 2 MiB on, a block asked with huge pages starts on a huge page and its mapping is advised
// onto transparent huge pages (VmFlags "hg"), so a kernel that has them backs it with 2 MiB
// pages: one page fault where 512 were.
TEST(AllocateAlignedTest, LargeBlocksAreHugePageAlignedAndAdvised) {
  const size_t bytes = 5 * kHuge + 123;
  void* p = AllocateAligned(bytes, 64, /*huge_pages=*/true);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % kHuge, 0u);
  std::memset(p, 1, bytes);
  const std::string flags = VmFlagsAt(p);
  if (!std::filesystem::exists("/sys/kernel/mm/transparent_hugepage")) {
    std::free(p);
    GTEST_SKIP() << "this kernel has no transparent huge pages";
  }
  EXPECT_NE(flags.find(" hg"), std::string::npos) << flags;
  std::free(p);
}

// Small packed weights share slabs of huge pages: one piece after another, each 64-byte aligned,
// in a mapping advised onto transparent huge pages, where each used to take 4 KiB pages of its
// own.
TEST(AllocateOnHugePagesTest, SmallPiecesFollowOneAnotherOnAdvisedHugePages) {
  auto a = AllocateOnHugePages(1000);
  auto b = AllocateOnHugePages(3000);
  auto c = AllocateOnHugePages(1);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  ASSERT_NE(c, nullptr);
  for (const auto& p : {a, b, c}) EXPECT_EQ(reinterpret_cast<uintptr_t>(p.get()) % 64, 0u);
  // A new slab may open once between them, not twice.
  EXPECT_TRUE(b.get() == a.get() + 1024 || c.get() == b.get() + 3008);
  std::memset(a.get(), 1, 1000);
  std::memset(b.get(), 2, 3000);
  std::memset(c.get(), 3, 1);
  if (!std::filesystem::exists("/sys/kernel/mm/transparent_hugepage")) {
    GTEST_SKIP() << "this kernel has no transparent huge pages";
  }
  EXPECT_NE(VmFlagsAt(b.get()).find(" hg"), std::string::npos) << VmFlagsAt(b.get());
}

// A slab lives as long as one of its pieces: after the slabs that follow it were filled and let
// go, a piece of an earlier one is still the caller's to write (a slab is a mapping of its own:
// writing into one unmapped would fault).
TEST(AllocateOnHugePagesTest, APieceKeepsItsSlabAlive) {
  auto first = AllocateOnHugePages(256);
  ASSERT_NE(first, nullptr);
  for (int i = 0; i < 12; ++i) {  // 36 MiB in pieces of 3 MiB: two new slabs at least
    auto piece = AllocateOnHugePages(size_t{3} << 20);
    ASSERT_NE(piece, nullptr);
    EXPECT_FALSE(first.get() <= piece.get() && piece.get() < first.get() + 256);
    std::memset(piece.get(), 4, size_t{3} << 20);
  }
  std::memset(first.get(), 5, 256);
  EXPECT_EQ(first.get()[255], 5);
}

// From 4 MiB on a piece is a block of its own, starting on a huge page.
TEST(AllocateOnHugePagesTest, LargePiecesAreBlocksOfTheirOwn) {
  const size_t bytes = 5 * kHuge + 7;
  auto p = AllocateOnHugePages(bytes);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p.get()) % kHuge, 0u);
  std::memset(p.get(), 6, bytes);
  EXPECT_EQ(AllocateOnHugePages(SIZE_MAX - 10), nullptr);
}

bool HasThp() { return std::filesystem::exists("/sys/kernel/mm/transparent_hugepage"); }

// A kernel's per-run buffers: the dense pieces (reordered activations, written whole every run)
// on huge pages from 2 MiB on; the scratchpad on small pages, until its runs have touched enough
// of it that huge pages would at most double what is resident. Each case on a thread of its own:
// the arenas are the thread's.
TEST(DnnlRunBuffersTest, DensePiecesAreOnHugePagesTheScratchpadNotAtFirst) {
  if (!HasThp()) GTEST_SKIP() << "this kernel has no transparent huge pages";
  std::thread([] {
    DnnlRun run;
    run.Buffers({3 * kHuge, 0, 3 * kHuge}, 2);
    ASSERT_NE(run.buffer(0), nullptr);
    EXPECT_EQ(run.buffer(1), nullptr);
    ASSERT_NE(run.buffer(2), nullptr);
    std::memset(run.buffer(0), 1, 3 * kHuge);
    std::memset(run.buffer(2), 1, 3 * kHuge);
    EXPECT_NE(VmFlagsAt(run.buffer(0)).find(" hg"), std::string::npos);
    EXPECT_EQ(VmFlagsAt(run.buffer(2)).find(" hg"), std::string::npos);
  }).join();
}

TEST(DnnlRunBuffersTest, AScratchpadRunsTouchWholeMovesOntoHugePages) {
  if (!HasThp()) GTEST_SKIP() << "this kernel has no transparent huge pages";
  std::thread([] {
    DnnlRun run;
    for (int i = 0; i < 600; ++i) {
      run.Buffers({0, 3 * kHuge}, 1);
      std::memset(run.buffer(1), i, 3 * kHuge);
    }
    EXPECT_NE(VmFlagsAt(run.buffer(1)).find(" hg"), std::string::npos);
  }).join();
}

TEST(DnnlRunBuffersTest, AScratchpadRunsTouchInPartStaysOnSmallPages) {
  if (!HasThp()) GTEST_SKIP() << "this kernel has no transparent huge pages";
  std::thread([] {
    DnnlRun run;
    for (int i = 0; i < 600; ++i) {
      run.Buffers({0, 3 * kHuge}, 1);
      auto* s = static_cast<uint8_t*>(run.buffer(1));
      for (size_t at = 0; at < 3 * kHuge; at += kHuge / 2) s[at] = 1;  // 1 page in 128
    }
    EXPECT_EQ(VmFlagsAt(run.buffer(1)).find(" hg"), std::string::npos);
  }).join();
}

TEST(AllocateAlignedTest, AnImpossibleSizeIsNullNotACrash) {
  EXPECT_EQ(AllocateAligned(SIZE_MAX - 10, 64, true), nullptr);
  EXPECT_EQ(AllocateAligned(SIZE_MAX - 10, 64, false), nullptr);
  CpuAllocator allocator;
  auto r = allocator.Allocate(SIZE_MAX - 10, 64, true);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("larger than any device"), std::string::npos);
}

}  // namespace
}  // namespace kiln::cpu
