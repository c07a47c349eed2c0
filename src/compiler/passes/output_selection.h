// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// output_selection (--out_nodes) and the entry resolution it shares with io_dtype
// (--output_type "node:idx:TYPE").
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "compiler/pass.h"
#include "ir/graph.h"

namespace kiln::compiler {

// The value one --out_nodes-style entry names in `graph`: "node:index" (the index-th output of
// the node with that name, or failing that of the one node whose origins include it, so that
// ONNX names still work after a fusion), or else a tensor name. A tensor name that looks like
// "node:index" (tf2onnx writes "dense/BiasAdd:0") is found when no node matches, or when the
// matching node has no such output. `flag` ("--out_nodes") starts the messages. Borrows
// `graph`; the returned value belongs to it. kInvalidParam, naming the entry and listing what
// exists, for an empty entry, an unknown node or tensor, an index out of range, or a name
// that several nodes carry.
Result<ir::Value*> ResolveOutputEntry(const ir::Graph& graph, const std::string& entry,
                                      const std::string& flag);

// --out_nodes: the graph's outputs become exactly the values `out_nodes` names
// (ResolveOutputEntry), in that order. Only rewires Graph::outputs(); dead_code_elimination
// removes what no output needs any more. An empty list changes nothing. Checks every entry
// before changing anything; kInvalidParam for what ResolveOutputEntry rejects, for a constant
// (an initializer or a folded value cannot be a model output), and for two entries naming one
// value.
std::unique_ptr<Pass> CreateOutputSelectionPass(std::vector<std::string> out_nodes);

}  // namespace kiln::compiler
