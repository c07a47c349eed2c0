// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Kiln's fused ops (domain "com.kiln"), produced by the compiler's fusion passes:
// FusedConv, FusedConvTranspose, FusedGemm, FusedMatMul — the base op plus an optional residual /
// bias and an activation — and FusedQLinearConv, a QLinearConv with an optional quantized residual
// and Relu, FusedQLinearMatMul, a QLinearMatMul with an int32 bias (qdq_fusion), the
// layout-transparent ops of channels_last, ArithmeticChain and ChannelShuffle (see
// src/compiler/passes/README.md).
#include <optional>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "base/str_cat.h"
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

// The flag `name` (an int when present) or 0 when absent; `*bad` when present but not an int.
int64_t IntFlag(const InferenceContext& ctx, const std::string& name, bool* bad) {
  auto it = ctx.attrs().find(name);
  if (it == ctx.attrs().end()) return 0;
  const int64_t* v = std::get_if<int64_t>(&it->second);
  if (v == nullptr) *bad = true;
  return v == nullptr ? 0 : *v;
}

// channels_last's channel blocks (kiln_x_cblock, kiln_y_cblock, kiln_z_cblock): a tensor kept
// NHWC stored instead as blocks of 8 or 16 channels (N, C/b, H, W, b: oneDNN's nChw8c / nChw16c).
Status CheckChannelBlocks(InferenceContext& ctx, const Shape* x, const Shape* y, const Shape* z) {
  const Shape* shapes[] = {x, y, z};
  const char* names[] = {"x", "y", "z"};
  for (size_t t = 0; t < 3; ++t) {
    const std::string name = StrCat("kiln_", names[t], "_cblock");
    bool bad = false;
    const int64_t block = IntFlag(ctx, name, &bad);
    if (bad || (block != 0 && block != 8 && block != 16)) {
      return ctx.Fail("attribute '", name, "' must be the int 0, 8 or 16");
    }
    if (block == 0) continue;
    if (IntFlag(ctx, StrCat("kiln_", names[t], "_nhwc"), &bad) != 1) {
      return ctx.Fail("attribute '", name, "' is set on a tensor that is not kept NHWC ('kiln_",
                      names[t], "_nhwc' is not 1)");
    }
    if (IntFlag(ctx, StrCat("kiln_", names[t], "_bf16"), &bad) != 0) {
      return ctx.Fail("attribute '", name, "' is set on a tensor stored as bf16");
    }
    if (ctx.input_dtype(0) != DataType::kFloat32) {
      return ctx.Fail("attribute '", name, "' needs a float32 X; X is ", Name(ctx.input_dtype(0)));
    }
    const Shape* s = shapes[t];
    if (s != nullptr && s->rank_known() && s->dims()[1].known() &&
        s->dims()[1].value % block != 0) {
      return ctx.Fail("attribute '", name, "' is ", block, " but the tensor has ",
                      s->dims()[1].value, " channels, not a multiple of it");
    }
  }
  return Status::Ok();
}

