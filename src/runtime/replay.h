// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Which runs of an execution slot are recorded and which replayed (hal::Execution's
// BeginRecording / EndRecording / Replay: a CUDA graph on a GPU). A run's kernels are baked
// into a recording with the addresses they were bound to, so a recording serves only runs of
// the same binding: the same gear, workspace and caller buffers. The first run of a binding
// runs plainly (kernels make their libraries' plans, allocate their states); the next run, if
// that plain run succeeded and has the same binding, is recorded; later runs of a recorded
// binding replay it. A gear whose recording the device discarded while a plain run of it works
// is not recorded again. After a failed recording or replay the device may hold a different
// recording or none: the policy forgets its own.
#pragma once

#include <cstdint>
#include <vector>

#include "runtime/executor.h"

namespace kiln::runtime {

class ReplayPolicy {
 public:
  enum class Action { kPlain, kRecord, kReplay };

  // The action for the run about to start. `replayable`: every node of `gear` has its dims
  // bound at load and a Replayable kernel, and nothing observes the run. An output without a
  // buffer (given memory after the run) makes the run plain. Allocates nothing once the
  // binding's size has been seen.
  Action Next(bool replayable, int gear, const uint8_t* workspace,
              const std::vector<IoBuffer>& inputs, const std::vector<IoBuffer>& outputs);
  // The run Next said to record is recorded: the device keeps it (and dropped the one before).
  void Recorded();
  // The device discarded the recording Next asked for, and a plain run of the binding then
  // succeeded: that gear runs plainly from now on.
  void RecordingFailed();
  // A recording or replay failed: the device may hold another recording than the policy's, or
  // none, so nothing is replayed until a binding is recorded again.
  void Forget();
  // The plain run of the binding Next returned failed: it is not "the run before" a recording.
  void RunFailed();

 private:
  bool Declined(int gear) const;
  // gear, workspace, then each input's and output's address.
  std::vector<uintptr_t> current_, last_, recorded_;
  bool have_last_ = false, have_recorded_ = false;
  std::vector<int> declined_gears_;
};

}  // namespace kiln::runtime
