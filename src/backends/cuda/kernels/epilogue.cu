// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The epilogue: one grid-stride pass, the activation chosen per launch by a template argument
// (no branch per element).
#include <cuda_runtime.h>

#include "backends/cuda/kernels/epilogue_launch.h"
#include "backends/cuda/kernels/grid.cuh"

namespace kiln::cuda {
namespace {

// The reference kernels' formulas (kernels/reference/fused.cc), in float.
template <Activation kAct>
__device__ __forceinline__ float Act(float v, float alpha, float beta) {
  if constexpr (kAct == Activation::kRelu) return v < 0.f ? 0.f : v;
  if constexpr (kAct == Activation::kLeakyRelu) return v < 0.f ? alpha * v : v;
  if constexpr (kAct == Activation::kClip) {  // std::min(std::max(v, lo), hi): NaN stays
    v = v < alpha ? alpha : v;
    return beta < v ? beta : v;
  }
  if constexpr (kAct == Activation::kSigmoid) return 1.f / (1.f + expf(-v));
  if constexpr (kAct == Activation::kTanh) return tanhf(v);
  if constexpr (kAct == Activation::kHardSigmoid) return fmaxf(0.f, fminf(1.f, alpha * v + beta));
  if constexpr (kAct == Activation::kHardSwish) return v * fmaxf(0.f, fminf(1.f, v / 6.f + 0.5f));
  if constexpr (kAct == Activation::kGelu) return 0.5f * v * (1.f + erff(v * 0.70710678118654752f));
  if constexpr (kAct == Activation::kSwish) return v / (1.f + expf(-alpha * v));
  return v;
}

template <Activation kAct>
__global__ void EpilogueKernel(const float* x, float* y, int64_t n, EpilogueParams p) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    float v = x[i];
    if (p.bias != nullptr) v += p.bias[(i / p.bias_inner) % p.bias_channels];
    if (p.z != nullptr) {
      int64_t unused = 0, zi = i;
      if (!p.z_same_shape) BroadcastOffsets(p.z_shape, i, &unused, &zi);
      v += p.z_scale * p.z[zi];
    }
    y[i] = Act<kAct>(v, p.alpha, p.beta) * p.post_scale + p.post_shift;
  }
}

}  // namespace

int LaunchEpilogue(const float* x, float* y, int64_t n, const EpilogueParams& p, void* stream) {
  if (n == 0) return 0;
  auto s = static_cast<cudaStream_t>(stream);
  switch (p.act) {
#define KILN_EPILOGUE_CASE(name)                                                 \
  case Activation::name:                                                         \
    EpilogueKernel<Activation::name><<<Blocks(n), kThreads, 0, s>>>(x, y, n, p); \
    break;
    KILN_EPILOGUE_CASE(kNone)
    KILN_EPILOGUE_CASE(kRelu)
    KILN_EPILOGUE_CASE(kLeakyRelu)
    KILN_EPILOGUE_CASE(kClip)
    KILN_EPILOGUE_CASE(kSigmoid)
    KILN_EPILOGUE_CASE(kTanh)
    KILN_EPILOGUE_CASE(kHardSigmoid)
    KILN_EPILOGUE_CASE(kHardSwish)
    KILN_EPILOGUE_CASE(kGelu)
    KILN_EPILOGUE_CASE(kSwish)
#undef KILN_EPILOGUE_CASE
  }
  return static_cast<int>(cudaGetLastError());
}

}  // namespace kiln::cuda
