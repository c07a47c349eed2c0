// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Normalisations: BatchNormalization and LRN one thread per output element; LayerNormalization
// one block per row, its mean and variance reduced in the block (two passes over the row, in
// float with the sums of squares taken about the mean, as the reference does in double).
#include <cuda_runtime.h>

#include "backends/cuda/kernels/grid.cuh"
#include "backends/cuda/kernels/norm_launch.h"

namespace kiln::cuda {
namespace {

__global__ void BatchNormKernel(const float* x, const float* scale, const float* bias,
                                const float* mean, const float* var, float* y, int64_t total,
                                int64_t channels, int64_t inner, float epsilon) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t c = (i / inner) % channels;
    y[i] = (x[i] - mean[c]) * (scale[c] / sqrtf(var[c] + epsilon)) + bias[c];
  }
}

// The sum of `v` over the block (every thread gets it).
__device__ float BlockSum(float v) {
  __shared__ float partial[kThreads / 32];
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  __syncthreads();  // partial may still be read by a previous call
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  float sum = 0;
  for (int w = 0; w < kThreads / 32; ++w) sum += partial[w];
  return sum;
}

__global__ void LayerNormKernel(const float* x, const float* scale, const float* bias, float* y,
                                int64_t cols, float epsilon) {
  const float* row = x + blockIdx.x * cols;
  float* out = y + blockIdx.x * cols;
  float sum = 0;
  for (int64_t i = threadIdx.x; i < cols; i += blockDim.x) sum += row[i];
  const float mean = BlockSum(sum) / static_cast<float>(cols);
  float squares = 0;
  for (int64_t i = threadIdx.x; i < cols; i += blockDim.x) {
    const float d = row[i] - mean;
    squares += d * d;
  }
  const float inv = rsqrtf(BlockSum(squares) / static_cast<float>(cols) + epsilon);
  for (int64_t i = threadIdx.x; i < cols; i += blockDim.x) {
    const float v = (row[i] - mean) * inv * scale[i];
    out[i] = bias != nullptr ? v + bias[i] : v;
  }
}

__global__ void LrnKernel(const float* x, float* y, int64_t total, int64_t channels, int64_t inner,
                          int64_t size, float alpha, float beta, float bias) {
  const int64_t before = (size - 1) / 2, after = size - 1 - before;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t r = i % inner, c = (i / inner) % channels, b = i / (inner * channels);
    const int64_t lo = c - before > 0 ? c - before : 0;
    const int64_t hi = c + after < channels - 1 ? c + after : channels - 1;
    float sum = 0;
    for (int64_t k = lo; k <= hi; ++k) {
      const float e = x[(b * channels + k) * inner + r];
      sum += e * e;
    }
    y[i] = x[i] / powf(bias + alpha / static_cast<float>(size) * sum, beta);
  }
}

}  // namespace

int LaunchBatchNorm(const float* x, const float* scale, const float* bias, const float* mean,
                    const float* var, float* y, int64_t n, int64_t channels, int64_t inner,
                    float epsilon, void* stream) {
  const int64_t total = n * channels * inner;
  if (total == 0) return 0;
  BatchNormKernel<<<Blocks(total), kThreads, 0, static_cast<cudaStream_t>(stream)>>>(
      x, scale, bias, mean, var, y, total, channels, inner, epsilon);
  return static_cast<int>(cudaGetLastError());
}

int LaunchLayerNorm(const float* x, const float* scale, const float* bias, float* y, int64_t rows,
                    int64_t cols, float epsilon, void* stream) {
  if (rows == 0 || cols == 0) return 0;
  if (rows > 0x7fffffff) return static_cast<int>(cudaErrorInvalidConfiguration);
  LayerNormKernel<<<static_cast<unsigned>(rows), kThreads, 0, static_cast<cudaStream_t>(stream)>>>(
      x, scale, bias, y, cols, epsilon);
  return static_cast<int>(cudaGetLastError());
}

int LaunchLrn(const float* x, float* y, int64_t n, int64_t channels, int64_t inner, int64_t size,
              float alpha, float beta, float bias, void* stream) {
  const int64_t total = n * channels * inner;
  if (total == 0) return 0;
  LrnKernel<<<Blocks(total), kThreads, 0, static_cast<cudaStream_t>(stream)>>>(
      x, y, total, channels, inner, size, alpha, beta, bias);
  return static_cast<int>(cudaGetLastError());
}

}  // namespace kiln::cuda
