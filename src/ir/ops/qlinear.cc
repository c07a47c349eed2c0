// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The integer and quantized products int8 exporters write: QLinearConv, QLinearMatMul,
// ConvInteger and MatMulInteger (DynamicQuantizeLinear, which often feeds them, is in
// quantize.cc).
//
// Their quantized tensors are uint8 or int8 (QLinearMatMul-21's float8 types are types Kiln
// does not have). Scales and zero points come in pairs of the same shape and select the
// granularity: one value (per tensor), one value per output channel (a convolution's w), or one
// per row of a matmul's a and one per column of its b ([M] or [..., M, 1]; [N] or [..., 1, N]).
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ir/ops/infer_util.h"

namespace kiln::ir {
namespace {

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }  // a >= 0, b > 0

bool IsQuantized8(DataType t) { return t == DataType::kUint8 || t == DataType::kInt8; }

// The inputs ONNX requires are given (a graph can mark one omitted with an empty name).
Status CheckGiven(const InferenceContext& ctx, const std::vector<const char*>& names) {
  for (size_t i = 0; i < names.size(); ++i) {
    if (!ctx.has_input(i)) return ctx.Fail("input ", i, " (", names[i], ") is required");
  }
  return Status::Ok();
}

// Input i, when given, is uint8 or int8.
Status CheckQuantized(const InferenceContext& ctx, size_t i, const char* name) {
  if (!ctx.has_input(i) || IsQuantized8(ctx.input_dtype(i))) return Status::Ok();
  return ctx.Fail(name, " is ", Name(ctx.input_dtype(i)), "; uint8 or int8 is required");
}

// Zero point `zp`, when given, has the type of the tensor `of` it belongs to.
Status CheckZeroPointType(const InferenceContext& ctx, size_t zp, const char* zp_name, size_t of,
                          const char* of_name) {
  if (!ctx.has_input(zp) || ctx.input_dtype(zp) == ctx.input_dtype(of)) return Status::Ok();
  return ctx.Fail(zp_name, " is ", Name(ctx.input_dtype(zp)), " but ", of_name, " is ",
                  Name(ctx.input_dtype(of)), "; they must have the same type");
}

Status CheckType(const InferenceContext& ctx, size_t i, const char* name, DataType want) {
  if (!ctx.has_input(i) || ctx.input_dtype(i) == want) return Status::Ok();
  return ctx.Fail(name, " is ", Name(ctx.input_dtype(i)), "; ", Name(want), " is required");
}

// True unless some known dim of `s` is not 1 (a shape that may hold exactly one value).
bool MayBeOneValue(const Shape& s) {
  if (!s.rank_known()) return true;
  for (const Dim& d : s.dims()) {
    if (d.known() && d.value != 1) return false;
  }
  return true;
}

bool IsOneValue(const Shape& s) {
  std::optional<int64_t> n = s.NumElements();
  return n && *n == 1;
}

// Input i, when given, holds one value (per-tensor quantization).
Status CheckOneValue(const InferenceContext& ctx, size_t i, const char* name) {
  if (!ctx.has_input(i) || MayBeOneValue(ctx.input_shape(i))) return Status::Ok();
  return ctx.Fail(name, " has shape ", ctx.input_shape(i).ToString(),
                  "; one value (per-tensor quantization) is required");
}

// The scale `s` and zero point `z` of one tensor have the same shape (or hold one value each).
Status CheckPair(const InferenceContext& ctx, size_t s, size_t z, const char* s_name,
                 const char* z_name) {
  if (!ctx.has_input(s) || !ctx.has_input(z)) return Status::Ok();
  const Shape &a = ctx.input_shape(s), &b = ctx.input_shape(z);
  if (!a.rank_known() || !b.rank_known() || (IsOneValue(a) && IsOneValue(b))) {
    return Status::Ok();
  }
  bool same = a.rank() == b.rank();
  for (size_t i = 0; same && i < a.rank(); ++i) {
    same = !(a[i].known() && b[i].known() && a[i].value != b[i].value);
  }
  if (same) return Status::Ok();
  return ctx.Fail(s_name, " ", a.ToString(), " and ", z_name, " ", b.ToString(),
                  " must have the same shape");
}

// ---------------------------------------------------------------------------------------------
// Convolutions: X [N, C, D1...], W [M, C/group, k1...] -> Y [N, M, O1...], with Conv's window
// attributes (no ceil_mode).

// Attribute `name` (when given) has `n` values, each >= `min`; `dflt` each when absent.
Result<std::vector<int64_t>> WindowInts(const InferenceContext& ctx, const char* name, size_t n,
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

// Checks X (input `xi`), W (input `wi`) and the window attributes and sets output 0 to `out`
// with the convolution's dims. Sets `*m` to W's output-channel dim (unknown when W's rank is).
Status ConvOutput(InferenceContext& ctx, size_t xi, size_t wi, DataType out, Dim* m) {
  // The spatial rank, from X, else W, else kernel_shape.
  std::optional<size_t> spatial;
  for (auto [i, name] : {std::pair<size_t, const char*>{xi, "x"}, {wi, "w"}}) {
    const Shape& s = ctx.input_shape(i);
    if (!s.rank_known()) continue;
    if (s.rank() < 3) {
      return ctx.Fail(name, " has shape ", s.ToString(), "; rank >= 3 (N x C x spatial dims) ",
                      "is required");
    }
    if (!spatial) spatial = s.rank() - 2;
  }
  if (!spatial && ctx.has_attr("kernel_shape")) spatial = ctx.attr_ints("kernel_shape").size();
  if (!spatial) {
    ctx.set_output(0, out, Shape());
    return Status::Ok();
  }
  const size_t n = *spatial;
  KILN_ASSIGN_OR_RETURN(std::vector<Dim> x, DimsOfRank(ctx, xi, "x", n + 2));
  KILN_ASSIGN_OR_RETURN(std::vector<Dim> w, DimsOfRank(ctx, wi, "w", n + 2));
  *m = w[0];
  const int64_t group = ctx.attr_int("group");
  if (group < 1) return ctx.Fail("attribute 'group' must be >= 1, got ", group);
  const Dim& c = x[1];
  if (c.known() && w[1].known() && c.value != w[1].value * group) {
    return ctx.Fail("x has ", c.value, " channels but w.shape[1] * group = ", w[1].value, " * ",
                    group, " = ", w[1].value * group);
  }
  if (c.known() && c.value % group != 0) {
    return ctx.Fail("x has ", c.value, " channels, not a multiple of group ", group);
  }
  if (w[0].known() && w[0].value % group != 0) {
    return ctx.Fail("w has ", w[0].value, " output channels, not a multiple of group ", group);
  }

  // The kernel: kernel_shape, else W's spatial dims (-1 where unknown); both where both are.
  std::vector<int64_t> kernel;
  for (size_t i = 2; i < w.size(); ++i) kernel.push_back(w[i].value);
  if (ctx.has_attr("kernel_shape")) {
    KILN_ASSIGN_OR_RETURN(std::vector<int64_t> k, WindowInts(ctx, "kernel_shape", n, 1, 1));
    for (size_t i = 0; i < n; ++i) {
      if (kernel[i] >= 0 && kernel[i] != k[i]) {
        return ctx.Fail("attribute 'kernel_shape' = ", IntsStr(k), " does not match w's shape ",
                        Shape(w).ToString());
      }
    }
    kernel = std::move(k);
  }
  for (int64_t k : kernel) {
    if (k == 0) return ctx.Fail("w ", Shape(w).ToString(), " has a zero kernel dim");
  }
  KILN_ASSIGN_OR_RETURN(std::vector<int64_t> strides, WindowInts(ctx, "strides", n, 1, 1));
  KILN_ASSIGN_OR_RETURN(std::vector<int64_t> dilations, WindowInts(ctx, "dilations", n, 1, 1));
  KILN_ASSIGN_OR_RETURN(std::vector<int64_t> pads, WindowInts(ctx, "pads", 2 * n, 0, 0));
  const std::string auto_pad = ctx.attr_string("auto_pad");
  const bool same = auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER";
  // An empty auto_pad is NOTSET, as for Conv (some exporters write it).
  const bool explicit_pads = auto_pad == "NOTSET" || auto_pad.empty();
  if (!same && !explicit_pads && auto_pad != "VALID") {
    return ctx.Fail("attribute 'auto_pad' must be NOTSET, SAME_UPPER, SAME_LOWER or VALID, got \"",
                    auto_pad, "\"");
  }
  // auto_pad decides over pads (exporters sometimes write zero pads next to it).
  if (!explicit_pads) pads.assign(2 * n, 0);

  std::vector<Dim> y = {x[0], w[0]};
  for (size_t i = 0; i < n; ++i) {
    const Dim& in = x[i + 2];
    const int64_t s = strides[i];
    if (same) {
      y.push_back(in.known() ? Dim::Known(CeilDiv(in.value, s)) : (s == 1 ? in : Dim::Unknown()));
      continue;
    }
    if (kernel[i] < 0) {
      y.push_back(Dim::Unknown());
      continue;
    }
    const int64_t extent = dilations[i] * (kernel[i] - 1) + 1;
    const int64_t padding = pads[i] + pads[i + n];
    if (!in.known()) {
      y.push_back(s == 1 && padding == extent - 1 ? in : Dim::Unknown());
      continue;
    }
    const int64_t span = in.value + padding - extent;
    if (span < 0) {
      return ctx.Fail("spatial dim ", i, ": the window extent ", extent,
                      " exceeds the padded input size ", in.value + padding);
    }
    y.push_back(Dim::Known(span / s + 1));
  }
  ctx.set_output(0, out, Shape(std::move(y)));
  return Status::Ok();
}

// Input i, when given, holds one value or one per output channel: [M].
Status CheckPerChannel(const InferenceContext& ctx, size_t i, const char* name, const Dim& m) {
  if (!ctx.has_input(i)) return Status::Ok();
  const Shape& s = ctx.input_shape(i);
  if (MayBeOneValue(s)) return Status::Ok();
  if (s.rank() == 1 && !(s[0].known() && m.known() && s[0].value != m.value)) {
    return Status::Ok();
  }
  return ctx.Fail(name, " has shape ", s.ToString(), "; one value or one per output channel (",
                  m.known() ? std::to_string(m.value) : std::string("w.shape[0]"), ") is required");
}

// QLinearConv(x, x_scale, x_zero_point, w, w_scale, w_zero_point, y_scale, y_zero_point, B?)
// -> y of y_zero_point's type.
Status QLinearConv(InferenceContext& ctx) {
  KILN_RETURN_IF_ERROR(CheckGiven(ctx, {"x", "x_scale", "x_zero_point", "w", "w_scale",
                                        "w_zero_point", "y_scale", "y_zero_point"}),
                       "");
  KILN_RETURN_IF_ERROR(CheckQuantized(ctx, 0, "x"), "");
  KILN_RETURN_IF_ERROR(CheckZeroPointType(ctx, 2, "x_zero_point", 0, "x"), "");
  KILN_RETURN_IF_ERROR(CheckQuantized(ctx, 3, "w"), "");
  KILN_RETURN_IF_ERROR(CheckZeroPointType(ctx, 5, "w_zero_point", 3, "w"), "");
  KILN_RETURN_IF_ERROR(CheckQuantized(ctx, 7, "y_zero_point"), "");
  for (auto [i, name] :
       {std::pair<size_t, const char*>{1, "x_scale"}, {4, "w_scale"}, {6, "y_scale"}}) {
    KILN_RETURN_IF_ERROR(CheckType(ctx, i, name, DataType::kFloat32), "");
  }
  KILN_RETURN_IF_ERROR(CheckType(ctx, 8, "B", DataType::kInt32), "");
  Dim m;
  KILN_RETURN_IF_ERROR(ConvOutput(ctx, 0, 3, ctx.input_dtype(7), &m), "");
  KILN_RETURN_IF_ERROR(CheckOneValue(ctx, 1, "x_scale"), "");
  KILN_RETURN_IF_ERROR(CheckOneValue(ctx, 2, "x_zero_point"), "");
  KILN_RETURN_IF_ERROR(CheckPerChannel(ctx, 4, "w_scale", m), "");
  KILN_RETURN_IF_ERROR(CheckPerChannel(ctx, 5, "w_zero_point", m), "");
  KILN_RETURN_IF_ERROR(CheckPair(ctx, 4, 5, "w_scale", "w_zero_point"), "");
  KILN_RETURN_IF_ERROR(CheckOneValue(ctx, 6, "y_scale"), "");
  KILN_RETURN_IF_ERROR(CheckOneValue(ctx, 7, "y_zero_point"), "");
  if (ctx.has_input(8) && ctx.input_shape(8).rank_known()) {
    const Shape& b = ctx.input_shape(8);
    if (b.rank() != 1 || (b[0].known() && m.known() && b[0].value != m.value)) {
      return ctx.Fail("B has shape ", b.ToString(), "; one value per output channel (",
                      m.known() ? std::to_string(m.value) : std::string("w.shape[0]"),
                      ") is required");
    }
  }
  return Status::Ok();
}

// ConvInteger(x, w, x_zero_point?, w_zero_point?) -> int32 y.
Status ConvInteger(InferenceContext& ctx) {
  KILN_RETURN_IF_ERROR(CheckGiven(ctx, {"x", "w"}), "");
  KILN_RETURN_IF_ERROR(CheckQuantized(ctx, 0, "x"), "");
  KILN_RETURN_IF_ERROR(CheckQuantized(ctx, 1, "w"), "");
  KILN_RETURN_IF_ERROR(CheckZeroPointType(ctx, 2, "x_zero_point", 0, "x"), "");
  KILN_RETURN_IF_ERROR(CheckZeroPointType(ctx, 3, "w_zero_point", 1, "w"), "");
  Dim m;
  KILN_RETURN_IF_ERROR(ConvOutput(ctx, 0, 1, DataType::kInt32, &m), "");
  KILN_RETURN_IF_ERROR(CheckOneValue(ctx, 2, "x_zero_point"), "");
  return CheckPerChannel(ctx, 3, "w_zero_point", m);
}

// ---------------------------------------------------------------------------------------------
// Matrix products: numpy.matmul of A [..., M, K] and B [..., K, N]; a 1-D A is a row, a 1-D B
// a column, and the added dim is dropped from the result.

Result<Shape> MatMulShape(const InferenceContext& ctx, const Shape& a, const Shape& b) {
  if (!a.rank_known() || !b.rank_known()) return Shape();
  if (a.rank() == 0 || b.rank() == 0) {
    return ctx.Fail("a and b must have rank >= 1, got ", a.ToString(), " and ", b.ToString());
  }
  std::vector<Dim> ad = a.dims(), bd = b.dims();
  if (a.rank() == 1) ad.insert(ad.begin(), Dim::Known(1));
  if (b.rank() == 1) bd.push_back(Dim::Known(1));
  const Dim &ka = ad.back(), &kb = bd[bd.size() - 2];
  if (ka.known() && kb.known() && ka.value != kb.value) {
    return ctx.Fail("a ", a.ToString(), " and b ", b.ToString(), " disagree on the inner dim (",
                    ka.value, " vs ", kb.value, ")");
  }
  std::optional<Shape> batch = Broadcast(Shape(std::vector<Dim>(ad.begin(), ad.end() - 2)),
                                         Shape(std::vector<Dim>(bd.begin(), bd.end() - 2)));
  if (!batch) {
    return ctx.Fail("the batch dims of a ", a.ToString(), " and b ", b.ToString(),
                    " cannot be broadcast together");
  }
  std::vector<Dim> out = batch->dims();
  if (a.rank() > 1) out.push_back(ad[ad.size() - 2]);
  if (b.rank() > 1) out.push_back(bd.back());
  return Shape(std::move(out));
}

// Input i (a scale or zero point of the matrix input `of`), when given, holds one value, or one
// per row of `of` ([M] or [..., M, 1], `rows`) or one per column ([N] or [..., 1, N]). The
// leading dims of the N-D form are those of `of` or 1.
Status CheckMatMulParam(const InferenceContext& ctx, size_t i, const char* name, size_t of,
                        bool rows) {
  if (!ctx.has_input(i)) return Status::Ok();
  const Shape& p = ctx.input_shape(i);
  const Shape& x = ctx.input_shape(of);
  if (MayBeOneValue(p) || !x.rank_known()) return Status::Ok();
  const char* per = rows ? "row" : "column";
  if (x.rank() < 2) {
    return ctx.Fail(name, " has shape ", p.ToString(), " but its input ", x.ToString(),
                    " is a vector; one value is required");
  }
  const size_t r = x.rank();
  const Dim& len = rows ? x[r - 2] : x[r - 1];
  auto fits = [](const Dim& d, const Dim& want) {
    return !(d.known() && want.known() && d.value != want.value);
  };
  bool ok = false;
  if (p.rank() == 1) {
    ok = fits(p[0], len);
  } else if (p.rank() == r) {
    ok = fits(rows ? p[r - 2] : p[r - 1], len) && fits(rows ? p[r - 1] : p[r - 2], Dim::Known(1));
    for (size_t d = 0; ok && d + 2 < r; ++d) {
      ok = fits(p[d], x[d]) || (p[d].known() && p[d].value == 1);
    }
  }
  if (ok) return Status::Ok();
  std::vector<Dim> want(x.dims().begin(), x.dims().end() - 2);
  want.push_back(rows ? len : Dim::Known(1));
  want.push_back(rows ? Dim::Known(1) : len);
  return ctx.Fail(name, " has shape ", p.ToString(), "; one value, or one per ", per, " of ",
                  x.ToString(), " (", Shape(std::vector<Dim>{len}).ToString(), " or ",
                  Shape(want).ToString(), ") is required");
}

// MatMulInteger(A, B, a_zero_point?, b_zero_point?) -> int32 Y.
Status MatMulInteger(InferenceContext& ctx) {
  KILN_RETURN_IF_ERROR(CheckGiven(ctx, {"A", "B"}), "");
  KILN_RETURN_IF_ERROR(CheckQuantized(ctx, 0, "A"), "");
  KILN_RETURN_IF_ERROR(CheckQuantized(ctx, 1, "B"), "");
  KILN_RETURN_IF_ERROR(CheckZeroPointType(ctx, 2, "a_zero_point", 0, "A"), "");
  KILN_RETURN_IF_ERROR(CheckZeroPointType(ctx, 3, "b_zero_point", 1, "B"), "");
  KILN_ASSIGN_OR_RETURN(Shape y, MatMulShape(ctx, ctx.input_shape(0), ctx.input_shape(1)));
  KILN_RETURN_IF_ERROR(CheckMatMulParam(ctx, 2, "a_zero_point", 0, true), "");
  KILN_RETURN_IF_ERROR(CheckMatMulParam(ctx, 3, "b_zero_point", 1, false), "");
  ctx.set_output(0, DataType::kInt32, std::move(y));
  return Status::Ok();
}

// QLinearMatMul(a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point) -> y
// of y_zero_point's type. The scales are float32, and from opset 21 float32, float16 or
// bfloat16, all three of one type.
Status QLinearMatMul(InferenceContext& ctx) {
  KILN_RETURN_IF_ERROR(CheckGiven(ctx, {"a", "a_scale", "a_zero_point", "b", "b_scale",
                                        "b_zero_point", "y_scale", "y_zero_point"}),
                       "");
  KILN_RETURN_IF_ERROR(CheckQuantized(ctx, 0, "a"), "");
  KILN_RETURN_IF_ERROR(CheckZeroPointType(ctx, 2, "a_zero_point", 0, "a"), "");
  KILN_RETURN_IF_ERROR(CheckQuantized(ctx, 3, "b"), "");
  KILN_RETURN_IF_ERROR(CheckZeroPointType(ctx, 5, "b_zero_point", 3, "b"), "");
  KILN_RETURN_IF_ERROR(CheckQuantized(ctx, 7, "y_zero_point"), "");
  const DataType scale = ctx.input_dtype(1);
  if (ctx.opset() < 21) {
    KILN_RETURN_IF_ERROR(CheckType(ctx, 1, "a_scale", DataType::kFloat32), "");
  } else if (scale != DataType::kFloat32 && scale != DataType::kFloat16 &&
             scale != DataType::kBFloat16) {
    return ctx.Fail("a_scale is ", Name(scale), "; float32, float16 or bfloat16 is required");
  }
  KILN_RETURN_IF_ERROR(CheckType(ctx, 4, "b_scale", scale), "");
  KILN_RETURN_IF_ERROR(CheckType(ctx, 6, "y_scale", scale), "");
  KILN_ASSIGN_OR_RETURN(Shape y, MatMulShape(ctx, ctx.input_shape(0), ctx.input_shape(3)));
  KILN_RETURN_IF_ERROR(CheckMatMulParam(ctx, 1, "a_scale", 0, true), "");
  KILN_RETURN_IF_ERROR(CheckMatMulParam(ctx, 2, "a_zero_point", 0, true), "");
  KILN_RETURN_IF_ERROR(CheckPair(ctx, 1, 2, "a_scale", "a_zero_point"), "");
  KILN_RETURN_IF_ERROR(CheckMatMulParam(ctx, 4, "b_scale", 3, false), "");
  KILN_RETURN_IF_ERROR(CheckMatMulParam(ctx, 5, "b_zero_point", 3, false), "");
  KILN_RETURN_IF_ERROR(CheckPair(ctx, 4, 5, "b_scale", "b_zero_point"), "");
  KILN_RETURN_IF_ERROR(CheckOneValue(ctx, 6, "y_scale"), "");
  KILN_RETURN_IF_ERROR(CheckOneValue(ctx, 7, "y_zero_point"), "");
  ctx.set_output(0, ctx.input_dtype(7), std::move(y));
  return Status::Ok();
}

// Conv's window attributes: strides, dilations and pads default to 1, 1 and 0 per spatial dim,
// so their absence is kept (the spatial rank comes from the inputs).
std::vector<AttrSpec> ConvAttrs() {
  return {Attr("auto_pad", "NOTSET"),
          Attr("group", 1),
          OptionalAttr("kernel_shape", AttrKind::kInts),
          OptionalAttr("strides", AttrKind::kInts),
          OptionalAttr("dilations", AttrKind::kInts),
          OptionalAttr("pads", AttrKind::kInts)};
}

}  // namespace

void RegisterQLinearOps(OpRegistry& r) {
  constexpr const char* kFamily = "qlinear";
  r.Register(MakeSchema("QLinearConv", 10, 8, 9, 1, 1, kFamily, QLinearConv).Attrs(ConvAttrs()));
  r.Register(MakeSchema("ConvInteger", 10, 2, 4, 1, 1, kFamily, ConvInteger).Attrs(ConvAttrs()));
  // Opset 21 added float16 and bfloat16 scales (and the float8 types Kiln does not have).
  r.Register(MakeSchema("QLinearMatMul", 10, 8, 8, 1, 1, kFamily, QLinearMatMul));
  r.Register(MakeSchema("MatMulInteger", 10, 2, 4, 1, 1, kFamily, MatMulInteger));
}

}  // namespace kiln::ir
