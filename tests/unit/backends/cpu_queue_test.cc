// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "backends/cpu/cpu_queue.h"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <vector>

#include "hal/host_event.h"
#include "queue_conformance.h"

namespace kiln::cpu {
namespace {

std::shared_ptr<CpuQueue> NewQueue(ThreadPool& pool) { return std::make_shared<CpuQueue>(pool); }

// The queue conformance suite on CPU queues sharing a pool of two workers (a wait on an event
// recorded behind a blocked item needs a second worker for the record's queue).
using hal::testing::QueueConformanceTest;
INSTANTIATE_TEST_SUITE_P(Cpu, QueueConformanceTest,
                         ::testing::Values(hal::testing::QueueMaker{
                             "cpu",
                             [] {
                               static ThreadPool* pool = new ThreadPool(2);
                               return std::shared_ptr<hal::Queue>(NewQueue(*pool));
                             }}),
                         hal::testing::QueueMakerName);

// CPU queues share the pool's workers: a queue parked on an event must not hold one, or with a
// single worker the record it waits for could never run.
TEST(CpuQueueTest, WaitingOnAnEventHoldsNoWorker) {
  // One worker: if a wait occupied it, the record on the other queue could never run.
  ThreadPool pool(1);
  auto a = NewQueue(pool), b = NewQueue(pool);
  auto event = std::make_shared<hal::HostEvent>();
  std::atomic<bool> gate{false};
  std::atomic<int> stage{0};
  a->Submit([&] {
    while (!gate) std::this_thread::yield();
    return Status::Ok();
  });
  a->Submit([&] {
    stage = 1;
    return Status::Ok();
  });
  a->RecordEvent(event);
  b->WaitEvent(event);
  b->Submit([&] {
    EXPECT_EQ(stage.load(), 1);
    stage = 2;
    return Status::Ok();
  });
  gate = true;
  ASSERT_TRUE(b->Synchronize(5000).ok());
  EXPECT_EQ(stage.load(), 2);
}

}  // namespace
}  // namespace kiln::cpu
