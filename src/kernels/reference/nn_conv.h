// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The reference convolution, shared by Conv (nn_conv.cc) and Kiln's FusedConv (fused.cc).
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/kernel.h"

namespace kiln::kernels {

enum class AutoPad { kNotSet, kSameUpper, kSameLower, kValid };

// The sliding-window attributes of a convolution or pool as the node spells them, validated
// (strides, dilations, kernel_shape >= 1, pads >= 0, matching lengths) but not yet sized to an
// input: an empty vector is an absent attribute.
struct WindowAttrs {
  AutoPad auto_pad = AutoPad::kNotSet;
  std::vector<int64_t> kernel_shape, strides, dilations, pads;
  bool ceil_mode = false;
};

// Conv's attributes.
struct ConvAttrs {
  WindowAttrs window;
  int64_t group = 1;
};

// Reads Conv's attributes from `def` (a Conv or FusedConv node). kInvalidParam naming the node
// for attributes that break Conv's rules; kFeatureUnsupported when input 0 is not a float type.
Result<ConvAttrs> PrepareConv(const NodeDef& def);

// Y = Conv(X, W, B) over inputs 0-2 of `ctx`: binds output 0, writes it and returns it.
// kInvalidParam naming the node when the inputs do not fit together. Thread-safe.
Result<TensorView*> RunConv(const NodeDef& def, const ConvAttrs& attrs, KernelContext& ctx);

}  // namespace kiln::kernels
