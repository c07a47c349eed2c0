// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Attention and PackedQkvAttention in a model compiled for bf16 (def.matrix_precision, on a CPU
// with bf16 arithmetic): the two products per head run as oneDNN bf16 matmuls batched over a
// chunk of heads (its brgemm kernels: AMX tiles on Sapphire Rapids), with f32 accumulation,
// the softmax in f32.
//
// Per batch entry and chunk of heads: K and V are converted to bf16 into dense per-head buffers
// (a grouped-query K/V head copied to each query head it serves), and per block of query rows Q
// (times the scale, so the scores need no scaling step) likewise; scores = Q Kᵀ (K read as a
// transposed weight, nothing transposed) into f32; the mask and softmax row by row, each row
// rounded to bf16 into P; Y = P V straight into Y's heads (its strides) where oneDNN's brgemm
// takes them, else into a dense buffer copied out. The chunk of heads is as many as keep the
// block of scores within kScoresBytes (in L2), the query rows all of them unless one head's
// scores would not fit.
//
// Why not in place as the float32 kernel reads its heads: oneDNN 2.6's bf16 matmul takes its
// brgemm kernels on dense per-head operands only (Q or K read through the packed QKV row stride
// gets gemm:jit, 20x slower), and the conversion is needed anyway. Measured on the BERT encoder's
// attention (12 heads of 64, 128 tokens, 2 threads, Sapphire Rapids): the conversion 17 us (one
// pass; oneDNN's reorders took 40), Q Kᵀ 33 us, softmax 83 us, P V 32 us: ~0.2 ms against the
// float32 kernel's ~0.35 ms.
//
// What this kernel does not take (no brgemm bf16 matmul for the dims, a mask that does not
// broadcast, an empty tensor) runs on the float32 kernel it holds.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "backends/cpu/kernels/attention_internal.h"
#include "backends/cpu/kernels/dnnl_common.h"
#include "backends/cpu/kernels/simd.h"
#include "kernels/util.h"

namespace kiln::cpu::attention {
namespace {

using dt = dnnl::memory::data_type;

// A chunk's block of scores (f32) stays within this (L2 on the machines measured: 1 MiB per
// core on Zen 4, 2 MiB on Sapphire Rapids).
constexpr int64_t kScoresBytes = 1 << 20;

// `count` rows of n floats (src_stride floats apart), times `scale`, rounded to bf16 into rows
// dst_stride apart.
KILN_CPU_CLONES void ToBf16Rows(const float* KILN_RESTRICT src, int64_t src_stride,
                                uint16_t* KILN_RESTRICT dst, int64_t dst_stride, int64_t count,
                                int64_t n, float scale) {
  for (int64_t r = 0; r < count; ++r) {
    const float* from = src + r * src_stride;
    uint16_t* to = dst + r * dst_stride;
    for (int64_t j = 0; j < n; ++j) to[j] = kernels::FloatToBFloat16(from[j] * scale);
  }
}

// The two products for `rows` query rows of a chunk of heads, and their operands' layouts.
struct Products {
  int64_t rows = 0;
  dnnl::matmul scores, values;
  dnnl::softmax_v2_forward softmax;  // the scores' rows into P
  dnnl::memory::desc q_md, kt_md, s_md, p_md, v_md, y_md;
  bool y_direct = false;  // y_md is Y's own heads (else a dense buffer copied out)
};

struct Bf16Plan final : Plan {
  Sizes n;
  int64_t heads = 0;    // query heads per chunk
  Products full, tail;  // tail.rows == 0: the rows divide into full blocks
  dnnl::memory::desc scratch_md;
};

bool IsBrgemm(const dnnl::primitive_desc_base& pd) {
  return std::string(pd.impl_info_str()).rfind("brg", 0) == 0;
}

class Bf16AttentionKernel final : public DnnlKernel {
 public:
  Bf16AttentionKernel(const NodeDef& def, bool packed, std::unique_ptr<Kernel> fallback)
      : DnnlKernel(def, std::move(fallback)),
        packed_(packed),
        causal_(def.attr_int("is_causal") == 1),
        scale_attr_(def.has_attr("scale") ? def.attr_float("scale") : 0.0f),
        has_scale_(def.has_attr("scale")) {}

  using DnnlKernel::PrepareFirstPlan;

 private:
  size_t mask_index() const { return packed_ ? 1 : 3; }
  bool FloatInput(size_t i) const override { return i != mask_index(); }

