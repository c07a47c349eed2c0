// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Resize (every opset) and Upsample as the kernels compute them: the node's mode, the scales and
// rois its attributes and inputs give, and for each axis the input taps and weights of every
// output position — ONNX's coordinate transforms, nearest rounding, linear / cubic weights,
// antialiasing and exclude_outside, defined once here for the reference kernel and the devices'
// kernels (which then only gather and blend).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kernels/kernel.h"

namespace kiln::kernels {

// Resize's attributes. The defaults are opset-10 Resize's and Upsample's: asymmetric
// coordinates, and "simple" nearest (round down; up when downscaling).
struct ResizeMode {
  std::string mode = "nearest";  // nearest, linear, cubic
  std::string transform = "asymmetric";
  std::string nearest = "simple";
  double cubic_a = -0.75;
  bool exclude_outside = false;
  bool antialias = false;
  double extrapolation = 0;
};

// The resize of one axis: for each output position the input taps and their weights.
struct AxisTaps {
  int64_t count = 0;               // taps per output position
  std::vector<int64_t> index;      // [out * count + t], clamped into the input
  std::vector<double> weight;      // [out * count + t]
  std::vector<bool> extrapolated;  // tf_crop_and_resize positions outside the input
};

// Output position y of an axis of `in` elements resized to `out` reads taps index[y * count +
// t] (clamped into the input) with weights weight[y * count + t]; for nearest, count is 2 and one
// of the two weights is 1.
AxisTaps PlanResizeAxis(const ResizeMode& m, int64_t in, int64_t out, double scale,
                        double roi_start, double roi_end);

// What to resize: output dims (the bound output's), per-axis scales and rois.
struct ResizePlan {
  Dims out;
  std::vector<double> scale, roi_start, roi_end;
};

struct ResolvedResize {
  ResizeMode mode;
  ResizePlan plan;
  // Whether axis d stays as it is (scale 1, the same size, no crop): a blend need not visit it.
  bool Identity(const Dims& in, size_t d) const;
};

// The mode and plan of a Resize (any opset) or Upsample node resizing `x` to `out_dims` (the
// bound output's), reading roi, scales and sizes (Upsample's scales) through `ctx`;
// kInvalidParam naming the node for values that break the op's rules, or (when the output has
// elements) scales the formulas cannot take.
Result<ResolvedResize> ResolveResize(const NodeDef& def, KernelContext& ctx, const TensorView& x,
                                     const Dims& out_dims);

}  // namespace kiln::kernels
