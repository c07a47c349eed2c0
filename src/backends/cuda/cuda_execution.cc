// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "backends/cuda/cuda_execution.h"

#include "backends/cuda/cuda_status.h"
#include "base/clock.h"
#include "base/log.h"

namespace kiln::cuda {

CudaExecution::CudaExecution(int ordinal, std::atomic<uint64_t>* busy_ns, bool graphs)
    : ordinal_(ordinal), busy_ns_(busy_ns), graphs_(graphs) {
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
  (void)cudaSetDevice(ordinal_);
  if (graph_exec_ != nullptr) (void)cudaGraphExecDestroy(graph_exec_);
  if (stream_ != nullptr) (void)cudaStreamDestroy(stream_);
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
  if (capturing_) {
    broken_ = true;  // the bytes are not there to copy: the recording is discarded
    return;
  }
  if (bytes == 0) return;
  (void)cudaSetDevice(ordinal_);
  Status status =
      CudaStatus(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, stream_), "cudaMemcpyAsync");
  if (status.ok()) {
    status = CudaStatus(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
  }
  if (!status.ok()) KILN_LOG(kRuntime, kError, "GPU ", ordinal_, ": ", status.message());
}

void CudaExecution::Synchronize() {
  if (capturing_) return;
  Status status = CudaStatus(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
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

bool CudaExecution::BeginRecording() {
  if (!graphs_ || stream_ == nullptr) return false;
  Status status = CudaStatus(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal),
                             "cudaStreamBeginCapture");
  if (!status.ok()) {
    (void)cudaGetLastError();
    KILN_LOG(kRuntime, kInfo, "GPU ", ordinal_, ": ", status.message(), "; runs stay plain");
    return false;
  }
  capturing_ = true;
  broken_ = false;
  return true;
}

bool CudaExecution::EndRecording(bool complete) {
  capturing_ = false;
  cudaGraph_t graph = nullptr;
  Status status = CudaStatus(cudaStreamEndCapture(stream_, &graph), "cudaStreamEndCapture");
  bool kept = false;
  if (status.ok() && graph != nullptr && complete && !broken_) kept = Keep(graph);
  if (graph != nullptr) (void)cudaGraphDestroy(graph);
  if (!kept) {
    (void)cudaGetLastError();  // a broken capture leaves its error behind
    KILN_LOG(kRuntime, kInfo, "GPU ", ordinal_, ": a run could not be recorded as a CUDA graph",
             status.ok() ? "" : ": ", status.ok() ? "" : status.message(), "; runs stay plain");
    return false;
  }
  return Launch();
}

bool CudaExecution::Keep(cudaGraph_t graph) {
  if (graph_exec_ != nullptr) {
    cudaGraphExecUpdateResultInfo info{};
    if (cudaGraphExecUpdate(graph_exec_, graph, &info) == cudaSuccess) return true;
    (void)cudaGetLastError();
    // Instantiated again: right, but slower than an update (graphs with memory nodes, the
    // libraries' workspaces, may not update in place; the GPU check's logs say which).
    KILN_LOG(kRuntime, kInfo, "GPU ", ordinal_, ": a CUDA graph could not be updated in place (",
             static_cast<int>(info.result), "); instantiated again");
    (void)cudaGraphExecDestroy(graph_exec_);
    graph_exec_ = nullptr;
  }
  Status status = CudaStatus(cudaGraphInstantiate(&graph_exec_, graph, 0), "cudaGraphInstantiate");
  if (!status.ok()) {
    graph_exec_ = nullptr;
    KILN_LOG(kRuntime, kWarning, "GPU ", ordinal_, ": ", status.message());
    return false;
  }
  return true;
}

bool CudaExecution::Replay() { return graph_exec_ != nullptr && Launch(); }

bool CudaExecution::Launch() {
  Status status = CudaStatus(cudaGraphLaunch(graph_exec_, stream_), "cudaGraphLaunch");
  if (status.ok()) return true;
  // The plain run that follows must not inherit the error, nor a later run this graph.
  (void)cudaGetLastError();
  (void)cudaGraphExecDestroy(graph_exec_);
  graph_exec_ = nullptr;
  KILN_LOG(kRuntime, kError, "GPU ", ordinal_, ": ", status.message(), "; the graph is dropped");
  return false;
}

}  // namespace kiln::cuda
