// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Softmax and normalisations, float32. Softmax and LogSoftmax (every opset: the input is
// viewed as [outer, n, inner] around the axis, or [outer, n] when flattened as before opset 13):
// oneDNN when the axis is innermost, an own column-vectorised loop otherwise; BatchNormalization in
// inference mode (the input viewed as [N, C, spatial, 1]), LayerNormalization (viewed as [rows,
// normalised]; scale and bias per normalised element) and LRN (oneDNN's across-channel LRN, whose
// window and alpha / size are ONNX's; viewed as [N, C, spatial, 1]). Own vectorised loops split
// with KernelContext::ParallelFor: InstanceNormalization and GroupNormalization (oneDNN 2.6 has
// neither; its batch normalisation would need the statistics and the per-channel scale in separate
// passes anyway).
#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "backends/cpu/kernels/dnnl_common.h"
#include "backends/cpu/kernels/simd.h"
#include "backends/cpu/kernels/vec_math.h"

namespace kiln::cpu {
namespace {

// ---------------------------------------------------------------------------------------------
// Softmax and LogSoftmax.

struct SoftmaxPlan final : Plan {
  dnnl::memory::desc md, scratch_md;
  dnnl::primitive softmax;
  // An axis that is not the innermost: oneDNN 2.6 only has its slow reference implementation
  // for that, so the kernel's own loop runs it (outer, n, inner).
  bool strided = false;
  int64_t outer = 0, n = 0, inner = 0;
};

// Softmax (or log-softmax) over the middle axis of `x` [outer, n, inner] for the columns
// [j0, j1) of one outer index: three passes over rows of `inner`-contiguous floats, each
// vectorised along the columns. `acc` holds (j1 - j0) floats of scratch per pass.
KILN_CPU_CLONES void SoftmaxColumns(const float* x, float* y, int64_t n, int64_t inner, int64_t j0,
                                    int64_t j1, bool log, float* max, float* sum) {
  const int64_t w = j1 - j0;
  for (int64_t j = 0; j < w; ++j) {
    max[j] = -vec::kInf;
    sum[j] = 0.0f;
  }
  for (int64_t i = 0; i < n; ++i) {
    const float* row = x + i * inner + j0;
    for (int64_t j = 0; j < w; ++j) max[j] = std::max(max[j], row[j]);
  }
  for (int64_t i = 0; i < n; ++i) {
    const float* row = x + i * inner + j0;
    float* out = y + i * inner + j0;
    for (int64_t j = 0; j < w; ++j) {
      const float e = vec::Exp(row[j] - max[j]);
      sum[j] += e;
      if (!log) out[j] = e;
    }
  }
  if (log) {
    for (int64_t j = 0; j < w; ++j) sum[j] = max[j] + vec::Log(sum[j]);
    for (int64_t i = 0; i < n; ++i) {
      const float* row = x + i * inner + j0;
      float* out = y + i * inner + j0;
      for (int64_t j = 0; j < w; ++j) out[j] = row[j] - sum[j];
    }
  } else {
    for (int64_t j = 0; j < w; ++j) sum[j] = 1.0f / sum[j];
    for (int64_t i = 0; i < n; ++i) {
      float* out = y + i * inner + j0;
      for (int64_t j = 0; j < w; ++j) out[j] *= sum[j];
    }
  }
}

class SoftmaxKernel final : public DnnlKernel {
 public:
  static Result<std::unique_ptr<Kernel>> Make(const KernelRegistry& registry, const NodeDef& def,
                                              bool log) {
    KILN_RETURN_IF_ERROR(RequireFloat32(def), "");
    KILN_ASSIGN_OR_RETURN(auto reference, ReferenceKernel(registry, def));
    auto k = std::unique_ptr<SoftmaxKernel>(new SoftmaxKernel(def, std::move(reference), log));
    KILN_RETURN_IF_ERROR(k->PrepareFirstPlan(), "");
    return std::unique_ptr<Kernel>(std::move(k));
  }

