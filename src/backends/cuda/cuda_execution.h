// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cuda_runtime_api.h>

#include <atomic>
#include <cstdint>

#include "hal/execution.h"

namespace kiln::cuda {

// One execution slot on a GPU: its own non-blocking CUDA stream, which kernels reach through
// native_queue() (hal/execution.h). Begin makes the GPU current on the executing thread; End
// waits for the stream, so a run's outputs are complete when the run returns, as on the CPU
// (a stream item's GPU work has finished when the item does: cuda_queue.h), and adds the run's
// time to the device's busy time.
class CudaExecution final : public hal::Execution {
 public:
  CudaExecution(int ordinal, std::atomic<uint64_t>* busy_ns);
  ~CudaExecution() override;
  void Begin() override;
  void End() override;
  void* native_queue() const override { return stream_; }
  bool host_addressable() const override { return false; }
  // On the slot's stream, after its kernels; waits for it.
  void Copy(void* dst, const void* src, size_t bytes) override;
  // Stream-ordered (cudaMallocAsync / cudaFreeAsync from the device's default memory pool):
  // no device-wide synchronisation, memory reused within the stream without a round trip.
  void* AllocateTensor(size_t bytes) override;
  void FreeTensor(void* ptr) override;

 private:
  int ordinal_;
  std::atomic<uint64_t>* busy_ns_;
  cudaStream_t stream_ = nullptr;  // null (the legacy default stream) if creation failed
  uint64_t begin_ns_ = 0;
};

}  // namespace kiln::cuda
