// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Quantization ops: QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear.
#include "ir/op_schema.h"

namespace kiln::ir {

void RegisterQuantizeOps(OpRegistry& registry) {}

}  // namespace kiln::ir
