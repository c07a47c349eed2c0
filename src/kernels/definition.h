// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The op definitions (ir/op_schema.h) applied to loaded nodes: the one place where a node a
// kernel is prepared from is validated and where output dims known only at run time are
// derived. Kernels neither re-check their node nor compute output dims; they read the bound
// outputs (kernel.h).
#pragma once

#include <vector>

#include "base/status.h"
#include "kernels/kernel.h"

namespace kiln::kernels {

// Fills in `def`'s attribute defaults from its op's definition, then runs the op's shape
// function on def's input types, static dims and constant values, and checks that every output
// type and dim the node records agrees with it. A node that breaks its op's rules — a tampered
// .om, or a NodeDef a test wrote by hand — fails here (kInvalidParam, naming the node and the
// disagreement) before any kernel sees it. An op without a definition is left unchanged.
Status ApplyDefinition(NodeDef& def);

// A node read from a file: its op is defined at its opset (from the op's first opset in Kiln
// to the newest ONNX opset Kiln knows, for ONNX's domain). The compiler emits no other; a node
// outside them would reach a shape function without the attribute declarations of its opset.
// kInvalidParam naming the node. (ApplyDefinition itself also serves kernels' tests, which run
// the reference kernels' older-opset forms.)
Status CheckLoadedOpset(const NodeDef& def);

// Whether `def`'s output dims depend on input values no shape function sees (If, Loop,
// NonZero ...): the kernel binds those outputs itself (KernelContext::DynamicOutput).
bool HasDataDependentShape(const NodeDef& def);

// The output dims of `def` for one execution's inputs (null for an omitted input), from the
// op's shape function with every input's dims and values known. dims[i] is set where the
// function determines it, and known[i] tells which; an output left unknown is sized by the
// kernel. kInvalidParam (naming the node) for inputs that break the op's rules.
Status InferOutputDims(const NodeDef& def, const std::vector<const TensorView*>& inputs,
                       std::vector<Dims>* dims, std::vector<bool>* known);

// How many times a shape function ran on a loaded node, in this process (ApplyDefinition and
// InferOutputDims together): a test of the executor's static path sees it stay put.
uint64_t ShapeFunctionRuns();

}  // namespace kiln::kernels
