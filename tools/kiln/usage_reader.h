// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Reads the per-process usage records of include/kiln/kiln_usage.h (which devices each process
// using Kiln holds, and how much of their memory). Needs nothing of the runtime.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace kiln::tools {

struct UsageDevice {
  int32_t device = 0;
  uint64_t bytes_in_use = 0;
  uint64_t bytes_reserved = 0;
  uint64_t capacity = 0;
  uint64_t updated_ns = 0;
};

struct UsageProcess {
  int32_t pid = 0;
  std::string name;
  std::string path;                  // the record file
  std::vector<UsageDevice> devices;  // the devices it has open, by id
};

struct UsageScan {
  bool off = false;                     // KILN_USAGE_DIR=none
  std::vector<std::string> dirs;        // directories read
  std::vector<UsageProcess> processes;  // live processes, by pid
  std::vector<std::string> skipped;     // "path: why" for each file that is not a valid record
  std::vector<std::string> removed;     // stale records (their process is gone) deleted
};

// The directories records are read from: $KILN_USAGE_DIR when set (none when it is `none`),
// else every /dev/shm/kiln-*, $XDG_RUNTIME_DIR/kiln and /tmp/kiln-* that exists.
std::vector<std::string> UsageDirs(bool* off);

// Reads every *.usage file in `dirs`. A record whose process is gone (or whose pid now names a
// process started at another time) is left out and, with `clean_stale`, deleted; a file that is
// not a valid record is left out and listed in `skipped`, never deleted.
UsageScan ScanUsage(const std::vector<std::string>& dirs, bool clean_stale);

// UsageDirs + ScanUsage.
UsageScan ScanUsage(bool clean_stale);

}  // namespace kiln::tools
