// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Contract tests of host callbacks (ascendcl-reference.md §1.7 and Kiln's decisions): the report
// mechanism (aclrtSubscribeReport / aclrtProcessReport / aclrtLaunchCallback) with its thread,
// ordering, BLOCK semantics and error codes, and aclrtLaunchHostFunc.
#include <gtest/gtest.h>
#include <pthread.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "acl/acl.h"
#include "tests/capi/wait_helpers.h"

namespace {

using std::chrono::milliseconds;

using kiln::testing::CallWithin;
using kiln::testing::Gate;
using kiln::testing::kGateLimit;
using kiln::testing::kSyncTimeoutMs;
using kiln::testing::kWaitLimit;

uint64_t SelfId() { return static_cast<uint64_t>(pthread_self()); }

// A thread that serves host callbacks, as CANN samples write it: it publishes its pthread_self()
// value, waits until the test has subscribed it to a stream, then loops aclrtProcessReport(100)
// until stopped. Results other than success and ACL_ERROR_RT_REPORT_TIMEOUT are counted.
class ReportThread {
 public:
  explicit ReportThread(aclrtContext context) : context_(context), thread_([this] { Run(); }) {}
  ~ReportThread() { Stop(); }

  // The thread's pthread_self() value (0 if it never started).
  uint64_t id() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait_for(lock, kWaitLimit, [this] { return id_ != 0; });
    return id_;
  }
  // Starts the processing loop; call once the thread is subscribed.
  void Start() {
    std::lock_guard<std::mutex> lock(mu_);
    started_ = true;
    cv_.notify_all();
  }
  // Ends the loop and joins; call before unsubscribing the thread.
  void Stop() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
      cv_.notify_all();
    }
    if (thread_.joinable()) thread_.join();
  }
  int unexpected_results() const { return unexpected_results_; }
  aclError last_unexpected_result() const { return last_unexpected_; }

 private:
  void Run() {
    if (aclrtSetCurrentContext(context_) != ACL_SUCCESS) ++unexpected_results_;
    {
      std::unique_lock<std::mutex> lock(mu_);
      id_ = SelfId();
      cv_.notify_all();
      cv_.wait_for(lock, kWaitLimit, [this] { return started_ || stop_; });
      if (!started_) return;
    }
    for (;;) {
      {
        std::lock_guard<std::mutex> lock(mu_);
        if (stop_) return;
      }
      aclError result = aclrtProcessReport(100);
      if (result != ACL_SUCCESS && result != ACL_ERROR_RT_REPORT_TIMEOUT) {
        ++unexpected_results_;
        last_unexpected_ = result;
      }
    }
  }

  aclrtContext context_;
  std::mutex mu_;
  std::condition_variable cv_;
  uint64_t id_ = 0;
  bool started_ = false;
  bool stop_ = false;
  std::atomic<int> unexpected_results_{0};
  std::atomic<aclError> last_unexpected_{ACL_SUCCESS};
  std::thread thread_;  // last: starts after the members it uses
};

// What each callback saw: its index and the thread it ran on.
struct CallLog {
  std::mutex mu;
  std::condition_variable cv;
  std::vector<std::pair<int, uint64_t>> calls;

  bool WaitForCalls(size_t n) {
    std::unique_lock<std::mutex> lock(mu);
    return cv.wait_for(lock, kWaitLimit, [&] { return calls.size() >= n; });
  }
};

struct Call {
  CallLog* log;
  int index;
  static void Run(void* p) {
    auto* call = static_cast<Call*>(p);
    std::lock_guard<std::mutex> lock(call->log->mu);
    call->log->calls.emplace_back(call->index, SelfId());
    call->log->cv.notify_all();
  }
};

void SetFlag(void* flag) { static_cast<std::atomic<bool>*>(flag)->store(true); }

// Records, when it runs, whether `flag` was already set: 1 yes, 0 no, -1 not run.
struct Observe {
  const std::atomic<bool>* flag;
  std::atomic<int> seen{-1};
  static void Run(void* p) {
    auto* self = static_cast<Observe*>(p);
    self->seen = self->flag->load() ? 1 : 0;
  }
};

class CallbackTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
    ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
    ASSERT_EQ(aclrtGetCurrentContext(&context_), ACL_SUCCESS);
    ASSERT_EQ(aclrtCreateStream(&stream_), ACL_SUCCESS);
    open_ = true;
  }

  void TearDown() override {
    gate_.Open();
    if (open_) {
      EXPECT_EQ(aclrtDestroyStream(stream_), ACL_SUCCESS);
      EXPECT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
      EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
    }
  }

  aclrtContext context_ = nullptr;
  aclrtStream stream_ = nullptr;
  Gate gate_;
  bool open_ = false;
};

