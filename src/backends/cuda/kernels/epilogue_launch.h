// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The CUDA epilogue (epilogue.cu), callable from plain C++: what a fused op does after its
// convolution or matmul, and what the ONNX activations with parameters do on their own:
//   y[i] = act(x[i] + bias[channel(i)] + z_scale * z[broadcast(i)]) * post_scale + post_shift
// each term optional, float32, in place when x == y. The activations are the fused ops' own
// (kernels/activation_kind.h), with kernels/attrs.h's parameters.
#pragma once

#include <cstdint>

#include "backends/cuda/kernels/elementwise_launch.h"
#include "kernels/activation_kind.h"

namespace kiln::cuda {

using Activation = kernels::ActivationKind;

struct EpilogueParams {
  Activation act = Activation::kNone;
  float alpha = 0, beta = 0;  // LeakyRelu alpha, Clip min and max, HardSigmoid, Swish alpha
  float post_scale = 1, post_shift = 0;
  // Per channel: element i's channel is (i / bias_inner) % bias_channels.
  const float* bias = nullptr;
  int64_t bias_inner = 1, bias_channels = 1;
  // Added after the bias, times z_scale, at offset BroadcastOffsets(z_shape, i) (b side);
  // z_same_shape: z holds the output's elements in order.
  const float* z = nullptr;
  float z_scale = 1;
  bool z_same_shape = true;
  BroadcastShape z_shape;
};

// y[0, n) from x[0, n) on `stream`; returns the launch's cudaError_t as an int.
int LaunchEpilogue(const float* x, float* y, int64_t n, const EpilogueParams& p, void* stream);

}  // namespace kiln::cuda
