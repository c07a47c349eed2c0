// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "backends/cpu/cpu_queue.h"

#include <chrono>
#include <exception>
#include <new>

namespace kiln::cpu {
namespace {
// Items one Drain runs before it yields the worker to other streams.
constexpr int kDrainBudget = 32;
}  // namespace

void CpuQueue::Submit(hal::Work work) { Push(hal::HostQueueItem::Of(std::move(work))); }

void CpuQueue::RecordEvent(std::shared_ptr<hal::Event> event) {
  Push(hal::HostQueueItem::Record(std::move(event)));
}

void CpuQueue::WaitEvent(std::shared_ptr<hal::Event> event) {
  hal::HostQueueItem item = hal::HostQueueItem::Wait(std::move(event));
  if (!item.empty()) Push(std::move(item));
}

void CpuQueue::Push(Item item) {
  bool schedule = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    items_.push_back(std::move(item));  // may throw: then nothing changed
    ++submitted_;
    if (!scheduled_) {
      schedule = scheduled_ = true;
      keep_alive_ = shared_from_this();
    }
  }
  if (schedule) ScheduleDrain();
}

void CpuQueue::ScheduleDrain() {
  pool_.Schedule([queue = this] { queue->Drain(); });
}

void CpuQueue::Resume(uint64_t park_token) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!parked_ || park_token != park_token_) return;  // discarded meanwhile
    parked_ = false;
    keep_alive_ = shared_from_this();
  }
  ScheduleDrain();
}

void CpuQueue::Drain() {
  // The queue's hold on itself when this drain stops; declared first, so it goes last, after
  // every other use of the queue here.
  std::shared_ptr<CpuQueue> release;
  for (int budget = kDrainBudget; budget > 0; --budget) {
    Item item;
    {
      std::unique_lock<std::mutex> lock(mu_);
      if (items_.empty()) {
        scheduled_ = false;
        release = std::move(keep_alive_);
        return;
      }
      Item& front = items_.front();
      if (front.wait) {
        uint64_t token = ++park_token_;
        std::weak_ptr<CpuQueue> weak = weak_from_this();
        bool parked = false;
        try {
          parked = front.wait->AddWaiterIfPending(front.gen, [weak, token] {
            if (auto self = weak.lock()) self->Resume(token);
          });
        } catch (const std::bad_alloc&) {
          break;  // no memory to park: look again on the next drain
        }
        if (parked) {
          parked_ = true;  // scheduled_ stays true: Resume reschedules
          release = std::move(keep_alive_);
          return;
        }
        items_.pop_front();
        ++finished_;
        done_cv_.notify_all();
        continue;
      }
      item = std::move(front);
      items_.pop_front();
      if (failed_ && stop_on_failure_ && item.work) {
        ++finished_;  // discarded by ACL_STOP_ON_FAILURE
        done_cv_.notify_all();
        continue;
      }
    }
    Status status;
    if (item.work) status = hal::RunWork(item.work);
    if (item.record) item.record->Complete(item.gen);
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!status.ok() && !failed_) {
        failed_ = true;
        first_error_ = std::move(status);
      }
      ++finished_;
    }
    done_cv_.notify_all();
  }
  ScheduleDrain();  // budget spent: let other queues' items run first
}

Status CpuQueue::Synchronize(int32_t timeout_ms) {
  std::unique_lock<std::mutex> lock(mu_);
  uint64_t target = submitted_;
  if (finished_.load() < target && timeout_ms != 0) {
    // Short tasks finish within microseconds: spin before paying for a sleep and a wake-up.
    lock.unlock();
    for (int spin = 0;
         spin < kSpinBeforeSleep && finished_.load(std::memory_order_acquire) < target; ++spin) {
      SpinPause(spin);
    }
    lock.lock();
  }
  auto done = [&] { return finished_ >= target; };
  if (timeout_ms < 0) {
    done_cv_.wait(lock, done);
  } else if (!done_cv_.wait_for(lock, std::chrono::milliseconds(timeout_ms), done)) {
    return Error(code::kRtStreamSyncTimeout, "stream has ", submitted_ - finished_.load(),
                 " unfinished task(s) after ", timeout_ms, " ms");
  }
  Status result = std::move(first_error_);
  first_error_ = Status::Ok();
  failed_ = false;
  return result;
}

bool CpuQueue::Idle() const {
  std::lock_guard<std::mutex> lock(mu_);
  return finished_.load() == submitted_;
}

void CpuQueue::SetStopOnFailure(bool stop) {
  std::lock_guard<std::mutex> lock(mu_);
  stop_on_failure_ = stop;
}

void CpuQueue::DiscardPending() {
  std::deque<Item> dropped;
  {
    std::lock_guard<std::mutex> lock(mu_);
    finished_ += items_.size();
    dropped.swap(items_);
    if (parked_) {
      parked_ = false;
      scheduled_ = false;
      ++park_token_;
    }
  }
  // Records that will never be reached must not leave waiters hanging.
  for (auto& item : dropped) {
    if (item.record) item.record->Complete(item.gen);
  }
  done_cv_.notify_all();
}

}  // namespace kiln::cpu