  std::optional<Sizes> SizesOf(const std::vector<std::optional<Dims>>& d) const {
    if (packed_) return d[0] ? PackedSizes(def_, *d[0]) : std::nullopt;
    if (!d[0] || !d[1] || !d[2]) return std::nullopt;
    return SplitSizes(def_, *d[0], *d[1], *d[2]);
  }

  std::optional<Dims> Key(const std::vector<const Dims*>& in) const override {
    const size_t count = packed_ ? 1 : 3;
    Dims key;
    std::vector<std::optional<Dims>> dims;
    for (size_t i = 0; i < count; ++i) {
      const Dims* d = i < in.size() ? in[i] : nullptr;
      AppendKey(key, d);
      dims.push_back(d ? std::optional<Dims>(*d) : std::nullopt);
    }
    auto n = SizesOf(dims);
    if (!n || n->d == 0 || n->dv == 0 || n->sq == 0 || n->skv == 0) return std::nullopt;
    return key;
  }

  bool Takes(const KernelContext& ctx) const override {
    const size_t m = mask_index();
    if (ctx.num_inputs() <= m || ctx.input(m) == nullptr) return true;
    std::vector<std::optional<Dims>> dims;
    for (size_t i = 0; i < (packed_ ? 1u : 3u); ++i) {
      const TensorView* t = ctx.input(i);
      dims.push_back(t ? std::optional<Dims>(t->dims) : std::nullopt);
    }
    auto n = SizesOf(dims);
    return n && MaskFits(*n, ctx.input(m));
  }

  Result<std::shared_ptr<const Plan>> Build(const Dims& key) const override {
    auto n = SizesOf(SplitKey(key, packed_ ? 1 : 3));
    if (!n) return def_.Fail(code::kFeatureUnsupported, "Q, K and V do not fit");
    auto plan = std::make_shared<Bf16Plan>();
    plan->n = *n;
    // Query rows per block and heads per chunk (a divisor of Hq) within kScoresBytes.
    const int64_t row_bytes = n->skv * static_cast<int64_t>(sizeof(float));
    int64_t rows = n->sq;
    if (rows * row_bytes > kScoresBytes) {
      rows = std::min(n->sq, std::max<int64_t>(16, kScoresBytes / row_bytes / 16 * 16));
    }
    int64_t heads = 1;
    for (int64_t h = n->hq; h >= 1; --h) {
      if (n->hq % h == 0 && h * rows * row_bytes <= kScoresBytes) {
        heads = h;
        break;
      }
    }
    plan->heads = heads;
    KILN_RETURN_IF_ERROR(Guard(def_,
                               [&] {
                                 MakeProducts(*plan, rows, plan->full);
                                 if (n->sq % rows != 0) {
                                   MakeProducts(*plan, n->sq % rows, plan->tail);
                                 }
                               }),
                         "");
    if (!plan->full.scores || (n->sq % rows != 0 && !plan->tail.scores)) {
      return def_.Fail(code::kFeatureUnsupported, "onednn has no brgemm bf16 matmul for ", heads,
                       " heads of ", rows, " x ", n->skv, " scores");
    }
    return std::shared_ptr<const Plan>(std::move(plan));
  }

