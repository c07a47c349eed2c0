// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "backends/cuda/kernels/matmul_shape.h"

#include <algorithm>

#include "kernels/util.h"

namespace kiln::cuda {
namespace {}  // namespace

Result<MatmulShape> MatMulShapeOf(const kernels::Dims& a_in, const kernels::Dims& b_in) {
  if (a_in.empty() || b_in.empty()) {
    return Error(code::kInvalidParam, "MatMul takes no scalars");
  }
  kernels::Dims a = a_in, b = b_in;
  if (a.size() == 1) a.insert(a.begin(), 1);
  if (b.size() == 1) b.push_back(1);
  MatmulShape s;
  s.k = a.back();
  if (b[b.size() - 2] != s.k) {
    return Error(code::kInvalidParam, "MatMul: A has ", s.k, " columns, B ", b[b.size() - 2],
                 " rows");
  }
  s.n = b.back();
  const size_t a_batch_rank = a.size() - 2, b_batch_rank = b.size() - 2;
  const int64_t a_batch = kernels::Product(a, 0, a_batch_rank),
                b_batch = kernels::Product(b, 0, b_batch_rank);
  const int64_t rows = a[a.size() - 2];
  if (b_batch == 1) {  // one B: A's batch folds into its rows
    s.m = a_batch * rows;
    return s;
  }
  s.m = rows;
  s.b_stride = s.k * s.n;
  if (a_batch == 1) {  // one A for every B
    s.batch = b_batch;
    return s;
  }
  // Both batched: the same dims, right-aligned, where both have them; the longer side's extra
  // leading dims must be 1 (otherwise the output repeats a side's matrices).
  const size_t rank = std::max(a_batch_rank, b_batch_rank);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t ad = i < rank - a_batch_rank ? 1 : a[i - (rank - a_batch_rank)];
    const int64_t bd = i < rank - b_batch_rank ? 1 : b[i - (rank - b_batch_rank)];
    if (ad != bd) {
      return Error(code::kFeatureUnsupported, "MatMul batch dims of A ", kernels::DimsString(a_in),
                   " and B ", kernels::DimsString(b_in),
                   " broadcast in a way one strided cuBLASLt call cannot express");
    }
  }
  s.batch = a_batch;
  s.a_stride = s.m * s.k;
  return s;
}

Result<MatmulShape> GemmShapeOf(const kernels::Dims& a, const kernels::Dims& b, bool trans_a,
                                bool trans_b) {
  if (a.size() != 2 || b.size() != 2) {
    return Error(code::kInvalidParam, "Gemm takes 2-D A and B");
  }
  MatmulShape s;
  s.trans_a = trans_a;
  s.trans_b = trans_b;
  s.m = trans_a ? a[1] : a[0];
  s.k = trans_a ? a[0] : a[1];
  s.n = trans_b ? b[0] : b[1];
  const int64_t bk = trans_b ? b[1] : b[0];
  if (bk != s.k)
    return Error(code::kInvalidParam, "Gemm: op(A) has ", s.k, " columns, op(B) ", bk, " rows");
  return s;
}

}  // namespace kiln::cuda
