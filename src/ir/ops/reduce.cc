// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
// (being written)
#include "ir/ops/infer_util.h"

namespace kiln::ir {

void RegisterReduceOps(OpRegistry&) {}

}  // namespace kiln::ir
