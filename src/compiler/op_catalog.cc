// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "compiler/op_catalog.h"

#include "ir/op_schema.h"

namespace kiln::compiler {

std::vector<OpEntry> SupportedOps() {
  std::vector<OpEntry> out;
  for (const ir::OpSchema* s : ir::OpRegistry::Global().All()) {
    out.push_back({s->family, s->domain, s->op_type, s->since_version, s->min_inputs,
                   s->max_inputs, s->min_outputs, s->max_outputs});
  }
  return out;
}

}  // namespace kiln::compiler
