// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>

#include "base/function_ref.h"
#include "base/status.h"
#include "hal/allocator.h"
#include "hal/event.h"
#include "hal/execution.h"
#include "hal/queue.h"

namespace kiln::hal {

struct DeviceInfo {
  std::string backend;        // "cpu", "cuda"
  std::string name;           // e.g. "cpu-avx512" (what aclrtGetSocName reports)
  uint64_t memory_bytes = 0;  // physical memory the device can address
  int64_t compute_units = 0;  // worker threads / SMs
  int64_t l2_cache_bytes = 0;
  // Whether the host can read and write the device's memory directly (the CPU; not a GPU's
  // cudaMalloc memory). Kernels of a device without it never fall back to the host reference
  // kernels: a model needing one is refused at load (kernels/registry.h).
  bool host_addressable = true;
};

// Ordinary host memory, 64-byte aligned (what Device::AllocateHost gives by default, and the
// runtime when no device is current). Fails with kRtMemoryAllocation.
inline Result<void*> AllocateHostMemory(size_t bytes) {
  void* ptr = std::aligned_alloc(64, (bytes + 63) / 64 * 64);
  if (ptr == nullptr) {
    return Error(code::kRtMemoryAllocation, "the host could not provide ", bytes, " bytes");
  }
  return ptr;
}
inline void FreeHostMemory(void* ptr) { std::free(ptr); }

// One opened device. Thread-safe.
class Device {
 public:
  virtual ~Device() = default;
  virtual const DeviceInfo& info() const = 0;
  virtual Allocator& allocator() = 0;
  virtual std::shared_ptr<Queue> CreateQueue() = 0;
  virtual std::shared_ptr<Event> CreateEvent() = 0;
  // Nanoseconds of compute time spent so far summed over units (for utilisation).
  virtual uint64_t busy_ns() const = 0;

  // A new execution slot: where one model execution at a time runs its kernels (execution.h).
  // The default runs everything on the calling thread.
  virtual std::unique_ptr<Execution> CreateExecution() { return std::make_unique<Execution>(); }

  // Runs a model's load-time work (its kernels prepared, weights packed) as the device wants it
  // run and returns its status; the default runs it on the calling thread.
  virtual Status RunPreparation(FunctionRef<Status()> prepare) { return prepare(); }
  // Inside RunPreparation: calls task(i) once for every i in [0, n) — independent pieces of the
  // load, such as one node's kernel each — on as many of the device's threads as it likes, in
  // any order, and returns when all are done. `task` must not throw. The default runs them in
  // order on the calling thread.
  virtual void ForEachPreparation(size_t n, FunctionRef<void(size_t)> task) {
    for (size_t i = 0; i < n; ++i) task(i);
  }

  // Measures the device's float32 arithmetic peak in GFLOP/s on all its compute units (the
  // profiler's "% of peak" divides by it). Takes a fraction of a second and keeps the device
  // busy meanwhile, so callers cache the result. 0 when the device cannot tell.
  virtual double PeakGflops() { return 0; }

  // Host memory for aclrtMallocHost while this device is current, in blocks of at least 64-byte
  // alignment: page-locked where the device copies faster from it (CUDA). The default is
  // ordinary memory. Fails with kRtMemoryAllocation.
  virtual Result<void*> AllocateHost(size_t bytes) { return AllocateHostMemory(bytes); }
  // Returns memory from AllocateHost.
  virtual void FreeHost(void* ptr) { FreeHostMemory(ptr); }
};

}  // namespace kiln::hal
