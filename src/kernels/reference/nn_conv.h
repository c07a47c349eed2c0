// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The reference convolution, shared by Conv (nn_conv.cc) and Kiln's FusedConv (fused.cc).
#pragma once

#include "kernels/attrs.h"
#include "kernels/kernel.h"

namespace kiln::kernels {

// The channels_last layout flags of a FusedConv (kiln_x_nhwc, kiln_y_nhwc, kiln_z_nhwc; see
// src/compiler/passes/README.md): whether X (input 0), Y (output 0) and the residual Z (input
// 3) are stored NHWC. Their dims stay N, C, H, W; only the order of the elements changes.
struct ConvLayout {
  bool x = false, y = false, z = false;
  bool any() const { return x || y || z; }
};

// Reads the layout flags of `def` (all false for a node without them, e.g. a Conv); FusedConv's
// definition has checked them (a set flag's tensor is present and rank 4).
ConvLayout ReadConvLayout(const NodeDef& def);

// Copies the rank-4 tensor `src` of logical dims `nchw` (N, C, H, W; elements of `elem_size`
// bytes: 1, 2, 4 or 8) into `dst` (not overlapping `src`), from NCHW into NHWC order when
// `to_nhwc`, else from NHWC into NCHW order.
void TransposeChannels(const void* src, void* dst, const Dims& nchw, size_t elem_size, bool to_nhwc,
                       KernelContext& ctx);

// Y = Conv(X, W, B) over inputs 0-2 of `ctx` into its bound output 0, which it returns.
// Thread-safe.
Result<TensorView*> RunConv(const NodeDef& def, const ConvAttrs& attrs, KernelContext& ctx);

}  // namespace kiln::kernels
