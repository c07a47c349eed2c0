// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "runtime/report.h"

#include <pthread.h>

#include <chrono>
#include <vector>

#include "base/log.h"
#include "runtime/profiler.h"

namespace kiln::runtime {

Status ReportHub::Subscribe(uint64_t thread_id, Stream& stream) {
  if (thread_id == 0) return Error(code::kInvalidParam, "thread id 0 is invalid");
  std::lock_guard<std::mutex> lock(mu_);
  uint64_t current = stream.report_thread.load();
  if (current != 0) {
    return Error(code::kRtStreamSubscribe, "stream ", PtrStr(&stream), " already has thread ",
                 current, " subscribed for its callbacks");
  }
  auto& q = threads_[thread_id];
  if (!q) q = std::make_shared<ThreadQueue>();
  q->streams.insert(&stream);
  stream.report_thread.store(thread_id);
  return Status::Ok();
}

void ReportHub::DropLocked(ThreadQueue& q, const Stream* stream) {
  for (auto it = q.items.begin(); it != q.items.end();) {
    if (it->stream == stream) {
      KILN_LOG(kRuntime, kWarning, "dropping a callback of stream ", PtrStr(stream),
               " that no thread processed before it was unsubscribed");
      if (it->gate) it->gate->SignalFromHost();
      it = q.items.erase(it);
    } else {
      ++it;
    }
  }
}

Status ReportHub::Unsubscribe(uint64_t thread_id, Stream& stream) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = threads_.find(thread_id);
  if (it == threads_.end() || stream.report_thread.load() != thread_id) {
    return Error(code::kRtThreadSubscribe, "thread ", thread_id, " is not subscribed to stream ",
                 PtrStr(&stream));
  }
  DropLocked(*it->second, &stream);
  it->second->streams.erase(&stream);
  stream.report_thread.store(0);
  if (it->second->streams.empty()) {
    it->second->cv.notify_all();  // a thread waiting in Process sees it has nothing left
    threads_.erase(it);
  }
  return Status::Ok();
}

void ReportHub::ForgetStream(Stream& stream) {
  uint64_t tid = stream.report_thread.load();
  if (tid != 0) (void)Unsubscribe(tid, stream);
}

Status ReportHub::Launch(HostCallback fn, void* user_data, std::shared_ptr<hal::Event> gate,
                         const std::shared_ptr<Stream>& s) {
  uint64_t tid = s->report_thread.load();
  if (tid == 0) {
    return Error(code::kRtStreamNoCbReg, "no thread is subscribed to stream ", PtrStr(s.get()),
                 " (call aclrtSubscribeReport first)");
  }
  if (gate) gate->RecordOnHost();  // pending now, so the wait below has something to wait for
  const Stream* key = s.get();
  s->queue().Submit(TimedTask(TaskKind::kCallback, *s, "callback handed to the report thread",
                              [this, fn, user_data, key, tid, gate]() -> Status {
                                std::lock_guard<std::mutex> lock(mu_);
                                auto it = threads_.find(tid);
                                if (it == threads_.end() || it->second->streams.count(key) == 0) {
                                  KILN_LOG(kRuntime, kWarning, "callback of stream ", PtrStr(key),
                                           " dropped: thread ", tid,
                                           " unsubscribed before the stream reached it");
                                  if (gate) gate->SignalFromHost();
                                  return Status::Ok();
                                }
                                it->second->items.push_back(Pending{fn, user_data, key, gate});
                                it->second->cv.notify_all();
                                return Status::Ok();
                              }));
  // BLOCK: later work parks on the gate (no worker held) until the callback has run.
  if (gate) WaitEventTimed(*s, gate, "blocking callback");
  return Status::Ok();
}

Status ReportHub::Process(int32_t timeout_ms) {
  uint64_t tid = static_cast<uint64_t>(pthread_self());
  std::vector<Pending> batch;
  {
    std::unique_lock<std::mutex> lock(mu_);
    auto it = threads_.find(tid);
    if (it == threads_.end()) {
      return Error(code::kRtThreadSubscribe, "thread ", tid,
                   " is not subscribed to any stream (call aclrtSubscribeReport first)");
    }
    std::shared_ptr<ThreadQueue> q = it->second;
    auto ready = [&] { return !q->items.empty() || q->streams.empty(); };
    if (timeout_ms < 0) {
      q->cv.wait(lock, ready);
    } else {
      q->cv.wait_for(lock, std::chrono::milliseconds(timeout_ms), ready);
    }
    if (q->items.empty()) {
      return Error(code::kRtReportTimeout, "no callback arrived within ", timeout_ms, " ms");
    }
    batch.assign(q->items.begin(), q->items.end());
    q->items.clear();
  }
  for (auto& p : batch) {
    p.fn(p.user_data);
    if (p.gate) p.gate->SignalFromHost();
  }
  return Status::Ok();
}

}  // namespace kiln::runtime
