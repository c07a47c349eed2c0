// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Softmax family and pooling on the GPU: one thread per row or output element, grid-stride.
// Straightforward first kernels (memory-bound at these sizes; the cuDNN versions come with the
// convolutions), numerically as the reference kernels: the softmax subtracts the row's first
// maximum (a NaN counts as one), max pooling skips NaNs unless a window holds nothing else and
// gives the lowest float for an empty window, average pooling divides by the positions inside
// the input (or inside input plus pads with count_include_pad).
#include <cuda_runtime.h>

#include <cfloat>

#include "backends/cuda/kernels/grid.cuh"
#include "backends/cuda/kernels/nn_launch.h"

namespace kiln::cuda {
namespace {

__device__ __forceinline__ bool Better(float v, float best) {
  return v > best || (best != best && v == v);
}

__global__ void SoftmaxKernel(const float* x, float* y, int64_t outer, int64_t n, int64_t inner,
                              bool log) {
  const int64_t rows = outer * inner;
  for (int64_t r = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; r < rows;
       r += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t o = r / inner, i = r % inner;
    const float* p = x + o * n * inner + i;
    float* q = y + o * n * inner + i;
    float max = p[0];
    for (int64_t k = 1; k < n; ++k) {
      const float e = p[k * inner];
      if (e > max || (e != e && max == max)) max = e;
    }
    float sum = 0.f;
    for (int64_t k = 0; k < n; ++k) sum += expf(p[k * inner] - max);
    const float log_sum = logf(sum);
    for (int64_t k = 0; k < n; ++k) {
      const float d = p[k * inner] - max;
      q[k * inner] = log ? d - log_sum : expf(d) / sum;
    }
  }
}

__device__ __forceinline__ int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

__global__ void Pool2dKernel(Pool2d p, const float* x, float* y) {
  const int64_t total = p.planes * p.out_h * p.out_w;
  for (int64_t idx = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; idx < total;
       idx += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t ow = idx % p.out_w, oh = (idx / p.out_w) % p.out_h;
    const int64_t plane = idx / (p.out_w * p.out_h);
    const float* xp = x + plane * p.in_h * p.in_w;
    // The kernel indices [lo, hi) per dim that land inside the input, and the window's size
    // inside input plus pads (the reference's SpanAt).
    const int64_t sh = oh * p.stride_h - p.pad_top, sw = ow * p.stride_w - p.pad_left;
    const int64_t lo_h = sh >= 0 ? 0 : CeilDiv(-sh, p.dilation_h);
    const int64_t lo_w = sw >= 0 ? 0 : CeilDiv(-sw, p.dilation_w);
    const int64_t top_h = p.in_h - 1 - sh, top_w = p.in_w - 1 - sw;
    const int64_t hi_h = top_h < 0 ? 0 : min(p.kernel_h, top_h / p.dilation_h + 1);
    const int64_t hi_w = top_w < 0 ? 0 : min(p.kernel_w, top_w / p.dilation_w + 1);
    if (p.max) {
      bool found = false;
      float best = -FLT_MAX;
      for (int64_t kh = lo_h; kh < hi_h; ++kh) {
        for (int64_t kw = lo_w; kw < hi_w; ++kw) {
          const float v = xp[(sh + kh * p.dilation_h) * p.in_w + sw + kw * p.dilation_w];
          if (!found || Better(v, best)) {
            found = true;
            best = v;
          }
        }
      }
      y[idx] = best;
    } else {
      float sum = 0.f;
      int64_t count = 0;
      for (int64_t kh = lo_h; kh < hi_h; ++kh) {
        for (int64_t kw = lo_w; kw < hi_w; ++kw) {
          sum += xp[(sh + kh * p.dilation_h) * p.in_w + sw + kw * p.dilation_w];
          ++count;
        }
      }
      if (p.count_include_pad) {
        const int64_t ph = p.in_h + p.pad_bottom - 1 - sh, pw = p.in_w + p.pad_right - 1 - sw;
        const int64_t padded_h = ph < 0 ? 0 : min(p.kernel_h, ph / p.dilation_h + 1);
        const int64_t padded_w = pw < 0 ? 0 : min(p.kernel_w, pw / p.dilation_w + 1);
        count = padded_h * padded_w;
      }
      y[idx] = sum / static_cast<float>(count);
    }
  }
}

__global__ void GlobalPoolKernel(const float* x, float* y, int64_t planes, int64_t size, bool max) {
  for (int64_t plane = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; plane < planes;
       plane += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const float* p = x + plane * size;
    if (max) {
      float best = size > 0 ? p[0] : -FLT_MAX;
      for (int64_t i = 1; i < size; ++i) {
        if (Better(p[i], best)) best = p[i];
      }
      y[plane] = best;
    } else {
      float sum = 0.f;
      for (int64_t i = 0; i < size; ++i) sum += p[i];
      y[plane] = sum / static_cast<float>(size);
    }
  }
}

}  // namespace

int LaunchSoftmax(const float* x, float* y, int64_t outer, int64_t n, int64_t inner, bool log,
                  void* stream) {
  if (outer * inner == 0 || n == 0) return 0;
  SoftmaxKernel<<<Blocks(outer * inner), kThreads, 0, static_cast<cudaStream_t>(stream)>>>(
      x, y, outer, n, inner, log);
  return static_cast<int>(cudaGetLastError());
}

int LaunchPool2d(const Pool2d& p, const float* x, float* y, void* stream) {
  const int64_t total = p.planes * p.out_h * p.out_w;
  if (total == 0) return 0;
  Pool2dKernel<<<Blocks(total), kThreads, 0, static_cast<cudaStream_t>(stream)>>>(p, x, y);
  return static_cast<int>(cudaGetLastError());
}

int LaunchGlobalPool(const float* x, float* y, int64_t planes, int64_t size, bool max,
                     void* stream) {
  if (planes == 0) return 0;
  GlobalPoolKernel<<<Blocks(planes), kThreads, 0, static_cast<cudaStream_t>(stream)>>>(x, y, planes,
                                                                                       size, max);
  return static_cast<int>(cudaGetLastError());
}

}  // namespace kiln::cuda