TEST_F(CallbackTest, CallbacksRunOnTheSubscribedThreadInLaunchOrder) {
  ReportThread reporter(context_);
  uint64_t tid = reporter.id();
  ASSERT_NE(tid, 0u);
  ASSERT_EQ(aclrtSubscribeReport(tid, stream_), ACL_SUCCESS);
  reporter.Start();

  constexpr int kCalls = 20;
  CallLog log;
  std::vector<Call> calls;
  for (int i = 0; i < kCalls; ++i) calls.push_back(Call{&log, i});
  for (int i = 0; i < kCalls; ++i) {
    auto block = i % 2 ? ACL_CALLBACK_BLOCK : ACL_CALLBACK_NO_BLOCK;
    ASSERT_EQ(aclrtLaunchCallback(Call::Run, &calls[i], block, stream_), ACL_SUCCESS);
  }
  ASSERT_TRUE(log.WaitForCalls(kCalls)) << "only " << log.calls.size() << " callbacks ran";
  EXPECT_EQ(aclrtSynchronizeStreamWithTimeout(stream_, kSyncTimeoutMs), ACL_SUCCESS);

  reporter.Stop();
  EXPECT_EQ(aclrtUnSubscribeReport(tid, stream_), ACL_SUCCESS);
  EXPECT_EQ(reporter.unexpected_results(), 0) << reporter.last_unexpected_result();
  std::lock_guard<std::mutex> lock(log.mu);
  ASSERT_EQ(log.calls.size(), static_cast<size_t>(kCalls));
  for (int i = 0; i < kCalls; ++i) {
    EXPECT_EQ(log.calls[i].first, i);
    EXPECT_EQ(log.calls[i].second, tid) << "callback " << i << " ran on another thread";
  }
}

TEST_F(CallbackTest, CallbacksOfTheNullStreamRunOnTheThreadSubscribedToTheDefaultStream) {
  ReportThread reporter(context_);
  uint64_t tid = reporter.id();
  ASSERT_NE(tid, 0u);
  ASSERT_EQ(aclrtSubscribeReport(tid, nullptr), ACL_SUCCESS);
  reporter.Start();
  CallLog log;
  Call call{&log, 7};
  ASSERT_EQ(aclrtLaunchCallback(Call::Run, &call, ACL_CALLBACK_BLOCK, nullptr), ACL_SUCCESS);
  ASSERT_TRUE(log.WaitForCalls(1));
  EXPECT_EQ(aclrtSynchronizeStreamWithTimeout(nullptr, kSyncTimeoutMs), ACL_SUCCESS);
  reporter.Stop();
  EXPECT_EQ(aclrtUnSubscribeReport(tid, nullptr), ACL_SUCCESS);
  std::lock_guard<std::mutex> lock(log.mu);
  ASSERT_EQ(log.calls.size(), 1u);
  EXPECT_EQ(log.calls[0].first, 7);
  EXPECT_EQ(log.calls[0].second, tid);
}

