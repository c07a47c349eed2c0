// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// CANN's dynamic "gears" (--dynamic_batch_size, --dynamic_image_size, --dynamic_dims): a gear
// is one pre-planned shape configuration of the -1 dims of --input_shape. The flags are parsed
// and checked against --input_shape here; PlanGears binds every gear on the optimised dynamic
// graph and plans its memory (docs/om-format.md, "Gears").
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "base/status.h"
#include "compiler/memory_planner.h"
#include "ir/graph.h"
#include "ir/op_schema.h"

namespace kiln::compiler {

// The values match om::GearKind.
enum class GearKind { kNone = 0, kBatch = 1, kImageSize = 2, kDims = 3 };

// The extra model input through which the application selects the gear (ACL_DYNAMIC_TENSOR_NAME).
inline constexpr const char* kGearInputName = "ascend_mbatch_shape_data";
inline constexpr size_t kMinGears = 2;
inline constexpr size_t kMaxGears = 100;

// The flags as typed (empty = not given).
struct GearFlags {
  std::string input_shape;
  std::string input_format;
  std::string dynamic_batch_size;
  std::string dynamic_image_size;
  std::string dynamic_dims;
};

// One input dim a gear value sets.
struct GearTarget {
  std::string input;
  size_t dim = 0;
  bool operator==(const GearTarget& o) const { return input == o.input && dim == o.dim; }
};

struct GearConfig {
  GearKind kind = GearKind::kNone;
  // Per gear value: the input dims it sets. Batch: one value setting dim 0 of every input whose
  // dim 0 is -1; image size: H then W of every input with -1 there; dims: one value per -1.
  std::vector<std::vector<GearTarget>> slots;
  // Per gear: one value per slot, in the order the flag lists them.
  std::vector<std::vector<int64_t>> gears;
  std::string text;  // the flag's value as given, for messages

  bool enabled() const { return kind != GearKind::kNone; }
  // Model.gear_dims: per slot "input:dim", several targets joined by ';' ("x:0;y:0").
  std::vector<std::string> SlotNames() const;
};

// "--dynamic_batch_size" etc. ("" for kNone).
const char* GearFlagName(GearKind kind);
// A gear's values as the flag writes them: "4", "224,224", "2,16".
std::string GearLabel(const std::vector<int64_t>& values);

// Parses and checks the gear flags against --input_shape (ATC's rules). No gear flag gives a
// config of kind kNone. Every violation is kInvalidParam naming the flag and the value.
Result<GearConfig> ParseGears(const GearFlags& flags);

// One gear's plan on the dynamic graph.
struct GearResult {
  std::vector<int64_t> values;
  uint64_t work_size = 0;
  uint64_t naive_size = 0;  // activations without reuse
  // Values of the graph whose dims in this gear differ from the dynamic graph's.
  std::vector<std::pair<const ir::Value*, std::vector<int64_t>>> dims;
};

struct GearPlans {
  std::vector<GearResult> gears;
  // One layout every gear fits: each activation planned at its largest size over the gears,
  // so its offsets hold for every gear. Its work_size is the model's.
  MemoryPlan shared;
  // Largest bytes over the gears of every value whose size depends on the gear.
  std::unordered_map<const ir::Value*, uint64_t> max_bytes;
};

// For every gear of `config`: binds the gear's values to the inputs of the optimised dynamic
// `graph`, re-infers its shapes on the same nodes (Shape and other shape arithmetic are
// evaluated so that Reshape targets become known) and plans its memory. `graph` is left with
// the types it had. An error names the gear that does not compile.
Result<GearPlans> PlanGears(ir::Graph& graph, const GearConfig& config,
                            const ir::OpRegistry& registry);

}  // namespace kiln::compiler
