// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// oneDNN matrix products: MatMul (numpy batch broadcasting), Gemm (transA/transB through
// strides, alpha, beta and C as post-ops) and Kiln's FusedMatMul and FusedGemm (bias and
// activation as post-ops), float32. A constant B (the weights) is reordered once into the
// layout the primitive prefers; a computed B is read where it lies.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "backends/cpu/kernels/dnnl_common.h"

namespace kiln::cpu {
namespace {

enum class ProductKind { kMatMul, kGemm, kFusedMatMul, kFusedGemm };

// The geometry of one product: A, B and the destination as oneDNN sees them (equal ranks, batch
// dims broadcast; the destination has Y's elements), and the third input as a binary post-op
// operand.
struct Geometry {
  Dims a, a_strides, b, b_strides, dst;
  Dims addend;  // C or the bias padded to dst's rank; empty when there is none
};

struct ProductPlan final : Plan {
  dnnl::matmul matmul;
  dnnl::memory::desc a_md, b_md, dst_md, addend_md, scratch_md;
  const void* weights = nullptr;  // constant B in b_md, when B is constant
  int addend_arg = 0;             // the binary post-op's argument id
  // bf16 (MatrixInputType): A as stored (a_md) is converted into src_md before the product.
  bool convert_a = false;
  dnnl::memory::desc src_md;
  dnnl::reorder a_in;
};

class ProductKernel final : public DnnlKernel {
 public:
  static Result<std::unique_ptr<Kernel>> Make(const KernelRegistry& registry, const NodeDef& def,
                                              ProductKind kind) {
    KILN_RETURN_IF_ERROR(RequireFloat32(def), "");
    KILN_ASSIGN_OR_RETURN(auto reference, ReferenceKernel(registry, def));
    ActivationAttrs act;
    if (kind == ProductKind::kFusedMatMul || kind == ProductKind::kFusedGemm) {
      KILN_ASSIGN_OR_RETURN(act, ReadDnnlActivation(def));
    }
    auto k = std::unique_ptr<ProductKernel>(
        new ProductKernel(def, std::move(reference), kind, act, def.constant(1)));
    KILN_RETURN_IF_ERROR(k->PrepareFirstPlan(), "");
    return std::unique_ptr<Kernel>(std::move(k));
  }

 private:
  ProductKernel(const NodeDef& def, std::unique_ptr<Kernel> reference, ProductKind kind,
                ActivationAttrs act, const TensorView* b_const)
      : DnnlKernel(def, std::move(reference)),
        kind_(kind),
        act_(act),
        gemm_(kind == ProductKind::kGemm || kind == ProductKind::kFusedGemm) {
    if (gemm_) {
      trans_a_ = def.attr_int("transA") != 0;
      trans_b_ = def.attr_int("transB") != 0;
      alpha_ = def.attr_float("alpha");
      beta_ = def.attr_float("beta");
    }
    if (b_const != nullptr) b_const_ = *b_const;
  }