TEST_F(CallbackTest, BlockCallbackHoldsTheLaterTasksOfItsStreamUntilItReturns) {
  ReportThread reporter(context_);
  uint64_t tid = reporter.id();
  ASSERT_NE(tid, 0u);
  ASSERT_EQ(aclrtSubscribeReport(tid, stream_), ACL_SUCCESS);
  reporter.Start();

  // The callback waits for the gate, then leaves a side effect the next task looks for.
  struct Blocker {
    Gate* gate;
    std::atomic<bool> done{false};
    static void Run(void* p) {
      auto* self = static_cast<Blocker*>(p);
      self->gate->Pass();
      self->done = true;
    }
  } blocker{&gate_};
  Observe after{&blocker.done};
  ASSERT_EQ(aclrtLaunchCallback(Blocker::Run, &blocker, ACL_CALLBACK_BLOCK, stream_), ACL_SUCCESS);
  ASSERT_EQ(aclrtLaunchHostFunc(stream_, Observe::Run, &after), ACL_SUCCESS);

  ASSERT_TRUE(gate_.WaitUntilEntered()) << "the callback never ran";
  aclrtStreamStatus status = ACL_STREAM_STATUS_RESERVED;
  EXPECT_EQ(aclrtStreamQuery(stream_, &status), ACL_SUCCESS);
  EXPECT_EQ(status, ACL_STREAM_STATUS_NOT_READY);
  EXPECT_EQ(aclrtSynchronizeStreamWithTimeout(stream_, 0), ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
  gate_.Open();
  EXPECT_EQ(aclrtSynchronizeStreamWithTimeout(stream_, kSyncTimeoutMs), ACL_SUCCESS);
  EXPECT_EQ(after.seen, 1) << "a task ran before the BLOCK callback ahead of it returned";
  status = ACL_STREAM_STATUS_RESERVED;
  EXPECT_EQ(aclrtStreamQuery(stream_, &status), ACL_SUCCESS);
  EXPECT_EQ(status, ACL_STREAM_STATUS_COMPLETE);

  reporter.Stop();
  EXPECT_EQ(aclrtUnSubscribeReport(tid, stream_), ACL_SUCCESS);
  EXPECT_EQ(reporter.unexpected_results(), 0) << reporter.last_unexpected_result();
}

TEST_F(CallbackTest, LaunchCallbackOnAStreamWithoutASubscriberFails) {
  CallLog log;
  Call call{&log, 0};
  EXPECT_EQ(aclrtLaunchCallback(Call::Run, &call, ACL_CALLBACK_NO_BLOCK, stream_),
            ACL_ERROR_RT_STREAM_NO_CB_REG);
  EXPECT_EQ(aclrtLaunchCallback(Call::Run, &call, ACL_CALLBACK_BLOCK, nullptr),
            ACL_ERROR_RT_STREAM_NO_CB_REG);
}

TEST_F(CallbackTest, LaunchCallbackAfterUnsubscribingFails) {
  ASSERT_EQ(aclrtSubscribeReport(SelfId(), stream_), ACL_SUCCESS);
  ASSERT_EQ(aclrtUnSubscribeReport(SelfId(), stream_), ACL_SUCCESS);
  CallLog log;
  Call call{&log, 0};
  EXPECT_EQ(aclrtLaunchCallback(Call::Run, &call, ACL_CALLBACK_NO_BLOCK, stream_),
            ACL_ERROR_RT_STREAM_NO_CB_REG);
}

TEST_F(CallbackTest, SubscribingASecondThreadToAStreamFails) {
  ReportThread other(context_);
  uint64_t other_id = other.id();
  ASSERT_NE(other_id, 0u);
  ASSERT_EQ(aclrtSubscribeReport(other_id, stream_), ACL_SUCCESS);
  EXPECT_EQ(aclrtSubscribeReport(SelfId(), stream_), ACL_ERROR_RT_STREAM_SUBSCRIBE);
  other.Stop();
  EXPECT_EQ(aclrtUnSubscribeReport(other_id, stream_), ACL_SUCCESS);
  // Once the stream is free, another thread may take it.
  EXPECT_EQ(aclrtSubscribeReport(SelfId(), stream_), ACL_SUCCESS);
  EXPECT_EQ(aclrtUnSubscribeReport(SelfId(), stream_), ACL_SUCCESS);
}

TEST_F(CallbackTest, OneThreadMayServeSeveralStreams) {
  aclrtStream second = nullptr;
  ASSERT_EQ(aclrtCreateStream(&second), ACL_SUCCESS);
  ReportThread reporter(context_);
  uint64_t tid = reporter.id();
  ASSERT_NE(tid, 0u);
  ASSERT_EQ(aclrtSubscribeReport(tid, stream_), ACL_SUCCESS);
  ASSERT_EQ(aclrtSubscribeReport(tid, second), ACL_SUCCESS);
  reporter.Start();
  CallLog log;
  Call first_call{&log, 1}, second_call{&log, 2};
  ASSERT_EQ(aclrtLaunchCallback(Call::Run, &first_call, ACL_CALLBACK_BLOCK, stream_), ACL_SUCCESS);
  ASSERT_EQ(aclrtLaunchCallback(Call::Run, &second_call, ACL_CALLBACK_BLOCK, second), ACL_SUCCESS);
  ASSERT_TRUE(log.WaitForCalls(2));
  EXPECT_EQ(aclrtSynchronizeStreamWithTimeout(stream_, kSyncTimeoutMs), ACL_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeStreamWithTimeout(second, kSyncTimeoutMs), ACL_SUCCESS);
  reporter.Stop();
  EXPECT_EQ(aclrtUnSubscribeReport(tid, stream_), ACL_SUCCESS);
  EXPECT_EQ(aclrtUnSubscribeReport(tid, second), ACL_SUCCESS);
  std::lock_guard<std::mutex> lock(log.mu);
  for (const auto& call : log.calls) EXPECT_EQ(call.second, tid);
  EXPECT_EQ(aclrtDestroyStream(second), ACL_SUCCESS);
}

TEST_F(CallbackTest, ProcessReportFromAThreadSubscribedToNothingFails) {
  EXPECT_EQ(aclrtProcessReport(10), ACL_ERROR_RT_THREAD_SUBSCRIBE);
}

TEST_F(CallbackTest, ProcessReportWithNothingPendingTimesOut) {
  ASSERT_EQ(aclrtSubscribeReport(SelfId(), stream_), ACL_SUCCESS);
  EXPECT_EQ(aclrtProcessReport(10), ACL_ERROR_RT_REPORT_TIMEOUT);
  EXPECT_EQ(aclrtUnSubscribeReport(SelfId(), stream_), ACL_SUCCESS);
  // Unsubscribed again, the thread serves nothing.
  EXPECT_EQ(aclrtProcessReport(10), ACL_ERROR_RT_THREAD_SUBSCRIBE);
}

TEST_F(CallbackTest, UnSubscribeReportByAThreadThatIsNotSubscribedFails) {
  EXPECT_EQ(aclrtUnSubscribeReport(SelfId(), stream_), ACL_ERROR_RT_THREAD_SUBSCRIBE);
  ReportThread other(context_);
  uint64_t other_id = other.id();
  ASSERT_NE(other_id, 0u);
  ASSERT_EQ(aclrtSubscribeReport(other_id, stream_), ACL_SUCCESS);
  EXPECT_EQ(aclrtUnSubscribeReport(SelfId(), stream_), ACL_ERROR_RT_THREAD_SUBSCRIBE);
  other.Stop();
  EXPECT_EQ(aclrtUnSubscribeReport(other_id, stream_), ACL_SUCCESS);
}

TEST_F(CallbackTest, LaunchCallbackRejectsANullFnAndAnUnknownBlockType) {
  ASSERT_EQ(aclrtSubscribeReport(SelfId(), stream_), ACL_SUCCESS);
  CallLog log;
  Call call{&log, 0};
  EXPECT_EQ(aclrtLaunchCallback(nullptr, &call, ACL_CALLBACK_NO_BLOCK, stream_),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtLaunchCallback(Call::Run, &call, static_cast<aclrtCallbackBlockType>(5), stream_),
            ACL_ERROR_INVALID_PARAM);
  // Nothing was enqueued.
  EXPECT_EQ(aclrtSynchronizeStreamWithTimeout(stream_, kSyncTimeoutMs), ACL_SUCCESS);
  EXPECT_EQ(aclrtProcessReport(10), ACL_ERROR_RT_REPORT_TIMEOUT);
  EXPECT_EQ(aclrtUnSubscribeReport(SelfId(), stream_), ACL_SUCCESS);
  EXPECT_TRUE(log.calls.empty());
}

TEST_F(CallbackTest, LaunchHostFuncRunsFnWithItsArgsInStreamOrder) {
  // Host functions interleaved with fills of one byte: each must see the fill just before it.
  struct Peek {
    const unsigned char* byte;
    std::atomic<int> seen{-1};
    static void Run(void* p) {
      auto* self = static_cast<Peek*>(p);
      self->seen = *self->byte;
    }
  };
  unsigned char byte = 0;
  Peek first{&byte}, second{&byte}, third{&byte};
  ASSERT_EQ(aclrtMemsetAsync(&byte, 1, 1, 1, stream_), ACL_SUCCESS);
  ASSERT_EQ(aclrtLaunchHostFunc(stream_, Peek::Run, &first), ACL_SUCCESS);
  ASSERT_EQ(aclrtMemsetAsync(&byte, 1, 2, 1, stream_), ACL_SUCCESS);
  ASSERT_EQ(aclrtLaunchHostFunc(stream_, Peek::Run, &second), ACL_SUCCESS);
  ASSERT_EQ(aclrtMemsetAsync(&byte, 1, 3, 1, stream_), ACL_SUCCESS);
  ASSERT_EQ(aclrtLaunchHostFunc(stream_, Peek::Run, &third), ACL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStreamWithTimeout(stream_, kSyncTimeoutMs), ACL_SUCCESS);
  EXPECT_EQ(first.seen, 1);
  EXPECT_EQ(second.seen, 2);
  EXPECT_EQ(third.seen, 3);
  EXPECT_EQ(byte, 3);
}

TEST_F(CallbackTest, LaunchHostFuncOnTheNullStreamRunsOnTheDefaultStream) {
  std::atomic<bool> ran{false};
  ASSERT_EQ(aclrtLaunchHostFunc(nullptr, SetFlag, &ran), ACL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStreamWithTimeout(nullptr, kSyncTimeoutMs), ACL_SUCCESS);
  EXPECT_TRUE(ran);
}

TEST_F(CallbackTest, LaunchHostFuncRejectsANullFn) {
  EXPECT_EQ(aclrtLaunchHostFunc(stream_, nullptr, nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtLaunchHostFunc(nullptr, nullptr, nullptr), ACL_ERROR_INVALID_PARAM);
}

}  // namespace
