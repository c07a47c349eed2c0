// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Neural-network ops: convolutions and pools, normalisations, the softmax family, the losses
// (NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss), matrix products (MatMul, Gemm, Einsum),
// Flatten, and the recurrent ops (RNN, GRU, LSTM).
#include <algorithm>
#include <cctype>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "ir/ops/infer_util.h"

namespace kiln::ir {
namespace {

// ---------------------------------------------------------------------------------------------
// Shared helpers.

std::string IntsStr(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) s += ',';
    s += std::to_string(v[i]);
  }
  return s + "]";
}

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }  // a >= 0, b > 0

// `d` times `k`: known when `d` is, `d` itself when k is 1, unknown otherwise.
Dim Scaled(const Dim& d, int64_t k) {
  if (d.known()) return Dim::Known(d.value * k);
  return k == 1 ? d : Dim::Unknown();
}

// The product of dims [begin, end): known when all are, a lone dynamic dim when the rest are 1,
// zero when any is zero, unknown otherwise.
Dim DimProduct(const std::vector<Dim>& dims, size_t begin, size_t end) {
  int64_t known = 1;
  const Dim* dynamic = nullptr;
  size_t num_dynamic = 0;
  for (size_t i = begin; i < end; ++i) {
    if (dims[i].known()) {
      known *= dims[i].value;
    } else {
      dynamic = &dims[i];
      ++num_dynamic;
    }
  }
  if (known == 0 || num_dynamic == 0) return Dim::Known(known);
  return num_dynamic == 1 && known == 1 ? *dynamic : Dim::Unknown();
}

// True unless `from` provably cannot broadcast unidirectionally to `to`.
bool BroadcastsTo(const Shape& from, const Shape& to) {
  if (!from.rank_known() || !to.rank_known()) return true;
  if (from.rank() > to.rank()) return false;
  size_t offset = to.rank() - from.rank();
  for (size_t i = 0; i < from.rank(); ++i) {
    const Dim& f = from[i];
    const Dim& t = to[i + offset];
    if (f.known() && f.value != 1 && t.known() && f.value != t.value) return false;
  }
  return true;
}

// Outputs given by name: ONNX marks an omitted optional output with an empty name (null here).
size_t NumOutputsGiven(const InferenceContext& ctx) {
  size_t n = 0;
  for (size_t i = 0; i < ctx.num_outputs(); ++i) n += ctx.output_used(i) ? 1 : 0;
  return n;
}

Status CheckFloatInput(InferenceContext& ctx, size_t i, const char* name) {
  if (!ctx.has_input(i) || IsFloat(ctx.input_dtype(i))) return Status::Ok();
  return ctx.Fail(name, " is ", Name(ctx.input_dtype(i)), "; a floating-point type is required");
}

// Input 0 is floating point and the inputs in [1, last) share its type.
Status CheckFloatSameType(InferenceContext& ctx, size_t last) {
  KILN_RETURN_IF_ERROR(CheckFloatInput(ctx, 0, "input 0"), "");
  return CheckSameDtype(ctx, 0, last);
}

// Input `i`, when given, has input 0's type.
Status CheckTypeOfInput0(InferenceContext& ctx, size_t i, const char* name) {
  if (!ctx.has_input(i) || ctx.input_dtype(i) == ctx.input_dtype(0)) return Status::Ok();
  return ctx.Fail(name, " is ", Name(ctx.input_dtype(i)), " but input 0 is ",
                  Name(ctx.input_dtype(0)), "; they must have the same type");
}

// Inputs [0, last) share a numeric type (float only before `any_numeric_since`).
Status CheckNumericSameType(InferenceContext& ctx, size_t last, int any_numeric_since) {
  DataType t = ctx.input_dtype(0);
  if (!IsFloat(t) && (!IsInteger(t) || ctx.opset() < any_numeric_since)) {
    return ctx.Fail("input 0 is ", Name(t), "; a ",
                    ctx.opset() < any_numeric_since ? "floating-point" : "numeric",
                    " type is required");
  }
  return CheckSameDtype(ctx, 0, last);
}

// The dims of input i, which must have `rank` dims; all unknown when its rank is unknown.
Result<std::vector<Dim>> DimsOfRank(InferenceContext& ctx, size_t i, const char* name,
                                    size_t rank) {
  const Shape& s = ctx.input_shape(i);
  if (!s.rank_known()) return std::vector<Dim>(rank);
  if (s.rank() != rank) {
    return ctx.Fail(name, " has shape ", s.ToString(), "; rank ", rank, " is required");
  }
  return s.dims();
}

Status CheckRankAtLeast(InferenceContext& ctx, size_t i, size_t min_rank, const char* layout) {
  const Shape& s = ctx.input_shape(i);
  if (!s.rank_known() || s.rank() >= min_rank) return Status::Ok();
  return ctx.Fail("input ", i, " has shape ", s.ToString(), "; rank >= ", min_rank, " (", layout,
                  ") is required");
}

// Input i, when given with a known rank, must have shape `want` (unknown dims match anything).
Status CheckShape(InferenceContext& ctx, size_t i, const char* name, const std::vector<Dim>& want) {
  if (!ctx.has_input(i) || !ctx.input_shape(i).rank_known()) return Status::Ok();
  const Shape& s = ctx.input_shape(i);
  bool ok = s.rank() == want.size();
  for (size_t d = 0; ok && d < want.size(); ++d) {
    ok = !(s[d].known() && want[d].known() && s[d].value != want[d].value);
  }
  if (ok) return Status::Ok();
  return ctx.Fail(name, " has shape ", s.ToString(), "; ", Shape(want).ToString(), " is required");
}

Result<int64_t> AxisAttr(InferenceContext& ctx, int64_t dflt, int64_t rank) {
  int64_t axis = ctx.attr_int("axis", dflt);
  std::optional<int64_t> a = NormalizeAxis(axis, rank);
  if (!a) return ctx.Fail("attribute 'axis' = ", axis, " is out of range for rank ", rank);
  return *a;
}

// An int attribute that must be one of {0, 1}.
Result<bool> FlagAttr(InferenceContext& ctx, const char* name) {
  int64_t v = ctx.attr_int(name, 0);
  if (v != 0 && v != 1) return ctx.Fail("attribute '", name, "' must be 0 or 1, got ", v);
  return v == 1;
}

// A required int attribute that must be >= 1.
Result<int64_t> PositiveAttr(InferenceContext& ctx, const char* name) {
  if (!ctx.has_attr(name)) return ctx.Fail("attribute '", name, "' is required");
  int64_t v = ctx.attr_int(name, 0);
  if (v < 1) return ctx.Fail("attribute '", name, "' must be >= 1, got ", v);
  return v;
}

// ---------------------------------------------------------------------------------------------
// Convolutions and pools.

enum class AutoPad { kNotSet, kSameUpper, kSameLower, kValid };

