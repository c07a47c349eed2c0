// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Cast: one grid-stride kernel per (from, to) pair. Half types compute in float, as the
// reference kernel's ComputeT does; the float-to-integer rule is the reference's DoubleToInt.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "backends/cuda/kernels/cast_launch.h"
#include "backends/cuda/kernels/grid.cuh"

namespace kiln::cuda {
namespace {

template <typename T>
constexpr bool kHalf = std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>;
template <typename T>
constexpr bool kFloatLike = kHalf<T> || std::is_floating_point_v<T>;
template <typename T>
using ComputeT = std::conditional_t<kHalf<T>, float, T>;

template <typename T>
__device__ ComputeT<T> Load(const T* p, int64_t i) {
  if constexpr (std::is_same_v<T, __half>) {
    return __half2float(p[i]);
  } else if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    return __bfloat162float(p[i]);
  } else {
    return p[i];
  }
}

template <typename T>
__device__ void Store(T* p, int64_t i, ComputeT<T> v) {
  if constexpr (std::is_same_v<T, __half>) {
    p[i] = __float2half_rn(v);
  } else if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    p[i] = __float2bfloat16_rn(v);
  } else {
    p[i] = v;
  }
}

// The reference kernel's DoubleToInt: truncates, NaN -> 0, saturates to int64's range, wraps.
template <typename T>
__device__ T DoubleToInt(double d) {
  if (d != d) return 0;
  d = trunc(d);
  constexpr double kTwo63 = 9223372036854775808.0;
  if (d >= kTwo63) return static_cast<T>(INT64_MAX);
  if (d < -kTwo63) return static_cast<T>(INT64_MIN);
  return static_cast<T>(static_cast<int64_t>(d));
}

template <typename To, typename From>
__device__ ComputeT<To> Convert(ComputeT<From> v) {
  if constexpr (std::is_same_v<To, bool>) {
    return v != ComputeT<From>(0);
  } else if constexpr (kFloatLike<To>) {
    return static_cast<ComputeT<To>>(v);
  } else if constexpr (kFloatLike<From>) {
    return DoubleToInt<To>(static_cast<double>(v));
  } else {
    return static_cast<To>(v);
  }
}

template <typename From, typename To>
__global__ void CastKernel(const From* x, To* y, int64_t n) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    Store(y, i, Convert<To, From>(Load(x, i)));
  }
}

template <typename From, typename To>
void Cast(const void* x, void* y, int64_t n, cudaStream_t s) {
  CastKernel<From, To>
      <<<Blocks(n), kThreads, 0, s>>>(static_cast<const From*>(x), static_cast<To*>(y), n);
}

// Calls fn with a value of the C++ type of `t`.
template <typename Fn>
bool Dispatch(CastType t, Fn&& fn) {
  switch (t) {
    case CastType::kFloat32:
      fn(float{});
      return true;
    case CastType::kFloat16:
      fn(__half{});
      return true;
    case CastType::kBfloat16:
      fn(__nv_bfloat16{});
      return true;
    case CastType::kFloat64:
      fn(double{});
      return true;
    case CastType::kInt64:
      fn(int64_t{});
      return true;
    case CastType::kInt32:
      fn(int32_t{});
      return true;
    case CastType::kInt16:
      fn(int16_t{});
      return true;
    case CastType::kInt8:
      fn(int8_t{});
      return true;
    case CastType::kUint8:
      fn(uint8_t{});
      return true;
    case CastType::kBool:
      fn(bool{});
      return true;
  }
  return false;
}

}  // namespace

int LaunchCast(CastType from, CastType to, const void* x, void* y, int64_t n, void* stream) {
  if (n == 0) return 0;
  auto s = static_cast<cudaStream_t>(stream);
  bool known = false;
  Dispatch(from, [&](auto f) {
    Dispatch(to, [&](auto t) {
      Cast<decltype(f), decltype(t)>(x, y, n, s);
      known = true;
    });
  });
  if (!known) return static_cast<int>(cudaErrorInvalidValue);
  return static_cast<int>(cudaGetLastError());
}

}  // namespace kiln::cuda
