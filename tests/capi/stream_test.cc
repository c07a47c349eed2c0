// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Contract tests of the stream API (ascendcl-reference.md §1.4 and Kiln's decisions): creation
// and its checks, the NULL (default) stream, stale handles, in-order execution, synchronisation
// with and without a timeout, queries, failure modes and cross-stream waits.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <optional>
#include <string_view>
#include <thread>
#include <vector>

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

// Environment a test needs before aclInit. Each TEST runs in its own process (CTest), so SetUp
// may set it; TearDown removes it again for runs of the whole binary in one process.
struct TestEnvironment {
  std::string_view test;
  const char* name;
  const char* value;
};
constexpr TestEnvironment kTestEnvironment[] = {
    {"WaitingStreamHoldsNoWorkerWhenThePoolHasOnlyOne", "KILN_CPU_THREADS", "1"},
};

void SetFlag(void* flag) { static_cast<std::atomic<bool>*>(flag)->store(true); }

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

// Records, when it runs, whether `flag` was already set: 1 yes, 0 no, -1 not run.
struct Observe {
  const std::atomic<bool>* flag;
  std::atomic<int> seen{-1};
  static void Run(void* p) {
    auto* self = static_cast<Observe*>(p);
    self->seen = self->flag->load() ? 1 : 0;
  }
};

class StreamTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string_view name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    for (const auto& env : kTestEnvironment) {
      if (env.test == name) {
        setenv(env.name, env.value, 1);
        set_env_.push_back(env.name);
      }
    }
    ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
    ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
    open_ = true;
  }

  void TearDown() override {
    gate_.Open();
    // A deadlocked runtime cannot be reset; leave it to the process exit.
    if (open_ && !abandoned_) {
      EXPECT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
      EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
    }
    for (const char* env : set_env_) unsetenv(env);
  }

  aclrtStream NewStream() {
    aclrtStream stream = nullptr;
    EXPECT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
    EXPECT_NE(stream, nullptr);
    return stream;
  }

  aclrtEvent NewSyncEvent() {
    aclrtEvent event = nullptr;
    EXPECT_EQ(aclrtCreateEventWithFlag(&event, ACL_EVENT_SYNC), ACL_SUCCESS);
    EXPECT_NE(event, nullptr);
    return event;
  }

  Gate gate_;  // outlives the device, so a host function never waits on a destroyed gate
  bool open_ = false;
  bool abandoned_ = false;
  std::vector<const char*> set_env_;
};

TEST_F(StreamTest, CreateStreamReturnsAStreamThatRunsWork) {
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  ASSERT_NE(stream, nullptr);
  std::atomic<bool> ran{false};
  ASSERT_EQ(aclrtLaunchHostFunc(stream, SetFlag, &ran), ACL_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeStreamWithTimeout(stream, kSyncTimeoutMs), ACL_SUCCESS);
  EXPECT_TRUE(ran);
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
}

