// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <utility>
#include <vector>

#include "hal/event.h"

namespace kiln::cpu {

// An event as a monotonic counter: each record takes the next generation, the queue that
// reaches it completes that generation. Waiters name the generation they need.
class CpuEvent final : public hal::Event {
 public:
  bool recorded() const override;
  bool IsComplete() const override;
  Status Synchronize(int32_t timeout_ms) override;
  uint64_t timestamp_ns() const override;
  void Reset() override;

  // Called at record time: returns the generation the queue will complete.
  uint64_t BeginRecord();
  // Called by the queue when it reaches generation `gen`.
  void Complete(uint64_t gen);
  // The generation a wait issued now must reach (0: nothing to wait for).
  uint64_t WaitTarget() const;
  // Registers `resume` to run once generation `target` has completed, unless it already has
  // (then returns false and `resume` is dropped).
  bool AddWaiterIfPending(uint64_t target, std::function<void()> resume);

 private:
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool recorded_ = false;
  uint64_t issued_ = 0;                 // generations handed out
  std::atomic<uint64_t> completed_{0};  // highest generation completed (written under mu_)
  uint64_t timestamp_ns_ = 0;
  std::vector<std::pair<uint64_t, std::function<void()>>> waiters_;
};

}  // namespace kiln::cpu
