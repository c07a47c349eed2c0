// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Thread-safety tests of the runtime API: many application threads creating, using and
// destroying streams, events and memory at once, on their own streams and on the shared default
// stream, and many threads feeding one stream. Sized to finish in seconds on two cores and to
// stay practical under ThreadSanitizer and AddressSanitizer.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "acl/acl.h"

namespace {

constexpr int kThreads = 8;
constexpr int kIterations = 200;           // per thread
constexpr int32_t kSyncTimeoutMs = 10000;  // bounds every wait a bug could turn into a hang
constexpr size_t kBytes = 256;

// Checks a call made on a worker thread; gtest assertions are thread-safe, and the caller stops
// at the first failure so that one bug does not print thousands of lines.
bool Ok(aclError result, const char* call, int thread, int iteration) {
  if (result == ACL_SUCCESS) return true;
  ADD_FAILURE() << "thread " << thread << ", iteration " << iteration << ": " << call
                << " returned " << result;
  return false;
}
#define OK_OR_RETURN(call) \
  if (!Ok((call), #call, thread, iteration)) return

void Increment(void* counter) { ++*static_cast<int*>(counter); }
void IncrementAtomic(void* counter) { static_cast<std::atomic<int>*>(counter)->fetch_add(1); }

class ThreadSafetyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
    ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
    ASSERT_EQ(aclrtGetCurrentContext(&context_), ACL_SUCCESS);
  }
  void TearDown() override {
    // After a failure the runtime may be deadlocked, and resetting the device would wait for it
    // forever: leave the clean-up to the process exit so that the test fails instead of hanging.
    if (HasFailure()) return;
    EXPECT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
    EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
  }

  aclrtContext context_ = nullptr;
};

// What one thread of ConcurrentThreadsCreateUseAndDestroyStreamsEventsAndMemory counts.
struct WorkerCounts {
  int own_stream_funcs = 0;  // touched only by tasks of the thread's own (serial) streams
  int iterations_done = 0;
};

void Worker(int thread, std::atomic<int>* default_stream_funcs, WorkerCounts* counts) {
  int iteration = -1;
  OK_OR_RETURN(aclrtSetDevice(0));  // shares the device's default context (and stream)
  void* out = nullptr;              // filled from the thread's own stream
  void* fill = nullptr;             // filled by the shared default stream
  OK_OR_RETURN(aclrtMallocHost(&out, kBytes));
  OK_OR_RETURN(aclrtMallocHost(&fill, kBytes));
  for (iteration = 0; iteration < kIterations; ++iteration) {
    const auto value = static_cast<unsigned char>(thread * 31 + iteration);
    const auto default_value = static_cast<unsigned char>(~value);
    aclrtStream stream = nullptr;
    aclrtEvent own_done = nullptr, default_done = nullptr;
    void* dev = nullptr;
    OK_OR_RETURN(aclrtCreateStream(&stream));
    OK_OR_RETURN(aclrtCreateEventWithFlag(&own_done, ACL_EVENT_SYNC));
    OK_OR_RETURN(aclrtCreateEventWithFlag(&default_done, ACL_EVENT_SYNC));
    OK_OR_RETURN(aclrtMalloc(&dev, kBytes, ACL_MEM_MALLOC_HUGE_FIRST));

    // Own stream: fill device memory, copy it out, count, record.
    OK_OR_RETURN(aclrtMemsetAsync(dev, kBytes, value, kBytes, stream));
    OK_OR_RETURN(aclrtMemcpyAsync(out, kBytes, dev, kBytes, ACL_MEMCPY_DEVICE_TO_HOST, stream));
    OK_OR_RETURN(aclrtLaunchHostFunc(stream, Increment, &counts->own_stream_funcs));
    OK_OR_RETURN(aclrtRecordEvent(own_done, stream));
    // Shared default stream: wait for this thread's stream, fill, count, record.
    OK_OR_RETURN(aclrtStreamWaitEvent(nullptr, own_done));
    OK_OR_RETURN(aclrtMemsetAsync(fill, kBytes, default_value, kBytes, nullptr));
    OK_OR_RETURN(aclrtLaunchHostFunc(nullptr, IncrementAtomic, default_stream_funcs));
    OK_OR_RETURN(aclrtRecordEvent(default_done, nullptr));
    // Own stream again: wait for the default stream to get this far.
    OK_OR_RETURN(aclrtStreamWaitEvent(stream, default_done));
    OK_OR_RETURN(aclrtLaunchHostFunc(stream, Increment, &counts->own_stream_funcs));

    OK_OR_RETURN(aclrtSynchronizeStreamWithTimeout(stream, kSyncTimeoutMs));
    OK_OR_RETURN(aclrtSynchronizeEventWithTimeout(default_done, kSyncTimeoutMs));
    const auto* out_bytes = static_cast<const unsigned char*>(out);
    const auto* fill_bytes = static_cast<const unsigned char*>(fill);
    for (size_t i = 0; i < kBytes; ++i) {
      if (out_bytes[i] != value || fill_bytes[i] != default_value) {
        ADD_FAILURE() << "thread " << thread << ", iteration " << iteration << ": byte " << i
                      << " is " << int{out_bytes[i]} << "/" << int{fill_bytes[i]} << ", expected "
                      << int{value} << "/" << int{default_value};
        return;
      }
    }
    // A synchronous copy and fill between the thread's buffers.
    OK_OR_RETURN(aclrtMemset(dev, kBytes, 0, kBytes));
    OK_OR_RETURN(aclrtMemcpy(dev, kBytes, fill, kBytes, ACL_MEMCPY_HOST_TO_DEVICE));
    OK_OR_RETURN(aclrtMemcpy(out, kBytes, dev, kBytes, ACL_MEMCPY_DEVICE_TO_HOST));
    if (std::memcmp(out, fill, kBytes) != 0) {
      ADD_FAILURE() << "thread " << thread << ", iteration " << iteration
                    << ": synchronous round trip changed the data";
      return;
    }

    OK_OR_RETURN(aclrtFree(dev));
    OK_OR_RETURN(aclrtDestroyEvent(own_done));
    OK_OR_RETURN(aclrtDestroyEvent(default_done));
    OK_OR_RETURN(aclrtDestroyStream(stream));
    ++counts->iterations_done;
  }
  OK_OR_RETURN(aclrtSynchronizeStreamWithTimeout(nullptr, kSyncTimeoutMs));
  OK_OR_RETURN(aclrtFreeHost(out));
  OK_OR_RETURN(aclrtFreeHost(fill));
  OK_OR_RETURN(aclrtResetDevice(0));
}

TEST_F(ThreadSafetyTest, ConcurrentThreadsCreateUseAndDestroyStreamsEventsAndMemory) {
  std::atomic<int> default_stream_funcs{0};
  std::vector<WorkerCounts> counts(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back(Worker, t, &default_stream_funcs, &counts[t]);
  }
  for (auto& thread : threads) thread.join();

  ASSERT_EQ(aclrtSynchronizeStreamWithTimeout(nullptr, kSyncTimeoutMs), ACL_SUCCESS);
  EXPECT_EQ(default_stream_funcs.load(), kThreads * kIterations);
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_EQ(counts[t].iterations_done, kIterations) << "thread " << t;
    EXPECT_EQ(counts[t].own_stream_funcs, 2 * kIterations) << "thread " << t;
  }
}

