// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The queue conformance suite (docs/design.md §8, "HAL conformance: written once, every backend
// runs it"): hal::Queue's contract with hal::HostEvent, the event of every backend whose queues
// complete records on the host. A backend's test instantiates it with a factory of its queues:
//   INSTANTIATE_TEST_SUITE_P(Cpu, QueueConformanceTest, ::testing::Values(QueueMaker{...}));
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <ostream>
#include <string>

#include "hal/queue.h"

namespace kiln::hal::testing {

struct QueueMaker {
  std::string name;
  std::function<std::shared_ptr<Queue>()> make;  // queues of one device
};

// gtest prints a parameter in test names and failures: the backend's name, not its bytes.
inline void PrintTo(const QueueMaker& maker, std::ostream* os) { *os << maker.name; }

class QueueConformanceTest : public ::testing::TestWithParam<QueueMaker> {
 protected:
  std::shared_ptr<Queue> NewQueue() { return GetParam().make(); }
};

inline std::string QueueMakerName(const ::testing::TestParamInfo<QueueMaker>& info) {
  return info.param.name;
}

}  // namespace kiln::hal::testing
