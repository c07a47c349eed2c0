// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "backends/cuda/cuda_allocator.h"

#include <cuda_runtime_api.h>

#include "backends/cuda/cuda_status.h"
#include "base/log.h"

namespace kiln::cuda {

namespace {
constexpr size_t kCudaMallocAlignment = 256;
}  // namespace

Result<void*> CudaAllocator::Allocate(size_t bytes, size_t alignment, bool huge_pages) {
  if (alignment > kCudaMallocAlignment) {
    return Error(code::kRtInvalidMallocType, "GPU ", ordinal_, " cannot align memory to ",
                 alignment, " bytes (cudaMalloc aligns to ", kCudaMallocAlignment, ")");
  }
  KILN_RETURN_IF_ERROR(CudaStatus(cudaSetDevice(ordinal_), "cudaSetDevice"), "");
  void* ptr = nullptr;
  cudaError_t error = cudaMalloc(&ptr, bytes);
  if (error != cudaSuccess) {
    return CudaStatus(error, "cudaMalloc")
        .Annotate(StrCat("GPU ", ordinal_, ", ", bytes, " bytes"));
  }
  return ptr;
}

void CudaAllocator::Free(void* ptr, size_t bytes) {
  if (ptr == nullptr) return;
  (void)cudaSetDevice(ordinal_);
  Status status = CudaStatus(cudaFree(ptr), "cudaFree");
  if (!status.ok()) KILN_LOG(kRuntime, kError, status.message());
}

void CudaAllocator::Copy(void* dst, const void* src, size_t bytes) {
  if (bytes == 0) return;
  (void)cudaSetDevice(ordinal_);
  Status status = CudaStatus(cudaMemcpy(dst, src, bytes, cudaMemcpyDefault), "cudaMemcpy");
  if (!status.ok()) KILN_LOG(kRuntime, kError, status.message());
}

void CudaAllocator::Fill(void* dst, int value, size_t bytes) {
  if (bytes == 0) return;
  (void)cudaSetDevice(ordinal_);
  Status status = CudaStatus(cudaMemset(dst, value, bytes), "cudaMemset");
  if (!status.ok()) KILN_LOG(kRuntime, kError, status.message());
}

}  // namespace kiln::cuda
