// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The CPU device's compute team: TeamParallelFor covers its range exactly once in chunks of at
// least the grain, runs on a team, runs serially inside a parallel region; ExecutionScope
// shares ComputeThreads() among concurrent executions and restores the thread's setting.
#include "backends/cpu/cpu_compute.h"

#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <future>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace kiln::cpu {
namespace {

using Chunks = std::vector<std::pair<int64_t, int64_t>>;

Chunks RunChunks(int64_t n, int64_t grain, std::vector<int>* team_sizes = nullptr) {
  Chunks chunks;
  std::mutex mu;
  TeamParallelFor(n, grain, [&](int64_t begin, int64_t end) {
    std::lock_guard<std::mutex> lock(mu);
    chunks.emplace_back(begin, end);
    if (team_sizes != nullptr) team_sizes->push_back(omp_get_num_threads());
  });
  std::sort(chunks.begin(), chunks.end());
  return chunks;
}

TEST(CpuComputeTest, CoversTheRangeOnceInChunksOfAtLeastTheGrain) {
  for (int64_t n : {1, 7, 1000, 100003}) {
    for (int64_t grain : {1, 64, 1000, 200000}) {
      Chunks chunks = RunChunks(n, grain);
      ASSERT_FALSE(chunks.empty()) << n << " " << grain;
      int64_t next = 0;
      for (size_t i = 0; i < chunks.size(); ++i) {
        EXPECT_EQ(chunks[i].first, next) << n << " " << grain;
        EXPECT_GT(chunks[i].second, chunks[i].first);
        if (i + 1 < chunks.size()) {
          EXPECT_GE(chunks[i].second - chunks[i].first, grain);
        }
        next = chunks[i].second;
      }
      EXPECT_EQ(next, n);
    }
  }
  EXPECT_TRUE(RunChunks(0, 1).empty());
}

TEST(CpuComputeTest, RunsOnATeamWhenThereAreThreads) {
  if (ComputeThreads() < 2) GTEST_SKIP() << "one compute thread";
  ExecutionScope scope;
  std::vector<int> teams;
  Chunks chunks = RunChunks(1 << 20, 1 << 12, &teams);
  EXPECT_GT(chunks.size(), 1u);
#if !defined(__SANITIZE_THREAD__)  // TSan builds run the chunks on the compute pool instead
  EXPECT_EQ(*std::max_element(teams.begin(), teams.end()), scope.threads());
#endif
}

TEST(CpuComputeTest, RunsOnTheCallerAloneInsideAParallelRegion) {
  std::atomic<int> calls{0};
  std::atomic<int> whole{0};
#pragma omp parallel num_threads(2)
  {
    TeamParallelFor(1 << 16, 1, [&](int64_t begin, int64_t end) {
      calls.fetch_add(1);
      if (begin == 0 && end == (1 << 16)) whole.fetch_add(1);
    });
  }
  EXPECT_EQ(calls.load(), whole.load());
  EXPECT_GE(calls.load(), 1);
}

TEST(CpuComputeTest, ExecutionsShareTheThreadsAndRestoreTheSetting) {
  omp_set_num_threads(3);
  {
    ExecutionScope first;
    EXPECT_EQ(first.threads(), ComputeThreads());
    EXPECT_EQ(omp_get_max_threads(), first.threads());
    // A second execution on another thread while the first runs gets half the threads.
    int second_threads = std::async(std::launch::async, [] {
                           ExecutionScope second;
                           return second.threads();
                         }).get();
    EXPECT_EQ(second_threads, std::max(1, ComputeThreads() / 2));
  }
  EXPECT_EQ(omp_get_max_threads(), 3);
  ExecutionScope alone;  // the others have ended
  EXPECT_EQ(alone.threads(), ComputeThreads());
}

}  // namespace
}  // namespace kiln::cpu
