// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "runtime/replay.h"

#include <algorithm>

namespace kiln::runtime {

ReplayPolicy::Action ReplayPolicy::Next(bool replayable, int gear, const uint8_t* workspace,
                                        const std::vector<IoBuffer>& inputs,
                                        const std::vector<IoBuffer>& outputs) {
  if (!replayable || Declined(gear)) return Action::kPlain;
  current_.clear();
  current_.push_back(static_cast<uintptr_t>(static_cast<intptr_t>(gear)));
  current_.push_back(reinterpret_cast<uintptr_t>(workspace));
  for (const IoBuffer& b : inputs) current_.push_back(reinterpret_cast<uintptr_t>(b.data));
  for (const IoBuffer& b : outputs) {
    if (b.data == nullptr) return Action::kPlain;
    current_.push_back(reinterpret_cast<uintptr_t>(b.data));
  }
  const bool recorded = have_recorded_ && current_ == recorded_;
  const bool repeated = have_last_ && current_ == last_;
  last_.swap(current_);
  have_last_ = true;
  if (recorded) return Action::kReplay;
  return repeated ? Action::kRecord : Action::kPlain;
}

void ReplayPolicy::Recorded() {
  recorded_ = last_;
  have_recorded_ = true;
}

void ReplayPolicy::RecordingFailed() {
  if (have_last_ && !last_.empty()) {
    declined_gears_.push_back(static_cast<int>(static_cast<intptr_t>(last_[0])));
  }
}

void ReplayPolicy::Forget() { have_recorded_ = false; }

void ReplayPolicy::RunFailed() { have_last_ = false; }

bool ReplayPolicy::Declined(int gear) const {
  return std::find(declined_gears_.begin(), declined_gears_.end(), gear) != declined_gears_.end();
}

}  // namespace kiln::runtime
