// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// io_dtype: --output_type and --input_fp16_nodes, as Cast nodes at the graph's edges.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"
#include "compiler/pass.h"

namespace kiln::compiler {

// Types are ATC's names: FP32, FP16, UINT8, INT8, UINT16, INT16, UINT32, INT32, UINT64, INT64,
// DOUBLE.
struct IoDtypeOptions {
  // The type of every graph output; "" keeps each output's type.
  std::string all_outputs;
  // ("node:index" or tensor name, type): the type of those outputs only (wins over
  // all_outputs). Entries resolve as --out_nodes entries do (ResolveOutputEntry).
  std::vector<std::pair<std::string, std::string>> per_output;
  // Names of float graph inputs the caller passes as float16.
  std::vector<std::string> fp16_inputs;
};

// Parses ATC's flags: --output_type is one type for every output ("FP16") or
// "node:index:TYPE;..." entries (a tensor name may stand for "node:index"; the type follows the
// last ':'); --input_fp16_nodes is "in1;in2". Blank entries (a trailing ';') are skipped.
// kInvalidParam for a type name ATC does not have or Kiln does not support (the message lists
// the allowed ones), an entry without a target, or a mix of the two --output_type forms.
Result<IoDtypeOptions> ParseIoDtypeFlags(const std::string& output_type,
                                         const std::string& input_fp16_nodes);

// The io_dtype pass. Each graph output whose type differs from the one asked for gets a Cast
// appended; the output keeps its value and name (the Cast produces it) and what computed it
// moves to a fresh value "<name>_kiln_pre_cast", which the output's other readers read. Each
// fp16 input becomes float16 and keeps its name; a Cast back to its declared type, producing
// "<name>_kiln_cast", is what its readers read (a graph output that is the input itself stays
// the input, now float16). New Cast nodes are named "<value>_kiln_cast", have no origins (they
// are not ONNX's) and opset max(13, the graph's ONNX opset). Needs output types, so it runs
// after shape inference. Checks everything before changing anything. kInvalidParam for a bad
// type name, an unknown input or one that is not float or is an initializer, an --output_type
// entry that ResolveOutputEntry rejects or that is not a graph output, two types for one
// output, an output whose type is not known yet or that is a graph input itself;
// kFeatureUnsupported for a value a subgraph reads by name (its readers would change type).
std::unique_ptr<Pass> CreateIoDtypePass(IoDtypeOptions options);

}  // namespace kiln::compiler
