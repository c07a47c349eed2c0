// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Comparisons, logic and Where: grid-stride loops over output elements. A broadcasting operand
// walks the output index down the dims (BroadcastOffsets / WhereOffsets); operands of the
// output's shape read element i (a flag uniform over the launch, so no divergence).
#include <cuda_runtime.h>

#include <type_traits>

#include "backends/cuda/kernels/compare_launch.h"
#include "backends/cuda/kernels/grid.cuh"
#include "backends/cuda/kernels/word.cuh"

namespace kiln::cuda {
namespace {

template <CompareType kType>
struct Operand;
template <>
struct Operand<CompareType::kFloat32> {
  using type = float;
};
template <>
struct Operand<CompareType::kInt64> {
  using type = int64_t;
};
template <>
struct Operand<CompareType::kInt32> {
  using type = int32_t;
};
template <>
struct Operand<CompareType::kBool> {
  using type = uint8_t;  // read as v != 0
};

template <CompareType kType, typename E>
__device__ __forceinline__ auto Load(E v) {
  if constexpr (kType == CompareType::kBool) {
    return v != 0;
  } else {
    return v;
  }
}

// IEEE comparisons: NaN compares false with everything (Equal(NaN, NaN) is false), as the
// reference kernel's C++ operators.
template <CompareOp kOp, typename C>
__device__ __forceinline__ bool Apply(C a, C b) {
  if constexpr (kOp == CompareOp::kEqual) return a == b;
  if constexpr (kOp == CompareOp::kLess) return a < b;
  if constexpr (kOp == CompareOp::kGreater) return a > b;
  if constexpr (kOp == CompareOp::kLessOrEqual) return a <= b;
  if constexpr (kOp == CompareOp::kGreaterOrEqual) return a >= b;
  if constexpr (kOp == CompareOp::kAnd) return a && b;
  if constexpr (kOp == CompareOp::kOr) return a || b;
  if constexpr (kOp == CompareOp::kXor) return a != b;
  return false;
}

template <CompareOp kOp, CompareType kType>
__global__ void CompareKernel(const typename Operand<kType>::type* a,
                              const typename Operand<kType>::type* b, uint8_t* y, int64_t n,
                              BroadcastShape s, bool same) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int64_t ai = i, bi = i;
    if (!same) BroadcastOffsets(s, i, &ai, &bi);
    y[i] = Apply<kOp>(Load<kType>(a[ai]), Load<kType>(b[bi])) ? 1 : 0;
  }
}

__global__ void NotKernel(const uint8_t* x, uint8_t* y, int64_t n) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    y[i] = x[i] != 0 ? 0 : 1;
  }
}

template <typename T>
__global__ void WhereKernel(const uint8_t* cond, const T* x, const T* y, T* out, int64_t n,
                            WhereShape s, bool same) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int64_t ci = i, xi = i, yi = i;
    if (!same) WhereOffsets(s, i, &ci, &xi, &yi);
    out[i] = cond[ci] != 0 ? x[xi] : y[yi];
  }
}

template <CompareOp kOp, CompareType kType>
void Compare(const void* a, const void* b, uint8_t* y, int64_t n, const BroadcastShape& shape,
             bool same, cudaStream_t stream) {
  using E = typename Operand<kType>::type;
  CompareKernel<kOp, kType><<<Blocks(n), kThreads, 0, stream>>>(
      static_cast<const E*>(a), static_cast<const E*>(b), y, n, shape, same);
}

// Only the pairs the ops take are instantiated: the orderings of numbers, Equal also of bools,
// the logical ops of bools.
template <CompareOp kOp>
bool Compare(CompareType type, const void* a, const void* b, uint8_t* y, int64_t n,
             const BroadcastShape& shape, bool same, cudaStream_t stream) {
  constexpr bool kLogical =
      kOp == CompareOp::kAnd || kOp == CompareOp::kOr || kOp == CompareOp::kXor;
  if constexpr (kLogical) {
    if (type != CompareType::kBool) return false;
    Compare<kOp, CompareType::kBool>(a, b, y, n, shape, same, stream);
    return true;
  } else {
    switch (type) {
      case CompareType::kFloat32:
        Compare<kOp, CompareType::kFloat32>(a, b, y, n, shape, same, stream);
        return true;
      case CompareType::kInt64:
        Compare<kOp, CompareType::kInt64>(a, b, y, n, shape, same, stream);
        return true;
      case CompareType::kInt32:
        Compare<kOp, CompareType::kInt32>(a, b, y, n, shape, same, stream);
        return true;
      case CompareType::kBool:
        if constexpr (kOp == CompareOp::kEqual) {
          Compare<kOp, CompareType::kBool>(a, b, y, n, shape, same, stream);
          return true;
        } else {
          return false;
        }
    }
    return false;
  }
}

template <int kBytes>
void Where(const uint8_t* cond, const void* x, const void* y, void* out, int64_t n,
           const WhereShape& shape, bool same, cudaStream_t stream) {
  using T = Word<kBytes>;
  WhereKernel<T><<<Blocks(n), kThreads, 0, stream>>>(cond, static_cast<const T*>(x),
                                                     static_cast<const T*>(y), static_cast<T*>(out),
                                                     n, shape, same);
}

}  // namespace

int LaunchCompare(CompareOp op, CompareType type, const void* a, const void* b, uint8_t* y,
                  int64_t n, const BroadcastShape& shape, bool same_shape, void* stream) {
  if (n == 0) return 0;
  auto s = static_cast<cudaStream_t>(stream);
  bool launched = false;
  switch (op) {
#define KILN_COMPARE_CASE(name)                                                  \
  case CompareOp::name:                                                          \
    launched = Compare<CompareOp::name>(type, a, b, y, n, shape, same_shape, s); \
    break;
    KILN_COMPARE_CASE(kEqual)
    KILN_COMPARE_CASE(kLess)
    KILN_COMPARE_CASE(kGreater)
    KILN_COMPARE_CASE(kLessOrEqual)
    KILN_COMPARE_CASE(kGreaterOrEqual)
    KILN_COMPARE_CASE(kAnd)
    KILN_COMPARE_CASE(kOr)
    KILN_COMPARE_CASE(kXor)
#undef KILN_COMPARE_CASE
  }
  if (!launched) return static_cast<int>(cudaErrorInvalidValue);
  return static_cast<int>(cudaGetLastError());
}

int LaunchNot(const uint8_t* x, uint8_t* y, int64_t n, void* stream) {
  if (n == 0) return 0;
  NotKernel<<<Blocks(n), kThreads, 0, static_cast<cudaStream_t>(stream)>>>(x, y, n);
  return static_cast<int>(cudaGetLastError());
}

int LaunchWhere(const uint8_t* cond, const void* x, const void* y, void* out, int64_t n,
                int elem_bytes, const WhereShape& shape, bool same_shape, void* stream) {
  if (n == 0) return 0;
  auto s = static_cast<cudaStream_t>(stream);
  switch (elem_bytes) {
    case 1:
      Where<1>(cond, x, y, out, n, shape, same_shape, s);
      break;
    case 2:
      Where<2>(cond, x, y, out, n, shape, same_shape, s);
      break;
    case 4:
      Where<4>(cond, x, y, out, n, shape, same_shape, s);
      break;
    case 8:
      Where<8>(cond, x, y, out, n, shape, same_shape, s);
      break;
    default:
      return static_cast<int>(cudaErrorInvalidValue);
  }
  return static_cast<int>(cudaGetLastError());
}

}  // namespace kiln::cuda