 private:
  SoftmaxKernel(const NodeDef& def, std::unique_ptr<Kernel> reference, bool log)
      : DnnlKernel(def, std::move(reference)), log_(log) {}

  // [outer, n, inner] (inner = 1 when flattened or the axis is last).
  std::optional<Dims> Key(const std::vector<const Dims*>& in) const override {
    if (in.empty() || in[0] == nullptr) return std::nullopt;
    const Dims& x = *in[0];
    const bool flatten = def_.opset < 13;
    // The axis is in range (the definition's rule).
    auto axis = kernels::NormalizeAxis(def_.attr_int("axis"), static_cast<int64_t>(x.size()));
    if (!axis) return std::nullopt;
    const size_t a = static_cast<size_t>(*axis);
    const int64_t outer = kernels::Product(x, 0, a);
    if (flatten) return Dims{outer, kernels::Product(x, a, x.size()), 1};
    return Dims{outer, x[a], kernels::Product(x, a + 1, x.size())};
  }

  Result<std::shared_ptr<const Plan>> Build(const Dims& key) const override {
    auto plan = std::make_shared<SoftmaxPlan>();
    if (key[2] != 1) {
      plan->strided = true;
      plan->outer = key[0];
      plan->n = key[1];
      plan->inner = key[2];
      return std::shared_ptr<const Plan>(std::move(plan));
    }
    // The axis last: oneDNN's jit softmax.
    const Dims view = key[2] == 1 ? Dims{key[0], key[1]} : key;
    plan->md = PlainDesc(view);
    KILN_RETURN_IF_ERROR(Guard(def_,
                               [&] {
                                 const auto prop = dnnl::prop_kind::forward_inference;
                                 if (log_) {
                                   dnnl::logsoftmax_forward::primitive_desc pd(
                                       dnnl::logsoftmax_forward::desc(prop, plan->md, 1),
                                       UserScratchpadAttr(), Engine());
                                   plan->softmax = dnnl::logsoftmax_forward(pd);
                                   plan->scratch_md = pd.scratchpad_desc();
                                 } else {
                                   dnnl::softmax_forward::primitive_desc pd(
                                       dnnl::softmax_forward::desc(prop, plan->md, 1),
                                       UserScratchpadAttr(), Engine());
                                   plan->softmax = dnnl::softmax_forward(pd);
                                   plan->scratch_md = pd.scratchpad_desc();
                                 }
                               }),
                         "");
    return std::shared_ptr<const Plan>(std::move(plan));
  }

  Status Execute(const Plan& base, KernelContext& ctx, DnnlRun& run) const override {
    const auto& p = static_cast<const SoftmaxPlan&>(base);
    const TensorView* x = ctx.input(0);
    KILN_ASSIGN_OR_RETURN(TensorView * y, kernels::BoundOutput(def_, ctx, 0));
    if (p.strided) {
      if (p.outer * p.n * p.inner == 0) return Status::Ok();
      // Work items: (outer index, block of kBlock columns).
      constexpr int64_t kBlock = 256;
      const int64_t blocks = (p.inner + kBlock - 1) / kBlock;
      const float* xs = x->as<float>();
      float* ys = y->as<float>();
      const int64_t grain = std::max<int64_t>(1, 16384 / (p.n * std::min(p.inner, kBlock)));
      ctx.ParallelFor(p.outer * blocks, grain, [&](int64_t begin, int64_t end) {
        float max[kBlock], sum[kBlock];
        for (int64_t item = begin; item < end; ++item) {
          const int64_t o = item / blocks;
          const int64_t j0 = (item % blocks) * kBlock;
          const int64_t j1 = std::min(p.inner, j0 + kBlock);
          SoftmaxColumns(xs + o * p.n * p.inner, ys + o * p.n * p.inner, p.n, p.inner, j0, j1, log_,
                         max, sum);
        }
      });
      return Status::Ok();
    }
    run.Buffers({p.scratch_md.get_size()}, 0);
    run.Execute(p.softmax,
                {{DNNL_ARG_SRC, &run.Memory(0, p.md, x->data)},
                 {DNNL_ARG_DST, &run.Memory(1, p.md, y->data)}},
                p.scratch_md, run.buffer(0));
    run.Wait();
    return Status::Ok();
  }

