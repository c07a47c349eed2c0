// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Contract tests of the event API (ascendcl-reference.md §1.5 and Kiln's decisions): status of
// never-recorded, pending and completed events, synchronisation with a timeout, elapsed time,
// timestamps, reset, and NULL or stale handles.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "acl/acl.h"
#include "tests/capi/wait_helpers.h"

namespace {

using std::chrono::milliseconds;
using std::chrono::steady_clock;

using kiln::testing::CallWithin;
using kiln::testing::Gate;
using kiln::testing::kGateLimit;
using kiln::testing::kSyncTimeoutMs;
using kiln::testing::kWaitLimit;

// Keeps a stream busy for `sleep`, then sets `done`.
struct SleepThenSet {
  milliseconds sleep;
  std::atomic<bool> done{false};
  static void Run(void* p) {
    auto* self = static_cast<SleepThenSet*>(p);
    std::this_thread::sleep_for(self->sleep);
    self->done = true;
  }
};

class EventTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
    ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
    ASSERT_EQ(aclrtCreateStream(&stream_), ACL_SUCCESS);
    open_ = true;
  }

  void TearDown() override {
    gate_.Open();
    if (open_ && !abandoned_) {
      EXPECT_EQ(aclrtDestroyStream(stream_), ACL_SUCCESS);
      EXPECT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
      EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
    }
  }

  aclrtEvent NewEvent(uint32_t flag = ACL_EVENT_SYNC) {
    aclrtEvent event = nullptr;
    EXPECT_EQ(aclrtCreateEventWithFlag(&event, flag), ACL_SUCCESS);
    EXPECT_NE(event, nullptr);
    return event;
  }

  // Records `event` on stream_ behind a host function that holds the stream until gate_ opens.
  void RecordPending(aclrtEvent event) {
    ASSERT_EQ(aclrtLaunchHostFunc(stream_, Gate::Pass, &gate_), ACL_SUCCESS);
    ASSERT_EQ(aclrtRecordEvent(event, stream_), ACL_SUCCESS);
    ASSERT_TRUE(gate_.WaitUntilEntered());
  }

  static aclrtEventRecordedStatus RecordedStatus(aclrtEvent event) {
    auto status = static_cast<aclrtEventRecordedStatus>(-1);
    EXPECT_EQ(aclrtQueryEventStatus(event, &status), ACL_SUCCESS);
    return status;
  }

  static aclrtEventWaitStatus WaitStatus(aclrtEvent event) {
    aclrtEventWaitStatus status = ACL_EVENT_WAIT_STATUS_RESERVED;
    EXPECT_EQ(aclrtQueryEventWaitStatus(event, &status), ACL_SUCCESS);
    return status;
  }

  aclrtStream stream_ = nullptr;
  Gate gate_;  // outlives the device, so a host function never waits on a destroyed gate
  bool open_ = false;
  bool abandoned_ = false;
};

