// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Compile-time evaluation of ONNX nodes, for constant folding. Plain loops over small tensors
// (shape arithmetic, constant sub-graphs); not a kernel library.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "ir/graph.h"

namespace kiln::compiler {

// Whether the evaluator knows `op_type` of the ONNX domain (it may still decline a node of
// that type, e.g. for a data type it does not handle).
bool CanEvaluate(const std::string& op_type);

// Evaluates `node` (ONNX domain) from the constant data of its inputs; Shape and Size only need
// the input's shape to be static (for Shape, the dims in [start, end)). Returns one tensor per
// output of the node, or nullopt when the node cannot be evaluated: an op or data type the
// evaluator does not know, a required input that is not constant, a result of more than
// `max_bytes` bytes, or input that breaks the op's rules (an index out of range, mismatched
// shapes) — such nodes are left for shape inference and the kernels to report. Never fails
// otherwise; thread-compatible (reads `node` only).
std::optional<std::vector<ir::Tensor>> EvaluateNode(const ir::Node& node, size_t max_bytes);

}  // namespace kiln::compiler
