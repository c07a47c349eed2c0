// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The ops the compiler accepts, as tools list them (tools/gen_ops_doc writes docs/ops.md from
// it): a read-only view of the op registry for layers that may not reach src/ir.
#pragma once

#include <string>
#include <vector>

namespace kiln::compiler {

struct OpEntry {
  std::string family;  // the ir/ops/<family>.cc that defines it
  std::string domain;  // "" = ai.onnx
  std::string op_type;
  int since_version = 1;  // lowest opset accepted
  int min_inputs = 0, max_inputs = 0, min_outputs = 0, max_outputs = 0;  // max -1 = unbounded
};

// Every op with a schema, in registry order.
std::vector<OpEntry> SupportedOps();

}  // namespace kiln::compiler
