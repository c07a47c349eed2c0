// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Attribute parsing shared by the reference kernels and the backends' optimised kernels, so that
// both read a node alike: the sliding-window attributes of convolutions and pools (the window
// they give over one input is ir/ops/nn.h's), pool options, the fused ops' `activation`,
// GroupNormalization's groups, and the parameters of Slice, Split and Pad resolved against their
// input (attributes in old opsets, inputs in new ones). The op definitions have checked the
// attributes before a kernel reads them; errors name the node: kInvalidParam for inputs that
// break the op's rules, kFeatureUnsupported for values no kernel takes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "ir/ops/nn.h"
#include "kernels/kernel.h"

namespace kiln::kernels {

// ---------------------------------------------------------------------------------------------
// Sliding windows: Conv, ConvTranspose and the pools. The window's attributes and the output
// size and pads they give are the op definitions' (ir/ops/nn.h), shared with the shape
// functions, so a kernel sizes nothing itself.

using ir::AutoPad;
using ir::kMaxSpatialDims;
using ir::Window;
using ir::WindowAttrs;

// Conv's (and FusedConv's) attributes; ConvTranspose's too (the window has its output_padding
// and output_shape).
struct ConvAttrs {
  WindowAttrs window;
  int64_t group = 1;
};
ConvAttrs ReadConvAttrs(const NodeDef& def);

// MaxPool, AveragePool and LpPool.
enum class PoolKind { kMax, kAverage, kLp };

struct PoolAttrs {
  PoolKind kind = PoolKind::kMax;
  WindowAttrs window;                 // kernel_shape is never empty
  bool count_include_pad = false;     // AveragePool
  bool column_major_indices = false;  // MaxPool storage_order = 1
  int64_t p = 2;                      // LpPool
};
// The pool's attributes at the node's opset (dilations and ceil_mode where the op has them).
PoolAttrs ReadPoolAttrs(const NodeDef& def, PoolKind kind);

// ---------------------------------------------------------------------------------------------
// The `activation` attribute of Kiln's fused ops (src/ir/ops/fused.cc).

enum class ActivationKind {
  kNone,
  kRelu,
  kLeakyRelu,
  kClip,
  kSigmoid,
  kTanh,
  kHardSigmoid,
  kHardSwish,
  kGelu,
  kSwish
};

// The activation with its activation_alpha / activation_beta (LeakyRelu alpha, Clip min and
// max, HardSigmoid alpha and beta, Swish alpha), absent ones as the ONNX ops default them; unused
// parameters are 0.
struct ActivationAttrs {
  ActivationKind kind = ActivationKind::kNone;
  float alpha = 0, beta = 0;
};
// kFeatureUnsupported for an activation name it does not know (the fused ops' definitions
// refuse those first).
Result<ActivationAttrs> ReadActivation(const NodeDef& def);

// ---------------------------------------------------------------------------------------------
// Slice.

// What a Slice node takes from an input of `x_dims`: its output dims and, per input axis, the
// first index read and the step (1 on axes it does not slice). starts/ends/axes/steps are
// attributes before opset 10 and inputs 1-4 from it on, clamped as ONNX specifies; kInvalidParam
// for lengths that differ, a bad or repeated axis or a zero step.
struct SliceWindow {
  Dims dims, first, step;
};
Result<SliceWindow> ResolveSlice(const NodeDef& def, KernelContext& ctx, const Dims& x_dims);

// Split: the sizes a Split node cuts an axis of size `dim` into (the `split` attribute before
// opset 13, input 1 from it on, else equal parts — the last one smaller with opset 18's
// num_outputs); kInvalidParam when they do not fit.
Result<std::vector<int64_t>> SplitSizes(const NodeDef& def, KernelContext& ctx, int64_t dim);

// Tile: the output dims of tiling `x_dims` by the `repeats` input; kInvalidParam when the count
// differs from the rank, a repeat is negative or a dim overflows.
Result<Dims> TileDims(const NodeDef& def, const TensorView& repeats, const Dims& x_dims);

// Pad: what a Pad node does to an input `x` (pads and the constant value as attributes before
// opset 11 and inputs from it on, `axes` from opset 18, every mode): the output dims and, per
// axis, the input position each output position reads (-1: `fill`, the constant value's
// bytes). kInvalidParam for pads that do not fit, or that leave reflect/edge/wrap nothing.
struct PadWindow {
  Dims dims;
  std::vector<std::vector<int64_t>> map;
  std::vector<uint8_t> fill;
};
Result<PadWindow> ResolvePad(const NodeDef& def, KernelContext& ctx, const TensorView& x);

// ---------------------------------------------------------------------------------------------
// Normalisations.

// GroupNormalization: num_groups, epsilon, and whether scale and bias hold one value per channel
// (opset 21 on) rather than one per group (opsets 18-20).
struct GroupNormAttrs {
  int64_t groups = 1;
  float epsilon = 1e-5f;
  bool per_channel = false;
};
GroupNormAttrs ReadGroupNormAttrs(const NodeDef& def);

}  // namespace kiln::kernels