  bool log_;
};

// ---------------------------------------------------------------------------------------------
// BatchNormalization (inference) and LayerNormalization.

struct NormPlan final : Plan {
  dnnl::memory::desc data_md, param_md, scratch_md;
  dnnl::primitive norm;
};

enum class NormKind { kBatch, kLayer };

class NormKernel final : public DnnlKernel {
 public:
  static Result<std::unique_ptr<Kernel>> Make(const KernelRegistry& registry, const NodeDef& def,
                                              NormKind kind) {
    KILN_RETURN_IF_ERROR(RequireFloat32(def), "");
    KILN_ASSIGN_OR_RETURN(auto reference, ReferenceKernel(registry, def));
    if (kind == NormKind::kBatch) {
      if (def.attr_int("training_mode") != 0) {
        return def.Fail(code::kFeatureUnsupported,
                        "the onednn batch normalisation runs inference only (training_mode=1)");
      }
      for (size_t i = 1; i < def.num_outputs(); ++i) {
        if (def.output_used(i)) {
          return def.Fail(code::kFeatureUnsupported,
                          "the onednn batch normalisation writes output Y only");
        }
      }
    }
    auto k = std::unique_ptr<NormKernel>(new NormKernel(def, std::move(reference), kind));
    KILN_RETURN_IF_ERROR(k->PrepareFirstPlan(), "");
    return std::unique_ptr<Kernel>(std::move(k));
  }

 private:
  NormKernel(const NodeDef& def, std::unique_ptr<Kernel> reference, NormKind kind)
      : DnnlKernel(def, std::move(reference)), kind_(kind), epsilon_(def.attr_float("epsilon")) {}

  // LayerNormalization's Mean and InvStdDev outputs are the reference kernel's to write.
  bool Takes(const KernelContext& ctx) const override {
    if (kind_ == NormKind::kBatch) return true;
    for (size_t i = 1; i < ctx.num_outputs(); ++i) {
      if (ctx.output_wanted(i)) return false;
    }
    return true;
  }

  // Whether `p` (Scale or B of LayerNormalization) holds one value per normalised element of
  // x (x's dims from `axis` on, any leading 1s): the layout oneDNN's scale and shift have.
  static bool PerElement(const Dims& p, const Dims& x, size_t axis) {
    if (p.size() > x.size() || kernels::NumElements(p) != kernels::Product(x, axis, x.size())) {
      return false;
    }
    for (size_t i = 0; i < p.size(); ++i) {
      const size_t j = x.size() - p.size() + i;
      if (p[i] != (j < axis ? 1 : x[j])) return false;
    }
    return true;
  }

  // Batch: [N, C, spatial]; layer: [rows, normalised] plus whether B is given. The inputs fit
  // (the definition's rules: X is N x C x ..., the batch statistics [C], the axis in range).
  std::optional<Dims> Key(const std::vector<const Dims*>& in) const override {
    if (in.empty() || in[0] == nullptr) return std::nullopt;
    const Dims& x = *in[0];
    if (kind_ == NormKind::kBatch) return Dims{x[0], x[1], kernels::Product(x, 2, x.size())};
    auto axis = kernels::NormalizeAxis(def_.attr_int("axis"), static_cast<int64_t>(x.size()));
    if (!axis || in.size() < 2 || in[1] == nullptr) return std::nullopt;
    const size_t a = static_cast<size_t>(*axis);
    const Dims* b = in.size() > 2 ? in[2] : nullptr;
    if (!PerElement(*in[1], x, a) || (b && !PerElement(*b, x, a))) return std::nullopt;
    return Dims{kernels::Product(x, 0, a), kernels::Product(x, a, x.size()), b != nullptr};
  }

