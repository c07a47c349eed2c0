// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "compiler/pass.h"

#include <algorithm>

namespace kiln::compiler {

bool PassContext::Enabled(const std::string& pass) const {
  return std::find(disabled.begin(), disabled.end(), pass) == disabled.end();
}

Status PassManager::Run(ir::Graph& graph, PassContext& ctx) {
  for (auto& pass : passes_) {
    if (!ctx.Enabled(pass->name())) continue;
    KILN_ASSIGN_OR_RETURN(bool changed, pass->Run(graph, ctx));
    if (changed) {
      KILN_RETURN_IF_ERROR(graph.TopologicalSort(), StrCat("after pass ", pass->name()));
      KILN_RETURN_IF_ERROR(ir::InferGraph(*ctx.registry, graph),
                           StrCat("shape inference after pass ", pass->name()));
    }
  }
  return Status::Ok();
}

}  // namespace kiln::compiler
