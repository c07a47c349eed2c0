// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// oneDNN softmax and normalisations, float32: Softmax and LogSoftmax (every opset: the input
// is viewed as [outer, n, inner] around the axis, or [outer, n] when flattened as before opset
// 13), BatchNormalization in inference mode (the input viewed as [N, C, spatial, 1]) and
// LayerNormalization (viewed as [rows, normalised]; scale and bias per normalised element).
#include <algorithm>
#include <utility>
#include <vector>

#include "backends/cpu/kernels/dnnl_common.h"

namespace kiln::cpu {
namespace {

// ---------------------------------------------------------------------------------------------
// Softmax and LogSoftmax.

struct SoftmaxPlan final : Plan {
  dnnl::memory::desc md, scratch_md;
  dnnl::primitive softmax;
};

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
    auto axis = kernels::NormalizeAxis(def_.attr_int("axis", flatten ? 1 : -1),
                                       static_cast<int64_t>(x.size()));
    if (!axis) return std::nullopt;
    const size_t a = static_cast<size_t>(*axis);
    const int64_t outer = kernels::Product(x, 0, a);
    if (flatten) return Dims{outer, kernels::Product(x, a, x.size()), 1};
    return Dims{outer, x[a], kernels::Product(x, a + 1, x.size())};
  }

  Result<std::shared_ptr<const Plan>> Build(const Dims& key) const override {
    auto plan = std::make_shared<SoftmaxPlan>();
    // The axis last when it is: oneDNN's jit softmax takes that, its reference the rest.
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

  Status Execute(const Plan& base, KernelContext& ctx) const override {
    const auto& p = static_cast<const SoftmaxPlan&>(base);
    const TensorView* x = ctx.input(0);
    KILN_ASSIGN_OR_RETURN(TensorView * y, ctx.Output(0, x->dims));
    CallBuffers buf({p.scratch_md.get_size()});
    StreamRun run;
    run.Execute(p.softmax,
                {{DNNL_ARG_SRC, Wrap(p.md, x->data)}, {DNNL_ARG_DST, Wrap(p.md, y->data)}},
                p.scratch_md, buf[0]);
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
      if (def.opset >= 14 && def.attr_int("training_mode", 0) != 0) {
        return def.Fail(code::kFeatureUnsupported,
                        "the onednn batch normalisation runs inference only (training_mode=1)");
      }
      for (size_t i = 1; i < def.num_outputs(); ++i) {
        if (def.output_types[i] != DataType::kUndefined) {
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
      : DnnlKernel(def, std::move(reference)),
        kind_(kind),
        epsilon_(def.attr_float("epsilon", 1e-5f)) {}

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

  // Batch: [N, C, spatial]; layer: [rows, normalised] plus whether B is given.
  std::optional<Dims> Key(const std::vector<const Dims*>& in) const override {
    if (in.empty() || in[0] == nullptr) return std::nullopt;
    const Dims& x = *in[0];
    if (kind_ == NormKind::kBatch) {
      if (x.size() < 2 || in.size() < 5) return std::nullopt;
      for (size_t i = 1; i < 5; ++i) {
        if (in[i] == nullptr || in[i]->size() != 1 || (*in[i])[0] != x[1]) return std::nullopt;
      }
      return Dims{x[0], x[1], kernels::Product(x, 2, x.size())};
    }
    auto axis = kernels::NormalizeAxis(def_.attr_int("axis", -1), static_cast<int64_t>(x.size()));
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

  Status Execute(const Plan& base, KernelContext& ctx) const override {
    const auto& p = static_cast<const NormPlan&>(base);
    const TensorView* x = ctx.input(0);
    KILN_ASSIGN_OR_RETURN(TensorView * y, ctx.Output(0, x->dims));
    auto param = [&](size_t i) { return Wrap(p.param_md, ctx.input(i)->data); };
    std::unordered_map<int, dnnl::memory> args = {{DNNL_ARG_SRC, Wrap(p.data_md, x->data)},
                                                  {DNNL_ARG_DST, Wrap(p.data_md, y->data)},
                                                  {DNNL_ARG_SCALE, param(1)}};
    if (kind_ == NormKind::kBatch) {
      args.emplace(DNNL_ARG_SHIFT, param(2));
      args.emplace(DNNL_ARG_MEAN, param(3));
      args.emplace(DNNL_ARG_VARIANCE, param(4));
    } else if (ctx.num_inputs() > 2 && ctx.input(2) != nullptr) {
      args.emplace(DNNL_ARG_SHIFT, param(2));
    }
    CallBuffers buf({p.scratch_md.get_size()});
    StreamRun run;
    run.Execute(p.norm, std::move(args), p.scratch_md, buf[0]);
    run.Wait();
    return Status::Ok();
  }

  NormKind kind_;
  float epsilon_;
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
}

}  // namespace kiln::cpu