// The sliding-window attributes shared by Conv, ConvTranspose and the pools.
struct Window {
  AutoPad auto_pad = AutoPad::kNotSet;
  std::vector<int64_t> kernel;  // -1 where unknown (W with symbolic dims, no kernel_shape)
  std::vector<int64_t> strides, dilations;
  std::vector<int64_t> pads;  // all begins, then all ends; zeros under auto_pad
  bool ceil_mode = false;

  bool same() const { return auto_pad == AutoPad::kSameUpper || auto_pad == AutoPad::kSameLower; }
};

// Which optional window attributes the op has at the node's opset.
struct WindowAttrs {
  bool dilations = true;
  bool ceil_mode = false;
};

// Attribute `name` with `n` values (`dflt` each when absent), each >= `min`.
Result<std::vector<int64_t>> IntsAttr(InferenceContext& ctx, const char* name, size_t n,
                                      int64_t dflt, int64_t min) {
  if (!ctx.has_attr(name)) return std::vector<int64_t>(n, dflt);
  std::vector<int64_t> v = ctx.attr_ints(name);
  if (v.size() != n) {
    return ctx.Fail("attribute '", name, "' = ", IntsStr(v), " has ", v.size(), " values; ", n,
                    " are required");
  }
  for (int64_t x : v) {
    if (x < min) return ctx.Fail("attribute '", name, "' = ", IntsStr(v), " has a value < ", min);
  }
  return v;
}

Result<AutoPad> AutoPadAttr(InferenceContext& ctx) {
  std::string pad = ctx.attr_string("auto_pad", "NOTSET");
  if (pad == "NOTSET" || pad.empty()) return AutoPad::kNotSet;
  if (pad == "SAME_UPPER") return AutoPad::kSameUpper;
  if (pad == "SAME_LOWER") return AutoPad::kSameLower;
  if (pad == "VALID") return AutoPad::kValid;
  return ctx.Fail("attribute 'auto_pad' must be NOTSET, SAME_UPPER, SAME_LOWER or VALID, got \"",
                  pad, "\"");
}

Result<Window> ReadWindow(InferenceContext& ctx, std::vector<int64_t> kernel, WindowAttrs has) {
  size_t n = kernel.size();
  Window w;
  if (std::count(kernel.begin(), kernel.end(), 0) != 0) {
    return ctx.Fail("kernel shape ", IntsStr(kernel), " has a zero dim");
  }
  KILN_ASSIGN_OR_RETURN(w.auto_pad, AutoPadAttr(ctx));
  KILN_ASSIGN_OR_RETURN(w.strides, IntsAttr(ctx, "strides", n, 1, 1));
  w.dilations.assign(n, 1);
  if (has.dilations) {
    KILN_ASSIGN_OR_RETURN(w.dilations, IntsAttr(ctx, "dilations", n, 1, 1));
  }
  KILN_ASSIGN_OR_RETURN(w.pads, IntsAttr(ctx, "pads", 2 * n, 0, 0));
  // Exporters sometimes write zero pads next to auto_pad; auto_pad decides.
  if (w.auto_pad != AutoPad::kNotSet) w.pads.assign(2 * n, 0);
  if (has.ceil_mode) {
    KILN_ASSIGN_OR_RETURN(w.ceil_mode, FlagAttr(ctx, "ceil_mode"));
  }
  w.kernel = std::move(kernel);
  return w;
}

// Output size of spatial dim i of a convolution or pool over `in`.
Result<Dim> WindowOutDim(InferenceContext& ctx, const Dim& in, const Window& w, size_t i) {
  int64_t k = w.kernel[i], s = w.strides[i];
  if (w.same()) {
    if (in.known()) return Dim::Known(CeilDiv(in.value, s));
    return s == 1 ? in : Dim::Unknown();
  }
  if (k < 0) return Dim::Unknown();
  int64_t extent = w.dilations[i] * (k - 1) + 1;
  int64_t begin = w.pads[i], padding = w.pads[i] + w.pads[i + w.kernel.size()];
  if (!in.known()) return s == 1 && padding == extent - 1 ? in : Dim::Unknown();
  int64_t span = in.value + padding - extent;
  if (span < 0) {
    return ctx.Fail("spatial dim ", i, ": the window extent ", extent,
                    " exceeds the padded input size ", in.value + padding);
  }
  // ONNX applies ceil_mode to explicit pads only; auto_pad has its own formulas.
  bool ceil = w.ceil_mode && w.auto_pad == AutoPad::kNotSet;
  int64_t out = (ceil ? CeilDiv(span, s) : span / s) + 1;
  // A window that would start in the end padding is dropped.
  if (ceil && (out - 1) * s >= in.value + begin) --out;
  return Dim::Known(out);
}

// Output size of spatial dim i of a transposed convolution over `in`.
Result<Dim> TransposedOutDim(InferenceContext& ctx, const Dim& in, const Window& w, int64_t out_pad,
                             size_t i) {
  int64_t k = w.kernel[i], s = w.strides[i];
  if (w.same()) return Scaled(in, s);
  if (k < 0) return Dim::Unknown();
  int64_t extent = w.dilations[i] * (k - 1) + 1;
  int64_t grow = out_pad + extent - w.pads[i] - w.pads[i + w.kernel.size()];
  if (!in.known()) return s == 1 && grow == 1 ? in : Dim::Unknown();
  int64_t out = s * (in.value - 1) + grow;
  if (in.value > 0 && out < 1) {
    return ctx.Fail("spatial dim ", i, ": the pads leave an output size of ", out);
  }
  return Dim::Known(std::max<int64_t>(out, 0));
}

// Spatial rank of a conv or pool: from X, else W (when `weights`), else kernel_shape; nullopt
// when none says. X and W need rank >= 3.
Result<std::optional<size_t>> SpatialRank(InferenceContext& ctx, bool weights) {
  for (size_t i = 0; i < (weights ? 2u : 1u); ++i) {
    KILN_RETURN_IF_ERROR(CheckRankAtLeast(ctx, i, 3, "N x C x spatial dims"), "");
    if (ctx.input_shape(i).rank_known()) {
      return std::optional<size_t>(ctx.input_shape(i).rank() - 2);
    }
  }
  if (ctx.has_attr("kernel_shape")) {
    return std::optional<size_t>(ctx.attr_ints("kernel_shape").size());
  }
  return std::optional<size_t>();
}

// kernel_shape, else W's spatial dims (-1 where unknown); they must agree where both are known.
Result<std::vector<int64_t>> ConvKernel(InferenceContext& ctx, const std::vector<Dim>& w) {
  std::vector<int64_t> from_w;
  for (size_t i = 2; i < w.size(); ++i) from_w.push_back(w[i].value);
  if (!ctx.has_attr("kernel_shape")) return from_w;
  KILN_ASSIGN_OR_RETURN(std::vector<int64_t> k, IntsAttr(ctx, "kernel_shape", from_w.size(), 1, 1));
  for (size_t i = 0; i < k.size(); ++i) {
    if (from_w[i] >= 0 && from_w[i] != k[i]) {
      return ctx.Fail("attribute 'kernel_shape' = ", IntsStr(k), " does not match W's shape ",
                      Shape(w).ToString());
    }
  }
  return k;
}