TEST_F(StreamTest, CreateStreamRejectsANullOutputPointer) {
  EXPECT_EQ(aclrtCreateStream(nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtCreateStreamWithConfig(nullptr, 0, 0), ACL_ERROR_INVALID_PARAM);
}

TEST_F(StreamTest, CreateStreamWithConfigAcceptsEveryPriorityFromZeroToSeven) {
  for (uint32_t priority = 0; priority <= 7; ++priority) {
    aclrtStream stream = nullptr;
    ASSERT_EQ(aclrtCreateStreamWithConfig(&stream, priority, 0), ACL_SUCCESS)
        << "priority " << priority;
    ASSERT_NE(stream, nullptr);
    EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
  }
}

TEST_F(StreamTest, CreateStreamWithConfigRejectsAPriorityAboveSeven) {
  for (uint32_t priority : {8u, 100u, UINT32_MAX}) {
    aclrtStream stream = nullptr;
    EXPECT_EQ(aclrtCreateStreamWithConfig(&stream, priority, 0), ACL_ERROR_INVALID_PARAM)
        << "priority " << priority;
  }
}

TEST_F(StreamTest, CreateStreamWithConfigAcceptsEveryStreamFlagAndTheirUnion) {
  const uint32_t all = ACL_STREAM_FAST_LAUNCH | ACL_STREAM_FAST_SYNC | ACL_STREAM_PERSISTENT |
                       ACL_STREAM_HUGE | ACL_STREAM_CPU_SCHEDULE | ACL_STREAM_DEVICE_USE_ONLY;
  for (uint32_t flag :
       {0u, ACL_STREAM_FAST_LAUNCH, ACL_STREAM_FAST_SYNC, ACL_STREAM_PERSISTENT, ACL_STREAM_HUGE,
        ACL_STREAM_CPU_SCHEDULE, ACL_STREAM_DEVICE_USE_ONLY, all}) {
    aclrtStream stream = nullptr;
    ASSERT_EQ(aclrtCreateStreamWithConfig(&stream, 3, flag), ACL_SUCCESS) << "flag " << flag;
    std::atomic<bool> ran{false};
    ASSERT_EQ(aclrtLaunchHostFunc(stream, SetFlag, &ran), ACL_SUCCESS);
    EXPECT_EQ(aclrtSynchronizeStreamWithTimeout(stream, kSyncTimeoutMs), ACL_SUCCESS);
    EXPECT_TRUE(ran) << "flag " << flag;
    EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
  }
}

TEST_F(StreamTest, CreateStreamWithConfigRejectsFlagBitsNoStreamFlagUses) {
  for (uint32_t flag : {0x40u, 0x100u, 0x80000000u, ACL_STREAM_FAST_LAUNCH | 0x40u}) {
    aclrtStream stream = nullptr;
    EXPECT_EQ(aclrtCreateStreamWithConfig(&stream, 0, flag), ACL_ERROR_INVALID_PARAM)
        << "flag " << flag;
  }
}

TEST_F(StreamTest, DestroyedStreamHandleIsRejectedAsInvalidByEveryStreamCall) {
  // Everything the checks need is created first, so no new object can reuse the stale address.
  aclrtEvent event = NewSyncEvent();
  std::atomic<bool> ran{false};
  unsigned char host[16] = {};
  aclrtStream stream = NewStream();
  ASSERT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);

  aclrtStreamStatus status;
  EXPECT_EQ(aclrtSynchronizeStreamWithTimeout(stream, 0), ACL_ERROR_RT_INVALID_HANDLE);
  EXPECT_EQ(aclrtStreamQuery(stream, &status), ACL_ERROR_RT_INVALID_HANDLE);
  EXPECT_EQ(aclrtStreamWaitEvent(stream, event), ACL_ERROR_RT_INVALID_HANDLE);
  EXPECT_EQ(aclrtRecordEvent(event, stream), ACL_ERROR_RT_INVALID_HANDLE);
  EXPECT_EQ(aclrtSetStreamFailureMode(stream, ACL_STOP_ON_FAILURE), ACL_ERROR_RT_INVALID_HANDLE);
  EXPECT_EQ(aclrtLaunchHostFunc(stream, SetFlag, &ran), ACL_ERROR_RT_INVALID_HANDLE);
  EXPECT_EQ(aclrtMemsetAsync(host, sizeof host, 1, sizeof host, stream),
            ACL_ERROR_RT_INVALID_HANDLE);
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_ERROR_RT_INVALID_HANDLE);
  EXPECT_EQ(aclrtDestroyStreamForce(stream), ACL_ERROR_RT_INVALID_HANDLE);
  auto result = CallWithin(kWaitLimit, [stream] { return aclrtSynchronizeStream(stream); });
  if (!result) abandoned_ = true;
  ASSERT_TRUE(result.has_value()) << "aclrtSynchronizeStream on a stale handle did not return";
  EXPECT_EQ(*result, ACL_ERROR_RT_INVALID_HANDLE);
  EXPECT_FALSE(ran);
  EXPECT_EQ(aclrtDestroyEvent(event), ACL_SUCCESS);
}

