// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Quantization ops: QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear.
//
// The scale and zero point select the granularity: one element (per tensor), a 1-D tensor as
// long as x's `axis` (per axis, from opset 13), or, with block_size (opset 21), x's shape with
// ceil(D / block_size) on `axis` (blocked). The quantized types: uint8 and int8; the float8
// types from opset 19; uint16, int16, uint4 and int4 from 21; float4e2m1 from 23; uint2 and
// int2 from 25 (kernels/low_precision.h converts the low-precision ones).
#include <string>

#include "ir/ops/infer_util.h"

namespace kiln::ir {
namespace {

// The quantized types of opset `opset`.
bool IsQuantizedType(DataType t, int opset) {
  switch (t) {
    case DataType::kUint8:
    case DataType::kInt8:
      return true;
    case DataType::kFloat8E4M3FN:
    case DataType::kFloat8E4M3FNUZ:
    case DataType::kFloat8E5M2:
    case DataType::kFloat8E5M2FNUZ:
      return opset >= 19;
    case DataType::kUint16:
    case DataType::kInt16:
    case DataType::kUint4:
    case DataType::kInt4:
      return opset >= 21;
    case DataType::kFloat4E2M1:
      return opset >= 23;
    case DataType::kUint2:
    case DataType::kInt2:
      return opset >= 25;
    default:
      return false;
  }
}

// The names of the quantized types of `opset`, for messages.
const char* QuantizedTypeNames(int opset) {
  if (opset >= 25)
    return "uint8, int8, float8, uint16, int16, uint4, int4, float4e2m1, uint2 or int2";
  if (opset >= 23) return "uint8, int8, float8, uint16, int16, uint4, int4 or float4e2m1";
  if (opset >= 21) return "uint8, int8, float8, uint16, int16, uint4 or int4";
  if (opset >= 19) return "uint8, int8 or float8";
  return "uint8 or int8";
}

bool IsFloatOutputType(DataType t) {
  return t == DataType::kFloat32 || t == DataType::kFloat16 || t == DataType::kBFloat16;
}

// The type an int attribute `name` names; kInvalidParam for numbers that are no type Kiln
// knows. kUndefined for 0 (the default: none).
Result<DataType> TypeAttr(const InferenceContext& ctx, const char* name) {
  const int64_t v = ctx.attr_int(name);
  if (v == 0) return DataType::kUndefined;
  const DataType t =
      v > 0 && v < (int64_t{1} << 30) ? FromOnnx(static_cast<int32_t>(v)) : DataType::kUndefined;
  if (t == DataType::kUndefined) {
    return ctx.Fail("attribute '", name, "' = ", v, " is not an ONNX tensor type");
  }
  return t;
}

bool OneElement(const Shape& s) {
  std::optional<int64_t> n = s.NumElements();
  return n && *n == 1;
}

// Checks the scale (input 1) and zero point (input 2) shapes against x (input 0).
Status CheckQuantParams(const InferenceContext& ctx) {
  const InferenceContext& node = ctx;
  const Shape& x = ctx.input_shape(0);
  const Shape& s = ctx.input_shape(1);
  if (ctx.has_input(2)) {
    const Shape& z = ctx.input_shape(2);
    bool same = !(s.rank_known() && z.rank_known()) || (OneElement(s) && OneElement(z));
    if (!same && s.rank() == z.rank()) {
      same = true;
      for (size_t i = 0; i < s.rank(); ++i) {
        if (s[i].known() && z[i].known() && s[i].value != z[i].value) same = false;
      }
    }
    if (!same) {
      return ctx.Fail("the zero point ", z.ToString(), " and the scale ", s.ToString(),
                      " must have the same shape");
    }
  }
  const int64_t block_size = ctx.opset() >= 21 ? node.attr_int("block_size") : 0;
  if (block_size < 0) return ctx.Fail("block_size must not be negative, got ", block_size);
  const int64_t axis = ctx.opset() >= 13 ? node.attr_int("axis") : 1;
  if (!s.rank_known() || OneElement(s)) return Status::Ok();  // per tensor (or unknown)
  if (block_size == 0) {
    if (s.rank() > 1) {
      return ctx.Fail("the scale ", s.ToString(), " must be a scalar or 1-D; a scale of ",
                      "the input's rank needs the block_size attribute (opset 21)");
    }
    if (s.rank() == 0) return Status::Ok();
    if (ctx.opset() < 13) {
      if (s[0].known()) {
        return ctx.Fail("the scale ", s.ToString(), " must hold one value before opset 13 ",
                        "(per-axis quantization came with opset 13)");
      }
      return Status::Ok();
    }
    if (!x.rank_known()) return Status::Ok();
    std::optional<int64_t> a = NormalizeAxis(axis, static_cast<int64_t>(x.rank()));
    if (!a) {
      return ctx.Fail("axis ", axis, " is out of range for input ", x.ToString(), " of rank ",
                      x.rank());
    }
    const Dim& d = x[static_cast<size_t>(*a)];
    if (d.known() && s[0].known() && d.value != s[0].value) {
      return ctx.Fail("the per-axis scale ", s.ToString(), " must have one value per index of ",
                      "axis ", *a, " of input ", x.ToString());
    }
    return Status::Ok();
  }
  if (!x.rank_known()) return Status::Ok();
  if (s.rank() != x.rank()) {
    return ctx.Fail("the blocked scale ", s.ToString(), " must have the rank of input ",
                    x.ToString());
  }
  std::optional<int64_t> a = NormalizeAxis(axis, static_cast<int64_t>(x.rank()));
  if (!a) {
    return ctx.Fail("axis ", axis, " is out of range for input ", x.ToString(), " of rank ",
                    x.rank());
  }
  for (size_t i = 0; i < x.rank(); ++i) {
    if (!x[i].known() || !s[i].known()) continue;
    const int64_t want =
        i == static_cast<size_t>(*a) ? (x[i].value + block_size - 1) / block_size : x[i].value;
    if (s[i].value != want) {
      return ctx.Fail("the blocked scale ", s.ToString(), " does not fit input ", x.ToString(),
                      " with block_size ", block_size, " on axis ", *a, ": dim ", i, " must be ",
                      want);
    }
  }
  return Status::Ok();
}

// QuantizeLinear(x, y_scale, y_zero_point?) -> y.
Status QuantizeLinear(InferenceContext& ctx) {
  const int opset = ctx.opset();
  const DataType x = ctx.input_dtype(0);
  const bool x_ok = x == DataType::kFloat32 || x == DataType::kInt32 ||
                    (opset >= 19 && (x == DataType::kFloat16 || x == DataType::kBFloat16));
  if (!x_ok) {
    return ctx.Fail("x is ", Name(x), "; float32", opset >= 19 ? ", float16, bfloat16" : "",
                    " or int32 is required");
  }
  const DataType scale = ctx.input_dtype(1);
  if (opset < 19 && scale != DataType::kFloat32) {
    return ctx.Fail("y_scale is ", Name(scale), "; float32 is required");
  }
  if (opset >= 19 && opset < 23 && scale != x) {
    return ctx.Fail("y_scale is ", Name(scale), " but x is ", Name(x),
                    "; before opset 23 they must have the same type");
  }
  if (opset >= 23 && !IsFloatOutputType(scale) && scale != DataType::kInt32) {
    return ctx.Fail("y_scale is ", Name(scale), "; float32, float16, bfloat16 or int32 ",
                    "is required");
  }
  DataType out = DataType::kUint8;
  if (ctx.has_input(2)) {
    out = ctx.input_dtype(2);
    if (!IsQuantizedType(out, opset)) {
      return ctx.Fail("y_zero_point is ", Name(out), "; ", QuantizedTypeNames(opset),
                      " is required");
    }
  }
  if (opset >= 21) {
    KILN_ASSIGN_OR_RETURN(DataType wanted, TypeAttr(ctx, "output_dtype"));
    if (wanted != DataType::kUndefined) {
      if (!IsQuantizedType(wanted, opset)) {
        return ctx.Fail("output_dtype ", Name(wanted), " is not a quantized type; ",
                        QuantizedTypeNames(opset), " is required");
      }
      if (ctx.has_input(2) && wanted != out) {
        return ctx.Fail("output_dtype ", Name(wanted), " does not match y_zero_point type ",
                        Name(out));
      }
      out = wanted;
    }
  }
  if (opset >= 23) {
    KILN_ASSIGN_OR_RETURN(DataType precision, TypeAttr(ctx, "precision"));
    if (precision != DataType::kUndefined && !IsFloat(precision)) {
      return ctx.Unsupported("precision ", Name(precision), " is not supported; a float type ",
                             "is required");
    }
  }
  KILN_RETURN_IF_ERROR(CheckQuantParams(ctx), "");
  ctx.set_output(0, out, ctx.input_shape(0));
  return Status::Ok();
}

// DequantizeLinear(x, x_scale, x_zero_point?) -> y.
Status DequantizeLinear(InferenceContext& ctx) {
  const int opset = ctx.opset();
  const DataType x = ctx.input_dtype(0);
  if (!IsQuantizedType(x, opset) && x != DataType::kInt32) {
    return ctx.Fail("x is ", Name(x), "; ", QuantizedTypeNames(opset), " or int32 is required");
  }
  const DataType scale = ctx.input_dtype(1);
  if (opset < 19 ? scale != DataType::kFloat32 : !IsFloatOutputType(scale)) {
    return ctx.Fail("x_scale is ", Name(scale), "; float32",
                    opset >= 19 ? ", float16 or bfloat16" : "", " is required");
  }
  if (ctx.has_input(2) && ctx.input_dtype(2) != x) {
    return ctx.Fail("x_zero_point is ", Name(ctx.input_dtype(2)), " but x is ", Name(x),
                    "; they must have the same type");
  }
  DataType out = scale;
  if (opset >= 23) {
    KILN_ASSIGN_OR_RETURN(DataType wanted, TypeAttr(ctx, "output_dtype"));
    if (wanted != DataType::kUndefined) {
      if (!IsFloatOutputType(wanted)) {
        return ctx.Fail("output_dtype ", Name(wanted), " is not float32, float16 or bfloat16");
      }
      out = wanted;
    }
  }
  KILN_RETURN_IF_ERROR(CheckQuantParams(ctx), "");
  ctx.set_output(0, out, ctx.input_shape(0));
  return Status::Ok();
}

// DynamicQuantizeLinear(x) -> (y, y_scale, y_zero_point), uint8 only.
Status DynamicQuantizeLinear(InferenceContext& ctx) {
  if (ctx.input_dtype(0) != DataType::kFloat32) {
    return ctx.Fail("x is ", Name(ctx.input_dtype(0)), "; float32 is required");
  }
  ctx.set_output(0, DataType::kUint8, ctx.input_shape(0));
  ctx.set_output(1, DataType::kFloat32, Shape::Scalar());
  ctx.set_output(2, DataType::kUint8, Shape::Scalar());
  return Status::Ok();
}

}  // namespace

void RegisterQuantizeOps(OpRegistry& r) {
  constexpr const char* kFamily = "quantize";
  // 'saturate' only changes float8 results.
  r.Register(MakeSchema("QuantizeLinear", 10, 2, 3, 1, 1, kFamily, QuantizeLinear)
                 .Attrs({Attr("axis", 1).Since(13), Attr("saturate", 1).Since(19),
                         Attr("block_size", 0).Since(21), Attr("output_dtype", 0).Since(21),
                         Attr("precision", 0).Since(23)})
                 .Traits(kTraitLowPrecision));
  r.Register(MakeSchema("DequantizeLinear", 10, 2, 3, 1, 1, kFamily, DequantizeLinear)
                 .Attrs({Attr("axis", 1).Since(13), Attr("block_size", 0).Since(21),
                         Attr("output_dtype", 0).Since(23)})
                 .Traits(kTraitLowPrecision));
  r.Register(MakeSchema("DynamicQuantizeLinear", 11, 1, 1, 3, 3, kFamily, DynamicQuantizeLinear));
}

}  // namespace kiln::ir
