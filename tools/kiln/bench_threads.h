// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The timed phase of `kiln bench`: one thread per worker, all started together, with a progress
// bar drawn by the calling thread.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "tools/kiln/bench_session.h"

namespace kiln::tools::bench {

// Every timed execution of every thread, thread by thread.
struct RunResult {
  std::vector<double> h2d, compute, d2h, e2e;
  double wall_ms = 0;
  size_t executions = 0;
  std::vector<double> thread_throughput;  // executions/s of each thread
};

// Runs `loop` rounds over every sample on each worker's thread, after `warmup_count` untimed
// executions; all threads start the timed phase together, and the wall time runs from then
// until the last one ends. `progress` draws the bar on stderr. Returns "" or the first
// thread's error.
std::string RunThreads(int loop, int warmup_count, Session& s,
                       std::vector<std::unique_ptr<Worker>>& workers, bool progress,
                       RunResult* out);

}  // namespace kiln::tools::bench
