// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The CPU device's streams share one compute pool: however many streams have work, no more
// tasks run at once than the pool has workers (KILN_CPU_THREADS), and streams do run in
// parallel up to that number.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <thread>
#include <vector>

#include "acl/acl.h"

namespace {

std::atomic<int> g_running{0};
std::atomic<int> g_peak{0};

void BusyTask(void*) {
  int now = g_running.fetch_add(1) + 1;
  int peak = g_peak.load();
  while (now > peak && !g_peak.compare_exchange_weak(peak, now)) {
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(2));
  g_running.fetch_sub(1);
}

int PeakConcurrency(const char* threads, int streams, int tasks_per_stream) {
  setenv("KILN_CPU_THREADS", threads, 1);
  EXPECT_EQ(aclInit(nullptr), ACL_SUCCESS);
  EXPECT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  std::vector<aclrtStream> s(streams);
  for (auto& stream : s) EXPECT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  for (int t = 0; t < tasks_per_stream; ++t) {
    for (auto stream : s) EXPECT_EQ(aclrtLaunchHostFunc(stream, BusyTask, nullptr), ACL_SUCCESS);
  }
  for (auto stream : s) {
    EXPECT_EQ(aclrtSynchronizeStreamWithTimeout(stream, 20000), ACL_SUCCESS);
    EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
  }
  EXPECT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
  EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
  unsetenv("KILN_CPU_THREADS");
  return g_peak.load();
}

TEST(SchedulingTest, EightStreamsNeverRunMoreTasksThanTwoWorkers) {
  int peak = PeakConcurrency("2", 8, 10);
  EXPECT_LE(peak, 2);
  EXPECT_EQ(peak, 2);  // and they do use both workers
}

TEST(SchedulingTest, OneWorkerRunsOneTaskAtATime) { EXPECT_EQ(PeakConcurrency("1", 4, 10), 1); }

TEST(SchedulingTest, CapabilityReportsThePoolSize) {
  setenv("KILN_CPU_THREADS", "3", 1);
  ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
  int64_t cores = 0;
  EXPECT_EQ(aclGetDeviceCapability(0, ACL_DEVICE_INFO_AI_CORE_NUM, &cores), ACL_SUCCESS);
  EXPECT_EQ(cores, 3);
  EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
  unsetenv("KILN_CPU_THREADS");
}

}  // namespace
