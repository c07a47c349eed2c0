// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The parts of the CANN operator table (cann_ops.h), one file per family.
#pragma once

#include <vector>

#include "compiler/cann_ops.h"

namespace kiln::compiler {

// Element-wise arithmetic and activations, Cast, ArgMax, Softmax, reductions.
void AddMathOps(std::vector<CannOp>& ops);
// Convolution, pooling, batch normalisation, MatMul/BatchMatMul/GEMM.
void AddNnOps(std::vector<CannOp>& ops);
// Slicing, transposes, broadcasting, reshaping and joining.
void AddTensorOps(std::vector<CannOp>& ops);

}  // namespace kiln::compiler
