// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "backends/cpu/cpu_compute.h"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "backends/cpu/cpu_driver.h"
#include "backends/cpu/spin_governor.h"
#include "base/env.h"

namespace kiln::cpu {
namespace {

std::atomic<int> g_executions{0};

}  // namespace

int ComputeThreads() {
  static const int threads = [] {
    int n = static_cast<int>(ComputePool().size());
    const std::string omp = env::Get("OMP_NUM_THREADS");
    if (!omp.empty()) {
      const int cap = std::atoi(omp.c_str());  // "4" or the first level of "4,2"
      if (cap >= 1) n = std::min(n, cap);
    }
    return std::max(n, 1);
  }();
  return threads;
}

void TeamParallelFor(int64_t n, int64_t grain, FunctionRef<void(int64_t, int64_t)> fn) {
  if (n <= 0) return;
  grain = std::max<int64_t>(grain, 1);
  const int64_t team = omp_in_parallel() ? 1 : omp_get_max_threads();
  // A few chunks per thread, so a thread that falls behind is caught up by the others.
  const int64_t chunks = std::min((n + grain - 1) / grain, team * 4);
  if (team <= 1 || chunks <= 1) {
    fn(0, n);
    return;
  }
  const int64_t chunk = (n + chunks - 1) / chunks;
#if defined(__SANITIZE_THREAD__)
  // ThreadSanitizer does not see libgomp's synchronisation (it is not instrumented); the
  // compute pool's ParallelFor is, so TSan builds check the kernels' chunking there.
  ComputePool().ParallelFor(static_cast<size_t>(chunks), 1, [&](size_t begin, size_t end) {
    for (size_t c = begin; c < end; ++c) {
      fn(static_cast<int64_t>(c) * chunk, std::min(n, static_cast<int64_t>(c + 1) * chunk));
    }
  });
#else
  std::atomic<int64_t> next{0};
#pragma omp parallel num_threads(static_cast <int>(std::min(team, chunks)))
  {
    for (int64_t c; (c = next.fetch_add(1, std::memory_order_relaxed)) < chunks;) {
      fn(c * chunk, std::min(n, (c + 1) * chunk));
    }
  }
#endif
}

uint64_t ParallelMinWork() {
  static const uint64_t work = [] {
    const std::string v = env::Get("KILN_CPU_PARALLEL_MIN_WORK");
    if (v.empty()) return kDefaultParallelMinWork;
    char* end = nullptr;
    const unsigned long long n = std::strtoull(v.c_str(), &end, 10);
    return end != v.c_str() && *end == '\0' ? static_cast<uint64_t>(n) : kDefaultParallelMinWork;
  }();
  return work;
}

uint64_t ParallelMinWorkNow() {
  const uint64_t work = ParallelMinWork();
  return OpenMpSpinningThrottled() && work <= UINT64_MAX / kSleepingParallelFactor
             ? work * kSleepingParallelFactor
             : work;
}

namespace {
// a + factor * b, saturating.
uint64_t Weighed(uint64_t a, uint64_t factor, uint64_t b) {
  if (b > (UINT64_MAX - a) / factor) return UINT64_MAX;
  return a + factor * b;
}
}  // namespace

bool WorthTeamWhenSpinning(uint64_t ops, uint64_t bytes) {
  return Weighed(ops, kSpinningByteWork, bytes) >= ParallelMinWork();
}

bool WorthTeamNow(uint64_t ops, uint64_t bytes) {
  if (!OpenMpSpinningThrottled()) return WorthTeamWhenSpinning(ops, bytes);
  return Weighed(ops, 1, bytes) >= ParallelMinWorkNow();
}

int BeginTeamExecution() {
  const int previous = omp_get_max_threads();
  const int running = g_executions.fetch_add(1, std::memory_order_relaxed) + 1;
  omp_set_num_threads(std::max(1, ComputeThreads() / running));
  return previous;
}

void EndTeamExecution(int previous) {
  g_executions.fetch_sub(1, std::memory_order_relaxed);
  omp_set_num_threads(previous);
}

ExecutionScope::ExecutionScope()
    : previous_(BeginTeamExecution()), threads_(omp_get_max_threads()) {}

ExecutionScope::~ExecutionScope() { EndTeamExecution(previous_); }

TeamScope::TeamScope(int threads) : previous_(omp_get_max_threads()) {
  omp_set_num_threads(threads);
}

TeamScope::~TeamScope() { omp_set_num_threads(previous_); }

}  // namespace kiln::cpu
