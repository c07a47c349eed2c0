// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The CUDA comparison and logic launchers (compare.cu), callable from plain C++: comparisons
// and And/Or/Xor with numpy broadcasting (bool out: one byte, 0 or 1), Not, and Where with
// three-way broadcasting of elements of any size.
#pragma once

#include <cstdint>

#include "backends/cuda/kernels/elementwise_launch.h"

namespace kiln::cuda {

// The logical ops take bool operands only.
enum class CompareOp : int {
  kEqual,
  kLess,
  kGreater,
  kLessOrEqual,
  kGreaterOrEqual,
  kAnd,
  kOr,
  kXor
};
// The operands' element type. A bool byte other than 0 is true (as C++ reads a bool the
// reference kernel wrote).
enum class CompareType : int { kFloat32, kInt64, kInt32, kBool };

// Where's operands: `cx` holds the output dims with the condition's strides (a_strides) and
// X's (b_strides); `y_strides` are Y's per output dim (0 along a broadcast dim).
struct WhereShape {
  BroadcastShape cx;
  int64_t y_strides[kMaxBroadcastRank] = {};
};

// The offsets in the condition, X and Y of output element `i` (BroadcastOffsets with a third
// operand; run on the host by the tests too).
KILN_HOST_DEVICE inline void WhereOffsets(const WhereShape& s, int64_t i, int64_t* c, int64_t* x,
                                          int64_t* y) {
  int64_t rest = i, ci = 0, xi = 0, yi = 0;
  for (int d = s.cx.rank - 1; d >= 0; --d) {
    const int64_t coord = rest % s.cx.dims[d];
    rest /= s.cx.dims[d];
    ci += coord * s.cx.a_strides[d];
    xi += coord * s.cx.b_strides[d];
    yi += coord * s.y_strides[d];
  }
  *c = ci;
  *x = xi;
  *y = yi;
}

// Launch on `stream` (a cudaStream_t); return the launch's cudaError_t as an int (0: success).
// y[i] = op(a[ai], b[bi]) as 0 or 1 for the n output elements (BroadcastOffsets, or i for both
// when `same_shape`). cudaErrorInvalidValue for a logical op of a type other than kBool.
int LaunchCompare(CompareOp op, CompareType type, const void* a, const void* b, uint8_t* y,
                  int64_t n, const BroadcastShape& shape, bool same_shape, void* stream);
// y[i] = !x[i] as 0 or 1.
int LaunchNot(const uint8_t* x, uint8_t* y, int64_t n, void* stream);
// out[i] = cond[ci] ? x[xi] : y[yi] for elements of `elem_bytes` (1, 2, 4 or 8), copied bit for
// bit (WhereOffsets, or i for all three when `same_shape`).
int LaunchWhere(const uint8_t* cond, const void* x, const void* y, void* out, int64_t n,
                int elem_bytes, const WhereShape& shape, bool same_shape, void* stream);

}  // namespace kiln::cuda