// The channels_last layout flags (src/compiler/passes/README.md): optional ints, 0 or 1; a set
// flag needs its tensor (X input 0, Y output 0, Z input `zi`) present and of rank 4 when known,
// and the convolution 2-D (X of rank 4). FusedConv's bf16 storage flags (kiln_x_bf16 ...) likewise,
// each only beside its NHWC flag; its channel-block flags (kiln_x_cblock ...: 0, 8 or 16) each
// only beside its NHWC flag, on float32 storage, with the tensor's channels (when known) a
// multiple of the block.
Status CheckLayoutFlags(InferenceContext& ctx, size_t zi) {
  struct Flag {
    const char* name;
    const Shape* shape;  // null: the tensor is absent
  };
  const Shape* x = ctx.has_input(0) ? &ctx.input_shape(0) : nullptr;
  const Shape* z = ctx.has_input(zi) ? &ctx.input_shape(zi) : nullptr;
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
      return ctx.Fail("attribute '", f.name, "' needs a 2-D op (X of rank 4); X is ",
                      x->ToString());
    }
  }
  // FusedConv's bf16 storage flags: each on a tensor kept NHWC, of a float32 convolution.
  for (const char* t : {"x", "y", "z"}) {
    const std::string name = StrCat("kiln_", t, "_bf16"), nhwc = StrCat("kiln_", t, "_nhwc");
    auto it = ctx.attrs().find(name);
    if (it == ctx.attrs().end()) continue;
    const int64_t* v = std::get_if<int64_t>(&it->second);
    if (v == nullptr || (*v != 0 && *v != 1)) {
      return ctx.Fail("attribute '", name, "' must be the int 0 or 1");
    }
    if (*v == 0) continue;
    auto layout = ctx.attrs().find(nhwc);
    const int64_t* n =
        layout == ctx.attrs().end() ? nullptr : std::get_if<int64_t>(&layout->second);
    if (n == nullptr || *n != 1) {
      return ctx.Fail("attribute '", name, "' is set on a tensor that is not kept NHWC ('", nhwc,
                      "' is not 1)");
    }
    if (ctx.input_dtype(0) != DataType::kFloat32) {
      return ctx.Fail("attribute '", name, "' needs a float32 X; X is ", Name(ctx.input_dtype(0)));
    }
  }
  return CheckChannelBlocks(ctx, x, y, z);
}

// The residual input `zi`, when given, has the output's type and broadcasts to its shape.
Status CheckResidual(InferenceContext& ctx, size_t zi) {
  if (!ctx.has_input(zi)) return Status::Ok();
  const TensorType& out = ctx.outputs()[0];
  if (ctx.input_dtype(zi) != out.dtype) {
    return ctx.Fail("residual input is ", Name(ctx.input_dtype(zi)), ", the convolution ",
                    Name(out.dtype));
  }
  auto b = Broadcast(out.shape, ctx.input_shape(zi));
  if (!b || (out.shape.IsStatic() && !(*b == out.shape))) {
    return ctx.Fail("residual shape ", ctx.input_shape(zi).ToString(),
                    " does not match the convolution output ", out.shape.ToString());
  }
  return Status::Ok();
}

// com.kiln MaxPool / AveragePool: the ONNX pool of the newest opset (one output: no Indices) with
// channels_last's layout flags on X and Y (kiln_x_nhwc, kiln_y_nhwc, and their bf16 storage).
Status LayoutPool(InferenceContext& ctx, const char* base) {
  KILN_RETURN_IF_ERROR(InferAsBase(ctx, base), "");
  return CheckLayoutFlags(ctx, SIZE_MAX);
}
Status LayoutMaxPool(InferenceContext& ctx) { return LayoutPool(ctx, "MaxPool"); }
Status LayoutAveragePool(InferenceContext& ctx) { return LayoutPool(ctx, "AveragePool"); }

// The kiln_nhwc flag (absent: false), which must be the int 0 or 1; when set, the first
// `data_inputs` inputs must be given and they and every output of rank 4.
Result<bool> NhwcOnRank4(InferenceContext& ctx, size_t data_inputs) {
  auto it = ctx.attrs().find("kiln_nhwc");
  if (it == ctx.attrs().end()) return false;
  const int64_t* v = std::get_if<int64_t>(&it->second);
  if (v == nullptr || (*v != 0 && *v != 1)) {
    return ctx.Fail("attribute 'kiln_nhwc' must be the int 0 or 1");
  }
  if (*v == 0) return false;
  std::vector<const Shape*> tensors;
  for (size_t i = 0; i < data_inputs; ++i) {
    if (!ctx.has_input(i)) return ctx.Fail("kiln_nhwc is set but input ", i, " is absent");
    tensors.push_back(&ctx.input_shape(i));
  }
  for (const TensorType& out : ctx.outputs()) tensors.push_back(&out.shape);
  for (const Shape* shape : tensors) {
    if (!shape->rank_known() || shape->rank() != 4) {
      return ctx.Fail("kiln_nhwc needs tensors of rank 4, got ", shape->ToString());
    }
  }
  return true;
}

