// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Attribute parsing shared by the reference and the optimised kernels (see attrs.h).
#include "kernels/attrs.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <string>
#include <utility>

#include "kernels/reference/common.h"
#include "kernels/util.h"

namespace kiln::kernels {

ConvAttrs ReadConvAttrs(const NodeDef& def) {
  return {ir::ReadWindowAttrs(def.attrs, def.op_type, def.opset), def.attr_int("group")};
}

PoolAttrs ReadPoolAttrs(const NodeDef& def, PoolKind kind) {
  PoolAttrs a;
  a.kind = kind;
  a.window = ir::ReadWindowAttrs(def.attrs, def.op_type, def.opset);
  if (kind == PoolKind::kAverage) a.count_include_pad = def.attr_int("count_include_pad") == 1;
  if (kind == PoolKind::kMax) a.column_major_indices = def.attr_int("storage_order") == 1;
  if (kind == PoolKind::kLp) a.p = def.attr_int("p");
  return a;
}

Result<ActivationAttrs> ReadActivation(const NodeDef& def) {
  using Kind = ActivationKind;
  const std::string name = def.attr_string("activation");
  // An absent parameter takes the ONNX activation's default.
  auto param = [&](const char* attr, float dflt) {
    return def.has_attr(attr) ? def.attr_float(attr) : dflt;
  };
  ActivationAttrs a;
  if (name.empty()) {
    a.kind = Kind::kNone;
  } else if (name == "Relu") {
    a.kind = Kind::kRelu;
  } else if (name == "LeakyRelu") {
    a = {Kind::kLeakyRelu, param("activation_alpha", 0.01f), 0};
  } else if (name == "Clip") {
    a = {Kind::kClip, param("activation_alpha", std::numeric_limits<float>::lowest()),
         param("activation_beta", std::numeric_limits<float>::max())};
  } else if (name == "Sigmoid") {
    a.kind = Kind::kSigmoid;
  } else if (name == "Tanh") {
    a.kind = Kind::kTanh;
  } else if (name == "HardSigmoid") {
    a = {Kind::kHardSigmoid, param("activation_alpha", 0.2f), param("activation_beta", 0.5f)};
  } else if (name == "HardSwish") {
    a.kind = Kind::kHardSwish;
  } else if (name == "Gelu") {
    a.kind = Kind::kGelu;
  } else if (name == "Swish") {
    a = {Kind::kSwish, param("activation_alpha", 1.0f), 0};
  } else {
    return def.Fail(code::kFeatureUnsupported, "activation '", name, "' is not supported");
  }
  return a;
}

GroupNormAttrs ReadGroupNormAttrs(const NodeDef& def) {
  return {def.attr_int("num_groups"), def.attr_float("epsilon"), def.opset >= 21};
}

Result<SliceWindow> ResolveSlice(const NodeDef& def, KernelContext& ctx, const Dims& x_dims) {
  std::vector<int64_t> starts, ends, steps;
  std::optional<std::vector<int64_t>> axes;
  if (def.opset < 10) {
    starts = def.attr_ints("starts");
    ends = def.attr_ints("ends");
    if (def.has_attr("axes")) axes = def.attr_ints("axes");
  } else {
    KILN_ASSIGN_OR_RETURN(const TensorView* s, RequiredInput(def, ctx, 1));
    KILN_ASSIGN_OR_RETURN(const TensorView* e, RequiredInput(def, ctx, 2));
    starts = ReadInts(*s);
    ends = ReadInts(*e);
    if (ctx.input(3) != nullptr) axes = ReadInts(*ctx.input(3));
    if (ctx.input(4) != nullptr) steps = ReadInts(*ctx.input(4));
  }
  const size_t n = starts.size();
  if (!axes) {
    axes.emplace();
    for (size_t i = 0; i < n; ++i) axes->push_back(static_cast<int64_t>(i));
  }
  if (steps.empty() && (def.opset < 10 || ctx.input(4) == nullptr)) steps.assign(n, 1);
  if (ends.size() != n || axes->size() != n || steps.size() != n) {
    return def.Fail(code::kInvalidParam, "starts ", DimsString(starts), ", ends ", DimsString(ends),
                    ", axes ", DimsString(*axes), " and steps ", DimsString(steps),
                    " must have the same length");
  }
  KILN_ASSIGN_OR_RETURN(std::vector<int64_t> norm,
                        CheckedAxes(def, *axes, static_cast<int64_t>(x_dims.size())));
  Dims dims = x_dims, first(x_dims.size(), 0), step(x_dims.size(), 1);
  for (size_t k = 0; k < n; ++k) {
    const size_t a = static_cast<size_t>(norm[k]);
    const int64_t dim = x_dims[a], st = steps[k];
    if (st == 0) return def.Fail(code::kInvalidParam, "steps ", DimsString(steps), " has a 0");
    int64_t b = starts[k], e = ends[k];
    if (b < 0) b += dim;
    if (e < 0) e += dim;
    if (st > 0) {
      b = std::clamp<int64_t>(b, 0, dim);
      e = std::clamp<int64_t>(e, 0, dim);
      dims[a] = e > b ? (e - b - 1) / st + 1 : 0;
    } else {
      b = std::clamp<int64_t>(b, 0, std::max<int64_t>(dim - 1, 0));
      e = std::clamp<int64_t>(e, -1, dim - 1);
      const uint64_t mag = 0 - static_cast<uint64_t>(st);
      dims[a] =
          dim > 0 && b > e ? static_cast<int64_t>(static_cast<uint64_t>(b - e - 1) / mag) + 1 : 0;
    }
    first[a] = b;
    step[a] = st;
  }
  return SliceWindow{std::move(dims), std::move(first), std::move(step)};
}

Result<PadWindow> ResolvePad(const NodeDef& def, KernelContext& ctx, const TensorView& x) {
  const int64_t r = static_cast<int64_t>(x.rank());
  const size_t es = ElemSize(x);
  std::vector<int64_t> pads;
  std::vector<uint8_t> fill(es, 0);
  std::vector<int64_t> axes;
  for (int64_t i = 0; i < r; ++i) axes.push_back(i);
  if (def.opset < 11) {
    pads = def.attr_ints("pads", def.attr_ints("paddings"));
    StoreDouble(TensorView{x.dtype, {1}, fill.data()}, 0, def.attr_float("value", 0));
  } else {
    KILN_ASSIGN_OR_RETURN(const TensorView* p, RequiredInput(def, ctx, 1));
    pads = ReadInts(*p);
    if (const TensorView* c = ctx.input(2); !Omitted(c)) {
      if (c->dtype != x.dtype)
        return def.Fail(code::kInvalidParam, "constant_value differs in type from data");
      std::memcpy(fill.data(), c->data, es);
    }
    if (const TensorView* a = ctx.input(3); def.opset >= 18 && a != nullptr) {
      KILN_ASSIGN_OR_RETURN(axes, CheckedAxes(def, ReadInts(*a), r));
    }
  }
  const size_t na = axes.size();
  if (pads.size() != 2 * na) {
    return def.Fail(code::kInvalidParam, "pads ", DimsString(pads), " must have ", 2 * na,
                    " entries for input ", DimsString(x.dims));
  }
  const std::string mode = def.attr_string("mode", "constant");
  Dims dims = x.dims;
  // Per padded axis: negative pads crop first, to [lo, lo + len); pb elements go before it.
  std::vector<int64_t> lo(na), len(na), pb(na);
  for (size_t k = 0; k < na; ++k) {
    const size_t a = static_cast<size_t>(axes[k]);
    const int64_t dim = x.dims[a], b = pads[k], e = pads[k + na];
    int64_t out_dim = 0;
    if (b < -dim || e < -dim || b + e < -dim ||
        __builtin_add_overflow(dim, std::max<int64_t>(b, 0), &out_dim) ||
        __builtin_add_overflow(out_dim, std::max<int64_t>(e, 0), &out_dim)) {
      return def.Fail(code::kInvalidParam, "pads ", DimsString(pads), " do not fit axis ", a,
                      " of ", DimsString(x.dims));
    }
    lo[k] = std::max<int64_t>(-b, 0);
    len[k] = dim - lo[k] - std::max<int64_t>(-e, 0);
    pb[k] = std::max<int64_t>(b, 0);
    dims[a] = pb[k] + len[k] + std::max<int64_t>(e, 0);
    // Reflect, edge and wrap read from what the crop kept: something must be left.
    if (mode != "constant" && len[k] == 0 && dims[a] > 0) {
      return def.Fail(code::kInvalidParam, "cannot ", mode, "-pad the empty axis ", a, " of ",
                      DimsString(x.dims));
    }
  }
  // Per axis, the input position each output position reads (-1: the fill value).
  std::vector<std::vector<int64_t>> map(x.dims.size());
  for (size_t a = 0; a < map.size(); ++a) {
    for (int64_t i = 0; i < x.dims[a]; ++i) map[a].push_back(i);
  }
  for (size_t k = 0; k < na; ++k) {
    const size_t a = static_cast<size_t>(axes[k]);
    const int64_t n = len[k];
    map[a].assign(static_cast<size_t>(dims[a]), -1);
    for (int64_t o = 0; o < dims[a]; ++o) {
      int64_t j = o - pb[k];
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
      map[a][static_cast<size_t>(o)] = lo[k] + j;
    }
  }
  return PadWindow{std::move(dims), std::move(map), std::move(fill)};
}

Result<std::vector<int64_t>> SplitSizes(const NodeDef& def, KernelContext& ctx, int64_t dim) {
  const int64_t n = static_cast<int64_t>(ctx.num_outputs());
  std::optional<std::vector<int64_t>> split;
  if (def.opset >= 13) {
    if (!Omitted(ctx.input(1))) split = ReadInts(*ctx.input(1));
  } else if (def.has_attr("split")) {
    split = def.attr_ints("split");
  }
  if (split) {
    int64_t sum = 0;
    for (int64_t s : *split) {
      if (s < 0 || s > dim) {
        return def.Fail(code::kInvalidParam, "split ", DimsString(*split),
                        " does not fit an axis of ", dim);
      }
      sum += s;
    }
    if (static_cast<int64_t>(split->size()) != n || sum != dim) {
      return def.Fail(code::kInvalidParam, "split ", DimsString(*split),
                      " does not cut an axis of ", dim, " into ", n, " outputs");
    }
    return *split;
  }
  if (n < 1) return def.Fail(code::kInvalidParam, "has no outputs");
  const bool uneven = def.opset >= 18 && def.has_attr("num_outputs");
  if (uneven && def.attr_int("num_outputs", 0) != n) {
    return def.Fail(code::kInvalidParam, "num_outputs is ", def.attr_int("num_outputs", 0),
                    " but the node has ", n, " outputs");
  }
  const int64_t chunk = uneven ? (dim + n - 1) / n : dim / n;
  const int64_t last = dim - chunk * (n - 1);
  if ((!uneven && dim % n != 0) || last < 0) {
    return def.Fail(code::kInvalidParam, "cannot split an axis of ", dim, " into ", n, " outputs");
  }
  std::vector<int64_t> sizes(static_cast<size_t>(n), chunk);
  sizes.back() = last;
  return sizes;
}

Result<Dims> TileDims(const NodeDef& def, const TensorView& repeats, const Dims& x_dims) {
  const std::vector<int64_t> reps = ReadInts(repeats);
  if (reps.size() != x_dims.size()) {
    return def.Fail(code::kInvalidParam, "repeats ", DimsString(reps), " does not fit input ",
                    DimsString(x_dims));
  }
  Dims dims = x_dims;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (reps[i] < 0 || __builtin_mul_overflow(dims[i], reps[i], &dims[i])) {
      return def.Fail(code::kInvalidParam, "repeats ", DimsString(reps), " do not fit input ",
                      DimsString(x_dims));
    }
  }
  return dims;
}

}  // namespace kiln::kernels
