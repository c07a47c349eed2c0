// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Registration of the CPU backend's own (non-oneDNN) kernel families: vectorised loops that
// split their work with KernelContext::ParallelFor. Each family lives in the .cc of its name;
// RegisterCpuKernels (register.cc) calls every function here.
#pragma once

#include "kernels/registry.h"

namespace kiln::cpu {

// elementwise.cc: broadcasting binary ops, comparisons, Where, unary math and activations.
void RegisterCpuElementwiseKernels(kernels::KernelRegistry& registry);
// reduce.cc: Reduce* and ArgMax/ArgMin.
void RegisterCpuReduceKernels(kernels::KernelRegistry& registry);
// tensor.cc: Transpose, Concat, Split, Slice, Gather and the other data movement.
void RegisterCpuTensorKernels(kernels::KernelRegistry& registry);
// resize_pad.cc: Resize and Pad.
void RegisterCpuResizePadKernels(kernels::KernelRegistry& registry);
// quantize.cc: per-tensor QuantizeLinear and DequantizeLinear, DynamicQuantizeLinear.
void RegisterCpuQuantizeKernels(kernels::KernelRegistry& registry);
// cast.cc: Cast from the integer types to float32.
void RegisterCpuCastKernels(kernels::KernelRegistry& registry);
// attention.cc: Attention and PackedQkvAttention (scaled dot-product attention per head, on
// oneDNN's sgemm; in a bf16 model its bf16 matmuls, attention_bf16.cc).
void RegisterCpuAttentionKernels(kernels::KernelRegistry& registry);

}  // namespace kiln::cpu
