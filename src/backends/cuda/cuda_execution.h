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
//
// Recording (hal::Execution::BeginRecording; docs/cuda.md decision 7) is a capture of the
// slot's stream into a CUDA graph, in thread-local mode, so only this thread's calls are
// checked. The slot keeps one executable graph: a later recording updates it in place
// (cudaGraphExecUpdate) when the topology allows, else it is instantiated again. A host copy
// asked for while capturing (Copy) is not made and breaks the recording, as does any call that
// would synchronise: the executor then runs the kernels plainly.
class CudaExecution final : public hal::Execution {
 public:
  // `graphs` false (KILN_CUDA_GRAPHS=0): the slot declines to record.
  CudaExecution(int ordinal, std::atomic<uint64_t>* busy_ns, bool graphs);
  ~CudaExecution() override;
  void Begin() override;
  void End() override;
  void* native_queue() const override { return stream_; }
  bool host_addressable() const override { return false; }
  // On the slot's stream, after its kernels; waits for it.
  void Copy(void* dst, const void* src, size_t bytes) override;
  void Synchronize() override;  // cudaStreamSynchronize (nothing while capturing)
  // Stream-ordered (cudaMallocAsync / cudaFreeAsync from the device's default memory pool):
  // no device-wide synchronisation, memory reused within the stream without a round trip.
  void* AllocateTensor(size_t bytes) override;
  void FreeTensor(void* ptr) override;
  bool BeginRecording() override;
  bool EndRecording(bool complete) override;
  bool Replay() override;
  bool recording() const override { return capturing_; }

 private:
  // Makes `graph` the kept executable graph; false when CUDA refuses it.
  bool Keep(cudaGraph_t graph);
  bool Launch();

  int ordinal_;
  std::atomic<uint64_t>* busy_ns_;
  bool graphs_;
  cudaStream_t stream_ = nullptr;  // null (the legacy default stream) if creation failed
  uint64_t begin_ns_ = 0;
  bool capturing_ = false, broken_ = false;
  cudaGraphExec_t graph_exec_ = nullptr;
};

}  // namespace kiln::cuda
