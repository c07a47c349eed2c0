// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// ir::Graph + MemoryPlan → the bytes of a .om file.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "base/status.h"
#include "compiler/gears.h"
#include "compiler/memory_planner.h"
#include "ir/graph.h"

namespace kiln::compiler {

struct OmBuildInfo {
  std::string model_name;
  std::string target;
  std::string source;                                        // original file and producer
  std::vector<std::pair<std::string, std::string>> options;  // atc options, for the record
  std::vector<std::pair<std::string, std::string>> aipp;
  // Graph inputs stored NHWC (a static AIPP input's raw image): their TensorDesc format is
  // ACL_FORMAT_NHWC; every other tensor's is ACL_FORMAT_ND.
  std::set<std::string> nhwc_inputs;
  // Dynamic gears (docs/om-format.md, "Gears"): `graph` is the dynamic graph and `plan` the
  // layout every gear shares. With gears the main graph gets the extra input kGearInputName
  // (int64, one value per gear_dims entry) as its last input.
  GearKind gear_kind = GearKind::kNone;
  std::vector<std::string> gear_dims;  // Model.gear_dims
  std::vector<GearResult> gears;       // one GearPlan each
  // Bytes of the largest gear's tensor for values whose size depends on the gear (the inputs
  // and outputs; activations take theirs from the plan).
  std::unordered_map<const ir::Value*, uint64_t> max_bytes;
};

// Serializes `graph` (and its If/Loop bodies) with `plan` into a complete .om file.
Result<std::vector<uint8_t>> BuildOm(const ir::Graph& graph, const MemoryPlan& plan,
                                     const OmBuildInfo& info);

}  // namespace kiln::compiler
