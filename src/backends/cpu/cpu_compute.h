// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The CPU device's compute team: how kernels running on the CPU split their work over cores.
//
// oneDNN (Debian's build) parallelises with OpenMP, on a team that belongs to the thread that
// calls it; its idle workers spin before they sleep. A second pool of busy threads for Kiln's
// own kernels would fight that team for the same cores, so Kiln's kernels run their
// ParallelFor on the same OpenMP team: one set of compute threads per executing thread.
// Concurrent executions (several streams, several application threads) share the cores: each
// execution's team is sized to threads / executions running at that moment.
#pragma once

#include <cstdint>
#include <functional>

#include "base/function_ref.h"

namespace kiln::cpu {

// The threads one execution may use when it runs alone: KILN_CPU_THREADS (default: the cores
// this process may use), capped by OMP_NUM_THREADS when that is set.
int ComputeThreads();

// The least work (a kernel's operations plus the bytes it moves, weighed as below:
// kernels::EstimateWork, hal::Execution::BeforeKernel) worth a parallel region:
// KILN_CPU_PARALLEL_MIN_WORK, default kDefaultParallelMinWork. Waking a sleeping
// team (spin_governor.h) costs tens of microseconds on a 2-core VM, about what one core computes of
// 2-4 MFLOP; measured on mnist-8 with 2 threads on an idle machine: 86 us per execute at 1 Mi (its
// second convolution, 1.25 MFLOP, went parallel), 28 us at 2-8 Mi. 2 Mi rather than 4: on the
// Zen 4 VM (2026-12-07, the same library with KILN_CPU_PARALLEL_MIN_WORK 4 Mi against 2 Mi,
// interleaved blocks) PP-OCR's text classifier took 0.89x the time, YuNet 0.95x, YOLOv8n 0.97x,
// SqueezeNet and ShuffleNet 0.98x, mnist-8, MobileNetV2 and PP-OCRv4 rec 1.00x: convolutions
// whose work the estimate puts under 4 Mi (few output channels, which oneDNN pads to a vector:
// YuNet's 64 -> 1 at 40x40 took 33 us alone, 16 on two threads) gain from the second core.
// Bytes count because memory-bound work gains from a second core too: MobileNetV2's classifier
// (1x1280 by 1280x1000, 2.6 MFLOP over 5 MB of weights) took 423 us on one thread, 227 on two
// (Zen 4 VM, 2026-12-06), once its weights counted.
inline constexpr uint64_t kDefaultParallelMinWork = 1 << 21;
uint64_t ParallelMinWork();
// The threshold now: ParallelMinWork() while idle workers spin, kSleepingParallelFactor times
// it while they sleep (spin_governor.h: the machine is loaded, or KILN_CPU_SPIN=0), when every
// region pays for waking a worker that may also wait for a core. Measured with one core kept
// busy on a 2-core VM: MobileNetV2 9.8 -> 8.3 ms, YOLOv8n 24.7 -> 22.5 ms at 32 Mi instead of 4 Mi
// (idle and spinning, 32 Mi would cost MobileNetV2 5.1 -> 8.3 ms): 16 times the 2 Mi default.
inline constexpr uint64_t kSleepingParallelFactor = 16;
uint64_t ParallelMinWorkNow();

// What a byte moved weighs against an operation while idle workers spin: one core moves a byte
// in about the time it computes 4-8 operations (a channels-last Concat: 27 GB/s against ~100
// GFLOP/s), so a copy, a transpose or an element-wise op of a few hundred KiB is worth the
// second core that a convolution needs MFLOPs for. Measured on the Zen 4 VM against bytes weighed
// as 1 (interleaved A/B, 100 blocks of 4 runs, 2026-12-06), idle: YOLOv8n 0.973x (its 80x80
// channels-last Split, Concat and Add 2-4x faster), MobileNetV2 0.948x (depthwise convolutions
// at 14x14 on two threads), BERT encoder 0.988x, ResNet-50 0.992x, PP-OCRv4 det 0.993x, mnist-8
// unchanged; a weight of 4 gained about half as much, 2 nothing. While workers sleep a byte
// weighs 1, as before (weighing 8 there took MobileNetV2 with one core busy to 1.06x): with one
// core busy YOLOv8n 0.995x, MobileNetV2 1.003x, ResNet-50 0.992x.
inline constexpr uint64_t kSpinningByteWork = 8;

// Whether a kernel of `ops` operations moving `bytes` bytes runs on the team now (while idle
// workers spin: ops + kSpinningByteWork * bytes >= ParallelMinWork(); while they sleep: ops +
// bytes >= ParallelMinWorkNow()), or on the calling thread alone.
bool WorthTeamNow(uint64_t ops, uint64_t bytes);
// The same while idle workers spin, as on an idle machine: for the threads a oneDNN kernel's
// first plan is made for at load.
bool WorthTeamWhenSpinning(uint64_t ops, uint64_t bytes);

// Runs fn(begin, end) over [0, n) in chunks of at least `grain` on the calling thread's
// OpenMP team (the calling thread takes chunks too; chunks are claimed dynamically, so a
// descheduled thread does not hold the others up); returns when every chunk is done. Runs on
// the caller alone when there is one chunk or when called from inside a parallel region.
void TeamParallelFor(int64_t n, int64_t grain, FunctionRef<void(int64_t, int64_t)> fn);

// One model execution on the calling thread, from BeginTeamExecution to EndTeamExecution with
// the value it returned (the thread's previous setting, restored): sizes the thread's OpenMP
// team (which oneDNN and TeamParallelFor use) to ComputeThreads() divided by the executions
// running in the process. ExecutionScope is the same as an object.
int BeginTeamExecution();
void EndTeamExecution(int previous);

class ExecutionScope {
 public:
  ExecutionScope();
  ~ExecutionScope();
  ExecutionScope(const ExecutionScope&) = delete;
  ExecutionScope& operator=(const ExecutionScope&) = delete;

  // The team size this execution got.
  int threads() const { return threads_; }

 private:
  int previous_ = 0;
  int threads_ = 1;
};

// While alive, the calling thread's OpenMP team is `threads` (its previous setting is restored
// after).
class TeamScope {
 public:
  explicit TeamScope(int threads);
  ~TeamScope();
  TeamScope(const TeamScope&) = delete;
  TeamScope& operator=(const TeamScope&) = delete;

 private:
  int previous_ = 0;
};

// A TeamScope of ComputeThreads(). oneDNN sizes a primitive's per-thread work split and scratch
// by the threads at its creation, and a primitive must not run on more threads than it was
// created for, so the CPU kernels create primitives under this scope, whatever team the
// execution has; except where the kernel's work is below ParallelMinWork(), which every
// execution runs on one thread: those primitives are made under TeamScope(1) and so never open
// a parallel region.
class FullTeamScope : public TeamScope {
 public:
  FullTeamScope() : TeamScope(ComputeThreads()) {}
};

}  // namespace kiln::cpu
