// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// oneDNN transposed convolution: ConvTranspose and Kiln's FusedConvTranspose (its activation a
// oneDNN eltwise post-op), float32, 1 to 3 spatial dims, any group, stride, dilation, pads,
// auto_pad, output_padding and output_shape (the window as the op's definition resolves it,
// ir::ResolveWindow), with bias.
//
// oneDNN's deconvolution maps input position i and kernel tap k to output position
// i * stride + k * dilation - padding_l, as ONNX does with pad_begin; its destination size is
// (in - 1) * stride + (k - 1) * dilation + 1 - padding_l - padding_r, so padding_r is whatever
// gives ONNX's output size: output_padding (and an output_shape larger than the full result)
// makes it negative, leaving end positions that receive the bias only. A negative padding_l
// (an output_shape larger than the full result, split so that the begin side gets some) is
// something oneDNN 2.6 declines: such runs go to the reference kernel.
//
// Weights: ONNX's W is [C_in, C_out / group, k...]; oneDNN's deconvolution weights are
// [C_out, C_in, k...], or [group, C_out / group, C_in / group, k...] with groups. The user
// descriptor describes ONNX's bytes with strides in oneDNN's dim order, and a reorder packs them
// into the layout the primitive picks (format_tag::any): once at Prepare for a constant W, on
// every run for a computed one. Activations are reordered in and out of the layout the
// primitive picks, or stay plain (see Create). Depthwise ones are declined (IsDepthwise).
//
// A 2-D one whose kernel equals its stride, without padding, dilation or groups (the 2x2
// stride-2 upsampling of detection and segmentation heads) writes every output pixel from one
// input pixel: it runs as one matmul, C [C_out*kh*kw, H*W] = W^T [C_out*kh*kw, C_in] x X
// [C_in, H*W] per image, and a loop that spreads C's rows into Y with the bias (Patches), then
// applies the activation to the output rows it wrote while they are in L1 (oneDNN 2.6's matmul
// takes a bias per row of C only in its reference kernel, 1.2 s for PP-OCR det's). oneDNN
// 2.6's deconvolution measured 5.3 ms on PP-OCRv4 det's 24-channel 160x160 one (its gemm +
// col2im; the blocked kernels 7 ms), the matmul and spread about 1.
#include <algorithm>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "backends/cpu/kernels/dnnl_common.h"
#include "backends/cpu/kernels/elementwise_internal.h"
#include "backends/cpu/kernels/simd.h"

namespace kiln::cpu {
namespace {

using kernels::ConvAttrs;

struct DeconvPlan final : ReorderedPlan {
  dnnl::deconvolution_forward deconv;
  // The matmul path (kernel == stride, see the file comment): W^T (`weights`, packed row-major
  // once for every plan) and C's shape.
  bool patches = false;
  dnnl::matmul mm;
  dnnl::memory::desc a_md, xm_md, c_md;
  int64_t rows = 0, pixels = 0, kh = 0, kw = 0;
};

// Spreads one input row of C's row for tap kx (`c`, W pixels) into the output row of that tap
// (width W * kw): row[x * kw + kx] = c[x] + bias.
KILN_CPU_CLONES void SpreadTap(const float* KILN_RESTRICT c, float bias, int64_t w, int64_t kw,
                               int64_t kx, float* KILN_RESTRICT row) {
  for (int64_t x = 0; x < w; ++x) row[x * kw + kx] = c[x] + bias;
}

// The common 2x2 case: both taps of a row at once, stores unit-stride.
KILN_CPU_CLONES void SpreadPair(const float* KILN_RESTRICT c0, const float* KILN_RESTRICT c1,
                                float bias, int64_t w, float* KILN_RESTRICT row) {
  for (int64_t x = 0; x < w; ++x) {
    row[2 * x] = c0[x] + bias;
    row[2 * x + 1] = c1[x] + bias;
  }
}

// Output elements per ParallelFor chunk of the spread (about 10 us of one core's copying).
constexpr int64_t kSpreadGrain = 16384;

// The geometry of one run: Y's dims and the window as oneDNN wants it.
struct DeconvShape {
  Dims y;
  Dims stride, dilate, pad_l, pad_r;  // dilate: ONNX's dilation - 1
};

class DeconvKernel final : public DnnlKernel {
 public:
  static Result<std::unique_ptr<Kernel>> Make(const KernelRegistry& registry, const NodeDef& def) {
    KILN_RETURN_IF_ERROR(RequireFloat32(def), "");
    ConvAttrs attrs = kernels::ReadConvAttrs(def);
    const size_t rank = def.input_dims.size() > 1 ? def.input_dims[1].size() : 0;
    if (rank < 3 || rank > 5) {
      return def.Fail(code::kFeatureUnsupported, "W of rank ", rank,
                      ": the onednn transposed convolution takes 1 to 3 spatial dims");
    }
    if (IsDepthwise(def.input_dims[1], attrs.group)) {
      return def.Fail(code::kFeatureUnsupported,
                      "a depthwise transposed convolution: oneDNN's measured slower than the "
                      "reference kernel");
    }
    KILN_ASSIGN_OR_RETURN(ActivationAttrs act, ReadDnnlActivation(def));
    KILN_ASSIGN_OR_RETURN(auto reference, ReferenceKernel(registry, def));
    auto k = std::unique_ptr<DeconvKernel>(
        new DeconvKernel(def, std::move(reference), std::move(attrs), act, def.constant(1)));
    KILN_RETURN_IF_ERROR(k->PrepareFirstPlan(), "");
    return std::unique_ptr<Kernel>(std::move(k));
  }

