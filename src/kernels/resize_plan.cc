// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "kernels/resize_plan.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "kernels/reference/common.h"
#include "kernels/util.h"

namespace kiln::kernels {
namespace {

constexpr int kBad = code::kInvalidParam;
using Doubles = std::vector<double>;

double CubicWeight(double x, double a) {
  x = std::fabs(x);
  if (x <= 1) return ((a + 2) * x - (a + 3)) * x * x + 1;
  if (x < 2) return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
  return 0;
}

// Weights of the taps at floor(x) + first + t for ratio = x - floor(x) in (0, 1] (ONNX's
// reference: an integral x uses ratio 1 and the window one to the left).
std::vector<double> Coefficients(const ResizeMode& m, double ratio, double scale, bool downscale,
                                 int64_t& first) {
  std::vector<double> c;
  if (m.mode == "nearest") {
    first = 0;
    std::string nm = m.nearest;
    if (nm == "simple") nm = downscale ? "ceil" : "floor";
    bool right;
    if (ratio == 1) {
      right = true;
    } else if (nm == "round_prefer_floor") {
      right = ratio > 0.5;
    } else if (nm == "round_prefer_ceil") {
      right = ratio >= 0.5;
    } else {
      right = nm == "ceil";
    }
    return {right ? 0.0 : 1.0, right ? 1.0 : 0.0};
  }
  const bool cubic = m.mode == "cubic";
  if (!m.antialias) {
    first = cubic ? -1 : 0;
    if (!cubic) return {1 - ratio, ratio};
    for (int t = -1; t <= 2; ++t) c.push_back(CubicWeight(t - ratio, m.cubic_a));
    return c;
  }
  // Antialiasing stretches the filter by 1 / scale when downscaling.
  const double s = std::min(scale, 1.0);
  first = static_cast<int64_t>(std::floor((cubic ? -2.0 : -1.0) / s)) + 1;
  const int64_t n = 2 - 2 * first;
  double sum = 0;
  for (int64_t t = 0; t < n; ++t) {
    const double arg = (static_cast<double>(first + t) - ratio) * s;
    const double w = cubic ? CubicWeight(arg, m.cubic_a) : std::clamp(1 - std::fabs(arg), 0.0, 1.0);
    c.push_back(w);
    sum += w;
  }
  for (double& w : c) w /= sum;
  return c;
}

// Where output position y reads from along an axis of `in` elements resized to `out`.
double SourceCoord(const ResizeMode& m, int64_t y, double scale, int64_t in, int64_t out,
                   double roi_start, double roi_end) {
  const double yd = static_cast<double>(y), ind = static_cast<double>(in);
  const double width = scale * ind;  // the fractional output length
  const std::string& t = m.transform;
  if (t == "align_corners") return width == 1 ? 0 : yd * (ind - 1) / (width - 1);
  if (t == "asymmetric") return yd / scale;
  if (t == "tf_half_pixel_for_nn") return (yd + 0.5) / scale;
  if (t == "pytorch_half_pixel") return out > 1 ? (yd + 0.5) / scale - 0.5 : 0;
  if (t == "tf_crop_and_resize") {
    const double span = (roi_end - roi_start) * (ind - 1);
    return roi_start * (ind - 1) + (width == 1 ? span / 2 : yd * span / (width - 1));
  }
  if (t == "half_pixel_symmetric") {
    const double offset = ind / 2 * (1 - static_cast<double>(out) / width);
    return offset + (yd + 0.5) / scale - 0.5;
  }
  return (yd + 0.5) / scale - 0.5;  // half_pixel
}

}  // namespace

AxisTaps PlanResizeAxis(const ResizeMode& m, int64_t in, int64_t out, double scale,
                        double roi_start, double roi_end) {
  AxisTaps p;
  for (int64_t y = 0; y < out; ++y) {
    const double x = SourceCoord(m, y, scale, in, out, roi_start, roi_end);
    p.extrapolated.push_back(m.transform == "tf_crop_and_resize" &&
                             (x < 0 || x > static_cast<double>(in - 1)));
    const double xf = std::floor(x);
    const double ratio = x == xf ? 1.0 : x - xf;
    int64_t first = 0;
    std::vector<double> c = Coefficients(m, ratio, scale, scale < 1, first);
    const int64_t n = static_cast<int64_t>(c.size());
    // With ratio 1 the taps sit one to the left of floor(x). A coordinate far outside the axis
    // (extrapolation, or dims that disagree with the scale) is first brought within n + 4 of it:
    // every tap stays on the same side, and the conversion to an integer stays defined.
    const double reach = static_cast<double>(n + 4);
    const double near = std::clamp(xf, -reach, static_cast<double>(in) + reach);
    const int64_t base = static_cast<int64_t>(near) + first - (x == xf ? 1 : 0);
    if (m.exclude_outside && m.mode != "nearest") {
      double sum = 0;
      for (int64_t t = 0; t < n; ++t) {
        if (base + t < 0 || base + t >= in) c[static_cast<size_t>(t)] = 0;
        sum += c[static_cast<size_t>(t)];
      }
      if (sum != 0) {
        for (double& w : c) w /= sum;
      }
    }
    p.count = n;
    for (int64_t t = 0; t < n; ++t) {
      p.index.push_back(std::clamp<int64_t>(base + t, 0, in - 1));
      p.weight.push_back(c[static_cast<size_t>(t)]);
    }
  }
  return p;
}

namespace {

size_t AxisOf(int64_t axis, size_t rank) {
  return static_cast<size_t>(axis < 0 ? axis + static_cast<int64_t>(rank) : axis);
}

// Scales come from an input (a run's data, or a file's constant): the formulas need them
// positive and finite, and an antialiasing filter spans about 2 / scale input elements.
Status CheckScales(const ResizeMode& m, const ResizePlan& plan) {
  if (NumElements(plan.out) == 0) return Status::Ok();
  constexpr double kMinAntialiasScale = 1.0 / (1 << 23);
  for (size_t d = 0; d < plan.scale.size(); ++d) {
    const double s = plan.scale[d];
    if (!std::isfinite(s) || s <= 0) {
      return Error(kBad, "the scale of axis ", d, " is ", s,
                   ": scales must be positive and finite");
    }
    if (m.antialias && s < kMinAntialiasScale) {
      return Error(kBad, "the scale of axis ", d, " is ", s,
                   ": an antialiased downscale by more than 2^23 is not supported");
    }
  }
  return Status::Ok();
}

// Opset-10 Resize and Upsample: asymmetric coordinates, nearest rounding down (up when
// downscaling), every axis scaled by `scales` to the bound output's dims.
Result<ResolvedResize> ResolveV10(const NodeDef& def, const TensorView& x, const Dims& out_dims,
                                  Doubles scales) {
  ResolvedResize r;
  r.mode.mode = def.attr_string("mode");
  if (scales.size() != x.rank()) {
    return def.Fail(kBad, "scales has ", scales.size(), " values for a rank-", x.rank(), " input");
  }
  r.plan = {out_dims, std::move(scales), Doubles(x.rank(), 0.0), Doubles(x.rank(), 1.0)};
  KILN_RETURN_IF_ERROR(CheckScales(r.mode, r.plan), "");
  return r;
}

}  // namespace

bool ResolvedResize::Identity(const Dims& in, size_t d) const {
  return std::fabs(plan.scale[d] - 1) <= 1e-9 && plan.out[d] == in[d] &&
         (mode.transform != "tf_crop_and_resize" ||
          (std::fabs(plan.roi_start[d]) <= 1e-9 && std::fabs(plan.roi_end[d] - 1) <= 1e-9));
}

Result<ResolvedResize> ResolveResize(const NodeDef& def, KernelContext& ctx, const TensorView& x,
                                     const Dims& out_dims) {
  if (def.op_type == "Upsample") {
    std::vector<double> scales;
    if (def.opset < 9) {
      for (float f : def.attr_floats("scales")) scales.push_back(f);
    } else {
      KILN_ASSIGN_OR_RETURN(const TensorView* s, RequiredInput(def, ctx, 1));
      scales = ReadDoubles(*s);
    }
    return ResolveV10(def, x, out_dims, std::move(scales));
  }
  if (def.opset < 11) {
    KILN_ASSIGN_OR_RETURN(const TensorView* s, RequiredInput(def, ctx, 1));
    return ResolveV10(def, x, out_dims, ReadDoubles(*s));
  }
  ResolvedResize resolved;
  ResizeMode& m = resolved.mode;
  m.mode = def.attr_string("mode");
  m.transform = def.attr_string("coordinate_transformation_mode");
  m.nearest = def.attr_string("nearest_mode");
  m.cubic_a = def.attr_float("cubic_coeff_a");
  m.exclude_outside = def.attr_int("exclude_outside") != 0;
  m.extrapolation = def.attr_float("extrapolation_value");
  m.antialias = def.opset >= 18 && def.attr_int("antialias") != 0;
  const size_t r = x.rank();
  std::vector<size_t> axes;  // the resized axes (the definition checked them)
  if (def.opset >= 18 && def.has_attr("axes")) {
    for (int64_t a : def.attr_ints("axes")) axes.push_back(AxisOf(a, r));
  } else {
    for (size_t i = 0; i < r; ++i) axes.push_back(i);
  }
  const size_t na = axes.size();
  const TensorView* roi = ctx.input(1);
  const TensorView* scales = ctx.input(2);
  // Every axis starts as identity; the listed axes take the given values. The output dims are
  // the bound output's; the scales the coordinates use are the given ones, or with sizes the
  // ratio of output to input (one ratio for every axis under keep_aspect_ratio_policy).
  ResizePlan& plan = resolved.plan;
  plan = {out_dims, Doubles(r, 1.0), Doubles(r, 0.0), Doubles(r, 1.0)};
  if (m.transform == "tf_crop_and_resize") {
    const std::vector<double> v = ReadDoubles(*roi);
    if (v.size() < 2 * na) {
      return def.Fail(kBad, "roi has ", v.size(), " values; ", 2 * na,
                      " are needed (start and end of each resized axis)");
    }
    for (size_t k = 0; k < na; ++k) {
      plan.roi_start[axes[k]] = v[k];
      plan.roi_end[axes[k]] = v[k + na];
    }
  }
  if (!Omitted(scales)) {
    const std::vector<double> s = ReadDoubles(*scales);
    if (s.size() != na) {
      return def.Fail(kBad, "scales has ", s.size(), " values for ", na, " resized axes");
    }
    for (size_t k = 0; k < na; ++k) plan.scale[axes[k]] = s[k];
  } else {
    for (size_t a : axes) {
      plan.scale[a] = x.dims[a] == 0 ? 1.0 : static_cast<double>(out_dims[a]) / x.dims[a];
    }
    const std::string policy =
        def.opset >= 18 ? def.attr_string("keep_aspect_ratio_policy") : std::string("stretch");
    if (policy != "stretch" && na > 0) {
      // The one scale is the ratio the sizes asked for, not the rounded output's.
      const std::vector<int64_t> sizes = ReadInts(*ctx.input(3));
      if (sizes.size() != na) {
        return def.Fail(kBad, "sizes has ", sizes.size(), " values for ", na, " resized axes");
      }
      double one = policy == "not_larger" ? std::numeric_limits<double>::max() : 0;
      for (size_t k = 0; k < na; ++k) {
        const size_t a = axes[k];
        const double v = x.dims[a] == 0 ? 1.0 : static_cast<double>(sizes[k]) / x.dims[a];
        one = policy == "not_larger" ? std::min(one, v) : std::max(one, v);
      }
      for (size_t a : axes) plan.scale[a] = one;
    }
  }
  KILN_RETURN_IF_ERROR(CheckScales(m, plan), "");
  return resolved;
}

}  // namespace kiln::kernels
