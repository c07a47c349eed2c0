// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>

#include "base/thread_pool.h"
#include "hal/host_event.h"
#include "hal/queue.h"

namespace kiln::cpu {

// A stream on the CPU: a strand over the device's shared ThreadPool. At most one worker runs a
// queue's items at a time, in order; an idle or waiting queue holds no thread, so any number
// of streams share the pool without oversubscribing the cores.
class CpuQueue final : public hal::Queue, public std::enable_shared_from_this<CpuQueue> {
 public:
  explicit CpuQueue(ThreadPool& pool) : pool_(pool) {}

  void Submit(hal::Work work) override;
  void RecordEvent(std::shared_ptr<hal::Event> event) override;
  void WaitEvent(std::shared_ptr<hal::Event> event) override;
  Status Synchronize(int32_t timeout_ms) override;
  bool Idle() const override;
  void SetStopOnFailure(bool stop) override;
  void DiscardPending() override;

 private:
  using Item = hal::HostQueueItem;
  void Push(Item item);
  // Queues a Drain on the pool. Allocates nothing but the pool's queue node (the closure holds
  // only `this`: keep_alive_ holds the queue meanwhile).
  void ScheduleDrain();
  void Drain();
  void Resume(uint64_t park_token);

  ThreadPool& pool_;
  mutable std::mutex mu_;
  std::condition_variable done_cv_;
  std::deque<Item> items_;
  uint64_t submitted_ = 0;
  std::atomic<uint64_t> finished_{0};  // written under mu_; read without it when spinning
  bool scheduled_ = false;             // a Drain is queued, running, or parked on an event
  // The queue's hold on itself while a Drain is queued or running (not while parked: the event's
  // waiter holds a weak reference then, as before).
  std::shared_ptr<CpuQueue> keep_alive_;
  bool parked_ = false;
  uint64_t park_token_ = 0;
  bool stop_on_failure_ = false;
  bool failed_ = false;
  Status first_error_;
};

}  // namespace kiln::cpu
