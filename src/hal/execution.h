// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Execution: where one model execution's kernels run on a device. The runtime makes one per
// concurrent execution slot (Device::CreateExecution, at most a few per loaded model) and
// brackets every run with Begin/End on the executing thread; kernels reach it through
// KernelContext::exec(). A host device (the CPU) splits loops over the compute threads the
// run may use; a GPU device hands out its stream. Begin, End and ParallelFor never allocate.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "base/function_ref.h"

namespace kiln::hal {

class Execution {
 public:
  virtual ~Execution() = default;
  // One run starts / ends on the calling thread (the device may share its compute threads
  // among the runs in progress). Not reentrant: one run at a time per Execution.
  virtual void Begin() {}
  virtual void End() {}
  // The next kernel's estimated work — its operations and the bytes it reads and writes
  // (kernels::EstimateWork; ops UINT64_MAX when unknown) — so the device can size its
  // parallelism to it: waking a team of threads costs more than a small kernel's whole run.
  // Called before every kernel; must be cheap.
  virtual void BeforeKernel(uint64_t ops, uint64_t bytes) {}
  // Runs fn(begin, end) over [0, n) in chunks of at least `grain` on the threads this run may
  // use, the calling thread included, and returns when every chunk is done. The default, for
  // devices without host compute threads, runs it on the calling thread.
  virtual void ParallelFor(int64_t n, int64_t grain, FunctionRef<void(int64_t, int64_t)> fn) {
    if (n > 0) fn(0, n);
  }
  // The device's native queue for this run (a cudaStream_t on CUDA); null on host devices.
  virtual void* native_queue() const { return nullptr; }
  // Whether the host can read the run's tensors in place (false on a GPU: the executor then
  // reads what it needs, shape inputs of dynamic nodes, through Copy).
  virtual bool host_addressable() const { return true; }
  // Memory for a tensor whose dims are known only at run time (a dynamic shape), given back
  // with FreeTensor once its last reader has run; null when none is left. 64-byte aligned.
  // The default is host memory.
  virtual void* AllocateTensor(size_t bytes) {
    void* p = nullptr;
    return posix_memalign(&p, 64, bytes) == 0 ? p : nullptr;
  }
  virtual void FreeTensor(void* ptr) { std::free(ptr); }
  // Copies `bytes` between any mix of this device's memory and host memory, after the kernels
  // of the run so far; the bytes are in place when it returns. The executor's copies of outputs
  // and body results go through it, so they work where the host cannot address device memory.
  virtual void Copy(void* dst, const void* src, size_t bytes) {
    if (bytes != 0) std::memmove(dst, src, bytes);
  }
  // Returns once the work the run's kernels have enqueued so far is done (a GPU's stream), so
  // that a host clock read next times it: the profiler's per-node times. A host device, whose
  // kernels finish before they return, has nothing to wait for.
  virtual void Synchronize() {}

  // Recording a run for replay (a CUDA graph): launching a recorded run costs one call where a
  // plain run calls every kernel. The executor records only a run that repeats the binding of
  // the run before it — same gear, workspace and caller buffers, every node's dims bound at
  // load, every kernel Replayable (kernels/kernel.h), no observer — and replays it while the
  // binding stays the same. All three are called between Begin and End.
  //
  // BeginRecording: the kernels called next are recorded, not run; false when the device
  // cannot record (the default), and the executor runs the kernels plainly.
  virtual bool BeginRecording() { return false; }
  // Ends the recording begun last. `complete`: every kernel was called and succeeded. Returns
  // true when the recording holds the whole run, replaces the one kept before and has been
  // launched once (the run's results are being computed); false when it was discarded (not
  // complete, or the device could not record some of it), and the executor runs the kernels
  // again plainly.
  virtual bool EndRecording(bool complete) { return false; }
  // Launches the recording kept last; false when there is none or it failed to launch (the
  // executor then runs the kernels plainly).
  virtual bool Replay() { return false; }
  // Whether a recording is in progress: a kernel that keeps per-slot state on the device
  // (tables it plans at its first run of some dims) must not make it now — the memory and
  // copies would belong to the recording — and fails instead, so the run is made plainly.
  virtual bool recording() const { return false; }
};

}  // namespace kiln::hal