TEST_F(StreamTest, NullStreamIsTheCurrentContextsDefaultStream) {
  aclrtContext device_context = nullptr;
  ASSERT_EQ(aclrtGetCurrentContext(&device_context), ACL_SUCCESS);
  aclrtContext context = nullptr;
  ASSERT_EQ(aclrtCreateContext(&context, 0), ACL_SUCCESS);  // now current

  ASSERT_EQ(aclrtLaunchHostFunc(nullptr, Gate::Pass, &gate_), ACL_SUCCESS);
  ASSERT_TRUE(gate_.WaitUntilEntered());
  aclrtStreamStatus status = ACL_STREAM_STATUS_RESERVED;
  EXPECT_EQ(aclrtStreamQuery(nullptr, &status), ACL_SUCCESS);
  EXPECT_EQ(status, ACL_STREAM_STATUS_NOT_READY);
  EXPECT_EQ(aclrtSynchronizeStreamWithTimeout(nullptr, 0), ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);

  // The device's default context has its own default stream, which is idle.
  ASSERT_EQ(aclrtSetCurrentContext(device_context), ACL_SUCCESS);
  status = ACL_STREAM_STATUS_RESERVED;
  EXPECT_EQ(aclrtStreamQuery(nullptr, &status), ACL_SUCCESS);
  EXPECT_EQ(status, ACL_STREAM_STATUS_COMPLETE);
  EXPECT_EQ(aclrtSynchronizeStreamWithTimeout(nullptr, 0), ACL_SUCCESS);

  ASSERT_EQ(aclrtSetCurrentContext(context), ACL_SUCCESS);
  gate_.Open();
  EXPECT_EQ(aclrtSynchronizeStreamWithTimeout(nullptr, kSyncTimeoutMs), ACL_SUCCESS);
  status = ACL_STREAM_STATUS_RESERVED;
  EXPECT_EQ(aclrtStreamQuery(nullptr, &status), ACL_SUCCESS);
  EXPECT_EQ(status, ACL_STREAM_STATUS_COMPLETE);
  EXPECT_EQ(aclrtDestroyContext(context), ACL_SUCCESS);
  EXPECT_EQ(aclrtSetCurrentContext(device_context), ACL_SUCCESS);
}

TEST_F(StreamTest, TasksOfAStreamRunInLaunchOrder) {
  struct Log {
    std::mutex mu;
    std::vector<int> order;
  } log;
  struct Task {
    Log* log;
    int index;
    static void Run(void* p) {
      auto* task = static_cast<Task*>(p);
      std::lock_guard<std::mutex> lock(task->log->mu);
      task->log->order.push_back(task->index);
    }
  };
  constexpr int kTasks = 200;
  std::vector<Task> tasks;
  for (int i = 0; i < kTasks; ++i) tasks.push_back(Task{&log, i});
  aclrtStream stream = NewStream();
  // The first task holds the stream so that all the others are queued behind it.
  ASSERT_EQ(aclrtLaunchHostFunc(stream, Gate::Pass, &gate_), ACL_SUCCESS);
  for (auto& task : tasks) ASSERT_EQ(aclrtLaunchHostFunc(stream, Task::Run, &task), ACL_SUCCESS);
  gate_.Open();
  ASSERT_EQ(aclrtSynchronizeStreamWithTimeout(stream, kSyncTimeoutMs), ACL_SUCCESS);
  ASSERT_EQ(log.order.size(), static_cast<size_t>(kTasks));
  for (int i = 0; i < kTasks; ++i) EXPECT_EQ(log.order[i], i);
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
}

TEST_F(StreamTest, UnfinishedHostFuncHoldsTheLaterWorkOfItsStream) {
  aclrtStream stream = NewStream();
  unsigned char host[8] = {};
  std::atomic<bool> gate_was_open{false};
  ASSERT_EQ(aclrtLaunchHostFunc(stream, Gate::Pass, &gate_), ACL_SUCCESS);
  ASSERT_EQ(aclrtMemsetAsync(host, sizeof host, 0x5A, sizeof host, stream), ACL_SUCCESS);
  struct Check {
    Gate* gate;
    std::atomic<bool>* was_open;
    static void Run(void* p) {
      auto* c = static_cast<Check*>(p);
      c->was_open->store(c->gate->is_open());
    }
  } check{&gate_, &gate_was_open};
  ASSERT_EQ(aclrtLaunchHostFunc(stream, Check::Run, &check), ACL_SUCCESS);

  ASSERT_TRUE(gate_.WaitUntilEntered());
  aclrtStreamStatus status = ACL_STREAM_STATUS_RESERVED;
  EXPECT_EQ(aclrtStreamQuery(stream, &status), ACL_SUCCESS);
  EXPECT_EQ(status, ACL_STREAM_STATUS_NOT_READY);
  gate_.Open();
  ASSERT_EQ(aclrtSynchronizeStreamWithTimeout(stream, kSyncTimeoutMs), ACL_SUCCESS);
  EXPECT_TRUE(gate_was_open) << "a task ran before the host function ahead of it returned";
  for (unsigned char byte : host) EXPECT_EQ(byte, 0x5A);
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
}