Result<int64_t> GroupAttr(InferenceContext& ctx) {
  int64_t group = ctx.attr_int("group", 1);
  if (group < 1) return ctx.Fail("attribute 'group' must be >= 1, got ", group);
  return group;
}

// Conv: X [N, C, ...], W [M, C/group, k...]; C and M must divide into the groups.
Status CheckConvChannels(InferenceContext& ctx, const Dim& c, const std::vector<Dim>& w,
                         int64_t group) {
  if (c.known() && w[1].known() && c.value != w[1].value * group) {
    return ctx.Fail("X has ", c.value, " channels but W.shape[1] * group = ", w[1].value, " * ",
                    group, " = ", w[1].value * group);
  }
  if (c.known() && c.value % group != 0) {
    return ctx.Fail("X has ", c.value, " channels, not a multiple of group ", group);
  }
  if (w[0].known() && w[0].value % group != 0) {
    return ctx.Fail("W has ", w[0].value, " output channels, not a multiple of group ", group);
  }
  return Status::Ok();
}

// The common front of Conv and ConvTranspose: types, ranks and the X / W dims.
struct ConvDims {
  std::vector<Dim> x, w;
  int64_t group = 1;
};

Result<std::optional<ConvDims>> ReadConvDims(InferenceContext& ctx) {
  KILN_RETURN_IF_ERROR(CheckFloatSameType(ctx, 3), "");
  KILN_ASSIGN_OR_RETURN(std::optional<size_t> spatial, SpatialRank(ctx, true));
  if (!spatial) return std::optional<ConvDims>();
  ConvDims d;
  KILN_ASSIGN_OR_RETURN(d.x, DimsOfRank(ctx, 0, "X", *spatial + 2));
  KILN_ASSIGN_OR_RETURN(d.w, DimsOfRank(ctx, 1, "W", *spatial + 2));
  KILN_ASSIGN_OR_RETURN(d.group, GroupAttr(ctx));
  return std::optional<ConvDims>(std::move(d));
}

Status Conv(InferenceContext& ctx) {
  KILN_ASSIGN_OR_RETURN(std::optional<ConvDims> d, ReadConvDims(ctx));
  if (!d) {
    ctx.set_output(0, ctx.input_dtype(0), Shape());
    return Status::Ok();
  }
  KILN_RETURN_IF_ERROR(CheckConvChannels(ctx, d->x[1], d->w, d->group), "");
  KILN_RETURN_IF_ERROR(CheckShape(ctx, 2, "B", {d->w[0]}), "");
  KILN_ASSIGN_OR_RETURN(std::vector<int64_t> kernel, ConvKernel(ctx, d->w));
  KILN_ASSIGN_OR_RETURN(Window win, ReadWindow(ctx, std::move(kernel), {}));
  std::vector<Dim> out = {d->x[0], d->w[0]};
  for (size_t i = 0; i + 2 < d->x.size(); ++i) {
    KILN_ASSIGN_OR_RETURN(Dim dim, WindowOutDim(ctx, d->x[i + 2], win, i));
    out.push_back(std::move(dim));
  }
  ctx.set_output(0, ctx.input_dtype(0), Shape(std::move(out)));
  return Status::Ok();
}

// output_shape, which may list the spatial dims only or (as some exporters write) all dims.
Result<std::vector<int64_t>> OutputShapeAttr(InferenceContext& ctx, size_t spatial) {
  std::vector<int64_t> v = ctx.attr_ints("output_shape");
  if (v.size() == spatial + 2) v.erase(v.begin(), v.begin() + 2);
  if (!v.empty() && v.size() != spatial) {
    return ctx.Fail("attribute 'output_shape' = ", IntsStr(v), " needs ", spatial,
                    " spatial sizes");
  }
  return v;
}

// ConvTranspose: X [N, C, ...], W [C, M/group, k...], B [M].
Status ConvTranspose(InferenceContext& ctx) {
  KILN_ASSIGN_OR_RETURN(std::optional<ConvDims> d, ReadConvDims(ctx));
  if (!d) {
    ctx.set_output(0, ctx.input_dtype(0), Shape());
    return Status::Ok();
  }
  const Dim &c = d->x[1], &wc = d->w[0];
  if (c.known() && wc.known() && c.value != wc.value) {
    return ctx.Fail("X has ", c.value, " channels but W.shape[0] is ", wc.value);
  }
  if (wc.known() && wc.value % d->group != 0) {
    return ctx.Fail("W has ", wc.value, " input channels, not a multiple of group ", d->group);
  }
  Dim m = Scaled(d->w[1], d->group);
  KILN_RETURN_IF_ERROR(CheckShape(ctx, 2, "B", {m}), "");
  size_t n = d->x.size() - 2;
  KILN_ASSIGN_OR_RETURN(std::vector<int64_t> kernel, ConvKernel(ctx, d->w));
  KILN_ASSIGN_OR_RETURN(Window win, ReadWindow(ctx, std::move(kernel), {}));
  KILN_ASSIGN_OR_RETURN(std::vector<int64_t> out_pad, IntsAttr(ctx, "output_padding", n, 0, 0));
  KILN_ASSIGN_OR_RETURN(std::vector<int64_t> out_shape, OutputShapeAttr(ctx, n));
  std::vector<Dim> out = {d->x[0], m};
  for (size_t i = 0; i < n; ++i) {
    if (!out_shape.empty()) {
      out.push_back(Dim::Known(out_shape[i]));
      continue;
    }
    KILN_ASSIGN_OR_RETURN(Dim dim, TransposedOutDim(ctx, d->x[i + 2], win, out_pad[i], i));
    out.push_back(std::move(dim));
  }
  ctx.set_output(0, ctx.input_dtype(0), Shape(std::move(out)));
  return Status::Ok();
}

// The output shape of MaxPool / AveragePool / LpPool: [N, C, windowed spatial dims].
Result<Shape> PoolShape(InferenceContext& ctx, WindowAttrs has) {
  if (!ctx.has_attr("kernel_shape")) return ctx.Fail("attribute 'kernel_shape' is required");
  KILN_ASSIGN_OR_RETURN(std::optional<size_t> spatial, SpatialRank(ctx, false));
  KILN_ASSIGN_OR_RETURN(std::vector<Dim> x, DimsOfRank(ctx, 0, "X", *spatial + 2));
  KILN_ASSIGN_OR_RETURN(std::vector<int64_t> kernel, IntsAttr(ctx, "kernel_shape", *spatial, 1, 1));
  KILN_ASSIGN_OR_RETURN(Window win, ReadWindow(ctx, std::move(kernel), has));
  std::vector<Dim> out = {x[0], x[1]};
  for (size_t i = 0; i < *spatial; ++i) {
    KILN_ASSIGN_OR_RETURN(Dim dim, WindowOutDim(ctx, x[i + 2], win, i));
    out.push_back(std::move(dim));
  }
  return Shape(std::move(out));
}