  Result<std::shared_ptr<const Plan>> Build(const Dims& key) const override {
    auto plan = std::make_shared<NormPlan>();
    using flags = dnnl::normalization_flags;
    const auto prop = dnnl::prop_kind::forward_inference;
    KILN_RETURN_IF_ERROR(
        Guard(def_,
              [&] {
                if (kind_ == NormKind::kBatch) {
                  // 4-D: oneDNN's jit batch normalisation takes nchw, not ncw.
                  plan->data_md = PlainDesc({key[0], key[1], key[2], 1});
                  plan->param_md = PlainDesc({key[1]});
                  dnnl::batch_normalization_forward::primitive_desc pd(
                      dnnl::batch_normalization_forward::desc(
                          prop, plan->data_md, epsilon_,
                          flags::use_global_stats | flags::use_scale | flags::use_shift),
                      UserScratchpadAttr(), Engine());
                  plan->norm = dnnl::batch_normalization_forward(pd);
                  plan->scratch_md = pd.scratchpad_desc();
                } else {
                  plan->data_md = PlainDesc({key[0], key[1]});
                  plan->param_md = PlainDesc({key[1]});
                  const flags f =
                      key[2] != 0 ? flags::use_scale | flags::use_shift : flags::use_scale;
                  dnnl::layer_normalization_forward::primitive_desc pd(
                      dnnl::layer_normalization_forward::desc(prop, plan->data_md, epsilon_, f),
                      UserScratchpadAttr(), Engine());
                  plan->norm = dnnl::layer_normalization_forward(pd);
                  plan->scratch_md = pd.scratchpad_desc();
                }
              }),
        "");
    return std::shared_ptr<const Plan>(std::move(plan));
  }

  Status Execute(const Plan& base, KernelContext& ctx, DnnlRun& run) const override {
    const auto& p = static_cast<const NormPlan&>(base);
    const TensorView* x = ctx.input(0);
    KILN_ASSIGN_OR_RETURN(TensorView * y, kernels::BoundOutput(def_, ctx, 0));
    // Input i as a parameter vector (memory slot i + 1), null when not given.
    auto param = [&](size_t i) -> const dnnl::memory* {
      if (i >= ctx.num_inputs() || ctx.input(i) == nullptr) return nullptr;
      return &run.Memory(i + 1, p.param_md, ctx.input(i)->data);
    };
    const bool batch = kind_ == NormKind::kBatch;
    run.Buffers({p.scratch_md.get_size()}, 0);
    run.Execute(p.norm,
                {{DNNL_ARG_SRC, &run.Memory(0, p.data_md, x->data)},
                 {DNNL_ARG_DST, &run.Memory(6, p.data_md, y->data)},
                 {DNNL_ARG_SCALE, param(1)},
                 {DNNL_ARG_SHIFT, param(2)},
                 {DNNL_ARG_MEAN, batch ? param(3) : nullptr},
                 {DNNL_ARG_VARIANCE, batch ? param(4) : nullptr}},
                p.scratch_md, run.buffer(0));
    run.Wait();
    return Status::Ok();
  }

  NormKind kind_;
  float epsilon_;
};

// ---------------------------------------------------------------------------------------------
// LRN: oneDNN's across-channel local response normalisation, for an odd window: its alpha / size
// scaling is ONNX's, and so is its window when the window is odd (oneDNN's even window has
// (size - 1) / 2 channels on both sides; ONNX's one more after: the reference kernel runs it).
// The spatial dims are flattened: the window runs over channels only.

struct LrnPlan final : Plan {
  dnnl::memory::desc data_md, scratch_md;
  dnnl::primitive lrn;
};

class LrnKernel final : public DnnlKernel {
 public:
  static Result<std::unique_ptr<Kernel>> Make(const KernelRegistry& registry, const NodeDef& def) {
    KILN_RETURN_IF_ERROR(RequireFloat32(def), "");
    if (def.attr_int("size") % 2 == 0) {
      return def.Fail(code::kFeatureUnsupported,
                      "onednn's lrn window differs from onnx's for an even size");
    }
    KILN_ASSIGN_OR_RETURN(auto reference, ReferenceKernel(registry, def));
    auto k = std::unique_ptr<LrnKernel>(new LrnKernel(def, std::move(reference)));
    KILN_RETURN_IF_ERROR(k->PrepareFirstPlan(), "");
    return std::unique_ptr<Kernel>(std::move(k));
  }

