// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Attribute parsing shared by the reference kernels and the backends' optimised kernels, so that
// both read a node alike: the sliding-window attributes of convolutions and pools and the window
// they give over one input (ConvTranspose's included), pool options, the fused ops' `activation`,
// GroupNormalization's groups, and the parameters of Slice, Split and Pad resolved against their
// input (attributes in old opsets, inputs in new ones). Errors name the node: kInvalidParam for
// attributes that break the op's rules, kFeatureUnsupported for values no kernel takes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/kernel.h"

namespace kiln::kernels {

// ---------------------------------------------------------------------------------------------
// Plain attribute readers.

// Integer list attribute `name` (empty when absent); kInvalidParam when a value is below `min`.
Result<std::vector<int64_t>> IntsAttr(const NodeDef& def, const char* name, int64_t min);
// 0/1 attribute `name` (0 when absent); kInvalidParam for any other value.
Result<bool> FlagAttr(const NodeDef& def, const char* name);

// ---------------------------------------------------------------------------------------------
// Sliding windows: Conv, ConvTranspose and the pools.

enum class AutoPad { kNotSet, kSameUpper, kSameLower, kValid };

// The sliding-window attributes of a convolution or pool as the node spells them, validated
// (strides, dilations, kernel_shape >= 1, pads >= 0, matching lengths) but not yet sized to an
// input: an empty vector is an absent attribute. Pads are cleared when auto_pad is set.
struct WindowAttrs {
  AutoPad auto_pad = AutoPad::kNotSet;
  std::vector<int64_t> kernel_shape, strides, dilations, pads;
  bool ceil_mode = false;
};

// Which optional window attributes the op has at the node's opset (older opsets ignore them).
struct WindowFeatures {
  bool dilations = true;
  bool ceil_mode = false;
};

Result<WindowAttrs> ReadWindowAttrs(const NodeDef& def, WindowFeatures has);

// Conv's (and FusedConv's) attributes.
struct ConvAttrs {
  WindowAttrs window;
  int64_t group = 1;
};
Result<ConvAttrs> ReadConvAttrs(const NodeDef& def);

// ConvTranspose's attributes.
struct ConvTransposeAttrs {
  WindowAttrs window;
  int64_t group = 1;
  std::vector<int64_t> output_padding, output_shape;  // empty when absent
};
Result<ConvTransposeAttrs> ReadConvTransposeAttrs(const NodeDef& def);

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
Result<PoolAttrs> ReadPoolAttrs(const NodeDef& def, PoolKind kind);

// The most spatial dims a window may have.
inline constexpr size_t kMaxSpatialDims = 8;

// A window sized to one input: every field has one entry per spatial dim. For a convolution or
// pool, output position o reads input positions o * stride + k * dilation - pad_begin; for a
// transposed convolution, input position i writes output positions i * stride + k * dilation -
// pad_begin. Pads may be negative only for a transposed convolution (an output_shape larger
// than the full result).
struct Window {
  size_t rank = 0;
  Dims in, out, kernel, stride, dilation, pad_begin, pad_end;
};

// The window of a convolution or pool over spatial dims `in` with kernel `kernel`: output dims
// and the pads auto_pad implies (ceil_mode applies to explicit pads only, as in ONNX).
// kInvalidParam naming the node when the attributes do not fit `in` or the window exceeds it.
Result<Window> ResolveWindow(const NodeDef& def, const WindowAttrs& a, const Dims& in,
                             const Dims& kernel);

// The window of a transposed convolution: `in` are X's spatial dims, `out` Y's, as the ONNX
// spec computes them from output_shape, auto_pad, pads and output_padding (the total padding of
// output_shape or SAME split with floor division, SAME_UPPER putting the smaller half first).
Result<Window> ResolveTransposedWindow(const NodeDef& def, const ConvTransposeAttrs& a,
                                       const Dims& in, const Dims& kernel);

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
// max, HardSigmoid alpha and beta, Swish alpha), defaults as in the ONNX ops; unused parameters are
// 0.
struct ActivationAttrs {
  ActivationKind kind = ActivationKind::kNone;
  float alpha = 0, beta = 0;
};
// kFeatureUnsupported for an activation name it does not know.
Result<ActivationAttrs> ReadActivation(const NodeDef& def);

// ---------------------------------------------------------------------------------------------
// Slice, Split, Pad: what the node does to its input, read from attributes in old opsets and
// from inputs in new ones. The node's definition (ir/ops/tensor.cc) checked them and gave the
// output dims the executor bound; these only turn the values into positions in the input, and
// fail (kInvalidParam, naming the node) only where a value would address outside it.

// What a Slice node reads from an input of `x_dims`: per input axis, the first index read and
// the step (0 and 1 on axes it does not slice). starts/axes/steps are attributes before opset 10
// and inputs 1, 3 and 4 from it on, clamped as ONNX specifies; the count per axis is the bound
// output's dim.
struct SliceWindow {
  Dims first, step;
};
Result<SliceWindow> ResolveSlice(const NodeDef& def, KernelContext& ctx, const Dims& x_dims);

// Split: the sizes a Split node cuts an axis of size `dim` into (the `split` attribute before
// opset 13, input 1 from it on, else equal parts — the last one smaller with opset 18's
// num_outputs), for outputs the graph leaves out (the others' sizes are their bound dims).
std::vector<int64_t> SplitSizes(const NodeDef& def, KernelContext& ctx, int64_t dim);

// Pad: what a Pad node does to an input `x` padded to `out_dims` (pads and the constant value
// as attributes before opset 11 and inputs from it on, `axes` from opset 18, every mode): per
// axis, the input position each output position reads (-1: `fill`, the constant value's
// bytes).
struct PadWindow {
  std::vector<std::vector<int64_t>> map;
  std::vector<uint8_t> fill;
};
Result<PadWindow> ResolvePad(const NodeDef& def, KernelContext& ctx, const TensorView& x,
                             const Dims& out_dims);

// ---------------------------------------------------------------------------------------------
// Normalisations.

// GroupNormalization: num_groups (>= 1, else kInvalidParam), epsilon, and whether scale and
// bias hold one value per channel (opset 21 on) rather than one per group (opsets 18-20).
struct GroupNormAttrs {
  int64_t groups = 1;
  float epsilon = 1e-5f;
  bool per_channel = false;
};
Result<GroupNormAttrs> ReadGroupNormAttrs(const NodeDef& def);

}  // namespace kiln::kernels
