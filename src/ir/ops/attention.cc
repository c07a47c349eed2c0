// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Attention ops: Attention (scaled dot-product attention with grouped-query heads, masks,
// softcap and a KV cache), Kiln's PackedQkvAttention (Attention on one tensor holding Q, K and
// V), RotaryEmbedding.
#include <optional>
#include <string>
#include <vector>

#include "ir/ops/infer_util.h"

namespace kiln::ir {
namespace {

// `a` / `k`: known when `a` is, unknown otherwise.
Dim DivDim(const Dim& a, int64_t k) { return a.known() ? Dim::Known(a.value / k) : Dim::Unknown(); }

// `a` + `b`: known when both are; `a` itself when `b` is a known zero.
Dim AddDims(const Dim& a, const Dim& b) {
  if (a.known() && b.known()) return Dim::Known(a.value + b.value);
  if (b.known() && b.value == 0) return a;
  return Dim::Unknown();
}

// The more informative of two dims that must be equal (the known one, else `a`).
Dim Either(const Dim& a, const Dim& b) { return a.known() || !b.known() ? a : b; }

// Two dims that both are known must be equal.
Status CheckEqual(InferenceContext& ctx, const Dim& a, const Dim& b, const char* what) {
  if (a.known() && b.known() && a.value != b.value) {
    return ctx.Fail(what, " differ: ", a.value, " vs ", b.value);
  }
  return Status::Ok();
}

Status CheckFloat(InferenceContext& ctx, size_t i, const char* name) {
  if (!ctx.has_input(i) || IsFloat(ctx.input_dtype(i))) return Status::Ok();
  return ctx.Fail(name, " is ", Name(ctx.input_dtype(i)), "; a floating-point type is required");
}

Status CheckSameType(InferenceContext& ctx, size_t i, size_t like, const char* name,
                     const char* like_name) {
  if (!ctx.has_input(i) || !ctx.has_input(like)) return Status::Ok();
  if (ctx.input_dtype(i) == ctx.input_dtype(like)) return Status::Ok();
  return ctx.Fail(name, " is ", Name(ctx.input_dtype(i)), " but ", like_name, " is ",
                  Name(ctx.input_dtype(like)), "; they must have the same type");
}

// An int attribute that must be 0 or 1.
Result<bool> FlagAttr(InferenceContext& ctx, const char* name) {
  int64_t v = ctx.attr_int(name);
  if (v != 0 && v != 1) return ctx.Fail("attribute '", name, "' must be 0 or 1, got ", v);
  return v == 1;
}

// An optional int attribute that must be >= 1 when present; 0 when absent.
Result<int64_t> HeadsAttr(InferenceContext& ctx, const char* name) {
  if (!ctx.has_attr(name)) return int64_t{0};
  int64_t v = ctx.attr_int(name);
  if (v < 1) return ctx.Fail("attribute '", name, "' must be >= 1, got ", v);
  return v;
}

// The dims of input i, which must have rank 3 or 4 (`rank` when already decided).
Result<std::vector<Dim>> Dims34(InferenceContext& ctx, size_t i, const char* name,
                                std::optional<size_t> rank) {
  const Shape& s = ctx.input_shape(i);
  if (!s.rank_known()) return std::vector<Dim>(rank.value_or(0));
  if (s.rank() != 3 && s.rank() != 4) {
    return ctx.Fail(name, " has shape ", s.ToString(), "; rank 3 or 4 is required");
  }
  if (rank && *rank != s.rank()) {
    return ctx.Fail(name, " has shape ", s.ToString(), "; Q, K and V must have the same rank (",
                    *rank, ")");
  }
  return s.dims();
}

// Splits the last dim of a 3-D input [B, S, heads * size] into the head size.
Result<Dim> HeadSize(InferenceContext& ctx, const Dim& hidden, int64_t heads, const char* name,
                     const char* heads_attr) {
  if (hidden.known() && hidden.value % heads != 0) {
    return ctx.Fail(name, "'s hidden size ", hidden.value, " is not a multiple of '", heads_attr,
                    "' = ", heads);
  }
  return DivDim(hidden, heads);
}

// The head layout every Attention input agrees on.
struct AttentionDims {
  Dim batch, q_heads, kv_heads, q_seq, kv_seq, past, head, v_head;
};

Result<AttentionDims> ReadAttentionDims(InferenceContext& ctx, size_t rank) {
  KILN_ASSIGN_OR_RETURN(std::vector<Dim> q, Dims34(ctx, 0, "Q", rank));
  KILN_ASSIGN_OR_RETURN(std::vector<Dim> k, Dims34(ctx, 1, "K", rank));
  KILN_ASSIGN_OR_RETURN(std::vector<Dim> v, Dims34(ctx, 2, "V", rank));
  KILN_ASSIGN_OR_RETURN(int64_t q_heads, HeadsAttr(ctx, "q_num_heads"));
  KILN_ASSIGN_OR_RETURN(int64_t kv_heads, HeadsAttr(ctx, "kv_num_heads"));
  AttentionDims d;
  Dim k_head, k_heads, v_heads, v_seq;
  if (rank == 3) {
    if (q_heads == 0 || kv_heads == 0) {
      return ctx.Fail("3-D Q, K and V need the attributes 'q_num_heads' and 'kv_num_heads'");
    }
    d.q_heads = Dim::Known(q_heads);
    k_heads = v_heads = Dim::Known(kv_heads);
    d.q_seq = q[1];
    d.kv_seq = k[1];
    v_seq = v[1];
    KILN_ASSIGN_OR_RETURN(d.head, HeadSize(ctx, q[2], q_heads, "Q", "q_num_heads"));
    KILN_ASSIGN_OR_RETURN(k_head, HeadSize(ctx, k[2], kv_heads, "K", "kv_num_heads"));
    KILN_ASSIGN_OR_RETURN(d.v_head, HeadSize(ctx, v[2], kv_heads, "V", "kv_num_heads"));
  } else {
    d.q_heads = q[1];
    k_heads = k[1];
    v_heads = v[1];
    d.q_seq = q[2];
    d.kv_seq = k[2];
    v_seq = v[2];
    d.head = q[3];
    k_head = k[3];
    d.v_head = v[3];
    if (q_heads != 0)
      KILN_RETURN_IF_ERROR(
          CheckEqual(ctx, q[1], Dim::Known(q_heads), "Q's heads and 'q_num_heads'"), "");
    if (kv_heads != 0)
      KILN_RETURN_IF_ERROR(
          CheckEqual(ctx, k[1], Dim::Known(kv_heads), "K's heads and 'kv_num_heads'"), "");
  }
  KILN_RETURN_IF_ERROR(CheckEqual(ctx, q[0], k[0], "the batch sizes of Q and K"), "");
  KILN_RETURN_IF_ERROR(CheckEqual(ctx, q[0], v[0], "the batch sizes of Q and V"), "");
  KILN_RETURN_IF_ERROR(CheckEqual(ctx, d.head, k_head, "the head sizes of Q and K"), "");
  KILN_RETURN_IF_ERROR(CheckEqual(ctx, k_heads, v_heads, "the head counts of K and V"), "");
  KILN_RETURN_IF_ERROR(CheckEqual(ctx, d.kv_seq, v_seq, "the sequence lengths of K and V"), "");
  d.batch = Either(Either(q[0], k[0]), v[0]);
  d.kv_heads = Either(k_heads, v_heads);
  d.kv_seq = Either(d.kv_seq, v_seq);
  d.head = Either(d.head, k_head);
  if (d.q_heads.known() && d.kv_heads.known() &&
      (d.kv_heads.value == 0 || d.q_heads.value % d.kv_heads.value != 0)) {
    return ctx.Fail("Q has ", d.q_heads.value, " heads, not a multiple of K and V's ",
                    d.kv_heads.value, " heads");
  }
  return d;
}

// past_key [B, kv_heads, P, head] and past_value [B, kv_heads, P, v_head], given together.
Status ReadPast(InferenceContext& ctx, AttentionDims& d) {
  d.past = Dim::Known(0);
  if (ctx.has_input(4) != ctx.has_input(5)) {
    return ctx.Fail("past_key and past_value must be given together");
  }
  if (!ctx.has_input(4)) return Status::Ok();
  d.past = Dim::Unknown();
  const char* names[] = {"past_key", "past_value"};
  for (size_t i = 4; i <= 5; ++i) {
    const Shape& s = ctx.input_shape(i);
    if (!s.rank_known()) continue;
    if (s.rank() != 4) {
      return ctx.Fail(names[i - 4], " has shape ", s.ToString(), "; rank 4 is required");
    }
    KILN_RETURN_IF_ERROR(CheckEqual(ctx, s[0], d.batch, "the batch sizes of Q and the past"), "");
    KILN_RETURN_IF_ERROR(CheckEqual(ctx, s[1], d.kv_heads, "the head counts of K and the past"),
                         "");
    KILN_RETURN_IF_ERROR(CheckEqual(ctx, s[2], d.past, "the lengths of past_key and past_value"),
                         "");
    const Dim& head = i == 4 ? d.head : d.v_head;
    KILN_RETURN_IF_ERROR(CheckEqual(ctx, s[3], head, "the head sizes of the input and the past"),
                         "");
    d.past = Either(d.past, s[2]);
  }
  return Status::Ok();
}

// attn_mask (input `at`) broadcasts to [B, q_heads, q_seq, total]; from opset 24 its last dim
// may be shorter than total (padded with -inf).
Status CheckMask(InferenceContext& ctx, const AttentionDims& d, const Dim& total, size_t at = 3) {
  if (!ctx.has_input(at)) return Status::Ok();
  DataType t = ctx.input_dtype(at);
  if (t == DataType::kString || t == DataType::kUndefined) {
    return ctx.Fail("attn_mask is ", Name(t), "; a boolean or numeric mask is required");
  }
  const Shape& s = ctx.input_shape(at);
  if (!s.rank_known()) return Status::Ok();
  if (s.rank() > 4)
    return ctx.Fail("attn_mask has shape ", s.ToString(), "; rank <= 4 is required");
  const Dim target[4] = {d.batch, d.q_heads, d.q_seq, total};
  for (size_t i = 0; i < s.rank(); ++i) {
    const Dim& m = s[i];
    const Dim& want = target[4 - s.rank() + i];
    if (!m.known() || !want.known() || m.value == want.value) continue;
    bool last = i + 1 == s.rank();
    if (m.value == 1 && !(last && ctx.opset() >= 24)) continue;
    if (last && ctx.opset() >= 24 && m.value < want.value) continue;
    return ctx.Fail("attn_mask has shape ", s.ToString(), ", which does not broadcast to [",
                    d.batch.known() ? std::to_string(d.batch.value) : "?", ",",
                    d.q_heads.known() ? std::to_string(d.q_heads.value) : "?", ",",
                    d.q_seq.known() ? std::to_string(d.q_seq.value) : "?", ",", want.value, "]",
                    ctx.opset() >= 24 ? " (its last dim may be shorter)" : "");
  }
  return Status::Ok();
}

Status CheckAttentionAttrs(InferenceContext& ctx) {
  const InferenceContext& n = ctx;
  KILN_RETURN_IF_ERROR(FlagAttr(ctx, "is_causal").status(), "");
  int64_t mode = n.attr_int("qk_matmul_output_mode");
  if (mode < 0 || mode > 3) {
    return ctx.Fail("attribute 'qk_matmul_output_mode' must be 0, 1, 2 or 3, got ", mode);
  }
  if (n.has_attr("softmax_precision")) {
    int64_t p = n.attr_int("softmax_precision");
    DataType t = FromOnnx(static_cast<int32_t>(p));
    if (!IsFloat(t)) {
      return ctx.Fail("attribute 'softmax_precision' = ", p,
                      " must name float, float16, bfloat16 or double");
    }
  }
  if (n.has_attr("scale") && !(n.attr_float("scale") >= 0.f)) {
    return ctx.Fail("attribute 'scale' = ", n.attr_float("scale"), " must be >= 0");
  }
  float softcap = n.attr_float("softcap");
  if (!(softcap >= 0.f)) return ctx.Fail("attribute 'softcap' = ", softcap, " must be >= 0");
  return Status::Ok();
}

// Attention (opset 23; 24 adds nonpad_kv_seqlen and short masks):
// Q [B, Hq, Sq, D] or [B, Sq, Hq * D]; K [B, Hkv, Skv, D]; V [B, Hkv, Skv, Dv];
// Y [B, Hq, Sq, Dv] or [B, Sq, Hq * Dv]; present_key/value [B, Hkv, P + Skv, D / Dv];
// qk_matmul_output [B, Hq, Sq, P + Skv].
Status Attention(InferenceContext& ctx) {
  KILN_RETURN_IF_ERROR(CheckFloat(ctx, 0, "Q"), "");
  KILN_RETURN_IF_ERROR(CheckSameType(ctx, 1, 0, "K", "Q"), "");
  KILN_RETURN_IF_ERROR(CheckFloat(ctx, 2, "V"), "");
  KILN_RETURN_IF_ERROR(CheckSameType(ctx, 4, 0, "past_key", "Q"), "");
  KILN_RETURN_IF_ERROR(CheckSameType(ctx, 5, 2, "past_value", "V"), "");
  if (ctx.has_input(6)) {
    if (ctx.opset() < 24) return ctx.Fail("input 6 (nonpad_kv_seqlen) needs opset 24");
    if (ctx.input_dtype(6) != DataType::kInt64) {
      return ctx.Fail("nonpad_kv_seqlen is ", Name(ctx.input_dtype(6)), "; int64 is required");
    }
  }
  KILN_RETURN_IF_ERROR(CheckAttentionAttrs(ctx), "");

  DataType qt = ctx.input_dtype(0), vt = ctx.input_dtype(2);
  std::optional<size_t> rank;
  for (size_t i = 0; i < 3 && !rank; ++i) {
    if (ctx.input_shape(i).rank_known()) rank = ctx.input_shape(i).rank();
  }
  if (!rank) {
    ctx.set_output(0, qt, Shape());
    ctx.set_output(1, qt, Shape());
    ctx.set_output(2, vt, Shape());
    ctx.set_output(3, qt, Shape());
    return Status::Ok();
  }
  KILN_ASSIGN_OR_RETURN(AttentionDims d, ReadAttentionDims(ctx, *rank));
  KILN_RETURN_IF_ERROR(ReadPast(ctx, d), "");
  Dim total = AddDims(d.kv_seq, d.past);
  KILN_RETURN_IF_ERROR(CheckMask(ctx, d, total), "");
  if (ctx.has_input(6)) {
    const Shape& s = ctx.input_shape(6);
    if (s.rank_known() &&
        (s.rank() != 1 || (s[0].known() && d.batch.known() && s[0].value != d.batch.value))) {
      return ctx.Fail("nonpad_kv_seqlen has shape ", s.ToString(), "; [batch_size] is required");
    }
  }
  if (*rank == 3) {
    Dim hidden = d.v_head.known() && d.q_heads.known()
                     ? Dim::Known(d.v_head.value * d.q_heads.value)
                     : Dim::Unknown();
    ctx.set_output(0, qt, Shape({d.batch, d.q_seq, hidden}));
  } else {
    ctx.set_output(0, qt, Shape({d.batch, d.q_heads, d.q_seq, d.v_head}));
  }
  ctx.set_output(1, qt, Shape({d.batch, d.kv_heads, total, d.head}));
  ctx.set_output(2, vt, Shape({d.batch, d.kv_heads, total, d.v_head}));
  ctx.set_output(3, qt, Shape({d.batch, d.q_heads, d.q_seq, total}));
  return Status::Ok();
}

// PackedQkvAttention (com.kiln; qkv_packing, from an Attention whose Q, K and V are three
// projections of one input): QKV [B, S, (Hq + 2 Hkv) * D] holds Q, K and V side by side on its
// last axis, as one product writes them; Y [B, S, Hq * D] is Attention's of the three slices
// (3-D, q_num_heads / kv_num_heads heads), with attn_mask (input 1, opset 23's: it broadcasts to
// [B, Hq, S, S]), scale and is_causal.
Status PackedQkvAttention(InferenceContext& ctx) {
  KILN_RETURN_IF_ERROR(CheckFloat(ctx, 0, "QKV"), "");
  KILN_RETURN_IF_ERROR(FlagAttr(ctx, "is_causal").status(), "");
  const InferenceContext& n = ctx;
  if (n.has_attr("scale") && !(n.attr_float("scale") >= 0.f)) {
    return ctx.Fail("attribute 'scale' = ", n.attr_float("scale"), " must be >= 0");
  }
  KILN_ASSIGN_OR_RETURN(int64_t q_heads, HeadsAttr(ctx, "q_num_heads"));
  KILN_ASSIGN_OR_RETURN(int64_t kv_heads, HeadsAttr(ctx, "kv_num_heads"));
  if (q_heads == 0 || kv_heads == 0) {
    return ctx.Fail("the attributes 'q_num_heads' and 'kv_num_heads' are required");
  }
  if (q_heads % kv_heads != 0) {
    return ctx.Fail("'q_num_heads' = ", q_heads,
                    " is not a multiple of 'kv_num_heads' = ", kv_heads);
  }
  const DataType t = ctx.input_dtype(0);
  const Shape& s = ctx.input_shape(0);
  if (!s.rank_known()) {
    ctx.set_output(0, t, Shape());
    return Status::Ok();
  }
  if (s.rank() != 3) return ctx.Fail("QKV has shape ", s.ToString(), "; rank 3 is required");
  AttentionDims d;
  d.batch = s[0];
  d.q_heads = Dim::Known(q_heads);
  d.kv_heads = Dim::Known(kv_heads);
  d.q_seq = d.kv_seq = s[1];
  d.past = Dim::Known(0);
  KILN_ASSIGN_OR_RETURN(
      d.head, HeadSize(ctx, s[2], q_heads + 2 * kv_heads, "QKV", "q_num_heads + 2 * kv_num_heads"));
  d.v_head = d.head;
  KILN_RETURN_IF_ERROR(CheckMask(ctx, d, d.kv_seq, 1), "");
  ctx.set_output(
      0, t,
      Shape({d.batch, d.q_seq, d.head.known() ? Dim::Known(d.head.value * q_heads) : d.head}));
  return Status::Ok();
}

// RotaryEmbedding (opset 23): X [B, H, S, Dh] or [B, S, H * Dh] (num_heads given);
// cos/sin [max_pos, rot / 2] with position_ids [B, S], else [B, S, rot / 2]; Y like X.
Status RotaryEmbedding(InferenceContext& ctx) {
  DataType t = ctx.input_dtype(0);
  if (t != DataType::kFloat32 && t != DataType::kFloat16 && t != DataType::kBFloat16) {
    return ctx.Fail("X is ", Name(t), "; float32, float16 or bfloat16 is required");
  }
  KILN_RETURN_IF_ERROR(CheckSameType(ctx, 1, 0, "cos_cache", "X"), "");
  KILN_RETURN_IF_ERROR(CheckSameType(ctx, 2, 0, "sin_cache", "X"), "");
  const bool has_pos = ctx.has_input(3);
  if (has_pos && ctx.input_dtype(3) != DataType::kInt64) {
    return ctx.Fail("position_ids is ", Name(ctx.input_dtype(3)), "; int64 is required");
  }
  KILN_RETURN_IF_ERROR(FlagAttr(ctx, "interleaved").status(), "");
  const InferenceContext& n = ctx;
  int64_t rot = n.attr_int("rotary_embedding_dim");
  if (rot < 0) return ctx.Fail("attribute 'rotary_embedding_dim' must be >= 0, got ", rot);
  KILN_ASSIGN_OR_RETURN(int64_t num_heads, HeadsAttr(ctx, "num_heads"));
  ctx.set_output(0, ctx.input_type(0));

  const Shape& x = ctx.input_shape(0);
  if (!x.rank_known()) return Status::Ok();
  if (x.rank() != 3 && x.rank() != 4) {
    return ctx.Fail("X has shape ", x.ToString(), "; rank 3 or 4 is required");
  }
  Dim batch = x[0], seq = x.rank() == 4 ? x[2] : x[1], head = x[x.rank() - 1];
  if (x.rank() == 3) {
    if (num_heads == 0) return ctx.Fail("3-D X needs the attribute 'num_heads'");
    KILN_ASSIGN_OR_RETURN(head, HeadSize(ctx, x[2], num_heads, "X", "num_heads"));
  }
  if (head.known()) {
    if (rot == 0) rot = head.value;
    if (rot > head.value) {
      return ctx.Fail("attribute 'rotary_embedding_dim' = ", rot, " exceeds the head size ",
                      head.value);
    }
  }
  if (rot % 2 != 0) {
    return ctx.Fail("the rotary embedding dim ", rot, " must be even");
  }
  Dim half = rot > 0 ? Dim::Known(rot / 2) : Dim::Unknown();
  for (size_t i = 1; i <= 2; ++i) {
    const char* name = i == 1 ? "cos_cache" : "sin_cache";
    std::vector<Dim> want =
        has_pos ? std::vector<Dim>{Dim::Unknown(), half} : std::vector<Dim>{batch, seq, half};
    const Shape& s = ctx.input_shape(i);
    if (!s.rank_known()) continue;
    bool ok = s.rank() == want.size();
    for (size_t k = 0; ok && k < want.size(); ++k) {
      ok = !(s[k].known() && want[k].known() && s[k].value != want[k].value);
    }
    if (!ok) {
      return ctx.Fail(name, " has shape ", s.ToString(), "; ", Shape(want).ToString(),
                      " is required", has_pos ? " with position_ids" : " without position_ids");
    }
  }
  if (has_pos) {
    const Shape& s = ctx.input_shape(3);
    std::vector<Dim> want = {batch, seq};
    bool ok = !s.rank_known() || s.rank() == 2;
    for (size_t k = 0; ok && s.rank_known() && k < 2; ++k) {
      ok = !(s[k].known() && want[k].known() && s[k].value != want[k].value);
    }
    if (!ok) {
      return ctx.Fail("position_ids has shape ", s.ToString(), "; ", Shape(want).ToString(),
                      " is required");
    }
  }
  return Status::Ok();
}

}  // namespace

void RegisterAttentionOps(OpRegistry& r) {
  constexpr const char* kFamily = "attention";
  // The head counts (needed only for 3-D inputs), the scale (1 / sqrt(head size)) and the
  // softmax precision (the input's type) default to what the inputs give: declared without a
  // default.
  r.Register(MakeSchema("Attention", 23, 3, 7, 1, 4, kFamily, Attention)
                 .Attrs({Attr("is_causal", 0), OptionalAttr("kv_num_heads", AttrKind::kInt),
                         OptionalAttr("q_num_heads", AttrKind::kInt),
                         Attr("qk_matmul_output_mode", 0), OptionalAttr("scale", AttrKind::kFloat),
                         Attr("softcap", 0.0), OptionalAttr("softmax_precision", AttrKind::kInt)}));
  r.Register(
      MakeSchema("PackedQkvAttention", 1, 1, 2, 1, 1, kFamily, PackedQkvAttention, "com.kiln")
          .Attrs({Attr("is_causal", 0), OptionalAttr("kv_num_heads", AttrKind::kInt),
                  OptionalAttr("q_num_heads", AttrKind::kInt),
                  OptionalAttr("scale", AttrKind::kFloat)}));
  r.Register(MakeSchema("RotaryEmbedding", 23, 3, 4, 1, 1, kFamily, RotaryEmbedding)
                 .Attrs({Attr("interleaved", 0), OptionalAttr("num_heads", AttrKind::kInt),
                         Attr("rotary_embedding_dim", 0)}));
}

}  // namespace kiln::ir
