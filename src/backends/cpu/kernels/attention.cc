// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The CPU backend's Attention (ONNX opset 23, and what attention_fusion makes of a transformer's
// MatMul / Softmax / MatMul): Y = softmax(scale * Q Kᵀ + mask) V per head, float32, with Q, K and
// V in either of the op's layouts — 3-D [B, S, heads * size] (the heads read in place through
// the row stride, so a transformer's head split and merge cost nothing) or 4-D
// [B, heads, S, size] — or side by side in one tensor (com.kiln PackedQkvAttention, from
// qkv_packing: the heads read in place from their slice of each row), grouped-query heads, a float
// or boolean attn_mask broadcast to [B, q_heads, q_seq, total] (opset 24's shorter last dim padded
// with -inf) and is_causal.
//
// Work items are (batch, head, block of query rows), spread over the team; each computes
// its block of scores with oneDNN's sgemm into a buffer of its own (it stays in cache: the
// scores never go to memory), adds the mask, takes the softmax row by row and multiplies by V
// with a second sgemm straight into Y. Inside the team's parallel region sgemm runs on the
// calling thread.
//
// The reference kernel runs what this one declines at load: past_key / past_value,
// nonpad_kv_seqlen, softcap, a softmax_precision other than float, and any use of the optional
// outputs (present key / value, the QK matrix).
#include <dnnl.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

#include "backends/cpu/kernels/elementwise_internal.h"
#include "backends/cpu/kernels/families.h"
#include "backends/cpu/kernels/simd.h"
#include "backends/cpu/kernels/vec_math.h"
#include "kernels/util.h"

