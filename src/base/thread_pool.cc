// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "base/thread_pool.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <new>

namespace kiln {

ThreadPool::ThreadPool(size_t threads) {
  threads = std::max<size_t>(threads, 1);
  workers_.reserve(threads);
  for (size_t i = 0; i < threads; ++i) workers_.emplace_back([this] { WorkerLoop(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  for (auto& worker : workers_) worker.join();
}

void SpinPause(int iteration) {
  // Every 64th round gives the core away: when the cores are oversubscribed, the thread being
  // waited for may be runnable on this very core.
  if ((iteration & 63) == 63) {
    std::this_thread::yield();
    return;
  }
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#else
  std::this_thread::yield();
#endif
}

void ThreadPool::Schedule(std::function<void()> task) {
  try {
    std::lock_guard<std::mutex> lock(mu_);
    tasks_.push_back(std::move(task));  // strong guarantee: `task` is intact if this throws
    queued_.fetch_add(1, std::memory_order_release);
  } catch (const std::bad_alloc&) {
    // No memory for the queue's node: run the task here rather than lose it (a stream whose
    // drain is lost would never finish).
    task();
    return;
  }
  cv_.notify_one();
}

void ThreadPool::WorkerLoop() {
  for (;;) {
    std::function<void()> task;
    for (int spin = 0; spin < kSpinBeforeSleep && queued_.load(std::memory_order_acquire) == 0;
         ++spin) {
      SpinPause(spin);
    }
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [this] { return stopping_ || !tasks_.empty(); });
      if (tasks_.empty()) return;  // stopping and drained
      task = std::move(tasks_.front());
      tasks_.pop_front();
      queued_.fetch_sub(1, std::memory_order_relaxed);
    }
    auto start = std::chrono::steady_clock::now();
    task();
    auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                  std::chrono::steady_clock::now() - start)
                  .count();
    busy_ns_.fetch_add(static_cast<uint64_t>(ns), std::memory_order_relaxed);
  }
}

void ThreadPool::ParallelFor(size_t n, size_t grain,
                             const std::function<void(size_t, size_t)>& fn) {
  if (n == 0) return;
  grain = std::max<size_t>(grain, 1);
  size_t chunks = std::min((n + grain - 1) / grain, size() * 4);
  if (chunks <= 1) {
    fn(0, n);
    return;
  }
  size_t chunk = (n + chunks - 1) / chunks;
  struct Shared {
    std::atomic<size_t> next{0};
    std::atomic<size_t> done{0};
    std::mutex mu;
    std::condition_variable cv;
  };
  auto shared = std::make_shared<Shared>();
  // Claims and runs chunks until none is left; safe to call from any thread.
  auto run_chunks = [shared, chunks, chunk, n, &fn] {
    for (size_t c; (c = shared->next.fetch_add(1)) < chunks;) {
      fn(c * chunk, std::min(n, (c + 1) * chunk));
      if (shared->done.fetch_add(1) + 1 == chunks) {
        std::lock_guard<std::mutex> lock(shared->mu);
        shared->cv.notify_all();
      }
    }
  };
  // Helpers hold `fn` by reference, so they only touch it while chunks remain, and the caller
  // does not return before every claimed chunk has finished.
  size_t helpers = std::min(size(), chunks - 1);
  for (size_t i = 0; i < helpers; ++i) Schedule(run_chunks);
  run_chunks();
  std::unique_lock<std::mutex> lock(shared->mu);
  shared->cv.wait(lock, [&] { return shared->done.load() == chunks; });
}

}  // namespace kiln
