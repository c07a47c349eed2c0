// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The reference convolution, shared by Conv (nn_conv.cc) and Kiln's FusedConv (fused.cc).
#pragma once

#include "kernels/attrs.h"
#include "kernels/kernel.h"

namespace kiln::kernels {

// Reads Conv's attributes (attrs.h) from `def` (a Conv or FusedConv node). kInvalidParam naming
// the node for attributes that break Conv's rules; kFeatureUnsupported when input 0 is not a
// float type.
Result<ConvAttrs> PrepareConv(const NodeDef& def);

// Y = Conv(X, W, B) over inputs 0-2 of `ctx`: binds output 0, writes it and returns it.
// kInvalidParam naming the node when the inputs do not fit together. Thread-safe.
Result<TensorView*> RunConv(const NodeDef& def, const ConvAttrs& attrs, KernelContext& ctx);

}  // namespace kiln::kernels
