// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Packs activation lifetimes into one workspace and constants into the weights region.
#pragma once

#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "base/status.h"
#include "ir/graph.h"

namespace kiln::compiler {

inline constexpr uint64_t kPlanAlignment = 64;

struct Placement {
  uint64_t offset = 0;
  uint64_t bytes = 0;
  const ir::Value* alias_of = nullptr;  // in place: shares this value's storage
  // An input of a Concat written where the Concat's output holds it (offset is then inside
  // that output's storage), so the Concat copies nothing for it.
  const ir::Value* part_of = nullptr;
  bool dynamic = false;  // shape unknown at compile time: allocated at run time
};

struct PlanOptions {
  // Concat inputs placed inside the output (PlanMemory); off where one layout serves several
  // shapes (gears), as an input's offset depends on the sizes of those before it.
  bool concat_in_place = true;
};

struct MemoryPlan {
  std::unordered_map<const ir::Value*, Placement> activations;
  std::unordered_map<const ir::Value*, Placement> weights;
  uint64_t work_size = 0;    // workspace bytes (peak of the packed activations)
  uint64_t weight_size = 0;  // weights region bytes
  uint64_t naive_size = 0;   // sum of activation sizes without reuse (for reports)
};

// Ops whose output may take the storage of input 0 when that input dies at the node and has
// the same byte size (elementwise ops that read each element before writing it).
bool MayRunInPlace(const ir::Node& node);

// The bytes a value of static shape occupies (packed for sub-byte types); nullopt when its
// shape or type is not known, or it is too large to plan (then it is allocated, and checked,
// at run time).
std::optional<uint64_t> BytesOf(const ir::Value& v);

// Plans `graph`: activations (values produced by nodes, other than graph outputs) are packed
// greedily by size into the lowest offset free over their lifetime (best fit); an eligible
// node's output aliases its dying input; a Concat whose inputs are whole byte ranges of its
// output (nothing but dims of 1 before the axis, in the stored order) has each input that it
// reads last, and that is no other value's storage, placed at its range of the output, which
// then lives from the first of them on (with options.concat_in_place); constants are laid out
// one after another, each 64-byte aligned. Values of unknown size are marked dynamic.
Result<MemoryPlan> PlanMemory(const ir::Graph& graph, const PlanOptions& options = {});

}  // namespace kiln::compiler