TEST_F(EventTest, CreateEventRejectsANullOutputPointer) {
  EXPECT_EQ(aclrtCreateEvent(nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtCreateEventWithFlag(nullptr, ACL_EVENT_SYNC), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtCreateEventExWithFlag(nullptr, ACL_EVENT_SYNC), ACL_ERROR_INVALID_PARAM);
}

TEST_F(EventTest, CreateEventWithFlagAcceptsTheEventFlagsAndTheirUnion) {
  for (uint32_t flag : {ACL_EVENT_SYNC, ACL_EVENT_CAPTURE_STREAM_PROGRESS, ACL_EVENT_TIME_LINE,
                        ACL_EVENT_SYNC | ACL_EVENT_TIME_LINE,
                        ACL_EVENT_SYNC | ACL_EVENT_CAPTURE_STREAM_PROGRESS | ACL_EVENT_TIME_LINE}) {
    aclrtEvent event = nullptr;
    ASSERT_EQ(aclrtCreateEventWithFlag(&event, flag), ACL_SUCCESS) << "flag " << flag;
    ASSERT_EQ(aclrtRecordEvent(event, stream_), ACL_SUCCESS);
    EXPECT_EQ(aclrtSynchronizeEventWithTimeout(event, kSyncTimeoutMs), ACL_SUCCESS);
    EXPECT_EQ(aclrtDestroyEvent(event), ACL_SUCCESS);
  }
  aclrtEvent event = nullptr;
  ASSERT_EQ(aclrtCreateEvent(&event), ACL_SUCCESS);
  EXPECT_NE(event, nullptr);
  EXPECT_EQ(aclrtDestroyEvent(event), ACL_SUCCESS);
  ASSERT_EQ(aclrtCreateEventExWithFlag(&event, ACL_EVENT_SYNC), ACL_SUCCESS);
  EXPECT_NE(event, nullptr);
  EXPECT_EQ(aclrtDestroyEvent(event), ACL_SUCCESS);
}

TEST_F(EventTest, NeverRecordedEventQueriesAsComplete) {
  aclrtEvent event = NewEvent();
  EXPECT_EQ(RecordedStatus(event), ACL_EVENT_RECORDED_STATUS_COMPLETE);
  EXPECT_EQ(WaitStatus(event), ACL_EVENT_WAIT_STATUS_COMPLETE);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  aclrtEventStatus status = ACL_EVENT_STATUS_RESERVED;
  EXPECT_EQ(aclrtQueryEvent(event, &status), ACL_SUCCESS);
#pragma GCC diagnostic pop
  EXPECT_EQ(status, ACL_EVENT_STATUS_COMPLETE);
  EXPECT_EQ(aclrtSynchronizeEventWithTimeout(event, 0), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyEvent(event), ACL_SUCCESS);
}

TEST_F(EventTest, PendingEventQueriesAsNotReadyUntilItsStreamReachesTheRecord) {
  aclrtEvent event = NewEvent();
  RecordPending(event);
  EXPECT_EQ(RecordedStatus(event), ACL_EVENT_RECORDED_STATUS_NOT_READY);
  EXPECT_EQ(WaitStatus(event), ACL_EVENT_WAIT_STATUS_NOT_READY);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  aclrtEventStatus status = ACL_EVENT_STATUS_RESERVED;
  EXPECT_EQ(aclrtQueryEvent(event, &status), ACL_SUCCESS);
  EXPECT_EQ(status, ACL_EVENT_STATUS_NOT_READY);
#pragma GCC diagnostic pop

  gate_.Open();
  ASSERT_EQ(aclrtSynchronizeEventWithTimeout(event, kSyncTimeoutMs), ACL_SUCCESS);
  EXPECT_EQ(RecordedStatus(event), ACL_EVENT_RECORDED_STATUS_COMPLETE);
  EXPECT_EQ(WaitStatus(event), ACL_EVENT_WAIT_STATUS_COMPLETE);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  status = ACL_EVENT_STATUS_RESERVED;
  EXPECT_EQ(aclrtQueryEvent(event, &status), ACL_SUCCESS);
  EXPECT_EQ(status, ACL_EVENT_STATUS_COMPLETE);
#pragma GCC diagnostic pop
  EXPECT_EQ(aclrtDestroyEvent(event), ACL_SUCCESS);
}

TEST_F(EventTest, QueriesRejectANullStatus) {
  aclrtEvent event = NewEvent();
  EXPECT_EQ(aclrtQueryEventStatus(event, nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtQueryEventWaitStatus(event, nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtDestroyEvent(event), ACL_SUCCESS);
}

TEST_F(EventTest, SynchronizeEventWithTimeoutTimesOutOnAPendingEvent) {
  aclrtEvent event = NewEvent();
  RecordPending(event);
  auto start = steady_clock::now();
  EXPECT_EQ(aclrtSynchronizeEventWithTimeout(event, 50), ACL_ERROR_RT_EVENT_SYNC_TIMEOUT);
  EXPECT_GE(steady_clock::now() - start, milliseconds(45)) << "returned before the timeout";
  EXPECT_EQ(aclrtSynchronizeEventWithTimeout(event, 0), ACL_ERROR_RT_EVENT_SYNC_TIMEOUT);
  gate_.Open();
  EXPECT_EQ(aclrtSynchronizeEventWithTimeout(event, kSyncTimeoutMs), ACL_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeEventWithTimeout(event, 0), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyEvent(event), ACL_SUCCESS);
}

TEST_F(EventTest, SynchronizeEventReturnsOnlyAfterTheWorkBeforeTheRecord) {
  aclrtEvent event = NewEvent();
  SleepThenSet busy{milliseconds(20)};
  ASSERT_EQ(aclrtLaunchHostFunc(stream_, SleepThenSet::Run, &busy), ACL_SUCCESS);
  ASSERT_EQ(aclrtRecordEvent(event, stream_), ACL_SUCCESS);
  auto result = CallWithin(kWaitLimit, [event] { return aclrtSynchronizeEvent(event); });
  if (!result) abandoned_ = true;
  ASSERT_TRUE(result.has_value()) << "aclrtSynchronizeEvent did not return";
  EXPECT_EQ(*result, ACL_SUCCESS);
  EXPECT_TRUE(busy.done);
  EXPECT_EQ(RecordedStatus(event), ACL_EVENT_RECORDED_STATUS_COMPLETE);
  EXPECT_EQ(aclrtDestroyEvent(event), ACL_SUCCESS);
}

TEST_F(EventTest, SynchronizeEventWithTimeoutMinusOneWaitsForTheRecord) {
  aclrtEvent event = NewEvent();
  SleepThenSet busy{milliseconds(20)};
  ASSERT_EQ(aclrtLaunchHostFunc(stream_, SleepThenSet::Run, &busy), ACL_SUCCESS);
  ASSERT_EQ(aclrtRecordEvent(event, stream_), ACL_SUCCESS);
  auto result =
      CallWithin(kWaitLimit, [event] { return aclrtSynchronizeEventWithTimeout(event, -1); });
  if (!result) abandoned_ = true;
  ASSERT_TRUE(result.has_value()) << "aclrtSynchronizeEventWithTimeout(-1) did not return";
  EXPECT_EQ(*result, ACL_SUCCESS);
  EXPECT_TRUE(busy.done);
  EXPECT_EQ(aclrtDestroyEvent(event), ACL_SUCCESS);
}

TEST_F(EventTest, RecordOnTheNullStreamUsesTheDefaultStream) {
  aclrtEvent event = NewEvent();
  ASSERT_EQ(aclrtLaunchHostFunc(nullptr, Gate::Pass, &gate_), ACL_SUCCESS);
  ASSERT_EQ(aclrtRecordEvent(event, nullptr), ACL_SUCCESS);
  ASSERT_TRUE(gate_.WaitUntilEntered());
  EXPECT_EQ(RecordedStatus(event), ACL_EVENT_RECORDED_STATUS_NOT_READY);
  gate_.Open();
  EXPECT_EQ(aclrtSynchronizeEventWithTimeout(event, kSyncTimeoutMs), ACL_SUCCESS);
  EXPECT_EQ(RecordedStatus(event), ACL_EVENT_RECORDED_STATUS_COMPLETE);
  EXPECT_EQ(aclrtSynchronizeStreamWithTimeout(nullptr, kSyncTimeoutMs), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyEvent(event), ACL_SUCCESS);
}

TEST_F(EventTest, ElapsedTimeCoversAHostFuncThatSleepsTwentyMilliseconds) {
  aclrtEvent start = NewEvent(ACL_EVENT_SYNC | ACL_EVENT_TIME_LINE);
  aclrtEvent end = NewEvent(ACL_EVENT_SYNC | ACL_EVENT_TIME_LINE);
  SleepThenSet busy{milliseconds(20)};
  ASSERT_EQ(aclrtRecordEvent(start, stream_), ACL_SUCCESS);
  ASSERT_EQ(aclrtLaunchHostFunc(stream_, SleepThenSet::Run, &busy), ACL_SUCCESS);
  ASSERT_EQ(aclrtRecordEvent(end, stream_), ACL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeEventWithTimeout(end, kSyncTimeoutMs), ACL_SUCCESS);
  float ms = -1;
  ASSERT_EQ(aclrtEventElapsedTime(&ms, start, end), ACL_SUCCESS);
  EXPECT_GE(ms, 19.0f);
  EXPECT_LT(ms, 10000.0f);
  EXPECT_EQ(aclrtDestroyEvent(start), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyEvent(end), ACL_SUCCESS);
}

TEST_F(EventTest, ElapsedTimeWithANeverRecordedEventIsTimestampInvalid) {
  aclrtEvent recorded = NewEvent(ACL_EVENT_SYNC | ACL_EVENT_TIME_LINE);
  aclrtEvent never = NewEvent(ACL_EVENT_SYNC | ACL_EVENT_TIME_LINE);
  ASSERT_EQ(aclrtRecordEvent(recorded, stream_), ACL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeEventWithTimeout(recorded, kSyncTimeoutMs), ACL_SUCCESS);
  float ms = 0;
  EXPECT_EQ(aclrtEventElapsedTime(&ms, never, recorded), ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID);
  EXPECT_EQ(aclrtEventElapsedTime(&ms, recorded, never), ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID);
  EXPECT_EQ(aclrtDestroyEvent(recorded), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyEvent(never), ACL_SUCCESS);
}

TEST_F(EventTest, ElapsedTimeWithAPendingEventIsNotComplete) {
  aclrtEvent start = NewEvent(ACL_EVENT_SYNC | ACL_EVENT_TIME_LINE);
  aclrtEvent end = NewEvent(ACL_EVENT_SYNC | ACL_EVENT_TIME_LINE);
  ASSERT_EQ(aclrtRecordEvent(start, stream_), ACL_SUCCESS);
  RecordPending(end);
  ASSERT_EQ(aclrtSynchronizeEventWithTimeout(start, kSyncTimeoutMs), ACL_SUCCESS);
  float ms = 0;
  EXPECT_EQ(aclrtEventElapsedTime(&ms, start, end), ACL_ERROR_RT_EVENT_NOT_COMPLETE);
  gate_.Open();
  ASSERT_EQ(aclrtSynchronizeEventWithTimeout(end, kSyncTimeoutMs), ACL_SUCCESS);
  EXPECT_EQ(aclrtEventElapsedTime(&ms, start, end), ACL_SUCCESS);
  EXPECT_GE(ms, 0.0f);
  EXPECT_EQ(aclrtDestroyEvent(start), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyEvent(end), ACL_SUCCESS);
}

TEST_F(EventTest, ElapsedTimeRejectsANullResultPointer) {
  aclrtEvent start = NewEvent(ACL_EVENT_SYNC | ACL_EVENT_TIME_LINE);
  aclrtEvent end = NewEvent(ACL_EVENT_SYNC | ACL_EVENT_TIME_LINE);
  ASSERT_EQ(aclrtRecordEvent(start, stream_), ACL_SUCCESS);
  ASSERT_EQ(aclrtRecordEvent(end, stream_), ACL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeEventWithTimeout(end, kSyncTimeoutMs), ACL_SUCCESS);
  EXPECT_EQ(aclrtEventElapsedTime(nullptr, start, end), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtDestroyEvent(start), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyEvent(end), ACL_SUCCESS);
}

TEST_F(EventTest, ResetEventIsAcceptedOnARecordedEvent) {
  aclrtEvent event = NewEvent(ACL_EVENT_SYNC);
  ASSERT_EQ(aclrtRecordEvent(event, stream_), ACL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeEventWithTimeout(event, kSyncTimeoutMs), ACL_SUCCESS);
  EXPECT_EQ(aclrtResetEvent(event, stream_), ACL_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeStreamWithTimeout(stream_, kSyncTimeoutMs), ACL_SUCCESS);
  // The event can be recorded again afterwards.
  ASSERT_EQ(aclrtRecordEvent(event, stream_), ACL_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeEventWithTimeout(event, kSyncTimeoutMs), ACL_SUCCESS);
  EXPECT_EQ(RecordedStatus(event), ACL_EVENT_RECORDED_STATUS_COMPLETE);
  EXPECT_EQ(aclrtDestroyEvent(event), ACL_SUCCESS);
}

TEST_F(EventTest, EventGetTimestampIsPositiveAfterCompletion) {
  aclrtEvent event = NewEvent(ACL_EVENT_SYNC | ACL_EVENT_TIME_LINE);
  ASSERT_EQ(aclrtRecordEvent(event, stream_), ACL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeEventWithTimeout(event, kSyncTimeoutMs), ACL_SUCCESS);
  uint64_t timestamp = 0;
  ASSERT_EQ(aclrtEventGetTimestamp(event, &timestamp), ACL_SUCCESS);
  EXPECT_GT(timestamp, 0u);
  EXPECT_EQ(aclrtEventGetTimestamp(event, nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtDestroyEvent(event), ACL_SUCCESS);
}

TEST_F(EventTest, NullEventIsAnInvalidParameterForEveryEventCall) {
  aclrtEvent event = NewEvent(ACL_EVENT_SYNC | ACL_EVENT_TIME_LINE);
  ASSERT_EQ(aclrtRecordEvent(event, stream_), ACL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeEventWithTimeout(event, kSyncTimeoutMs), ACL_SUCCESS);
  aclrtEventRecordedStatus recorded;
  aclrtEventWaitStatus wait;
  float ms = 0;
  uint64_t timestamp = 0;
  EXPECT_EQ(aclrtRecordEvent(nullptr, stream_), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtResetEvent(nullptr, stream_), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtQueryEventStatus(nullptr, &recorded), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtQueryEventWaitStatus(nullptr, &wait), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtSynchronizeEventWithTimeout(nullptr, 0), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtEventElapsedTime(&ms, nullptr, event), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtEventElapsedTime(&ms, event, nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtEventGetTimestamp(nullptr, &timestamp), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtStreamWaitEvent(stream_, nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtDestroyEvent(nullptr), ACL_ERROR_INVALID_PARAM);
  auto result = CallWithin(kWaitLimit, [] { return aclrtSynchronizeEvent(nullptr); });
  if (!result) abandoned_ = true;
  ASSERT_TRUE(result.has_value()) << "aclrtSynchronizeEvent(NULL) did not return";
  EXPECT_EQ(*result, ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtDestroyEvent(event), ACL_SUCCESS);
}

TEST_F(EventTest, DestroyedEventHandleIsRejectedAsInvalidByEveryEventCall) {
  aclrtEvent live = NewEvent(ACL_EVENT_SYNC | ACL_EVENT_TIME_LINE);
  ASSERT_EQ(aclrtRecordEvent(live, stream_), ACL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeEventWithTimeout(live, kSyncTimeoutMs), ACL_SUCCESS);
  aclrtEvent stale = NewEvent();
  ASSERT_EQ(aclrtDestroyEvent(stale), ACL_SUCCESS);
  aclrtEventRecordedStatus recorded;
  aclrtEventWaitStatus wait;
  float ms = 0;
  uint64_t timestamp = 0;
  EXPECT_EQ(aclrtRecordEvent(stale, stream_), ACL_ERROR_RT_INVALID_HANDLE);
  EXPECT_EQ(aclrtResetEvent(stale, stream_), ACL_ERROR_RT_INVALID_HANDLE);
  EXPECT_EQ(aclrtQueryEventStatus(stale, &recorded), ACL_ERROR_RT_INVALID_HANDLE);
  EXPECT_EQ(aclrtQueryEventWaitStatus(stale, &wait), ACL_ERROR_RT_INVALID_HANDLE);
  EXPECT_EQ(aclrtSynchronizeEventWithTimeout(stale, 0), ACL_ERROR_RT_INVALID_HANDLE);
  EXPECT_EQ(aclrtEventElapsedTime(&ms, stale, live), ACL_ERROR_RT_INVALID_HANDLE);
  EXPECT_EQ(aclrtEventElapsedTime(&ms, live, stale), ACL_ERROR_RT_INVALID_HANDLE);
  EXPECT_EQ(aclrtEventGetTimestamp(stale, &timestamp), ACL_ERROR_RT_INVALID_HANDLE);
  EXPECT_EQ(aclrtStreamWaitEvent(stream_, stale), ACL_ERROR_RT_INVALID_HANDLE);
  EXPECT_EQ(aclrtDestroyEvent(stale), ACL_ERROR_RT_INVALID_HANDLE);
  auto result = CallWithin(kWaitLimit, [stale] { return aclrtSynchronizeEvent(stale); });
  if (!result) abandoned_ = true;
  ASSERT_TRUE(result.has_value()) << "aclrtSynchronizeEvent on a stale handle did not return";
  EXPECT_EQ(*result, ACL_ERROR_RT_INVALID_HANDLE);
  EXPECT_EQ(aclrtDestroyEvent(live), ACL_SUCCESS);
}

}  // namespace