 private:
  DeconvKernel(const NodeDef& def, std::unique_ptr<Kernel> reference, ConvAttrs attrs,
               ActivationAttrs act, const TensorView* w)
      : DnnlKernel(def, std::move(reference)), attrs_(std::move(attrs)), act_(act) {
    if (w != nullptr) w_const_ = *w;
  }

  // Whether W dims `wd` with `group` make a depthwise transposed convolution (one input and
  // one output channel per group). oneDNN 2.6 runs those with its jit_dw kernel, which measured
  // 0.6-0.9x the speed of the reference kernel (k 4, stride 2, 64 channels): they are left to
  // the reference kernel.
  static bool IsDepthwise(const Dims& wd, int64_t group) {
    return group > 1 && wd.size() >= 2 && wd[0] == group && wd[1] == 1;
  }

  // The geometry for X and W dims `x` and `wd` (which fit: the definition's rules), Y's dims
  // from the window the definition sizes Y with; nullopt for what is left to the reference
  // kernel (more than 3 spatial dims, depthwise, a window oneDNN cannot express, an empty Y).
  std::optional<DeconvShape> Shape(const Dims& x, const Dims& wd) const {
    const int64_t g = attrs_.group;
    if (wd.size() < 3 || wd.size() > 5 || IsDepthwise(wd, g)) return std::nullopt;
    const Dims kernel(wd.begin() + 2, wd.end());
    const Dims in(x.begin() + 2, x.end());
    auto win = ir::ResolveWindow(attrs_.window, in, kernel);
    if (!win.ok()) return std::nullopt;
    const kernels::Window& w = *win;
    DeconvShape s;
    s.y = {x[0], wd[1] * g};
    s.y.insert(s.y.end(), w.out.begin(), w.out.end());
    if (kernels::NumElements(s.y) == 0) return std::nullopt;
    for (size_t i = 0; i < in.size(); ++i) {
      // oneDNN declines a negative padding_l (output_shape past the full result on the begin
      // side): the reference kernel runs those.
      if (w.pad_begin[i] < 0) return std::nullopt;
      s.stride.push_back(w.stride[i]);
      s.dilate.push_back(w.dilation[i] - 1);
      s.pad_l.push_back(w.pad_begin[i]);
      const int64_t full = (in[i] - 1) * w.stride[i] + (kernel[i] - 1) * w.dilation[i] + 1;
      s.pad_r.push_back(full - w.pad_begin[i] - w.out[i]);
    }
    return s;
  }

  // X, W, then whether B is given.
  std::optional<Dims> Key(const std::vector<const Dims*>& in) const override {
    if (in.size() < 2 || in[0] == nullptr || in[1] == nullptr) return std::nullopt;
    const Dims& wd = *in[1];
    if (w_const_.data != nullptr && wd != w_const_.dims) return std::nullopt;
    const Dims* b = in.size() > 2 ? in[2] : nullptr;
    if (!Shape(*in[0], wd)) return std::nullopt;
    Dims key;
    AppendKey(key, in[0]);
    AppendKey(key, in[1]);
    key.push_back(b != nullptr);
    return key;
  }

  Result<std::shared_ptr<const Plan>> Build(const Dims& key) const override {
    auto dims = SplitKey(key, 2);
    const Dims &x = *dims[0], &wd = *dims[1];
    const bool has_b = key.back() != 0;
    auto shape = Shape(x, wd);
    if (!shape) return def_.Fail(code::kFeatureUnsupported, "X does not fit W");
    auto plan = std::make_shared<DeconvPlan>();
    KILN_RETURN_IF_ERROR(Guard(def_, [&] { Create(x, wd, *shape, has_b, *plan); }), "");
    return std::shared_ptr<const Plan>(std::move(plan));
  }