// MaxPool: dilations and ceil_mode from opset 10, the int64 Indices output from 8, int8 and
// uint8 inputs from 12.
Status MaxPool(InferenceContext& ctx) {
  DataType t = ctx.input_dtype(0);
  bool int8 = ctx.opset() >= 12 && (t == DataType::kInt8 || t == DataType::kUint8);
  if (!IsFloat(t) && !int8) {
    return ctx.Fail("X is ", Name(t), "; a floating-point type",
                    ctx.opset() >= 12 ? ", int8 or uint8" : "", " is required");
  }
  KILN_RETURN_IF_ERROR(FlagAttr(ctx, "storage_order").status(), "");
  if (ctx.opset() < 8 && ctx.output_used(1)) {
    return ctx.Fail("the Indices output needs opset 8 or newer");
  }
  WindowAttrs has{.dilations = ctx.opset() >= 10, .ceil_mode = ctx.opset() >= 10};
  KILN_ASSIGN_OR_RETURN(Shape shape, PoolShape(ctx, has));
  ctx.set_output(1, DataType::kInt64, shape);
  ctx.set_output(0, t, std::move(shape));
  return Status::Ok();
}

// AveragePool: ceil_mode from opset 10, dilations from 19.
Status AveragePool(InferenceContext& ctx) {
  KILN_RETURN_IF_ERROR(CheckFloatInput(ctx, 0, "X"), "");
  KILN_RETURN_IF_ERROR(FlagAttr(ctx, "count_include_pad").status(), "");
  WindowAttrs has{.dilations = ctx.opset() >= 19, .ceil_mode = ctx.opset() >= 10};
  KILN_ASSIGN_OR_RETURN(Shape shape, PoolShape(ctx, has));
  ctx.set_output(0, ctx.input_dtype(0), std::move(shape));
  return Status::Ok();
}

// LpPool: ceil_mode and dilations from opset 18.
Status LpPool(InferenceContext& ctx) {
  KILN_RETURN_IF_ERROR(CheckFloatInput(ctx, 0, "X"), "");
  WindowAttrs has{.dilations = ctx.opset() >= 18, .ceil_mode = ctx.opset() >= 18};
  KILN_ASSIGN_OR_RETURN(Shape shape, PoolShape(ctx, has));
  ctx.set_output(0, ctx.input_dtype(0), std::move(shape));
  return Status::Ok();
}

// GlobalAveragePool, GlobalMaxPool, GlobalLpPool: [N, C, 1, ...].
Status GlobalPool(InferenceContext& ctx) {
  KILN_RETURN_IF_ERROR(CheckFloatInput(ctx, 0, "X"), "");
  KILN_RETURN_IF_ERROR(CheckRankAtLeast(ctx, 0, 3, "N x C x spatial dims"), "");
  const Shape& x = ctx.input_shape(0);
  if (!x.rank_known()) return InferSameAsInput(ctx);
  std::vector<Dim> out = {x[0], x[1]};
  out.resize(x.rank(), Dim::Known(1));
  ctx.set_output(0, ctx.input_dtype(0), Shape(std::move(out)));
  return Status::Ok();
}

// ---------------------------------------------------------------------------------------------
// Normalisations.

// The channel dim of input 0, which needs rank >= `min_rank`; unknown when its rank is.
Result<Dim> ChannelDim(InferenceContext& ctx, size_t min_rank) {
  KILN_RETURN_IF_ERROR(CheckRankAtLeast(ctx, 0, min_rank, "N x C x ..."), "");
  const Shape& x = ctx.input_shape(0);
  return x.rank_known() ? x[1] : Dim::Unknown();
}

// Training mode (batch statistics) is accepted from opset 14, where training_mode=1 selects it
// and adds the running_mean / running_var outputs. Before 14 the extra mean/var/saved_mean/
// saved_var outputs are what select it, and that older form is refused.
Result<bool> BatchNormTrainingMode(InferenceContext& ctx) {
  bool extra_outputs = NumOutputsGiven(ctx) > 1;
  bool training = false;
  if (ctx.opset() >= 14) {
    if (ctx.num_outputs() > 3) {
      return ctx.Fail("has ", ctx.num_outputs(), " outputs; from opset 14 there are 1 to 3");
    }
    KILN_ASSIGN_OR_RETURN(training, FlagAttr(ctx, "training_mode"));
    if (extra_outputs && !training) {
      return ctx.Fail("outputs running_mean and running_var need training_mode=1");
    }
  } else if (extra_outputs) {
    return ctx.Unsupported(
        "the mean/var outputs select the opset < 14 training mode, which Kiln does not "
        "support; keep only output Y");
  }
  if (ctx.opset() < 9 && ctx.attr_int("spatial", 1) == 0) {
    return ctx.Unsupported("spatial=0 (per-activation statistics) is not supported");
  }
  return training;
}

// BatchNormalization: X, scale, B, mean, var. From opset 15 scale/B and mean/var may each have
// their own float type; the running statistics (training mode) have mean's type and shape.
Status BatchNormalization(InferenceContext& ctx) {
  KILN_ASSIGN_OR_RETURN(bool training, BatchNormTrainingMode(ctx));
  const char* names[] = {"X", "scale", "B", "input_mean", "input_var"};
  if (ctx.opset() < 15) {
    KILN_RETURN_IF_ERROR(CheckFloatSameType(ctx, 5), "");
  } else {
    for (size_t i : {0, 1, 3}) KILN_RETURN_IF_ERROR(CheckFloatInput(ctx, i, names[i]), "");
    KILN_RETURN_IF_ERROR(CheckSameDtype(ctx, 1, 3), "");
    KILN_RETURN_IF_ERROR(CheckSameDtype(ctx, 3, 5), "");
  }
  KILN_ASSIGN_OR_RETURN(Dim c, ChannelDim(ctx, 2));
  for (size_t i = 1; i < 5; ++i) KILN_RETURN_IF_ERROR(CheckShape(ctx, i, names[i], {c}), "");
  if (training) {
    for (size_t i = 1; i < ctx.num_outputs(); ++i) {
      ctx.set_output(i, ctx.input_dtype(3), Shape(std::vector<Dim>{c}));
    }
  }
  return InferSameAsInput(ctx);
}

Status InstanceNormalization(InferenceContext& ctx) {
  KILN_RETURN_IF_ERROR(CheckFloatSameType(ctx, 3), "");
  KILN_ASSIGN_OR_RETURN(Dim c, ChannelDim(ctx, 3));
  KILN_RETURN_IF_ERROR(CheckShape(ctx, 1, "scale", {c}), "");
  KILN_RETURN_IF_ERROR(CheckShape(ctx, 2, "B", {c}), "");
  return InferSameAsInput(ctx);
}

