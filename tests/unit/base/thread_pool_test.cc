// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "base/thread_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <vector>

namespace kiln {
namespace {

TEST(ThreadPoolTest, RunsEveryScheduledTaskBeforeDestruction) {
  std::atomic<int> count{0};
  {
    ThreadPool pool(2);
    for (int i = 0; i < 1000; ++i) pool.Schedule([&] { count.fetch_add(1); });
  }
  EXPECT_EQ(count.load(), 1000);
}

TEST(ThreadPoolTest, ParallelForCoversTheRangeExactlyOnce) {
  ThreadPool pool(3);
  std::vector<std::atomic<int>> hits(10007);
  pool.ParallelFor(hits.size(), 16, [&](size_t b, size_t e) {
    for (size_t i = b; i < e; ++i) hits[i].fetch_add(1);
  });
  for (size_t i = 0; i < hits.size(); ++i) ASSERT_EQ(hits[i].load(), 1) << i;
}

TEST(ThreadPoolTest, ParallelForFromABusyWorkerDoesNotDeadlock) {
  ThreadPool pool(1);
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  long sum = 0;
  // The only worker calls ParallelFor: it must run the chunks itself.
  pool.Schedule([&] {
    std::atomic<long> local{0};
    pool.ParallelFor(1000, 1, [&](size_t b, size_t e) {
      for (size_t i = b; i < e; ++i) local.fetch_add(static_cast<long>(i));
    });
    std::lock_guard<std::mutex> lock(mu);
    sum = local.load();
    done = true;
    cv.notify_all();
  });
  std::unique_lock<std::mutex> lock(mu);
  ASSERT_TRUE(cv.wait_for(lock, std::chrono::seconds(10), [&] { return done; }));
  EXPECT_EQ(sum, 999L * 1000 / 2);
}

TEST(ThreadPoolTest, CountsBusyTime) {
  ThreadPool pool(1);
  std::atomic<bool> ran{false};
  pool.Schedule([&] {
    auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(5);
    while (std::chrono::steady_clock::now() < until) {
    }
    ran = true;
  });
  while (!ran) std::this_thread::yield();
  // busy_ns is added after the task returns; give the worker a moment.
  for (int i = 0; i < 1000 && pool.busy_ns() == 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  EXPECT_GE(pool.busy_ns(), 5'000'000u);
}

}  // namespace
}  // namespace kiln
