// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "backends/cuda/cuda_execution.h"

#include "backends/cuda/cuda_status.h"
#include "base/clock.h"
#include "base/log.h"

namespace kiln::cuda {

CudaExecution::CudaExecution(int ordinal, std::atomic<uint64_t>* busy_ns)
    : ordinal_(ordinal), busy_ns_(busy_ns) {
  Status status = CudaStatus(cudaSetDevice(ordinal_), "cudaSetDevice");
  if (status.ok()) {
    status = CudaStatus(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking),
                        "cudaStreamCreateWithFlags");
  }
  if (!status.ok()) {
    stream_ = nullptr;
    KILN_LOG(kRuntime, kWarning, "GPU ", ordinal_, ": ", status.message(),
             "; this execution slot uses the default stream");
  }
}

CudaExecution::~CudaExecution() {
  if (stream_ != nullptr) {
    (void)cudaSetDevice(ordinal_);
    (void)cudaStreamDestroy(stream_);
  }
}

void CudaExecution::Begin() {
  (void)cudaSetDevice(ordinal_);
  begin_ns_ = SteadyNowNs();
}

void CudaExecution::End() {
  Status status = CudaStatus(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
  if (!status.ok()) KILN_LOG(kRuntime, kError, "GPU ", ordinal_, ": ", status.message());
  busy_ns_->fetch_add(SteadyNowNs() - begin_ns_, std::memory_order_relaxed);
}

void CudaExecution::Copy(void* dst, const void* src, size_t bytes) {
  if (bytes == 0) return;
  (void)cudaSetDevice(ordinal_);
  Status status =
      CudaStatus(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, stream_), "cudaMemcpyAsync");
  if (status.ok()) {
    status = CudaStatus(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
  }
  if (!status.ok()) KILN_LOG(kRuntime, kError, "GPU ", ordinal_, ": ", status.message());
}

void* CudaExecution::AllocateTensor(size_t bytes) {
  void* ptr = nullptr;
  Status status = CudaStatus(cudaMallocAsync(&ptr, bytes, stream_), "cudaMallocAsync");
  if (!status.ok()) {
    KILN_LOG(kRuntime, kWarning, "GPU ", ordinal_, ": ", status.message());
    return nullptr;
  }
  return ptr;
}

void CudaExecution::FreeTensor(void* ptr) {
  Status status = CudaStatus(cudaFreeAsync(ptr, stream_), "cudaFreeAsync");
  if (!status.ok()) KILN_LOG(kRuntime, kError, "GPU ", ordinal_, ": ", status.message());
}

}  // namespace kiln::cuda
