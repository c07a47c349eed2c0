// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The CPU backend's Attention (ONNX opset 23, and what attention_fusion makes of a transformer's
// MatMul / Softmax / MatMul): Y = softmax(scale * Q Kᵀ + mask) V per head, with Q, K and
// V in either of the op's layouts — 3-D [B, S, heads * size] (the heads read in place through
// the row stride, so a transformer's head split and merge cost nothing) or 4-D
// [B, heads, S, size] — or side by side in one tensor (com.kiln PackedQkvAttention, from
// qkv_packing: the heads read in place from their slice of each row), grouped-query heads, a float
// or boolean attn_mask broadcast to [B, q_heads, q_seq, total] (opset 24's shorter last dim padded
// with -inf) and is_causal.
//
// Float32 (this file): work items are (batch, head, block of query rows), spread over the team;
// each computes its block of scores with oneDNN's sgemm into a buffer of its own (it stays in
// cache: the scores never go to memory), adds the mask, takes oneDNN's softmax of the block (made
// for one thread; the row loop below where oneDNN has none) and multiplies by V with a second
// sgemm straight into Y. Inside the team's parallel region sgemm
// runs on the calling thread. In a model compiled for bf16 (def.matrix_precision) on a CPU with
// bf16 arithmetic the products run in bf16 instead (attention_bf16.cc), with this kernel as the
// fallback for what that one does not take.
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
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "backends/cpu/cpu_compute.h"
#include "backends/cpu/kernels/attention_internal.h"
#include "backends/cpu/kernels/dnnl_common.h"
#include "backends/cpu/kernels/families.h"
#include "backends/cpu/kernels/simd.h"
#include "backends/cpu/kernels/vec_math.h"
#include "kernels/util.h"

