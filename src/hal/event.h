// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>

#include "base/status.h"

namespace kiln::hal {

// A marker in a queue's timeline. Recording it on a queue (Queue::RecordEvent) adds a point that
// completes when the queue reaches it; queries refer to the latest record made so far, and a
// wait to the record made before it — not to a later record on another queue. Thread-safe.
class Event {
 public:
  virtual ~Event() = default;
  // True once some record was made (and not reset).
  virtual bool recorded() const = 0;
  // True when the latest record has completed, or when there is none.
  virtual bool IsComplete() const = 0;
  // Waits until the latest record made before the call has completed. `timeout_ms` < 0 waits
  // forever, 0 only checks. Fails with kRtEventSyncTimeout.
  virtual Status Synchronize(int32_t timeout_ms) = 0;
  // Steady-clock time (ns) at which the latest completed record completed; 0 when none has.
  virtual uint64_t timestamp_ns() const = 0;
  // The number of records made so far (a mark for Reset).
  virtual uint64_t issued() const = 0;
  // Forgets the first `upto` records (issued() at the time the reset was requested): they count
  // as complete, and the event reads as never recorded unless a later record exists.
  virtual void Reset(uint64_t upto) = 0;
  // A record made by the host rather than a queue: pending from now until SignalFromHost().
  // Queues can wait on it like on any record (used for BLOCK host callbacks).
  virtual void RecordOnHost() = 0;
  virtual void SignalFromHost() = 0;
};

}  // namespace kiln::hal