// With kiln_nhwc, elementwise arithmetic computes on the stored order, which gives the same values
// only when each input (of rank 4) is of the output's known shape, or layout-neutral: of height
// and width 1 (the same bytes NCHW and NHWC), broadcast over the others.
Status CheckNhwcOperands(InferenceContext& ctx) {
  const Shape& out = ctx.outputs()[0].shape;
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    const Shape& in = ctx.input_shape(i);
    const bool full = in == out && in.IsStatic();
    const bool neutral = in.IsStatic() && in.dims()[2].value == 1 && in.dims()[3].value == 1;
    if (!full && !neutral) {
      return ctx.Fail("kiln_nhwc needs each input of the output's known shape ", out.ToString(),
                      " or of height and width 1, got ", in.ToString(), " (input ", i, ")");
    }
  }
  return Status::Ok();
}

// channels_last's channel blocks on an op that keeps its tensors NHWC (kiln_cblock: absent or 0,
// 8 or 16), only beside kiln_nhwc: every rank-4 tensor (the first `data_inputs` inputs and the
// outputs, float32) is stored in blocks N, C/b, H, W, b instead, so its channels (when known) must
// be whole blocks, or 1 (a neutral operand's, the same bytes in any order). A Resize's per-axis
// inputs then gain the block's axis (kernels/nhwc_view.h).
Status CheckTransparentBlocks(InferenceContext& ctx, bool nhwc, size_t data_inputs) {
  bool bad = false;
  const int64_t block = IntFlag(ctx, "kiln_cblock", &bad);
  if (bad || (block != 0 && block != 8 && block != 16)) {
    return ctx.Fail("attribute 'kiln_cblock' must be the int 0, 8 or 16");
  }
  if (block == 0) return Status::Ok();
  if (!nhwc) return ctx.Fail("attribute 'kiln_cblock' is set but 'kiln_nhwc' is not 1");
  std::vector<std::pair<DataType, const Shape*>> tensors;
  for (size_t i = 0; i < data_inputs; ++i) {
    tensors.emplace_back(ctx.input_dtype(i), &ctx.input_shape(i));
  }
  for (const TensorType& out : ctx.outputs()) tensors.emplace_back(out.dtype, &out.shape);
  for (const auto& [dtype, shape] : tensors) {
    if (dtype != DataType::kFloat32) {
      return ctx.Fail("kiln_cblock needs float32 tensors, got ", Name(dtype));
    }
    const Dim& c = shape->dims()[1];  // rank 4: NhwcOnRank4 checked
    if (c.known() && c.value != 1 && c.value % block != 0) {
      return ctx.Fail("kiln_cblock is ", block, " but a tensor of shape ", shape->ToString(),
                      " has channels that are not a multiple of it");
    }
  }
  return Status::Ok();
}

