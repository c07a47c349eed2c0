// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Reference kernels of the attention family: Attention and RotaryEmbedding. Attention reads
// its inputs as doubles, computes in double and rounds once when it stores each output (the
// softmax is rounded to softmax_precision when that attribute asks for a narrower type).
// RotaryEmbedding computes in float (double for float64) per element.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "kernels/reference/common.h"
#include "kernels/reference/families.h"
#include "kernels/util.h"

namespace kiln::kernels {
namespace {

using Doubles = std::vector<double>;

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

// `x` rounded to `t` (a floating-point type) and widened back.
double RoundTo(DataType t, double x) {
  switch (t) {
    case DataType::kFloat32:
      return static_cast<float>(x);
    case DataType::kFloat16:
      return HalfToFloat(FloatToHalf(static_cast<float>(x)));
    case DataType::kBFloat16:
      return BFloat16ToFloat(FloatToBFloat16(static_cast<float>(x)));
    default:
      return x;
  }
}

Status CheckInputTypes(const NodeDef& def, std::initializer_list<size_t> inputs) {
  for (size_t i : inputs) {
    if (!def.input_given(i)) continue;
    DataType t = def.input_types[i];
    if (!ir::IsFloat(t)) {
      return def.Fail(code::kFeatureUnsupported, "input ", i, " is ", ir::Name(t),
                      "; a floating-point type is required");
    }
  }
  for (size_t i = 0; i < def.output_types.size(); ++i) {
    DataType t = def.output_types[i];
    if (t != DataType::kUndefined && !ir::IsFloat(t)) {
      return def.Fail(code::kFeatureUnsupported, "output ", i, " is ", ir::Name(t),
                      "; a floating-point type is required");
    }
  }
  return Status::Ok();
}

// ---------------------------------------------------------------------------------------------
// Attention.

// The geometry of one Attention run, from the actual input dims.
struct AttnShape {
  bool three_d = false;
  int64_t batch = 0, q_heads = 0, kv_heads = 0, q_seq = 0, kv_seq = 0, past = 0, total = 0;
  int64_t head = 0, v_head = 0;
  Dims mask;  // attn_mask dims padded to rank 4 with leading 1s; empty without a mask
};

std::string ShapesString(const TensorView& q, const TensorView& k, const TensorView& v) {
  return "Q " + DimsString(q.dims) + ", K " + DimsString(k.dims) + ", V " + DimsString(v.dims);
}

Result<AttnShape> AttentionShape(const NodeDef& def, KernelContext& ctx) {
  KILN_ASSIGN_OR_RETURN(const TensorView* q, RequiredInput(def, ctx, 0));
  KILN_ASSIGN_OR_RETURN(const TensorView* k, RequiredInput(def, ctx, 1));
  KILN_ASSIGN_OR_RETURN(const TensorView* v, RequiredInput(def, ctx, 2));
  auto bad = [&](const std::string& why) {
    return def.Fail(code::kInvalidParam, why, " (", ShapesString(*q, *k, *v), ")");
  };
  const size_t rank = q->rank();
  if ((rank != 3 && rank != 4) || k->rank() != rank || v->rank() != rank) {
    return bad("Q, K and V must all have rank 3 or all rank 4");
  }
  AttnShape s;
  s.three_d = rank == 3;
  s.batch = q->dims[0];
  if (s.three_d) {
    s.q_heads = def.attr_int("q_num_heads", 0);
    s.kv_heads = def.attr_int("kv_num_heads", 0);
    if (s.q_heads < 1 || s.kv_heads < 1) {
      return bad("3-D inputs need 'q_num_heads' and 'kv_num_heads' >= 1");
    }
    if (q->dims[2] % s.q_heads != 0 || k->dims[2] % s.kv_heads != 0 ||
        v->dims[2] % s.kv_heads != 0) {
      return bad("the hidden sizes are not multiples of the head counts " +
                 std::to_string(s.q_heads) + " and " + std::to_string(s.kv_heads));
    }
    s.q_seq = q->dims[1];
    s.kv_seq = k->dims[1];
    s.head = q->dims[2] / s.q_heads;
    if (k->dims[2] / s.kv_heads != s.head) return bad("Q and K have different head sizes");
    s.v_head = v->dims[2] / s.kv_heads;
    if (v->dims[1] != s.kv_seq) return bad("K and V have different sequence lengths");
  } else {
    s.q_heads = q->dims[1];
    s.kv_heads = k->dims[1];
    s.q_seq = q->dims[2];
    s.kv_seq = k->dims[2];
    s.head = q->dims[3];
    s.v_head = v->dims[3];
    if (k->dims[3] != s.head) return bad("Q and K have different head sizes");
    if (v->dims[1] != s.kv_heads || v->dims[2] != s.kv_seq) {
      return bad("K and V have different head counts or sequence lengths");
    }
  }
  if (k->dims[0] != s.batch || v->dims[0] != s.batch) return bad("the batch sizes differ");
  if (s.kv_heads == 0 ? s.q_heads != 0 : s.q_heads % s.kv_heads != 0) {
    return bad("Q's head count is not a multiple of K and V's");
  }

  const TensorView* pk = ctx.input(4);
  const TensorView* pv = ctx.input(5);
  if ((pk == nullptr) != (pv == nullptr)) {
    return def.Fail(code::kInvalidParam, "past_key and past_value must be given together");
  }
  if (pk) {
    Dims want_k = {s.batch, s.kv_heads, pk->rank() == 4 ? pk->dims[2] : -1, s.head};
    Dims want_v = {s.batch, s.kv_heads, want_k[2], s.v_head};
    if (pk->dims != want_k || pv->dims != want_v) {
      return def.Fail(code::kInvalidParam, "past_key ", DimsString(pk->dims), " and past_value ",
                      DimsString(pv->dims), " must be [batch, kv_heads, past, head size] for ",
                      ShapesString(*q, *k, *v));
    }
    s.past = pk->dims[2];
  }
  s.total = s.past + s.kv_seq;

  if (const TensorView* m = ctx.input(3)) {
    if (m->rank() > 4) return bad("attn_mask " + DimsString(m->dims) + " has rank > 4");
    s.mask.assign(4 - m->rank(), 1);
    s.mask.insert(s.mask.end(), m->dims.begin(), m->dims.end());
    const int64_t target[4] = {s.batch, s.q_heads, s.q_seq, s.total};
    for (size_t i = 0; i < 4; ++i) {
      int64_t d = s.mask[i];
      bool ok = d == target[i] || (d == 1 && (i < 3 || def.opset < 24));
      // From opset 24 a short last dim is padded with -inf up to the total length.
      if (i == 3 && def.opset >= 24) ok = d <= target[i];
      if (!ok) {
        return bad("attn_mask " + DimsString(m->dims) + " does not broadcast to " +
                   DimsString({s.batch, s.q_heads, s.q_seq, s.total}));
      }
    }
  }
  if (const TensorView* n = ctx.input(6)) {
    if (n->dims != Dims{s.batch}) {
      return bad("nonpad_kv_seqlen " + DimsString(n->dims) + " must be [batch]");
    }
  }
  return s;
}

// The additive bias [B, Hq, Sq, T] from attn_mask, is_causal and nonpad_kv_seqlen.
Doubles AttentionBias(const NodeDef& def, KernelContext& ctx, const AttnShape& s) {
  const int64_t n = s.batch * s.q_heads * s.q_seq * s.total;
  Doubles bias(static_cast<size_t>(n), 0.0);
  const TensorView* mask = ctx.input(3);
  Doubles mv;
  Dims ms;
  if (mask) {
    mv = ReadDoubles(*mask);
    ms = Strides(s.mask);
  }
  const bool bool_mask = mask && mask->dtype == DataType::kBool;
  const bool causal = def.attr_int("is_causal", 0) == 1;
  std::vector<int64_t> nonpad;
  if (const TensorView* np = ctx.input(6)) nonpad = ReadInts(*np);
  int64_t idx = 0;
  for (int64_t b = 0; b < s.batch; ++b) {
    for (int64_t h = 0; h < s.q_heads; ++h) {
      for (int64_t i = 0; i < s.q_seq; ++i) {
        for (int64_t j = 0; j < s.total; ++j, ++idx) {
          double x = 0.0;
          if (mask && def.opset >= 24 && j >= s.mask[3]) {
            x = kNegInf;  // the padding of a short mask (opset 24)
          } else if (mask) {
            int64_t at = (s.mask[0] == 1 ? 0 : b) * ms[0] + (s.mask[1] == 1 ? 0 : h) * ms[1] +
                         (s.mask[2] == 1 ? 0 : i) * ms[2] + (s.mask[3] == 1 ? 0 : j) * ms[3];
            double m = mv[static_cast<size_t>(at)];
            x = bool_mask ? (m != 0.0 ? 0.0 : kNegInf) : m;
          }
          if (causal && j > i + s.past) x += kNegInf;
          if (!nonpad.empty() && j >= nonpad[static_cast<size_t>(b)]) x += kNegInf;
          bias[static_cast<size_t>(idx)] = x;
        }
      }
    }
  }
  return bias;
}

Status RunAttention(const NodeDef& def, KernelContext& ctx) {
  KILN_ASSIGN_OR_RETURN(AttnShape s, AttentionShape(def, ctx));
  const Doubles q = ReadDoubles(*ctx.input(0));
  const Doubles k = ReadDoubles(*ctx.input(1));
  const Doubles v = ReadDoubles(*ctx.input(2));
  const size_t B = static_cast<size_t>(s.batch), Hq = static_cast<size_t>(s.q_heads),
               Hkv = static_cast<size_t>(s.kv_heads), Sq = static_cast<size_t>(s.q_seq),
               Skv = static_cast<size_t>(s.kv_seq), P = static_cast<size_t>(s.past),
               T = static_cast<size_t>(s.total), D = static_cast<size_t>(s.head),
               Dv = static_cast<size_t>(s.v_head);

  // present_key [B, Hkv, T, D] and present_value [B, Hkv, T, Dv]: the past, then K / V.
  Doubles pk(B * Hkv * T * D), pv(B * Hkv * T * Dv);
  Doubles past_k, past_v;
  if (P > 0) {
    past_k = ReadDoubles(*ctx.input(4));
    past_v = ReadDoubles(*ctx.input(5));
  }
  for (size_t b = 0; b < B; ++b) {
    for (size_t h = 0; h < Hkv; ++h) {
      for (size_t t = 0; t < P; ++t) {
        for (size_t d = 0; d < D; ++d) {
          pk[((b * Hkv + h) * T + t) * D + d] = past_k[((b * Hkv + h) * P + t) * D + d];
        }
        for (size_t d = 0; d < Dv; ++d) {
          pv[((b * Hkv + h) * T + t) * Dv + d] = past_v[((b * Hkv + h) * P + t) * Dv + d];
        }
      }
      for (size_t t = 0; t < Skv; ++t) {
        for (size_t d = 0; d < D; ++d) {
          pk[((b * Hkv + h) * T + P + t) * D + d] = s.three_d
                                                        ? k[(b * Skv + t) * Hkv * D + h * D + d]
                                                        : k[((b * Hkv + h) * Skv + t) * D + d];
        }
        for (size_t d = 0; d < Dv; ++d) {
          pv[((b * Hkv + h) * T + P + t) * Dv + d] = s.three_d
                                                         ? v[(b * Skv + t) * Hkv * Dv + h * Dv + d]
                                                         : v[((b * Hkv + h) * Skv + t) * Dv + d];
        }
      }
    }
  }

  const Doubles bias = AttentionBias(def, ctx, s);
  const double scale = def.has_attr("scale") ? def.attr_float("scale", 1.f)
                                             : 1.0 / std::sqrt(static_cast<double>(D));
  const double softcap = def.attr_float("softcap", 0.f);
  const int64_t mode = def.attr_int("qk_matmul_output_mode", 0);
  const DataType precision =
      def.has_attr("softmax_precision")
          ? ir::FromOnnx(static_cast<int32_t>(def.attr_int("softmax_precision", 1)))
          : def.input_types[0];
  const size_t group = Hkv == 0 ? 1 : Hq / Hkv;

  Doubles y(B * Hq * Sq * Dv), qk(B * Hq * Sq * T);
  Doubles row(T);
  for (size_t b = 0; b < B; ++b) {
    for (size_t h = 0; h < Hq; ++h) {
      const size_t kvh = h / group;
      for (size_t i = 0; i < Sq; ++i) {
        const size_t r = (b * Hq + h) * Sq + i;
        for (size_t j = 0; j < T; ++j) {
          double dot = 0.0;
          for (size_t d = 0; d < D; ++d) {
            double qv = s.three_d ? q[(b * Sq + i) * Hq * D + h * D + d]
                                  : q[((b * Hq + h) * Sq + i) * D + d];
            dot += qv * pk[((b * Hkv + kvh) * T + j) * D + d];
          }
          const double raw = dot * scale;
          const double capped = softcap != 0.0 ? softcap * std::tanh(raw / softcap) : raw;
          const double biased = capped + bias[r * T + j];
          row[j] = RoundTo(precision, biased);
          if (mode == 0) qk[r * T + j] = raw;
          if (mode == 1) qk[r * T + j] = capped;
          if (mode == 2) qk[r * T + j] = biased;
        }
        // Softmax over the row; a fully masked row gives NaN, as ONNX's softmax does.
        double mx = kNegInf;
        for (size_t j = 0; j < T; ++j) mx = std::max(mx, row[j]);
        double sum = 0.0;
        for (size_t j = 0; j < T; ++j) {
          row[j] = std::exp(row[j] - mx);
          sum += row[j];
        }
        for (size_t j = 0; j < T; ++j) {
          row[j] = RoundTo(precision, row[j] / sum);
          if (mode == 3) qk[r * T + j] = row[j];
        }
        for (size_t d = 0; d < Dv; ++d) {
          double acc = 0.0;
          for (size_t j = 0; j < T; ++j) acc += row[j] * pv[((b * Hkv + kvh) * T + j) * Dv + d];
          if (s.three_d) {
            y[(b * Sq + i) * Hq * Dv + h * Dv + d] = acc;
          } else {
            y[r * Dv + d] = acc;
          }
        }
      }
    }
  }
  const Dims y_dims = s.three_d ? Dims{s.batch, s.q_seq, s.q_heads * s.v_head}
                                : Dims{s.batch, s.q_heads, s.q_seq, s.v_head};
  KILN_RETURN_IF_ERROR(EmitOutput(def, ctx, 0, y_dims, y), "");
  KILN_RETURN_IF_ERROR(EmitOutput(def, ctx, 1, {s.batch, s.kv_heads, s.total, s.head}, pk), "");
  KILN_RETURN_IF_ERROR(EmitOutput(def, ctx, 2, {s.batch, s.kv_heads, s.total, s.v_head}, pv), "");
  return EmitOutput(def, ctx, 3, {s.batch, s.q_heads, s.q_seq, s.total}, qk);
}

Result<std::unique_ptr<Kernel>> PrepareAttention(const NodeDef& def) {
  KILN_RETURN_IF_ERROR(CheckInputTypes(def, {0, 1, 2, 4, 5}), "");
  if (def.input_given(3)) {
    DataType t = def.input_types[3];
    if (t == DataType::kString || t == DataType::kUndefined) {
      return def.Fail(code::kFeatureUnsupported, "attn_mask of type ", ir::Name(t),
                      " is not supported");
    }
  }
  if (def.input_given(6) && def.input_types[6] != DataType::kInt64) {
    return def.Fail(code::kInvalidParam, "nonpad_kv_seqlen must be int64");
  }
  int64_t causal = def.attr_int("is_causal", 0);
  if (causal != 0 && causal != 1) {
    return def.Fail(code::kInvalidParam, "attribute 'is_causal' must be 0 or 1, got ", causal);
  }
  int64_t mode = def.attr_int("qk_matmul_output_mode", 0);
  if (mode < 0 || mode > 3) {
    return def.Fail(code::kInvalidParam, "attribute 'qk_matmul_output_mode' must be 0..3, got ",
                    mode);
  }
  if (def.has_attr("softmax_precision")) {
    int64_t p = def.attr_int("softmax_precision", 0);
    if (!ir::IsFloat(ir::FromOnnx(static_cast<int32_t>(p)))) {
      return def.Fail(code::kFeatureUnsupported, "attribute 'softmax_precision' = ", p,
                      " is not a supported floating-point type");
    }
  }
  if (def.has_attr("scale") && !(def.attr_float("scale", 0.f) >= 0.f)) {
    return def.Fail(code::kInvalidParam, "attribute 'scale' must be >= 0");
  }
  if (!(def.attr_float("softcap", 0.f) >= 0.f)) {
    return def.Fail(code::kInvalidParam, "attribute 'softcap' must be >= 0");
  }
  return MakeFunctionKernel(def, RunAttention);
}

// ---------------------------------------------------------------------------------------------
// RotaryEmbedding.

template <typename T>
Status RunRotaryTyped(const NodeDef& def, KernelContext& ctx) {
  using C = ComputeT<T>;
  const TensorView* x = ctx.input(0);
  const TensorView* cos = ctx.input(1);
  const TensorView* sin = ctx.input(2);
  const TensorView* pos = ctx.input(3);
  const bool four_d = x->rank() == 4;
  const int64_t batch = x->dims[0];
  const int64_t seq = four_d ? x->dims[2] : x->dims[1];
  int64_t heads = four_d ? x->dims[1] : def.attr_int("num_heads", 0);
  if (heads < 1 || (!four_d && x->dims[2] % heads != 0)) {
    return def.Fail(code::kInvalidParam, "X ", DimsString(x->dims),
                    " is not divisible into 'num_heads' = ", heads, " heads");
  }
  const int64_t head = four_d ? x->dims[3] : x->dims[2] / heads;
  int64_t rot = def.attr_int("rotary_embedding_dim", 0);
  if (rot == 0) rot = head;
  if (rot > head || rot % 2 != 0) {
    return def.Fail(code::kInvalidParam, "the rotary embedding dim ", rot,
                    " must be even and at most the head size ", head);
  }
  const int64_t half = rot / 2;
  std::vector<int64_t> positions;
  int64_t max_pos = 0;
  if (pos) {
    if (pos->dims != Dims{batch, seq}) {
      return def.Fail(code::kInvalidParam, "position_ids ", DimsString(pos->dims), " must be ",
                      DimsString({batch, seq}), " for X ", DimsString(x->dims));
    }
    if (cos->rank() != 2 || cos->dims[1] != half || sin->dims != cos->dims) {
      return def.Fail(code::kInvalidParam, "cos_cache ", DimsString(cos->dims), " and sin_cache ",
                      DimsString(sin->dims), " must be [max_position, ", half, "]");
    }
    max_pos = cos->dims[0];
    positions = ReadInts(*pos);
    for (int64_t& p : positions) {
      if (p < -max_pos || p >= max_pos) {
        return def.Fail(code::kInvalidParam, "position id ", p, " is out of range for ", max_pos,
                        " cached positions");
      }
      if (p < 0) p += max_pos;  // negative ids count from the end, as Gather's do
    }
  } else if (cos->dims != Dims{batch, seq, half} || sin->dims != cos->dims) {
    return def.Fail(code::kInvalidParam, "cos_cache ", DimsString(cos->dims), " and sin_cache ",
                    DimsString(sin->dims), " must be ", DimsString({batch, seq, half}),
                    " without position_ids");
  }
  const bool interleaved = def.attr_int("interleaved", 0) == 1;
  KILN_ASSIGN_OR_RETURN(TensorView * out, ctx.Output(0, x->dims));
  const T* px = x->as<const T>();
  const T* pc = cos->as<const T>();
  const T* ps = sin->as<const T>();
  T* py = out->as<T>();
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t s = 0; s < seq; ++s) {
      // Row of the caches for token (b, s).
      const int64_t row = pos ? positions[static_cast<size_t>(b * seq + s)] : b * seq + s;
      for (int64_t h = 0; h < heads; ++h) {
        const int64_t base =
            four_d ? ((b * heads + h) * seq + s) * head : (b * seq + s) * heads * head + h * head;
        for (int64_t k = 0; k < half; ++k) {
          const C c = Load(pc, row * half + k), sn = Load(ps, row * half + k);
          const int64_t i1 = interleaved ? base + 2 * k : base + k;
          const int64_t i2 = interleaved ? base + 2 * k + 1 : base + k + half;
          const C x1 = Load(px, i1), x2 = Load(px, i2);
          Store(py, i1, static_cast<C>(c * x1 - sn * x2));
          Store(py, i2, static_cast<C>(sn * x1 + c * x2));
        }
        for (int64_t d = rot; d < head; ++d) Store(py, base + d, Load(px, base + d));
      }
    }
  }
  return Status::Ok();
}