  // The products of a block of `rows` query rows; left empty (no scores primitive) when oneDNN
  // offers only slower kernels than brgemm for the scores.
  void MakeProducts(Bf16Plan& plan, int64_t rows, Products& p) const {
    using dnnl::memory;
    const Sizes& n = plan.n;
    const int64_t kc = plan.heads, d = n.d, dv = n.dv, skv = n.skv;
    p.rows = rows;
    p.q_md = memory::desc({1, kc, rows, d}, dt::bf16, {kc * rows * d, rows * d, d, 1});
    p.kt_md = memory::desc({1, kc, d, skv}, dt::bf16, {kc * skv * d, skv * d, 1, d});
    p.s_md = memory::desc({1, kc, rows, skv}, dt::f32, {kc * rows * skv, rows * skv, skv, 1});
    p.p_md = memory::desc({1, kc, rows, skv}, dt::bf16, {kc * rows * skv, rows * skv, skv, 1});
    p.v_md = memory::desc({1, kc, skv, dv}, dt::bf16, {kc * skv * dv, skv * dv, dv, 1});
    const dnnl::primitive_attr attr = UserScratchpadAttr();
    dnnl::matmul::primitive_desc spd(dnnl::matmul::desc(p.q_md, p.kt_md, p.s_md), attr, Engine());
    if (!IsBrgemm(spd)) {
      p = Products{};
      return;
    }
    // Y's heads as stored: [B, S, Hq * Dv] or [B, Hq, S, Dv].
    const int64_t head = n.three_d ? dv : n.sq * dv, row = n.three_d ? n.hq * dv : dv;
    p.y_md = memory::desc({1, kc, rows, dv}, dt::f32, {kc * rows * dv, head, row, 1});
    dnnl::matmul::primitive_desc vpd(dnnl::matmul::desc(p.p_md, p.v_md, p.y_md), attr, Engine());
    p.y_direct = IsBrgemm(vpd);
    if (!p.y_direct) {
      p.y_md = memory::desc({1, kc, rows, dv}, dt::f32, {kc * rows * dv, rows * dv, dv, 1});
      vpd =
          dnnl::matmul::primitive_desc(dnnl::matmul::desc(p.p_md, p.v_md, p.y_md), attr, Engine());
    }
    dnnl::softmax_v2_forward::primitive_desc smpd(
        dnnl::softmax_v2_forward::desc(dnnl::prop_kind::forward_inference,
                                       dnnl::algorithm::softmax_accurate, p.s_md, p.p_md, 3),
        attr, Engine());
    if (IsReferenceImpl(smpd)) {
      p = Products{};
      return;
    }
    p.scores = dnnl::matmul(spd);
    p.values = dnnl::matmul(vpd);
    p.softmax = dnnl::softmax_v2_forward(smpd);
    for (const dnnl::memory::desc& md :
         {spd.scratchpad_desc(), vpd.scratchpad_desc(), smpd.scratchpad_desc()}) {
      if (md.get_size() > plan.scratch_md.get_size()) plan.scratch_md = md;
    }
  }

