// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The null backend: a trivial HAL implementation that is not the CPU backend, for tests
// (docs/design.md §1). Device memory is host memory; a queue runs each piece of work at once
// on the calling thread (a degenerate but valid in-order queue: every call takes effect after
// the work submitted before it); events complete when recorded. It registers no kernels, so
// models loaded on it run the reference kernels through the same loader and executor as any
// device, with its Execution counting the runs and the parallel loops it served.
#pragma once

#include <atomic>
#include <memory>
#include <string>

#include "hal/driver.h"

namespace kiln::hal::testing {

// What the null devices saw, across all of them.
struct NullCounters {
  std::atomic<int64_t> executions{0};     // Execution::Begin calls
  std::atomic<int64_t> parallel_fors{0};  // ParallelFor calls by kernels
  std::atomic<int64_t> allocations{0};    // Allocator::Allocate calls
  // The guarded device's recordings (guarded_memory.h GuardedRecorder): recordings begun, runs
  // recorded and kept, replays launched. `record` false: it declines to begin one; `keep` false:
  // it discards each at its end (as a device does whose capture some call broke).
  std::atomic<int64_t> recording_attempts{0};
  std::atomic<int64_t> recordings{0};
  std::atomic<int64_t> replays{0};
  std::atomic<bool> record{true};
  std::atomic<bool> keep{true};
  std::atomic<int64_t> synchronizes{0};  // Execution::Synchronize calls (the profiler's waits)
};
NullCounters& Counters();

// A driver named "null" with `devices` devices.
std::unique_ptr<Driver> CreateNullDriver(int devices = 1);

// A driver named "guarded" with one device whose memory the host cannot touch (guarded_memory.h:
// host_addressable false, every block PROT_NONE outside copies and kernel runs); registers the
// "guarded" kernels (the reference kernels, wrapped) on first use.
std::unique_ptr<Driver> CreateGuardedDriver();

// A driver with one device that says it is of backend `backend` and named `device_name` (the
// target the loader checks an .om against), over guarded memory: to check at load which models
// that backend's kernels take, on a machine without its hardware. Its kernels must never run
// (their memory is the host's, guarded): load and unload only.
std::unique_ptr<Driver> CreateStandInDriver(const std::string& backend,
                                            const std::string& device_name);

}  // namespace kiln::hal::testing