namespace kiln::cpu {
namespace {

using internal::DataType;
using internal::Dims;
using internal::FallbackKernel;
using internal::Kernel;
using internal::KernelContext;
using internal::KernelRegistry;
using internal::NodeDef;
using internal::TensorView;

constexpr DataType kF32 = DataType::kFloat32;
constexpr float kNegInf = -std::numeric_limits<float>::infinity();
// Query rows per work item: up to 128 (one item per head at BERT's sizes, K and V packed once
// per head), fewer for long keys so that a block of scores stays within 128 KiB (L2).
int64_t RowsPerItem(int64_t total) {
  return std::clamp<int64_t>(32768 / std::max<int64_t>(total, 1), 16, 128);
}

// One input's heads: element (b, h, s, d) lies at data + b * batch + h * head + s * row + d.
struct HeadView {
  const float* data = nullptr;
  int64_t batch = 0, head = 0, row = 0;
  const float* at(int64_t b, int64_t h, int64_t s) const {
    return data + b * batch + h * head + s * row;
  }
};

// The heads of a 3-D [B, S, heads * size] or 4-D [B, heads, S, size] tensor.
HeadView Heads(const float* data, bool three_d, int64_t seq, int64_t heads, int64_t size) {
  if (three_d) return {data, seq * heads * size, size, heads * size};
  return {data, heads * seq * size, seq * size, size};
}

// The additive mask broadcast to [B, Hq, Sq, T]: element strides (0 on a broadcast dim), the
// mask's own last dim (opset 24 pads a shorter one with -inf) and whether it is boolean.
struct MaskView {
  const void* data = nullptr;
  bool boolean = false;
  int64_t stride[4] = {0, 0, 0, 0};
  int64_t last = 0;
};

// softmax(row + mask) in place over n floats; `mask` (n floats or null) is added first, and
// columns from `valid` on are -inf (causal or a short mask). A row left without a finite value
// gives NaN, as the reference's softmax does. The maximum and the sum run in kLanes independent
// accumulators, so the loops vectorise without reassociating a single float chain.
constexpr int64_t kLanes = 16;
KILN_CPU_CLONES void MaskedSoftmaxRow(float* KILN_RESTRICT row, const float* KILN_RESTRICT mask,
                                      int64_t n, int64_t valid) {
  if (mask != nullptr) {
    for (int64_t j = 0; j < valid; ++j) row[j] += mask[j];
  }
  for (int64_t j = valid; j < n; ++j) row[j] = kNegInf;
  float lanes[kLanes];
  for (int64_t l = 0; l < kLanes; ++l) lanes[l] = kNegInf;
  int64_t j = 0;
  for (; j + kLanes <= n; j += kLanes) {
    for (int64_t l = 0; l < kLanes; ++l) lanes[l] = std::max(lanes[l], row[j + l]);
  }
  float mx = kNegInf;
  for (; j < n; ++j) mx = std::max(mx, row[j]);
  for (int64_t l = 0; l < kLanes; ++l) mx = std::max(mx, lanes[l]);
  for (j = 0; j < n; ++j) row[j] = vec::Exp(row[j] - mx);
  for (int64_t l = 0; l < kLanes; ++l) lanes[l] = 0.0f;
  for (j = 0; j + kLanes <= n; j += kLanes) {
    for (int64_t l = 0; l < kLanes; ++l) lanes[l] += row[j + l];
  }
  float sum = 0.0f;
  for (; j < n; ++j) sum += row[j];
  for (int64_t l = 0; l < kLanes; ++l) sum += lanes[l];
  const float inv = 1.0f / sum;
  for (j = 0; j < n; ++j) row[j] *= inv;
}

// oneDNN's sgemm generates its JIT kernels on its first call of a size worth them (once per
// process): 27-30 ms on the Zen 4 VM, which made a BERT encoder's first run 52 ms against 15
// steady. A 64x64x64 product of each form the kernel uses, at load, moves that into the model's
// preparation, where other nodes are prepared beside it (hal::Device::ForEachPreparation): the
// first Attention node to be prepared runs it and the others do not wait for it (the load ends
// only when every node's preparation, this one included, has). A smaller product (1 or 8) takes
// a path without the JIT kernels and leaves the cost to the first run.
void WarmSgemm() {
  static std::atomic<bool> started{false};
  if (started.exchange(true, std::memory_order_relaxed)) return;
  constexpr int64_t kSide = 64;
  std::vector<float> a(kSide * kSide, 0.0f), b(a), c(a);
  (void)dnnl_sgemm('N', 'T', kSide, kSide, kSide, 1.0f, a.data(), kSide, b.data(), kSide, 0.0f,
                   c.data(), kSide);
  (void)dnnl_sgemm('N', 'N', kSide, kSide, kSide, 1.0f, a.data(), kSide, b.data(), kSide, 0.0f,
                   c.data(), kSide);
}

// Where a run's Q, K, V and Y lie and their sizes, read from the actual inputs.
struct Geometry {
  int64_t batch = 0, hq = 0, hkv = 0, sq = 0, skv = 0, d = 0, dv = 0;
  HeadView q, k, v, y;
  const TensorView* mask = nullptr;
};

class AttentionKernel final : public FallbackKernel {
 public:
  AttentionKernel(const NodeDef& def, std::unique_ptr<Kernel> reference, bool packed)
      : FallbackKernel(def, std::move(reference)),
        packed_(packed),
        causal_(def.attr_int("is_causal") == 1),
        scale_attr_(def.has_attr("scale") ? def.attr_float("scale") : 0.0f),
        has_scale_(def.has_attr("scale")) {}

  Status Run(KernelContext& ctx) const override {
    Geometry g;
    KILN_ASSIGN_OR_RETURN(TensorView * y, kernels::BoundOutput(def_, ctx, 0));
    if (!(packed_ ? PackedGeometry(ctx, *y, g) : SplitGeometry(ctx, *y, g))) {
      return RunReference(ctx);  // it reports
    }
    return Compute(g, *y, ctx);
  }

