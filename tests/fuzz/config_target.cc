// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Fuzz target: acl.json text, as aclInit reads it (runtime::ParseConfig), and the profiler's
// options as msprof passes them (PROFILING_OPTIONS). Any text may be refused with 100006 or the
// profiler's code; none may crash, hang or throw.
#include <cstddef>
#include <cstdint>
#include <string>

#include "runtime/config.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) { return 0; }

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  (void)kiln::runtime::ParseConfig(text, "'fuzz.json'");
  (void)kiln::runtime::ParseProfilerOptions(text, "PROFILING_OPTIONS");
  (void)kiln::runtime::ParseDumpOptions(text, "'dump.json'");
  return 0;
}
