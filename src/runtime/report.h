// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// AscendCL's host-callback ("report") mechanism (ascendcl-reference.md §1.7): a thread
// subscribes to streams by its pthread_t, callbacks launched on those streams are handed to it
// when the stream reaches them, and it runs them inside aclrtProcessReport.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <unordered_set>

#include "base/status.h"
#include "runtime/objects.h"

namespace kiln::runtime {

using HostCallback = void (*)(void* user_data);

class ReportHub {
 public:
  // kRtStreamSubscribe when `stream` already has a thread.
  Status Subscribe(uint64_t thread_id, Stream& stream);
  // kRtThreadSubscribe when `thread_id` is not the stream's thread. Callbacks of the stream
  // still waiting for the thread are dropped (their stream goes on).
  Status Unsubscribe(uint64_t thread_id, Stream& stream);
  // Enqueues the callback on the stream. kRtStreamNoCbReg when nobody subscribed. With a
  // `gate` (BLOCK), the stream's later work waits on it until the callback has run; the wait
  // parks the stream and holds no worker.
  Status Launch(HostCallback fn, void* user_data, std::shared_ptr<hal::Event> gate,
                const std::shared_ptr<Stream>& s);
  // Runs the callbacks waiting for the calling thread, waiting up to `timeout_ms` (-1: forever)
  // for the first. kRtThreadSubscribe when the thread serves no stream; kRtReportTimeout when
  // nothing came in time.
  Status Process(int32_t timeout_ms);
  // Forgets `stream` (destroyed): drops its waiting callbacks.
  void ForgetStream(Stream& stream);

 private:
  struct Pending {
    HostCallback fn;
    void* user_data;
    const Stream* stream;              // identity only: never dereferenced
    std::shared_ptr<hal::Event> gate;  // BLOCK only: signalled once the callback has run
  };
  struct ThreadQueue {
    std::deque<Pending> items;
    std::unordered_set<const Stream*> streams;
    std::condition_variable cv;
  };
  void DropLocked(ThreadQueue& q, const Stream* stream);

  std::mutex mu_;
  std::unordered_map<uint64_t, std::shared_ptr<ThreadQueue>> threads_;
};

}  // namespace kiln::runtime
