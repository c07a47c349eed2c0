// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Element-wise CUDA kernels: a grid-stride loop per launch, one element per thread step.
// Broadcasting walks the output index down the dims once per element (divisions by the dims):
// memory-bound kernels where that arithmetic hides behind the loads.
#include <cuda_runtime.h>

#include "backends/cuda/kernels/elementwise_launch.h"
#include "backends/cuda/kernels/grid.cuh"

namespace kiln::cuda {
namespace {

template <UnaryOp kOp>
__device__ __forceinline__ float Unary(float x) {
  if constexpr (kOp == UnaryOp::kRelu) return x > 0.f ? x : (x != x ? x : 0.f);
  if constexpr (kOp == UnaryOp::kSigmoid) return 1.f / (1.f + expf(-x));
  if constexpr (kOp == UnaryOp::kTanh) return tanhf(x);
  if constexpr (kOp == UnaryOp::kExp) return expf(x);
  if constexpr (kOp == UnaryOp::kLog) return logf(x);
  if constexpr (kOp == UnaryOp::kNeg) return -x;
  if constexpr (kOp == UnaryOp::kAbs) return fabsf(x);
  if constexpr (kOp == UnaryOp::kSqrt) return sqrtf(x);
  if constexpr (kOp == UnaryOp::kReciprocal) return 1.f / x;
  if constexpr (kOp == UnaryOp::kFloor) return floorf(x);
  if constexpr (kOp == UnaryOp::kCeil) return ceilf(x);
  if constexpr (kOp == UnaryOp::kErf) return erff(x);
  if constexpr (kOp == UnaryOp::kSoftplus) return x > 20.f ? x : log1pf(expf(x));
  return x;
}

template <BinaryOp kOp>
__device__ __forceinline__ float Binary(float a, float b) {
  if constexpr (kOp == BinaryOp::kAdd) return a + b;
  if constexpr (kOp == BinaryOp::kSub) return a - b;
  if constexpr (kOp == BinaryOp::kMul) return a * b;
  if constexpr (kOp == BinaryOp::kDiv) return a / b;
  // numpy maximum / minimum: NaN in either operand gives NaN (the first one when both are).
  if constexpr (kOp == BinaryOp::kMax) return a != a ? a : (b != b ? b : (a < b ? b : a));
  if constexpr (kOp == BinaryOp::kMin) return a != a ? a : (b != b ? b : (b < a ? b : a));
  if constexpr (kOp == BinaryOp::kPow) return powf(a, b);
  return a;
}

// The reference kernel's integer rules (kernels/reference/elementwise.cc): wrapping arithmetic,
// division truncating toward zero with 0 for a zero divisor.
template <BinaryOp kOp, typename T>
__device__ __forceinline__ T Binary(T a, T b) {
  using U = unsigned long long;
  if constexpr (kOp == BinaryOp::kAdd) return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
  if constexpr (kOp == BinaryOp::kSub) return static_cast<T>(static_cast<U>(a) - static_cast<U>(b));
  if constexpr (kOp == BinaryOp::kMul) return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
  if constexpr (kOp == BinaryOp::kDiv) {
    if (b == 0) return 0;
    if (b == -1) return static_cast<T>(0ull - static_cast<U>(a));
    return static_cast<T>(a / b);
  }
  if constexpr (kOp == BinaryOp::kMax) return a < b ? b : a;
  if constexpr (kOp == BinaryOp::kMin) return b < a ? b : a;
  return a;
}

template <UnaryOp kOp>
__global__ void UnaryKernel(const float* __restrict__ x, float* y, int64_t n) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    y[i] = Unary<kOp>(x[i]);
  }
}

template <BinaryOp kOp, typename T>
__global__ void SameShapeKernel(const T* a, const T* b, T* y, int64_t n) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    y[i] = Binary<kOp>(a[i], b[i]);
  }
}

template <BinaryOp kOp, typename T>
__global__ void BroadcastKernel(const T* a, const T* b, T* y, int64_t n, BroadcastShape s) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int64_t ai = 0, bi = 0;
    BroadcastOffsets(s, i, &ai, &bi);
    y[i] = Binary<kOp>(a[ai], b[bi]);
  }
}

