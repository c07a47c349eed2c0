// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Kiln's fused ops (domain "com.kiln"), produced by the compiler's fusion passes:
// FusedConv, FusedGemm, FusedMatMul — the base op plus an optional residual / bias and an
// activation (see src/compiler/passes/README.md).
#include <set>
#include <variant>

#include "ir/ops/infer_util.h"

namespace kiln::ir {
namespace {

constexpr const char* kDomain = "com.kiln";

Status CheckActivation(InferenceContext& ctx) {
  static const std::set<std::string> kActivations = {"",        "Relu", "LeakyRelu",   "Clip",
                                                     "Sigmoid", "Tanh", "HardSigmoid", "HardSwish",
                                                     "Gelu",    "Swish"};
  std::string act = ctx.attr_string("activation");
  if (!kActivations.count(act)) {
    return ctx.Unsupported("activation '", act, "' cannot be fused");
  }
  return Status::Ok();
}

// Runs the inference of the ONNX op the fused op extends (same inputs up to its count).
Status InferAsBase(InferenceContext& ctx, const char* base) {
  const OpSchema* schema = OpRegistry::Global().Find("", base);
  if (schema == nullptr) return ctx.Fail("base op ", base, " is not registered");
  const int own = ctx.opset();
  ctx.set_opset(kNewestOnnxOpset);
  Status st = schema->infer(ctx);
  ctx.set_opset(own);
  KILN_RETURN_IF_ERROR(st, "");
  return CheckActivation(ctx);
}

// The channels_last layout flags (src/compiler/passes/README.md): optional ints, 0 or 1; a set
// flag needs its tensor (X input 0, Y output 0, Z input 3) present and of rank 4 when known, and
// the convolution 2-D (X of rank 4).
Status CheckLayoutFlags(InferenceContext& ctx) {
  struct Flag {
    const char* name;
    const Shape* shape;  // null: the tensor is absent
  };
  const Shape* x = ctx.has_input(0) ? &ctx.input_shape(0) : nullptr;
  const Shape* z = ctx.has_input(3) ? &ctx.input_shape(3) : nullptr;
  const Shape* y = ctx.outputs().empty() ? nullptr : &ctx.outputs()[0].shape;
  for (const Flag& f : {Flag{"kiln_x_nhwc", x}, Flag{"kiln_y_nhwc", y}, Flag{"kiln_z_nhwc", z}}) {
    auto it = ctx.attrs().find(f.name);
    if (it == ctx.attrs().end()) continue;
    const int64_t* v = std::get_if<int64_t>(&it->second);
    if (v == nullptr || (*v != 0 && *v != 1)) {
      return ctx.Fail("attribute '", f.name, "' must be the int 0 or 1");
    }
    if (*v == 0) continue;
    if (f.shape == nullptr) {
      return ctx.Fail("attribute '", f.name, "' is set but its tensor is absent");
    }
    if (f.shape->rank_known() && f.shape->rank() != 4) {
      return ctx.Fail("attribute '", f.name, "' needs a rank-4 tensor, got ", f.shape->ToString());
    }
    if (x != nullptr && x->rank_known() && x->rank() != 4) {
      return ctx.Fail("attribute '", f.name, "' needs a 2-D convolution; X is ", x->ToString());
    }
  }
  return Status::Ok();
}

Status FusedConv(InferenceContext& ctx) {
  KILN_RETURN_IF_ERROR(InferAsBase(ctx, "Conv"), "");
  KILN_RETURN_IF_ERROR(CheckLayoutFlags(ctx), "");
  if (ctx.has_input(3)) {
    const TensorType& out = ctx.outputs()[0];
    if (ctx.input_dtype(3) != out.dtype) {
      return ctx.Fail("residual input is ", Name(ctx.input_dtype(3)), ", the convolution ",
                      Name(out.dtype));
    }
    auto b = Broadcast(out.shape, ctx.input_shape(3));
    if (!b || (out.shape.IsStatic() && !(*b == out.shape))) {
      return ctx.Fail("residual shape ", ctx.input_shape(3).ToString(),
                      " does not match the convolution output ", out.shape.ToString());
    }
  }
  return Status::Ok();
}

Status FusedGemm(InferenceContext& ctx) { return InferAsBase(ctx, "Gemm"); }

Status FusedMatMul(InferenceContext& ctx) {
  KILN_RETURN_IF_ERROR(InferAsBase(ctx, "MatMul"), "");
  if (ctx.has_input(2)) {
    if (ctx.input_dtype(2) != ctx.input_dtype(0)) {
      return ctx.Fail("bias is ", Name(ctx.input_dtype(2)), ", A ", Name(ctx.input_dtype(0)),
                      "; they must have the same type");
    }
    const Shape& bias = ctx.input_shape(2);
    const Shape& out = ctx.outputs()[0].shape;
    if (bias.rank_known() && bias.rank() != 1) {
      return ctx.Fail("bias must be 1-D, got ", bias.ToString());
    }
    // One value per output column (one in all for a scalar output), or one for all (broadcast).
    if (bias.rank_known() && out.rank_known() && bias[0].known() && bias[0].value != 1) {
      const Dim last = out.rank() > 0 ? out[out.rank() - 1] : Dim::Known(1);
      if (last.known() && bias[0].value != last.value) {
        return ctx.Fail("bias of ", bias[0].value, " values does not match the last dim of ",
                        out.ToString());
      }
    }
  }
  return Status::Ok();
}

}  // namespace

void RegisterFusedOps(OpRegistry& r) {
  constexpr const char* kFamily = "fused";
  // Every fused op's own attributes: the activation (none when empty) and its parameters, whose
  // defaults are the activation's (LeakyRelu's alpha 0.01, Clip's bounds the float range,
  // HardSigmoid's 0.2 and 0.5, Swish's alpha 1), so they are optional here.
  auto activation = [](std::vector<AttrSpec> base) {
    base.push_back(Attr("activation", ""));
    base.push_back(OptionalAttr("activation_alpha", AttrKind::kFloat));
    base.push_back(OptionalAttr("activation_beta", AttrKind::kFloat));
    return base;
  };
  // The base ops' attributes as the newest ONNX opset has them (the fused ops follow it), and
  // FusedConv's channels_last flags: absent is NCHW.
  r.Register(
      MakeSchema("FusedConv", 1, 2, 4, 1, 1, kFamily, FusedConv, kDomain)
          .Attrs(activation({Attr("auto_pad", "NOTSET"), OptionalAttr("dilations", AttrKind::kInts),
                             Attr("group", 1), OptionalAttr("kernel_shape", AttrKind::kInts),
                             OptionalAttr("pads", AttrKind::kInts),
                             OptionalAttr("strides", AttrKind::kInts),
                             OptionalAttr("kiln_x_nhwc", AttrKind::kInt),
                             OptionalAttr("kiln_y_nhwc", AttrKind::kInt),
                             OptionalAttr("kiln_z_nhwc", AttrKind::kInt)})));
  r.Register(MakeSchema("FusedGemm", 1, 2, 3, 1, 1, kFamily, FusedGemm, kDomain)
                 .Attrs(activation({Attr("alpha", 1.0), Attr("beta", 1.0), Attr("transA", 0),
                                    Attr("transB", 0)})));
  r.Register(MakeSchema("FusedMatMul", 1, 2, 3, 1, 1, kFamily, FusedMatMul, kDomain)
                 .Attrs(activation({})));
}

}  // namespace kiln::ir
