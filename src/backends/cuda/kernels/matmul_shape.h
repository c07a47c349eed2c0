// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// How a MatMul or Gemm of given input dims maps onto one strided-batched cuBLASLt call
// (matmul.cc), plain C++ so the host tests check it: Y[b] (M×N, row-major) = op(A)[b] (M×K) ·
// op(B)[b] (K×N).
#pragma once

#include <cstdint>

#include "base/status.h"
#include "kernels/tensor_view.h"

namespace kiln::cuda {

struct MatmulShape {
  int64_t batch = 1, m = 0, n = 0, k = 0;
  // Elements between consecutive matrices of each operand; 0 for one matrix shared by every
  // batch (a broadcast operand).
  int64_t a_stride = 0, b_stride = 0;
  bool trans_a = false, trans_b = false;  // Gemm's transA / transB
};

// MatMul (numpy rules): a 1-D A is [1, K] and a 1-D B [K, 1]; a B of one matrix folds A's batch
// dims into M (A's rows are contiguous); otherwise the batch dims must be equal, or those of
// one side all 1. kFeatureUnsupported for batch dims that broadcast otherwise (A [2, 3, M, K]
// with B [3, K, N]: one strided call cannot express it); kInvalidParam for K that disagree.
Result<MatmulShape> MatMulShapeOf(const kernels::Dims& a, const kernels::Dims& b);

// Gemm: 2-D A and B with transA / transB.
Result<MatmulShape> GemmShapeOf(const kernels::Dims& a, const kernels::Dims& b, bool trans_a,
                                bool trans_b);

}  // namespace kiln::cuda
