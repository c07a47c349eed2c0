// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "hal/allocator.h"
#include "hal/event.h"
#include "hal/queue.h"

namespace kiln::hal {

struct DeviceInfo {
  std::string backend;        // "cpu", "cuda"
  std::string name;           // e.g. "cpu-avx512" (what aclrtGetSocName reports)
  uint64_t memory_bytes = 0;  // physical memory the device can address
  int64_t compute_units = 0;  // worker threads / SMs
  int64_t l2_cache_bytes = 0;
};

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

  // Host-side compute of a device whose kernels run on the host (the CPU device); the defaults
  // run on the calling thread alone.
  //
  // Runs fn(begin, end) over [0, n) in chunks of at least `grain` on the device's compute
  // threads, the calling thread included; returns when every chunk is done.
  virtual void ParallelFor(int64_t n, int64_t grain,
                           const std::function<void(int64_t, int64_t)>& fn) {
    if (n > 0) fn(0, n);
  }
  // Mark one model execution on the calling thread, from BeginExecution to EndExecution with
  // the token it returned, so the device can share its compute threads among the executions
  // running at once. Called on every run: no allocation.
  virtual int64_t BeginExecution() { return 0; }
  virtual void EndExecution(int64_t token) {}

  // Measures the device's float32 arithmetic peak in GFLOP/s on all its compute units (the
  // profiler's "% of peak" divides by it). Takes a fraction of a second and keeps the device
  // busy meanwhile, so callers cache the result. 0 when the device cannot tell.
  virtual double PeakGflops() { return 0; }
};

}  // namespace kiln::hal
