// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <functional>
#include <memory>

#include "base/status.h"
#include "hal/event.h"

namespace kiln::hal {

// Work run on a queue; a failed Status is the queue's failure (see Synchronize).
using Work = std::function<Status()>;

// Runs `work` for a queue: an exception it lets out (memory ran out) fails the work, not the
// process.
Status RunWork(const Work& work) noexcept;

// An in-order queue of work: every Submit/RecordEvent/WaitEvent returns at once and takes
// effect after everything submitted before it. Thread-safe; one queue may be fed from many
// threads (their order is the order of the calls).
class Queue {
 public:
  virtual ~Queue() = default;
  virtual void Submit(Work work) = 0;
  // Completes `event` when the queue reaches this point. The queue keeps the event alive until
  // then. `event` must come from the same device.
  virtual void RecordEvent(std::shared_ptr<Event> event) = 0;
  // Holds later work until the record of `event` made before this call completes (nothing to
  // wait for when the event was never recorded). Waiting occupies no worker.
  virtual void WaitEvent(std::shared_ptr<Event> event) = 0;
  // Waits until everything submitted before the call has run; `timeout_ms` < 0 waits forever,
  // 0 only checks. Returns kRtStreamSyncTimeout on time-out, otherwise the first failure since
  // the last Synchronize (and forgets it), or Ok.
  virtual Status Synchronize(int32_t timeout_ms) = 0;
  // True when everything submitted so far has run.
  virtual bool Idle() const = 0;
  // After a failure: false (default) runs the rest, true discards work until Synchronize.
  virtual void SetStopOnFailure(bool stop) = 0;
  // Drops work not yet started (it counts as done); a running item finishes.
  virtual void DiscardPending() = 0;
};

}  // namespace kiln::hal
