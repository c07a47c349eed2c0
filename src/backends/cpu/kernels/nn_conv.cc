// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// oneDNN convolutions and pools: Conv and Kiln's FusedConv (bias, residual and activation as
// post-ops), MaxPool and AveragePool, float32, 1 to 3 spatial dims. (The global pools are
// reductions: reduce.cc.)
//
// Layouts: activations arrive and leave in plain NCHW (ONNX). A convolution lets oneDNN pick its
// source, weights and destination layouts (format_tag::any): constant weights are reordered
// once per layout (PackedWeights), computed weights on every run, and the source into and the
// destination out of the blocked layout on every run. On AVX-512 that (brgconv with two reorders)
// measured 2-6x faster than the plain NCHW convolution oneDNN otherwise runs (gemm over im2col) for
// ResNet-50 layer shapes. Pools run on plain NCHW as it is (oneDNN's pools take it).
//
// A FusedConv marked by the channels_last pass (kiln_x_nhwc / kiln_y_nhwc / kiln_z_nhwc, see
// src/compiler/passes/README.md) has those tensors stored NHWC (`acdb`; dims still N, C, H, W):
// their memory descriptors say so, and when oneDNN picks NHWC for the convolution (it usually
// does) no reorder runs for them.
#include <algorithm>
#include <cstring>
#include <optional>
#include <utility>
#include <vector>

#include "backends/cpu/kernels/dnnl_common.h"
#include "kernels/reference/nn_conv.h"