// com.kiln Concat / Split / Add / Sub / Mul / Div / Resize / Relu: the ONNX op of the newest
// opset on tensors channels_last keeps NHWC between convolutions. kiln_nhwc = 1: every input and
// output of rank 4 is stored NHWC (dims stay N, C, H, W; a Split's sizes and a Resize's roi,
// scales and sizes, of rank 1, are not), and the op computes on the stored order, which gives the
// same values only when it works along the channels (Concat and Split over axis 1), element by
// element (Relu; the arithmetic, each input of the output's known shape or of height and width 1,
// whose bytes are the same in either order), or axis by axis (Resize over all four axes, its roi,
// scales and sizes given in the stored order too: kernels/nhwc_view.h; not with `axes`).
// kiln_cblock stores them in channel blocks instead (CheckTransparentBlocks).
Status LayoutTransparent(InferenceContext& ctx, const char* base) {
  KILN_RETURN_IF_ERROR(InferAsBase(ctx, base), "");
  const std::string op = base;
  const size_t data_inputs = op == "Split" || op == "Resize" ? 1 : ctx.num_inputs();
  KILN_ASSIGN_OR_RETURN(const bool nhwc, NhwcOnRank4(ctx, data_inputs));
  KILN_RETURN_IF_ERROR(CheckTransparentBlocks(ctx, nhwc, data_inputs), "");
  if (!nhwc) return Status::Ok();
  if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div") {
    return CheckNhwcOperands(ctx);
  } else if (op == "Relu") {
    return Status::Ok();  // element by element: any storage order
  } else if (op == "Resize") {
    if (ctx.attrs().count("axes")) return ctx.Fail("kiln_nhwc is not taken with 'axes'");
  } else if (NormalizeAxis(ctx.attr_int("axis"), 4) != 1) {
    return ctx.Fail("kiln_nhwc needs axis 1 (the channels)");
  }
  return Status::Ok();
}
Status LayoutConcat(InferenceContext& ctx) { return LayoutTransparent(ctx, "Concat"); }
Status LayoutSplit(InferenceContext& ctx) { return LayoutTransparent(ctx, "Split"); }
Status LayoutAdd(InferenceContext& ctx) { return LayoutTransparent(ctx, "Add"); }
Status LayoutSub(InferenceContext& ctx) { return LayoutTransparent(ctx, "Sub"); }
Status LayoutMul(InferenceContext& ctx) { return LayoutTransparent(ctx, "Mul"); }
Status LayoutDiv(InferenceContext& ctx) { return LayoutTransparent(ctx, "Div"); }
Status LayoutResize(InferenceContext& ctx) { return LayoutTransparent(ctx, "Resize"); }
Status LayoutRelu(InferenceContext& ctx) { return LayoutTransparent(ctx, "Relu"); }

// com.kiln ArithmeticChain (arithmetic_chain pass): float32 Add / Sub / Mul / Div applied in turn,
// in one pass over memory. v = X0; step i (ops[i]) makes v = v op X(i+1), or X(i+1) op v where
// swapped[i] is 1; Y = v, of the broadcast shape of all inputs (each element is computed as the
// unfused ops compute it). activation "Relu" (arithmetic_chain: a Relu that alone read the
// chain's output) then makes Y = v < 0 ? 0 : v, as the cpu's Relu computes it; "" (the default)
// none. kiln_nhwc and kiln_cblock as on the transparent arithmetic (LayoutTransparent).
Status ArithmeticChain(InferenceContext& ctx) {
  static const std::set<std::string> kSteps = {"Add", "Sub", "Mul", "Div"};
  const std::string act = ctx.attr_string("activation");
  if (!act.empty() && act != "Relu") {
    return ctx.Unsupported("activation '", act, "' of a chain is not \"\" or Relu");
  }
  const std::vector<std::string> ops = ctx.attr_strings("ops");
  if (ops.size() + 1 != ctx.num_inputs()) {
    return ctx.Fail("'ops' has ", ops.size(), " steps for ", ctx.num_inputs(),
                    " inputs; one step per input after the first is required");
  }
  for (const std::string& op : ops) {
    if (!kSteps.count(op)) return ctx.Unsupported("step '", op, "' is not Add, Sub, Mul or Div");
  }
  if (ctx.attrs().count("swapped")) {
    const std::vector<int64_t> swapped = ctx.attr_ints("swapped");
    if (swapped.size() != ops.size()) {
      return ctx.Fail("'swapped' has ", swapped.size(), " values for ", ops.size(), " steps");
    }
    for (int64_t v : swapped) {
      if (v != 0 && v != 1) return ctx.Fail("'swapped' values must be 0 or 1, got ", v);
    }
  }
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    if (!ctx.has_input(i)) return ctx.Fail("input ", i, " is absent");
    if (ctx.input_dtype(i) != DataType::kFloat32) {
      return ctx.Unsupported("input ", i, " is ", Name(ctx.input_dtype(i)),
                             "; float32 is required");
    }
  }
  KILN_ASSIGN_OR_RETURN(Shape shape, BroadcastInputs(ctx, 0, ctx.num_inputs()));
  ctx.set_output(0, DataType::kFloat32, std::move(shape));
  KILN_ASSIGN_OR_RETURN(const bool nhwc, NhwcOnRank4(ctx, ctx.num_inputs()));
  KILN_RETURN_IF_ERROR(CheckTransparentBlocks(ctx, nhwc, ctx.num_inputs()), "");
  return nhwc ? CheckNhwcOperands(ctx) : Status::Ok();
}

