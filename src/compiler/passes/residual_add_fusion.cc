// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
// (being written)
#include "compiler/passes/passes.h"

namespace kiln::compiler {

std::unique_ptr<Pass> CreateResidualAddFusionPass() { return nullptr; }

}  // namespace kiln::compiler
