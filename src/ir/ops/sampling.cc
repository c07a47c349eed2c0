// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Sampling and image-geometry ops: GridSample, AffineGrid, Col2Im.
#include "ir/op_schema.h"

namespace kiln::ir {

void RegisterSamplingOps(OpRegistry& registry) {}

}  // namespace kiln::ir