// com.kiln ChannelShuffle (channel_shuffle_fusion): the channels of X (axis 1, C of them, a
// multiple of `group`) taken as `group` rows of C / group and read column by column, as the
// Reshape to [N, group, C / group, ...] -> Transpose of axes 1 and 2 -> Reshape back that it
// replaces (ShuffleNet's channel shuffle; OpenVINO's ShuffleChannels): Y's channel c is X's
// channel (c % group) * (C / group) + c / group. Any element type, rank 2 or more; with
// kiln_nhwc = 1 (rank 4) X and Y are stored NHWC, as channels_last keeps the transparent ops'.
Status ChannelShuffle(InferenceContext& ctx) {
  const int64_t group = ctx.attr_int("group");
  if (group < 1) return ctx.Fail("'group' must be 1 or more, got ", group);
  const Shape& x = ctx.input_shape(0);
  if (x.rank_known()) {
    if (x.rank() < 2) return ctx.Fail("X needs rank 2 or more (N, C, ...), got ", x.ToString());
    const Dim& c = x.dims()[1];
    if (c.known() && c.value % group != 0) {
      return ctx.Fail("X's ", c.value, " channels are not a multiple of 'group' ", group);
    }
  }
  ctx.set_output(0, ctx.input_dtype(0), x);
  return NhwcOnRank4(ctx, 1).status();
}

// The attributes ONNX's `op` declares at the newest opset (registered before the fused ops).
std::vector<AttrSpec> NewestAttrs(const OpRegistry& r, const char* op) {
  std::vector<AttrSpec> out;
  const OpSchema* schema = r.Find("", op);
  if (schema == nullptr) return out;
  for (AttrSpec a : schema->attrs) {
    if (a.since > kNewestOnnxOpset || a.until < kNewestOnnxOpset) continue;
    a.since = 1;
    out.push_back(std::move(a));
  }
  return out;
}

Status FusedConv(InferenceContext& ctx) {
  KILN_RETURN_IF_ERROR(InferAsBase(ctx, "Conv"), "");
  KILN_RETURN_IF_ERROR(CheckLayoutFlags(ctx, 3), "");
  return CheckResidual(ctx, 3);
}

// FusedQLinearConv(x, x_scale, x_zero_point, w, w_scale, w_zero_point, y_scale, y_zero_point,
// B?, Z?, z_scale?, z_zero_point?, out_scale?, out_zero_point?): Y = QLinearConv(inputs 0-8);
// without Z, the activation ("" or "Relu") applies before Y's quantization; with Z, the output is
// QLinearAdd(Y, Z) (com.microsoft's: (Y - y_zp) * y_scale + (Z - z_zp) * z_scale, quantized with
// out_scale and out_zero_point), the activation applying to that sum. Y's rounding is kept, so
// the node computes what the QDQ graph it replaces computes. Z has Y's dims; Y, Z and the output
// share one 8-bit type; the scales and zero points of Z and the output are one value each.
Status FusedQLinearConv(InferenceContext& ctx) {
  KILN_RETURN_IF_ERROR(InferAsBase(ctx, "QLinearConv"), "");
  const std::string act = ctx.attr_string("activation");
  if (act != "" && act != "Relu") {
    return ctx.Unsupported("activation '", act, "' is not fused into a quantized convolution");
  }
  KILN_RETURN_IF_ERROR(CheckLayoutFlags(ctx, 9), "");
  KILN_RETURN_IF_ERROR(CheckResidual(ctx, 9), "");
  const bool z = ctx.has_input(9);
  static const char* const kNames[] = {"z_scale", "z_zero_point", "out_scale", "out_zero_point"};
  for (size_t i = 10; i < 14; ++i) {
    const char* name = kNames[i - 10];
    if (ctx.has_input(i) != z) return ctx.Fail(name, z ? " is required with Z" : " without Z");
    if (!z) continue;
    const Shape& s = ctx.input_shape(i);
    if (s.rank_known() && s.NumElements() && *s.NumElements() != 1) {
      return ctx.Fail(name, " has shape ", s.ToString(), "; one value is required");
    }
    const DataType want = i % 2 == 0 ? DataType::kFloat32 : ctx.input_dtype(9);
    if (ctx.input_dtype(i) != want) {
      return ctx.Fail(name, " is ", Name(ctx.input_dtype(i)), "; ", Name(want), " is required");
    }
  }
  return Status::Ok();
}

