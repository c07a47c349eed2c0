// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "hal/host_event.h"

#include <chrono>

#include "base/clock.h"
#include "base/thread_pool.h"

namespace kiln::hal {
bool HostEvent::recorded() const {
  std::lock_guard<std::mutex> lock(mu_);
  return issued_ > reset_upto_;
}

bool HostEvent::IsComplete() const {
  std::lock_guard<std::mutex> lock(mu_);
  return DoneLocked(issued_);
}

Status HostEvent::Synchronize(int32_t timeout_ms) {
  std::unique_lock<std::mutex> lock(mu_);
  uint64_t target = issued_;
  if (!DoneLocked(target) && timeout_ms != 0) {
    lock.unlock();  // a record a few microseconds away: spin before sleeping
    for (int spin = 0; spin < kSpinBeforeSleep && pending_count_.load(std::memory_order_acquire);
         ++spin) {
      SpinPause(spin);
    }
    lock.lock();
  }
  auto done = [&] { return DoneLocked(target); };
  if (timeout_ms < 0) {
    cv_.wait(lock, done);
  } else if (!cv_.wait_for(lock, std::chrono::milliseconds(timeout_ms), done)) {
    return Error(code::kRtEventSyncTimeout, "event not complete after ", timeout_ms, " ms");
  }
  return Status::Ok();
}

uint64_t HostEvent::timestamp_ns() const {
  std::lock_guard<std::mutex> lock(mu_);
  return timestamp_ns_;
}

uint64_t HostEvent::issued() const {
  std::lock_guard<std::mutex> lock(mu_);
  return issued_;
}

void HostEvent::ReleaseLocked(std::vector<std::function<void()>>* wake) {
  for (size_t i = 0; i < waiters_.size();) {
    if (DoneLocked(waiters_[i].first)) {
      wake->push_back(std::move(waiters_[i].second));
      waiters_[i] = std::move(waiters_.back());
      waiters_.pop_back();
    } else {
      ++i;
    }
  }
  pending_count_.store(pending_.size(), std::memory_order_release);
}

void HostEvent::Reset(uint64_t upto) {
  std::vector<std::function<void()>> wake;
  {
    std::lock_guard<std::mutex> lock(mu_);
    reset_upto_ = std::max(reset_upto_, upto);
    pending_.erase(pending_.begin(), pending_.upper_bound(upto));
    if (timestamp_gen_ <= upto) {
      timestamp_gen_ = 0;
      timestamp_ns_ = 0;
    }
    ReleaseLocked(&wake);
  }
  cv_.notify_all();
  for (auto& w : wake) w();
}

uint64_t HostEvent::BeginRecord() {
  std::lock_guard<std::mutex> lock(mu_);
  pending_.insert(++issued_);
  pending_count_.store(pending_.size(), std::memory_order_release);
  return issued_;
}

void HostEvent::RecordOnHost() {
  std::lock_guard<std::mutex> lock(mu_);
  pending_.insert(++issued_);
  host_gens_.push_back(issued_);
  pending_count_.store(pending_.size(), std::memory_order_release);
}

void HostEvent::SignalFromHost() {
  uint64_t gen = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (host_gens_.empty()) return;
    gen = host_gens_.front();
    host_gens_.erase(host_gens_.begin());
  }
  Complete(gen);
}

void HostEvent::Complete(uint64_t gen) {
  std::vector<std::function<void()>> wake;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (pending_.erase(gen) == 0) return;  // forgotten by a reset
    if (gen >= timestamp_gen_) {
      timestamp_gen_ = gen;
      timestamp_ns_ = SteadyNowNs();
    }
    ReleaseLocked(&wake);
  }
  cv_.notify_all();
  for (auto& w : wake) w();
}

uint64_t HostEvent::WaitTarget() const {
  std::lock_guard<std::mutex> lock(mu_);
  return issued_ > reset_upto_ ? issued_ : 0;
}

bool HostEvent::AddWaiterIfPending(uint64_t target, std::function<void()> resume) {
  std::lock_guard<std::mutex> lock(mu_);
  if (DoneLocked(target)) return false;
  waiters_.emplace_back(target, std::move(resume));
  return true;
}

HostQueueItem HostQueueItem::Of(Work work) {
  HostQueueItem item;
  item.work = std::move(work);
  return item;
}

HostQueueItem HostQueueItem::Record(std::shared_ptr<Event> event) {
  HostQueueItem item;
  item.record = std::static_pointer_cast<HostEvent>(std::move(event));
  item.gen = item.record->BeginRecord();
  return item;
}

HostQueueItem HostQueueItem::Wait(std::shared_ptr<Event> event) {
  HostQueueItem item;
  auto host_event = std::static_pointer_cast<HostEvent>(std::move(event));
  const uint64_t target = host_event->WaitTarget();
  if (target == 0) return item;  // never recorded: nothing to wait for
  item.wait = std::move(host_event);
  item.gen = target;
  return item;
}

}  // namespace kiln::hal