 private:
  LrnKernel(const NodeDef& def, std::unique_ptr<Kernel> reference)
      : DnnlKernel(def, std::move(reference)) {}

  // [N, C, spatial]; X of rank 3 or more (the definition's rule), a window of one or more.
  std::optional<Dims> Key(const std::vector<const Dims*>& in) const override {
    if (in.empty() || in[0] == nullptr || in[0]->size() < 3 || def_.attr_int("size") < 1) {
      return std::nullopt;
    }
    const Dims& x = *in[0];
    return Dims{x[0], x[1], kernels::Product(x, 2, x.size())};
  }

  Result<std::shared_ptr<const Plan>> Build(const Dims& key) const override {
    auto plan = std::make_shared<LrnPlan>();
    KILN_RETURN_IF_ERROR(
        Guard(def_,
              [&] {
                plan->data_md = PlainDesc({key[0], key[1], key[2], 1});
                dnnl::lrn_forward::primitive_desc pd(
                    dnnl::lrn_forward::desc(dnnl::prop_kind::forward_inference,
                                            dnnl::algorithm::lrn_across_channels, plan->data_md,
                                            def_.attr_int("size"), def_.attr_float("alpha"),
                                            def_.attr_float("beta"), def_.attr_float("bias")),
                    UserScratchpadAttr(), Engine());
                plan->lrn = dnnl::lrn_forward(pd);
                plan->scratch_md = pd.scratchpad_desc();
              }),
        "");
    return std::shared_ptr<const Plan>(std::move(plan));
  }

  Status Execute(const Plan& base, KernelContext& ctx, DnnlRun& run) const override {
    const auto& p = static_cast<const LrnPlan&>(base);
    KILN_ASSIGN_OR_RETURN(TensorView * y, kernels::BoundOutput(def_, ctx, 0));
    run.Buffers({p.scratch_md.get_size()}, 0);
    run.Execute(p.lrn,
                {{DNNL_ARG_SRC, &run.Memory(0, p.data_md, ctx.input(0)->data)},
                 {DNNL_ARG_DST, &run.Memory(1, p.data_md, y->data)}},
                p.scratch_md, run.buffer(0));
    run.Wait();
    return Status::Ok();
  }
};

// ---------------------------------------------------------------------------------------------
// InstanceNormalization and GroupNormalization.
//
// Both normalise X [N, C, spatial...] over blocks of channels: InstanceNormalization one channel
// per block, GroupNormalization C / num_groups. Pass 1 sums each block in chunks (in parallel,
// in double, around the block's first element so that the variance E[d^2] - E[d]^2 does not
// cancel); pass 2 writes y = (x - mean) * (scale * inv_std) + bias per channel plane. Chunks
// and their order are fixed by the dims, so results do not depend on the threads.

// Sums of d = x[i] - shift and of d * d over [0, n), in double with 16 independent lanes so
// that GCC vectorises the loop.
KILN_CPU_CLONES void ShiftedMoments(const float* KILN_RESTRICT x, int64_t n, float shift,
                                    double* sum, double* sum_sq) {
  constexpr int kLanes = 16;
  double s[kLanes] = {}, q[kLanes] = {};
  const double c = shift;
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (int j = 0; j < kLanes; ++j) {
      const double d = static_cast<double>(x[i + j]) - c;
      s[j] += d;
      q[j] += d * d;
    }
  }
  double ts = 0, tq = 0;
  for (; i < n; ++i) {
    const double d = static_cast<double>(x[i]) - c;
    ts += d;
    tq += d * d;
  }
  for (int j = 0; j < kLanes; ++j) {
    ts += s[j];
    tq += q[j];
  }
  *sum = ts;
  *sum_sq = tq;
}

// y[i] = (x[i] - mean) * mul + add over [0, n); y may be x.
KILN_CPU_CLONES void NormalizeRow(const float* x, float* y, int64_t n, float mean, float mul,
                                  float add) {
  for (int64_t i = 0; i < n; ++i) y[i] = (x[i] - mean) * mul + add;
}

struct ChannelNormPlan final : Plan {
  int64_t n = 0, c = 0, groups = 0, spatial = 0;
};

enum class ChannelNormKind { kInstance, kGroup };

class ChannelNormKernel final : public DnnlKernel {
 public:
  static Result<std::unique_ptr<Kernel>> Make(const KernelRegistry& registry, const NodeDef& def,
                                              ChannelNormKind kind) {
    KILN_RETURN_IF_ERROR(RequireFloat32(def), "");
    KILN_ASSIGN_OR_RETURN(auto reference, ReferenceKernel(registry, def));
    kernels::GroupNormAttrs attrs;
    if (kind == ChannelNormKind::kGroup) {
      attrs = kernels::ReadGroupNormAttrs(def);
    } else {
      attrs.groups = 0;  // one per channel
      attrs.epsilon = def.attr_float("epsilon");
      attrs.per_channel = true;
    }
    auto k = std::unique_ptr<ChannelNormKernel>(
        new ChannelNormKernel(def, std::move(reference), kind, attrs));
    KILN_RETURN_IF_ERROR(k->PrepareFirstPlan(), "");
    return std::unique_ptr<Kernel>(std::move(k));
  }

