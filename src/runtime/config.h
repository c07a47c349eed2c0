// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "base/status.h"

namespace kiln::runtime {

// What aclInit reads from acl.json (ascendcl-reference.md §5.4) plus Kiln's own "kiln" block.
struct Config {
  int err_msg_mode = 0;                         // 0: per thread, 1: per process
  std::optional<int32_t> default_device;        // defaultDevice.default_device
  std::optional<uint64_t> device_memory_limit;  // kiln.device_memory_limit (bytes)
  bool dump_requested = false;                  // a "dump" block is present
  bool profiler_requested = false;              // a "profiler" block is present
};

// Parses acl.json text; `origin` names the file in messages. Errors: kParseFile for malformed
// JSON, nesting deeper than 10 levels, or a known key with a bad value.
Result<Config> ParseConfig(const std::string& text, const std::string& origin);

// Reads and parses the file; kInvalidFile when it cannot be read.
Result<Config> LoadConfigFile(const std::string& path);

}  // namespace kiln::runtime
