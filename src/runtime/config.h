// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"

namespace kiln::runtime {

// What aclInit reads from acl.json (ascendcl-reference.md §5.4) plus Kiln's own "kiln" block.
// Profiling asked for at aclInit: acl.json "profiler" ({"switch": "on", "output": DIR,
// "acl_api"/"task_time"/"msproftx"/"runtime_api": "on"|"off"}), or the PROFILING_MODE=true +
// PROFILING_OPTIONS='{"output": DIR, "task_trace": "on", ...}' environment msprof (and
// `kiln prof --application`) sets for the application it runs.
struct ProfilerOptions {
  bool on = false;
  std::string output;       // result folder ("" = the working directory)
  uint64_t data_types = 0;  // ACL_PROF_* bits
};

// Parses a "profiler" object (acl.json) or PROFILING_OPTIONS text; `origin` names it in
// messages. kParseFile for malformed JSON or a switch that is neither "on" nor "off".
Result<ProfilerOptions> ParseProfilerOptions(const std::string& text, const std::string& origin);

struct Config {
  int err_msg_mode = 0;                         // 0: per thread, 1: per process
  std::optional<int32_t> default_device;        // defaultDevice.default_device
  std::optional<uint64_t> device_memory_limit;  // kiln.device_memory_limit (bytes)
  bool dump_requested = false;                  // a "dump" block is present
  ProfilerOptions profiler;                     // "profiler"
};

// Parses acl.json text; `origin` names the file in messages. Errors: kParseFile for malformed
// JSON, nesting deeper than 10 levels, or a known key with a bad value.
Result<Config> ParseConfig(const std::string& text, const std::string& origin);

// Reads and parses the file; kInvalidFile when it cannot be read.
Result<Config> LoadConfigFile(const std::string& path);

}  // namespace kiln::runtime
