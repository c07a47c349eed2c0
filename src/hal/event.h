// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>

#include "base/status.h"

namespace kiln::hal {

// A marker in a queue's timeline. Recording it on a queue (Queue::RecordEvent) adds a point that
// completes when the queue reaches it; waits and queries refer to the latest record made so far.
// Thread-safe.
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
  // Forgets the records (the event reads as never recorded).
  virtual void Reset() = 0;
};

}  // namespace kiln::hal
