// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "hal/allocator.h"

namespace kiln::cuda {

// Device memory of one GPU: cudaMalloc / cudaFree (the runtime's caching pool sits on top and
// keeps them off the hot path). Copy and Fill are cudaMemcpy (cudaMemcpyDefault: unified
// addressing tells host from device pointers, so every aclrtMemcpyKind is one call) and
// cudaMemset, synchronous. Each call makes the device current on the calling thread first.
class CudaAllocator final : public hal::Allocator {
 public:
  explicit CudaAllocator(int ordinal) : ordinal_(ordinal) {}
  // cudaMalloc aligns to 256 bytes; larger alignments (never asked for by the pool) are refused.
  Result<void*> Allocate(size_t bytes, size_t alignment, bool huge_pages) override;
  void Free(void* ptr, size_t bytes) override;
  void Copy(void* dst, const void* src, size_t bytes) override;
  void Fill(void* dst, int value, size_t bytes) override;

 private:
  int ordinal_;
};

}  // namespace kiln::cuda