// LayerNormalization: Y like X; Mean and InvStdDev are X's shape with the normalised dims
// (axis onwards) set to 1, in stash_type.
Status LayerNormalization(InferenceContext& ctx) {
  KILN_RETURN_IF_ERROR(CheckFloatSameType(ctx, 3), "");
  int64_t stash = ctx.attr_int("stash_type", 1);
  DataType stash_type = FromOnnx(static_cast<int32_t>(stash));
  if (!IsFloat(stash_type)) {
    return ctx.Fail("attribute 'stash_type' = ", stash, " is not a floating-point type");
  }
  const Shape& x = ctx.input_shape(0);
  for (size_t i = 1; i < 3; ++i) {
    if (ctx.has_input(i) && !BroadcastsTo(ctx.input_shape(i), x)) {
      return ctx.Fail(i == 1 ? "Scale" : "B", " has shape ", ctx.input_shape(i).ToString(),
                      ", which does not broadcast to X ", x.ToString());
    }
  }
  Shape stats;
  if (x.rank_known()) {
    KILN_ASSIGN_OR_RETURN(int64_t axis, AxisAttr(ctx, -1, static_cast<int64_t>(x.rank())));
    stats = x;
    for (size_t d = static_cast<size_t>(axis); d < x.rank(); ++d) stats[d] = Dim::Known(1);
  }
  ctx.set_output(1, stash_type, stats);
  ctx.set_output(2, stash_type, std::move(stats));
  return InferSameAsInput(ctx);
}

// GroupNormalization: scale and bias hold one value per group in opsets 18-20 and one per
// channel from 21.
Status GroupNormalization(InferenceContext& ctx) {
  KILN_RETURN_IF_ERROR(CheckFloatSameType(ctx, 3), "");
  KILN_ASSIGN_OR_RETURN(int64_t groups, PositiveAttr(ctx, "num_groups"));
  KILN_ASSIGN_OR_RETURN(Dim c, ChannelDim(ctx, 2));
  if (c.known() && c.value % groups != 0) {
    return ctx.Fail("X has ", c.value, " channels, not a multiple of num_groups ", groups);
  }
  Dim per = ctx.opset() >= 21 ? c : Dim::Known(groups);
  KILN_RETURN_IF_ERROR(CheckShape(ctx, 1, "scale", {per}), "");
  KILN_RETURN_IF_ERROR(CheckShape(ctx, 2, "bias", {per}), "");
  return InferSameAsInput(ctx);
}

Status Lrn(InferenceContext& ctx) {
  KILN_RETURN_IF_ERROR(CheckFloatInput(ctx, 0, "X"), "");
  KILN_RETURN_IF_ERROR(PositiveAttr(ctx, "size").status(), "");
  KILN_RETURN_IF_ERROR(CheckRankAtLeast(ctx, 0, 3, "N x C x spatial dims"), "");
  return InferSameAsInput(ctx);
}

Status MeanVarianceNormalization(InferenceContext& ctx) {
  KILN_RETURN_IF_ERROR(CheckFloatInput(ctx, 0, "X"), "");
  const Shape& x = ctx.input_shape(0);
  std::vector<int64_t> axes = ctx.attr_ints("axes", {0, 2, 3});
  for (int64_t a : axes) {
    if (x.rank_known() && !NormalizeAxis(a, static_cast<int64_t>(x.rank()))) {
      return ctx.Fail("attribute 'axes' = ", IntsStr(axes), " is out of range for X ",
                      x.ToString());
    }
  }
  return InferSameAsInput(ctx);
}

// RMSNormalization (opset 23): Y has X's shape and scale's type (the spec's V); the statistics
// run over the dims from `axis` on.
Status RmsNormalization(InferenceContext& ctx) {
  KILN_RETURN_IF_ERROR(CheckFloatInput(ctx, 0, "X"), "");
  KILN_RETURN_IF_ERROR(CheckFloatInput(ctx, 1, "scale"), "");
  int64_t stash = ctx.attr_int("stash_type", 1);
  if (!IsFloat(FromOnnx(static_cast<int32_t>(stash)))) {
    return ctx.Fail("attribute 'stash_type' = ", stash, " is not a floating-point type");
  }
  const Shape& x = ctx.input_shape(0);
  if (!BroadcastsTo(ctx.input_shape(1), x)) {
    return ctx.Fail("scale has shape ", ctx.input_shape(1).ToString(),
                    ", which does not broadcast to X ", x.ToString());
  }
  if (x.rank_known()) {
    KILN_RETURN_IF_ERROR(AxisAttr(ctx, -1, static_cast<int64_t>(x.rank())).status(), "");
  }
  ctx.set_output(0, ctx.input_dtype(1), x);
  return Status::Ok();
}

// LpNormalization: x / ||x||_p along `axis`, p = 1 or 2.
Status LpNormalization(InferenceContext& ctx) {
  KILN_RETURN_IF_ERROR(CheckFloatInput(ctx, 0, "input"), "");
  int64_t p = ctx.attr_int("p", 2);
  if (p != 1 && p != 2) return ctx.Fail("attribute 'p' must be 1 or 2, got ", p);
  const Shape& x = ctx.input_shape(0);
  if (x.rank_known()) {
    KILN_RETURN_IF_ERROR(AxisAttr(ctx, -1, static_cast<int64_t>(x.rank())).status(), "");
  }
  return InferSameAsInput(ctx);
}

// NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss: input [N, C, d...], labels [N, d...]
// (int32/int64), optional weight [C]. The loss has the labels' shape under reduction "none"
// and is a scalar otherwise; SoftmaxCrossEntropyLoss's optional output 1 is the
// log-probabilities, shaped like the input.
Status Loss(InferenceContext& ctx) {
  KILN_RETURN_IF_ERROR(CheckFloatInput(ctx, 0, "input 0"), "");
  KILN_RETURN_IF_ERROR(CheckTypeOfInput0(ctx, 2, "input 2 (weight)"), "");
  DataType label_type = ctx.input_dtype(1);
  if (label_type != DataType::kInt32 && label_type != DataType::kInt64) {
    return ctx.Fail("the labels are ", Name(label_type), "; int32 or int64 is required");
  }
  std::string reduction = ctx.attr_string("reduction", "mean");
  if (reduction != "none" && reduction != "sum" && reduction != "mean") {
    return ctx.Fail("attribute 'reduction' must be none, sum or mean, got \"", reduction, "\"");
  }
  KILN_RETURN_IF_ERROR(CheckRankAtLeast(ctx, 0, 2, "N x C x ..."), "");
  const Shape& x = ctx.input_shape(0);
  Shape loss;  // the per-sample loss: [N, d...]
  if (x.rank_known()) {
    std::vector<Dim> want = x.dims();
    want.erase(want.begin() + 1);
    KILN_RETURN_IF_ERROR(CheckShape(ctx, 1, "input 1 (labels)", want), "");
    KILN_RETURN_IF_ERROR(CheckShape(ctx, 2, "input 2 (weight)", {x[1]}), "");
    loss = Shape(std::move(want));
  } else {
    loss = ctx.input_shape(1);
  }
  DataType t = ctx.input_dtype(0);
  ctx.set_output(0, t, reduction == "none" ? std::move(loss) : Shape::Scalar());
  if (ctx.num_outputs() > 1) ctx.set_output(1, t, x);
  return Status::Ok();
}

