// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// `kiln prof --om`: profiles a model by itself, in this process, through the public AscendCL
// API (aclprofInit → aclprofStart → aclmdlExecute × loop → aclprofStop), on the given inputs
// (.bin raw bytes or .npy) or random ones.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace kiln::tools {

struct ModelProfileOptions {
  std::string om;
  std::vector<std::string> inputs;  // one file per model input; empty: random inputs
  int loop = 10;
  int warmup = 1;  // executions before profiling starts
  int32_t device = 0;
  std::string output;       // the aclprofInit folder
  uint64_t data_types = 0;  // ACL_PROF_* bits
};

// Runs the profile; returns the PROF_* folder, or "" with `*error` set.
std::string ProfileModel(const ModelProfileOptions& options, std::string* error);

}  // namespace kiln::tools
