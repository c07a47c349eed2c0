// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Data movement: grid-stride loops over output elements, the element size a template argument
// (copied as an integer of that size, so any type moves bit for bit).
#include <cuda_runtime.h>

#include <type_traits>

#include "backends/cuda/kernels/grid.cuh"
#include "backends/cuda/kernels/movement_launch.h"
#include "backends/cuda/kernels/word.cuh"

namespace kiln::cuda {
namespace {

template <typename T>
__global__ void StridedCopyKernel(const T* src, T* dst, int64_t n, BroadcastShape s) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int64_t from = 0, to = 0;
    BroadcastOffsets(s, i, &from, &to);
    dst[to] = src[from];
  }
}

template <typename T>
__global__ void FillKernel(T* dst, int64_t n, T value) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    dst[i] = value;
  }
}

template <typename T>
__global__ void RangeKernel(const T* start, const T* delta, T* y, int64_t n) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    // Two roundings, as the reference's start + i * delta (no fused multiply-add).
    if constexpr (std::is_same_v<T, float>) {
      y[i] = __fadd_rn(*start, __fmul_rn(static_cast<float>(i), *delta));
    } else {
      y[i] = static_cast<T>(*start + static_cast<T>(i) * *delta);
    }
  }
}

template <typename T, typename Index>
__global__ void GatherKernel(const T* data, const Index* indices, T* out, int64_t outer,
                             int64_t axis_dim, int64_t count, int64_t inner) {
  const int64_t n = outer * count * inner;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t r = i % inner, j = (i / inner) % count, o = i / (inner * count);
    int64_t idx = static_cast<int64_t>(indices[j]);
    if (idx < 0) idx += axis_dim;
    out[i] = idx >= 0 && idx < axis_dim ? data[(o * axis_dim + idx) * inner + r] : T{0};
  }
}

template <int kBytes>
void StridedCopy(const void* src, void* dst, int64_t n, const BroadcastShape& s,
                 cudaStream_t stream) {
  using T = Word<kBytes>;
  StridedCopyKernel<T>
      <<<Blocks(n), kThreads, 0, stream>>>(static_cast<const T*>(src), static_cast<T*>(dst), n, s);
}

template <int kBytes>
void Fill(void* dst, int64_t n, uint64_t pattern, cudaStream_t stream) {
  using T = Word<kBytes>;
  FillKernel<T>
      <<<Blocks(n), kThreads, 0, stream>>>(static_cast<T*>(dst), n, static_cast<T>(pattern));
}

template <int kBytes>
void Gather(const void* data, const void* indices, bool int64, void* out, int64_t outer,
            int64_t axis_dim, int64_t count, int64_t inner, cudaStream_t stream) {
  using T = Word<kBytes>;
  const int64_t n = outer * count * inner;
  if (int64) {
    GatherKernel<T, int64_t><<<Blocks(n), kThreads, 0, stream>>>(
        static_cast<const T*>(data), static_cast<const int64_t*>(indices), static_cast<T*>(out),
        outer, axis_dim, count, inner);
  } else {
    GatherKernel<T, int32_t><<<Blocks(n), kThreads, 0, stream>>>(
        static_cast<const T*>(data), static_cast<const int32_t*>(indices), static_cast<T*>(out),
        outer, axis_dim, count, inner);
  }
}

}  // namespace

int LaunchStridedCopy(const void* src, void* dst, int64_t n, int elem_bytes,
                      const BroadcastShape& shape, void* stream) {
  if (n == 0) return 0;
  auto s = static_cast<cudaStream_t>(stream);
  switch (elem_bytes) {
    case 1:
      StridedCopy<1>(src, dst, n, shape, s);
      break;
    case 2:
      StridedCopy<2>(src, dst, n, shape, s);
      break;
    case 4:
      StridedCopy<4>(src, dst, n, shape, s);
      break;
    case 8:
      StridedCopy<8>(src, dst, n, shape, s);
      break;
    default:
      return static_cast<int>(cudaErrorInvalidValue);
  }
  return static_cast<int>(cudaGetLastError());
}

int LaunchFill(void* dst, int64_t n, int elem_bytes, uint64_t pattern, void* stream) {
  if (n == 0) return 0;
  auto s = static_cast<cudaStream_t>(stream);
  switch (elem_bytes) {
    case 1:
      Fill<1>(dst, n, pattern, s);
      break;
    case 2:
      Fill<2>(dst, n, pattern, s);
      break;
    case 4:
      Fill<4>(dst, n, pattern, s);
      break;
    case 8:
      Fill<8>(dst, n, pattern, s);
      break;
    default:
      return static_cast<int>(cudaErrorInvalidValue);
  }
  return static_cast<int>(cudaGetLastError());
}

int LaunchRange(int type, const void* start, const void* delta, void* y, int64_t n, void* stream) {
  if (n == 0) return 0;
  auto s = static_cast<cudaStream_t>(stream);
  switch (type) {
    case 0:
      RangeKernel<float><<<Blocks(n), kThreads, 0, s>>>(static_cast<const float*>(start),
                                                        static_cast<const float*>(delta),
                                                        static_cast<float*>(y), n);
      break;
    case 1:
      RangeKernel<int64_t><<<Blocks(n), kThreads, 0, s>>>(static_cast<const int64_t*>(start),
                                                          static_cast<const int64_t*>(delta),
                                                          static_cast<int64_t*>(y), n);
      break;
    case 2:
      RangeKernel<int32_t><<<Blocks(n), kThreads, 0, s>>>(static_cast<const int32_t*>(start),
                                                          static_cast<const int32_t*>(delta),
                                                          static_cast<int32_t*>(y), n);
      break;
    default:
      return static_cast<int>(cudaErrorInvalidValue);
  }
  return static_cast<int>(cudaGetLastError());
}

int LaunchGather(const void* data, const void* indices, bool indices_int64, void* out,
                 int64_t outer, int64_t axis_dim, int64_t count, int64_t inner, int elem_bytes,
                 void* stream) {
  if (outer * count * inner == 0) return 0;
  auto s = static_cast<cudaStream_t>(stream);
  switch (elem_bytes) {
    case 1:
      Gather<1>(data, indices, indices_int64, out, outer, axis_dim, count, inner, s);
      break;
    case 2:
      Gather<2>(data, indices, indices_int64, out, outer, axis_dim, count, inner, s);
      break;
    case 4:
      Gather<4>(data, indices, indices_int64, out, outer, axis_dim, count, inner, s);
      break;
    case 8:
      Gather<8>(data, indices, indices_int64, out, outer, axis_dim, count, inner, s);
      break;
    default:
      return static_cast<int>(cudaErrorInvalidValue);
  }
  return static_cast<int>(cudaGetLastError());
}

}  // namespace kiln::cuda