Status RunRotaryEmbedding(const NodeDef& def, KernelContext& ctx) {
  for (size_t i = 0; i < 3; ++i) KILN_RETURN_IF_ERROR(RequiredInput(def, ctx, i).status(), "");
  const TensorView* x = ctx.input(0);
  if (x->rank() != 3 && x->rank() != 4) {
    return def.Fail(code::kInvalidParam, "X ", DimsString(x->dims), " must have rank 3 or 4");
  }
  if (ctx.input(1)->dtype != x->dtype || ctx.input(2)->dtype != x->dtype) {
    return def.Fail(code::kInvalidParam, "cos_cache and sin_cache must have X's type");
  }
  Status st = Status::Ok();
  bool ok = DispatchFloat(
      x->dtype, [&](auto tag) { st = RunRotaryTyped<typename decltype(tag)::type>(def, ctx); });
  if (!ok) {
    return def.Fail(code::kFeatureUnsupported, "X of type ", ir::Name(x->dtype),
                    " is not supported");
  }
  return st;
}

Result<std::unique_ptr<Kernel>> PrepareRotaryEmbedding(const NodeDef& def) {
  KILN_RETURN_IF_ERROR(CheckInputTypes(def, {0, 1, 2}), "");
  if (def.input_given(3) && def.input_types[3] != DataType::kInt64) {
    return def.Fail(code::kInvalidParam, "position_ids must be int64");
  }
  int64_t interleaved = def.attr_int("interleaved", 0);
  if (interleaved != 0 && interleaved != 1) {
    return def.Fail(code::kInvalidParam, "attribute 'interleaved' must be 0 or 1, got ",
                    interleaved);
  }
  if (def.attr_int("rotary_embedding_dim", 0) < 0) {
    return def.Fail(code::kInvalidParam, "attribute 'rotary_embedding_dim' must be >= 0");
  }
  return MakeFunctionKernel(def, RunRotaryEmbedding);
}

}  // namespace

void RegisterAttentionKernels(KernelRegistry& r) {
  r.Register(kReferenceBackend, "", "Attention", PrepareAttention);
  r.Register(kReferenceBackend, "", "RotaryEmbedding", PrepareRotaryEmbedding);
}

}  // namespace kiln::kernels
