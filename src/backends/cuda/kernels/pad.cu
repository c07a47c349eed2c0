// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Pad: a grid-stride loop over output elements, each mapped back to the input element it reads
// (PadOffset: per axis a few integer steps, the mode's rule) or given the constant value. The
// element size is a template argument (copied as an integer of that size, so any type moves
// bit for bit).
#include <cuda_runtime.h>

#include <type_traits>

#include "backends/cuda/kernels/grid.cuh"
#include "backends/cuda/kernels/pad_launch.h"
#include "backends/cuda/kernels/word.cuh"

namespace kiln::cuda {
namespace {

template <typename T>
__global__ void PadKernel(const T* x, T* y, int64_t n, T fill, PadShape s) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t from = PadOffset(s, i);
    y[i] = from >= 0 ? x[from] : fill;
  }
}

template <int kBytes>
void Pad(const void* x, void* y, int64_t n, uint64_t fill, const PadShape& shape,
         cudaStream_t stream) {
  using T = Word<kBytes>;
  PadKernel<T><<<Blocks(n), kThreads, 0, stream>>>(static_cast<const T*>(x), static_cast<T*>(y), n,
                                                   static_cast<T>(fill), shape);
}

}  // namespace

int LaunchPad(const void* x, void* y, int64_t n, int elem_bytes, uint64_t fill,
              const PadShape& shape, void* stream) {
  if (n == 0) return 0;
  auto s = static_cast<cudaStream_t>(stream);
  switch (elem_bytes) {
    case 1:
      Pad<1>(x, y, n, fill, shape, s);
      break;
    case 2:
      Pad<2>(x, y, n, fill, shape, s);
      break;
    case 4:
      Pad<4>(x, y, n, fill, shape, s);
      break;
    case 8:
      Pad<8>(x, y, n, fill, shape, s);
      break;
    default:
      return static_cast<int>(cudaErrorInvalidValue);
  }
  return static_cast<int>(cudaGetLastError());
}

}  // namespace kiln::cuda