  Status Execute(const Plan& base, KernelContext& ctx, DnnlRun& run) const override {
    const auto& plan = static_cast<const Bf16Plan&>(base);
    KILN_ASSIGN_OR_RETURN(TensorView * y, kernels::BoundOutput(def_, ctx, 0));
    Geometry g;
    MaskView mask;
    if (!ReadGeometry(def_, packed_, ctx, *y, g) || !ReadMask(g, mask)) {
      return def_.Fail(code::kInternalError, "the inputs do not fit the attention's plan");
    }
    const Sizes& n = plan.n;
    const int64_t kc = plan.heads, rows = plan.full.rows, d = n.d, dv = n.dv, skv = n.skv;
    const int64_t group = n.group();
    const float scale = has_scale_ ? scale_attr_ : 1.0f / std::sqrt(static_cast<float>(d));
    const size_t bf = sizeof(uint16_t), f = sizeof(float);
    const bool copy_out = !plan.full.y_direct || (plan.tail.rows != 0 && !plan.tail.y_direct);
    run.Buffers(
        {static_cast<size_t>(kc * skv * d) * bf, static_cast<size_t>(kc * skv * dv) * bf,
         static_cast<size_t>(kc * rows * d) * bf, static_cast<size_t>(kc * rows * skv) * f,
         static_cast<size_t>(kc * rows * skv) * bf,
         copy_out ? static_cast<size_t>(kc * rows * dv) * f : 0, plan.scratch_md.get_size()},
        6);
    auto* kb = static_cast<uint16_t*>(run.buffer(0));
    auto* vb = static_cast<uint16_t*>(run.buffer(1));
    auto* qb = static_cast<uint16_t*>(run.buffer(2));
    auto* scores = static_cast<float*>(run.buffer(3));
    auto* probs = static_cast<uint16_t*>(run.buffer(4));
    auto* y_dense = static_cast<float*>(run.buffer(5));
    void* scratch = run.buffer(6);
    const bool mask_scratch = mask.data != nullptr && (mask.boolean || mask.stride[3] == 0);
    for (int64_t b = 0; b < n.batch; ++b) {
      for (int64_t h0 = 0; h0 < n.hq; h0 += kc) {
        // K and V of the chunk's query heads (a grouped-query head's K and V for each), and Q
        // when its rows make one block: row by row of the inputs, each read once in order.
        const bool q_too = rows == n.sq;
        ctx.ParallelFor(std::max(skv, q_too ? n.sq : 0), 16, [&](int64_t begin, int64_t end) {
          for (int64_t s = begin; s < end; ++s) {
            if (q_too && s < n.sq) {
              ToBf16Rows(g.q.at(b, h0, s), g.q.head, qb + s * d, rows * d, kc, d, scale);
            }
            if (s >= skv) continue;
            // One call for the chunk's heads when each has its own K and V head, else per head.
            const int64_t per_call = group == 1 ? kc : 1;
            for (int64_t j = 0; j < kc; j += per_call) {
              const int64_t kvh = (h0 + j) / group;
              ToBf16Rows(g.k.at(b, kvh, s), g.k.head, kb + (j * skv + s) * d, skv * d, per_call, d,
                         1.0f);
              ToBf16Rows(g.v.at(b, kvh, s), g.v.head, vb + (j * skv + s) * dv, skv * dv, per_call,
                         dv, 1.0f);
            }
          }
        });
        for (int64_t r0 = 0; r0 < n.sq; r0 += rows) {
          const Products& p = r0 + rows <= n.sq ? plan.full : plan.tail;
          const int64_t block = p.rows;
          if (!q_too) {
            ctx.ParallelFor(block, 16, [&](int64_t begin, int64_t end) {
              for (int64_t r = begin; r < end; ++r) {
                ToBf16Rows(g.q.at(b, h0, r0 + r), g.q.head, qb + r * d, block * d, kc, d, scale);
              }
            });
          }
          run.Execute(p.scores,
                      {{DNNL_ARG_SRC, &run.Memory(0, p.q_md, qb)},
                       {DNNL_ARG_WEIGHTS, &run.Memory(1, p.kt_md, kb)},
                       {DNNL_ARG_DST, &run.Memory(2, p.s_md, scores)}},
                      plan.scratch_md, scratch);
          run.Wait();
          if (mask.data != nullptr || causal_) {
            ctx.ParallelFor(kc * block, 16, [&](int64_t begin, int64_t end) {
              std::unique_ptr<float[]> mask_row(mask_scratch ? new float[skv] : nullptr);
              for (int64_t i = begin; i < end; ++i) {
                int64_t valid = skv;
                const float* add = RowMask(mask, causal_, skv, b, h0 + i / block, r0 + i % block,
                                           mask_row.get(), valid);
                MaskRow(scores + i * skv, add, skv, valid);
              }
            });
          }
          run.Execute(p.softmax,
                      {{DNNL_ARG_SRC, &run.Memory(2, p.s_md, scores)},
                       {DNNL_ARG_DST, &run.Memory(3, p.p_md, probs)}},
                      plan.scratch_md, scratch);
          float* const y_data = y->as<float>();
          float* y_block = p.y_direct ? y_data + (g.y.at(b, h0, r0) - g.y.data) : y_dense;
          run.Execute(p.values,
                      {{DNNL_ARG_SRC, &run.Memory(3, p.p_md, probs)},
                       {DNNL_ARG_WEIGHTS, &run.Memory(4, p.v_md, vb)},
                       {DNNL_ARG_DST, &run.Memory(5, p.y_md, y_block)}},
                      plan.scratch_md, scratch);
          run.Wait();
          if (!p.y_direct) {
            ctx.ParallelFor(kc * block, 256, [&](int64_t begin, int64_t end) {
              for (int64_t i = begin; i < end; ++i) {
                std::memcpy(y_data + (g.y.at(b, h0 + i / block, r0 + i % block) - g.y.data),
                            y_dense + i * dv, static_cast<size_t>(dv) * sizeof(float));
              }
            });
          }
        }
      }
    }
    return Status::Ok();
  }

  bool packed_;
  bool causal_;
  float scale_attr_;
  bool has_scale_;
};

}  // namespace

Result<std::unique_ptr<Kernel>> MakeBf16Attention(
    const NodeDef& def, bool packed,
    const std::function<Result<std::unique_ptr<Kernel>>()>& make_fallback) {
  KILN_ASSIGN_OR_RETURN(auto fallback, make_fallback());
  auto k = std::make_unique<Bf16AttentionKernel>(def, packed, std::move(fallback));
  // No brgemm bf16 matmul for the planned dims: the float32 kernel runs the node.
  if (!k->PrepareFirstPlan().ok()) return make_fallback();
  return std::unique_ptr<Kernel>(std::move(k));
}

}  // namespace kiln::cpu::attention
