// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Elementwise ops: unary math and activations, broadcasting binary and variadic arithmetic,
// comparisons, logic and bitwise ops, Where, Clip, Cast/CastLike/BitCast, Identity and Dropout.
#include <limits>
#include <string>
#include <utility>

#include "ir/ops/infer_util.h"

namespace kiln::ir {
namespace {

bool IsNumeric(DataType t) { return IsFloat(t) || IsInteger(t); }

Status UnaryFloat(InferenceContext& ctx) {
  if (!IsFloat(ctx.input_dtype(0))) {
    return ctx.Fail("input is ", Name(ctx.input_dtype(0)), "; a floating-point type is required");
  }
  return InferSameAsInput(ctx);
}

// Celu divides by alpha.
Status Celu(InferenceContext& ctx) {
  if (ctx.attr_float("alpha") == 0) return ctx.Fail("attribute 'alpha' must not be 0");
  return UnaryFloat(ctx);
}

Status Gelu(InferenceContext& ctx) {
  const std::string a = ctx.attr_string("approximate");
  if (a != "none" && a != "tanh") {
    return ctx.Fail("attribute 'approximate' must be \"none\" or \"tanh\", got \"", a, "\"");
  }
  return UnaryFloat(ctx);
}

Status UnaryNumeric(InferenceContext& ctx) {
  DataType t = ctx.input_dtype(0);
  if (!IsNumeric(t)) return ctx.Fail("input is ", Name(t), "; a numeric type is required");
  return InferSameAsInput(ctx);
}

Status UnaryInteger(InferenceContext& ctx) {
  if (!IsInteger(ctx.input_dtype(0))) {
    return ctx.Fail("input is ", Name(ctx.input_dtype(0)), "; an integer type is required");
  }
  return InferSameAsInput(ctx);
}

Status UnaryBool(InferenceContext& ctx) {
  if (ctx.input_dtype(0) != DataType::kBool) {
    return ctx.Fail("input is ", Name(ctx.input_dtype(0)), "; bool is required");
  }
  return InferSameAsInput(ctx);
}

// IsNaN, IsInf: float in, bool out.
Status FloatPredicate(InferenceContext& ctx) {
  if (!IsFloat(ctx.input_dtype(0))) {
    return ctx.Fail("input is ", Name(ctx.input_dtype(0)), "; a floating-point type is required");
  }
  ctx.set_output(0, DataType::kBool, ctx.input_shape(0));
  return Status::Ok();
}

// Inputs of one type, broadcast together; the output has their type.
Status Binary(InferenceContext& ctx) {
  KILN_RETURN_IF_ERROR(CheckSameDtype(ctx, 0, ctx.num_inputs()), "");
  KILN_ASSIGN_OR_RETURN(Shape shape, BroadcastInputs(ctx, 0, ctx.num_inputs()));
  ctx.set_output(0, ctx.input_dtype(0), std::move(shape));
  return Status::Ok();
}

// Add, Sub, Mul, Div and the variadic Min, Max, Sum, Mean: numbers of one type.
Status Arithmetic(InferenceContext& ctx) {
  if (!IsNumeric(ctx.input_dtype(0))) {
    return ctx.Fail("input 0 is ", Name(ctx.input_dtype(0)), "; a numeric type is required");
  }
  return Binary(ctx);
}

// Pow: base and exponent may differ in type; the result has the base's type.
Status Pow(InferenceContext& ctx) {
  for (size_t i = 0; i < 2; ++i) {
    if (!IsNumeric(ctx.input_dtype(i))) {
      return ctx.Fail(i == 0 ? "the base" : "the exponent", " is ", Name(ctx.input_dtype(i)),
                      "; a numeric type is required");
    }
  }
  KILN_ASSIGN_OR_RETURN(Shape shape, BroadcastInputs(ctx, 0, 2));
  ctx.set_output(0, ctx.input_dtype(0), std::move(shape));
  return Status::Ok();
}

// PRelu: slope broadcasts to X (unidirectional).
Status PRelu(InferenceContext& ctx) {
  if (!IsNumeric(ctx.input_dtype(0))) {
    return ctx.Fail("X is ", Name(ctx.input_dtype(0)), "; a numeric type is required");
  }
  KILN_RETURN_IF_ERROR(CheckSameDtype(ctx, 0, 2), "");
  KILN_ASSIGN_OR_RETURN(Shape shape, BroadcastInputs(ctx, 0, 2));
  if (ctx.input_shape(0).rank_known() && shape.rank_known() && !(shape == ctx.input_shape(0)) &&
      ctx.input_shape(0).IsStatic() && shape.IsStatic()) {
    return ctx.Fail("slope ", ctx.input_shape(1).ToString(), " does not broadcast to X ",
                    ctx.input_shape(0).ToString());
  }
  return InferSameAsInput(ctx);
}

// Comparisons: two inputs of one type, bool out. Equal also compares bools.
Status Compare(InferenceContext& ctx) {
  const DataType t = ctx.input_dtype(0);
  const bool bool_ok = ctx.op_type() == "Equal";
  if (t == DataType::kString && bool_ok) return ctx.Unsupported("string inputs are not supported");
  if (!IsNumeric(t) && !(bool_ok && t == DataType::kBool)) {
    return ctx.Fail("input 0 is ", Name(t), "; a numeric type", bool_ok ? " or bool" : "",
                    " is required");
  }
  KILN_RETURN_IF_ERROR(CheckSameDtype(ctx, 0, 2), "");
  KILN_ASSIGN_OR_RETURN(Shape shape, BroadcastInputs(ctx, 0, 2));
  ctx.set_output(0, DataType::kBool, std::move(shape));
  return Status::Ok();
}

Status Logical(InferenceContext& ctx) {
  for (size_t i = 0; i < 2; ++i) {
    if (ctx.input_dtype(i) != DataType::kBool) {
      return ctx.Fail("input ", i, " is ", Name(ctx.input_dtype(i)), "; bool is required");
    }
  }
  KILN_ASSIGN_OR_RETURN(Shape shape, BroadcastInputs(ctx, 0, 2));
  ctx.set_output(0, DataType::kBool, std::move(shape));
  return Status::Ok();
}

Status Where(InferenceContext& ctx) {
  if (ctx.input_dtype(0) != DataType::kBool) {
    return ctx.Fail("condition is ", Name(ctx.input_dtype(0)), "; bool is required");
  }
  KILN_RETURN_IF_ERROR(CheckSameDtype(ctx, 1, 3), "");
  KILN_ASSIGN_OR_RETURN(Shape shape, BroadcastInputs(ctx, 0, 3));
  ctx.set_output(0, ctx.input_dtype(1), std::move(shape));
  return Status::Ok();
}

Status Clip(InferenceContext& ctx) {
  if (!IsNumeric(ctx.input_dtype(0))) {
    return ctx.Fail("input is ", Name(ctx.input_dtype(0)), "; a numeric type is required");
  }
  KILN_RETURN_IF_ERROR(CheckSameDtype(ctx, 0, 3), "");
  // ONNX says scalar; exporters also write one-element tensors ([1]), which mean the same.
  for (size_t i = 1; i < 3; ++i) {
    if (!ctx.has_input(i)) continue;
    auto n = ctx.input_shape(i).NumElements();
    if (n && *n != 1) {
      return ctx.Fail(i == 1 ? "min" : "max", " must be a scalar, got shape ",
                      ctx.input_shape(i).ToString());
    }
  }
  return InferSameAsInput(ctx);
}

// The type attribute 'to' names (Cast, BitCast); kFeatureUnsupported for types Kiln lacks.
Result<DataType> ToAttr(const InferenceContext& ctx) {
  const int64_t to = ctx.attr_int("to");
  const DataType t =
      to > 0 && to < (int64_t{1} << 30) ? FromOnnx(static_cast<int32_t>(to)) : DataType::kUndefined;
  if (t == DataType::kUndefined || t == DataType::kString) {
    return ctx.Unsupported("attribute 'to' = ", to, " names a type Kiln does not support");
  }
  return t;
}

// Cast's and CastLike's 'round_mode' (opset 24), for E8M0 targets.
Status CheckRoundMode(const InferenceContext& ctx) {
  if (ctx.opset() < 24) return Status::Ok();
  const std::string mode = ctx.attr_string("round_mode");
  if (mode != "up" && mode != "down" && mode != "nearest") {
    return ctx.Fail("attribute 'round_mode' must be \"up\", \"down\" or \"nearest\", got \"", mode,
                    "\"");
  }
  return Status::Ok();
}

Status Cast(InferenceContext& ctx) {
  KILN_ASSIGN_OR_RETURN(DataType t, ToAttr(ctx));
  KILN_RETURN_IF_ERROR(CheckRoundMode(ctx), "");
  ctx.set_output(0, t, ctx.input_shape(0));
  return Status::Ok();
}

Status CastLike(InferenceContext& ctx) {
  KILN_RETURN_IF_ERROR(CheckRoundMode(ctx), "");
  ctx.set_output(0, ctx.input_dtype(1), ctx.input_shape(0));
  return Status::Ok();
}

// Dropout (inference): output 0 = input; the optional mask has the input's shape, typed like
// the input in Dropout-7 and bool from opset 10. From opset 12 the ratio and training_mode
// are optional scalar inputs.
Status Dropout(InferenceContext& ctx) {
  if (ctx.opset() >= 12) {
    if (ctx.has_input(1) && !IsFloat(ctx.input_dtype(1))) {
      return ctx.Fail("ratio is ", Name(ctx.input_dtype(1)), "; a floating-point type is required");
    }
    if (ctx.has_input(2) && ctx.input_dtype(2) != DataType::kBool) {
      return ctx.Fail("training_mode is ", Name(ctx.input_dtype(2)), "; bool is required");
    }
    for (size_t i = 1; i < 3; ++i) {
      if (!ctx.has_input(i)) continue;
      auto n = ctx.input_shape(i).NumElements();
      if (n && *n != 1) {
        return ctx.Fail(i == 1 ? "ratio" : "training_mode", " must be a scalar, got shape ",
                        ctx.input_shape(i).ToString());
      }
    }
  } else if (ctx.has_input(1) || ctx.has_input(2)) {
    return ctx.Fail("takes ratio and training_mode as inputs only from opset 12");
  }
  ctx.set_output(0, ctx.input_type(0));
  if (ctx.num_outputs() > 1) {
    ctx.set_output(1, ctx.opset() < 10 ? ctx.input_dtype(0) : DataType::kBool, ctx.input_shape(0));
  }
  return Status::Ok();
}

Status BitShift(InferenceContext& ctx) {
  std::string dir = ctx.attr_string("direction");
  if (dir != "LEFT" && dir != "RIGHT") {
    return ctx.Fail("attribute 'direction' must be \"LEFT\" or \"RIGHT\", got \"", dir, "\"");
  }
  if (!IsInteger(ctx.input_dtype(0)) || IsSigned(ctx.input_dtype(0))) {
    return ctx.Fail("input is ", Name(ctx.input_dtype(0)), "; an unsigned integer is required");
  }
  return Binary(ctx);
}

// BitwiseAnd/Or/Xor: integers of one type, broadcast.
Status Bitwise(InferenceContext& ctx) {
  if (!IsInteger(ctx.input_dtype(0))) {
    return ctx.Fail("input is ", Name(ctx.input_dtype(0)), "; an integer type is required");
  }
  return Binary(ctx);
}

// BitCast: reinterprets the bits as attribute 'to', which must have the input's width.
Status BitCast(InferenceContext& ctx) {
  KILN_ASSIGN_OR_RETURN(DataType t, ToAttr(ctx));
  DataType in = ctx.input_dtype(0);
  if (in == DataType::kString) return ctx.Unsupported("string input is not supported");
  if (SizeOf(in) != SizeOf(t)) {
    return ctx.Fail("input is ", Name(in), " and 'to' is ", Name(t),
                    "; they must have the same bit width");
  }
  ctx.set_output(0, t, ctx.input_shape(0));
  return Status::Ok();
}

Status Mod(InferenceContext& ctx) {
  const int64_t fmod = ctx.attr_int("fmod");
  if (fmod != 0 && fmod != 1) return ctx.Fail("attribute 'fmod' must be 0 or 1, got ", fmod);
  if (IsFloat(ctx.input_dtype(0)) && fmod != 1) {
    return ctx.Fail("floating-point Mod needs fmod=1");
  }
  return Arithmetic(ctx);
}

}  // namespace

void RegisterElementwiseOps(OpRegistry& r) {
  constexpr const char* kFamily = "elementwise";
  // Element by element: the same in any memory layout; most may also write over their input.
  constexpr uint32_t kUnary = kTraitLayoutAgnostic;
  constexpr uint32_t kInPlaceUnary = kTraitLayoutAgnostic | kTraitInPlace;
  constexpr uint32_t kActivation = kInPlaceUnary | kTraitFusableActivation;
  struct Op {
    const char* name;
    uint32_t traits;
  };
  // Unary on floats without attributes (math and activations).
  for (Op op : {Op{"Exp", kInPlaceUnary},   Op{"Log", kInPlaceUnary},
                Op{"Sqrt", kInPlaceUnary},  Op{"Reciprocal", kInPlaceUnary},
                Op{"Floor", kInPlaceUnary}, Op{"Ceil", kInPlaceUnary},
                Op{"Round", kInPlaceUnary}, Op{"Sin", kUnary},
                Op{"Cos", kUnary},          Op{"Tan", kUnary},
                Op{"Asin", kUnary},         Op{"Acos", kUnary},
                Op{"Atan", kUnary},         Op{"Sinh", kUnary},
                Op{"Cosh", kUnary},         Op{"Asinh", kUnary},
                Op{"Acosh", kUnary},        Op{"Atanh", kUnary},
                Op{"Erf", kInPlaceUnary},   Op{"Sigmoid", kActivation},
                Op{"Tanh", kActivation},    Op{"Softplus", kInPlaceUnary},
                Op{"Softsign", kUnary},     Op{"HardSwish", kActivation},
                Op{"Mish", kInPlaceUnary}}) {
    r.Register(MakeSchema(op.name, 6, 1, 1, 1, 1, kFamily, UnaryFloat).Traits(op.traits));
  }
  // Unary on floats with attributes (the defaults are ONNX's, the same in every opset).
  r.Register(MakeSchema("Elu", 6, 1, 1, 1, 1, kFamily, UnaryFloat)
                 .Attrs({Attr("alpha", 1.0)})
                 .Traits(kInPlaceUnary));
  // Selu's defaults are the float32 values of ONNX's (opset 6 on; opset 1 had shorter ones).
  r.Register(MakeSchema("Selu", 6, 1, 1, 1, 1, kFamily, UnaryFloat)
                 .Attrs({Attr("alpha", 1.67326319217681884765625),
                         Attr("gamma", 1.05070102214813232421875)})
                 .Traits(kInPlaceUnary));
  r.Register(MakeSchema("LeakyRelu", 6, 1, 1, 1, 1, kFamily, UnaryFloat)
                 .Attrs({Attr("alpha", 0.01)})
                 .Traits(kActivation));
  r.Register(MakeSchema("HardSigmoid", 6, 1, 1, 1, 1, kFamily, UnaryFloat)
                 .Attrs({Attr("alpha", 0.2), Attr("beta", 0.5)})
                 .Traits(kActivation));
  r.Register(
      MakeSchema("Celu", 6, 1, 1, 1, 1, kFamily, Celu).Attrs({Attr("alpha", 1.0)}).Traits(kUnary));
  r.Register(MakeSchema("ThresholdedRelu", 6, 1, 1, 1, 1, kFamily, UnaryFloat)
                 .Attrs({Attr("alpha", 1.0)})
                 .Traits(kUnary));
  r.Register(MakeSchema("Gelu", 20, 1, 1, 1, 1, kFamily, Gelu)
                 .Attrs({Attr("approximate", "none")})
                 .Traits(kActivation));
  r.Register(MakeSchema("Swish", 24, 1, 1, 1, 1, kFamily, UnaryFloat)
                 .Attrs({Attr("alpha", 1.0)})
                 .Traits(kActivation));
  r.Register(MakeSchema("Shrink", 9, 1, 1, 1, 1, kFamily, UnaryNumeric)
                 .Attrs({Attr("bias", 0.0), Attr("lambd", 0.5)})
                 .Traits(kUnary));
  // Unary on any number.
  for (Op op : {Op{"Abs", kInPlaceUnary}, Op{"Neg", kInPlaceUnary}, Op{"Sign", kUnary},
                Op{"Relu", kActivation}}) {
    r.Register(MakeSchema(op.name, 6, 1, 1, 1, 1, kFamily, UnaryNumeric).Traits(op.traits));
  }
  r.Register(MakeSchema("Not", 1, 1, 1, 1, 1, kFamily, UnaryBool));
  r.Register(MakeSchema("BitwiseNot", 18, 1, 1, 1, 1, kFamily, UnaryInteger));
  r.Register(MakeSchema("IsNaN", 9, 1, 1, 1, 1, kFamily, FloatPredicate));
  r.Register(MakeSchema("IsInf", 10, 1, 1, 1, 1, kFamily, FloatPredicate)
                 .Attrs({Attr("detect_negative", 1), Attr("detect_positive", 1)}));
  r.Register(
      MakeSchema("Identity", 1, 1, 1, 1, 1, kFamily, InferSameAsInput).Traits(kInPlaceUnary));
  // Broadcasting binary and variadic arithmetic (opset 7 introduced broadcasting).
  // In place: output 0 may take input 0's memory when they have the same shape (the planner
  // checks the shapes).
  for (const char* op : {"Add", "Sub", "Mul", "Div"}) {
    r.Register(MakeSchema(op, 7, 2, 2, 1, 1, kFamily, Arithmetic).Traits(kTraitInPlace));
  }
  for (const char* op : {"Min", "Max", "Sum", "Mean"}) {
    r.Register(MakeSchema(op, 8, 1, -1, 1, 1, kFamily, Arithmetic));
  }
  r.Register(MakeSchema("Pow", 7, 2, 2, 1, 1, kFamily, Pow).Traits(kTraitInPlace));
  r.Register(MakeSchema("Mod", 10, 2, 2, 1, 1, kFamily, Mod).Attrs({Attr("fmod", 0)}));
  r.Register(MakeSchema("BitShift", 11, 2, 2, 1, 1, kFamily, BitShift)
                 .Attrs({RequiredAttr("direction", AttrKind::kString)}));
  for (const char* op : {"BitwiseAnd", "BitwiseOr", "BitwiseXor"}) {
    r.Register(MakeSchema(op, 18, 2, 2, 1, 1, kFamily, Bitwise));
  }
  r.Register(MakeSchema("PRelu", 7, 2, 2, 1, 1, kFamily, PRelu).Traits(kTraitInPlace));
  for (const char* op : {"Equal", "Less", "Greater"}) {
    r.Register(MakeSchema(op, 7, 2, 2, 1, 1, kFamily, Compare));
  }
  for (const char* op : {"LessOrEqual", "GreaterOrEqual"}) {
    r.Register(MakeSchema(op, 12, 2, 2, 1, 1, kFamily, Compare));
  }
  for (const char* op : {"And", "Or", "Xor"}) {
    r.Register(MakeSchema(op, 7, 2, 2, 1, 1, kFamily, Logical));
  }
  r.Register(MakeSchema("Where", 9, 3, 3, 1, 1, kFamily, Where));
  // Clip takes its bounds as attributes until opset 10 (ONNX's defaults: the float range) and
  // as optional inputs from 11. Kiln compiles Clip from opset 11; the reference kernel also
  // runs the attribute form.
  constexpr double kFloatMax = std::numeric_limits<float>::max();
  r.Register(MakeSchema("Clip", 11, 1, 3, 1, 1, kFamily, Clip)
                 .Attrs({Attr("min", -kFloatMax).Until(10), Attr("max", kFloatMax).Until(10)})
                 .Traits(kActivation));
  // 'saturate' changes float8 and E8M0 results, 'round_mode' E8M0 ones. Cast and CastLike
  // convert from and to every low-precision type.
  r.Register(MakeSchema("Cast", 6, 1, 1, 1, 1, kFamily, Cast)
                 .Attrs({RequiredAttr("to", AttrKind::kInt), Attr("saturate", 1).Since(19),
                         Attr("round_mode", "up").Since(24)})
                 .Traits(kTraitLowPrecision));
  r.Register(MakeSchema("CastLike", 15, 2, 2, 1, 1, kFamily, CastLike)
                 .Attrs({Attr("saturate", 1).Since(19), Attr("round_mode", "up").Since(24)})
                 .Traits(kTraitLowPrecision));
  r.Register(MakeSchema("BitCast", 26, 1, 1, 1, 1, kFamily, BitCast)
                 .Attrs({RequiredAttr("to", AttrKind::kInt)}));
  // Dropout-7 and -10 have a 'ratio' attribute (unused in inference); from opset 12 the ratio
  // is an input and 'seed' an optional attribute.
  r.Register(
      MakeSchema("Dropout", 7, 1, 3, 1, 2, kFamily, Dropout)
          .Attrs({Attr("ratio", 0.5).Until(11), OptionalAttr("seed", AttrKind::kInt).Since(12)})
          .Traits(kTraitInPlace));
}

}  // namespace kiln::ir