 private:
  // Attention's Q, K, V [, attn_mask]: 3-D with the head counts as attributes, or 4-D.
  bool SplitGeometry(KernelContext& ctx, const TensorView& y, Geometry& g) const {
    const TensorView* q = ctx.input(0);
    const TensorView* k = ctx.input(1);
    const TensorView* v = ctx.input(2);
    g.mask = ctx.num_inputs() > 3 ? ctx.input(3) : nullptr;
    if (q == nullptr || k == nullptr || v == nullptr || q->rank() != k->rank() ||
        q->rank() != v->rank() || (q->rank() != 3 && q->rank() != 4)) {
      return false;
    }
    const bool three_d = q->rank() == 3;
    g.batch = q->dims[0];
    if (three_d) {
      g.hq = def_.attr_int("q_num_heads");
      g.hkv = def_.attr_int("kv_num_heads");
      if (g.hq < 1 || g.hkv < 1 || q->dims[2] % g.hq != 0 || k->dims[2] % g.hkv != 0 ||
          v->dims[2] % g.hkv != 0) {
        return false;
      }
      g.sq = q->dims[1];
      g.skv = k->dims[1];
      g.d = q->dims[2] / g.hq;
      g.dv = v->dims[2] / g.hkv;
      if (k->dims[2] / g.hkv != g.d || v->dims[1] != g.skv) return false;
    } else {
      g.hq = q->dims[1];
      g.hkv = k->dims[1];
      g.sq = q->dims[2];
      g.skv = k->dims[2];
      g.d = q->dims[3];
      g.dv = v->dims[3];
      if (k->dims[3] != g.d || v->dims[1] != g.hkv || v->dims[2] != g.skv) return false;
    }
    if (k->dims[0] != g.batch || v->dims[0] != g.batch || g.hkv < 1 || g.hq % g.hkv != 0) {
      return false;
    }
    const Dims want = three_d ? Dims{g.batch, g.sq, g.hq * g.dv} : Dims{g.batch, g.hq, g.sq, g.dv};
    if (y.dims != want) return false;
    g.q = Heads(q->as<const float>(), three_d, g.sq, g.hq, g.d);
    g.k = Heads(k->as<const float>(), three_d, g.skv, g.hkv, g.d);
    g.v = Heads(v->as<const float>(), three_d, g.skv, g.hkv, g.dv);
    g.y = Heads(y.as<float>(), three_d, g.sq, g.hq, g.dv);
    return true;
  }

  // PackedQkvAttention's QKV [B, S, (Hq + 2 Hkv) * D] [, attn_mask]: the three inputs' heads
  // read in place from their slices of each row.
  bool PackedGeometry(KernelContext& ctx, const TensorView& y, Geometry& g) const {
    const TensorView* qkv = ctx.input(0);
    g.mask = ctx.num_inputs() > 1 ? ctx.input(1) : nullptr;
    g.hq = def_.attr_int("q_num_heads");
    g.hkv = def_.attr_int("kv_num_heads");
    if (qkv == nullptr || qkv->rank() != 3 || g.hq < 1 || g.hkv < 1 || g.hq % g.hkv != 0 ||
        qkv->dims[2] % (g.hq + 2 * g.hkv) != 0) {
      return false;
    }
    g.batch = qkv->dims[0];
    g.sq = g.skv = qkv->dims[1];
    g.d = g.dv = qkv->dims[2] / (g.hq + 2 * g.hkv);
    if (y.dims != Dims{g.batch, g.sq, g.hq * g.d}) return false;
    const int64_t row = qkv->dims[2];
    const float* data = qkv->as<const float>();
    g.q = {data, g.sq * row, g.d, row};
    g.k = {data + g.hq * g.d, g.sq * row, g.d, row};
    g.v = {data + (g.hq + g.hkv) * g.d, g.sq * row, g.d, row};
    g.y = Heads(y.as<float>(), true, g.sq, g.hq, g.d);
    return true;
  }

