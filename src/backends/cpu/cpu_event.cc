// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "backends/cpu/cpu_event.h"

#include <chrono>

#include "base/thread_pool.h"

namespace kiln::cpu {
namespace {
uint64_t NowNs() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::steady_clock::now().time_since_epoch())
                                   .count());
}
}  // namespace

bool CpuEvent::recorded() const {
  std::lock_guard<std::mutex> lock(mu_);
  return recorded_;
}

bool CpuEvent::IsComplete() const {
  std::lock_guard<std::mutex> lock(mu_);
  return completed_ >= issued_;
}

Status CpuEvent::Synchronize(int32_t timeout_ms) {
  std::unique_lock<std::mutex> lock(mu_);
  uint64_t target = issued_;
  if (completed_.load() < target && timeout_ms != 0) {
    lock.unlock();  // a record a few microseconds away: spin before sleeping
    for (int spin = 0;
         spin < kSpinBeforeSleep && completed_.load(std::memory_order_acquire) < target; ++spin) {
      SpinPause(spin);
    }
    lock.lock();
  }
  auto done = [&] { return completed_ >= target; };
  if (timeout_ms < 0) {
    cv_.wait(lock, done);
  } else if (!cv_.wait_for(lock, std::chrono::milliseconds(timeout_ms), done)) {
    return Error(code::kRtEventSyncTimeout, "event not complete after ", timeout_ms, " ms");
  }
  return Status::Ok();
}

uint64_t CpuEvent::timestamp_ns() const {
  std::lock_guard<std::mutex> lock(mu_);
  return timestamp_ns_;
}

void CpuEvent::Reset() {
  std::vector<std::pair<uint64_t, std::function<void()>>> wake;
  {
    std::lock_guard<std::mutex> lock(mu_);
    recorded_ = false;
    completed_ = issued_;
    timestamp_ns_ = 0;
    wake.swap(waiters_);
  }
  cv_.notify_all();
  for (auto& w : wake) w.second();
}

uint64_t CpuEvent::BeginRecord() {
  std::lock_guard<std::mutex> lock(mu_);
  recorded_ = true;
  return ++issued_;
}

void CpuEvent::Complete(uint64_t gen) {
  std::vector<std::function<void()>> wake;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (gen <= completed_) return;  // a later record already completed (or a reset)
    completed_ = gen;
    timestamp_ns_ = NowNs();
    for (size_t i = 0; i < waiters_.size();) {
      if (waiters_[i].first <= completed_) {
        wake.push_back(std::move(waiters_[i].second));
        waiters_[i] = std::move(waiters_.back());
        waiters_.pop_back();
      } else {
        ++i;
      }
    }
  }
  cv_.notify_all();
  for (auto& w : wake) w();
}

uint64_t CpuEvent::WaitTarget() const {
  std::lock_guard<std::mutex> lock(mu_);
  return recorded_ ? issued_ : 0;
}

bool CpuEvent::AddWaiterIfPending(uint64_t target, std::function<void()> resume) {
  std::lock_guard<std::mutex> lock(mu_);
  if (completed_ >= target) return false;
  waiters_.emplace_back(target, std::move(resume));
  return true;
}

}  // namespace kiln::cpu