  // ONNX's W [C_in, C_out / g, k...] as oneDNN's [C_out, C_in, k...] (g = 1) or
  // [g, C_out / g, C_in / g, k...]: the same bytes with the two channel dims' strides swapped.
  Dims WeightsView(const Dims& wd, Dims& strides) const {
    const int64_t g = attrs_.group;
    const Dims kernel(wd.begin() + 2, wd.end());
    Dims onnx = {g, wd[0] / g, wd[1]};  // [g, C_in / g, C_out / g, k...]
    onnx.insert(onnx.end(), kernel.begin(), kernel.end());
    const Dims s = kernels::Strides(onnx);
    Dims view = {g, wd[1], wd[0] / g};
    strides = {s[0], s[2], s[1]};
    view.insert(view.end(), kernel.begin(), kernel.end());
    strides.insert(strides.end(), s.begin() + 3, s.end());
    if (g == 1) {  // no group dim
      view.erase(view.begin());
      strides.erase(strides.begin());
    }
    return view;
  }

  // Whether the run is the matmul path's (the file comment).
  bool IsPatches(const Dims& x, const Dims& wd, const DeconvShape& shape) const {
    if (x.size() != 4 || attrs_.group != 1 || w_const_.data == nullptr) return false;
    for (size_t i = 0; i < 2; ++i) {
      if (shape.stride[i] != wd[2 + i] || shape.dilate[i] != 0 || shape.pad_l[i] != 0 ||
          shape.pad_r[i] != 0) {
        return false;
      }
    }
    return true;
  }

  // The primitive attributes: the user scratchpad and the activation (none for ConvTranspose).
  dnnl::primitive_attr Attr() const {
    dnnl::primitive_attr attr = UserScratchpadAttr();
    if (act_.kind != kernels::ActivationKind::kNone) {
      dnnl::post_ops ops;
      AppendActivation(act_, ops);
      attr.set_post_ops(ops);
    }
    return attr;
  }

  void CreatePatches(const Dims& x, const Dims& wd, DeconvPlan& p) const {
    using dnnl::memory;
    using tag = memory::format_tag;
    const auto f32 = memory::data_type::f32;
    const int64_t n = x[0], ci = x[1], co = wd[1];
    p.patches = true;
    p.kh = wd[2];
    p.kw = wd[3];
    p.rows = co * p.kh * p.kw;
    p.pixels = x[2] * x[3];
    // W [C_in, C_out, kh, kw] read as W^T [rows, C_in] (strides 1, rows), packed row-major.
    p.a_md = memory::desc({1, p.rows, ci}, f32, tag::abc);
    const memory::desc w_t({1, p.rows, ci}, f32, memory::dims{p.rows * ci, 1, p.rows});
    p.weights = packed_.Get(w_t, w_const_.data, p.a_md);
    p.xm_md = memory::desc({n, ci, p.pixels}, f32, tag::abc);
    p.c_md = memory::desc({n, p.rows, p.pixels}, f32, tag::abc);
    dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(p.a_md, p.xm_md, p.c_md),
                                    UserScratchpadAttr(), Engine());
    p.scratch_md = pd.scratchpad_desc();
    p.mm = dnnl::matmul(pd);
  }

  void Create(const Dims& x, const Dims& wd, const DeconvShape& shape, bool has_b,
              DeconvPlan& p) const {
    using dnnl::memory;
    using tag = memory::format_tag;
    if (IsPatches(x, wd, shape)) {
      CreatePatches(x, wd, p);
      return;
    }
    Dims w_strides;
    const Dims w_view = WeightsView(wd, w_strides);
    p.x_md = PlainDesc(x);
    p.y_md = PlainDesc(shape.y);
    p.w_user_md = StridedDesc(w_view, w_strides);
    p.b_md = has_b ? PlainDesc({shape.y[1]}) : memory::desc();
    const auto f32 = memory::data_type::f32;
    auto make = [&](bool plain) {
      // bf16 (MatrixInputType) in the blocked kernels only; the plain gemm path stays f32.
      const auto in = plain ? f32 : MatrixInputType(def_);
      const memory::desc w_any(ToDnnl(w_view), in, tag::any);
      const memory::desc src = plain ? p.x_md : memory::desc(ToDnnl(x), in, tag::any);
      const memory::desc dst = plain ? p.y_md : memory::desc(ToDnnl(shape.y), f32, tag::any);
      dnnl::deconvolution_forward::desc desc(
          dnnl::prop_kind::forward_inference, dnnl::algorithm::deconvolution_direct, src, w_any,
          p.b_md, dst, ToDnnl(shape.stride), ToDnnl(shape.dilate), ToDnnl(shape.pad_l),
          ToDnnl(shape.pad_r));
      return dnnl::deconvolution_forward::primitive_desc(desc, Attr(), Engine());
    };
    // Channels per group that fill whole 16-lane blocks: oneDNN's blocked jit kernels. Otherwise
    // plain NCHW (its gemm + col2im): the blocked kernels pad the channels to the block and, with
    // stride 2, measured up to 15x slower for C_out = 1 (PP-OCR det's last upsampling) and about 2x
    // slower for 24 channels.
    const int64_t c_in = wd[0] / attrs_.group, c_out = wd[1];
    const bool blocked = c_in % 16 == 0 && c_out % 16 == 0;
    std::optional<dnnl::deconvolution_forward::primitive_desc> made;
    try {
      made = make(!blocked);
    } catch (const dnnl::error&) {
      made = make(blocked);  // the other layout; a failure here declines these dims
    }
    const dnnl::deconvolution_forward::primitive_desc& pd = *made;
    p.deconv = dnnl::deconvolution_forward(pd);
    p.PlanReorders(pd, w_const_.data, packed_);
  }

