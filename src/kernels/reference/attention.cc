// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Reference kernels of the attention family: Attention, PackedQkvAttention and RotaryEmbedding.
// Attention reads its inputs as doubles, computes in double and rounds once when it stores each
// output (the softmax is rounded to softmax_precision when that attribute asks for a narrower
// type); PackedQkvAttention is Attention on its three slices. RotaryEmbedding computes in float
// (double for float64) per element.
#include <algorithm>
#include <cmath>
#include <cstring>
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

// ---------------------------------------------------------------------------------------------
// Attention.

// The geometry of one Attention run, from the actual input dims (the definition checked that
// they agree).
struct AttnShape {
  bool three_d = false;
  int64_t batch = 0, q_heads = 0, kv_heads = 0, q_seq = 0, kv_seq = 0, past = 0, total = 0;
  int64_t head = 0, v_head = 0;
  Dims mask;  // attn_mask dims padded to rank 4 with leading 1s; empty without a mask
};

AttnShape AttentionShape(const NodeDef& def, KernelContext& ctx) {
  const TensorView& q = *ctx.input(0);
  const TensorView& k = *ctx.input(1);
  const TensorView& v = *ctx.input(2);
  AttnShape s;
  s.three_d = q.rank() == 3;
  s.batch = q.dims[0];
  if (s.three_d) {  // [B, S, heads * size]
    s.q_heads = def.attr_int("q_num_heads");
    s.kv_heads = def.attr_int("kv_num_heads");
    s.q_seq = q.dims[1];
    s.kv_seq = k.dims[1];
    s.head = q.dims[2] / s.q_heads;
    s.v_head = v.dims[2] / s.kv_heads;
  } else {  // [B, heads, S, size]
    s.q_heads = q.dims[1];
    s.kv_heads = k.dims[1];
    s.q_seq = q.dims[2];
    s.kv_seq = k.dims[2];
    s.head = q.dims[3];
    s.v_head = v.dims[3];
  }
  if (const TensorView* pk = ctx.input(4)) s.past = pk->dims[2];
  s.total = s.past + s.kv_seq;
  if (const TensorView* m = ctx.input(3)) {
    s.mask.assign(4 - m->rank(), 1);
    s.mask.insert(s.mask.end(), m->dims.begin(), m->dims.end());
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
  const bool causal = def.attr_int("is_causal") == 1;
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
  for (size_t i = 0; i < 3; ++i) KILN_RETURN_IF_ERROR(RequiredInput(def, ctx, i).status(), "");
  KILN_ASSIGN_OR_RETURN(TensorView * y_out, BoundOutput(def, ctx, 0));
  const AttnShape s = AttentionShape(def, ctx);
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
  const double scale =
      def.has_attr("scale") ? def.attr_float("scale") : 1.0 / std::sqrt(static_cast<double>(D));
  const double softcap = def.attr_float("softcap");
  const int64_t mode = def.attr_int("qk_matmul_output_mode");
  const DataType precision =
      def.has_attr("softmax_precision")
          ? ir::FromOnnx(static_cast<int32_t>(def.attr_int("softmax_precision")))
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
  // Y, then the optional outputs the graph uses: present_key [B, Hkv, T, D], present_value
  // [B, Hkv, T, Dv] and the QK matrix [B, Hq, Sq, T].
  KILN_RETURN_IF_ERROR(WriteDoubles(def, *y_out, y), "");
  const Doubles* optional[] = {&pk, &pv, &qk};
  for (size_t i = 1; i < 4 && i < ctx.num_outputs(); ++i) {
    if (TensorView* out = ctx.output(i)) {
      KILN_RETURN_IF_ERROR(WriteDoubles(def, *out, *optional[i - 1]), "");
    }
  }
  return Status::Ok();
}

// ---------------------------------------------------------------------------------------------
// PackedQkvAttention (com.kiln): Attention of the three slices of QKV's last axis, each copied
// out and run by RunAttention as a 3-D Q, K and V (ir/ops/attention.cc checked the node).

// Presents the slices as inputs 0-2 and QKV's attn_mask (input 1) as Attention's input 3.
class SlicedQkvContext final : public ForwardingContext {
 public:
  SlicedQkvContext(KernelContext& base, const TensorView (&qkv)[3])
      : ForwardingContext(base), qkv_(qkv) {}
  size_t num_inputs() const override { return 4; }
  const TensorView* input(size_t i) const override {
    return i < 3 ? &qkv_[i] : i == 3 ? base_.input(1) : nullptr;
  }

 private:
  const TensorView (&qkv_)[3];
};

Status RunPackedQkvAttention(const NodeDef& def, KernelContext& ctx) {
  KILN_ASSIGN_OR_RETURN(const TensorView* qkv, RequiredInput(def, ctx, 0));
  const int64_t q_heads = def.attr_int("q_num_heads"), kv_heads = def.attr_int("kv_num_heads");
  const int64_t width = qkv->dims[2], head = width / (q_heads + 2 * kv_heads);
  const int64_t widths[3] = {q_heads * head, kv_heads * head, kv_heads * head};
  const int64_t rows = qkv->dims[0] * qkv->dims[1];
  const size_t element = static_cast<size_t>(ir::StorageBytes(qkv->dtype, 1));
  const auto* src = static_cast<const uint8_t*>(qkv->data);
  HostTensor slices[3];
  TensorView views[3];
  for (int64_t i = 0, offset = 0; i < 3; offset += widths[i], ++i) {
    slices[i] = HostTensor(qkv->dtype, {qkv->dims[0], qkv->dims[1], widths[i]});
    const size_t bytes = static_cast<size_t>(widths[i]) * element;
    for (int64_t r = 0; r < rows; ++r) {
      std::memcpy(slices[i].bytes.data() + static_cast<size_t>(r) * bytes,
                  src + static_cast<size_t>(r * width + offset) * element, bytes);
    }
    views[i] = slices[i].view();
  }
  NodeDef attention = def;  // Attention's definition of the same attributes and output
  attention.op_type = "Attention";
  attention.domain = "";
  attention.opset = 23;
  attention.has_input = {true, true, true, def.input_given(1)};
  attention.input_types = {qkv->dtype, qkv->dtype, qkv->dtype,
                           def.input_given(1) ? def.input_types[1] : DataType::kUndefined};
  attention.input_dims = {views[0].dims, views[1].dims, views[2].dims,
                          def.input_given(1) ? def.input_dims[1] : Dims{}};
  attention.constants.clear();
  attention.input_rank_known.clear();
  SlicedQkvContext sliced(ctx, views);
  return RunAttention(attention, sliced);
}

// ---------------------------------------------------------------------------------------------
// RotaryEmbedding.

template <typename T>
Status RunRotaryTyped(const NodeDef& def, KernelContext& ctx, TensorView* out) {
  using C = ComputeT<T>;
  const TensorView* x = ctx.input(0);
  const TensorView* cos = ctx.input(1);
  const TensorView* sin = ctx.input(2);
  const TensorView* pos = ctx.input(3);
  // The definition checked the heads, the rotary dim and the caches' dims against X.
  const bool four_d = x->rank() == 4;
  const int64_t batch = x->dims[0];
  const int64_t seq = four_d ? x->dims[2] : x->dims[1];
  const int64_t heads = four_d ? x->dims[1] : def.attr_int("num_heads");
  const int64_t head = four_d ? x->dims[3] : x->dims[2] / heads;
  int64_t rot = def.attr_int("rotary_embedding_dim");
  if (rot == 0) rot = head;
  const int64_t half = rot / 2;
  std::vector<int64_t> positions;
  if (pos) {
    // Position ids are values: each must name a cached row.
    const int64_t max_pos = cos->dims[0];
    positions = ReadInts(*pos);
    for (int64_t& p : positions) {
      if (p < -max_pos || p >= max_pos) {
        return def.Fail(code::kInvalidParam, "position id ", p, " is out of range for ", max_pos,
                        " cached positions");
      }
      if (p < 0) p += max_pos;  // negative ids count from the end, as Gather's do
    }
  }
  const bool interleaved = def.attr_int("interleaved") == 1;
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
  KILN_ASSIGN_OR_RETURN(TensorView * out, BoundOutput(def, ctx, 0));
  Status st = Status::Ok();
  DispatchFloat(ctx.input(0)->dtype, [&](auto tag) {
    st = RunRotaryTyped<typename decltype(tag)::type>(def, ctx, out);
  });
  return st;
}

}  // namespace

// Their definitions (ir/ops/attention.cc) check the nodes (floating-point inputs, attribute
// values, every input's dims) and give the output dims; Prepare refuses string tensors.
void RegisterAttentionKernels(KernelRegistry& r) {
  RegisterStateless(r, "Attention", RunAttention);
  RegisterStateless(r, "RotaryEmbedding", RunRotaryEmbedding);
  r.Register(kReferenceBackend, "com.kiln", "PackedQkvAttention",
             [](const NodeDef& def) { return MakeFunctionKernel(def, RunPackedQkvAttention); });
}

}  // namespace kiln::kernels
