// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "backends/cpu/cpu_allocator.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace kiln::cpu {
namespace {
constexpr size_t kHugePage = size_t{2} << 20;
}

void* AllocateAligned(size_t bytes, size_t alignment, bool huge_pages) {
  const bool huge = huge_pages && bytes >= kHugePage;
  if (huge && alignment < kHugePage) alignment = kHugePage;
  if (bytes > SIZE_MAX - alignment) return nullptr;
  void* ptr = nullptr;
  if (posix_memalign(&ptr, alignment, bytes) != 0) return nullptr;
  // Whole huge pages only: advising the tail too would give a 2.4 MB block two of them, 4 MB
  // resident (a BERT encoder's packed 768x768 weights: peak RSS 0.60 -> 0.72x onnxruntime's).
  if (huge) madvise(ptr, bytes / kHugePage * kHugePage, MADV_HUGEPAGE);  // advice: may fail
  return ptr;
}

Result<void*> CpuAllocator::Allocate(size_t bytes, size_t alignment, bool huge_pages) {
  if (bytes > SIZE_MAX - std::max(alignment, kHugePage)) {
    return Error(code::kRtMemoryAllocation, "size ", bytes, " is larger than any device");
  }
  void* ptr = AllocateAligned(bytes, alignment, huge_pages);
  if (ptr == nullptr) {
    return Error(code::kRtMemoryAllocation, "the host could not provide ", bytes, " bytes");
  }
  return ptr;
}

void CpuAllocator::Free(void* ptr, size_t /*bytes*/) { std::free(ptr); }

void CpuAllocator::Copy(void* dst, const void* src, size_t bytes) {
  if (bytes != 0) std::memmove(dst, src, bytes);
}

void CpuAllocator::Fill(void* dst, int value, size_t bytes) {
  if (bytes != 0) std::memset(dst, value, bytes);
}

}  // namespace kiln::cpu