  Status ExecutePatches(const DeconvPlan& p, KernelContext& ctx, DnnlRun& run, const TensorView* b,
                        TensorView& y) const {
    const TensorView& x = *ctx.input(0);
    run.Buffers({p.scratch_md.get_size(), p.c_md.get_size()}, 0);
    const float* c = static_cast<const float*>(run.buffer(1));
    run.Execute(p.mm,
                {{DNNL_ARG_SRC, &run.Memory(0, p.a_md, p.weights)},
                 {DNNL_ARG_WEIGHTS, &run.Memory(1, p.xm_md, x.data)},
                 {DNNL_ARG_DST, &run.Memory(2, p.c_md, c)}},
                p.scratch_md, run.buffer(0));
    run.Wait();
    // Spread C into Y by input rows: each (image, output channel, input row) writes kh output
    // rows, then applies the activation to them while they are in L1.
    const int64_t n = x.dims[0], co = y.dims[1], h = x.dims[2], w = x.dims[3];
    const int64_t taps = p.kh * p.kw, plane = p.pixels * taps, ow = w * p.kw;
    const float* bias = b != nullptr ? b->as<const float>() : nullptr;
    float* out = y.as<float>();
    const int64_t grain = std::max<int64_t>(1, kSpreadGrain / (w * taps));
    ctx.ParallelFor(n * co * h, grain, [&](int64_t begin, int64_t end) {
      for (int64_t u = begin; u < end; ++u) {
        const int64_t i = u / h, yy = u % h;  // (image, co) and the input row
        const float bv = bias != nullptr ? bias[i % co] : 0.0f;
        const float* rows = c + i * taps * p.pixels + yy * w;  // C's rows of (image, co): (ky, kx)
        float* to = out + i * plane + yy * p.kh * ow;
        for (int64_t ky = 0; ky < p.kh; ++ky) {
          const float* tap = rows + ky * p.kw * p.pixels;
          if (p.kw == 2) {
            SpreadPair(tap, tap + p.pixels, bv, w, to + ky * ow);
            continue;
          }
          for (int64_t kx = 0; kx < p.kw; ++kx) {
            SpreadTap(tap + kx * p.pixels, bv, w, p.kw, kx, to + ky * ow);
          }
        }
        internal::ApplyActivation(act_, to, p.kh * ow);
      }
    });
    return Status::Ok();
  }

  Status Execute(const Plan& base, KernelContext& ctx, DnnlRun& run) const override {
    const auto& p = static_cast<const DeconvPlan&>(base);
    const TensorView* b = ctx.num_inputs() > 2 ? ctx.input(2) : nullptr;
    KILN_ASSIGN_OR_RETURN(TensorView * y, kernels::BoundOutput(def_, ctx, 0));
    if (p.patches) return ExecutePatches(p, ctx, run, b, *y);
    RunReordered(p, p.deconv, run, *ctx.input(0), *ctx.input(1), b, *y, 0,
                 [](const dnnl::memory&, void*) {});
    return Status::Ok();
  }

  ConvAttrs attrs_;
  ActivationAttrs act_;
  PackedWeights* PackedInput(size_t i) const override {
    return i == 1 && w_const_.data != nullptr ? &packed_ : nullptr;
  }

  TensorView w_const_;  // constant W (valid for the kernel's lifetime), or data == null
  mutable PackedWeights packed_;
};

}  // namespace

void RegisterCpuDeconvKernels(KernelRegistry& r) {
  const KernelRegistry* reg = &r;
  r.Register(kCpuBackend, "", "ConvTranspose",
             [reg](const NodeDef& def) { return DeconvKernel::Make(*reg, def); });
  r.Register(kCpuBackend, "com.kiln", "FusedConvTranspose",
             [reg](const NodeDef& def) { return DeconvKernel::Make(*reg, def); });
}

}  // namespace kiln::cpu