  // The product's geometry for these input dims, which fit (the definition's rules); nullopt for
  // a form oneDNN's matmul and post-ops do not take here.
  std::optional<Geometry> Shape(const Dims& ad, const Dims& bd, const Dims* cd) const {
    Geometry g;
    if (gemm_) {
      const int64_t m = ad[trans_a_ ? 1 : 0], k = ad[trans_a_ ? 0 : 1];
      const int64_t n = bd[trans_b_ ? 0 : 1];
      g.a = {m, k};
      g.a_strides = trans_a_ ? Dims{1, m} : Dims{k, 1};
      g.b = {k, n};
      g.b_strides = trans_b_ ? Dims{1, k} : Dims{n, 1};
      g.dst = {m, n};
      if (cd != nullptr && beta_ != 0.0f) {  // C broadcasts to [M, N]
        g.addend = *cd;
        while (g.addend.size() < 2) g.addend.insert(g.addend.begin(), 1);
      }
      return g;
    }
    Dims a = ad, b = bd;
    if (a.size() == 1) a.insert(a.begin(), 1);
    if (b.size() == 1) b.push_back(1);
    const size_t rank = std::max(a.size(), b.size());
    if (rank > DNNL_MAX_NDIMS) return std::nullopt;
    a.insert(a.begin(), rank - a.size(), 1);
    b.insert(b.begin(), rank - b.size(), 1);
    const int64_t m = a[rank - 2], n = b[rank - 1];
    g.dst.assign(rank, 0);
    for (size_t i = 0; i + 2 < rank; ++i) g.dst[i] = std::max(a[i], b[i]);  // they broadcast
    g.dst[rank - 2] = m;
    g.dst[rank - 1] = n;
    g.a_strides = kernels::Strides(a);
    g.b_strides = kernels::Strides(b);
    g.a = std::move(a);
    g.b = std::move(b);
    if (cd != nullptr) {  // FusedMatMul's bias: 1-D, one value or one per output column
      // With a 1-D B the output's last dim is M, not N: the reference kernel takes that.
      if (bd.size() == 1 && (*cd)[0] != 1) return std::nullopt;
      g.addend.assign(rank, 1);
      g.addend[rank - 1] = (*cd)[0];
    }
    return g;
  }

  std::optional<Dims> Key(const std::vector<const Dims*>& in) const override {
    if (in.size() < 2 || in[0] == nullptr || in[1] == nullptr) return std::nullopt;
    if (b_const_.data != nullptr && *in[1] != b_const_.dims) return std::nullopt;
    const Dims* c = in.size() > 2 ? in[2] : nullptr;
    if (kind_ == ProductKind::kMatMul) c = nullptr;
    if (!Shape(*in[0], *in[1], c)) return std::nullopt;
    Dims key;
    AppendKey(key, in[0]);
    AppendKey(key, in[1]);
    AppendKey(key, c);
    return key;
  }

  Result<std::shared_ptr<const Plan>> Build(const Dims& key) const override {
    auto dims = SplitKey(key, 3);
    auto g = Shape(*dims[0], *dims[1], dims[2] ? &*dims[2] : nullptr);
    if (!g) return def_.Fail(code::kFeatureUnsupported, "no onednn geometry");
    auto plan = std::make_shared<ProductPlan>();
    KILN_RETURN_IF_ERROR(Guard(def_, [&] { Create(*g, *plan); }), "");
    return std::shared_ptr<const Plan>(std::move(plan));
  }

  void Create(const Geometry& g, ProductPlan& p) const {
    using dnnl::algorithm;
    p.a_md = StridedDesc(g.a, g.a_strides);
    const dnnl::memory::desc b_user = StridedDesc(g.b, g.b_strides);
    p.dst_md = PlainDesc(g.dst);
    const bool has_addend = !g.addend.empty();
    if (has_addend) p.addend_md = PlainDesc(g.addend);
    dnnl::primitive_attr attr = UserScratchpadAttr();
    dnnl::post_ops ops;
    float scale = 1.0f;  // applied after the addend, with the activation
    if (gemm_) {
      // alpha * AB + beta * C = beta * (alpha / beta * AB + C); without C, alpha * AB.
      const float out_scale = has_addend ? alpha_ / beta_ : alpha_;
      if (out_scale != 1.0f) attr.set_output_scales(0, {out_scale});
      if (has_addend) scale = beta_;
    }
    if (has_addend) {
      p.addend_arg = DNNL_ARG_ATTR_MULTIPLE_POST_OP(ops.len()) | DNNL_ARG_SRC_1;
      ops.append_binary(algorithm::binary_add, p.addend_md);
    }
    AppendActivation(act_, ops, scale);
    attr.set_post_ops(ops);
    // bf16 takes both factors in bf16: only a product with constant weights (B packed once)
    // does, its A converted per run; one with two computed factors (attention) stays f32.
    const auto in = b_const_.data != nullptr ? MatrixInputType(def_) : dnnl::memory::data_type::f32;
    p.convert_a = in != dnnl::memory::data_type::f32;
    if (p.convert_a) {
      Dims row_major(g.a.size(), 1);
      for (size_t i = g.a.size(); i-- > 1;) row_major[i - 1] = row_major[i] * g.a[i];
      p.src_md = dnnl::memory::desc(ToDnnl(g.a), in, ToDnnl(row_major));
    } else {
      p.src_md = p.a_md;
    }
    auto create = [&](const dnnl::memory::desc& b_md) {
      dnnl::matmul::desc desc(p.src_md, b_md, p.dst_md);
      return dnnl::matmul::primitive_desc(desc, attr, Engine());
    };
    dnnl::matmul::primitive_desc pd;
    if (b_const_.data != nullptr) {
      // Constant weights: let oneDNN choose their layout, pack them once.
      try {
        pd = create(dnnl::memory::desc(ToDnnl(g.b), in, dnnl::memory::format_tag::any));
      } catch (const dnnl::error&) {
        if (p.convert_a) throw;  // bf16 declined: these dims run on the reference kernel
        pd = create(b_user);
      }
      p.b_md = pd.weights_desc();
      p.weights = packed_.Get(b_user, b_const_.data, p.b_md);
    } else {
      pd = create(b_user);
      p.b_md = b_user;
    }
    p.matmul = dnnl::matmul(pd);
    p.scratch_md = pd.scratchpad_desc();
    if (p.convert_a) p.a_in = MakeReorder(p.a_md, p.src_md, p.scratch_md);
  }

