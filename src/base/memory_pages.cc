// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "base/memory_pages.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace kiln {

size_t DiscardWholePages(void* data, size_t bytes) {
  static const uintptr_t page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  const uintptr_t begin = reinterpret_cast<uintptr_t>(data);
  if (data == nullptr || bytes < page || begin > UINTPTR_MAX - bytes) return 0;
  const uintptr_t first = (begin + page - 1) / page * page;
  const uintptr_t last = (begin + bytes) / page * page;
  if (last <= first) return 0;
  if (::madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED) != 0) return 0;
  return last - first;
}

Residency ResidentBytes(const void* data, size_t bytes, size_t region) {
  static const uintptr_t page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  const uintptr_t begin = reinterpret_cast<uintptr_t>(data);
  if (data == nullptr || bytes == 0 || region < page || region % page != 0 ||
      bytes > UINTPTR_MAX - region || begin > UINTPTR_MAX - region - bytes) {
    return {};
  }
  const uintptr_t first = begin / page * page;
  const uintptr_t last = (begin + bytes + page - 1) / page * page;
  std::vector<unsigned char> resident((last - first) / page);
  if (::mincore(reinterpret_cast<void*>(first), last - first, resident.data()) != 0) return {};
  Residency r;
  uintptr_t counted_region = UINTPTR_MAX;  // the last region counted in r.regions
  for (size_t i = 0; i < resident.size(); ++i) {
    if ((resident[i] & 1) == 0) continue;
    r.pages += page;
    const uintptr_t at = (first + i * page) / region;
    if (at != counted_region) {
      const uintptr_t lo = std::max<uintptr_t>(at * region, begin);
      const uintptr_t hi = std::min<uintptr_t>((at + 1) * region, begin + bytes);
      r.regions += hi - lo;
      counted_region = at;
    }
  }
  r.pages = std::min(r.pages, bytes);
  return r;
}

}  // namespace kiln
