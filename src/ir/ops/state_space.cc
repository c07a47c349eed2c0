// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// State-space and linear-attention ops (ONNX opset 27): LinearAttention, the recurrence of
// (gated) linear attention and (gated) DeltaNet, and CausalConvWithState, the depthwise causal
// convolution that feeds it. Both carry a recurrent state from one call to the next
// (past_state in, present_state out), so a decoder runs them one token at a time.
//
// Their tensors are float16, bfloat16 or float32. LinearAttention's state may have another of
// these types than its activations (a float32 state with float16 activations); without a
// past_state, present_state takes the activations' type, as ONNX's function body and reference
// implementation make it.
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "ir/ops/infer_util.h"

namespace kiln::ir {
namespace {

bool IsStateSpaceFloat(DataType t) {
  return t == DataType::kFloat16 || t == DataType::kBFloat16 || t == DataType::kFloat32;
}

// Input i, when given, is float16, bfloat16 or float32.
Status CheckFloatType(const InferenceContext& ctx, size_t i, const char* name) {
  if (!ctx.has_input(i) || IsStateSpaceFloat(ctx.input_dtype(i))) return Status::Ok();
  return ctx.Fail(name, " is ", Name(ctx.input_dtype(i)),
                  "; float16, bfloat16 or float32 is required");
}

// Input i, when given, has the type of input `like`.
Status CheckSameType(const InferenceContext& ctx, size_t i, const char* name, size_t like,
                     const char* like_name) {
  if (!ctx.has_input(i) || ctx.input_dtype(i) == ctx.input_dtype(like)) return Status::Ok();
  return ctx.Fail(name, " is ", Name(ctx.input_dtype(i)), " but ", like_name, " is ",
                  Name(ctx.input_dtype(like)), "; they must have the same type");
}

// The inputs ONNX requires are given (a graph can mark one omitted with an empty name).
Status CheckGiven(const InferenceContext& ctx, const std::vector<const char*>& names) {
  for (size_t i = 0; i < names.size(); ++i) {
    if (!ctx.has_input(i)) return ctx.Fail("input ", i, " (", names[i], ") is required");
  }
  return Status::Ok();
}

// Unifies `*d` with `other`, two dims that must be equal: fails when both are known and differ,
// else keeps the more informative one in `*d`.
Status Unify(const InferenceContext& ctx, Dim* d, const Dim& other, const std::string& what) {
  if (d->known() && other.known() && d->value != other.value) {
    return ctx.Fail(what, " disagree: ", d->value, " vs ", other.value);
  }
  if (!d->known() && (other.known() || d->symbol.empty())) *d = other;
  return Status::Ok();
}

// `packed` / `heads` for a packed dim [heads * size] that must divide evenly; unknown when
// `packed` is.
Result<Dim> PerHead(const InferenceContext& ctx, const Dim& packed, int64_t heads, const char* name,
                    const char* heads_name) {
  if (!packed.known()) return Dim::Unknown();
  if (packed.value % heads != 0) {
    return ctx.Fail("the last dim of ", name, " (", packed.value, ") is not divisible by ",
                    heads_name, " (", heads, ")");
  }
  return Dim::Known(packed.value / heads);
}

// ---------------------------------------------------------------------------------------------
// LinearAttention(query [B, T, Hq * dk], key [B, T, Hkv * dk], value [B, T, Hkv * dv],
// past_state? [B, Hkv, dk, dv], decay? [B, T, Hkv] or [B, T, Hkv * dk], beta? [B, T, Hkv] or
// [B, T, 1]) -> output [B, T, Hq * dv], present_state [B, Hkv, dk, dv].

enum LinearAttentionInput : size_t { kQuery, kKey, kValue, kPastState, kDecay, kBeta };

Status LinearAttention(InferenceContext& ctx) {
  KILN_RETURN_IF_ERROR(CheckGiven(ctx, {"query", "key", "value"}), "");
  const std::string rule = ctx.attr_string("update_rule");
  if (rule != "linear" && rule != "gated" && rule != "delta" && rule != "gated_delta") {
    return ctx.Fail("attribute 'update_rule' is '", rule,
                    "'; 'linear', 'gated', 'delta' or 'gated_delta' is required");
  }
  const int64_t hq = ctx.attr_int("q_num_heads"), hkv = ctx.attr_int("kv_num_heads");
  if (hq < 1 || hkv < 1 || hq % hkv != 0) {
    return ctx.Fail("q_num_heads (", hq, ") must be a positive multiple of kv_num_heads (", hkv,
                    ")");
  }
  // decay goes with the gated rules and beta with the delta rules, each only with them.
  const bool gated = rule == "gated" || rule == "gated_delta";
  const bool delta = rule == "delta" || rule == "gated_delta";
  for (auto [i, name, wanted] :
       {std::tuple<size_t, const char*, bool>{kDecay, "decay", gated}, {kBeta, "beta", delta}}) {
    if (ctx.has_input(i) != wanted) {
      return ctx.Fail("update_rule '", rule, "' ", wanted ? "requires" : "does not take", " ",
                      name);
    }
  }

  KILN_RETURN_IF_ERROR(CheckFloatType(ctx, kQuery, "query"), "");
  for (auto [i, name] : {std::pair<size_t, const char*>{kKey, "key"},
                         {kValue, "value"},
                         {kDecay, "decay"},
                         {kBeta, "beta"}}) {
    KILN_RETURN_IF_ERROR(CheckSameType(ctx, i, name, kQuery, "query"), "");
  }
  KILN_RETURN_IF_ERROR(CheckFloatType(ctx, kPastState, "past_state"), "");

  KILN_ASSIGN_OR_RETURN(std::vector<Dim> q, DimsOfRank(ctx, kQuery, "query", 3));
  KILN_ASSIGN_OR_RETURN(std::vector<Dim> k, DimsOfRank(ctx, kKey, "key", 3));
  KILN_ASSIGN_OR_RETURN(std::vector<Dim> v, DimsOfRank(ctx, kValue, "value", 3));
  Dim batch = q[0], seq = q[1];
  for (const auto& [dims, name] :
       {std::pair<const std::vector<Dim>*, const char*>{&k, "key"}, {&v, "value"}}) {
    KILN_RETURN_IF_ERROR(
        Unify(ctx, &batch, (*dims)[0], StrCat("the batch dims of query and ", name)), "");
    KILN_RETURN_IF_ERROR(
        Unify(ctx, &seq, (*dims)[1], StrCat("the sequence dims of query and ", name)), "");
  }
  // dk from query (Hq heads) and key (Hkv heads), which must agree; dv from value.
  KILN_ASSIGN_OR_RETURN(Dim dk, PerHead(ctx, q[2], hq, "query", "q_num_heads"));
  KILN_ASSIGN_OR_RETURN(Dim dk_key, PerHead(ctx, k[2], hkv, "key", "kv_num_heads"));
  KILN_RETURN_IF_ERROR(Unify(ctx, &dk, dk_key, "the head sizes of query and key"), "");
  KILN_ASSIGN_OR_RETURN(Dim dv, PerHead(ctx, v[2], hkv, "value", "kv_num_heads"));

  DataType state_type = ctx.input_dtype(kQuery);
  if (ctx.has_input(kPastState)) {
    state_type = ctx.input_dtype(kPastState);
    KILN_ASSIGN_OR_RETURN(std::vector<Dim> s, DimsOfRank(ctx, kPastState, "past_state", 4));
    KILN_RETURN_IF_ERROR(Unify(ctx, &batch, s[0], "the batch dims of query and past_state"), "");
    Dim heads = Dim::Known(hkv);
    KILN_RETURN_IF_ERROR(Unify(ctx, &heads, s[1], "kv_num_heads and dim 1 of past_state"), "");
    KILN_RETURN_IF_ERROR(Unify(ctx, &dk, s[2], "the key head size and dim 2 of past_state"), "");
    KILN_RETURN_IF_ERROR(Unify(ctx, &dv, s[3], "the value head size and dim 3 of past_state"), "");
  }
  if (ctx.has_input(kDecay)) {
    KILN_ASSIGN_OR_RETURN(std::vector<Dim> g, DimsOfRank(ctx, kDecay, "decay", 3));
    KILN_RETURN_IF_ERROR(Unify(ctx, &batch, g[0], "the batch dims of query and decay"), "");
    KILN_RETURN_IF_ERROR(Unify(ctx, &seq, g[1], "the sequence dims of query and decay"), "");
    // One decay per head, or one per key element of each head (which then gives dk).
    if (g[2].known() && g[2].value != hkv) {
      const bool fits = dk.known() ? g[2].value == hkv * dk.value : g[2].value % hkv == 0;
      if (!fits) {
        return ctx.Fail("the last dim of decay (", g[2].value, ") must be kv_num_heads (", hkv,
                        ") or kv_num_heads * the key head size",
                        dk.known() ? StrCat(" (", hkv * dk.value, ")") : std::string());
      }
      dk = Dim::Known(g[2].value / hkv);
    }
  }
  if (ctx.has_input(kBeta)) {
    KILN_ASSIGN_OR_RETURN(std::vector<Dim> b, DimsOfRank(ctx, kBeta, "beta", 3));
    KILN_RETURN_IF_ERROR(Unify(ctx, &batch, b[0], "the batch dims of query and beta"), "");
    KILN_RETURN_IF_ERROR(Unify(ctx, &seq, b[1], "the sequence dims of query and beta"), "");
    if (b[2].known() && b[2].value != hkv && b[2].value != 1) {
      return ctx.Fail("the last dim of beta (", b[2].value, ") must be kv_num_heads (", hkv,
                      ") or 1");
    }
  }

  const Dim out_last = dv.known() ? Dim::Known(hq * dv.value) : Dim::Unknown();
  ctx.set_output(0, ctx.input_dtype(kQuery), Shape({batch, seq, out_last}));
  ctx.set_output(1, state_type, Shape({batch, Dim::Known(hkv), dk, dv}));
  return Status::Ok();
}

// ---------------------------------------------------------------------------------------------
// CausalConvWithState(input [B, C, L], weight [C, 1, k], bias? [C], past_state? [B, C, k - 1])
// -> output [B, C, L], present_state [B, C, k - 1].

enum CausalConvInput : size_t { kInput, kWeight, kBias, kConvState };

Status CausalConvWithState(InferenceContext& ctx) {
  KILN_RETURN_IF_ERROR(CheckGiven(ctx, {"input", "weight"}), "");
  const std::string activation = ctx.attr_string("activation");
  if (activation != "none" && activation != "silu" && activation != "swish") {
    return ctx.Fail("attribute 'activation' is '", activation,
                    "'; 'none', 'silu' or 'swish' is required");
  }
  KILN_RETURN_IF_ERROR(CheckFloatType(ctx, kInput, "input"), "");
  for (auto [i, name] : {std::pair<size_t, const char*>{kWeight, "weight"},
                         {kBias, "bias"},
                         {kConvState, "past_state"}}) {
    KILN_RETURN_IF_ERROR(CheckSameType(ctx, i, name, kInput, "input"), "");
  }

  KILN_ASSIGN_OR_RETURN(std::vector<Dim> x, DimsOfRank(ctx, kInput, "input", 3));
  KILN_ASSIGN_OR_RETURN(std::vector<Dim> w, DimsOfRank(ctx, kWeight, "weight", 3));
  Dim batch = x[0], channels = x[1];
  KILN_RETURN_IF_ERROR(Unify(ctx, &channels, w[0], "the channels of input and weight"), "");
  if (w[1].known() && w[1].value != 1) {
    return ctx.Fail("weight has shape ", ctx.input_shape(kWeight).ToString(),
                    "; a depthwise weight [channels, 1, k] is required");
  }
  if (w[2].known() && w[2].value < 1) {
    return ctx.Fail("weight has kernel size ", w[2].value, "; at least 1 is required");
  }
  Dim carry = w[2].known() ? Dim::Known(w[2].value - 1) : Dim::Unknown();  // k - 1
  if (ctx.has_input(kBias)) {
    KILN_ASSIGN_OR_RETURN(std::vector<Dim> b, DimsOfRank(ctx, kBias, "bias", 1));
    KILN_RETURN_IF_ERROR(Unify(ctx, &channels, b[0], "the channels of input and bias"), "");
  }
  if (ctx.has_input(kConvState)) {
    KILN_ASSIGN_OR_RETURN(std::vector<Dim> s, DimsOfRank(ctx, kConvState, "past_state", 3));
    KILN_RETURN_IF_ERROR(Unify(ctx, &batch, s[0], "the batch dims of input and past_state"), "");
    KILN_RETURN_IF_ERROR(Unify(ctx, &channels, s[1], "the channels of input and past_state"), "");
    KILN_RETURN_IF_ERROR(
        Unify(ctx, &carry, s[2], "the kernel size - 1 of weight and dim 2 of past_state"), "");
  }
  const DataType t = ctx.input_dtype(kInput);
  ctx.set_output(0, t, Shape({batch, channels, x[2]}));
  ctx.set_output(1, t, Shape({batch, channels, carry}));
  return Status::Ok();
}

}  // namespace

void RegisterStateSpaceOps(OpRegistry& r) {
  constexpr const char* kFamily = "state_space";
  // ONNX marks present_state required; a graph whose present_state nothing reads may still
  // leave it unbound after pruning, and the kernels then skip it.
  r.Register(MakeSchema("LinearAttention", 27, 3, 6, 2, 2, kFamily, LinearAttention)
                 .Attrs({Attr("chunk_size", 64), RequiredAttr("kv_num_heads", AttrKind::kInt),
                         RequiredAttr("q_num_heads", AttrKind::kInt), Attr("scale", 0.0),
                         Attr("update_rule", "gated_delta")}));
  r.Register(MakeSchema("CausalConvWithState", 27, 2, 4, 2, 2, kFamily, CausalConvWithState)
                 .Attrs({Attr("activation", "none")}));
}

}  // namespace kiln::ir