  Status Execute(const Plan& base, KernelContext& ctx, DnnlRun& run) const override {
    const auto& p = static_cast<const ProductPlan&>(base);
    KILN_ASSIGN_OR_RETURN(TensorView * y, kernels::BoundOutput(def_, ctx, 0));
    run.Buffers({p.scratch_md.get_size(), p.convert_a ? p.src_md.get_size() : 0});
    const void* b = p.weights != nullptr ? p.weights : ctx.input(1)->data;
    const dnnl::memory* addend =
        p.addend_arg != 0 ? &run.Memory(3, p.addend_md, ctx.input(2)->data) : nullptr;
    const dnnl::memory* src = &run.Memory(0, p.a_md, ctx.input(0)->data);
    if (p.convert_a) {
      const dnnl::memory& a = *src;
      src = &run.Memory(4, p.src_md, run.buffer(1));
      run.Execute(p.a_in, {{DNNL_ARG_FROM, &a}, {DNNL_ARG_TO, src}}, p.scratch_md, run.buffer(0));
    }
    run.Execute(p.matmul,
                {{DNNL_ARG_SRC, src},
                 {DNNL_ARG_WEIGHTS, &run.Memory(1, p.b_md, b)},
                 {DNNL_ARG_DST, &run.Memory(2, p.dst_md, y->data)},
                 {p.addend_arg, addend}},
                p.scratch_md, run.buffer(0));
    run.Wait();
    return Status::Ok();
  }

  ProductKind kind_;
  ActivationAttrs act_;
  bool gemm_;
  bool trans_a_ = false, trans_b_ = false;
  float alpha_ = 1.0f, beta_ = 1.0f;
  TensorView b_const_;  // the constant B, or data == null
  mutable PackedWeights packed_;
};

}  // namespace

void RegisterCpuMatMulKernels(KernelRegistry& r) {
  const KernelRegistry* reg = &r;
  auto product = [reg](ProductKind kind) -> KernelFactory {
    return [reg, kind](const NodeDef& def) { return ProductKernel::Make(*reg, def, kind); };
  };
  r.Register(kCpuBackend, "", "MatMul", product(ProductKind::kMatMul));
  r.Register(kCpuBackend, "", "Gemm", product(ProductKind::kGemm));
  r.Register(kCpuBackend, kKilnDomain, "FusedMatMul", product(ProductKind::kFusedMatMul));
  r.Register(kCpuBackend, kKilnDomain, "FusedGemm", product(ProductKind::kFusedGemm));
}

}  // namespace kiln::cpu
