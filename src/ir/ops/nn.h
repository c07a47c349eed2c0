// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// What the nn family's shape functions (ir/ops/nn.cc) share with its kernels, so that a rule is
// written once: the sliding window of convolutions and pools — its attributes, and the output
// size and pads they give over an input — and the parse of an Einsum equation. The shape
// functions validate the node with these; a kernel, whose node has passed them, reads its window
// or equation with the same code and never re-checks it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "ir/attribute.h"

namespace kiln::ir {

// ---------------------------------------------------------------------------------------------
// Sliding windows: Conv, ConvTranspose, MaxPool, AveragePool, LpPool and Kiln's FusedConv.

// The most spatial dims a window may have (the shape functions refuse more).
inline constexpr size_t kMaxSpatialDims = 8;

enum class AutoPad { kNotSet, kSameUpper, kSameLower, kValid };

// auto_pad's value; nullopt for a string ONNX does not define ("" reads as NOTSET).
std::optional<AutoPad> ParseAutoPad(std::string_view s);

// The window attributes as the node gives them (defaults filled in by its definition). An
// empty list is an absent attribute: strides and dilations of 1, pads of 0, kernel_shape from W.
struct WindowAttrs {
  AutoPad auto_pad = AutoPad::kNotSet;
  std::vector<int64_t> kernel_shape, strides, dilations;
  std::vector<int64_t> pads;  // all begins, then all ends; cleared under auto_pad
  bool ceil_mode = false;
  // ConvTranspose: output_shape as given (the spatial sizes, or all dims as some exporters
  // write them).
  std::vector<int64_t> output_padding, output_shape;
  bool transposed = false;  // ConvTranspose

  bool same() const { return auto_pad == AutoPad::kSameUpper || auto_pad == AutoPad::kSameLower; }
  int64_t stride(size_t i) const { return strides.empty() ? 1 : strides[i]; }
  int64_t dilation(size_t i) const { return dilations.empty() ? 1 : dilations[i]; }
  // The explicit pads of spatial dim i of `rank`.
  int64_t pad_begin(size_t i) const { return pads.empty() ? 0 : pads[i]; }
  int64_t pad_end(size_t i, size_t rank) const { return pads.empty() ? 0 : pads[i + rank]; }
  int64_t out_padding(size_t i) const { return output_padding.empty() ? 0 : output_padding[i]; }
  // output_shape's size of spatial dim i of `rank` (it may list the spatial sizes or all dims);
  // -1 when output_shape is absent.
  int64_t output_size(size_t i, size_t rank) const {
    if (output_shape.empty()) return -1;
    return output_shape[output_shape.size() == rank + 2 ? i + 2 : i];
  }
};

// The window attributes of a node of `op_type` at `opset` from `attrs`: the pools take
// dilations and ceil_mode only from the opsets that define them (MaxPool 10, AveragePool 19 and
// 10, LpPool 18); Conv, ConvTranspose and FusedConv always take dilations. Reads, never checks:
// the op's shape function has checked them.
WindowAttrs ReadWindowAttrs(const AttrMap& attrs, std::string_view op_type, int opset);

// A window sized to one input: one entry per spatial dim in each field. For a convolution or
// pool, output position o reads input positions o * stride + k * dilation - pad_begin; for a
// transposed convolution, input position i writes output positions i * stride + k * dilation -
// pad_begin. Pads may be negative only for a transposed convolution (an output_shape larger
// than the full result leaves positions that get the bias only).
struct Window {
  size_t rank = 0;
  std::vector<int64_t> in, out, kernel, stride, dilation, pad_begin, pad_end;
};

// Spatial dim i of a window over an input of size `in` (>= 0) with kernel size `kernel` (>= 1):
// the output size and the pads (auto_pad's, or the total padding output_shape implies for a
// transposed convolution). ceil_mode applies to explicit pads only, as in ONNX. kInvalidParam,
// its message not naming the node (the caller does), when the window does not fit the input.
struct WindowDim {
  int64_t out = 0, pad_begin = 0, pad_end = 0;
};
Result<WindowDim> ResolveWindowDim(const WindowAttrs& a, size_t i, size_t rank, int64_t in,
                                   int64_t kernel);

// The whole window over spatial dims `in` with kernel dims `kernel` (ResolveWindowDim per dim).
Result<Window> ResolveWindow(const WindowAttrs& a, const std::vector<int64_t>& in,
                             const std::vector<int64_t>& kernel);

// ---------------------------------------------------------------------------------------------
// Einsum.

// One term of an equation: its labels (letters) and where "..." sits among them (-1: absent).
struct EinsumTerm {
  std::string labels;
  int ellipsis = -1;
};

// An equation with its output term made explicit: with no "->", "..." (when any input has it)
// and then the labels used exactly once, in ASCII order.
struct EinsumEquation {
  std::vector<EinsumTerm> inputs;
  EinsumTerm output;
};

// Parses `equation` (spaces ignored). kInvalidParam, its message not naming the node, for a
// character that is neither a letter nor "...", or an output label that repeats or appears in
// no input.
Result<EinsumEquation> ParseEinsum(std::string equation);

}  // namespace kiln::ir
