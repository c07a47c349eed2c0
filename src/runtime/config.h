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

// A data dump config: acl.json's "dump" block (at aclInit) or the file given to aclmdlSetDump
// (ascendcl-reference.md §5.4; layout and keys in docs/tools.md "Data dump").
struct DumpModel {
  std::string model_name;           // the .om's model name (aclmdlDesc's; kiln atc --output's)
  bool all_layers = true;           // no "layer" key: every node
  std::vector<std::string> layers;  // ONNX node names (or Kiln node names)
};
struct DumpOptions {
  std::string path;  // dump_path: an existing, writable folder
  std::vector<DumpModel> models;
  bool inputs = false;     // dump_mode input | all
  bool outputs = true;     // dump_mode output (the default) | all
  bool stats = false;      // dump_data stats: statistics instead of the tensors
  bool op_switch = false;  // dump_op_switch (single operators; Kiln has none to dump)
};

// Parses a "dump" object; `origin` names the file. kInvalidDumpConfig naming the key for a
// missing dump_path/dump_list, a value of the wrong kind, an unknown dump_mode/dump_data/
// dump_op_switch, an entry without model_name, an empty "layer", or a dump_path that is not
// an existing writable folder.
Result<DumpOptions> ParseDumpOptions(const std::string& text, const std::string& origin);

// aclmdlSetDump's file: {"dump": {...}}. kParseFile for malformed JSON, kInvalidDumpConfig
// when the "dump" block is missing or bad; kInvalidFile when it cannot be read.
Result<DumpOptions> LoadDumpConfigFile(const std::string& path);

struct Config {
  int err_msg_mode = 0;                         // 0: per thread, 1: per process
  std::optional<int32_t> default_device;        // defaultDevice.default_device
  std::optional<uint64_t> device_memory_limit;  // kiln.device_memory_limit (bytes)
  std::optional<DumpOptions> dump;              // "dump" (kInvalidDumpConfig when bad)
  ProfilerOptions profiler;                     // "profiler"
};

// Parses acl.json text; `origin` names the file in messages. Errors: kParseFile for malformed
// JSON, nesting deeper than 10 levels, or a known key with a bad value.
Result<Config> ParseConfig(const std::string& text, const std::string& origin);

// Reads and parses the file; kInvalidFile when it cannot be read.
Result<Config> LoadConfigFile(const std::string& path);

}  // namespace kiln::runtime
