// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Attribute parsing shared by the reference and the optimised kernels (see attrs.h).
#include "kernels/attrs.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <utility>

#include "kernels/reference/common.h"
#include "kernels/util.h"

namespace kiln::kernels {
namespace {

int64_t FloorDiv(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }  // b > 0
int64_t CeilDiv(int64_t a, int64_t b) { return -FloorDiv(-a, b); }                       // b > 0

// Checks the attribute lengths against the input's spatial rank and fills `w`'s stride,
// dilation and (explicit) pads.
Status SizeWindow(const NodeDef& def, const WindowAttrs& a, const Dims& in, Window& w) {
  const size_t r = in.size();
  if (r > kMaxSpatialDims) {
    return def.Fail(code::kFeatureUnsupported, "inputs with ", r, " spatial dims (more than ",
                    kMaxSpatialDims, ") are not supported");
  }
  auto check = [&](const std::vector<int64_t>& v, size_t n, const char* name) -> Status {
    if (v.empty() || v.size() == n) return Status::Ok();
    return def.Fail(code::kInvalidParam, "attribute '", name, "' = ", DimsString(v), " has ",
                    v.size(), " values but the input ", DimsString(in), " needs ", n);
  };
  KILN_RETURN_IF_ERROR(check(a.kernel_shape, r, "kernel_shape"), "");
  KILN_RETURN_IF_ERROR(check(a.strides, r, "strides"), "");
  KILN_RETURN_IF_ERROR(check(a.dilations, r, "dilations"), "");
  KILN_RETURN_IF_ERROR(check(a.pads, 2 * r, "pads"), "");
  w.rank = r;
  w.in = in;
  w.stride = a.strides.empty() ? Dims(r, 1) : a.strides;
  w.dilation = a.dilations.empty() ? Dims(r, 1) : a.dilations;
  w.pad_begin.assign(r, 0);
  w.pad_end.assign(r, 0);
  if (!a.pads.empty()) {
    w.pad_begin.assign(a.pads.begin(), a.pads.begin() + static_cast<ptrdiff_t>(r));
    w.pad_end.assign(a.pads.begin() + static_cast<ptrdiff_t>(r), a.pads.end());
  }
  w.out.assign(r, 0);
  return Status::Ok();
}

}  // namespace

Result<std::vector<int64_t>> IntsAttr(const NodeDef& def, const char* name, int64_t min) {
  std::vector<int64_t> v = def.attr_ints(name);
  for (int64_t x : v) {
    if (x < min) {
      return def.Fail(code::kInvalidParam, "attribute '", name, "' = ", DimsString(v),
                      " has a value < ", min);
    }
  }
  return v;
}

Result<bool> FlagAttr(const NodeDef& def, const char* name) {
  int64_t v = def.attr_int(name, 0);
  if (v != 0 && v != 1) {
    return def.Fail(code::kInvalidParam, "attribute '", name, "' must be 0 or 1, got ", v);
  }
  return v == 1;
}

Result<WindowAttrs> ReadWindowAttrs(const NodeDef& def, WindowFeatures has) {
  WindowAttrs w;
  std::string pad = def.attr_string("auto_pad", "NOTSET");
  if (pad == "NOTSET" || pad.empty()) {
    w.auto_pad = AutoPad::kNotSet;
  } else if (pad == "SAME_UPPER") {
    w.auto_pad = AutoPad::kSameUpper;
  } else if (pad == "SAME_LOWER") {
    w.auto_pad = AutoPad::kSameLower;
  } else if (pad == "VALID") {
    w.auto_pad = AutoPad::kValid;
  } else {
    return def.Fail(code::kInvalidParam,
                    "attribute 'auto_pad' must be NOTSET, SAME_UPPER, SAME_LOWER or VALID, got \"",
                    pad, "\"");
  }
  KILN_ASSIGN_OR_RETURN(w.kernel_shape, IntsAttr(def, "kernel_shape", 1));
  KILN_ASSIGN_OR_RETURN(w.strides, IntsAttr(def, "strides", 1));
  if (has.dilations) {
    KILN_ASSIGN_OR_RETURN(w.dilations, IntsAttr(def, "dilations", 1));
  }
  KILN_ASSIGN_OR_RETURN(w.pads, IntsAttr(def, "pads", 0));
  // Exporters sometimes write zero pads next to auto_pad; auto_pad decides.
  if (w.auto_pad != AutoPad::kNotSet) w.pads.clear();
  if (has.ceil_mode) {
    KILN_ASSIGN_OR_RETURN(w.ceil_mode, FlagAttr(def, "ceil_mode"));
  }
  // Every given attribute must agree on the number of spatial dims.
  size_t n = 0;
  for (const auto* v : {&w.kernel_shape, &w.strides, &w.dilations}) {
    if (v->empty()) continue;
    if (n != 0 && v->size() != n) {
      return def.Fail(code::kInvalidParam, "attributes kernel_shape ", DimsString(w.kernel_shape),
                      ", strides ", DimsString(w.strides), " and dilations ",
                      DimsString(w.dilations), " disagree on the number of spatial dims");
    }
    n = v->size();
  }
  if (!w.pads.empty() && (w.pads.size() % 2 != 0 || (n != 0 && w.pads.size() != 2 * n))) {
    return def.Fail(code::kInvalidParam, "attribute 'pads' = ", DimsString(w.pads), " needs ",
                    n != 0 ? std::to_string(2 * n) : std::string("2 x spatial"), " values");
  }
  return w;
}

Result<ConvAttrs> ReadConvAttrs(const NodeDef& def) {
  ConvAttrs a;
  KILN_ASSIGN_OR_RETURN(a.window, ReadWindowAttrs(def, {}));
  a.group = def.attr_int("group", 1);
  if (a.group < 1) {
    return def.Fail(code::kInvalidParam, "attribute 'group' must be >= 1, got ", a.group);
  }
  return a;
}

Result<ConvTransposeAttrs> ReadConvTransposeAttrs(const NodeDef& def) {
  KILN_ASSIGN_OR_RETURN(ConvAttrs conv, ReadConvAttrs(def));
  ConvTransposeAttrs a;
  a.window = std::move(conv.window);
  a.group = conv.group;
  KILN_ASSIGN_OR_RETURN(a.output_padding, IntsAttr(def, "output_padding", 0));
  KILN_ASSIGN_OR_RETURN(a.output_shape, IntsAttr(def, "output_shape", 0));
  return a;
}

Result<PoolAttrs> ReadPoolAttrs(const NodeDef& def, PoolKind kind) {
  PoolAttrs a;
  a.kind = kind;
  WindowFeatures has;
  switch (kind) {
    case PoolKind::kMax:
      has = {def.opset >= 10, def.opset >= 10};
      break;
    case PoolKind::kAverage:
      has = {def.opset >= 19, def.opset >= 10};
      break;
    case PoolKind::kLp:
      has = {def.opset >= 18, def.opset >= 18};
      break;
  }
  KILN_ASSIGN_OR_RETURN(a.window, ReadWindowAttrs(def, has));
  if (a.window.kernel_shape.empty()) {
    return def.Fail(code::kInvalidParam, "attribute 'kernel_shape' is required");
  }
  if (kind == PoolKind::kAverage) {
    KILN_ASSIGN_OR_RETURN(a.count_include_pad, FlagAttr(def, "count_include_pad"));
  }
  if (kind == PoolKind::kMax) {
    KILN_ASSIGN_OR_RETURN(a.column_major_indices, FlagAttr(def, "storage_order"));
  }
  if (kind == PoolKind::kLp) {
    a.p = def.attr_int("p", 2);
    if (a.p < 1) return def.Fail(code::kInvalidParam, "attribute 'p' must be >= 1, got ", a.p);
  }
  return a;
}

Result<Window> ResolveWindow(const NodeDef& def, const WindowAttrs& a, const Dims& in,
                             const Dims& kernel) {
  Window w;
  KILN_RETURN_IF_ERROR(SizeWindow(def, a, in, w), "");
  w.kernel = kernel;
  for (size_t i = 0; i < w.rank; ++i) {
    const int64_t s = w.stride[i];
    const int64_t extent = w.dilation[i] * (kernel[i] - 1) + 1;
    if (a.auto_pad == AutoPad::kSameUpper || a.auto_pad == AutoPad::kSameLower) {
      w.out[i] = CeilDiv(in[i], s);
      int64_t total = std::max<int64_t>(0, (w.out[i] - 1) * s + extent - in[i]);
      int64_t small = total / 2;
      w.pad_begin[i] = a.auto_pad == AutoPad::kSameUpper ? small : total - small;
      w.pad_end[i] = total - w.pad_begin[i];
      continue;
    }
    const int64_t span = in[i] + w.pad_begin[i] + w.pad_end[i] - extent;
    if (span < 0) {
      return def.Fail(code::kInvalidParam, "spatial dim ", i, " of input ", DimsString(in),
                      ": the window extent ", extent, " exceeds the padded input size ",
                      span + extent);
    }
    const bool ceil = a.ceil_mode && a.auto_pad == AutoPad::kNotSet;
    w.out[i] = (ceil ? CeilDiv(span, s) : span / s) + 1;
    // A window that would start in the end padding is dropped.
    if (ceil && (w.out[i] - 1) * s >= in[i] + w.pad_begin[i]) --w.out[i];
  }
  return w;
}

Result<Window> ResolveTransposedWindow(const NodeDef& def, const ConvTransposeAttrs& a,
                                       const Dims& in, const Dims& kernel) {
  Window w;
  KILN_RETURN_IF_ERROR(SizeWindow(def, a.window, in, w), "");
  w.kernel = kernel;
  const size_t r = w.rank;
  if (!a.output_padding.empty() && a.output_padding.size() != r) {
    return def.Fail(code::kInvalidParam,
                    "attribute 'output_padding' = ", DimsString(a.output_padding), " needs ", r,
                    " values");
  }
  std::vector<int64_t> shape = a.output_shape;
  if (shape.size() == r + 2) shape.erase(shape.begin(), shape.begin() + 2);
  if (!shape.empty() && shape.size() != r) {
    return def.Fail(code::kInvalidParam, "attribute 'output_shape' = ", DimsString(a.output_shape),
                    " needs ", r, " spatial sizes");
  }
  const bool same =
      a.window.auto_pad == AutoPad::kSameUpper || a.window.auto_pad == AutoPad::kSameLower;
  for (size_t i = 0; i < r; ++i) {
    const int64_t s = w.stride[i], op = a.output_padding.empty() ? 0 : a.output_padding[i];
    const int64_t full = s * (in[i] - 1) + op + w.dilation[i] * (kernel[i] - 1) + 1;
    if (!shape.empty() || same) {
      // The spec's total padding, split with floor division (a negative total, from an
      // output_shape larger than the full result, leaves positions that only get the bias).
      w.out[i] = !shape.empty() ? shape[i] : in[i] * s;
      const int64_t total = full - w.out[i];
      const int64_t half = FloorDiv(total, 2);
      w.pad_begin[i] = a.window.auto_pad == AutoPad::kSameUpper ? half : total - half;
      w.pad_end[i] = total - w.pad_begin[i];
    } else {
      w.out[i] = full - w.pad_begin[i] - w.pad_end[i];
    }
    if (w.out[i] < 0 || (in[i] > 0 && w.out[i] < 1)) {
      return def.Fail(code::kInvalidParam, "spatial dim ", i, " of X ", DimsString(in),
                      ": the pads leave an output size of ", w.out[i]);
    }
  }
  return w;
}

Result<ActivationAttrs> ReadActivation(const NodeDef& def) {
  using Kind = ActivationKind;
  const std::string name = def.attr_string("activation", "");
  ActivationAttrs a;
  if (name.empty()) {
    a.kind = Kind::kNone;
  } else if (name == "Relu") {
    a.kind = Kind::kRelu;
  } else if (name == "LeakyRelu") {
    a = {Kind::kLeakyRelu, def.attr_float("activation_alpha", 0.01f), 0};
  } else if (name == "Clip") {
    a = {Kind::kClip, def.attr_float("activation_alpha", std::numeric_limits<float>::lowest()),
         def.attr_float("activation_beta", std::numeric_limits<float>::max())};
  } else if (name == "Sigmoid") {
    a.kind = Kind::kSigmoid;
  } else if (name == "Tanh") {
    a.kind = Kind::kTanh;
  } else if (name == "HardSigmoid") {
    a = {Kind::kHardSigmoid, def.attr_float("activation_alpha", 0.2f),
         def.attr_float("activation_beta", 0.5f)};
  } else if (name == "HardSwish") {
    a.kind = Kind::kHardSwish;
  } else if (name == "Gelu") {
    a.kind = Kind::kGelu;
  } else if (name == "Swish") {
    a = {Kind::kSwish, def.attr_float("activation_alpha", 1.0f), 0};
  } else {
    return def.Fail(code::kFeatureUnsupported, "activation '", name, "' is not supported");
  }
  return a;
}

Result<GroupNormAttrs> ReadGroupNormAttrs(const NodeDef& def) {
  GroupNormAttrs a;
  a.groups = def.attr_int("num_groups", 0);
  if (a.groups < 1) {
    return def.Fail(code::kInvalidParam, "attribute 'num_groups' must be given and >= 1, got ",
                    a.groups);
  }
  a.epsilon = def.attr_float("epsilon", 1e-5f);
  a.per_channel = def.opset >= 21;
  return a;
}

Result<SliceWindow> ResolveSlice(const NodeDef& def, KernelContext& ctx, const Dims& x_dims) {
  std::vector<int64_t> starts, steps;
  std::optional<std::vector<int64_t>> axes;
  if (def.opset < 10) {
    starts = def.attr_ints("starts");
    if (def.has_attr("axes")) axes = def.attr_ints("axes");
  } else {
    KILN_ASSIGN_OR_RETURN(const TensorView* s, RequiredInput(def, ctx, 1));
    starts = ReadInts(*s);
    if (ctx.input(3) != nullptr) axes = ReadInts(*ctx.input(3));
    if (ctx.input(4) != nullptr) steps = ReadInts(*ctx.input(4));
  }
  const size_t n = starts.size();
  const int64_t rank = static_cast<int64_t>(x_dims.size());
  if ((axes && axes->size() != n) || (!steps.empty() && steps.size() != n)) {
    return def.Fail(code::kInvalidParam, "starts ", DimsString(starts), ", axes and steps differ ",
                    "in length");
  }
  SliceWindow w{Dims(x_dims.size(), 0), Dims(x_dims.size(), 1)};
  for (size_t k = 0; k < n; ++k) {
    const int64_t axis = axes ? (*axes)[k] : static_cast<int64_t>(k);
    const std::optional<int64_t> a = NormalizeAxis(axis, rank);
    if (!a) return def.Fail(code::kInvalidParam, "axis ", axis, " is out of range");
    const size_t at = static_cast<size_t>(*a);
    const int64_t dim = x_dims[at], st = steps.empty() ? 1 : steps[k];
    int64_t b = starts[k];
    if (b < 0) b += dim;
    // Clamped as ONNX clamps starts; a reversed slice starts at the last element at most.
    w.first[at] = std::clamp<int64_t>(b, 0, st > 0 ? dim : std::max<int64_t>(dim - 1, 0));
    w.step[at] = st;
  }
  return w;
}

Result<PadWindow> ResolvePad(const NodeDef& def, KernelContext& ctx, const TensorView& x,
                             const Dims& out_dims) {
  const int64_t r = static_cast<int64_t>(x.rank());
  const size_t es = ElemSize(x);
  std::vector<int64_t> pads;
  std::vector<uint8_t> fill(es, 0);
  std::vector<int64_t> axes;
  for (int64_t i = 0; i < r; ++i) axes.push_back(i);
  if (def.opset < 11) {
    pads = def.attr_ints("pads");
    StoreDouble(TensorView{x.dtype, {1}, fill.data()}, 0, def.attr_float("value"));
  } else {
    KILN_ASSIGN_OR_RETURN(const TensorView* p, RequiredInput(def, ctx, 1));
    pads = ReadInts(*p);
    if (const TensorView* c = ctx.input(2); !Omitted(c)) std::memcpy(fill.data(), c->data, es);
    if (const TensorView* a = ctx.input(3); def.opset >= 18 && a != nullptr) {
      KILN_ASSIGN_OR_RETURN(axes, CheckedAxes(def, ReadInts(*a), r));
    }
  }
  const size_t na = axes.size();
  if (pads.size() != 2 * na) {
    return def.Fail(code::kInvalidParam, "pads ", DimsString(pads), " must have ", 2 * na,
                    " entries for input ", DimsString(x.dims));
  }
  const std::string mode = def.attr_string("mode");
  // Per axis, the input position each output position reads (-1: the fill value).
  std::vector<std::vector<int64_t>> map(x.dims.size());
  for (size_t a = 0; a < map.size(); ++a) {
    for (int64_t i = 0; i < x.dims[a]; ++i) map[a].push_back(i);
  }
  for (size_t k = 0; k < na; ++k) {
    const size_t a = static_cast<size_t>(axes[k]);
    const int64_t dim = x.dims[a], b = pads[k], e = pads[k + na], out = out_dims[a];
    // Negative pads crop first, to [lo, lo + n); pb elements go before it.
    const int64_t lo = std::max<int64_t>(-b, 0), pb = std::max<int64_t>(b, 0);
    const int64_t n = dim - lo - std::max<int64_t>(-e, 0);
    // Reflect, edge and wrap read from what the crop kept: something must be left.
    if (lo > dim || n < 0 || (mode != "constant" && n == 0 && out > 0)) {
      return def.Fail(code::kInvalidParam, "pads ", DimsString(pads), " do not fit axis ", a,
                      " of ", DimsString(x.dims));
    }
    map[a].assign(static_cast<size_t>(out), -1);
    for (int64_t o = 0; o < out; ++o) {
      int64_t j = o - pb;
      if (j < 0 || j >= n) {
        if (mode == "constant") continue;
        if (mode == "edge") {
          j = std::clamp<int64_t>(j, 0, n - 1);
        } else if (mode == "wrap") {
          j = ((j % n) + n) % n;
        } else if (n == 1) {
          j = 0;
        } else {  // reflect, periodically for pads longer than the axis
          const int64_t period = 2 * (n - 1);
          j = ((j % period) + period) % period;
          if (j >= n) j = period - j;
        }
      }
      map[a][static_cast<size_t>(o)] = lo + j;
    }
  }
  return PadWindow{std::move(map), std::move(fill)};
}

std::vector<int64_t> SplitSizes(const NodeDef& def, KernelContext& ctx, int64_t dim) {
  const int64_t n = static_cast<int64_t>(ctx.num_outputs());
  if (def.opset >= 13 && !Omitted(ctx.input(1))) return ReadInts(*ctx.input(1));
  if (def.opset < 13 && def.has_attr("split")) return def.attr_ints("split");
  if (n < 1) return {};
  const bool uneven = def.opset >= 18 && def.has_attr("num_outputs");
  const int64_t chunk = uneven ? (dim + n - 1) / n : dim / n;
  std::vector<int64_t> sizes(static_cast<size_t>(n), chunk);
  sizes.back() = dim - chunk * (n - 1);
  return sizes;
}

}  // namespace kiln::kernels