// Softmax, LogSoftmax, Hardmax: the default axis is 1 before opset 13 and -1 from 13 (the
// meaning changed from "flatten at axis" to "along axis"; the shape is the input's either way).
Status SoftmaxFamily(InferenceContext& ctx) {
  KILN_RETURN_IF_ERROR(CheckFloatInput(ctx, 0, "input"), "");
  const Shape& x = ctx.input_shape(0);
  if (x.rank_known()) {
    KILN_RETURN_IF_ERROR(
        AxisAttr(ctx, ctx.opset() >= 13 ? -1 : 1, static_cast<int64_t>(x.rank())).status(), "");
  }
  return InferSameAsInput(ctx);
}

// ---------------------------------------------------------------------------------------------
// Matrix products and Flatten.

// numpy.matmul: 1-D operands are promoted to matrices and the added dim dropped afterwards;
// batch dims broadcast.
Result<Shape> MatMulShape(InferenceContext& ctx, const Shape& a, const Shape& b) {
  if (!a.rank_known() || !b.rank_known()) return Shape();
  if (a.rank() == 0 || b.rank() == 0) {
    return ctx.Fail("inputs must have rank >= 1, got ", a.ToString(), " and ", b.ToString());
  }
  std::vector<Dim> ad = a.dims(), bd = b.dims();
  if (a.rank() == 1) ad.insert(ad.begin(), Dim::Known(1));
  if (b.rank() == 1) bd.push_back(Dim::Known(1));
  const Dim &ka = ad.back(), &kb = bd[bd.size() - 2];
  if (ka.known() && kb.known() && ka.value != kb.value) {
    return ctx.Fail("A ", a.ToString(), " and B ", b.ToString(), " disagree on the inner dim (",
                    ka.value, " vs ", kb.value, ")");
  }
  Shape a_batch(std::vector<Dim>(ad.begin(), ad.end() - 2));
  Shape b_batch(std::vector<Dim>(bd.begin(), bd.end() - 2));
  std::optional<Shape> batch = Broadcast(a_batch, b_batch);
  if (!batch) {
    return ctx.Fail("the batch dims of A ", a.ToString(), " and B ", b.ToString(),
                    " cannot be broadcast together");
  }
  std::vector<Dim> out = batch->dims();
  if (a.rank() > 1) out.push_back(ad[ad.size() - 2]);
  if (b.rank() > 1) out.push_back(bd.back());
  return Shape(std::move(out));
}

Status MatMul(InferenceContext& ctx) {
  KILN_RETURN_IF_ERROR(CheckNumericSameType(ctx, 2, 9), "");
  KILN_ASSIGN_OR_RETURN(Shape shape, MatMulShape(ctx, ctx.input_shape(0), ctx.input_shape(1)));
  ctx.set_output(0, ctx.input_dtype(0), std::move(shape));
  return Status::Ok();
}

// Gemm: op(A) [M, K] x op(B) [K, N] (+ C, unidirectionally broadcast to [M, N]).
Status Gemm(InferenceContext& ctx) {
  if (ctx.opset() < 11 && !ctx.has_input(2)) return ctx.Fail("input C is required before opset 11");
  KILN_RETURN_IF_ERROR(CheckNumericSameType(ctx, 3, 9), "");
  KILN_ASSIGN_OR_RETURN(std::vector<Dim> a, DimsOfRank(ctx, 0, "A", 2));
  KILN_ASSIGN_OR_RETURN(std::vector<Dim> b, DimsOfRank(ctx, 1, "B", 2));
  size_t ta = ctx.attr_int("transA", 0) != 0, tb = ctx.attr_int("transB", 0) != 0;
  const Dim &ka = a[1 - ta], &kb = b[tb];
  if (ka.known() && kb.known() && ka.value != kb.value) {
    return ctx.Fail("A ", Shape(a).ToString(), " (transA=", ta, ") and B ", Shape(b).ToString(),
                    " (transB=", tb, ") disagree on K (", ka.value, " vs ", kb.value, ")");
  }
  Shape out(std::vector<Dim>{a[ta], b[1 - tb]});
  if (ctx.has_input(2) && !BroadcastsTo(ctx.input_shape(2), out)) {
    return ctx.Fail("C has shape ", ctx.input_shape(2).ToString(),
                    ", which does not broadcast to [M,N] = ", out.ToString());
  }
  ctx.set_output(0, ctx.input_dtype(0), std::move(out));
  return Status::Ok();
}

// Flatten: [prod(dims before axis), prod(dims from axis)]. Negative axes from opset 11; only
// floats before opset 9.
Status Flatten(InferenceContext& ctx) {
  if (ctx.opset() < 9) KILN_RETURN_IF_ERROR(CheckFloatInput(ctx, 0, "input"), "");
  const Shape& x = ctx.input_shape(0);
  int64_t axis = ctx.attr_int("axis", 1);
  if (!x.rank_known()) {
    Dim outer = axis == 0 ? Dim::Known(1) : Dim::Unknown();
    ctx.set_output(0, ctx.input_dtype(0), Shape(std::vector<Dim>{outer, Dim::Unknown()}));
    return Status::Ok();
  }
  int64_t rank = static_cast<int64_t>(x.rank());
  int64_t lowest = ctx.opset() >= 11 ? -rank : 0;
  if (axis < lowest || axis > rank) {
    return ctx.Fail("attribute 'axis' = ", axis, " is out of range [", lowest, ", ", rank,
                    "] for input ", x.ToString());
  }
  size_t split = static_cast<size_t>(axis < 0 ? axis + rank : axis);
  Shape out(
      std::vector<Dim>{DimProduct(x.dims(), 0, split), DimProduct(x.dims(), split, x.rank())});
  ctx.set_output(0, ctx.input_dtype(0), std::move(out));
  return Status::Ok();
}

// ---------------------------------------------------------------------------------------------
// Einsum.

// One term of an einsum equation: its labels and where "..." sits among them (-1: absent).
struct EinsumTerm {
  std::string labels;
  int ellipsis = -1;
};

struct EinsumEquation {
  std::vector<EinsumTerm> inputs;
  std::optional<EinsumTerm> output;  // nullopt: implicit output
};

// What the inputs say about each label's size and the broadcast "..." dims.
struct EinsumDims {
  std::map<char, Dim> labels;
  std::optional<Shape> ellipsis;  // nullopt when no input has "..."
};

Result<EinsumTerm> ParseEinsumTerm(InferenceContext& ctx, std::string_view text) {
  EinsumTerm term;
  for (size_t i = 0; i < text.size(); ++i) {
    if (std::isalpha(static_cast<unsigned char>(text[i]))) {
      term.labels += text[i];
    } else if (text.substr(i, 3) == "..." && term.ellipsis < 0) {
      term.ellipsis = static_cast<int>(term.labels.size());
      i += 2;
    } else {
      return ctx.Fail("einsum term \"", text, "\" has an unexpected '", text[i], "'");
    }
  }
  return term;
}

