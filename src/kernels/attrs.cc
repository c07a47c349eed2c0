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

#include "base/aipp.h"
#include "base/fp16.h"
#include "ir/op_schema.h"
#include "kernels/reference/common.h"
#include "kernels/util.h"

namespace kiln::kernels {

ConvAttrs ReadConvAttrs(const NodeDef& def) {
  return {ir::ReadWindowAttrs(def.attrs, def.op_type, def.opset), def.attr_int("group")};
}

PoolAttrs ReadPoolAttrs(const NodeDef& def, PoolKind kind) {
  PoolAttrs a;
  a.kind = kind;
  // com.kiln's pools (channels_last's, with layout flags) follow the newest ONNX opset.
  const int opset = def.domain == "com.kiln" ? ir::kNewestOnnxOpset : def.opset;
  a.window = ir::ReadWindowAttrs(def.attrs, def.op_type, opset);
  if (kind == PoolKind::kAverage) a.count_include_pad = def.attr_int("count_include_pad") == 1;
  if (kind == PoolKind::kMax) a.column_major_indices = def.attr_int("storage_order") == 1;
  if (kind == PoolKind::kLp) a.p = def.attr_int("p");
  return a;
}

Result<std::vector<ChainStep>> ReadChainSteps(const NodeDef& def) {
  const std::vector<std::string> ops = def.attr_strings("ops");
  const std::vector<int64_t> swapped =
      def.has_attr("swapped") ? def.attr_ints("swapped") : std::vector<int64_t>();
  std::vector<ChainStep> steps;
  for (size_t i = 0; i < ops.size(); ++i) {
    ChainStep s{ChainStep::kAdd, i < swapped.size() && swapped[i] == 1};
    if (ops[i] == "Sub") {
      s.op = ChainStep::kSub;
    } else if (ops[i] == "Mul") {
      s.op = ChainStep::kMul;
    } else if (ops[i] == "Div") {
      s.op = ChainStep::kDiv;
    } else if (ops[i] != "Add") {
      return def.Fail(code::kFeatureUnsupported, "step '", ops[i], "' is not supported");
    }
    steps.push_back(s);
  }
  return steps;
}

Result<AippAttrs> ReadAippAttrs(const NodeDef& def) {
  AippAttrs a;
  const std::string format = def.attr_string("input_format");
  a.info = aipp::FindFormat(format);
  if (a.info == nullptr) {
    return def.Fail(code::kFeatureUnsupported, "input_format '", format, "' is not supported");
  }
  a.format = static_cast<AippAttrs::Format>(a.info->acl_format);
  auto ints = [&](const char* name, size_t count) {
    std::vector<int64_t> v = def.has_attr(name) ? def.attr_ints(name) : std::vector<int64_t>();
    return v.size() == count ? v : std::vector<int64_t>();
  };
  const std::vector<int64_t> src = ints("src_image_size", 2);
  if (src.empty()) return def.Fail(code::kInvalidParam, "src_image_size needs 2 values");
  a.win = {src[0], src[1], 0, 0, src[0], src[1]};
  if (const auto c = ints("crop", 4); !c.empty()) {
    a.win.x = c[0];
    a.win.y = c[1];
    a.win.w = c[2];
    a.win.h = c[3];
  }
  if (const auto p = ints("padding", 4); !p.empty()) {
    a.win.top = p[0];
    a.win.bottom = p[1];
    a.win.left = p[2];
    a.win.right = p[3];
  }
  a.padding_value = def.attr_float("padding_value");
  const auto m = ints("csc_matrix", 9), ib = ints("csc_input_bias", 3),
             ob = ints("csc_output_bias", 3);
  a.csc = !m.empty() && !ib.empty() && !ob.empty();
  for (size_t i = 0; a.csc && i < 9; ++i) a.matrix[i / 3][i % 3] = static_cast<int32_t>(m[i]);
  for (size_t i = 0; a.csc && i < 3; ++i) {
    a.input_bias[i] = static_cast<int32_t>(ib[i]);
    a.output_bias[i] = static_cast<int32_t>(ob[i]);
  }
  a.rbuv_swap = def.attr_int("rbuv_swap") == 1;
  a.ax_swap = def.attr_int("ax_swap") == 1;
  // The geometry the kernel indexes with, checked here too: a node the definition did not see
  // (in a crafted model) must not address outside the image.
  if (Status st = aipp::CheckWindow(*a.info, a.win, ""); !st.ok()) {
    return def.Fail(code::kInvalidParam, st.message());
  }
  if (a.csc && a.info->model_channels == 1) {
    return def.Fail(code::kInvalidParam, "colour-space conversion of YUV400_U8 (one channel)");
  }
  const auto mean = ints("mean_chn", 4);
  const std::vector<float> min =
      def.has_attr("min_chn") ? def.attr_floats("min_chn") : std::vector<float>();
  const std::vector<float> var =
      def.has_attr("var_reci_chn") ? def.attr_floats("var_reci_chn") : std::vector<float>();
  for (size_t c = 0; c < 4; ++c) {
    if (mean.size() == 4) a.mean[c] = static_cast<float>(mean[c]);
    if (min.size() == 4) a.min[c] = min[c];
    if (var.size() == 4) a.var_reci[c] = var[c];
  }
  return a;
}

Result<std::vector<AippAttrs>> ReadDynamicAipp(const NodeDef& def, const uint8_t* block,
                                               size_t size, const Dims& y_dims,
                                               int64_t image_bytes) {
  if (Status st = aipp::CheckDynamicBlock(block, size, y_dims[0], y_dims[1], y_dims[2], y_dims[3],
                                          image_bytes, "dynamic aipp: ");
      !st.ok()) {
    return def.Fail(st.code(), st.message());
  }
  aipp::DynamicHeader head;
  std::memcpy(&head, block, sizeof head);
  AippAttrs base;
  base.info = aipp::FindFormat(head.input_format);
  base.format = static_cast<AippAttrs::Format>(base.info->acl_format);
  base.csc = head.csc_switch != 0;
  for (int i = 0; i < 9; ++i) base.matrix[i / 3][i % 3] = head.csc_matrix[i];
  for (int i = 0; i < 3; ++i) {
    base.input_bias[i] = head.csc_input_bias[i];
    base.output_bias[i] = head.csc_output_bias[i];
  }
  base.rbuv_swap = head.rbuv_swap_switch != 0;
  base.ax_swap = head.ax_swap_switch != 0;
  std::vector<AippAttrs> out;
  for (int64_t b = 0; b < y_dims[0]; ++b) {
    const aipp::DynamicBatch r = aipp::ReadRecord(block, b);
    AippAttrs a = base;
    a.win = aipp::RecordWindow(r, head.src_image_size_w, head.src_image_size_h);
    for (int i = 0; i < 4; ++i) {
      a.mean[i] = r.mean[i];
      a.min[i] = HalfToFloat(r.min[i]);
      a.var_reci[i] = HalfToFloat(r.var_reci[i]);
    }
    out.push_back(a);
  }
  return out;
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
  a.post_scale = param("post_scale", 1.0f);
  a.post_shift = param("post_shift", 0.0f);
  return a;
}

GroupNormAttrs ReadGroupNormAttrs(const NodeDef& def) {
  return {def.attr_int("num_groups"), def.attr_float("epsilon"), def.opset >= 21};
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

std::vector<uint8_t> ConstantBytes(const NodeDef& def) {
  auto bytes_of = [](const void* p, size_t n) {
    const auto* b = static_cast<const uint8_t*>(p);
    return std::vector<uint8_t>(b, b + n);
  };
  if (const ir::Tensor* v = def.attr_tensor("value")) return bytes_of(v->raw(), v->bytes());
  if (def.has_attr("value_float")) {
    const float f = def.attr_float("value_float");
    return bytes_of(&f, sizeof f);
  }
  if (def.has_attr("value_int")) {
    const int64_t i = def.attr_int("value_int");
    return bytes_of(&i, sizeof i);
  }
  if (def.has_attr("value_floats")) {
    const std::vector<float> v = def.attr_floats("value_floats");
    return bytes_of(v.data(), v.size() * sizeof(float));
  }
  const std::vector<int64_t> v = def.attr_ints("value_ints");
  return bytes_of(v.data(), v.size() * sizeof(int64_t));
}

}  // namespace kiln::kernels
