// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "backends/cuda/cuda_queue.h"

#include <cuda_runtime_api.h>

#include <chrono>
#include <utility>

namespace kiln::cuda {

CudaQueue::CudaQueue(int ordinal) : state_(std::make_shared<State>()) {
  worker_ = std::thread(&CudaQueue::Run, state_, ordinal);
}

CudaQueue::~CudaQueue() {
  DiscardPending();
  {
    std::lock_guard<std::mutex> lock(state_->mu);
    state_->stop = true;
  }
  state_->work_cv.notify_all();
  // The last reference may be dropped by an item on the worker itself: it cannot join itself,
  // and the state it runs on stays alive through its own reference.
  if (worker_.get_id() == std::this_thread::get_id()) {
    worker_.detach();
  } else {
    worker_.join();
  }
}

void CudaQueue::Run(std::shared_ptr<State> state, int ordinal) {
  (void)cudaSetDevice(ordinal);  // a failure shows in the first CUDA call of an item
  State& s = *state;
  std::unique_lock<std::mutex> lock(s.mu);
  for (;;) {
    s.work_cv.wait(lock, [&] { return s.stop || !s.items.empty(); });
    if (s.items.empty()) return;  // stopped
    Item& front = s.items.front();
    if (front.wait) {
      // Parks until the event's generation completes (its waiter sets `released`), a discard
      // drops the item, or the queue ends.
      const uint64_t epoch = s.epoch;
      auto released = std::make_shared<bool>(false);  // guarded by s.mu
      std::weak_ptr<State> weak = state;
      auto wake = [weak, released] {
        if (auto st = weak.lock()) {
          {
            std::lock_guard<std::mutex> guard(st->mu);
            *released = true;
          }
          st->work_cv.notify_all();
        }
      };
      std::shared_ptr<hal::HostEvent> event = front.wait;
      const uint64_t gen = front.gen;
      lock.unlock();  // the waiter may run at once on another thread, and takes the lock
      const bool parked = event->AddWaiterIfPending(gen, std::move(wake));
      lock.lock();
      if (parked) {
        s.work_cv.wait(lock, [&] { return s.stop || s.epoch != epoch || *released; });
      }
      if (s.epoch != epoch) continue;    // discarded meanwhile: the item is gone
      if (parked && !*released) return;  // the queue ends
      s.items.pop_front();
      ++s.finished;
      s.done_cv.notify_all();
      continue;
    }
    Item item = std::move(front);
    s.items.pop_front();
    if (s.failed && s.stop_on_failure && item.work) {
      ++s.finished;  // discarded by ACL_STOP_ON_FAILURE
      s.done_cv.notify_all();
      continue;
    }
    lock.unlock();
    Status status;
    if (item.work) status = hal::RunWork(item.work);
    if (item.record) item.record->Complete(item.gen);
    item = Item();  // the work's captures go before the item counts as finished
    lock.lock();
    if (!status.ok() && !s.failed) {
      s.failed = true;
      s.first_error = std::move(status);
    }
    ++s.finished;
    s.done_cv.notify_all();
  }
}

void CudaQueue::Push(Item item) {
  {
    std::lock_guard<std::mutex> lock(state_->mu);
    state_->items.push_back(std::move(item));  // may throw: then nothing changed
    ++state_->submitted;
  }
  state_->work_cv.notify_all();
}

void CudaQueue::Submit(hal::Work work) { Push(hal::HostQueueItem::Of(std::move(work))); }

void CudaQueue::RecordEvent(std::shared_ptr<hal::Event> event) {
  Push(hal::HostQueueItem::Record(std::move(event)));
}

void CudaQueue::WaitEvent(std::shared_ptr<hal::Event> event) {
  hal::HostQueueItem item = hal::HostQueueItem::Wait(std::move(event));
  if (!item.empty()) Push(std::move(item));
}

Status CudaQueue::Synchronize(int32_t timeout_ms) {
  State& s = *state_;
  std::unique_lock<std::mutex> lock(s.mu);
  const uint64_t target = s.submitted;
  auto done = [&] { return s.finished >= target; };
  if (timeout_ms < 0) {
    s.done_cv.wait(lock, done);
  } else if (!s.done_cv.wait_for(lock, std::chrono::milliseconds(timeout_ms), done)) {
    return Error(code::kRtStreamSyncTimeout, "stream has ", s.submitted - s.finished,
                 " unfinished task(s) after ", timeout_ms, " ms");
  }
  Status result = std::move(s.first_error);
  s.first_error = Status::Ok();
  s.failed = false;
  return result;
}

bool CudaQueue::Idle() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return state_->finished == state_->submitted;
}

void CudaQueue::SetStopOnFailure(bool stop) {
  std::lock_guard<std::mutex> lock(state_->mu);
  state_->stop_on_failure = stop;
}

void CudaQueue::DiscardPending() {
  std::deque<Item> dropped;
  {
    std::lock_guard<std::mutex> lock(state_->mu);
    state_->finished += state_->items.size();
    dropped.swap(state_->items);
    ++state_->epoch;
  }
  state_->work_cv.notify_all();
  state_->done_cv.notify_all();
  // Records that will never be reached must not leave waiters hanging.
  for (auto& item : dropped) {
    if (item.record) item.record->Complete(item.gen);
  }
}

}  // namespace kiln::cuda
