// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Neural-network ops: convolutions and pools, normalisations, the softmax family, the losses
// (NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss), matrix products (MatMul, Gemm, Einsum),
// Flatten, and the recurrent ops (RNN, GRU, LSTM). The window arithmetic and the Einsum parser
// are also the kernels' (declared in ir/ops/nn.h), so a rule is written once.
#include <algorithm>
#include <cctype>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "ir/ops/infer_util.h"
#include "ir/ops/nn.h"

namespace kiln::ir {
namespace {

// Attribute reads over a bare map (ReadWindowAttrs serves shape functions and kernels alike).
class MapAttrs : public AttrGetters<MapAttrs> {
 public:
  explicit MapAttrs(const AttrMap& attrs) : attrs_(attrs) {}
  const AttrMap& attr_map() const { return attrs_; }

 private:
  const AttrMap& attrs_;
};

Result<EinsumTerm> ParseEinsumTerm(std::string_view text) {
  EinsumTerm term;
  for (size_t i = 0; i < text.size(); ++i) {
    if (std::isalpha(static_cast<unsigned char>(text[i]))) {
      term.labels += text[i];
    } else if (text.substr(i, 3) == "..." && term.ellipsis < 0) {
      term.ellipsis = static_cast<int>(term.labels.size());
      i += 2;
    } else {
      return Error(code::kInvalidParam, "einsum term \"", text, "\" has an unexpected '", text[i],
                   "'");
    }
  }
  return term;
}

}  // namespace

std::optional<AutoPad> ParseAutoPad(std::string_view s) {
  if (s == "NOTSET" || s.empty()) return AutoPad::kNotSet;
  if (s == "SAME_UPPER") return AutoPad::kSameUpper;
  if (s == "SAME_LOWER") return AutoPad::kSameLower;
  if (s == "VALID") return AutoPad::kValid;
  return std::nullopt;
}

WindowAttrs ReadWindowAttrs(const AttrMap& attrs, std::string_view op_type, int opset) {
  const MapAttrs a(attrs);
  bool dilations = true, ceil_mode = false;
  if (op_type == "MaxPool") {
    dilations = ceil_mode = opset >= 10;
  } else if (op_type == "AveragePool") {
    dilations = opset >= 19;
    ceil_mode = opset >= 10;
  } else if (op_type == "LpPool") {
    dilations = ceil_mode = opset >= 18;
  }
  WindowAttrs w;
  w.auto_pad = ParseAutoPad(a.attr_string("auto_pad")).value_or(AutoPad::kNotSet);
  w.kernel_shape = a.attr_ints("kernel_shape");
  w.strides = a.attr_ints("strides");
  if (dilations) w.dilations = a.attr_ints("dilations");
  // Exporters sometimes write zero pads next to auto_pad; auto_pad decides.
  if (w.auto_pad == AutoPad::kNotSet) w.pads = a.attr_ints("pads");
  w.ceil_mode = ceil_mode && a.attr_int("ceil_mode") == 1;
  w.transposed = op_type == "ConvTranspose" || op_type == "FusedConvTranspose";
  if (w.transposed) {
    w.output_padding = a.attr_ints("output_padding");
    w.output_shape = a.attr_ints("output_shape");
  }
  return w;
}

Result<WindowDim> ResolveWindowDim(const WindowAttrs& a, size_t i, size_t rank, int64_t in,
                                   int64_t kernel) {
  // In 128 bits: attributes and dims from a file are bounded only by int64, and their products
  // must not overflow (a crafted stride times a large input); a result outside int64 is refused.
  using Wide = __int128;
  auto floor_div = [](Wide x, Wide y) { return x >= 0 ? x / y : -((-x + y - 1) / y); };  // y > 0
  auto ceil_div = [&](Wide x, Wide y) { return -floor_div(-x, y); };
  const Wide s = a.stride(i), extent = Wide{a.dilation(i)} * (kernel - 1) + 1;
  Wide out = 0, pad_begin = 0, pad_end = 0;
  if (a.transposed) {
    const Wide full = s * (Wide{in} - 1) + a.out_padding(i) + extent;
    const int64_t given = a.output_size(i, rank);
    if (given >= 0 || a.same()) {
      // The spec's total padding, split with floor division, SAME_UPPER putting the smaller half
      // first (a negative total, from an output_shape larger than the full result, leaves
      // positions that only get the bias).
      out = given >= 0 ? Wide{given} : Wide{in} * s;
      const Wide total = full - out;
      const Wide half = floor_div(total, 2);
      pad_begin = a.auto_pad == AutoPad::kSameUpper ? half : total - half;
      pad_end = total - pad_begin;
    } else {
      pad_begin = a.pad_begin(i);
      pad_end = a.pad_end(i, rank);
      out = full - pad_begin - pad_end;
    }
    if (out < 0 || (in > 0 && out < 1)) {
      return Error(code::kInvalidParam, "spatial dim ", i, ": the pads leave an output size of ",
                   static_cast<int64_t>(std::max<Wide>(out, INT64_MIN)));
    }
  } else if (a.same()) {
    out = ceil_div(in, s);
    const Wide total = std::max<Wide>(0, (out - 1) * s + extent - in);
    const Wide small = total / 2;
    pad_begin = a.auto_pad == AutoPad::kSameUpper ? small : total - small;
    pad_end = total - pad_begin;
  } else {
    pad_begin = a.pad_begin(i);
    pad_end = a.pad_end(i, rank);
    const Wide span = Wide{in} + pad_begin + pad_end - extent;
    if (span < 0) {
      return Error(code::kInvalidParam, "spatial dim ", i, ": the window extent ",
                   static_cast<int64_t>(std::min<Wide>(extent, INT64_MAX)),
                   " exceeds the padded input size ",
                   static_cast<int64_t>(std::min<Wide>(span + extent, INT64_MAX)));
    }
    // ONNX applies ceil_mode to explicit pads only; auto_pad has its own formulas.
    const bool ceil = a.ceil_mode && a.auto_pad == AutoPad::kNotSet;
    out = (ceil ? ceil_div(span, s) : span / s) + 1;
    // A window that would start in the end padding is dropped.
    if (ceil && (out - 1) * s >= Wide{in} + pad_begin) --out;
  }
  constexpr Wide kMost = Wide{1} << 62;
  for (Wide v : {out, pad_begin, pad_end, extent}) {
    if (v > kMost || v < -kMost) {
      return Error(code::kInvalidParam, "spatial dim ", i,
                   ": the window's sizes (kernel, stride, dilation, pads) are out of range");
    }
  }
  WindowDim d;
  d.out = static_cast<int64_t>(out);
  d.pad_begin = static_cast<int64_t>(pad_begin);
  d.pad_end = static_cast<int64_t>(pad_end);
  return d;
}

Result<Window> ResolveWindow(const WindowAttrs& a, const std::vector<int64_t>& in,
                             const std::vector<int64_t>& kernel) {
  Window w;
  w.rank = in.size();
  w.in = in;
  w.kernel = kernel;
  for (size_t i = 0; i < w.rank; ++i) {
    KILN_ASSIGN_OR_RETURN(WindowDim d, ResolveWindowDim(a, i, w.rank, in[i], kernel[i]));
    w.out.push_back(d.out);
    w.stride.push_back(a.stride(i));
    w.dilation.push_back(a.dilation(i));
    w.pad_begin.push_back(d.pad_begin);
    w.pad_end.push_back(d.pad_end);
  }
  return w;
}

Result<EinsumEquation> ParseEinsum(std::string eq) {
  eq.erase(std::remove_if(eq.begin(), eq.end(), [](unsigned char c) { return std::isspace(c); }),
           eq.end());
  EinsumEquation e;
  const size_t arrow = eq.find("->");
  std::string_view lhs = std::string_view(eq).substr(0, arrow);
  while (true) {
    size_t comma = lhs.find(',');
    KILN_ASSIGN_OR_RETURN(EinsumTerm term, ParseEinsumTerm(lhs.substr(0, comma)));
    e.inputs.push_back(std::move(term));
    if (comma == std::string_view::npos) break;
    lhs.remove_prefix(comma + 1);
  }
  std::map<char, int> uses;
  bool any_ellipsis = false;
  for (const EinsumTerm& t : e.inputs) {
    for (char c : t.labels) ++uses[c];
    any_ellipsis |= t.ellipsis >= 0;
  }
  if (arrow == std::string::npos) {
    // Implicit: "..." first, then the labels used exactly once, in ASCII order.
    if (any_ellipsis) e.output.ellipsis = 0;
    for (auto [c, n] : uses) {
      if (n == 1) e.output.labels += c;
    }
    return e;
  }
  KILN_ASSIGN_OR_RETURN(e.output, ParseEinsumTerm(std::string_view(eq).substr(arrow + 2)));
  const std::string& out = e.output.labels;
  for (size_t j = 0; j < out.size(); ++j) {
    if (!uses.count(out[j])) {
      return Error(code::kInvalidParam, "einsum output label '", out[j],
                   "' does not appear in any input");
    }
    if (out.find(out[j]) != j) {
      return Error(code::kInvalidParam, "einsum output label '", out[j], "' repeats");
    }
  }
  return e;
}

namespace {

// ---------------------------------------------------------------------------------------------
// Shared helpers.

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

Result<int64_t> AxisAttr(InferenceContext& ctx, int64_t rank) {
  int64_t axis = ctx.attr_int("axis");
  std::optional<int64_t> a = NormalizeAxis(axis, rank);
  if (!a) return ctx.Fail("attribute 'axis' = ", axis, " is out of range for rank ", rank);
  return *a;
}

// An int attribute that must be one of {0, 1} (absent: 0).
Result<bool> FlagAttr(InferenceContext& ctx, const char* name) {
  int64_t v = ctx.attr_int(name);
  if (v != 0 && v != 1) return ctx.Fail("attribute '", name, "' must be 0 or 1, got ", v);
  return v == 1;
}

// An int attribute that must be >= 1.
Result<int64_t> PositiveAttr(InferenceContext& ctx, const char* name) {
  int64_t v = ctx.attr_int(name);
  if (v < 1) return ctx.Fail("attribute '", name, "' must be >= 1, got ", v);
  return v;
}

// ---------------------------------------------------------------------------------------------
// Convolutions and pools.

// Attribute `name`, with values `v` (empty: absent), checked to have `n` values, each >= `min`.
Status CheckInts(InferenceContext& ctx, const char* name, const std::vector<int64_t>& v, size_t n,
                 int64_t min) {
  if (v.empty()) return Status::Ok();
  if (v.size() != n) {
    return ctx.Fail("attribute '", name, "' = ", IntsStr(v), " has ", v.size(), " values; ", n,
                    " are required");
  }
  for (int64_t x : v) {
    if (x < min) return ctx.Fail("attribute '", name, "' = ", IntsStr(v), " has a value < ", min);
  }
  return Status::Ok();
}

// The node's window attributes (ReadWindowAttrs), checked for `n` spatial dims.
Result<WindowAttrs> CheckedWindow(InferenceContext& ctx, size_t n) {
  if (n > kMaxSpatialDims) {
    return ctx.Unsupported("inputs with ", n, " spatial dims (more than ", kMaxSpatialDims,
                           ") are not supported");
  }
  const std::string pad = ctx.attr_string("auto_pad");
  if (!ParseAutoPad(pad)) {
    return ctx.Fail("attribute 'auto_pad' must be NOTSET, SAME_UPPER, SAME_LOWER or VALID, got \"",
                    pad, "\"");
  }
  WindowAttrs w = ReadWindowAttrs(ctx.attrs(), ctx.op_type(), ctx.opset());
  KILN_RETURN_IF_ERROR(CheckInts(ctx, "kernel_shape", w.kernel_shape, n, 1), "");
  KILN_RETURN_IF_ERROR(CheckInts(ctx, "strides", w.strides, n, 1), "");
  KILN_RETURN_IF_ERROR(CheckInts(ctx, "dilations", w.dilations, n, 1), "");
  // Exporters sometimes write zero pads next to auto_pad (which then decides): the pads are
  // checked as given.
  KILN_RETURN_IF_ERROR(CheckInts(ctx, "pads", ctx.attr_ints("pads"), 2 * n, 0), "");
  if (ctx.has_attr("ceil_mode")) KILN_RETURN_IF_ERROR(FlagAttr(ctx, "ceil_mode").status(), "");
  if (w.transposed) {
    KILN_RETURN_IF_ERROR(CheckInts(ctx, "output_padding", w.output_padding, n, 0), "");
    // output_shape lists the spatial sizes, or all dims as some exporters write it.
    const std::vector<int64_t>& shape = w.output_shape;
    if (!shape.empty() && shape.size() != n && shape.size() != n + 2) {
      return ctx.Fail("attribute 'output_shape' = ", IntsStr(shape), " needs ", n,
                      " spatial sizes");
    }
    for (size_t i = 0; i < n && !shape.empty(); ++i) {
      if (w.output_size(i, n) < 0) {
        return ctx.Fail("attribute 'output_shape' = ", IntsStr(shape), " has a negative size");
      }
    }
  }
  return w;
}

// Output size of spatial dim i (of `n`) of a convolution or pool over `in` with kernel size `k`
// (-1 when unknown): ResolveWindowDim when the sizes that decide it are known, else as much as
// the unknown sizes allow (the input dim itself when the window keeps every size).
Result<Dim> WindowOutDim(InferenceContext& ctx, const WindowAttrs& w, size_t i, size_t n,
                         const Dim& in, int64_t k) {
  const int64_t s = w.stride(i);
  const bool given_shape = w.transposed && !w.output_shape.empty();
  if (in.known() && (k >= 0 || w.same() || given_shape)) {
    // Under auto_pad or output_shape the kernel size decides the pads, not the output size.
    Result<WindowDim> d = ResolveWindowDim(w, i, n, in.value, std::max<int64_t>(k, 1));
    if (!d.ok()) return ctx.Fail(d.status().message());
    return Dim::Known(d->out);
  }
  if (given_shape) return Dim::Known(w.output_size(i, n));
  if (w.same()) return w.transposed || s == 1 ? Scaled(in, s) : Dim::Unknown();
  if (k < 0) return Dim::Unknown();
  const int64_t extent = w.dilation(i) * (k - 1) + 1;
  const int64_t padding = w.pad_begin(i) + w.pad_end(i, n);
  if (w.transposed) {
    return s == 1 && w.out_padding(i) + extent - padding == 1 ? in : Dim::Unknown();
  }
  return s == 1 && padding == extent - 1 ? in : Dim::Unknown();
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

// kernel_shape, else W's spatial dims (-1 where unknown); they must agree where both are known,
// and a known kernel dim must not be zero.
Result<std::vector<int64_t>> ConvKernel(InferenceContext& ctx, const WindowAttrs& win,
                                        const std::vector<Dim>& w) {
  std::vector<int64_t> from_w;
  for (size_t i = 2; i < w.size(); ++i) from_w.push_back(w[i].value);
  if (std::count(from_w.begin(), from_w.end(), 0) != 0) {
    return ctx.Fail("W has shape ", Shape(w).ToString(), ", a kernel with a zero dim");
  }
  if (win.kernel_shape.empty()) return from_w;
  for (size_t i = 0; i < from_w.size(); ++i) {
    if (from_w[i] >= 0 && from_w[i] != win.kernel_shape[i]) {
      return ctx.Fail("attribute 'kernel_shape' = ", IntsStr(win.kernel_shape),
                      " does not match W's shape ", Shape(w).ToString());
    }
  }
  return win.kernel_shape;
}

Result<int64_t> GroupAttr(InferenceContext& ctx) {
  int64_t group = ctx.attr_int("group");
  if (group < 1) return ctx.Fail("attribute 'group' must be >= 1, got ", group);
  return group;
}

// Conv: X [N, C, ...], W [M, C/group, k...]; C and M must divide into the groups.
Status CheckConvChannels(InferenceContext& ctx, const Dim& c, const std::vector<Dim>& w,
                         int64_t group) {
  int64_t product = 0;
  if (c.known() && w[1].known()) {
    if (__builtin_mul_overflow(w[1].value, group, &product)) {
      return ctx.Fail("X has ", c.value, " channels but W.shape[1] * group = ", w[1].value, " * ",
                      group, " overflows");
    }
    if (c.value != product) {
      return ctx.Fail("X has ", c.value, " channels but W.shape[1] * group = ", w[1].value, " * ",
                      group, " = ", product);
    }
  }
  if (c.known() && c.value % group != 0) {
    return ctx.Fail("X has ", c.value, " channels, not a multiple of group ", group);
  }
  if (w[0].known() && w[0].value % group != 0) {
    return ctx.Fail("W has ", w[0].value, " output channels, not a multiple of group ", group);
  }
  return Status::Ok();
}

// The common front of Conv and ConvTranspose: types, ranks, the X / W dims and the window.
struct ConvDims {
  std::vector<Dim> x, w;
  int64_t group = 1;
  WindowAttrs window;
  std::vector<int64_t> kernel;  // -1 where unknown
};

Result<std::optional<ConvDims>> ReadConvDims(InferenceContext& ctx) {
  if (!ctx.has_input(0) || !ctx.has_input(1)) return ctx.Fail("inputs X and W are required");
  KILN_RETURN_IF_ERROR(CheckFloatSameType(ctx, 3), "");
  KILN_ASSIGN_OR_RETURN(std::optional<size_t> spatial, SpatialRank(ctx, true));
  if (!spatial) return std::optional<ConvDims>();
  ConvDims d;
  KILN_ASSIGN_OR_RETURN(d.x, DimsOfRank(ctx, 0, "X", *spatial + 2));
  KILN_ASSIGN_OR_RETURN(d.w, DimsOfRank(ctx, 1, "W", *spatial + 2));
  KILN_ASSIGN_OR_RETURN(d.group, GroupAttr(ctx));
  KILN_ASSIGN_OR_RETURN(d.window, CheckedWindow(ctx, *spatial));
  KILN_ASSIGN_OR_RETURN(d.kernel, ConvKernel(ctx, d.window, d.w));
  return std::optional<ConvDims>(std::move(d));
}

// The windowed spatial dims of `x` (N, C, spatial...) for `d`'s window and kernel.
Result<std::vector<Dim>> WindowedDims(InferenceContext& ctx, const WindowAttrs& w,
                                      const std::vector<int64_t>& kernel,
                                      const std::vector<Dim>& x) {
  const size_t n = x.size() - 2;
  std::vector<Dim> out;
  for (size_t i = 0; i < n; ++i) {
    KILN_ASSIGN_OR_RETURN(Dim dim, WindowOutDim(ctx, w, i, n, x[i + 2], kernel[i]));
    out.push_back(std::move(dim));
  }
  return out;
}

Status Conv(InferenceContext& ctx) {
  KILN_ASSIGN_OR_RETURN(std::optional<ConvDims> d, ReadConvDims(ctx));
  if (!d) {
    ctx.set_output(0, ctx.input_dtype(0), Shape());
    return Status::Ok();
  }
  KILN_RETURN_IF_ERROR(CheckConvChannels(ctx, d->x[1], d->w, d->group), "");
  KILN_RETURN_IF_ERROR(CheckShape(ctx, 2, "B", {d->w[0]}), "");
  std::vector<Dim> out = {d->x[0], d->w[0]};
  KILN_ASSIGN_OR_RETURN(std::vector<Dim> spatial, WindowedDims(ctx, d->window, d->kernel, d->x));
  out.insert(out.end(), spatial.begin(), spatial.end());
  ctx.set_output(0, ctx.input_dtype(0), Shape(std::move(out)));
  return Status::Ok();
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
  std::vector<Dim> out = {d->x[0], m};
  KILN_ASSIGN_OR_RETURN(std::vector<Dim> spatial, WindowedDims(ctx, d->window, d->kernel, d->x));
  out.insert(out.end(), spatial.begin(), spatial.end());
  ctx.set_output(0, ctx.input_dtype(0), Shape(std::move(out)));
  return Status::Ok();
}

// The output shape of MaxPool / AveragePool / LpPool: [N, C, windowed spatial dims].
Result<Shape> PoolShape(InferenceContext& ctx) {
  KILN_ASSIGN_OR_RETURN(std::optional<size_t> spatial, SpatialRank(ctx, false));
  if (!spatial) return ctx.Fail("attribute 'kernel_shape' is required");
  KILN_ASSIGN_OR_RETURN(std::vector<Dim> x, DimsOfRank(ctx, 0, "X", *spatial + 2));
  KILN_ASSIGN_OR_RETURN(WindowAttrs win, CheckedWindow(ctx, *spatial));
  if (win.kernel_shape.size() != *spatial) {  // CheckedWindow takes an empty list as absent
    return ctx.Fail("attribute 'kernel_shape' = ", IntsStr(win.kernel_shape), " needs ", *spatial,
                    " values");
  }
  std::vector<Dim> out = {x[0], x[1]};
  KILN_ASSIGN_OR_RETURN(std::vector<Dim> dims, WindowedDims(ctx, win, win.kernel_shape, x));
  out.insert(out.end(), dims.begin(), dims.end());
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
  KILN_ASSIGN_OR_RETURN(Shape shape, PoolShape(ctx));
  ctx.set_output(1, DataType::kInt64, shape);
  ctx.set_output(0, t, std::move(shape));
  return Status::Ok();
}

// AveragePool: ceil_mode from opset 10, dilations from 19.
Status AveragePool(InferenceContext& ctx) {
  KILN_RETURN_IF_ERROR(CheckFloatInput(ctx, 0, "X"), "");
  KILN_RETURN_IF_ERROR(FlagAttr(ctx, "count_include_pad").status(), "");
  KILN_ASSIGN_OR_RETURN(Shape shape, PoolShape(ctx));
  ctx.set_output(0, ctx.input_dtype(0), std::move(shape));
  return Status::Ok();
}

// LpPool: ceil_mode and dilations from opset 18.
Status LpPool(InferenceContext& ctx) {
  KILN_RETURN_IF_ERROR(CheckFloatInput(ctx, 0, "X"), "");
  KILN_RETURN_IF_ERROR(PositiveAttr(ctx, "p").status(), "");
  KILN_ASSIGN_OR_RETURN(Shape shape, PoolShape(ctx));
  ctx.set_output(0, ctx.input_dtype(0), std::move(shape));
  return Status::Ok();
}

// GlobalAveragePool, GlobalMaxPool, GlobalLpPool: [N, C, 1, ...].
Status GlobalPool(InferenceContext& ctx) {
  KILN_RETURN_IF_ERROR(CheckFloatInput(ctx, 0, "X"), "");
  KILN_RETURN_IF_ERROR(CheckRankAtLeast(ctx, 0, 3, "N x C x spatial dims"), "");
  if (ctx.op_type() == "GlobalLpPool") KILN_RETURN_IF_ERROR(PositiveAttr(ctx, "p").status(), "");
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
  if (ctx.opset() < 9 && ctx.attr_int("spatial") == 0) {
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
  int64_t stash = ctx.attr_int("stash_type");
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
    KILN_ASSIGN_OR_RETURN(int64_t axis, AxisAttr(ctx, static_cast<int64_t>(x.rank())));
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
  std::vector<int64_t> axes = ctx.attr_ints("axes");
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
  int64_t stash = ctx.attr_int("stash_type");
  if (!IsFloat(FromOnnx(static_cast<int32_t>(stash)))) {
    return ctx.Fail("attribute 'stash_type' = ", stash, " is not a floating-point type");
  }
  const Shape& x = ctx.input_shape(0);
  if (!BroadcastsTo(ctx.input_shape(1), x)) {
    return ctx.Fail("scale has shape ", ctx.input_shape(1).ToString(),
                    ", which does not broadcast to X ", x.ToString());
  }
  if (x.rank_known()) {
    KILN_RETURN_IF_ERROR(AxisAttr(ctx, static_cast<int64_t>(x.rank())).status(), "");
  }
  ctx.set_output(0, ctx.input_dtype(1), x);
  return Status::Ok();
}

// LpNormalization: x / ||x||_p along `axis`, p = 1 or 2.
Status LpNormalization(InferenceContext& ctx) {
  KILN_RETURN_IF_ERROR(CheckFloatInput(ctx, 0, "input"), "");
  int64_t p = ctx.attr_int("p");
  if (p != 1 && p != 2) return ctx.Fail("attribute 'p' must be 1 or 2, got ", p);
  const Shape& x = ctx.input_shape(0);
  if (x.rank_known()) {
    KILN_RETURN_IF_ERROR(AxisAttr(ctx, static_cast<int64_t>(x.rank())).status(), "");
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
  std::string reduction = ctx.attr_string("reduction");
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
    KILN_RETURN_IF_ERROR(AxisAttr(ctx, static_cast<int64_t>(x.rank())).status(), "");
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
  size_t ta = ctx.attr_int("transA") != 0, tb = ctx.attr_int("transB") != 0;
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
  int64_t axis = ctx.attr_int("axis");
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

// What the inputs say about each label's size and the broadcast "..." dims.
struct EinsumDims {
  std::map<char, Dim> labels;
  std::optional<Shape> ellipsis;  // nullopt when no input has "..."
};

// Binds a dim to `label`; repeated labels must agree: across operands a size of 1 broadcasts,
// within one operand (a diagonal) the sizes must be equal.
Status BindEinsumLabel(InferenceContext& ctx, size_t operand, char label, const Dim& dim,
                       bool diagonal, EinsumDims& dims) {
  auto [it, inserted] = dims.labels.try_emplace(label, dim);
  if (inserted) return Status::Ok();
  const Dim& had = it->second;
  if (diagonal) {
    if (had.known() && dim.known() && had.value != dim.value) {
      return ctx.Fail("einsum operand ", operand, " repeats label '", label, "' over dims of ",
                      had.value, " and ", dim.value);
    }
    if (!had.known()) it->second = dim;
    return Status::Ok();
  }
  std::optional<Shape> b = Broadcast(Shape(std::vector<Dim>{had}), Shape(std::vector<Dim>{dim}));
  if (!b) return ctx.Fail("einsum label '", label, "' has sizes ", had.value, " and ", dim.value);
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
  // The operand's own labels first (a diagonal's sizes must be equal), then across operands.
  EinsumDims own;
  for (size_t j = 0; j < n; ++j) {
    size_t pos = has_ellipsis && j >= static_cast<size_t>(term.ellipsis) ? j + num_ellipsis : j;
    KILN_RETURN_IF_ERROR(BindEinsumLabel(ctx, i, term.labels[j], s[pos], true, own), "");
  }
  for (const auto& [label, dim] : own.labels) {
    KILN_RETURN_IF_ERROR(BindEinsumLabel(ctx, i, label, dim, false, dims), "");
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

Result<Shape> EinsumOutput(const EinsumTerm& out, const EinsumDims& dims) {
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
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    if (!ctx.has_input(i)) return ctx.Fail("einsum operand ", i, " is missing");
  }
  KILN_RETURN_IF_ERROR(CheckNumericSameType(ctx, ctx.num_inputs(), 12), "");
  std::string eq = ctx.attr_string("equation");
  Result<EinsumEquation> e = ParseEinsum(eq);
  if (!e.ok()) return ctx.Fail(e.status().message());
  if (e->inputs.size() != ctx.num_inputs()) {
    return ctx.Fail("equation \"", eq, "\" has ", e->inputs.size(),
                    " operand terms but the node has ", ctx.num_inputs(), " inputs");
  }
  EinsumDims dims;
  for (size_t i = 0; i < e->inputs.size(); ++i) {
    KILN_RETURN_IF_ERROR(BindEinsumInput(ctx, i, e->inputs[i], dims), "");
  }
  KILN_ASSIGN_OR_RETURN(Shape shape, EinsumOutput(e->output, dims));
  ctx.set_output(0, ctx.input_dtype(0), std::move(shape));
  return Status::Ok();
}

// ---------------------------------------------------------------------------------------------
// Recurrent ops. Inputs: X, W, R, B, sequence_lens, initial_h (+ initial_c, P for LSTM).

Result<int64_t> NumDirections(InferenceContext& ctx) {
  std::string dir = ctx.attr_string("direction");
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
  if (!ctx.has_input(0) || !ctx.has_input(1) || !ctx.has_input(2)) {
    return ctx.Fail("inputs X, W and R are required");
  }
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

// clip (positive when given) and the activations: `per` names (a cell's functions) for every
// direction, or one set for both; RNN's default, two names, serves one direction as well (its
// first name).
Status CheckRecurrentAttrs(InferenceContext& ctx, size_t per) {
  if (ctx.has_attr("clip") && !(ctx.attr_float("clip") > 0)) {
    return ctx.Fail("attribute 'clip' must be positive, got ", ctx.attr_float("clip"));
  }
  if (!ctx.has_attr("activations")) return Status::Ok();
  const std::vector<std::string> names = ctx.attr_strings("activations");
  if (names.size() != per && names.size() != 2 * per) {
    return ctx.Fail("attribute 'activations' has ", names.size(), " names; ", per,
                    " per direction are required");
  }
  static const char* const kKnown[] = {
      "relu",       "tanh",        "sigmoid", "affine",   "leakyrelu", "thresholdedrelu",
      "scaledtanh", "hardsigmoid", "elu",     "softsign", "softplus"};
  for (const std::string& name : names) {
    std::string lower = name;
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (std::find(std::begin(kKnown), std::end(kKnown), lower) == std::end(kKnown)) {
      return ctx.Fail("attribute 'activations' has the unknown function \"", name, "\"");
    }
  }
  return Status::Ok();
}

// RNN, GRU and LSTM, with `gates` 1, 3 or 4. Layout 0: X [seq, batch, input], Y [seq, dirs,
// batch, hidden], states [dirs, batch, hidden]; layout 1 (opset 14+) puts batch first.
Status Recurrent(InferenceContext& ctx, int64_t gates) {
  KILN_RETURN_IF_ERROR(CheckRecurrentTypes(ctx), "");
  KILN_ASSIGN_OR_RETURN(int64_t num_dirs, NumDirections(ctx));
  KILN_RETURN_IF_ERROR(CheckRecurrentAttrs(ctx, gates == 1 ? 1 : gates == 3 ? 2 : 3), "");
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
  using Ints = std::vector<int64_t>;
  constexpr double kEpsilon = 1e-5;
  // The window attributes every convolution and pool has.
  auto window = [](bool kernel_required) {
    return std::vector<AttrSpec>{Attr("auto_pad", "NOTSET"),
                                 kernel_required ? RequiredAttr("kernel_shape", AttrKind::kInts)
                                                 : OptionalAttr("kernel_shape", AttrKind::kInts),
                                 OptionalAttr("pads", AttrKind::kInts),
                                 OptionalAttr("strides", AttrKind::kInts)};
  };
  r.Register(MakeSchema("Conv", 1, 2, 3, 1, 1, kFamily, Conv)
                 .Attrs(window(false))
                 .Attrs({OptionalAttr("dilations", AttrKind::kInts), Attr("group", 1)}));
  r.Register(MakeSchema("ConvTranspose", 1, 2, 3, 1, 1, kFamily, ConvTranspose)
                 .Attrs(window(false))
                 .Attrs({OptionalAttr("dilations", AttrKind::kInts), Attr("group", 1),
                         OptionalAttr("output_padding", AttrKind::kInts),
                         OptionalAttr("output_shape", AttrKind::kInts)}));
  r.Register(MakeSchema("MaxPool", 1, 1, 1, 1, 2, kFamily, MaxPool)
                 .Attrs(window(true))
                 .Attrs({Attr("storage_order", 0).Since(8), Attr("ceil_mode", 0).Since(10),
                         OptionalAttr("dilations", AttrKind::kInts).Since(10)}));
  r.Register(MakeSchema("AveragePool", 1, 1, 1, 1, 1, kFamily, AveragePool)
                 .Attrs(window(true))
                 .Attrs({Attr("count_include_pad", 0).Since(7), Attr("ceil_mode", 0).Since(10),
                         OptionalAttr("dilations", AttrKind::kInts).Since(19)}));
  // LpPool-1 took p as a float; from 2 it is an int.
  r.Register(MakeSchema("LpPool", 2, 1, 1, 1, 1, kFamily, LpPool)
                 .Attrs(window(true))
                 .Attrs({Attr("p", 2), Attr("ceil_mode", 0).Since(18),
                         OptionalAttr("dilations", AttrKind::kInts).Since(18)}));
  r.Register(MakeSchema("GlobalAveragePool", 1, 1, 1, 1, 1, kFamily, GlobalPool));
  r.Register(MakeSchema("GlobalMaxPool", 1, 1, 1, 1, 1, kFamily, GlobalPool));
  r.Register(MakeSchema("GlobalLpPool", 2, 1, 1, 1, 1, kFamily, GlobalPool).Attrs({Attr("p", 2)}));
  // Up to 5 outputs before opset 14 and 3 after; the extra ones only in opset 14+ training mode.
  r.Register(MakeSchema("BatchNormalization", 7, 5, 5, 1, 5, kFamily, BatchNormalization)
                 .Attrs({Attr("epsilon", kEpsilon), Attr("momentum", 0.9),
                         Attr("spatial", 1).Until(8), Attr("training_mode", 0).Since(14)}));
  r.Register(MakeSchema("InstanceNormalization", 6, 3, 3, 1, 1, kFamily, InstanceNormalization)
                 .Attrs({Attr("epsilon", kEpsilon)}));
  r.Register(MakeSchema("LayerNormalization", 17, 2, 3, 1, 3, kFamily, LayerNormalization)
                 .Attrs({Attr("axis", -1), Attr("epsilon", kEpsilon), Attr("stash_type", 1)}));
  r.Register(MakeSchema("GroupNormalization", 18, 3, 3, 1, 1, kFamily, GroupNormalization)
                 .Attrs({Attr("epsilon", kEpsilon), RequiredAttr("num_groups", AttrKind::kInt),
                         Attr("stash_type", 1).Since(21)}));
  r.Register(MakeSchema("LRN", 1, 1, 1, 1, 1, kFamily, Lrn)
                 .Attrs({Attr("alpha", 1e-4), Attr("beta", 0.75), Attr("bias", 1.0),
                         RequiredAttr("size", AttrKind::kInt)}));
  r.Register(
      MakeSchema("MeanVarianceNormalization", 9, 1, 1, 1, 1, kFamily, MeanVarianceNormalization)
          .Attrs({Attr("axes", Ints{0, 2, 3})}));
  r.Register(MakeSchema("RMSNormalization", 23, 2, 2, 1, 1, kFamily, RmsNormalization)
                 .Attrs({Attr("axis", -1), Attr("epsilon", kEpsilon), Attr("stash_type", 1)}));
  r.Register(MakeSchema("LpNormalization", 1, 1, 1, 1, 1, kFamily, LpNormalization)
                 .Attrs({Attr("axis", -1), Attr("p", 2)}));
  for (const char* op : {"NegativeLogLikelihoodLoss", "SoftmaxCrossEntropyLoss"}) {
    const int outputs = op[0] == 'N' ? 1 : 2;
    r.Register(
        MakeSchema(op, 12, 2, 3, 1, outputs, kFamily, Loss)
            .Attrs({OptionalAttr("ignore_index", AttrKind::kInt), Attr("reduction", "mean")}));
  }
  for (const char* op : {"Softmax", "LogSoftmax", "Hardmax"}) {
    r.Register(MakeSchema(op, 1, 1, 1, 1, 1, kFamily, SoftmaxFamily)
                   .Attrs({Attr("axis", 1).Until(12), Attr("axis", -1).Since(13)}));
  }
  r.Register(MakeSchema("MatMul", 1, 2, 2, 1, 1, kFamily, MatMul));
  r.Register(
      MakeSchema("Gemm", 7, 2, 3, 1, 1, kFamily, Gemm)
          .Attrs({Attr("alpha", 1.0), Attr("beta", 1.0), Attr("transA", 0), Attr("transB", 0)}));
  r.Register(MakeSchema("Flatten", 1, 1, 1, 1, 1, kFamily, Flatten)
                 .Attrs({Attr("axis", 1)})
                 .Traits(kTraitInPlace));
  r.Register(MakeSchema("Einsum", 12, 1, -1, 1, 1, kFamily, Einsum)
                 .Attrs({RequiredAttr("equation", AttrKind::kString)}));
  // The recurrent ops' common attributes; GRU and LSTM give no default activations (their
  // kernels know the spec's), RNN's default names both directions.
  auto recurrent = [](std::vector<AttrSpec> own) {
    std::vector<AttrSpec> specs = {OptionalAttr("activation_alpha", AttrKind::kFloats),
                                   OptionalAttr("activation_beta", AttrKind::kFloats),
                                   OptionalAttr("clip", AttrKind::kFloat),
                                   Attr("direction", "forward"),
                                   OptionalAttr("hidden_size", AttrKind::kInt),
                                   Attr("layout", 0).Since(14)};
    for (AttrSpec& s : own) specs.push_back(std::move(s));
    return specs;
  };
  r.Register(MakeSchema("RNN", 7, 3, 6, 0, 2, kFamily, Rnn)
                 .Attrs(recurrent(
                     {Attr("activations", Attribute(std::vector<std::string>{"Tanh", "Tanh"}))})));
  r.Register(MakeSchema("GRU", 7, 3, 6, 0, 2, kFamily, Gru)
                 .Attrs(recurrent({OptionalAttr("activations", AttrKind::kStrings),
                                   Attr("linear_before_reset", 0)})));
  r.Register(MakeSchema("LSTM", 7, 3, 8, 0, 3, kFamily, Lstm)
                 .Attrs(recurrent(
                     {OptionalAttr("activations", AttrKind::kStrings), Attr("input_forget", 0)})));
}

}  // namespace kiln::ir
