// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The CUDA reduction launchers (reduce.cu), callable from plain C++: the Reduce* ops over any set
// of axes of a row-major input, and ArgMax / ArgMin along one axis. Each returns the launch's
// cudaError_t as an int (0: success).
#pragma once

#include <cstdint>
#include <vector>

#include "backends/cuda/kernels/elementwise_launch.h"

namespace kiln::cuda {

enum class ReduceOp : int {
  kSum,
  kMean,
  kMax,
  kMin,
  kProd,
  kSumSquare,
  kL1,
  kL2,
  kLogSum,
  kLogSumExp
};
// The element types (input and output alike): float32 for every op, int64 and int32 for all but
// kL2, kLogSum and kLogSumExp.
enum class ReduceType : int { kFloat32, kInt64, kInt32 };

inline constexpr int kMaxReduceRank = 8;

// A reduction of a row-major input as two sets of dims, each with its strides in the input's
// elements: the kept dims (the outputs, row-major over them) and the reduced dims (the values
// each output takes, visited row-major). Dims of 1 are left out and neighbours of one kind
// merged, so a reduction over H and W of NCHW is one kept dim of N·C and one reduced dim of H·W.
struct ReduceShape {
  int kept_rank = 0;
  int64_t kept_dims[kMaxReduceRank] = {};
  int64_t kept_strides[kMaxReduceRank] = {};
  int reduced_rank = 0;
  int64_t reduced_dims[kMaxReduceRank] = {};
  int64_t reduced_strides[kMaxReduceRank] = {};
};

// The reduction of a row-major input of `dims` over the dims where `reduced` is set: fills
// `shape`, the number of outputs and the number of values each reduces (1 when none is
// reduced). False when the kept or the reduced dims need more than kMaxReduceRank dims after
// merging (never for inputs of up to 2·kMaxReduceRank dims).
bool MakeReduceShape(const std::vector<int64_t>& dims, const std::vector<bool>& reduced,
                     ReduceShape* shape, int64_t* outputs, int64_t* count);

// The kernels' indexing (also run on the host by the tests). The offset in x of output o's
// first value: o taken row-major over the kept dims.
KILN_HOST_DEVICE inline int64_t KeptOffset(const ReduceShape& s, int64_t o) {
  int64_t offset = 0;
  for (int d = s.kept_rank - 1; d >= 0; --d) {
    offset += o % s.kept_dims[d] * s.kept_strides[d];
    o /= s.kept_dims[d];
  }
  return offset;
}
// The offset of an output's value r from its first one: r taken row-major over the reduced
// dims.
KILN_HOST_DEVICE inline int64_t ReducedOffset(const ReduceShape& s, int64_t r) {
  int64_t offset = 0;
  for (int d = s.reduced_rank - 1; d >= 0; --d) {
    offset += r % s.reduced_dims[d] * s.reduced_strides[d];
    r /= s.reduced_dims[d];
  }
  return offset;
}
// Calls fn(offset in x) for each of the `count` values of the output whose first value is at
// `base`, in ReducedOffset's order (the reference kernel's), stepping without divisions.
template <typename Fn>
KILN_HOST_DEVICE inline void ForEachReducedValue(const ReduceShape& s, int64_t base, int64_t count,
                                                 Fn&& fn) {
  if (s.reduced_rank <= 1) {
    const int64_t step = s.reduced_rank == 1 ? s.reduced_strides[0] : 0;
    for (int64_t r = 0; r < count; ++r) fn(base + r * step);
    return;
  }
  int64_t index[kMaxReduceRank] = {};
  int64_t offset = base;
  for (int64_t r = 0; r < count; ++r) {
    fn(offset);
    for (int d = s.reduced_rank - 1; d >= 0; --d) {
      offset += s.reduced_strides[d];
      if (++index[d] < s.reduced_dims[d]) break;
      offset -= s.reduced_strides[d] * s.reduced_dims[d];
      index[d] = 0;
    }
  }
}

// y[o] for o < `outputs`: the op over the `count` values of x that output o reduces (count 0:
// the op's value of no values, as the reference kernel has it). Floats accumulate in double as
// the reference does; integers wrap (sums, products, means) or compare in their type (max, min).
int LaunchReduce(ReduceOp op, ReduceType type, const void* x, void* y, int64_t outputs,
                 int64_t count, const ReduceShape& shape, void* stream);

// y[o * inner + k] = the index i < len of the largest (`max`) or smallest value of
// x[(o * len + i) * inner + k], for o < outer, k < inner: the first one of equal values, or the
// last with `last`; NaN counts as the extreme (the first NaN, or the last with `last`). len > 0.
int LaunchArgReduce(bool max, bool last, ReduceType type, const void* x, int64_t* y, int64_t outer,
                    int64_t len, int64_t inner, void* stream);

}  // namespace kiln::cuda
