// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// A fixed pool of worker threads: the CPU device's one compute pool (docs/design.md §4). Streams
// run their tasks on it and kernels split loops over it, so the process never runs more busy
// threads than the pool has workers.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace kiln {

// Round `iteration` of a spin-wait loop: a CPU pause, and now and then a yield.
void SpinPause(int iteration);
// Pauses an idle worker (or a synchronising caller) spins before it sleeps: work that arrives
// within a few microseconds is then picked up without a futex wake-up.
inline constexpr int kSpinBeforeSleep = 2000;

class ThreadPool {
 public:
  // Starts `threads` workers (at least one).
  explicit ThreadPool(size_t threads);
  // Runs every task already scheduled, then joins the workers.
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  size_t size() const { return workers_.size(); }

  // Queues `task` to run once on some worker; when the queue cannot take it (out of memory), runs
  // it on the calling thread instead, so no task is ever lost. Thread-safe.
  void Schedule(std::function<void()> task);

  // Calls fn(begin, end) over [0, n) in chunks of at least `grain`. The caller runs chunks too,
  // and idle workers help, so it never waits on a busy pool (no deadlock when called from a
  // worker). Returns when every chunk is done.
  void ParallelFor(size_t n, size_t grain, const std::function<void(size_t, size_t)>& fn);

  // Nanoseconds workers have spent running tasks since start (for utilisation figures).
  uint64_t busy_ns() const { return busy_ns_.load(std::memory_order_relaxed); }

 private:
  void WorkerLoop();

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> tasks_;
  std::atomic<size_t> queued_{0};  // tasks_.size(), readable without the lock
  bool stopping_ = false;
  std::atomic<uint64_t> busy_ns_{0};
  std::vector<std::thread> workers_;
};

}  // namespace kiln