TEST_F(StreamTest, StreamQuerySaysNotReadyUntilTheStreamIsDone) {
  aclrtStream stream = NewStream();
  aclrtStreamStatus status = ACL_STREAM_STATUS_RESERVED;
  EXPECT_EQ(aclrtStreamQuery(stream, &status), ACL_SUCCESS);
  EXPECT_EQ(status, ACL_STREAM_STATUS_COMPLETE);

  ASSERT_EQ(aclrtLaunchHostFunc(stream, Gate::Pass, &gate_), ACL_SUCCESS);
  ASSERT_TRUE(gate_.WaitUntilEntered());
  status = ACL_STREAM_STATUS_RESERVED;
  EXPECT_EQ(aclrtStreamQuery(stream, &status), ACL_SUCCESS);
  EXPECT_EQ(status, ACL_STREAM_STATUS_NOT_READY);

  gate_.Open();
  ASSERT_EQ(aclrtSynchronizeStreamWithTimeout(stream, kSyncTimeoutMs), ACL_SUCCESS);
  status = ACL_STREAM_STATUS_RESERVED;
  EXPECT_EQ(aclrtStreamQuery(stream, &status), ACL_SUCCESS);
  EXPECT_EQ(status, ACL_STREAM_STATUS_COMPLETE);
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
}

