// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Writes one profiling run (docs/tools.md, "Profiling"): under the aclprofInit folder,
//   PROF_<pid>_<yyyymmddhhmmssmmm>_<RANDOM>/
//     info.json                       devices (name, measured peak), config, versions, times
//     summary/op_summary_<ts>.csv     one row per executed node
//     summary/op_statistic_<ts>.csv   per op type
//     summary/api_statistic_<ts>.csv  per acl* function
//     summary/task_time_<ts>.csv      stream tasks (model executions, memcpy, events ...)
//     timeline/msprof_<ts>.json       Chrome trace (opens in Perfetto / chrome://tracing)
#pragma once

#include <string>

#include "base/status.h"
#include "runtime/profiler.h"

namespace kiln::runtime {

// Writes `profile` and returns the run's folder; kWriteFile when a file cannot be written.
Result<std::string> WriteProfile(const Profile& profile);

// The float32 peak (GFLOP/s) of device `id`: from the cache file when this machine measured it
// before ($KILN_CACHE_DIR, else $XDG_CACHE_HOME/kiln, else ~/.cache/kiln: peak.json, keyed by
// CPU model, device name and compute units), else measured now and cached. 0 when unknown.
// `source` (may be null) receives "cache" or "measured". A cached peak below `achieved` (what
// this run's ops reached: the cache was measured while other work held the cores) is measured
// again, and the cache keeps the larger of the two.
double DevicePeakGflops(int32_t id, std::string* name, std::string* source, double achieved = 0);

}  // namespace kiln::runtime
