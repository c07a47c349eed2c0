// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "runtime/replay.h"

#include <gtest/gtest.h>

#include <vector>

namespace kiln::runtime {
namespace {

using Action = ReplayPolicy::Action;

std::vector<IoBuffer> Buffers(std::vector<void*> data) {
  std::vector<IoBuffer> v;
  for (void* d : data) {
    IoBuffer b;
    b.data = d;
    b.size = 4;
    v.push_back(b);
  }
  return v;
}

TEST(ReplayPolicyTest, TheSecondRunOfABindingIsRecordedAndLaterOnesReplayed) {
  int a = 0, b = 0, c = 0;
  uint8_t work[4];
  ReplayPolicy p;
  const auto in = Buffers({&a}), out = Buffers({&b}), other = Buffers({&c});
  EXPECT_EQ(p.Next(true, -1, work, in, out), Action::kPlain);
  EXPECT_EQ(p.Next(true, -1, work, in, out), Action::kRecord);
  p.Recorded();
  EXPECT_EQ(p.Next(true, -1, work, in, out), Action::kReplay);
  // Another output buffer, workspace or gear is another binding; the recording still serves
  // its own when it comes back.
  EXPECT_EQ(p.Next(true, -1, work, in, other), Action::kPlain);
  EXPECT_EQ(p.Next(true, -1, work + 1, in, out), Action::kPlain);
  EXPECT_EQ(p.Next(true, 0, work, in, out), Action::kPlain);
  EXPECT_EQ(p.Next(true, -1, work, in, out), Action::kReplay);
  EXPECT_EQ(p.Next(true, 0, work, in, out), Action::kPlain);
  EXPECT_EQ(p.Next(true, 0, work, in, out), Action::kRecord);
  p.Recorded();  // replaces the recording of gear -1 (a device keeps one)
  EXPECT_EQ(p.Next(true, 0, work, in, out), Action::kReplay);
  EXPECT_EQ(p.Next(true, -1, work, in, out), Action::kPlain);
}

TEST(ReplayPolicyTest, UnreplayableRunsOutputsWithoutBuffersAndDeclinedGearsRunPlainly) {
  int a = 0, b = 0;
  uint8_t work[4];
  ReplayPolicy p;
  const auto in = Buffers({&a}), out = Buffers({&b}), unbound = Buffers({nullptr});
  for (int i = 0; i < 3; ++i) EXPECT_EQ(p.Next(false, -1, work, in, out), Action::kPlain);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(p.Next(true, -1, work, in, unbound), Action::kPlain);
  EXPECT_EQ(p.Next(true, 1, work, in, out), Action::kPlain);
  EXPECT_EQ(p.Next(true, 1, work, in, out), Action::kRecord);
  p.RecordingFailed();
  EXPECT_EQ(p.Next(true, 1, work, in, out), Action::kPlain);
  EXPECT_EQ(p.Next(true, 1, work, in, out), Action::kPlain);
  EXPECT_EQ(p.Next(true, 2, work, in, out), Action::kPlain);
  EXPECT_EQ(p.Next(true, 2, work, in, out), Action::kRecord);
}

TEST(ReplayPolicyTest, AFailedPlainRunIsNotTheRunBeforeARecordingAndAFailureForgetsTheRecording) {
  int a = 0, b = 0;
  uint8_t work[4];
  ReplayPolicy p;
  const auto in = Buffers({&a}), out = Buffers({&b});
  EXPECT_EQ(p.Next(true, -1, work, in, out), Action::kPlain);
  p.RunFailed();  // e.g. out of memory before a kernel kept its per-slot state
  EXPECT_EQ(p.Next(true, -1, work, in, out), Action::kPlain);
  EXPECT_EQ(p.Next(true, -1, work, in, out), Action::kRecord);
  p.Recorded();
  EXPECT_EQ(p.Next(true, -1, work, in, out), Action::kReplay);
  p.Forget();  // the launch failed: the device's recording is gone
  EXPECT_EQ(p.Next(true, -1, work, in, out), Action::kRecord);
  p.Recorded();
  EXPECT_EQ(p.Next(true, -1, work, in, out), Action::kReplay);
}

}  // namespace
}  // namespace kiln::runtime