Result<EinsumEquation> ParseEinsum(InferenceContext& ctx, std::string eq) {
  eq.erase(std::remove_if(eq.begin(), eq.end(), [](unsigned char c) { return std::isspace(c); }),
           eq.end());
  EinsumEquation e;
  size_t arrow = eq.find("->");
  std::string_view lhs = std::string_view(eq).substr(0, arrow);
  while (true) {
    size_t comma = lhs.find(',');
    KILN_ASSIGN_OR_RETURN(EinsumTerm term, ParseEinsumTerm(ctx, lhs.substr(0, comma)));
    e.inputs.push_back(std::move(term));
    if (comma == std::string_view::npos) break;
    lhs.remove_prefix(comma + 1);
  }
  if (arrow != std::string::npos) {
    KILN_ASSIGN_OR_RETURN(e.output, ParseEinsumTerm(ctx, std::string_view(eq).substr(arrow + 2)));
  }
  return e;
}

// Binds a dim to `label`; repeated labels must agree (a size of 1 broadcasts).
Status BindEinsumLabel(InferenceContext& ctx, char label, const Dim& dim, EinsumDims& dims) {
  auto [it, inserted] = dims.labels.try_emplace(label, dim);
  if (inserted) return Status::Ok();
  std::optional<Shape> b =
      Broadcast(Shape(std::vector<Dim>{it->second}), Shape(std::vector<Dim>{dim}));
  if (!b) {
    return ctx.Fail("einsum label '", label, "' has sizes ", it->second.value, " and ", dim.value);
  }
  it->second = (*b)[0];
  return Status::Ok();
}

// Binds input i's dims to the labels and "..." of `term`.
Status BindEinsumInput(InferenceContext& ctx, size_t i, const EinsumTerm& term, EinsumDims& dims) {
  const Shape& s = ctx.input_shape(i);
  size_t n = term.labels.size();
  bool has_ellipsis = term.ellipsis >= 0;
  if (!s.rank_known()) {
    for (char c : term.labels) dims.labels.try_emplace(c);
    if (has_ellipsis) dims.ellipsis = Shape();
    return Status::Ok();
  }
  if (has_ellipsis ? s.rank() < n : s.rank() != n) {
    return ctx.Fail("einsum operand ", i, " has shape ", s.ToString(), " but its term has ", n,
                    " labels", has_ellipsis ? " and \"...\"" : "");
  }
  size_t num_ellipsis = s.rank() - n;
  for (size_t j = 0; j < n; ++j) {
    size_t pos = has_ellipsis && j >= static_cast<size_t>(term.ellipsis) ? j + num_ellipsis : j;
    KILN_RETURN_IF_ERROR(BindEinsumLabel(ctx, term.labels[j], s[pos], dims), "");
  }
  if (!has_ellipsis) return Status::Ok();
  auto first = s.dims().begin() + term.ellipsis;
  Shape mine(std::vector<Dim>(first, first + static_cast<int64_t>(num_ellipsis)));
  std::optional<Shape> b = dims.ellipsis ? Broadcast(*dims.ellipsis, mine) : mine;
  if (!b) {
    return ctx.Fail("the \"...\" dims of einsum operand ", i, " ", mine.ToString(),
                    " do not broadcast with ", dims.ellipsis->ToString());
  }
  dims.ellipsis = std::move(b);
  return Status::Ok();
}

// The implicit output: "..." first, then the labels used exactly once, in alphabetical order.
EinsumTerm ImplicitEinsumOutput(const EinsumEquation& e, const EinsumDims& dims) {
  std::map<char, int> uses;
  for (const EinsumTerm& t : e.inputs) {
    for (char c : t.labels) ++uses[c];
  }
  EinsumTerm out;
  for (auto [c, n] : uses) {
    if (n == 1) out.labels += c;
  }
  if (dims.ellipsis) out.ellipsis = 0;
  return out;
}

Result<Shape> EinsumOutput(InferenceContext& ctx, const EinsumTerm& out, const EinsumDims& dims) {
  for (size_t j = 0; j < out.labels.size(); ++j) {
    char c = out.labels[j];
    if (!dims.labels.count(c)) {
      return ctx.Fail("einsum output label '", c, "' does not appear in any input");
    }
    if (out.labels.find(c) != j) return ctx.Fail("einsum output label '", c, "' repeats");
  }
  bool with_ellipsis = out.ellipsis >= 0 && dims.ellipsis;
  if (with_ellipsis && !dims.ellipsis->rank_known()) return Shape();
  std::vector<Dim> result;
  for (size_t j = 0; j <= out.labels.size(); ++j) {
    if (with_ellipsis && j == static_cast<size_t>(out.ellipsis)) {
      result.insert(result.end(), dims.ellipsis->dims().begin(), dims.ellipsis->dims().end());
    }
    if (j < out.labels.size()) result.push_back(dims.labels.at(out.labels[j]));
  }
  return Shape(std::move(result));
}

Status Einsum(InferenceContext& ctx) {
  if (!ctx.has_attr("equation")) return ctx.Fail("attribute 'equation' is required");
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    if (!ctx.has_input(i)) return ctx.Fail("einsum operand ", i, " is missing");
  }
  KILN_RETURN_IF_ERROR(CheckNumericSameType(ctx, ctx.num_inputs(), 12), "");
  std::string eq = ctx.attr_string("equation", "");
  KILN_ASSIGN_OR_RETURN(EinsumEquation e, ParseEinsum(ctx, eq));
  if (e.inputs.size() != ctx.num_inputs()) {
    return ctx.Fail("equation \"", eq, "\" has ", e.inputs.size(),
                    " operand terms but the node has ", ctx.num_inputs(), " inputs");
  }
  EinsumDims dims;
  for (size_t i = 0; i < e.inputs.size(); ++i) {
    KILN_RETURN_IF_ERROR(BindEinsumInput(ctx, i, e.inputs[i], dims), "");
  }
  EinsumTerm out = e.output ? *e.output : ImplicitEinsumOutput(e, dims);
  KILN_ASSIGN_OR_RETURN(Shape shape, EinsumOutput(ctx, out, dims));
  ctx.set_output(0, ctx.input_dtype(0), std::move(shape));
  return Status::Ok();
}

// ---------------------------------------------------------------------------------------------
// Recurrent ops. Inputs: X, W, R, B, sequence_lens, initial_h (+ initial_c, P for LSTM).

Result<int64_t> NumDirections(InferenceContext& ctx) {
  std::string dir = ctx.attr_string("direction", "forward");
  if (dir == "forward" || dir == "reverse") return 1;
  if (dir == "bidirectional") return 2;
  return ctx.Fail("attribute 'direction' must be forward, reverse or bidirectional, got \"", dir,
                  "\"");
}

// hidden_size, else R's last dim, else W's middle dim / gates.
Result<Dim> HiddenSize(InferenceContext& ctx, int64_t gates) {
  if (ctx.has_attr("hidden_size")) {
    KILN_ASSIGN_OR_RETURN(int64_t h, PositiveAttr(ctx, "hidden_size"));
    return Dim::Known(h);
  }
  const Shape &w = ctx.input_shape(1), &r = ctx.input_shape(2);
  if (r.rank_known() && r.rank() == 3) return r[2];
  if (w.rank_known() && w.rank() == 3 && w[1].known()) return Dim::Known(w[1].value / gates);
  return Dim::Unknown();
}