namespace kiln::cpu {
namespace {

using kernels::ConvAttrs;
using kernels::WindowAttrs;

// A window sized to one input as oneDNN wants it: ONNX's (ir::ResolveWindow, as the op's
// definition and the reference kernel have it), with the pad after grown under ceil_mode to
// reach the last, partial window; nullopt when the window does not fit the input (a node the
// definition refuses, never seen here).
struct DnnlWindow {
  kernels::Window w;
  bool ceil_extra = false;  // ceil_mode padded beyond the explicit pads
};

std::optional<DnnlWindow> ResolveDnnlWindow(const WindowAttrs& a, const Dims& in,
                                            const Dims& kernel) {
  auto r = ir::ResolveWindow(a, in, kernel);
  if (!r.ok()) return std::nullopt;
  DnnlWindow d{std::move(r).value()};
  kernels::Window& w = d.w;
  for (size_t i = 0; i < w.rank; ++i) {
    // oneDNN checks out == (in + pad_l + pad_r - extent) / s + 1: a partial last window needs
    // the pad after to reach it.
    const int64_t extent = w.dilation[i] * (kernel[i] - 1) + 1;
    const int64_t needed = (w.out[i] - 1) * w.stride[i] + extent - in[i] - w.pad_begin[i];
    if (needed > w.pad_end[i]) {
      w.pad_end[i] = needed;
      d.ceil_extra = true;
    }
  }
  return d;
}

dnnl::memory::dims Minus1(const Dims& d) {
  dnnl::memory::dims out;
  for (int64_t v : d) out.push_back(v - 1);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Conv and FusedConv.

struct ConvPlan final : ReorderedPlan {
  dnnl::convolution_forward conv;
  // The residual as stored (plain NCHW, or NHWC where the node is marked), and its reorder into
  // the primitive's dst when the layouts differ. x_md and y_md are also NHWC where marked.
  dnnl::memory::desc z_md;
  bool reorder_z = false;
  dnnl::reorder z_in;
};

class ConvKernel final : public DnnlKernel {
 public:
  static Result<std::unique_ptr<Kernel>> Make(const KernelRegistry& registry, const NodeDef& def) {
    KILN_RETURN_IF_ERROR(RequireFloat32(def), "");
    ActivationAttrs act;
    if (def.domain == kKilnDomain) {
      KILN_ASSIGN_OR_RETURN(act, ReadDnnlActivation(def));
    }
    const size_t rank = def.input_dims.size() > 1 ? def.input_dims[1].size() : 0;
    if (rank < 3 || rank > 5) {
      return def.Fail(code::kFeatureUnsupported, "W of rank ", rank,
                      ": the onednn convolution takes 1 to 3 spatial dims");
    }
    // A FusedConv's layout flags come with a 2-D convolution (its definition's rule).
    const kernels::ConvLayout layout = kernels::ReadConvLayout(def);
    KILN_ASSIGN_OR_RETURN(auto reference, ReferenceKernel(registry, def));
    auto k = std::unique_ptr<ConvKernel>(new ConvKernel(
        def, std::move(reference), kernels::ReadConvAttrs(def), act, layout, def.constant(1)));
    KILN_RETURN_IF_ERROR(k->PrepareFirstPlan(), "");
    return std::unique_ptr<Kernel>(std::move(k));
  }

 private:
  ConvKernel(const NodeDef& def, std::unique_ptr<Kernel> reference, ConvAttrs attrs,
             ActivationAttrs act, kernels::ConvLayout layout, const TensorView* w)
      : DnnlKernel(def, std::move(reference)),
        attrs_(std::move(attrs)),
        act_(act),
        layout_(layout) {
    if (w != nullptr) w_const_ = *w;
  }

  // The destination's dims (Y's, from the window the definition sizes Y with) and the window
  // for X and W dims `x` and `wd` (which fit: the definition's rules); nullopt for what oneDNN
  // does not take here (more than 3 spatial dims, an empty Y).
  std::optional<std::pair<Dims, kernels::Window>> Shape(const Dims& x, const Dims& wd) const {
    if (wd.size() < 3 || wd.size() > 5) return std::nullopt;
    const Dims kernel(wd.begin() + 2, wd.end());
    auto w = ResolveDnnlWindow(attrs_.window, Dims(x.begin() + 2, x.end()), kernel);
    if (!w) return std::nullopt;
    Dims y = {x[0], wd[0]};
    y.insert(y.end(), w->w.out.begin(), w->w.out.end());
    if (kernels::NumElements(y) == 0) return std::nullopt;
    return std::make_pair(std::move(y), std::move(w->w));
  }

  // X, W, then whether B and the residual Z are given.
  std::optional<Dims> Key(const std::vector<const Dims*>& in) const override {
    if (in.size() < 2 || in[0] == nullptr || in[1] == nullptr) return std::nullopt;
    const Dims& wd = *in[1];
    if (w_const_.data != nullptr && wd != w_const_.dims) return std::nullopt;
    const Dims* b = in.size() > 2 ? in[2] : nullptr;
    auto shape = Shape(*in[0], wd);
    if (!shape) return std::nullopt;
    // A residual that broadcasts runs on the reference kernel: the sum post-op wants it whole.
    // The layout is fixed per node, so it need not be part of the key.
    const Dims* z = in.size() > 3 ? in[3] : nullptr;
    if (z && *z != shape->first) return std::nullopt;
    Dims key;
    AppendKey(key, in[0]);
    AppendKey(key, in[1]);
    key.push_back(b != nullptr);
    key.push_back(z != nullptr);
    return key;
  }

  Result<std::shared_ptr<const Plan>> Build(const Dims& key) const override {
    auto dims = SplitKey(key, 2);
    const Dims &x = *dims[0], &wd = *dims[1];
    const bool has_b = key[key.size() - 2] != 0, has_z = key.back() != 0;
    auto shape = Shape(x, wd);
    if (!shape) return def_.Fail(code::kFeatureUnsupported, "X does not fit W");
    const auto& [y, win] = *shape;
    auto plan = std::make_shared<ConvPlan>();
    KILN_RETURN_IF_ERROR(Guard(def_, [&] { Create(x, wd, y, win, has_b, has_z, *plan); }), "");
    return std::shared_ptr<const Plan>(std::move(plan));
  }

  void Create(const Dims& x, const Dims& w_dims, const Dims& y, const kernels::Window& win,
              bool has_b, bool has_z, ConvPlan& p) const {
    using dnnl::memory;
    using tag = memory::format_tag;
    const int64_t g = attrs_.group;
    Dims wd = w_dims;
    if (g > 1) {  // [g, O/g, C/g, k...]: the same bytes as ONNX's [O, C/g, k...]
      wd[0] /= g;
      wd.insert(wd.begin(), g);
    }
    auto stored = [](const Dims& d, bool nhwc) {
      return nhwc ? memory::desc(ToDnnl(d), memory::data_type::f32, tag::nhwc) : PlainDesc(d);
    };
    p.x_md = stored(x, layout_.x);
    p.y_md = stored(y, layout_.y);
    p.z_md = stored(y, layout_.z);
    p.w_user_md = PlainDesc(wd);
    p.b_md = has_b ? PlainDesc({w_dims[0]}) : memory::desc();
    const auto f32 = memory::data_type::f32, in = MatrixInputType(def_);
    const memory::desc src_any(ToDnnl(x), in, tag::any), dst_any(ToDnnl(y), f32, tag::any);
    const memory::desc w_any(ToDnnl(wd), in, tag::any);
    dnnl::convolution_forward::desc desc(dnnl::prop_kind::forward_inference,
                                         dnnl::algorithm::convolution_direct, src_any, w_any,
                                         p.b_md, dst_any, ToDnnl(win.stride), Minus1(win.dilation),
                                         ToDnnl(win.pad_begin), ToDnnl(win.pad_end));
    dnnl::primitive_attr attr = UserScratchpadAttr();
    dnnl::post_ops ops;
    if (has_z) ops.append_sum(1.f);
    AppendActivation(act_, ops);
    attr.set_post_ops(ops);
    dnnl::convolution_forward::primitive_desc pd(desc, attr, Engine());
    p.conv = dnnl::convolution_forward(pd);
    p.PlanReorders(pd, w_const_.data, packed_);
    p.reorder_z = has_z && p.z_md != p.dst_md;
    if (p.reorder_z) p.z_in = MakeReorder(p.z_md, p.dst_md, p.scratch_md);
  }

  Status Execute(const Plan& base, KernelContext& ctx, DnnlRun& run) const override {
    const auto& p = static_cast<const ConvPlan&>(base);
    const TensorView* x = ctx.input(0);
    const TensorView* b = ctx.num_inputs() > 2 ? ctx.input(2) : nullptr;
    const TensorView* z = ctx.num_inputs() > 3 ? ctx.input(3) : nullptr;
    KILN_ASSIGN_OR_RETURN(TensorView * y, kernels::BoundOutput(def_, ctx, 0));
    // The residual is reordered straight into dst, except when dst is Y itself and Z shares
    // Y's buffer in another layout: then through a buffer of its own (buffer 4).
    const bool z_via_buffer = z != nullptr && p.reorder_z && !p.reorder_dst && z->data == y->data;
    auto residual = [&](const dnnl::memory& dst, void* scratch) {
      if (z == nullptr) return;  // the sum post-op adds what dst holds
      if (z_via_buffer) {
        run.Execute(p.z_in,
                    {{DNNL_ARG_FROM, &run.Memory(6, p.z_md, z->data)},
                     {DNNL_ARG_TO, &run.Memory(7, p.dst_md, run.buffer(4))}},
                    p.scratch_md, scratch);
        run.Wait();
        std::memcpy(y->data, run.buffer(4), p.dst_md.get_size());
      } else if (p.reorder_z) {
        run.Execute(p.z_in, {{DNNL_ARG_FROM, &run.Memory(6, p.z_md, z->data)}, {DNNL_ARG_TO, &dst}},
                    p.scratch_md, scratch);
      } else if (z->data != dst.get_data_handle()) {
        std::memcpy(dst.get_data_handle(), z->data, p.dst_md.get_size());
      }
    };
    RunReordered(p, p.conv, run, *x, *ctx.input(1), b, *y, z_via_buffer ? p.dst_md.get_size() : 0,
                 residual);
    return Status::Ok();
  }

  ConvAttrs attrs_;
  ActivationAttrs act_;
  kernels::ConvLayout layout_;
  TensorView w_const_;  // constant W (valid for the kernel's lifetime), or data == null
  mutable PackedWeights packed_;
};

// ---------------------------------------------------------------------------------------------
// Pools.

enum class PoolKind { kMax, kAverage };

struct PoolPlan final : Plan {
  dnnl::memory::desc x_md, y_md, scratch_md;
  dnnl::pooling_forward pool;
};

class PoolKernel final : public DnnlKernel {
 public:
  static Result<std::unique_ptr<Kernel>> Make(const KernelRegistry& registry, const NodeDef& def,
                                              PoolKind kind) {
    if (kind == PoolKind::kMax && def.output_used(1)) {
      return def.Fail(code::kFeatureUnsupported,
                      "the onednn max pool does not write the Indices output");
    }
    KILN_RETURN_IF_ERROR(RequireFloat32(def), "");
    KILN_ASSIGN_OR_RETURN(auto reference, ReferenceKernel(registry, def));
    KILN_ASSIGN_OR_RETURN(kernels::PoolAttrs a,
                          ReadAttrs(def, kind == PoolKind::kMax ? kernels::PoolKind::kMax
                                                                : kernels::PoolKind::kAverage));
    auto k = std::unique_ptr<PoolKernel>(
        new PoolKernel(def, std::move(reference), kind, std::move(a.window), a.count_include_pad));
    KILN_RETURN_IF_ERROR(k->PrepareFirstPlan(), "");
    return std::unique_ptr<Kernel>(std::move(k));
  }

 private:
  PoolKernel(const NodeDef& def, std::unique_ptr<Kernel> reference, PoolKind kind,
             WindowAttrs window, bool include_pad)
      : DnnlKernel(def, std::move(reference)),
        kind_(kind),
        window_(std::move(window)),
        include_pad_(include_pad) {}

  // The pool's attributes (kernels/attrs.h), declining what oneDNN's pooling cannot express
  // (dilations, more than 3 spatial dims). Malformed attributes never get here: the op's
  // definition rejects them.
  static Result<kernels::PoolAttrs> ReadAttrs(const NodeDef& def, kernels::PoolKind kind) {
    kernels::PoolAttrs a = kernels::ReadPoolAttrs(def, kind);
    for (int64_t d : a.window.dilations) {
      if (d != 1) {
        return def.Fail(code::kFeatureUnsupported, "the onednn pool takes no dilations; got ",
                        kernels::DimsString(a.window.dilations));
      }
    }
    if (a.window.kernel_shape.size() > 3) {
      return def.Fail(code::kFeatureUnsupported, "kernel_shape ",
                      kernels::DimsString(a.window.kernel_shape),
                      ": the onednn pool takes 1 to 3 spatial dims");
    }
    return a;
  }

  std::optional<std::pair<Dims, kernels::Window>> Shape(const Dims& x) const {
    if (x.size() < 3 || x.size() > 5) return std::nullopt;
    const Dims in(x.begin() + 2, x.end());
    auto r = ResolveDnnlWindow(window_, in, window_.kernel_shape);
    if (!r) return std::nullopt;
    // A window wholly in the padding has no value in oneDNN's max pool; count_include_pad
    // counts ONNX's explicit pads only, not the ceil_mode extension.
    if (include_pad_ && r->ceil_extra) return std::nullopt;
    kernels::Window w = std::move(r->w);
    for (size_t i = 0; i < in.size(); ++i) {
      if (w.pad_begin[i] >= window_.kernel_shape[i] || w.pad_end[i] >= window_.kernel_shape[i]) {
        return std::nullopt;
      }
    }
    Dims y = {x[0], x[1]};
    y.insert(y.end(), w.out.begin(), w.out.end());
    return std::make_pair(std::move(y), std::move(w));
  }

  std::optional<Dims> Key(const std::vector<const Dims*>& in) const override {
    if (in.empty() || in[0] == nullptr || !Shape(*in[0])) return std::nullopt;
    return *in[0];
  }

  Result<std::shared_ptr<const Plan>> Build(const Dims& x) const override {
    auto shape = Shape(x);
    if (!shape) return def_.Fail(code::kFeatureUnsupported, "no onednn window");
    const auto& [y, win] = *shape;
    auto plan = std::make_shared<PoolPlan>();
    plan->x_md = PlainDesc(x);
    plan->y_md = PlainDesc(y);
    const Dims& kernel = window_.kernel_shape;
    dnnl::algorithm alg = dnnl::algorithm::pooling_max;
    if (kind_ == PoolKind::kAverage) {
      alg = include_pad_ ? dnnl::algorithm::pooling_avg_include_padding
                         : dnnl::algorithm::pooling_avg_exclude_padding;
    }
    KILN_RETURN_IF_ERROR(
        Guard(def_,
              [&] {
                dnnl::pooling_forward::desc desc(
                    dnnl::prop_kind::forward_inference, alg, plan->x_md, plan->y_md,
                    ToDnnl(win.stride), ToDnnl(kernel), ToDnnl(win.pad_begin), ToDnnl(win.pad_end));
                dnnl::pooling_forward::primitive_desc pd(desc, UserScratchpadAttr(), Engine());
                plan->pool = dnnl::pooling_forward(pd);
                plan->scratch_md = pd.scratchpad_desc();
              }),
        "");
    return std::shared_ptr<const Plan>(std::move(plan));
  }

  Status Execute(const Plan& base, KernelContext& ctx, DnnlRun& run) const override {
    const auto& p = static_cast<const PoolPlan&>(base);
    KILN_ASSIGN_OR_RETURN(TensorView * y, kernels::BoundOutput(def_, ctx, 0));
    run.Buffers({p.scratch_md.get_size()});
    run.Execute(p.pool,
                {{DNNL_ARG_SRC, &run.Memory(0, p.x_md, ctx.input(0)->data)},
                 {DNNL_ARG_DST, &run.Memory(1, p.y_md, y->data)}},
                p.scratch_md, run.buffer(0));
    run.Wait();
    return Status::Ok();
  }

  PoolKind kind_;
  WindowAttrs window_;
  bool include_pad_;
};

}  // namespace

void RegisterCpuConvKernels(KernelRegistry& r) {
  const KernelRegistry* reg = &r;
  auto conv = [reg](const NodeDef& def) { return ConvKernel::Make(*reg, def); };
  r.Register(kCpuBackend, "", "Conv", conv);
  r.Register(kCpuBackend, kKilnDomain, "FusedConv", conv);
  auto pool = [reg](PoolKind kind) -> KernelFactory {
    return [reg, kind](const NodeDef& def) { return PoolKernel::Make(*reg, def, kind); };
  };
  r.Register(kCpuBackend, "", "MaxPool", pool(PoolKind::kMax));
  r.Register(kCpuBackend, "", "AveragePool", pool(PoolKind::kAverage));
}

}  // namespace kiln::cpu