// FusedQLinearMatMul(a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point,
// bias?): QLinearMatMul with an int32 bias, one value per output column in units of a_scale *
// b_scale, added to the integer sum before the requantization (as QLinearConv's B; qdq_fusion
// makes it from a QDQ Gemm).
Status FusedQLinearMatMul(InferenceContext& ctx) {
  KILN_RETURN_IF_ERROR(InferAsBase(ctx, "QLinearMatMul"), "");
  if (!ctx.has_input(8)) return Status::Ok();
  if (ctx.input_dtype(8) != DataType::kInt32) {
    return ctx.Fail("bias is ", Name(ctx.input_dtype(8)), "; int32 is required");
  }
  const Shape& bias = ctx.input_shape(8);
  const Shape& out = ctx.outputs()[0].shape;
  if (!bias.rank_known()) return Status::Ok();
  const Dim last = out.rank_known() && out.rank() > 0 ? out[out.rank() - 1] : Dim::Unknown();
  if (bias.rank() != 1 || (bias[0].known() && last.known() && bias[0].value != last.value)) {
    return ctx.Fail("bias has shape ", bias.ToString(), "; one value per output column of ",
                    out.ToString(), " is required");
  }
  return Status::Ok();
}

Status FusedGemm(InferenceContext& ctx) { return InferAsBase(ctx, "Gemm"); }
Status FusedConvTranspose(InferenceContext& ctx) { return InferAsBase(ctx, "ConvTranspose"); }

// FusedMatMul's bf16 storage flags (matmul_bf16_storage, src/compiler/passes/README.md): ints 0
// or 1; a set flag needs a float32 A (kiln_a_bf16) or Y (kiln_y_bf16), whose bytes are then
// bfloat16.
Status CheckMatMulStorageFlags(InferenceContext& ctx) {
  for (const char* name : {"kiln_a_bf16", "kiln_y_bf16"}) {
    auto it = ctx.attrs().find(name);
    if (it == ctx.attrs().end()) continue;
    const int64_t* v = std::get_if<int64_t>(&it->second);
    if (v == nullptr || (*v != 0 && *v != 1)) {
      return ctx.Fail("attribute '", name, "' must be the int 0 or 1");
    }
    if (*v == 1 && ctx.input_dtype(0) != DataType::kFloat32) {
      return ctx.Fail("attribute '", name, "' needs float32 A and Y, got ",
                      Name(ctx.input_dtype(0)));
    }
  }
  return Status::Ok();
}