TEST_F(StreamTest, StreamQueryRejectsANullStatus) {
  aclrtStream stream = NewStream();
  EXPECT_EQ(aclrtStreamQuery(stream, nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtStreamQuery(nullptr, nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
}

TEST_F(StreamTest, SynchronizeStreamReturnsOnlyAfterEveryTaskHasRun) {
  aclrtStream stream = NewStream();
  SleepThenSet busy{milliseconds(20)};
  unsigned char host[32] = {};
  ASSERT_EQ(aclrtLaunchHostFunc(stream, SleepThenSet::Run, &busy), ACL_SUCCESS);
  ASSERT_EQ(aclrtMemsetAsync(host, sizeof host, 0x3C, sizeof host, stream), ACL_SUCCESS);
  auto result = CallWithin(kWaitLimit, [stream] { return aclrtSynchronizeStream(stream); });
  if (!result) abandoned_ = true;
  ASSERT_TRUE(result.has_value()) << "aclrtSynchronizeStream did not return";
  EXPECT_EQ(*result, ACL_SUCCESS);
  EXPECT_TRUE(busy.done);
  for (unsigned char byte : host) EXPECT_EQ(byte, 0x3C);
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
}

TEST_F(StreamTest, SynchronizeStreamWithTimeoutTimesOutWhileWorkIsPending) {
  aclrtStream stream = NewStream();
  ASSERT_EQ(aclrtLaunchHostFunc(stream, Gate::Pass, &gate_), ACL_SUCCESS);
  ASSERT_TRUE(gate_.WaitUntilEntered());

  auto start = steady_clock::now();
  EXPECT_EQ(aclrtSynchronizeStreamWithTimeout(stream, 50), ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
  EXPECT_GE(steady_clock::now() - start, milliseconds(45)) << "returned before the timeout";

  start = steady_clock::now();
  EXPECT_EQ(aclrtSynchronizeStreamWithTimeout(stream, 0), ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
  EXPECT_LT(steady_clock::now() - start, milliseconds(1000)) << "timeout 0 must only check";

  gate_.Open();
  EXPECT_EQ(aclrtSynchronizeStreamWithTimeout(stream, kSyncTimeoutMs), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
}

TEST_F(StreamTest, SynchronizeStreamWithTimeoutZeroSucceedsOnAnIdleStream) {
  aclrtStream stream = NewStream();
  EXPECT_EQ(aclrtSynchronizeStreamWithTimeout(stream, 0), ACL_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeStreamWithTimeout(nullptr, 0), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
}

TEST_F(StreamTest, SynchronizeStreamWithTimeoutMinusOneWaitsUntilTheWorkIsDone) {
  aclrtStream stream = NewStream();
  SleepThenSet busy{milliseconds(30)};
  ASSERT_EQ(aclrtLaunchHostFunc(stream, SleepThenSet::Run, &busy), ACL_SUCCESS);
  auto result =
      CallWithin(kWaitLimit, [stream] { return aclrtSynchronizeStreamWithTimeout(stream, -1); });
  if (!result) abandoned_ = true;
  ASSERT_TRUE(result.has_value()) << "aclrtSynchronizeStreamWithTimeout(-1) did not return";
  EXPECT_EQ(*result, ACL_SUCCESS);
  EXPECT_TRUE(busy.done);
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
}

TEST_F(StreamTest, SynchronizeStreamWithTimeoutRejectsTimeoutsBelowMinusOne) {
  aclrtStream stream = NewStream();
  EXPECT_EQ(aclrtSynchronizeStreamWithTimeout(stream, -2), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtSynchronizeStreamWithTimeout(nullptr, INT32_MIN), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
}

TEST_F(StreamTest, SetStreamFailureModeAcceptsContinueAndStop) {
  aclrtStream stream = NewStream();
  EXPECT_EQ(aclrtSetStreamFailureMode(stream, ACL_STOP_ON_FAILURE), ACL_SUCCESS);
  EXPECT_EQ(aclrtSetStreamFailureMode(stream, ACL_CONTINUE_ON_FAILURE), ACL_SUCCESS);
  EXPECT_EQ(aclrtSetStreamFailureMode(nullptr, ACL_STOP_ON_FAILURE), ACL_SUCCESS);
  EXPECT_EQ(aclrtSetStreamFailureMode(nullptr, ACL_CONTINUE_ON_FAILURE), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
}

TEST_F(StreamTest, SetStreamFailureModeRejectsModeTwo) {
  aclrtStream stream = NewStream();
  EXPECT_EQ(aclrtSetStreamFailureMode(stream, 2), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtSetStreamFailureMode(nullptr, 2), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
}

TEST_F(StreamTest, StreamWaitEventMakesAStreamWaitForAnotherStreamsRecord) {
  aclrtStream a = NewStream(), b = NewStream();
  aclrtEvent event = NewSyncEvent();
  SleepThenSet a_work{milliseconds(30)};
  Observe b_work{&a_work.done};
  ASSERT_EQ(aclrtLaunchHostFunc(a, SleepThenSet::Run, &a_work), ACL_SUCCESS);
  ASSERT_EQ(aclrtRecordEvent(event, a), ACL_SUCCESS);
  ASSERT_EQ(aclrtStreamWaitEvent(b, event), ACL_SUCCESS);
  ASSERT_EQ(aclrtLaunchHostFunc(b, Observe::Run, &b_work), ACL_SUCCESS);

  ASSERT_EQ(aclrtSynchronizeStreamWithTimeout(b, kSyncTimeoutMs), ACL_SUCCESS);
  EXPECT_EQ(b_work.seen, 1) << "stream B ran past its wait before stream A recorded the event";
  EXPECT_EQ(aclrtSynchronizeStreamWithTimeout(a, kSyncTimeoutMs), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyEvent(event), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyStream(a), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyStream(b), ACL_SUCCESS);
}

TEST_F(StreamTest, StreamWaitEventOnTheNullStreamHoldsTheDefaultStream) {
  aclrtStream a = NewStream();
  aclrtEvent event = NewSyncEvent();
  SleepThenSet a_work{milliseconds(30)};
  Observe default_work{&a_work.done};
  ASSERT_EQ(aclrtLaunchHostFunc(a, SleepThenSet::Run, &a_work), ACL_SUCCESS);
  ASSERT_EQ(aclrtRecordEvent(event, a), ACL_SUCCESS);
  ASSERT_EQ(aclrtStreamWaitEvent(nullptr, event), ACL_SUCCESS);
  ASSERT_EQ(aclrtLaunchHostFunc(nullptr, Observe::Run, &default_work), ACL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStreamWithTimeout(nullptr, kSyncTimeoutMs), ACL_SUCCESS);
  EXPECT_EQ(default_work.seen, 1);
  EXPECT_EQ(aclrtSynchronizeStreamWithTimeout(a, kSyncTimeoutMs), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyEvent(event), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyStream(a), ACL_SUCCESS);
}

TEST_F(StreamTest, StreamWaitEventOnANeverRecordedEventDoesNotHoldTheStream) {
  aclrtStream stream = NewStream();
  aclrtEvent event = NewSyncEvent();
  std::atomic<bool> ran{false};
  ASSERT_EQ(aclrtStreamWaitEvent(stream, event), ACL_SUCCESS);
  ASSERT_EQ(aclrtLaunchHostFunc(stream, SetFlag, &ran), ACL_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeStreamWithTimeout(stream, kSyncTimeoutMs), ACL_SUCCESS);
  EXPECT_TRUE(ran);
  EXPECT_EQ(aclrtDestroyEvent(event), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
}

TEST_F(StreamTest, StreamWaitEventRejectsNullAndDestroyedEvents) {
  aclrtStream stream = NewStream();
  EXPECT_EQ(aclrtStreamWaitEvent(stream, nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtStreamWaitEvent(nullptr, nullptr), ACL_ERROR_INVALID_PARAM);
  aclrtEvent event = NewSyncEvent();
  ASSERT_EQ(aclrtDestroyEvent(event), ACL_SUCCESS);
  EXPECT_EQ(aclrtStreamWaitEvent(stream, event), ACL_ERROR_RT_INVALID_HANDLE);
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
}

// KILN_CPU_THREADS=1 (kTestEnvironment): the pool has one worker. Stream B reaches its wait for
// e1 before stream A has run its record of e1; if the waiting stream kept the worker, A's record
// could never run and both streams would be stuck.
TEST_F(StreamTest, WaitingStreamHoldsNoWorkerWhenThePoolHasOnlyOne) {
  aclrtStream a = NewStream(), b = NewStream(), c = NewStream();
  aclrtEvent e0 = NewSyncEvent(), e1 = NewSyncEvent();
  std::atomic<bool> a_passed_wait{false};
  Observe b_work{&a_passed_wait};

  // The only worker is held in A's host function while everything else is queued.
  ASSERT_EQ(aclrtLaunchHostFunc(a, Gate::Pass, &gate_), ACL_SUCCESS);
  ASSERT_TRUE(gate_.WaitUntilEntered());
  std::atomic<bool> c_ran{false};
  ASSERT_EQ(aclrtLaunchHostFunc(c, SetFlag, &c_ran), ACL_SUCCESS);
  ASSERT_EQ(aclrtRecordEvent(e0, c), ACL_SUCCESS);
  // A: wait for C, then record e1; B waits for e1.
  ASSERT_EQ(aclrtStreamWaitEvent(a, e0), ACL_SUCCESS);
  ASSERT_EQ(aclrtLaunchHostFunc(a, SetFlag, &a_passed_wait), ACL_SUCCESS);
  ASSERT_EQ(aclrtRecordEvent(e1, a), ACL_SUCCESS);
  ASSERT_EQ(aclrtStreamWaitEvent(b, e1), ACL_SUCCESS);
  ASSERT_EQ(aclrtLaunchHostFunc(b, Observe::Run, &b_work), ACL_SUCCESS);
  gate_.Open();

  aclError b_done = aclrtSynchronizeStreamWithTimeout(b, kSyncTimeoutMs);
  aclError a_done = aclrtSynchronizeStreamWithTimeout(a, kSyncTimeoutMs);
  aclError c_done = aclrtSynchronizeStreamWithTimeout(c, kSyncTimeoutMs);
  if (a_done != ACL_SUCCESS || b_done != ACL_SUCCESS || c_done != ACL_SUCCESS) {
    abandoned_ = true;  // the worker is stuck: resetting the device would hang
  }
  ASSERT_EQ(b_done, ACL_SUCCESS) << "deadlock: a waiting stream holds the only worker";
  ASSERT_EQ(a_done, ACL_SUCCESS);
  ASSERT_EQ(c_done, ACL_SUCCESS);
  EXPECT_TRUE(c_ran);
  EXPECT_EQ(b_work.seen, 1);
  EXPECT_EQ(aclrtDestroyEvent(e0), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyEvent(e1), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyStream(a), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyStream(b), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyStream(c), ACL_SUCCESS);
}

}  // namespace
