// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Attention ops: Attention, RotaryEmbedding.
#include "ir/op_schema.h"

namespace kiln::ir {

void RegisterAttentionOps(OpRegistry& registry) {}

}  // namespace kiln::ir