TEST_F(ThreadSafetyTest, ThreadsSharingOneStreamRunEveryHostFuncExactlyOnceAndOneAtATime) {
  aclrtStream shared = nullptr;
  ASSERT_EQ(aclrtCreateStream(&shared), ACL_SUCCESS);
  struct Shared {
    int64_t count = 0;  // plain: tasks of one stream never overlap
    std::atomic<int> inside{0};
    std::atomic<int> overlaps{0};
  } state;
  auto count = [](void* p) {
    auto* s = static_cast<Shared*>(p);
    if (s->inside.fetch_add(1) != 0) s->overlaps.fetch_add(1);
    ++s->count;
    s->inside.fetch_sub(1);
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([this, shared, &state, count, thread = t] {
      int iteration = -1;
      OK_OR_RETURN(aclrtSetCurrentContext(context_));
      for (iteration = 0; iteration < kIterations; ++iteration) {
        OK_OR_RETURN(aclrtLaunchHostFunc(shared, count, &state));
      }
    });
  }
  for (auto& thread : threads) thread.join();
  ASSERT_EQ(aclrtSynchronizeStreamWithTimeout(shared, kSyncTimeoutMs), ACL_SUCCESS);
  EXPECT_EQ(state.count, int64_t{kThreads} * kIterations);
  EXPECT_EQ(state.overlaps.load(), 0) << "two tasks of one stream ran at the same time";
  EXPECT_EQ(aclrtDestroyStream(shared), ACL_SUCCESS);
}

}  // namespace
