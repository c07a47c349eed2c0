// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "base/memory_pages.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>

namespace kiln {
namespace {

constexpr size_t kRegion = size_t{2} << 20;

// A fresh private mapping of `regions` 2 MiB regions, 2 MiB-aligned, none of it touched yet.
class Mapping {
 public:
  explicit Mapping(size_t regions) : bytes_(regions * kRegion) {
    raw_ = ::mmap(nullptr, bytes_ + kRegion, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                  -1, 0);
    if (raw_ == MAP_FAILED) raw_ = nullptr;
    const uintptr_t at = reinterpret_cast<uintptr_t>(raw_);
    data_ = reinterpret_cast<uint8_t*>((at + kRegion - 1) / kRegion * kRegion);
    ::madvise(data_, bytes_, MADV_NOHUGEPAGE);  // count small pages whatever the system's default
  }
  ~Mapping() {
    if (raw_ != nullptr) ::munmap(raw_, bytes_ + kRegion);
  }
  uint8_t* data() const { return raw_ == nullptr ? nullptr : data_; }
  size_t bytes() const { return bytes_; }

 private:
  size_t bytes_;
  void* raw_ = nullptr;
  uint8_t* data_ = nullptr;
};

TEST(ResidentBytesTest, CountsTouchedPagesAndTheRegionsHoldingThem) {
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  Mapping m(4);
  ASSERT_NE(m.data(), nullptr);
  Residency r = ResidentBytes(m.data(), m.bytes(), kRegion);
  EXPECT_EQ(r.pages, 0u);
  EXPECT_EQ(r.regions, 0u);
  // One page in the first region, two in the third: 3 pages, 2 regions.
  m.data()[10] = 1;
  m.data()[2 * kRegion + 5] = 1;
  m.data()[2 * kRegion + page + 5] = 1;
  r = ResidentBytes(m.data(), m.bytes(), kRegion);
  EXPECT_EQ(r.pages, 3 * page);
  EXPECT_EQ(r.regions, 2 * kRegion);
  // A range that starts inside a region counts only its own part of it.
  r = ResidentBytes(m.data() + 2 * kRegion + 1, 2 * kRegion - 1, kRegion);
  EXPECT_EQ(r.pages, 2 * page);
  EXPECT_EQ(r.regions, kRegion - 1);
  // Released pages no longer count.
  EXPECT_EQ(DiscardWholePages(m.data(), kRegion), kRegion);
  r = ResidentBytes(m.data(), m.bytes(), kRegion);
  EXPECT_EQ(r.pages, 2 * page);
  EXPECT_EQ(r.regions, kRegion);
}

TEST(ResidentBytesTest, WhatCannotBeAskedIsZero) {
  const Residency none = ResidentBytes(nullptr, 100, kRegion);
  EXPECT_EQ(none.pages, 0u);
  EXPECT_EQ(none.regions, 0u);
  uint8_t byte = 0;
  EXPECT_EQ(ResidentBytes(&byte, 0, kRegion).pages, 0u);
  EXPECT_EQ(ResidentBytes(&byte, 1, 1000).pages, 0u);            // not a multiple of the page size
  EXPECT_EQ(ResidentBytes(&byte, SIZE_MAX, kRegion).pages, 0u);  // past the address space
}

}  // namespace
}  // namespace kiln
