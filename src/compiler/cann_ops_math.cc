// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// CANN's element-wise, activation, Cast, ArgMax, Softmax and reduction operators.
#include <cmath>

#include "compiler/cann_ops_build.h"

namespace kiln::compiler {
namespace {

using ir::DataType;
using Ctx = CannOpContext;

// x1 op x2 with numpy broadcasting, the ONNX op of the same meaning.
Status Binary(Ctx& c, const char* onnx) {
  KILN_ASSIGN_OR_RETURN(ir::Value * a, c.In(0, "x1"));
  KILN_ASSIGN_OR_RETURN(ir::Value * b, c.In(1, "x2"));
  KILN_ASSIGN_OR_RETURN(ir::Value * y, c.Node(onnx, {a, b}));
  return c.Output(y);
}

Status Unary(Ctx& c, const char* onnx) {
  KILN_ASSIGN_OR_RETURN(ir::Value * x, c.In(0, "x"));
  KILN_ASSIGN_OR_RETURN(ir::Value * y, c.Node(onnx, {x}));
  return c.Output(y);
}

Status Square(Ctx& c, const char*) {
  KILN_ASSIGN_OR_RETURN(ir::Value * x, c.In(0, "x"));
  KILN_ASSIGN_OR_RETURN(ir::Value * y, c.Node("Mul", {x, x}));
  return c.Output(y);
}

Status Rsqrt(Ctx& c, const char*) {
  KILN_ASSIGN_OR_RETURN(ir::Value * x, c.In(0, "x"));
  KILN_ASSIGN_OR_RETURN(ir::Value * s, c.Node("Sqrt", {x}));
  KILN_ASSIGN_OR_RETURN(ir::Value * y, c.Node("Reciprocal", {s}));
  return c.Output(y);
}

Status LeakyRelu(Ctx& c, const char*) {
  KILN_ASSIGN_OR_RETURN(ir::Value * x, c.In(0, "x"));
  KILN_ASSIGN_OR_RETURN(float slope, c.Float("negative_slope", 0.0f));
  KILN_ASSIGN_OR_RETURN(ir::Value * y, c.Node("LeakyRelu", {x}, {{"alpha", slope}}));
  return c.Output(y);
}

// A float constant in x's type (a Cast of a float32 scalar, which constant folding removes).
Result<ir::Value*> ScalarAs(Ctx& c, float v, DataType t) {
  return c.Node("Cast", {c.Scalar(DataType::kFloat32, v)}, {{"to", static_cast<int64_t>(t)}});
}

// scale·x + shift in input 0's type (skipped when they are 1 and 0).
Result<ir::Value*> Affine(Ctx& c, ir::Value* x, float scale, float shift) {
  const DataType t = c.InType(0);
  if (scale != 1.0f) {
    KILN_ASSIGN_OR_RETURN(ir::Value * s, ScalarAs(c, scale, t));
    KILN_ASSIGN_OR_RETURN(x, c.Node("Mul", {x, s}));
  }
  if (shift != 0.0f) {
    KILN_ASSIGN_OR_RETURN(ir::Value * s, ScalarAs(c, shift, t));
    KILN_ASSIGN_OR_RETURN(x, c.Node("Add", {x, s}));
  }
  return x;
}

// CANN's Exp: base^(scale·x + shift), base -1 = e.
Status Exp(Ctx& c, const char*) {
  KILN_ASSIGN_OR_RETURN(ir::Value * x, c.In(0, "x"));
  KILN_ASSIGN_OR_RETURN(float base, c.Float("base", -1.0f));
  KILN_ASSIGN_OR_RETURN(float scale, c.Float("scale", 1.0f));
  KILN_ASSIGN_OR_RETURN(float shift, c.Float("shift", 0.0f));
  if (base != -1.0f && base <= 0.0f) return c.Fail("base must be -1 (e) or > 0, not ", base);
  const float log_base = base == -1.0f ? 1.0f : std::log(base);
  KILN_ASSIGN_OR_RETURN(ir::Value * t, Affine(c, x, scale * log_base, shift * log_base));
  KILN_ASSIGN_OR_RETURN(ir::Value * y, c.Node("Exp", {t}));
  return c.Output(y);
}

// CANN's Log: log_base(scale·x + shift), base -1 = e.
Status Log(Ctx& c, const char*) {
  KILN_ASSIGN_OR_RETURN(ir::Value * x, c.In(0, "x"));
  KILN_ASSIGN_OR_RETURN(float base, c.Float("base", -1.0f));
  KILN_ASSIGN_OR_RETURN(float scale, c.Float("scale", 1.0f));
  KILN_ASSIGN_OR_RETURN(float shift, c.Float("shift", 0.0f));
  if (base != -1.0f && (base <= 0.0f || base == 1.0f)) {
    return c.Fail("base must be -1 (e) or > 0 and not 1, not ", base);
  }
  KILN_ASSIGN_OR_RETURN(ir::Value * t, Affine(c, x, scale, shift));
  KILN_ASSIGN_OR_RETURN(ir::Value * y, c.Node("Log", {t}));
  if (base != -1.0f) {
    KILN_ASSIGN_OR_RETURN(y, Affine(c, y, 1.0f / std::log(base), 0.0f));
  }
  return c.Output(y);
}

// Cast: dst_type names the output type (aclDataType); truncate is accepted (ONNX's Cast
// truncates float → integer towards zero, as CANN's does).
Status Cast(Ctx& c, const char*) {
  KILN_ASSIGN_OR_RETURN(ir::Value * x, c.In(0, "x"));
  KILN_ASSIGN_OR_RETURN(DataType to, c.Type("dst_type"));
  KILN_ASSIGN_OR_RETURN(bool truncate, c.Bool("truncate", false));
  (void)truncate;
  if (c.OutType(0) != to && c.OutType(0) != DataType::kUndefined) {
    return Error(code::kOpAttrNotMatch, "Cast: dst_type is ", ir::Name(to),
                 " but output 0 is declared ", ir::Name(c.OutType(0)));
  }
  KILN_ASSIGN_OR_RETURN(ir::Value * y, c.Node("Cast", {x}, {{"to", static_cast<int64_t>(to)}}));
  return c.Output(y);
}

// ArgMax over `axis` without keeping it, first index on ties, as the declared output type.
// `dflt`: the type when the output is not declared (aclopInferShape).
Status ArgMax(Ctx& c, int64_t axis, DataType dflt) {
  KILN_ASSIGN_OR_RETURN(ir::Value * x, c.In(0, "x"));
  const DataType out = c.OutType(0) == DataType::kUndefined ? dflt : c.OutType(0);
  if (out != DataType::kInt32 && out != DataType::kInt64) {
    return c.Fail("output 0 must be int32 or int64, not ", ir::Name(out));
  }
  KILN_ASSIGN_OR_RETURN(
      ir::Value * y,
      c.Node("ArgMax", {x},
             {{"axis", axis}, {"keepdims", int64_t{0}}, {"select_last_index", int64_t{0}}}));
  if (out == DataType::kInt32) {
    KILN_ASSIGN_OR_RETURN(y, c.Node("Cast", {y}, {{"to", static_cast<int64_t>(out)}}));
  }
  return c.Output(y);
}

Status ArgMaxV2(Ctx& c, const char*) {
  KILN_ASSIGN_OR_RETURN(std::vector<int64_t> dim, c.ConstInts(1, "dimension"));
  if (dim.size() != 1) return c.Fail("input 1 (dimension) must hold one value, not ", dim.size());
  KILN_ASSIGN_OR_RETURN(DataType dtype, c.Type("dtype", DataType::kInt64));
  if (dtype != c.OutType(0) && c.OutType(0) != DataType::kUndefined) {
    return Error(code::kOpAttrNotMatch, "ArgMaxV2: dtype is ", ir::Name(dtype),
                 " but output 0 is declared ", ir::Name(c.OutType(0)));
  }
  return ArgMax(c, dim[0], dtype);
}

// ArgMaxD: the output type is the declared one (CANN's sample declares int32 without dtype);
// a dtype that is set must agree with it, as ArgMaxV2's.
Status ArgMaxD(Ctx& c, const char*) {
  KILN_ASSIGN_OR_RETURN(int64_t dim, c.Int("dimension"));
  if (c.desc().attrs.count("dtype") == 0) return ArgMax(c, dim, DataType::kInt32);
  KILN_ASSIGN_OR_RETURN(DataType dtype, c.Type("dtype"));
  if (dtype != c.OutType(0) && c.OutType(0) != DataType::kUndefined) {
    return Error(code::kOpAttrNotMatch, "ArgMaxD: dtype is ", ir::Name(dtype),
                 " but output 0 is declared ", ir::Name(c.OutType(0)));
  }
  return ArgMax(c, dim, dtype);
}

// Softmax over `axes`: one axis is ONNX's Softmax; several are composed
// (exp(x − max) / sum over the axes).
Status SoftmaxV2(Ctx& c, const char*) {
  KILN_ASSIGN_OR_RETURN(ir::Value * x, c.In(0, "x"));
  KILN_ASSIGN_OR_RETURN(std::vector<int64_t> axes, c.Ints("axes", std::vector<int64_t>{-1}));
  if (axes.empty()) return c.Fail("attribute 'axes' is empty");
  if (axes.size() == 1) {
    KILN_ASSIGN_OR_RETURN(ir::Value * y, c.Node("Softmax", {x}, {{"axis", axes[0]}}));
    return c.Output(y);
  }
  ir::Value* ax = c.Int64s(axes);
  KILN_ASSIGN_OR_RETURN(ir::Value * m, c.Node("ReduceMax", {x, ax}, {{"keepdims", int64_t{1}}}));
  KILN_ASSIGN_OR_RETURN(ir::Value * d, c.Node("Sub", {x, m}));
  KILN_ASSIGN_OR_RETURN(ir::Value * e, c.Node("Exp", {d}));
  KILN_ASSIGN_OR_RETURN(ir::Value * s, c.Node("ReduceSum", {e, ax}, {{"keepdims", int64_t{1}}}));
  KILN_ASSIGN_OR_RETURN(ir::Value * y, c.Node("Div", {e, s}));
  return c.Output(y);
}

// Reductions: axes from input 1 (Reduce*) or the attribute (Reduce*D); keep_dims; an empty axes
// list reduces nothing (noop_with_empty_axes, true in CANN's prototypes).
Status Reduce(Ctx& c, const char* onnx, bool axes_attr) {
  KILN_ASSIGN_OR_RETURN(ir::Value * x, c.In(0, "x"));
  KILN_ASSIGN_OR_RETURN(bool keep, c.Bool("keep_dims", false));
  KILN_ASSIGN_OR_RETURN(bool noop, c.Bool("noop_with_empty_axes", true));
  ir::Value* axes = nullptr;
  if (axes_attr) {
    KILN_ASSIGN_OR_RETURN(std::vector<int64_t> a, c.Ints("axes"));
    axes = c.Int64s(a);
  } else {
    KILN_ASSIGN_OR_RETURN(axes, c.In(1, "axes"));
    if (c.InType(1) != DataType::kInt64) {
      KILN_ASSIGN_OR_RETURN(
          axes, c.Node("Cast", {axes}, {{"to", static_cast<int64_t>(DataType::kInt64)}}));
    }
  }
  KILN_ASSIGN_OR_RETURN(ir::Value * y, c.Node(onnx, {x, axes},
                                              {{"keepdims", int64_t{keep}},
                                               {"noop_with_empty_axes", int64_t{noop}}}));
  return c.Output(y);
}

Status ReduceAxesInput(Ctx& c, const char* onnx) { return Reduce(c, onnx, false); }
Status ReduceAxesAttr(Ctx& c, const char* onnx) { return Reduce(c, onnx, true); }

}  // namespace

void AddMathOps(std::vector<CannOp>& ops) {
  const char* bin = "x1, x2 -> y";
  const char* un = "x -> y";
  for (auto [type, onnx] :
       std::vector<std::pair<const char*, const char*>>{{"Add", "Add"},
                                                        {"AddV2", "Add"},
                                                        {"Sub", "Sub"},
                                                        {"Mul", "Mul"},
                                                        {"RealDiv", "Div"},
                                                        {"Div", "Div"},
                                                        {"Pow", "Pow"},
                                                        {"Maximum", "Max"},
                                                        {"Minimum", "Min"},
                                                        {"Equal", "Equal"},
                                                        {"Greater", "Greater"},
                                                        {"GreaterEqual", "GreaterOrEqual"},
                                                        {"Less", "Less"},
                                                        {"LessEqual", "LessOrEqual"},
                                                        {"LogicalAnd", "And"},
                                                        {"LogicalOr", "Or"}}) {
    ops.push_back({type, bin, "", onnx, Binary, onnx});
  }
  for (auto [type, onnx] :
       std::vector<std::pair<const char*, const char*>>{{"Relu", "Relu"},
                                                        {"Sigmoid", "Sigmoid"},
                                                        {"Tanh", "Tanh"},
                                                        {"Abs", "Abs"},
                                                        {"Neg", "Neg"},
                                                        {"Floor", "Floor"},
                                                        {"Ceil", "Ceil"},
                                                        {"Reciprocal", "Reciprocal"},
                                                        {"Sqrt", "Sqrt"},
                                                        {"Erf", "Erf"},
                                                        {"Round", "Round"},
                                                        {"Sin", "Sin"},
                                                        {"Cos", "Cos"},
                                                        {"Sign", "Sign"},
                                                        {"Softplus", "Softplus"},
                                                        {"Softsign", "Softsign"},
                                                        {"LogicalNot", "Not"}}) {
    ops.push_back({type, un, "", onnx, Unary, onnx});
  }
  ops.push_back({"Square", un, "", "Mul(x, x)", Square});
  ops.push_back({"Rsqrt", un, "", "Reciprocal(Sqrt)", Rsqrt});
  ops.push_back({"LeakyRelu", un, "negative_slope float 0", "LeakyRelu", LeakyRelu});
  ops.push_back({"Exp", un, "base float -1 (e), scale float 1, shift float 0",
                 "Exp of (scale·x + shift)·ln(base)", Exp});
  ops.push_back({"Log", un, "base float -1 (e), scale float 1, shift float 0",
                 "Log of (scale·x + shift), / ln(base)", Log});
  ops.push_back({"Cast", un, "dst_type int (aclDataType, required), truncate bool false",
                 "Cast (output type = dst_type)", Cast});
  ops.push_back({"ArgMaxV2", "x, dimension (const) -> y", "dtype data_type int64",
                 "ArgMax(keepdims 0) + Cast to the output type", ArgMaxV2});
  ops.push_back({"ArgMaxD", un, "dimension int (required), dtype data_type int64",
                 "ArgMax(keepdims 0) + Cast to the output type", ArgMaxD});
  ops.push_back({"SoftmaxV2", un, "axes list_int [-1]",
                 "Softmax (several axes: exp(x - max) / sum)", SoftmaxV2});
  for (auto [type, onnx] :
       std::vector<std::pair<const char*, const char*>>{{"ReduceSum", "ReduceSum"},
                                                        {"ReduceMean", "ReduceMean"},
                                                        {"ReduceMax", "ReduceMax"},
                                                        {"ReduceMin", "ReduceMin"},
                                                        {"ReduceProd", "ReduceProd"}}) {
    ops.push_back({type, "x, axes -> y", "keep_dims bool false, noop_with_empty_axes bool true",
                   onnx, ReduceAxesInput, onnx});
  }
  for (auto [type, onnx] :
       std::vector<std::pair<const char*, const char*>>{{"ReduceSumD", "ReduceSum"},
                                                        {"ReduceMeanD", "ReduceMean"},
                                                        {"ReduceMaxD", "ReduceMax"},
                                                        {"ReduceMinD", "ReduceMin"},
                                                        {"ReduceProdD", "ReduceProd"}}) {
    ops.push_back(
        {type, un, "axes list_int (required), keep_dims bool false", onnx, ReduceAxesAttr, onnx});
  }
}

}  // namespace kiln::compiler
