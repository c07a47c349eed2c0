// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Compile-time evaluation of one node by its reference kernel (src/kernels/reference), for
// constant folding and for the shape arithmetic of dynamic gears. There is no second
// interpreter: whatever op has a reference kernel folds, with the kernel's semantics.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "ir/graph.h"

namespace kiln::compiler {

// Evaluates `node` from the constant data of its inputs (an op with ir::kTraitReadsShapeOnly
// needs only their static shapes). Returns one tensor per output of the node (an empty
// tensor for an output the node leaves out), or nullopt when the node cannot be evaluated
// now: an input that is not constant, an output whose type the compiler does not know yet, a
// result of more than `max_bytes` bytes, a node with a body graph, or one its reference kernel
// declines or fails on (input that breaks the op's rules is left for the compiler's checks to
// report). Reads `node` only.
std::optional<std::vector<ir::Tensor>> EvaluateNode(const ir::Node& node, size_t max_bytes);

}  // namespace kiln::compiler
