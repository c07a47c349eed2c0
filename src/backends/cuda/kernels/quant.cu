// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// 8-bit kernels. Dequantize and quantize are grid-stride loops; DynamicQuantizeLinear's range is
// reduced with atomic min / max on the float's bits (valid for a range that contains 0: a
// non-negative float orders as its int bits, a negative one inversely as its unsigned bits);
// MatMulInteger is one thread per output element (a correct baseline, not a tuned GEMM).
#include <cuda_runtime.h>

#include "backends/cuda/kernels/grid.cuh"
#include "backends/cuda/kernels/quant_launch.h"

namespace kiln::cuda {
namespace {

template <typename T>
__global__ void DequantizeKernel(const T* x, const float* scale, const T* zero_point, float* y,
                                 int64_t n, int64_t inner, int64_t axis_len) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t p = (i / inner) % axis_len;
    const float zp = zero_point != nullptr ? static_cast<float>(zero_point[p]) : 0.f;
    y[i] = (static_cast<float>(x[i]) - zp) * scale[p];
  }
}

__global__ void RangeInitKernel(float* range) {
  range[0] = 0.f;  // min
  range[1] = 0.f;  // max
}

__global__ void RangeKernel(const float* x, int64_t n, float* range) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const float v = x[i];
    if (v != v) continue;  // NaN: out of the range
    if (v < 0.f) {
      atomicMax(reinterpret_cast<unsigned int*>(&range[0]), __float_as_uint(v));
    } else {
      atomicMax(reinterpret_cast<int*>(&range[1]), __float_as_int(v));
    }
  }
}

// The reference's scale and zero point, in float32.
__global__ void ScaleKernel(const float* range, float* y_scale, uint8_t* y_zero_point) {
  const float min_x = range[0], max_x = range[1];
  const float scale = (max_x == min_x ? 1.f : max_x - min_x) / 255.f;
  float z = 0.f - min_x / scale;
  z = z < 0.f ? 0.f : (255.f < z ? 255.f : z);  // std::clamp: NaN stays NaN
  z = rintf(z);
  if (z != z) z = 0.f;
  *y_scale = scale;
  *y_zero_point = static_cast<uint8_t>(z);
}

__global__ void QuantizeKernel(const float* x, int64_t n, const float* scale,
                               const uint8_t* zero_point, uint8_t* y) {
  const float s = *scale, zp = static_cast<float>(*zero_point);
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const float v = rintf(x[i] / s) + zp;
    y[i] = v != v ? 0 : static_cast<uint8_t>(v < 0.f ? 0.f : (255.f < v ? 255.f : v));
  }
}

template <typename A, typename B>
__global__ void MatMulIntegerKernel(const A* a, const B* b, const A* a_zp, const B* b_zp,
                                    bool b_zp_per_column, int32_t* y, MatmulShape s) {
  const int64_t total = s.batch * s.m * s.n;
  for (int64_t o = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; o < total;
       o += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t j = o % s.n, i = (o / s.n) % s.m, batch = o / (s.n * s.m);
    const A* row = a + batch * s.a_stride + i * s.k;
    const B* col = b + batch * s.b_stride + j;
    const int32_t za = a_zp != nullptr ? static_cast<int32_t>(*a_zp) : 0;
    const int32_t zb =
        b_zp != nullptr ? static_cast<int32_t>(b_zp_per_column ? b_zp[j] : *b_zp) : 0;
    long long sum = 0;
    for (int64_t kk = 0; kk < s.k; ++kk) {
      sum += static_cast<long long>(static_cast<int32_t>(row[kk]) - za) *
             (static_cast<int32_t>(col[kk * s.n]) - zb);
    }
    y[o] = static_cast<int32_t>(static_cast<unsigned long long>(sum));  // a wrapping 32-bit sum
  }
}

template <typename A, typename B>
void MatMulInteger(const void* a, const void* b, const void* a_zp, const void* b_zp,
                   bool per_column, int32_t* y, const MatmulShape& s, cudaStream_t stream) {
  MatMulIntegerKernel<A, B><<<Blocks(s.batch * s.m * s.n), kThreads, 0, stream>>>(
      static_cast<const A*>(a), static_cast<const B*>(b), static_cast<const A*>(a_zp),
      static_cast<const B*>(b_zp), per_column, y, s);
}

}  // namespace

int LaunchDequantize(const void* x, bool signed_x, const float* scale, const void* zero_point,
                     float* y, int64_t n, int64_t inner, int64_t axis_len, void* stream) {
  if (n == 0) return 0;
  auto s = static_cast<cudaStream_t>(stream);
  if (signed_x) {
    DequantizeKernel<int8_t><<<Blocks(n), kThreads, 0, s>>>(static_cast<const int8_t*>(x), scale,
                                                            static_cast<const int8_t*>(zero_point),
                                                            y, n, inner, axis_len);
  } else {
    DequantizeKernel<uint8_t><<<Blocks(n), kThreads, 0, s>>>(
        static_cast<const uint8_t*>(x), scale, static_cast<const uint8_t*>(zero_point), y, n, inner,
        axis_len);
  }
  return static_cast<int>(cudaGetLastError());
}

int LaunchDynamicQuantize(const float* x, int64_t n, uint8_t* y, float* y_scale,
                          uint8_t* y_zero_point, float* range, void* stream) {
  auto s = static_cast<cudaStream_t>(stream);
  RangeInitKernel<<<1, 1, 0, s>>>(range);
  if (n > 0) RangeKernel<<<Blocks(n), kThreads, 0, s>>>(x, n, range);
  ScaleKernel<<<1, 1, 0, s>>>(range, y_scale, y_zero_point);
  if (n > 0) QuantizeKernel<<<Blocks(n), kThreads, 0, s>>>(x, n, y_scale, y_zero_point, y);
  return static_cast<int>(cudaGetLastError());
}

int LaunchMatMulInteger(const void* a, bool signed_a, const void* b, bool signed_b,
                        const void* a_zero_point, const void* b_zero_point, bool b_zp_per_column,
                        int32_t* y, const MatmulShape& s, void* stream) {
  if (s.batch * s.m * s.n == 0) return 0;
  auto st = static_cast<cudaStream_t>(stream);
  if (signed_a && signed_b) {
    MatMulInteger<int8_t, int8_t>(a, b, a_zero_point, b_zero_point, b_zp_per_column, y, s, st);
  } else if (signed_a) {
    MatMulInteger<int8_t, uint8_t>(a, b, a_zero_point, b_zero_point, b_zp_per_column, y, s, st);
  } else if (signed_b) {
    MatMulInteger<uint8_t, int8_t>(a, b, a_zero_point, b_zero_point, b_zp_per_column, y, s, st);
  } else {
    MatMulInteger<uint8_t, uint8_t>(a, b, a_zero_point, b_zero_point, b_zp_per_column, y, s, st);
  }
  return static_cast<int>(cudaGetLastError());
}

}  // namespace kiln::cuda
