// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Guarded memory: device memory the host cannot touch, on the CPU, for testing the runtime's
// device-memory paths without a GPU. Every block is mapped PROT_NONE; it opens (read-write) only
// inside the guarded allocator's Copy and Fill and while a guarded kernel runs, under one lock.
// So a host memcpy, memset or read of device memory anywhere else in the runtime — what would
// crash or read garbage on a GPU — is a segmentation fault here. The null driver's guarded
// device (null_driver.h) allocates from it; its kernels are the reference kernels wrapped to
// open the memory while they run, but not while they are prepared: constants handed to a
// kernel's Prepare must be host memory, as a GPU kernel uploads what it keeps.
#pragma once

#include <functional>

#include "hal/allocator.h"
#include "kernels/registry.h"

namespace kiln::hal::testing {

inline constexpr const char* kGuardedBackend = "guarded";

// The process's guarded memory as a HAL allocator.
Allocator& GuardedAllocator();

// Copies between any mix of guarded and host memory (the guarded device's Execution::Copy).
void GuardedCopy(void* dst, const void* src, size_t bytes);

// Registers, for backend "guarded", every reference kernel wrapped to run with the guarded
// memory open. They are Replayable (kernels/kernel.h) but for the control-flow ones.
void RegisterGuardedKernels(kernels::KernelRegistry& registry);

// A guarded execution that records runs (hal::Execution::BeginRecording) as a CUDA graph
// does: while it records, a guarded kernel is not run; its call is kept with the tensors,
// state and execution it was bound to, and made again — without the executor, on those
// addresses — each time the recording is launched.
class GuardedRecorder {
 public:
  virtual ~GuardedRecorder() = default;
  // Called while the execution records (hal::Execution::recording).
  virtual void Keep(std::function<Status()> call) = 0;
};

}  // namespace kiln::hal::testing