  Status Compute(const Geometry& g, TensorView& y_out, KernelContext& ctx) const {
    const int64_t batch = g.batch, hq = g.hq, hkv = g.hkv, sq = g.sq, skv = g.skv, d = g.d,
                  dv = g.dv;
    const TensorView* m = g.mask;
    if (m != nullptr && m->rank() > 4) return RunReference(ctx);
    if (y_out.num_elements() == 0) return Status::Ok();
    if (d == 0) return RunReference(ctx);  // sgemm takes no empty reduction with these strides
    if (skv == 0) {                        // softmax over no keys: every output row is an empty sum
      std::fill(y_out.as<float>(), y_out.as<float>() + y_out.num_elements(), 0.0f);
      return Status::Ok();
    }

    MaskView mask;
    if (m != nullptr) {
      Dims md(4 - m->rank(), 1);
      md.insert(md.end(), m->dims.begin(), m->dims.end());
      const int64_t target[4] = {batch, hq, sq, skv};
      for (size_t i = 0; i < 4; ++i) {
        if (md[i] != 1 && md[i] != target[i] && !(i == 3 && md[i] < skv)) {
          return RunReference(ctx);
        }
      }
      const Dims strides = kernels::Strides(md);
      for (size_t i = 0; i < 4; ++i) mask.stride[i] = md[i] == 1 ? 0 : strides[i];
      mask.last = md[3] == 1 ? skv : md[3];
      mask.data = m->data;
      mask.boolean = m->dtype == DataType::kBool;
    }
    const float scale = has_scale_ ? scale_attr_ : 1.0f / std::sqrt(static_cast<float>(d));
    const HeadView &qv = g.q, &kv = g.k, &vv = g.v, &yv = g.y;
    float* y_data = y_out.as<float>();
    const int64_t group = hq / hkv;
    const int64_t rows_per_item = RowsPerItem(skv);
    const int64_t blocks = (sq + rows_per_item - 1) / rows_per_item;
    std::atomic<bool> failed{false};
    ctx.ParallelFor(batch * hq * blocks, 1, [&](int64_t begin, int64_t end) {
      // Scratch of the chunk, left uninitialised (every element is written before it is read).
      const int64_t mask_floats = mask.data != nullptr ? skv : 0;
      std::unique_ptr<float[]> scratch(new float[std::min(rows_per_item, sq) * skv + mask_floats]);
      float* const mask_row = scratch.get() + std::min(rows_per_item, sq) * skv;
      for (int64_t item = begin; item < end; ++item) {
        const int64_t b = item / (hq * blocks), h = item / blocks % hq;
        const int64_t i0 = item % blocks * rows_per_item, rows = std::min(rows_per_item, sq - i0);
        const int64_t kvh = h / group;
        float* s = scratch.get();
        // Scores: scale * Q[i0 : i0 + rows] Kᵀ, rows x skv.
        if (dnnl_sgemm('N', 'T', rows, skv, d, scale, qv.at(b, h, i0), qv.row, kv.at(b, kvh, 0),
                       kv.row, 0.0f, s, skv) != dnnl_success) {
          failed = true;
          return;
        }
        for (int64_t r = 0; r < rows; ++r) {
          const int64_t i = i0 + r;
          int64_t valid = causal_ ? std::min(skv, i + 1) : skv;
          const float* add = nullptr;
          if (mask.data != nullptr) {
            const int64_t at = b * mask.stride[0] + h * mask.stride[1] + i * mask.stride[2];
            valid = std::min(valid, mask.last);
            if (mask.boolean) {
              // One byte per element, read as bytes: any non-zero byte is true.
              const uint8_t* mb = static_cast<const uint8_t*>(mask.data) + at;
              for (int64_t j = 0; j < valid; ++j) {
                mask_row[j] = mb[mask.stride[3] == 0 ? 0 : j] != 0 ? 0.0f : kNegInf;
              }
              add = mask_row;
            } else if (mask.stride[3] != 0) {
              add = static_cast<const float*>(mask.data) + at;
            } else {  // one value for the whole row
              std::fill(mask_row, mask_row + skv, static_cast<const float*>(mask.data)[at]);
              add = mask_row;
            }
          }
          MaskedSoftmaxRow(s + r * skv, add, skv, valid);
        }
        // Y[i0 : i0 + rows] = P V.
        float* out = y_data + (yv.at(b, h, i0) - yv.data);
        if (dnnl_sgemm('N', 'N', rows, dv, skv, 1.0f, s, skv, vv.at(b, kvh, 0), vv.row, 0.0f, out,
                       yv.row) != dnnl_success) {
          failed = true;
          return;
        }
      }
    });
    if (failed) return def_.Fail(code::kInternalError, "onednn's sgemm failed");
    return Status::Ok();
  }

