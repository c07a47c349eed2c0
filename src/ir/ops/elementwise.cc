// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Elementwise ops: unary math and activations, broadcasting binary and variadic arithmetic,
// comparisons, logic and bitwise ops, Where, Clip, Cast/CastLike/BitCast, Identity and Dropout.
#include "ir/ops/infer_util.h"

namespace kiln::ir {
namespace {

Status UnaryFloat(InferenceContext& ctx) {
  if (!IsFloat(ctx.input_dtype(0))) {
    return ctx.Fail("input is ", Name(ctx.input_dtype(0)), "; a floating-point type is required");
  }
  return InferSameAsInput(ctx);
}

Status UnaryNumeric(InferenceContext& ctx) {
  DataType t = ctx.input_dtype(0);
  if (!IsFloat(t) && !IsInteger(t)) {
    return ctx.Fail("input is ", Name(t), "; a numeric type is required");
  }
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

Status Binary(InferenceContext& ctx) {
  KILN_RETURN_IF_ERROR(CheckSameDtype(ctx, 0, ctx.num_inputs()), "");
  KILN_ASSIGN_OR_RETURN(Shape shape, BroadcastInputs(ctx, 0, ctx.num_inputs()));
  ctx.set_output(0, ctx.input_dtype(0), std::move(shape));
  return Status::Ok();
}

// Pow: base and exponent may differ in type; the result has the base's type.
Status Pow(InferenceContext& ctx) {
  KILN_ASSIGN_OR_RETURN(Shape shape, BroadcastInputs(ctx, 0, 2));
  ctx.set_output(0, ctx.input_dtype(0), std::move(shape));
  return Status::Ok();
}

// PRelu: slope broadcasts to X (unidirectional).
Status PRelu(InferenceContext& ctx) {
  KILN_RETURN_IF_ERROR(CheckSameDtype(ctx, 0, 2), "");
  KILN_ASSIGN_OR_RETURN(Shape shape, BroadcastInputs(ctx, 0, 2));
  if (ctx.input_shape(0).rank_known() && shape.rank_known() && !(shape == ctx.input_shape(0)) &&
      ctx.input_shape(0).IsStatic() && shape.IsStatic()) {
    return ctx.Fail("slope ", ctx.input_shape(1).ToString(), " does not broadcast to X ",
                    ctx.input_shape(0).ToString());
  }
  return InferSameAsInput(ctx);
}

Status Compare(InferenceContext& ctx) {
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

Status Cast(InferenceContext& ctx) {
  if (!ctx.has_attr("to")) return ctx.Fail("attribute 'to' is required");
  int64_t to = ctx.attr_int("to", 0);
  DataType t = FromOnnx(static_cast<int32_t>(to));
  if (t == DataType::kUndefined || t == DataType::kString) {
    return ctx.Unsupported("attribute 'to' = ", to, " names a type Kiln does not support");
  }
  ctx.set_output(0, t, ctx.input_shape(0));
  return Status::Ok();
}

Status CastLike(InferenceContext& ctx) {
  ctx.set_output(0, ctx.input_dtype(1), ctx.input_shape(0));
  return Status::Ok();
}

// Dropout (inference): output 0 = input; optional mask output is bool of the same shape.
Status Dropout(InferenceContext& ctx) {
  ctx.set_output(0, ctx.input_type(0));
  if (ctx.num_outputs() > 1) ctx.set_output(1, DataType::kBool, ctx.input_shape(0));
  return Status::Ok();
}

Status BitShift(InferenceContext& ctx) {
  std::string dir = ctx.attr_string("direction", "");
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
  if (!ctx.has_attr("to")) return ctx.Fail("attribute 'to' is required");
  int64_t to = ctx.attr_int("to", 0);
  DataType t = FromOnnx(static_cast<int32_t>(to));
  if (t == DataType::kUndefined || t == DataType::kString) {
    return ctx.Unsupported("attribute 'to' = ", to, " names a type Kiln does not support");
  }
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
  if (IsFloat(ctx.input_dtype(0)) && ctx.attr_int("fmod", 0) != 1) {
    return ctx.Fail("floating-point Mod needs fmod=1");
  }
  return Binary(ctx);
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
  // Unary on floats (math and activations).
  for (Op op : {Op{"Exp", kInPlaceUnary},
                Op{"Log", kInPlaceUnary},
                Op{"Sqrt", kInPlaceUnary},
                Op{"Reciprocal", kInPlaceUnary},
                Op{"Floor", kInPlaceUnary},
                Op{"Ceil", kInPlaceUnary},
                Op{"Round", kInPlaceUnary},
                Op{"Sin", kUnary},
                Op{"Cos", kUnary},
                Op{"Tan", kUnary},
                Op{"Asin", kUnary},
                Op{"Acos", kUnary},
                Op{"Atan", kUnary},
                Op{"Sinh", kUnary},
                Op{"Cosh", kUnary},
                Op{"Asinh", kUnary},
                Op{"Acosh", kUnary},
                Op{"Atanh", kUnary},
                Op{"Erf", kInPlaceUnary},
                Op{"Sigmoid", kActivation},
                Op{"Tanh", kActivation},
                Op{"Softplus", kInPlaceUnary},
                Op{"Softsign", kUnary},
                Op{"Elu", kInPlaceUnary},
                Op{"Selu", kInPlaceUnary},
                Op{"LeakyRelu", kActivation},
                Op{"HardSigmoid", kActivation},
                Op{"HardSwish", kActivation},
                Op{"Mish", kInPlaceUnary},
                Op{"Celu", kUnary},
                Op{"ThresholdedRelu", kUnary}}) {
    r.Register(MakeSchema(op.name, 6, 1, 1, 1, 1, kFamily, UnaryFloat).Traits(op.traits));
  }
  r.Register(MakeSchema("Gelu", 20, 1, 1, 1, 1, kFamily, UnaryFloat).Traits(kActivation));
  r.Register(MakeSchema("Swish", 24, 1, 1, 1, 1, kFamily, UnaryFloat).Traits(kActivation));
  r.Register(MakeSchema("Shrink", 9, 1, 1, 1, 1, kFamily, UnaryNumeric).Traits(kUnary));
  // Unary on any number.
  for (Op op : {Op{"Abs", kInPlaceUnary}, Op{"Neg", kInPlaceUnary}, Op{"Sign", kUnary},
                Op{"Relu", kActivation}}) {
    r.Register(MakeSchema(op.name, 6, 1, 1, 1, 1, kFamily, UnaryNumeric).Traits(op.traits));
  }
  r.Register(MakeSchema("Not", 1, 1, 1, 1, 1, kFamily, UnaryBool));
  r.Register(MakeSchema("BitwiseNot", 18, 1, 1, 1, 1, kFamily, UnaryInteger));
  r.Register(MakeSchema("IsNaN", 9, 1, 1, 1, 1, kFamily, FloatPredicate));
  r.Register(MakeSchema("IsInf", 10, 1, 1, 1, 1, kFamily, FloatPredicate));
  r.Register(
      MakeSchema("Identity", 1, 1, 1, 1, 1, kFamily, InferSameAsInput).Traits(kInPlaceUnary));
  // Broadcasting binary and variadic arithmetic (opset 7 introduced broadcasting).
  // In place: output 0 may take input 0's memory when they have the same shape (the planner
  // checks the shapes).
  for (const char* op : {"Add", "Sub", "Mul", "Div"}) {
    r.Register(MakeSchema(op, 7, 2, 2, 1, 1, kFamily, Binary).Traits(kTraitInPlace));
  }
  for (const char* op : {"Min", "Max", "Sum", "Mean"}) {
    r.Register(MakeSchema(op, 8, 1, -1, 1, 1, kFamily, Binary));
  }
  r.Register(MakeSchema("Pow", 7, 2, 2, 1, 1, kFamily, Pow).Traits(kTraitInPlace));
  r.Register(MakeSchema("Mod", 10, 2, 2, 1, 1, kFamily, Mod));
  r.Register(MakeSchema("BitShift", 11, 2, 2, 1, 1, kFamily, BitShift));
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
  r.Register(MakeSchema("Clip", 11, 1, 3, 1, 1, kFamily, Clip).Traits(kActivation));
  r.Register(MakeSchema("Cast", 6, 1, 1, 1, 1, kFamily, Cast));
  r.Register(MakeSchema("CastLike", 15, 2, 2, 1, 1, kFamily, CastLike));
  r.Register(MakeSchema("BitCast", 26, 1, 1, 1, 1, kFamily, BitCast));
  r.Register(MakeSchema("Dropout", 7, 1, 3, 1, 2, kFamily, Dropout).Traits(kTraitInPlace));
}

}  // namespace kiln::ir
