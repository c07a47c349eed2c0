// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <set>
#include <utility>
#include <vector>

#include "hal/event.h"
#include "hal/queue.h"

namespace kiln::hal {

// An event as numbered records: each record takes the next generation and stays pending until
// the queue that reaches it (or the host, for host records) completes that generation. A waiter
// names the generation it needs, so a later record completing on another queue does not
// release it.
class HostEvent final : public hal::Event {
 public:
  bool recorded() const override;
  bool IsComplete() const override;
  Status Synchronize(int32_t timeout_ms) override;
  uint64_t timestamp_ns() const override;
  uint64_t issued() const override;
  void Reset(uint64_t upto) override;
  void RecordOnHost() override;
  void SignalFromHost() override;

  // Called at record time: returns the generation the queue will complete.
  uint64_t BeginRecord();
  // Called by the queue when it reaches generation `gen`.
  void Complete(uint64_t gen);
  // The generation a wait issued now must see completed (0: nothing to wait for).
  uint64_t WaitTarget() const;
  // Registers `resume` to run once generation `target` has completed, unless it already has
  // (then returns false and `resume` is dropped).
  bool AddWaiterIfPending(uint64_t target, std::function<void()> resume);

 private:
  bool DoneLocked(uint64_t gen) const { return pending_.count(gen) == 0; }
  void ReleaseLocked(std::vector<std::function<void()>>* wake);

  mutable std::mutex mu_;
  std::condition_variable cv_;
  uint64_t issued_ = 0;              // generations handed out
  uint64_t reset_upto_ = 0;          // generations at or below it are forgotten
  std::set<uint64_t> pending_;       // issued, not yet completed
  std::vector<uint64_t> host_gens_;  // host records waiting for SignalFromHost, oldest first
  uint64_t timestamp_gen_ = 0;       // the generation the timestamp belongs to
  uint64_t timestamp_ns_ = 0;
  std::atomic<uint64_t> pending_count_{0};  // pending_.size(), for lock-free spinning
  std::vector<std::pair<uint64_t, std::function<void()>>> waiters_;
};

// One entry of a queue whose events are HostEvents (the CPU's and the CUDA device's): work, a
// record of an event, or a wait for one.
struct HostQueueItem {
  Work work;
  std::shared_ptr<HostEvent> record;  // completes `gen` of this event
  std::shared_ptr<HostEvent> wait;    // waits for `gen` of this event
  uint64_t gen = 0;

  static HostQueueItem Of(Work work);
  // Takes the record's generation now (Queue::RecordEvent).
  static HostQueueItem Record(std::shared_ptr<Event> event);
  // A wait for the record made before now; an empty item (nothing to run or wait for) when the
  // event was never recorded (Queue::WaitEvent).
  static HostQueueItem Wait(std::shared_ptr<Event> event);
  bool empty() const { return !work && !record && !wait; }
};

}  // namespace kiln::hal
