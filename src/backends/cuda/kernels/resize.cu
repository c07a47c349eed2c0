// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Resize on the GPU: one thread per output element walks its coordinates down the axes, reading
// each axis's taps from the tables the host planned.
#include <cuda_runtime.h>

#include "backends/cuda/kernels/grid.cuh"
#include "backends/cuda/kernels/resize_launch.h"

namespace kiln::cuda {
namespace {

// Output element i's coordinate on each axis.
__device__ void Coords(const ResizeTables& t, int64_t i, int64_t* coord) {
  for (int d = t.rank - 1; d >= 0; --d) {
    coord[d] = i % t.out_dims[d];
    i /= t.out_dims[d];
  }
}

template <typename T>
__global__ void NearestKernel(const T* x, T* y, int64_t n, T fill, ResizeTables t) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int64_t coord[kMaxResizeRank];
    Coords(t, i, coord);
    int64_t offset = 0;
    bool outside = false;
    for (int d = 0; d < t.rank; ++d) {
      const int64_t src = t.index[t.index_offset[d] + coord[d]];
      outside = outside || src < 0;
      offset = offset * t.in_dims[d] + (src < 0 ? 0 : src);
    }
    y[i] = outside ? fill : x[offset];
  }
}

__global__ void BlendKernel(const float* x, float* y, int64_t n, float extrapolation,
                            ResizeTables t) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int64_t coord[kMaxResizeRank];
    Coords(t, i, coord);
    int combos = 1;
    bool outside = false;
    for (int d = 0; d < t.rank; ++d) {
      combos *= t.count[d];
      outside = outside || t.index[t.index_offset[d] + coord[d] * t.count[d]] < 0;
    }
    if (outside) {
      y[i] = extrapolation;
      continue;
    }
    float sum = 0;
    for (int k = 0; k < combos; ++k) {
      int tap_of[kMaxResizeRank];
      int rest = k;
      for (int d = t.rank - 1; d >= 0; --d) {
        tap_of[d] = rest % t.count[d];
        rest /= t.count[d];
      }
      float w = 1;
      int64_t offset = 0;
      for (int d = 0; d < t.rank; ++d) {
        const int64_t at = coord[d] * t.count[d] + tap_of[d];
        w *= t.weight[t.weight_offset[d] + at];
        offset = offset * t.in_dims[d] + t.index[t.index_offset[d] + at];
      }
      sum += w * x[offset];
    }
    y[i] = sum;
  }
}

template <typename T>
void Nearest(const void* x, void* y, int64_t n, uint64_t fill, const ResizeTables& t,
             cudaStream_t s) {
  NearestKernel<T><<<Blocks(n), kThreads, 0, s>>>(static_cast<const T*>(x), static_cast<T*>(y), n,
                                                  static_cast<T>(fill), t);
}

}  // namespace

int LaunchResizeNearest(const void* x, void* y, int64_t n, int elem_bytes, uint64_t fill,
                        const ResizeTables& t, void* stream) {
  if (n == 0) return 0;
  auto s = static_cast<cudaStream_t>(stream);
  switch (elem_bytes) {
    case 1:
      Nearest<uint8_t>(x, y, n, fill, t, s);
      break;
    case 2:
      Nearest<uint16_t>(x, y, n, fill, t, s);
      break;
    case 4:
      Nearest<uint32_t>(x, y, n, fill, t, s);
      break;
    case 8:
      Nearest<uint64_t>(x, y, n, fill, t, s);
      break;
    default:
      return static_cast<int>(cudaErrorInvalidValue);
  }
  return static_cast<int>(cudaGetLastError());
}

int LaunchResizeBlend(const float* x, float* y, int64_t n, float extrapolation,
                      const ResizeTables& t, void* stream) {
  if (n == 0) return 0;
  BlendKernel<<<Blocks(n), kThreads, 0, static_cast<cudaStream_t>(stream)>>>(x, y, n, extrapolation,
                                                                             t);
  return static_cast<int>(cudaGetLastError());
}

}  // namespace kiln::cuda