 private:
  ChannelNormKernel(const NodeDef& def, std::unique_ptr<Kernel> reference, ChannelNormKind kind,
                    kernels::GroupNormAttrs attrs)
      : DnnlKernel(def, std::move(reference)), kind_(kind), attrs_(attrs) {}

  // [N, C, groups, spatial]. The inputs fit (the definition's rules: X is N x C x ..., C splits
  // into the groups, scale and B hold one value per channel, or per group for
  // GroupNormalization before opset 21).
  std::optional<Dims> Key(const std::vector<const Dims*>& in) const override {
    if (in.empty() || in[0] == nullptr) return std::nullopt;
    const Dims& x = *in[0];
    const int64_t c = x[1];
    const int64_t groups = kind_ == ChannelNormKind::kInstance ? c : attrs_.groups;
    if (groups < 1) return std::nullopt;  // no channels: the reference kernel's (nothing to do)
    return Dims{x[0], c, groups, kernels::Product(x, 2, x.size())};
  }

  Result<std::shared_ptr<const Plan>> Build(const Dims& key) const override {
    auto plan = std::make_shared<ChannelNormPlan>();
    plan->n = key[0];
    plan->c = key[1];
    plan->groups = key[2];
    plan->spatial = key[3];
    return std::shared_ptr<const Plan>(std::move(plan));
  }