  bool packed_;
  bool causal_;
  float scale_attr_;
  bool has_scale_;
};

Result<std::unique_ptr<Kernel>> MakeAttention(const KernelRegistry& registry, const NodeDef& def) {
  for (size_t i = 0; i < 3; ++i) KILN_RETURN_IF_ERROR(internal::RequireInput(def, i, kF32), "");
  KILN_RETURN_IF_ERROR(internal::RequireOutput(def, 0, kF32), "");
  auto decline = [&](const char* what) {
    return def.Fail(code::kFeatureUnsupported, "the cpu attention kernel takes no ", what);
  };
  if (def.input_given(3) && def.input_types[3] != kF32 && def.input_types[3] != DataType::kBool) {
    return decline("attn_mask other than float32 or bool");
  }
  for (size_t i = 4; i < def.num_inputs(); ++i) {
    if (def.input_given(i)) return decline("past_key, past_value or nonpad_kv_seqlen");
  }
  for (size_t i = 1; i < def.output_types.size(); ++i) {
    if (def.output_used(i)) return decline("present key / value or QK output");
  }
  if (def.attr_float("softcap") != 0.0f) return decline("softcap");
  constexpr int64_t kOnnxFloat = 1;  // TensorProto.FLOAT
  if (def.has_attr("softmax_precision") && def.attr_int("softmax_precision") != kOnnxFloat) {
    return decline("softmax_precision other than float");
  }
  KILN_ASSIGN_OR_RETURN(auto reference, internal::PrepareReference(registry, def));
  WarmSgemm();
  return std::unique_ptr<Kernel>(
      std::make_unique<AttentionKernel>(def, std::move(reference), /*packed=*/false));
}

// PackedQkvAttention (com.kiln): QKV and an optional attn_mask; nothing else to decline.
Result<std::unique_ptr<Kernel>> MakePackedQkvAttention(const KernelRegistry& registry,
                                                       const NodeDef& def) {
  KILN_RETURN_IF_ERROR(internal::RequireInput(def, 0, kF32), "");
  KILN_RETURN_IF_ERROR(internal::RequireOutput(def, 0, kF32), "");
  if (def.input_given(1) && def.input_types[1] != kF32 && def.input_types[1] != DataType::kBool) {
    return def.Fail(code::kFeatureUnsupported,
                    "the cpu attention kernel takes no attn_mask other than float32 or bool");
  }
  KILN_ASSIGN_OR_RETURN(auto reference, internal::PrepareReference(registry, def));
  WarmSgemm();
  return std::unique_ptr<Kernel>(
      std::make_unique<AttentionKernel>(def, std::move(reference), /*packed=*/true));
}

}  // namespace

void RegisterCpuAttentionKernels(KernelRegistry& registry) {
  const KernelRegistry* r = &registry;
  registry.Register(internal::kCpu, "", "Attention",
                    [r](const NodeDef& def) { return MakeAttention(*r, def); });
  registry.Register(internal::kCpu, "com.kiln", "PackedQkvAttention",
                    [r](const NodeDef& def) { return MakePackedQkvAttention(*r, def); });
}

}  // namespace kiln::cpu
