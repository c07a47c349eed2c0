// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// LSTM: one launch per time step, both directions in it. A warp owns one hidden unit j of one
// (direction, batch row): its lanes stride over the input and hidden columns for the unit's four
// gate rows (X_t · W^T and H_{t-1} · R^T, coalesced along the rows), the sums are reduced with
// shuffles, and the cell update follows in the same warp, so a step is one pass. The states go
// from step to step through ping-pong scratch: step s reads copy (s - 1) % 2 (step 0 the initial
// states) and writes copy s % 2, which no other warp of the step reads. Float32 throughout, with
// the reference kernel's formulas (it computes in double): its clamp for clip (NaN passes), its
// gates, and zero Y past a sequence's length and zero final states for an empty sequence.
#include <cuda_runtime.h>

#include <initializer_list>

#include "backends/cuda/kernels/grid.cuh"
#include "backends/cuda/kernels/rnn_launch.h"

namespace kiln::cuda {
namespace {

// 4 warps a block: a small LSTM (Silero VAD's 128 units) spreads over 32 blocks, not 16.
constexpr int kLstmThreads = 128;
constexpr int kWarps = kLstmThreads / 32;

__device__ __forceinline__ float Sigmoid(float x) { return 1.0f / (1.0f + expf(-x)); }

// std::clamp(x, -clip, clip) as the reference takes it: NaN passes through.
__device__ __forceinline__ float Clip(const LstmArgs& a, float x) {
  if (!a.has_clip) return x;
  return x < -a.clip ? -a.clip : (a.clip < x ? a.clip : x);
}

// The sum over the warp, in every lane.
__device__ __forceinline__ float WarpSum(float v) {
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

// Where state (d, b) starts in initial_h, initial_c, Y_h and Y_c.
__device__ __forceinline__ int64_t StateAt(const LstmArgs& a, int64_t d, int64_t b) {
  return (a.batch_first ? b * a.dirs + d : d * a.batch + b) * a.hidden;
}

// Step `step` of every (direction, batch row). The loop over units is warp-uniform (u is the
// same in every lane of a warp), so every lane reaches the shuffles.
__global__ void LstmStepKernel(LstmArgs a, int64_t step) {
  const int lane = static_cast<int>(threadIdx.x % 32);
  const int64_t H = a.hidden, units = a.dirs * a.batch * H;
  const int64_t warps = static_cast<int64_t>(gridDim.x) * kWarps;
  const int64_t prev = (step + 1) % 2, next = step % 2;  // scratch copies
  for (int64_t u = static_cast<int64_t>(blockIdx.x) * kWarps + threadIdx.x / 32; u < units;
       u += warps) {
    const int64_t j = u % H, b = (u / H) % a.batch, d = u / (H * a.batch);
    int64_t len = a.seq;
    if (a.lens != nullptr) {
      len = a.lens[b];
      len = len < 0 ? 0 : (len > a.seq ? a.seq : len);
    }
    const bool active = step < len;
    // The reverse direction walks [0, len) backwards; an inactive step zeroes Y at t = step,
    // which covers [len, seq) once in either direction.
    const int64_t t = active && (a.reverse || d == 1) ? len - 1 - step : step;
    const int64_t row = (d * a.batch + b) * H;  // (d, b)'s states in a scratch copy
    const float *h_prev, *c_prev;
    if (step == 0) {
      h_prev = a.h0 != nullptr ? a.h0 + StateAt(a, d, b) : nullptr;
      c_prev = a.c0 != nullptr ? a.c0 + StateAt(a, d, b) : nullptr;
    } else {
      h_prev = a.scratch + prev * units + row;
      c_prev = a.scratch + (2 + prev) * units + row;
    }
    const float c_old = c_prev != nullptr ? c_prev[j] : 0.0f;
    float h_new, c_new;
    if (active) {
      // Gate g's row of W (R) for unit j is row g * H + j of direction d's matrix.
      float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
      const float* xt = a.x + (a.batch_first ? b * a.seq + t : t * a.batch + b) * a.input;
      const float* w = a.w + (d * 4 * H + j) * a.input;
      for (int64_t i = lane; i < a.input; i += 32) {
        const float xi = xt[i];
#pragma unroll
        for (int g = 0; g < 4; ++g) acc[g] = fmaf(w[g * H * a.input + i], xi, acc[g]);
      }
      if (h_prev != nullptr) {  // a zero initial state adds nothing
        const float* r = a.r + (d * 4 * H + j) * H;
        for (int64_t k = lane; k < H; k += 32) {
          const float hk = h_prev[k];
#pragma unroll
          for (int g = 0; g < 4; ++g) acc[g] = fmaf(r[g * H * H + k], hk, acc[g]);
        }
      }
#pragma unroll
      for (int g = 0; g < 4; ++g) acc[g] = WarpSum(acc[g]);
      if (a.bias != nullptr) {
        const float* wb = a.bias + d * 8 * H + j;  // W's biases, then R's at 4 * H
#pragma unroll
        for (int g = 0; g < 4; ++g) acc[g] += wb[g * H] + wb[(4 + g) * H];
      }
      // Gates i, o, f, c at acc[0..3]; peepholes i, o, f (zero without P, as the reference).
      const float* p = a.p != nullptr ? a.p + d * 3 * H + j : nullptr;
      const float pi = p != nullptr ? p[0] : 0.0f, po = p != nullptr ? p[H] : 0.0f,
                  pf = p != nullptr ? p[2 * H] : 0.0f;
      const float ig = Sigmoid(Clip(a, acc[0] + pi * c_old));
      const float fg = a.input_forget ? 1.0f - ig : Sigmoid(Clip(a, acc[2] + pf * c_old));
      const float cg = tanhf(Clip(a, acc[3]));
      c_new = fg * c_old + ig * cg;
      const float og = Sigmoid(Clip(a, acc[1] + po * c_new));
      h_new = og * tanhf(c_new);
    } else {  // past the sequence's length: the state carries
      h_new = h_prev != nullptr ? h_prev[j] : 0.0f;
      c_new = c_old;
    }
    if (lane == 0) {
      if (step + 1 < a.seq) {
        a.scratch[next * units + row + j] = h_new;
        a.scratch[(2 + next) * units + row + j] = c_new;
      }
      if (a.y != nullptr) {
        const int64_t at =
            a.batch_first ? (b * a.seq + t) * a.dirs + d : (t * a.dirs + d) * a.batch + b;
        a.y[at * H + j] = active ? h_new : 0.0f;
      }
      if (step == a.seq - 1) {
        // An empty sequence has zero final states (as the reference and onnxruntime have it).
        const int64_t at = StateAt(a, d, b) + j;
        if (a.y_h != nullptr) a.y_h[at] = len > 0 ? h_new : 0.0f;
        if (a.y_c != nullptr) a.y_c[at] = len > 0 ? c_new : 0.0f;
      }
    }
  }
}

}  // namespace

int LaunchLstm(const LstmArgs& a, void* stream) {
  const cudaStream_t s = static_cast<cudaStream_t>(stream);
  const int64_t units = a.dirs * a.batch * a.hidden;
  if (units == 0) return 0;
  if (a.seq == 0) {  // no step: the final states are zeros
    for (float* state : {a.y_h, a.y_c}) {
      if (state == nullptr) continue;
      const cudaError_t e =
          cudaMemsetAsync(state, 0, static_cast<size_t>(units) * sizeof(float), s);
      if (e != cudaSuccess) return static_cast<int>(e);
    }
    return 0;
  }
  if (a.seq > 1 && a.scratch == nullptr) return static_cast<int>(cudaErrorInvalidValue);
  const int64_t blocks = (units + kWarps - 1) / kWarps;
  const unsigned grid = static_cast<unsigned>(blocks < kMaxBlocks ? blocks : kMaxBlocks);
  for (int64_t step = 0; step < a.seq; ++step) {
    LstmStepKernel<<<grid, kLstmThreads, 0, s>>>(a, step);
    const cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) return static_cast<int>(e);
  }
  return 0;
}

}  // namespace kiln::cuda