Status CheckRecurrentTypes(InferenceContext& ctx) {
  KILN_RETURN_IF_ERROR(CheckFloatInput(ctx, 0, "X"), "");
  const char* names[] = {"X", "W", "R", "B", "sequence_lens", "initial_h", "initial_c", "P"};
  for (size_t i = 1; i < ctx.num_inputs(); ++i) {
    if (i != 4) KILN_RETURN_IF_ERROR(CheckTypeOfInput0(ctx, i, names[i]), "");
  }
  if (ctx.has_input(4) && ctx.input_dtype(4) != DataType::kInt32) {
    return ctx.Fail("sequence_lens is ", Name(ctx.input_dtype(4)), "; int32 is required");
  }
  return Status::Ok();
}

// RNN, GRU and LSTM, with `gates` 1, 3 or 4. Layout 0: X [seq, batch, input], Y [seq, dirs,
// batch, hidden], states [dirs, batch, hidden]; layout 1 (opset 14+) puts batch first.
Status Recurrent(InferenceContext& ctx, int64_t gates) {
  KILN_RETURN_IF_ERROR(CheckRecurrentTypes(ctx), "");
  KILN_ASSIGN_OR_RETURN(int64_t num_dirs, NumDirections(ctx));
  bool layout = false;
  if (ctx.opset() >= 14) {
    KILN_ASSIGN_OR_RETURN(layout, FlagAttr(ctx, "layout"));
  }
  KILN_ASSIGN_OR_RETURN(std::vector<Dim> x, DimsOfRank(ctx, 0, "X", 3));
  const Dim &seq = x[layout], &batch = x[!layout], &input = x[2];
  KILN_ASSIGN_OR_RETURN(Dim hidden, HiddenSize(ctx, gates));
  Dim dirs = Dim::Known(num_dirs);
  std::vector<Dim> state =
      layout ? std::vector<Dim>{batch, dirs, hidden} : std::vector<Dim>{dirs, batch, hidden};
  KILN_RETURN_IF_ERROR(CheckShape(ctx, 1, "W", {dirs, Scaled(hidden, gates), input}), "");
  KILN_RETURN_IF_ERROR(CheckShape(ctx, 2, "R", {dirs, Scaled(hidden, gates), hidden}), "");
  KILN_RETURN_IF_ERROR(CheckShape(ctx, 3, "B", {dirs, Scaled(hidden, 2 * gates)}), "");
  KILN_RETURN_IF_ERROR(CheckShape(ctx, 4, "sequence_lens", {batch}), "");
  KILN_RETURN_IF_ERROR(CheckShape(ctx, 5, "initial_h", state), "");
  KILN_RETURN_IF_ERROR(CheckShape(ctx, 6, "initial_c", state), "");
  KILN_RETURN_IF_ERROR(CheckShape(ctx, 7, "P", {dirs, Scaled(hidden, 3)}), "");
  Shape y(layout ? std::vector<Dim>{batch, seq, dirs, hidden}
                 : std::vector<Dim>{seq, dirs, batch, hidden});
  DataType t = ctx.input_dtype(0);
  ctx.set_output(0, t, std::move(y));
  ctx.set_output(1, t, Shape(state));
  ctx.set_output(2, t, Shape(state));
  return Status::Ok();
}

Status Rnn(InferenceContext& ctx) { return Recurrent(ctx, 1); }
Status Gru(InferenceContext& ctx) { return Recurrent(ctx, 3); }
Status Lstm(InferenceContext& ctx) { return Recurrent(ctx, 4); }

}  // namespace

void RegisterNnOps(OpRegistry& r) {
  constexpr const char* kFamily = "nn";
  r.Register(MakeSchema("Conv", 1, 2, 3, 1, 1, kFamily, Conv));
  r.Register(MakeSchema("ConvTranspose", 1, 2, 3, 1, 1, kFamily, ConvTranspose));
  r.Register(MakeSchema("MaxPool", 1, 1, 1, 1, 2, kFamily, MaxPool));
  r.Register(MakeSchema("AveragePool", 1, 1, 1, 1, 1, kFamily, AveragePool));
  // LpPool-1 took p as a float; from 2 it is an int.
  r.Register(MakeSchema("LpPool", 2, 1, 1, 1, 1, kFamily, LpPool));
  r.Register(MakeSchema("GlobalAveragePool", 1, 1, 1, 1, 1, kFamily, GlobalPool));
  r.Register(MakeSchema("GlobalMaxPool", 1, 1, 1, 1, 1, kFamily, GlobalPool));
  r.Register(MakeSchema("GlobalLpPool", 2, 1, 1, 1, 1, kFamily, GlobalPool));
  // Up to 5 outputs before opset 14 and 3 after; the extra ones only in opset 14+ training mode.
  r.Register(MakeSchema("BatchNormalization", 7, 5, 5, 1, 5, kFamily, BatchNormalization));
  r.Register(MakeSchema("InstanceNormalization", 6, 3, 3, 1, 1, kFamily, InstanceNormalization));
  r.Register(MakeSchema("LayerNormalization", 17, 2, 3, 1, 3, kFamily, LayerNormalization));
  r.Register(MakeSchema("GroupNormalization", 18, 3, 3, 1, 1, kFamily, GroupNormalization));
  r.Register(MakeSchema("LRN", 1, 1, 1, 1, 1, kFamily, Lrn));
  r.Register(
      MakeSchema("MeanVarianceNormalization", 9, 1, 1, 1, 1, kFamily, MeanVarianceNormalization));
  r.Register(MakeSchema("RMSNormalization", 23, 2, 2, 1, 1, kFamily, RmsNormalization));
  r.Register(MakeSchema("LpNormalization", 1, 1, 1, 1, 1, kFamily, LpNormalization));
  r.Register(MakeSchema("NegativeLogLikelihoodLoss", 12, 2, 3, 1, 1, kFamily, Loss));
  r.Register(MakeSchema("SoftmaxCrossEntropyLoss", 12, 2, 3, 1, 2, kFamily, Loss));
  for (const char* op : {"Softmax", "LogSoftmax", "Hardmax"}) {
    r.Register(MakeSchema(op, 1, 1, 1, 1, 1, kFamily, SoftmaxFamily));
  }
  r.Register(MakeSchema("MatMul", 1, 2, 2, 1, 1, kFamily, MatMul));
  r.Register(MakeSchema("Gemm", 7, 2, 3, 1, 1, kFamily, Gemm));
  r.Register(MakeSchema("Flatten", 1, 1, 1, 1, 1, kFamily, Flatten).Traits(kTraitInPlace));
  r.Register(MakeSchema("Einsum", 12, 1, -1, 1, 1, kFamily, Einsum));
  r.Register(MakeSchema("RNN", 7, 3, 6, 0, 2, kFamily, Rnn));
  r.Register(MakeSchema("GRU", 7, 3, 6, 0, 2, kFamily, Gru));
  r.Register(MakeSchema("LSTM", 7, 3, 8, 0, 3, kFamily, Lstm));
}

}  // namespace kiln::ir
