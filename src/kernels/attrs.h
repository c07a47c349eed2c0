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

#include "base/aipp.h"
#include "ir/ops/nn.h"
#include "kernels/activation_kind.h"
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
// The `activation` attribute of Kiln's fused ops (src/ir/ops/fused.cc): ActivationKind
// (kernels/activation_kind.h, which device code includes too).

// The activation with its activation_alpha / activation_beta (LeakyRelu alpha, Clip min and
// max, HardSigmoid alpha and beta, Swish alpha), absent ones as the ONNX ops default them; unused
// parameters are 0. FusedConv's post_scale / post_shift follow the activation: its result times
// post_scale plus post_shift (1 and 0 when absent).
struct ActivationAttrs {
  ActivationKind kind = ActivationKind::kNone;
  float alpha = 0, beta = 0;
  float post_scale = 1, post_shift = 0;
  bool has_post() const { return post_scale != 1.0f || post_shift != 0.0f; }
};
// kFeatureUnsupported for an activation name it does not know (the fused ops' definitions
// refuse those first).
Result<ActivationAttrs> ReadActivation(const NodeDef& def);

// com.kiln ArithmeticChain (ir/ops/fused.cc): step i combines the running value with input i + 1
// (op(v, x), or op(x, v) when swapped).
struct ChainStep {
  enum Op : uint8_t { kAdd, kSub, kMul, kDiv } op;
  bool swapped;
};
// The node's `ops` and `swapped`; kFeatureUnsupported for a step it does not know (the op's
// definition refuses those first).
Result<std::vector<ChainStep>> ReadChainSteps(const NodeDef& def);

// com.kiln Aipp (ir/ops/image.cc): the static AIPP parameters, absent ones as the op defines them
// (no crop: the whole image; no padding; no colour-space conversion; the normalisation
// (v - 0 - 0) * 1).
struct AippAttrs {
  // aclAippInputFormat (CANN's om numbers), the formats base/aipp.h lists.
  enum Format : uint8_t {
    kYuv420Sp = 1,
    kXrgb8888 = 2,
    kRgb888 = 3,
    kYuv400 = 4,
    kArgb8888 = 7,
    kYuyv = 8,
    kYuv422Sp = 9,
    kAyuv444 = 10,
  } format = kRgb888;
  const aipp::Format* info = nullptr;  // channels and rows of the format
  aipp::Window win;  // source size, crop window (the whole image without crop), padding
  float padding_value = 0;
  bool csc = false;
  int32_t matrix[3][3] = {};
  int32_t input_bias[3] = {}, output_bias[3] = {};
  bool rbuv_swap = false, ax_swap = false;
  float mean[4] = {}, min[4] = {}, var_reci[4] = {1, 1, 1, 1};
};
// kFeatureUnsupported for an input_format it does not know (the op's definition refuses those
// first).
Result<AippAttrs> ReadAippAttrs(const NodeDef& def);
// com.kiln DynamicAipp: the parameters of each of the N images of Y ([N, C, H, W]) from the
// `size` bytes of a dynamic AIPP block, after aipp::CheckDynamicBlock (base/aipp.h) against Y and
// the `image_bytes` of the image input; its errors name the node.
Result<std::vector<AippAttrs>> ReadDynamicAipp(const NodeDef& def, const uint8_t* block,
                                               size_t size, const Dims& y_dims,
                                               int64_t image_bytes);

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

// GroupNormalization: num_groups, epsilon, and whether scale and bias hold one value per channel
// (opset 21 on) rather than one per group (opsets 18-20).
struct GroupNormAttrs {
  int64_t groups = 1;
  float epsilon = 1e-5f;
  bool per_channel = false;
};
GroupNormAttrs ReadGroupNormAttrs(const NodeDef& def);

// A Constant node's value as the bytes of its output: from whichever one value attribute it has
// (value, value_float, value_int, value_floats, value_ints; the definition checked there is one
// of a form Kiln takes).
std::vector<uint8_t> ConstantBytes(const NodeDef& def);

}  // namespace kiln::kernels
