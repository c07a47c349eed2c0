// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Runtime micro-benchmarks through the public API (libascendcl.so):
// - a per-frame allocate / use / free loop of image-sized buffers, aclrtMalloc/aclrtFree vs
//   malloc/free ("use" touches every page, as a pre-processing stage writing a frame would);
// - enqueue-to-completion latency of an empty stream task;
// - event record / synchronize round trip.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <cstring>

#include "acl/acl.h"

namespace {

constexpr size_t kPage = 4096;

// One session of the runtime for the whole process.
struct Session {
  Session() {
    if (aclInit(nullptr) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS) std::abort();
  }
  ~Session() {
    (void)aclrtResetDevice(0);
    (void)aclFinalize();
  }
};

Session& GetSession() {
  static Session session;
  return session;
}

void TouchPages(void* p, size_t bytes) {
  auto* c = static_cast<volatile unsigned char*>(p);
  for (size_t i = 0; i < bytes; i += kPage) c[i] = static_cast<unsigned char>(i);
}

void FrameArgs(benchmark::internal::Benchmark* b) {
  b->Arg(640 * 480 * 3)->Arg(1920 * 1080 * 3)->Arg(3840 * 2160 * 3);
}

void BM_FrameLoop_AclrtMalloc(benchmark::State& state) {
  GetSession();
  size_t bytes = static_cast<size_t>(state.range(0));
  for (auto _ : state) {
    void* p = nullptr;
    if (aclrtMalloc(&p, bytes, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) {
      state.SkipWithError("aclrtMalloc failed");
      break;
    }
    TouchPages(p, bytes);
    benchmark::DoNotOptimize(p);
    (void)aclrtFree(p);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * state.range(0));
}
BENCHMARK(BM_FrameLoop_AclrtMalloc)->Apply(FrameArgs);

void BM_FrameLoop_Malloc(benchmark::State& state) {
  size_t bytes = static_cast<size_t>(state.range(0));
  for (auto _ : state) {
    void* p = std::malloc(bytes);
    if (p == nullptr) {
      state.SkipWithError("malloc failed");
      break;
    }
    TouchPages(p, bytes);
    benchmark::DoNotOptimize(p);
    std::free(p);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * state.range(0));
}
BENCHMARK(BM_FrameLoop_Malloc)->Apply(FrameArgs);

void EmptyTask(void*) {}

void BM_EmptyTaskEnqueueToCompletion(benchmark::State& state) {
  GetSession();
  aclrtStream stream = nullptr;
  if (aclrtCreateStream(&stream) != ACL_SUCCESS) std::abort();
  for (auto _ : state) {
    (void)aclrtLaunchHostFunc(stream, EmptyTask, nullptr);
    (void)aclrtSynchronizeStream(stream);
  }
  (void)aclrtDestroyStream(stream);
}
BENCHMARK(BM_EmptyTaskEnqueueToCompletion)->UseRealTime();

void BM_EventRecordSynchronizeRoundTrip(benchmark::State& state) {
  GetSession();
  aclrtStream stream = nullptr;
  aclrtEvent event = nullptr;
  if (aclrtCreateStream(&stream) != ACL_SUCCESS || aclrtCreateEvent(&event) != ACL_SUCCESS) {
    std::abort();
  }
  for (auto _ : state) {
    (void)aclrtRecordEvent(event, stream);
    (void)aclrtSynchronizeEvent(event);
  }
  (void)aclrtDestroyEvent(event);
  (void)aclrtDestroyStream(stream);
}
BENCHMARK(BM_EventRecordSynchronizeRoundTrip)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
