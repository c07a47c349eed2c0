// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "queue_conformance.h"

#include <atomic>
#include <thread>
#include <vector>

#include "hal/host_event.h"

namespace kiln::hal::testing {
namespace {

TEST_P(QueueConformanceTest, RunsWorkInSubmissionOrder) {
  auto q = NewQueue();
  std::vector<int> order;
  for (int i = 0; i < 100; ++i) {
    q->Submit([&order, i] {
      order.push_back(i);  // no lock: a strand never runs two items at once
      return Status::Ok();
    });
  }
  ASSERT_TRUE(q->Synchronize(5000).ok());
  ASSERT_EQ(order.size(), 100u);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(order[i], i);
}

TEST_P(QueueConformanceTest, SubmitReturnsBeforeWorkRuns) {
  auto q = NewQueue();
  std::atomic<bool> release{false}, ran{false};
  q->Submit([&] {
    while (!release) std::this_thread::yield();
    ran = true;
    return Status::Ok();
  });
  EXPECT_FALSE(q->Idle());
  EXPECT_EQ(q->Synchronize(10).code(), code::kRtStreamSyncTimeout);
  release = true;
  EXPECT_TRUE(q->Synchronize(5000).ok());
  EXPECT_TRUE(ran);
  EXPECT_TRUE(q->Idle());
}

TEST_P(QueueConformanceTest, AWaitHoldsLaterWorkUntilTheRecordCompletes) {
  auto a = NewQueue(), b = NewQueue();
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

TEST_P(QueueConformanceTest, WaitOnNeverRecordedEventIsANoOp) {
  auto q = NewQueue();
  auto event = std::make_shared<hal::HostEvent>();
  q->WaitEvent(event);
  EXPECT_TRUE(q->Synchronize(5000).ok());
}

TEST_P(QueueConformanceTest, FirstFailureIsReportedOnceBySynchronize) {
  auto q = NewQueue();
  int after = 0;
  q->Submit([] { return Error(code::kRtInternalError, "first"); });
  q->Submit([] { return Error(code::kFailure, "second"); });
  q->Submit([&] {
    ++after;
    return Status::Ok();
  });
  Status s = q->Synchronize(5000);
  EXPECT_EQ(s.code(), code::kRtInternalError);
  EXPECT_EQ(after, 1);  // continue-on-failure by default
  EXPECT_TRUE(q->Synchronize(5000).ok());
}

TEST_P(QueueConformanceTest, StopOnFailureDiscardsLaterWork) {
  auto q = NewQueue();
  q->SetStopOnFailure(true);
  int after = 0;
  q->Submit([] { return Error(code::kRtInternalError, "boom"); });
  q->Submit([&] {
    ++after;
    return Status::Ok();
  });
  EXPECT_EQ(q->Synchronize(5000).code(), code::kRtInternalError);
  EXPECT_EQ(after, 0);
  q->Submit([&] {  // the failure was reported: the queue runs again
    ++after;
    return Status::Ok();
  });
  EXPECT_TRUE(q->Synchronize(5000).ok());
  EXPECT_EQ(after, 1);
}

TEST_P(QueueConformanceTest, DiscardPendingDropsUnstartedWorkAndReleasesWaiters) {
  auto q = NewQueue(), other = NewQueue();
  auto never = std::make_shared<hal::HostEvent>();
  auto recorded_later = std::make_shared<hal::HostEvent>();
  never->BeginRecord();  // recorded but never completed by any queue
  int ran = 0;
  q->WaitEvent(never);  // parks the queue
  q->Submit([&] {
    ++ran;
    return Status::Ok();
  });
  q->RecordEvent(recorded_later);
  other->WaitEvent(recorded_later);
  EXPECT_EQ(q->Synchronize(20).code(), code::kRtStreamSyncTimeout);
  q->DiscardPending();
  EXPECT_TRUE(q->Synchronize(1000).ok());
  EXPECT_EQ(ran, 0);
  EXPECT_TRUE(other->Synchronize(5000).ok());  // the dropped record still completed
  q->Submit([&] {                              // and the queue is usable again
    ++ran;
    return Status::Ok();
  });
  EXPECT_TRUE(q->Synchronize(5000).ok());
  EXPECT_EQ(ran, 1);
}

TEST_P(QueueConformanceTest, EventTracksTheLatestRecord) {
  auto q = NewQueue();
  auto e = std::make_shared<hal::HostEvent>();
  EXPECT_FALSE(e->recorded());
  EXPECT_TRUE(e->IsComplete());
  std::atomic<bool> gate{false};
  q->Submit([&] {
    while (!gate) std::this_thread::yield();
    return Status::Ok();
  });
  q->RecordEvent(e);
  EXPECT_TRUE(e->recorded());
  EXPECT_FALSE(e->IsComplete());
  EXPECT_EQ(e->Synchronize(10).code(), code::kRtEventSyncTimeout);
  gate = true;
  EXPECT_TRUE(e->Synchronize(5000).ok());
  EXPECT_TRUE(e->IsComplete());
  EXPECT_GT(e->timestamp_ns(), 0u);
  e->Reset(e->issued());
  EXPECT_FALSE(e->recorded());
  EXPECT_EQ(e->timestamp_ns(), 0u);
}

TEST_P(QueueConformanceTest, EventAWaitIsNotReleasedByALaterRecordOnAnotherQueue) {
  auto a = NewQueue(), b = NewQueue(), c = NewQueue();
  auto e = std::make_shared<hal::HostEvent>();
  std::atomic<bool> gate{false}, a_done{false};
  a->Submit([&] {
    while (!gate) std::this_thread::yield();
    a_done = true;
    return Status::Ok();
  });
  a->RecordEvent(e);  // generation 1, held back by the gate
  c->WaitEvent(e);    // waits for generation 1
  std::atomic<bool> c_saw_a{false};
  c->Submit([&] {
    c_saw_a = a_done.load();
    return Status::Ok();
  });
  b->RecordEvent(e);  // generation 2 completes at once on idle b
  ASSERT_TRUE(b->Synchronize(5000).ok());
  EXPECT_EQ(c->Synchronize(50).code(), code::kRtStreamSyncTimeout);  // still waiting for a
  gate = true;
  ASSERT_TRUE(c->Synchronize(5000).ok());
  EXPECT_TRUE(c_saw_a);
}

TEST_P(QueueConformanceTest, EventResetForgetsOnlyTheRecordsMadeBeforeIt) {
  auto q = NewQueue();
  auto e = std::make_shared<hal::HostEvent>();
  e->BeginRecord();  // generation 1, never completed by a queue
  uint64_t mark = e->issued();
  std::atomic<bool> gate{false};
  q->Submit([&] {
    while (!gate) std::this_thread::yield();
    return Status::Ok();
  });
  q->RecordEvent(e);  // generation 2, pending behind the gate
  e->Reset(mark);     // the reset requested before generation 2 existed
  EXPECT_TRUE(e->recorded());
  EXPECT_FALSE(e->IsComplete());  // generation 2 still pending
  gate = true;
  ASSERT_TRUE(e->Synchronize(5000).ok());
  EXPECT_GT(e->timestamp_ns(), 0u);
}

TEST_P(QueueConformanceTest, EventHostRecordsHoldQueuesUntilSignalled) {
  auto q = NewQueue();
  auto e = std::make_shared<hal::HostEvent>();
  e->RecordOnHost();
  q->WaitEvent(e);
  std::atomic<bool> ran{false};
  q->Submit([&] {
    ran = true;
    return Status::Ok();
  });
  EXPECT_EQ(q->Synchronize(30).code(), code::kRtStreamSyncTimeout);
  EXPECT_FALSE(ran);
  e->SignalFromHost();
  ASSERT_TRUE(q->Synchronize(5000).ok());
  EXPECT_TRUE(ran);
}

}  // namespace
}  // namespace kiln::hal::testing