Status FusedMatMul(InferenceContext& ctx) {
  KILN_RETURN_IF_ERROR(InferAsBase(ctx, "MatMul"), "");
  KILN_RETURN_IF_ERROR(CheckMatMulStorageFlags(ctx), "");
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
  // FusedConv's channels_last flags: absent is NCHW (and float32 storage). A fused convolution's
  // output may take its residual's memory (the residual is read into the sum before any output is
  // written).
  r.Register(
      MakeSchema("FusedConv", 1, 2, 4, 1, 1, kFamily, FusedConv, kDomain)
          .Attrs(activation({Attr("auto_pad", "NOTSET"), OptionalAttr("dilations", AttrKind::kInts),
                             Attr("group", 1), OptionalAttr("kernel_shape", AttrKind::kInts),
                             OptionalAttr("pads", AttrKind::kInts),
                             OptionalAttr("strides", AttrKind::kInts),
                             OptionalAttr("kiln_x_nhwc", AttrKind::kInt),
                             OptionalAttr("kiln_y_nhwc", AttrKind::kInt),
                             OptionalAttr("kiln_z_nhwc", AttrKind::kInt),
                             OptionalAttr("kiln_x_bf16", AttrKind::kInt),
                             OptionalAttr("kiln_y_bf16", AttrKind::kInt),
                             OptionalAttr("kiln_z_bf16", AttrKind::kInt),
                             OptionalAttr("kiln_x_cblock", AttrKind::kInt),
                             OptionalAttr("kiln_y_cblock", AttrKind::kInt),
                             OptionalAttr("kiln_z_cblock", AttrKind::kInt),
                             OptionalAttr("post_scale", AttrKind::kFloat),
                             OptionalAttr("post_shift", AttrKind::kFloat)}))
          .InPlace(3));
  r.Register(
      MakeSchema("FusedQLinearConv", 1, 8, 14, 1, 1, kFamily, FusedQLinearConv, kDomain)
          .Attrs(activation(
              {Attr("auto_pad", "NOTSET"), Attr("group", 1),
               OptionalAttr("kernel_shape", AttrKind::kInts),
               OptionalAttr("strides", AttrKind::kInts), OptionalAttr("dilations", AttrKind::kInts),
               OptionalAttr("pads", AttrKind::kInts), OptionalAttr("kiln_x_nhwc", AttrKind::kInt),
               OptionalAttr("kiln_y_nhwc", AttrKind::kInt),
               OptionalAttr("kiln_z_nhwc", AttrKind::kInt)}))
          .InPlace(9));
  // The pools channels_last keeps NHWC (src/compiler/passes/README.md): ONNX's attributes as the
  // newest opset has them, plus the layout flags of X and Y.
  const std::vector<AttrSpec> layout = {
      OptionalAttr("kiln_x_nhwc", AttrKind::kInt),   OptionalAttr("kiln_y_nhwc", AttrKind::kInt),
      OptionalAttr("kiln_x_bf16", AttrKind::kInt),   OptionalAttr("kiln_y_bf16", AttrKind::kInt),
      OptionalAttr("kiln_x_cblock", AttrKind::kInt), OptionalAttr("kiln_y_cblock", AttrKind::kInt)};
  const std::vector<AttrSpec> pool_window = {Attr("auto_pad", "NOTSET"),
                                             RequiredAttr("kernel_shape", AttrKind::kInts),
                                             OptionalAttr("pads", AttrKind::kInts),
                                             OptionalAttr("strides", AttrKind::kInts),
                                             Attr("ceil_mode", 0),
                                             OptionalAttr("dilations", AttrKind::kInts)};
  r.Register(MakeSchema("MaxPool", 1, 1, 1, 1, 1, kFamily, LayoutMaxPool, kDomain)
                 .Attrs(pool_window)
                 .Attrs({Attr("storage_order", 0)})
                 .Attrs(layout));
  r.Register(MakeSchema("AveragePool", 1, 1, 1, 1, 1, kFamily, LayoutAveragePool, kDomain)
                 .Attrs(pool_window)
                 .Attrs({Attr("count_include_pad", 0)})
                 .Attrs(layout));
  // The ops channels_last keeps NHWC between convolutions besides the pools (LayoutTransparent):
  // ONNX's op as its newest opset has it, plus kiln_nhwc and kiln_cblock.
  struct Transparent {
    const char* op;
    int min_in, max_in, max_out;
    InferFn infer;
  };
  for (const Transparent& t :
       {Transparent{"Concat", 1, -1, 1, LayoutConcat}, Transparent{"Split", 1, 2, -1, LayoutSplit},
        Transparent{"Add", 2, 2, 1, LayoutAdd}, Transparent{"Sub", 2, 2, 1, LayoutSub},
        Transparent{"Mul", 2, 2, 1, LayoutMul}, Transparent{"Div", 2, 2, 1, LayoutDiv},
        Transparent{"Resize", 1, 4, 1, LayoutResize}, Transparent{"Relu", 1, 1, 1, LayoutRelu}}) {
    OpSchema schema =
        MakeSchema(t.op, 1, t.min_in, t.max_in, 1, t.max_out, kFamily, t.infer, kDomain)
            .Attrs(NewestAttrs(r, t.op))
            .Attrs({OptionalAttr("kiln_nhwc", AttrKind::kInt),
                    OptionalAttr("kiln_cblock", AttrKind::kInt)});
    const OpSchema* onnx = r.Find("", t.op);  // in place where ONNX's op is (the arithmetic)
    if (onnx != nullptr && onnx->has(kTraitInPlace)) schema.Traits(kTraitInPlace);
    r.Register(std::move(schema));
  }
  // A chain of float32 arithmetic (1 to 8 steps), maybe ending in a Relu, with kiln_nhwc as the
  // transparent ops have it.
  // In place on X0 (each element of X0 is read before the same element of Y is written; the
  // planner takes no input read at another slot of the node too).
  r.Register(
      MakeSchema("ArithmeticChain", 1, 2, 9, 1, 1, kFamily, ArithmeticChain, kDomain)
          .Attrs({RequiredAttr("ops", AttrKind::kStrings), OptionalAttr("swapped", AttrKind::kInts),
                  Attr("activation", ""), OptionalAttr("kiln_nhwc", AttrKind::kInt),
                  OptionalAttr("kiln_cblock", AttrKind::kInt)})
          .InPlace(0));
  r.Register(MakeSchema("ChannelShuffle", 1, 1, 1, 1, 1, kFamily, ChannelShuffle, kDomain)
                 .Attrs({RequiredAttr("group", AttrKind::kInt),
                         OptionalAttr("kiln_nhwc", AttrKind::kInt)}));
  r.Register(MakeSchema("FusedQLinearMatMul", 1, 8, 9, 1, 1, kFamily, FusedQLinearMatMul, kDomain)
                 .Attrs(activation({})));
  // ConvTranspose's attributes as the newest opset has them, and the activation.
  r.Register(MakeSchema("FusedConvTranspose", 1, 2, 3, 1, 1, kFamily, FusedConvTranspose, kDomain)
                 .Attrs(activation(NewestAttrs(r, "ConvTranspose"))));
  r.Register(MakeSchema("FusedGemm", 1, 2, 3, 1, 1, kFamily, FusedGemm, kDomain)
                 .Attrs(activation({Attr("alpha", 1.0), Attr("beta", 1.0), Attr("transA", 0),
                                    Attr("transB", 0)})));
  // FusedMatMul's post_scale / post_shift as FusedConv's (post_affine_fusion: attention's
  // scores divided by sqrt(d)); kiln_a_bf16 / kiln_y_bf16: A or Y stored as bfloat16
  // (matmul_bf16_storage, in a bf16 model).
  r.Register(MakeSchema("FusedMatMul", 1, 2, 3, 1, 1, kFamily, FusedMatMul, kDomain)
                 .Attrs(activation({OptionalAttr("post_scale", AttrKind::kFloat),
                                    OptionalAttr("post_shift", AttrKind::kFloat),
                                    OptionalAttr("kiln_a_bf16", AttrKind::kInt),
                                    OptionalAttr("kiln_y_bf16", AttrKind::kInt)})));
}

}  // namespace kiln::ir
