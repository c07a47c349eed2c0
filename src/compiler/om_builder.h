// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// ir::Graph + MemoryPlan → the bytes of a .om file.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"
#include "compiler/memory_planner.h"
#include "ir/graph.h"

namespace kiln::compiler {

struct OmBuildInfo {
  std::string model_name;
  std::string target;
  std::string source;                                        // original file and producer
  std::vector<std::pair<std::string, std::string>> options;  // atc options, for the record
  std::vector<std::pair<std::string, std::string>> aipp;
};

// Serializes `graph` (and its If/Loop bodies) with `plan` into a complete .om file.
Result<std::vector<uint8_t>> BuildOm(const ir::Graph& graph, const MemoryPlan& plan,
                                     const OmBuildInfo& info);

}  // namespace kiln::compiler