template <UnaryOp kOp>
void Unary(const float* x, float* y, int64_t n, cudaStream_t stream) {
  UnaryKernel<kOp><<<Blocks(n), kThreads, 0, stream>>>(x, y, n);
}

template <BinaryOp kOp, typename T>
void Binary(const void* a, const void* b, void* y, int64_t n, const BroadcastShape& shape,
            bool same_shape, cudaStream_t stream) {
  auto* ta = static_cast<const T*>(a);
  auto* tb = static_cast<const T*>(b);
  auto* ty = static_cast<T*>(y);
  if (same_shape) {
    SameShapeKernel<kOp, T><<<Blocks(n), kThreads, 0, stream>>>(ta, tb, ty, n);
  } else {
    BroadcastKernel<kOp, T><<<Blocks(n), kThreads, 0, stream>>>(ta, tb, ty, n, shape);
  }
}

template <BinaryOp kOp>
bool Binary(BinaryType type, const void* a, const void* b, void* y, int64_t n,
            const BroadcastShape& shape, bool same_shape, cudaStream_t stream) {
  switch (type) {
    case BinaryType::kFloat32:
      Binary<kOp, float>(a, b, y, n, shape, same_shape, stream);
      return true;
    case BinaryType::kInt64:
      if constexpr (kOp == BinaryOp::kPow) return false;
      Binary<kOp, int64_t>(a, b, y, n, shape, same_shape, stream);
      return true;
    case BinaryType::kInt32:
      if constexpr (kOp == BinaryOp::kPow) return false;
      Binary<kOp, int32_t>(a, b, y, n, shape, same_shape, stream);
      return true;
  }
  return false;
}

}  // namespace

int LaunchUnary(UnaryOp op, const float* x, float* y, int64_t n, void* stream) {
  if (n == 0) return 0;
  auto s = static_cast<cudaStream_t>(stream);
  switch (op) {
#define KILN_UNARY_CASE(name)         \
  case UnaryOp::name:                 \
    Unary<UnaryOp::name>(x, y, n, s); \
    break;
    KILN_UNARY_CASE(kRelu)
    KILN_UNARY_CASE(kSigmoid)
    KILN_UNARY_CASE(kTanh)
    KILN_UNARY_CASE(kExp)
    KILN_UNARY_CASE(kLog)
    KILN_UNARY_CASE(kNeg)
    KILN_UNARY_CASE(kAbs)
    KILN_UNARY_CASE(kSqrt)
    KILN_UNARY_CASE(kReciprocal)
    KILN_UNARY_CASE(kFloor)
    KILN_UNARY_CASE(kCeil)
    KILN_UNARY_CASE(kErf)
    KILN_UNARY_CASE(kSoftplus)
#undef KILN_UNARY_CASE
  }
  return static_cast<int>(cudaGetLastError());
}

int LaunchBinary(BinaryOp op, BinaryType type, const void* a, const void* b, void* y, int64_t n,
                 const BroadcastShape& shape, bool same_shape, void* stream) {
  if (n == 0) return 0;
  auto s = static_cast<cudaStream_t>(stream);
  bool launched = false;
  switch (op) {
#define KILN_BINARY_CASE(name)                                                 \
  case BinaryOp::name:                                                         \
    launched = Binary<BinaryOp::name>(type, a, b, y, n, shape, same_shape, s); \
    break;
    KILN_BINARY_CASE(kAdd)
    KILN_BINARY_CASE(kSub)
    KILN_BINARY_CASE(kMul)
    KILN_BINARY_CASE(kDiv)
    KILN_BINARY_CASE(kMax)
    KILN_BINARY_CASE(kMin)
    KILN_BINARY_CASE(kPow)
#undef KILN_BINARY_CASE
  }
  if (!launched) return static_cast<int>(cudaErrorInvalidValue);
  return static_cast<int>(cudaGetLastError());
}

}  // namespace kiln::cuda