namespace kiln::cpu {
namespace attention {

using internal::DataType;

namespace {
constexpr float kNegInf = -std::numeric_limits<float>::infinity();

// The heads of a 3-D [B, S, heads * size] or 4-D [B, heads, S, size] tensor.
HeadView Heads(const float* data, bool three_d, int64_t seq, int64_t heads, int64_t size) {
  if (three_d) return {data, seq * heads * size, size, heads * size};
  return {data, heads * seq * size, seq * size, size};
}
}  // namespace

std::optional<Sizes> SplitSizes(const NodeDef& def, const Dims& q, const Dims& k, const Dims& v) {
  if (q.size() != k.size() || q.size() != v.size() || (q.size() != 3 && q.size() != 4)) {
    return std::nullopt;
  }
  Sizes n;
  n.three_d = q.size() == 3;
  n.batch = q[0];
  if (n.three_d) {
    n.hq = def.attr_int("q_num_heads");
    n.hkv = def.attr_int("kv_num_heads");
    if (n.hq < 1 || n.hkv < 1 || q[2] % n.hq != 0 || k[2] % n.hkv != 0 || v[2] % n.hkv != 0) {
      return std::nullopt;
    }
    n.sq = q[1];
    n.skv = k[1];
    n.d = q[2] / n.hq;
    n.dv = v[2] / n.hkv;
    if (k[2] / n.hkv != n.d || v[1] != n.skv) return std::nullopt;
  } else {
    n.hq = q[1];
    n.hkv = k[1];
    n.sq = q[2];
    n.skv = k[2];
    n.d = q[3];
    n.dv = v[3];
    if (k[3] != n.d || v[1] != n.hkv || v[2] != n.skv) return std::nullopt;
  }
  if (k[0] != n.batch || v[0] != n.batch || n.hkv < 1 || n.hq % n.hkv != 0) return std::nullopt;
  return n;
}

std::optional<Sizes> PackedSizes(const NodeDef& def, const Dims& qkv) {
  Sizes n;
  n.hq = def.attr_int("q_num_heads");
  n.hkv = def.attr_int("kv_num_heads");
  if (qkv.size() != 3 || n.hq < 1 || n.hkv < 1 || n.hq % n.hkv != 0 ||
      qkv[2] % (n.hq + 2 * n.hkv) != 0) {
    return std::nullopt;
  }
  n.batch = qkv[0];
  n.sq = n.skv = qkv[1];
  n.d = n.dv = qkv[2] / (n.hq + 2 * n.hkv);
  return n;
}

Dims OutputDims(const Sizes& n) {
  return n.three_d ? Dims{n.batch, n.sq, n.hq * n.dv} : Dims{n.batch, n.hq, n.sq, n.dv};
}

bool ReadGeometry(const NodeDef& def, bool packed, KernelContext& ctx, const TensorView& y,
                  Geometry& g) {
  const size_t mask_at = packed ? 1 : 3;
  g.mask = ctx.num_inputs() > mask_at ? ctx.input(mask_at) : nullptr;
  if (packed) {
    // The three inputs' heads read in place from their slices of each row.
    const TensorView* qkv = ctx.input(0);
    if (qkv == nullptr) return false;
    auto n = PackedSizes(def, qkv->dims);
    if (!n || y.dims != OutputDims(*n)) return false;
    g.n = *n;
    const int64_t row = qkv->dims[2];
    const float* data = qkv->as<const float>();
    g.q = {data, n->sq * row, n->d, row};
    g.k = {data + n->hq * n->d, n->sq * row, n->d, row};
    g.v = {data + (n->hq + n->hkv) * n->d, n->sq * row, n->d, row};
  } else {
    const TensorView* q = ctx.input(0);
    const TensorView* k = ctx.input(1);
    const TensorView* v = ctx.input(2);
    if (q == nullptr || k == nullptr || v == nullptr) return false;
    auto n = SplitSizes(def, q->dims, k->dims, v->dims);
    if (!n || y.dims != OutputDims(*n)) return false;
    g.n = *n;
    g.q = Heads(q->as<const float>(), n->three_d, n->sq, n->hq, n->d);
    g.k = Heads(k->as<const float>(), n->three_d, n->skv, n->hkv, n->d);
    g.v = Heads(v->as<const float>(), n->three_d, n->skv, n->hkv, n->dv);
  }
  g.y = Heads(y.as<float>(), g.n.three_d, g.n.sq, g.n.hq, g.n.dv);
  return true;
}

namespace {
// The mask's dims as [B, Hq, Sq, T] (ones prepended).
Dims MaskDims4(const TensorView& m) {
  Dims md(4 - m.rank(), 1);
  md.insert(md.end(), m.dims.begin(), m.dims.end());
  return md;
}
}  // namespace

bool MaskFits(const Sizes& n, const TensorView* m) {
  if (m == nullptr) return true;
  if (m->rank() > 4) return false;
  const Dims md = MaskDims4(*m);
  const int64_t target[4] = {n.batch, n.hq, n.sq, n.skv};
  for (size_t i = 0; i < 4; ++i) {
    if (md[i] != 1 && md[i] != target[i] && !(i == 3 && md[i] < n.skv)) return false;
  }
  return true;
}

bool ReadMask(const Geometry& g, MaskView& mask) {
  const TensorView* m = g.mask;
  mask = MaskView{};
  if (m == nullptr) return true;
  if (!MaskFits(g.n, m)) return false;
  const Dims md = MaskDims4(*m);
  const Dims strides = kernels::Strides(md);
  for (size_t i = 0; i < 4; ++i) mask.stride[i] = md[i] == 1 ? 0 : strides[i];
  mask.last = md[3] == 1 ? g.n.skv : md[3];
  mask.data = m->data;
  mask.boolean = m->dtype == DataType::kBool;
  return true;
}

const float* RowMask(const MaskView& mask, bool causal, int64_t skv, int64_t b, int64_t h,
                     int64_t i, float* scratch, int64_t& valid) {
  valid = causal ? std::min(skv, i + 1) : skv;
  if (mask.data == nullptr) return nullptr;
  const int64_t at = b * mask.stride[0] + h * mask.stride[1] + i * mask.stride[2];
  valid = std::min(valid, mask.last);
  if (mask.boolean) {
    // One byte per element, read as bytes: any non-zero byte is true.
    const uint8_t* mb = static_cast<const uint8_t*>(mask.data) + at;
    for (int64_t j = 0; j < valid; ++j) {
      scratch[j] = mb[mask.stride[3] == 0 ? 0 : j] != 0 ? 0.0f : kNegInf;
    }
    return scratch;
  }
  if (mask.stride[3] != 0) return static_cast<const float*>(mask.data) + at;
  std::fill(scratch, scratch + skv, static_cast<const float*>(mask.data)[at]);  // one per row
  return scratch;
}

// The maximum and the sum run in kLanes independent accumulators, so the loops vectorise
// without reassociating a single float chain.
constexpr int64_t kLanes = 16;
constexpr float kExpFloor = -87.0f;  // e^-87 = 1.6e-38, just above the smallest normal float
KILN_CPU_CLONES void MaskRow(float* KILN_RESTRICT row, const float* KILN_RESTRICT mask, int64_t n,
                             int64_t valid) {
  if (mask != nullptr) {
    for (int64_t j = 0; j < valid; ++j) row[j] += mask[j];
  }
  for (int64_t j = valid; j < n; ++j) row[j] = kNegInf;
}

KILN_CPU_CLONES void MaskedSoftmaxRow(float* KILN_RESTRICT row, const float* KILN_RESTRICT mask,
                                      int64_t n, int64_t valid) {
  MaskRow(row, mask, n, valid);
  float lanes[kLanes];
  for (int64_t l = 0; l < kLanes; ++l) lanes[l] = kNegInf;
  int64_t j = 0;
  for (; j + kLanes <= n; j += kLanes) {
    for (int64_t l = 0; l < kLanes; ++l) lanes[l] = std::max(lanes[l], row[j + l]);
  }
  float mx = kNegInf;
  for (; j < n; ++j) mx = std::max(mx, row[j]);
  for (int64_t l = 0; l < kLanes; ++l) mx = std::max(mx, lanes[l]);
  // e^t below the normal floats is 0 here: the row's sum is at least 1, and a subnormal e^t
  // (a masked key: -10000 or the float minimum added) costs a microcode assist per element — a
  // BERT encoder's attention with 31 of 128 keys padded took 2.5x the time in its softmax.
  for (j = 0; j < n; ++j) {
    const float t = row[j] - mx;
    const bool tiny = t < kExpFloor;
    row[j] = vec::Select(tiny, 0.0f, vec::Exp(vec::Select(tiny, kExpFloor, t)));
  }
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

}  // namespace attention

namespace {

using attention::Geometry;
using attention::HeadView;
using attention::MaskView;
using internal::DataType;
using internal::FallbackKernel;
using internal::Kernel;
using internal::KernelContext;
using internal::KernelRegistry;
using internal::NodeDef;
using internal::TensorView;

constexpr DataType kF32 = DataType::kFloat32;
// Query rows per work item: up to 128 (one item per head at BERT's sizes, K and V packed once
// per head), fewer for long keys so that a block of scores stays within 128 KiB (L2).
int64_t RowsPerItem(int64_t total) {
  return std::clamp<int64_t>(32768 / std::max<int64_t>(total, 1), 16, 128);
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

// oneDNN's softmax over the rows of a [rows, skv] block of scores, made for one thread: a work
// item runs it on its own block inside the team's region.
struct BlockSoftmax {
  dnnl::softmax_forward prim;
  dnnl::memory::desc md, scratch_md;
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
    if (!attention::ReadGeometry(def_, packed_, ctx, *y, g)) return RunReference(ctx);
    return Compute(g, *y, ctx);
  }

 private:
  Status Compute(const Geometry& g, TensorView& y_out, KernelContext& ctx) const {
    const int64_t batch = g.n.batch, hq = g.n.hq, sq = g.n.sq, skv = g.n.skv, d = g.n.d,
                  dv = g.n.dv;
    if (y_out.num_elements() == 0) return Status::Ok();
    if (d == 0) return RunReference(ctx);  // sgemm takes no empty reduction with these strides
    if (skv == 0) {                        // softmax over no keys: every output row is an empty sum
      std::fill(y_out.as<float>(), y_out.as<float>() + y_out.num_elements(), 0.0f);
      return Status::Ok();
    }
    MaskView mask;
    if (!attention::ReadMask(g, mask)) return RunReference(ctx);
    const float scale = has_scale_ ? scale_attr_ : 1.0f / std::sqrt(static_cast<float>(d));
    const HeadView &qv = g.q, &kv = g.k, &vv = g.v, &yv = g.y;
    float* y_data = y_out.as<float>();
    const int64_t group = g.n.group();
    const int64_t rows_per_item = RowsPerItem(skv);
    const int64_t blocks = (sq + rows_per_item - 1) / rows_per_item;
    const std::shared_ptr<const BlockSoftmax> full = SoftmaxFor(std::min(rows_per_item, sq), skv);
    const std::shared_ptr<const BlockSoftmax> tail = sq > rows_per_item && sq % rows_per_item != 0
                                                         ? SoftmaxFor(sq % rows_per_item, skv)
                                                         : nullptr;
    const size_t scratchpad =
        std::max(full ? full->scratch_md.get_size() : 0, tail ? tail->scratch_md.get_size() : 0);
    std::atomic<bool> failed{false};
    ctx.ParallelFor(batch * hq * blocks, 1, [&](int64_t begin, int64_t end) {
      // Scratch of the chunk, left uninitialised (every element is written before it is read).
      const int64_t mask_floats = mask.data != nullptr ? skv : 0;
      std::unique_ptr<float[]> scratch(new float[std::min(rows_per_item, sq) * skv + mask_floats]);
      float* const mask_row = scratch.get() + std::min(rows_per_item, sq) * skv;
      // oneDNN's softmax runs on the chunk's own stream, in place on its scores buffer: the
      // arguments are made once per chunk and block shape (full, tail), not per item.
      std::optional<dnnl::stream> stream;
      std::unique_ptr<char[]> softmax_scratch(scratchpad != 0 ? new char[scratchpad] : nullptr);
      std::unordered_map<int, dnnl::memory> softmax_args[2];
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
        const BlockSoftmax* sm = rows == std::min(rows_per_item, sq) ? full.get() : tail.get();
        for (int64_t r = 0; r < rows; ++r) {
          int64_t valid = skv;
          const float* add = attention::RowMask(mask, causal_, skv, b, h, i0 + r, mask_row, valid);
          if (sm == nullptr) {
            attention::MaskedSoftmaxRow(s + r * skv, add, skv, valid);
          } else if (add != nullptr || valid < skv) {
            attention::MaskRow(s + r * skv, add, skv, valid);
          }
        }
        if (sm != nullptr) {
          try {
            std::unordered_map<int, dnnl::memory>& args = softmax_args[sm == full.get() ? 0 : 1];
            if (args.empty()) {
              if (!stream) stream.emplace(Engine());
              const dnnl::memory block(sm->md, Engine(), s);
              args = {{DNNL_ARG_SRC, block}, {DNNL_ARG_DST, block}};
              if (scratchpad != 0) {
                args.emplace(DNNL_ARG_SCRATCHPAD,
                             dnnl::memory(sm->scratch_md, Engine(), softmax_scratch.get()));
              }
            }
            sm->prim.execute(*stream, args);
          } catch (const dnnl::error&) {
            failed = true;
            return;
          }
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
    if (failed) return def_.Fail(code::kInternalError, "onednn's sgemm or softmax failed");
    return Status::Ok();
  }

  // The softmax of a block of `rows` x `skv` scores, made on first use of the shape (oneDNN's
  // jit softmax took ~78 ns per row of 128 on Sapphire Rapids, the vectorised row loop 132, most
  // of it per-row overhead); null when oneDNN has no jit softmax for it.
  std::shared_ptr<const BlockSoftmax> SoftmaxFor(int64_t rows, int64_t skv) const {
    std::lock_guard<std::mutex> lock(mu_);
    auto [it, fresh] = softmax_.try_emplace({rows, skv});
    if (!fresh) return it->second;
    try {
      TeamScope one(1);
      auto sm = std::make_shared<BlockSoftmax>();
      sm->md = dnnl::memory::desc({rows, skv}, dnnl::memory::data_type::f32,
                                  dnnl::memory::format_tag::ab);
      dnnl::softmax_forward::primitive_desc pd(
          dnnl::softmax_forward::desc(dnnl::prop_kind::forward_inference, sm->md, 1),
          UserScratchpadAttr(), Engine());
      if (IsReferenceImpl(pd)) return nullptr;
      sm->scratch_md = pd.scratchpad_desc();
      sm->prim = dnnl::softmax_forward(pd);
      it->second = std::move(sm);
    } catch (const dnnl::error&) {
      // no implementation: the row loop runs
    }
    return it->second;
  }

  bool packed_;
  bool causal_;
  float scale_attr_;
  bool has_scale_;
  mutable std::mutex mu_;
  mutable std::map<std::pair<int64_t, int64_t>, std::shared_ptr<const BlockSoftmax>> softmax_;
};

// The float32 kernel of `def`, or in a bf16 model on a CPU with bf16 arithmetic the bf16 one
// with the float32 one as its fallback (attention_bf16.cc).
Result<std::unique_ptr<Kernel>> MakeKernel(const KernelRegistry& registry, const NodeDef& def,
                                           bool packed) {
  auto make_f32 = [&]() -> Result<std::unique_ptr<Kernel>> {
    KILN_ASSIGN_OR_RETURN(auto reference, internal::PrepareReference(registry, def));
    WarmSgemm();
    return std::unique_ptr<Kernel>(
        std::make_unique<AttentionKernel>(def, std::move(reference), packed));
  };
  if (MatrixInputType(def) != dnnl::memory::data_type::bf16) return make_f32();
  return attention::MakeBf16Attention(def, packed, make_f32);
}

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
  return MakeKernel(registry, def, /*packed=*/false);
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
  return MakeKernel(registry, def, /*packed=*/true);
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
