// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The values the C API hands out as handles (aclrtStream, aclDataBuffer*, ...): ids, never object
// addresses. Each is unique in the process and never reused, so a handle kept after its object was
// destroyed can never name a newer object that happens to live at the same address; it is
// reported as stale instead (docs/capi.md, "Handles").
#pragma once

#include <atomic>
#include <cstdint>

namespace kiln {

// A new handle value: 0x4b4c'0000'0000'0010, ...0020, ... ("KL" in the top bytes). It lies outside
// the x86-64 and AArch64 user address space, so it is never an address of this process either: a
// handle passed where memory is expected is refused as "not memory", and one dereferenced by
// mistake faults at once instead of reading some object.
inline const void* NewHandleId() {
  static std::atomic<uint64_t> next{1};
  constexpr uint64_t kBase = 0x4b4c'0000'0000'0000ULL;
  const uint64_t n = next.fetch_add(1, std::memory_order_relaxed);
  return reinterpret_cast<const void*>(kBase + (n << 4));
}

}  // namespace kiln