  Status Execute(const Plan& base, KernelContext& ctx, DnnlRun&) const override {
    // Elements per chunk of pass 1, and the least work one ParallelFor chunk gets.
    constexpr int64_t kChunk = 16384, kGrain = 32768;
    const auto& p = static_cast<const ChannelNormPlan&>(base);
    const TensorView* xt = ctx.input(0);
    KILN_ASSIGN_OR_RETURN(TensorView * yt, kernels::BoundOutput(def_, ctx, 0));
    const float* x = xt->as<const float>();
    const float* scale = ctx.input(1)->as<const float>();
    const float* bias = ctx.input(2)->as<const float>();
    float* y = yt->as<float>();
    const int64_t per_group = p.c / p.groups, len = per_group * p.spatial;
    const int64_t blocks = p.n * p.groups;
    const int64_t chunks = (len + kChunk - 1) / kChunk;
    const int64_t chunk = (len + chunks - 1) / chunks;
    std::vector<double> partial(static_cast<size_t>(2 * blocks * chunks));
    ctx.ParallelFor(blocks * chunks, std::max<int64_t>(1, kGrain / chunk),
                    [&](int64_t begin, int64_t end) {
                      for (int64_t t = begin; t < end; ++t) {
                        const float* xb = x + (t / chunks) * len;
                        const int64_t first = (t % chunks) * chunk;
                        ShiftedMoments(xb + first, std::min(chunk, len - first), xb[0],
                                       &partial[static_cast<size_t>(2 * t)],
                                       &partial[static_cast<size_t>(2 * t + 1)]);
                      }
                    });
    // Per (n, c) plane: the block's mean, scale * inv_std and bias.
    const size_t planes = static_cast<size_t>(p.n * p.c);
    std::vector<float> mean(planes), mul(planes), add(planes);
    const double count = static_cast<double>(len), eps = attrs_.epsilon;
    for (int64_t b = 0; b < blocks; ++b) {
      double s = 0, q = 0;
      for (int64_t k = 0; k < chunks; ++k) {
        s += partial[static_cast<size_t>(2 * (b * chunks + k))];
        q += partial[static_cast<size_t>(2 * (b * chunks + k) + 1)];
      }
      const double m = s / count;
      const double var = std::max(0.0, q / count - m * m);
      const double inv_std = 1.0 / std::sqrt(var + eps);
      const float block_mean = static_cast<float>(static_cast<double>(x[b * len]) + m);
      const int64_t g = b % p.groups;
      for (int64_t ch = 0; ch < per_group; ++ch) {
        const size_t plane = static_cast<size_t>(b * per_group + ch);
        const int64_t k = attrs_.per_channel ? g * per_group + ch : g;
        mean[plane] = block_mean;
        mul[plane] = static_cast<float>(static_cast<double>(scale[k]) * inv_std);
        add[plane] = bias[k];
      }
    }
    const int64_t size = p.spatial;
    ctx.ParallelFor(p.n * p.c * size, kGrain, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end;) {
        const size_t plane = static_cast<size_t>(i / size);
        const int64_t stop = std::min(end, (i / size + 1) * size);
        NormalizeRow(x + i, y + i, stop - i, mean[plane], mul[plane], add[plane]);
        i = stop;
      }
    });
    return Status::Ok();
  }

  ChannelNormKind kind_;
  kernels::GroupNormAttrs attrs_;
};

}  // namespace

void RegisterCpuNnKernels(KernelRegistry& r) {
  const KernelRegistry* reg = &r;
  r.Register(kCpuBackend, "", "Softmax",
             [reg](const NodeDef& def) { return SoftmaxKernel::Make(*reg, def, false); });
  r.Register(kCpuBackend, "", "LogSoftmax",
             [reg](const NodeDef& def) { return SoftmaxKernel::Make(*reg, def, true); });
  r.Register(kCpuBackend, "", "BatchNormalization",
             [reg](const NodeDef& def) { return NormKernel::Make(*reg, def, NormKind::kBatch); });
  r.Register(kCpuBackend, "", "LayerNormalization",
             [reg](const NodeDef& def) { return NormKernel::Make(*reg, def, NormKind::kLayer); });
  r.Register(kCpuBackend, "", "LRN",
             [reg](const NodeDef& def) { return LrnKernel::Make(*reg, def); });
  r.Register(kCpuBackend, "", "InstanceNormalization", [reg](const NodeDef& def) {
    return ChannelNormKernel::Make(*reg, def, ChannelNormKind::kInstance);
  });
  r.Register(kCpuBackend, "", "GroupNormalization", [reg](const NodeDef& def) {
    return ChannelNormKernel::Make(*reg, def, ChannelNormKind::kGroup);
  });
}

}  // namespace kiln::cpu
