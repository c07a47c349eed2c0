// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// oneDNN matrix products: MatMul (numpy batch broadcasting), Gemm (transA/transB through
// strides, alpha, beta and C as post-ops) and Kiln's FusedMatMul and FusedGemm (bias and
// activation as post-ops), float32; QLinearMatMul with constant int8 weights (uint8/int8 A,
// oneDNN's u8/s8 x s8 matmul: output scales a_scale * b_scale / y_scale per tensor or per
// column, A's and Y's zero points as attributes; B's zero points must be 0); and MatMulInteger
// (int8 B with zero points 0, A's one zero point given at run time: what onnxruntime's dynamic
// quantization writes after DynamicQuantizeLinear) into int32. Kiln's FusedQLinearMatMul adds its
// int32 bias to the integer sum (oneDNN's s32 bias, before the output scales). A constant B (the
// weights) is reordered once into the layout the primitive prefers; a computed B is read where
// it lies.
#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "backends/cpu/kernels/dnnl_common.h"

namespace kiln::cpu {
namespace {

enum class ProductKind { kMatMul, kGemm, kFusedMatMul, kFusedGemm, kQLinearMatMul, kMatMulInteger };

// A QLinearMatMul's constants, as oneDNN's int8 matmul takes them.
struct QuantProduct {
  dnnl::memory::data_type a_dt, y_dt;
  std::vector<float> scales;  // a_scale * b_scale[n] / y_scale: one, or one per column
  int32_t a_zp = 0, y_zp = 0;
};

// What the int8 kernel takes of a MatMulInteger: int8 B (constant or computed) whose zero point,
// when given, is a constant 0; A's zero point one value (read at run time: DynamicQuantizeLinear
// computes it). Returns A's and Y's types as a QuantProduct without scales.
Result<QuantProduct> ReadIntegerProduct(const NodeDef& def) {
  auto decline = [&](const char* what) {
    return def.Fail(code::kFeatureUnsupported, "the onednn int8 matmul needs ", what);
  };
  if (def.input_types[1] != DataType::kInt8) return decline("int8 B");
  if (!ZeroPointsAreZero(def, 3)) return decline("constant B zero points of 0");
  QuantProduct q;
  q.a_dt = DnnlType(def.input_types[0]);
  q.y_dt = dnnl::memory::data_type::s32;
  return q;
}

// The constants of a QLinearMatMul the int8 kernel takes: constant 2-D int8 B with zero points
// 0, one a_scale / a_zero_point / y_scale / y_zero_point, b_scale one or one per column.
Result<QuantProduct> ReadQuantProduct(const NodeDef& def) {
  auto decline = [&](const char* what) {
    return def.Fail(code::kFeatureUnsupported, "the onednn int8 matmul needs ", what);
  };
  if (def.input_types[3] != DataType::kInt8 || def.constant(3) == nullptr ||
      def.input_dims[3].size() != 2) {
    return decline("constant 2-D int8 B");
  }
  const int64_t n = def.input_dims[3][1];
  const TensorView* bs = def.input_given(4) ? def.constant(4) : nullptr;
  auto as = ConstScale(def, 1), ys = ConstScale(def, 6);
  auto az = ConstZeroPoint(def, 2), yz = ConstZeroPoint(def, 7);
  if (bs == nullptr || bs->dtype != DataType::kFloat32 || !as || !ys || !az || !yz ||
      def.constant(1)->num_elements() != 1 || def.constant(2)->num_elements() != 1 ||
      (bs->num_elements() != 1 && (bs->num_elements() != n || bs->rank() != 1))) {
    return decline("constant per-tensor A and Y parameters, B's per tensor or per column");
  }
  QuantProduct q;
  q.a_dt = DnnlType(def.input_types[0]);
  q.y_dt = DnnlType(def.output_types[0]);
  if (!ZeroPointsAreZero(def, 5)) return decline("B zero points of 0");
  for (int64_t c = 0; c < bs->num_elements(); ++c) {
    q.scales.push_back(static_cast<float>(*as * bs->as<const float>()[c]) / *ys);
  }
  q.a_zp = *az;
  q.y_zp = *yz;
  return q;
}

// The geometry of one product: A, B and the destination as oneDNN sees them (equal ranks, batch
// dims broadcast; the destination has Y's elements), and the third input as oneDNN's bias or a
// binary post-op operand.
struct Geometry {
  Dims a, a_strides, b, b_strides, dst;
  Dims addend;  // C or the bias padded to dst's rank; empty when there is none
  Dims bias;    // FusedQLinearMatMul's int32 bias padded to dst's rank; empty when none
  bool a_zero_point = false;  // MatMulInteger: A's zero point is given (read per run)
};

// Whether dims broadcast along every axis but the last: a bias of one value per column.
bool IsRow(const Dims& dims) {
  return std::all_of(dims.begin(), dims.end() - 1, [](int64_t d) { return d == 1; });
}

struct ProductPlan final : Plan {
  dnnl::matmul matmul;
  dnnl::memory::desc a_md, b_md, dst_md, addend_md, scratch_md;
  const void* weights = nullptr;  // constant B in b_md, when B is constant
  int addend_arg = 0;             // the binary post-op's argument id
  dnnl::memory::desc zp_md;       // MatMulInteger's run-time zero point of A (one int32), or empty
  dnnl::memory::desc bias_md;     // the primitive's bias (f32 or int32), or empty
  size_t bias_input = 0;          // the input bias_md describes
  // bf16 (MatrixInputType): A as stored (a_md) is converted into src_md before the product.
  bool convert_a = false;
  dnnl::memory::desc src_md;
  dnnl::reorder a_in;
  // Y stored bf16 (kiln_y_bf16) by a product computing in f32, whose oneDNN matmul takes no
  // bf16 destination: it writes dst_md (f32, scratch) and y_out converts into y_md.
  bool convert_y = false;
  dnnl::memory::desc y_md;
  dnnl::reorder y_out;
};

class ProductKernel final : public DnnlKernel {
 public:
  static Result<std::unique_ptr<Kernel>> Make(const KernelRegistry& registry, const NodeDef& def,
                                              ProductKind kind) {
    std::optional<QuantProduct> quant;
    if (kind == ProductKind::kQLinearMatMul) {
      KILN_ASSIGN_OR_RETURN(quant, ReadQuantProduct(def));
    } else if (kind == ProductKind::kMatMulInteger) {
      KILN_ASSIGN_OR_RETURN(quant, ReadIntegerProduct(def));
    } else {
      KILN_RETURN_IF_ERROR(RequireFloat32(def), "");
    }
    KILN_ASSIGN_OR_RETURN(auto reference, ReferenceKernel(registry, def));
    ActivationAttrs act;
    if (kind == ProductKind::kFusedMatMul || kind == ProductKind::kFusedGemm) {
      KILN_ASSIGN_OR_RETURN(act, ReadDnnlActivation(def));
    }
    const size_t b = kind == ProductKind::kQLinearMatMul ? 3 : 1;
    // FusedQLinearMatMul's bias (input 8): int32, one per column.
    const size_t bias = kind == ProductKind::kQLinearMatMul && def.num_inputs() > 8 ? 8 : SIZE_MAX;
    auto k = std::unique_ptr<ProductKernel>(new ProductKernel(
        def, std::move(reference), kind, act, def.constant(b), b, std::move(quant), bias));
    KILN_RETURN_IF_ERROR(k->PrepareFirstPlan(), "");
    return std::unique_ptr<Kernel>(std::move(k));
  }

 private:
  ProductKernel(const NodeDef& def, std::unique_ptr<Kernel> reference, ProductKind kind,
                ActivationAttrs act, const TensorView* b_const, size_t b_input,
                std::optional<QuantProduct> quant, size_t bias_input)
      : DnnlKernel(def, std::move(reference)),
        kind_(kind),
        act_(act),
        gemm_(kind == ProductKind::kGemm || kind == ProductKind::kFusedGemm),
        b_input_(b_input),
        bias_input_(bias_input),
        quant_(std::move(quant)),
        a_bf16_(def.attr_int("kiln_a_bf16") == 1),
        y_bf16_(def.attr_int("kiln_y_bf16") == 1) {
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
    if (a.size() > 2 && b.size() == 2) {
      // A batch of rows times one B (a transformer's projections: [1, 128, 384] x [384, 1536])
      // is one 2-D product over A's rows: oneDNN 2.6 packs B into its blocked layout only for
      // 2-D products (a 3-D one reads B plain: ~10 % slower in f32, ~30 % with AMX bf16).
      int64_t rows = 1;
      for (size_t i = 0; i + 1 < a.size(); ++i) rows *= a[i];
      a = {rows, a.back()};
    }
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

  // A quantized product's inputs are 8-bit, its parameters constants: none is float32.
  bool FloatInput(size_t i) const override { return !quant_; }

  // MatMulInteger: A's zero point, when given, holds one value (a per-row one runs on the
  // reference kernel).
  bool Takes(const KernelContext& ctx) const override {
    if (kind_ != ProductKind::kMatMulInteger || ctx.num_inputs() < 3) return true;
    const TensorView* az = ctx.input(2);
    return az == nullptr || az->num_elements() == 1;
  }

  std::optional<Dims> Key(const std::vector<const Dims*>& in) const override {
    const Dims* b = b_input_ < in.size() ? in[b_input_] : nullptr;
    if (in.empty() || in[0] == nullptr || b == nullptr) return std::nullopt;
    if (b_const_.data != nullptr && *b != b_const_.dims) return std::nullopt;
    const Dims* c = in.size() > 2 ? in[2] : nullptr;
    if (kind_ == ProductKind::kMatMul || quant_) c = nullptr;
    if (!Shape(*in[0], *b, c)) return std::nullopt;
    const Dims* bias = bias_input_ < in.size() ? in[bias_input_] : nullptr;
    Dims key;
    AppendKey(key, in[0]);
    AppendKey(key, b);
    AppendKey(key, c);
    AppendKey(key, bias);
    if (kind_ == ProductKind::kMatMulInteger) key.push_back(in.size() > 2 && in[2] != nullptr);
    return key;
  }

  Result<std::shared_ptr<const Plan>> Build(const Dims& key) const override {
    auto dims = SplitKey(key, 4);
    auto g = Shape(*dims[0], *dims[1], dims[2] ? &*dims[2] : nullptr);
    if (!g) return def_.Fail(code::kFeatureUnsupported, "no onednn geometry");
    if (dims[3]) {  // one value per column (the definition's rule), padded to dst's rank
      g->bias.assign(g->dst.size(), 1);
      g->bias.back() = (*dims[3])[0];
    }
    g->a_zero_point = kind_ == ProductKind::kMatMulInteger && key.back() != 0;
    auto plan = std::make_shared<ProductPlan>();
    // A bias the primitive does not take as its bias argument goes in as a binary post-op.
    if (!Guard(def_, [&] { Create(*g, true, *plan); }).ok()) {
      *plan = ProductPlan();
      KILN_RETURN_IF_ERROR(Guard(def_, [&] { Create(*g, false, *plan); }), "");
    }
    return std::shared_ptr<const Plan>(std::move(plan));
  }

  // bias_arg: a bias of one value per column may go in as the primitive's bias argument.
  void Create(const Geometry& g, bool bias_arg, ProductPlan& p) const {
    using dnnl::algorithm;
    using dt = dnnl::memory::data_type;
    // FusedMatMul's kiln_a_bf16 / kiln_y_bf16 (matmul_bf16_storage): A or Y stored as bf16.
    p.a_md = StridedDesc(g.a, g.a_strides, quant_ ? quant_->a_dt : a_bf16_ ? dt::bf16 : dt::f32);
    const dnnl::memory::desc b_user = StridedDesc(g.b, g.b_strides, quant_ ? dt::s8 : dt::f32);
    p.dst_md = PlainDesc(g.dst, quant_ ? quant_->y_dt : y_bf16_ ? dt::bf16 : dt::f32);
    p.y_md = p.dst_md;
    const bool has_addend = !g.addend.empty();
    dnnl::primitive_attr attr = UserScratchpadAttr();
    dnnl::post_ops ops;
    float scale = 1.0f;  // applied after the addend, with the activation
    float out_scale = 1.0f;
    if (gemm_) {
      // alpha * AB + beta * C = beta * (alpha / beta * AB + C); without C, alpha * AB.
      out_scale = has_addend ? alpha_ / beta_ : alpha_;
      if (out_scale != 1.0f) attr.set_output_scales(0, {out_scale});
      if (has_addend) scale = beta_;
    }
    if (bias_arg && has_addend && g.bias.empty() && out_scale == 1.0f && IsRow(g.addend)) {
      // One value per column, added unscaled: oneDNN's bias, added in the kernel's epilogue
      // while the tile is in registers (a binary post-op reads it through a slower broadcast
      // path: ~15-20 us more per 128x384x384 projection on AVX-512).
      p.bias_md = PlainDesc(g.addend);
      p.bias_input = 2;
    } else if (has_addend) {
      p.addend_md = PlainDesc(g.addend);
      p.addend_arg = DNNL_ARG_ATTR_MULTIPLE_POST_OP(ops.len()) | DNNL_ARG_SRC_1;
      ops.append_binary(algorithm::binary_add, p.addend_md);
    }
    if (kind_ == ProductKind::kQLinearMatMul) {
      // The scales per tensor or per column (the destination's last dim), then the zero points.
      const int last = static_cast<int>(g.dst.size()) - 1;
      attr.set_output_scales(quant_->scales.size() > 1 ? 1 << last : 0, quant_->scales);
      if (quant_->a_zp != 0) attr.set_zero_points(DNNL_ARG_SRC, 0, {quant_->a_zp});
      if (quant_->y_zp != 0) attr.set_zero_points(DNNL_ARG_DST, 0, {quant_->y_zp});
    } else if (kind_ == ProductKind::kMatMulInteger && g.a_zero_point) {
      attr.set_zero_points(DNNL_ARG_SRC, 0, {DNNL_RUNTIME_S32_VAL});  // given per run
      p.zp_md = PlainDesc({1}, dnnl::memory::data_type::s32);
    }
    AppendActivation(act_, ops, scale);
    attr.set_post_ops(ops);
    // bf16 takes both factors in bf16: only a product with constant weights (B packed once)
    // does, its A converted per run unless it is stored bf16; one with two computed factors
    // (attention) stays f32. An int8 product takes its own types.
    const auto in = quant_                     ? quant_->a_dt
                    : b_const_.data != nullptr ? MatrixInputType(def_)
                                               : dnnl::memory::data_type::f32;
    const auto w_in = quant_ ? dt::s8 : in;
    p.convert_a = !quant_ && in != p.a_md.data_type();
    p.convert_y = y_bf16_ && in == dt::f32;
    if (p.convert_y) p.dst_md = PlainDesc(g.dst, dt::f32);
    if (p.convert_a) {
      Dims row_major(g.a.size(), 1);
      for (size_t i = g.a.size(); i-- > 1;) row_major[i - 1] = row_major[i] * g.a[i];
      p.src_md = dnnl::memory::desc(ToDnnl(g.a), in, ToDnnl(row_major));
    } else {
      p.src_md = p.a_md;
    }
    if (!g.bias.empty()) {
      p.bias_md = PlainDesc(g.bias, dt::s32);
      p.bias_input = bias_input_;
    }
    auto create = [&](const dnnl::memory::desc& b_md) {
      dnnl::matmul::desc desc(p.src_md, b_md, p.bias_md, p.dst_md);
      return dnnl::matmul::primitive_desc(desc, attr, Engine());
    };
    dnnl::matmul::primitive_desc pd;
    if (b_const_.data != nullptr) {
      // Constant weights: let oneDNN choose their layout, pack them once.
      try {
        pd = create(dnnl::memory::desc(ToDnnl(g.b), w_in, dnnl::memory::format_tag::any));
      } catch (const dnnl::error&) {
        if (!quant_ && in != dt::f32) throw;  // bf16 declined: the reference kernel runs them
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
    if (p.convert_y) p.y_out = MakeReorder(p.dst_md, p.y_md, p.scratch_md);
  }

  Status Execute(const Plan& base, KernelContext& ctx, DnnlRun& run) const override {
    const auto& p = static_cast<const ProductPlan&>(base);
    KILN_ASSIGN_OR_RETURN(TensorView * y, kernels::BoundOutput(def_, ctx, 0));
    run.Buffers({p.scratch_md.get_size(), p.convert_a ? p.src_md.get_size() : 0,
                 p.convert_y ? p.dst_md.get_size() : 0},
                0);
    const dnnl::memory& y_mem = run.Memory(2, p.y_md, y->data);
    const dnnl::memory* dst = p.convert_y ? &run.Memory(7, p.dst_md, run.buffer(2)) : &y_mem;
    const void* b = p.weights != nullptr ? p.weights : ctx.input(b_input_)->data;
    const dnnl::memory* addend =
        p.addend_arg != 0 ? &run.Memory(3, p.addend_md, ctx.input(2)->data) : nullptr;
    const dnnl::memory* src = &run.Memory(0, p.a_md, ctx.input(0)->data);
    int32_t a_zp = 0;  // MatMulInteger's zero point of A, as the primitive takes it
    const dnnl::memory* zp = nullptr;
    if (!p.zp_md.is_zero()) {
      a_zp = RunTimeZeroPoint(*ctx.input(2));
      zp = &run.Memory(5, p.zp_md, &a_zp);
    }
    if (p.convert_a) {
      const dnnl::memory& a = *src;
      src = &run.Memory(4, p.src_md, run.buffer(1));
      run.Execute(p.a_in, {{DNNL_ARG_FROM, &a}, {DNNL_ARG_TO, src}}, p.scratch_md, run.buffer(0));
    }
    run.Execute(p.matmul,
                {{DNNL_ARG_SRC, src},
                 {DNNL_ARG_WEIGHTS, &run.Memory(1, p.b_md, b)},
                 {DNNL_ARG_DST, dst},
                 {p.addend_arg, addend},
                 {DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC, zp},
                 {DNNL_ARG_BIAS, p.bias_md.is_zero()
                                     ? nullptr
                                     : &run.Memory(6, p.bias_md, ctx.input(p.bias_input)->data)}},
                p.scratch_md, run.buffer(0));
    if (p.convert_y) {
      run.Execute(p.y_out, {{DNNL_ARG_FROM, dst}, {DNNL_ARG_TO, &y_mem}}, p.scratch_md,
                  run.buffer(0));
    }
    run.Wait();
    return Status::Ok();
  }

  ProductKind kind_;
  ActivationAttrs act_;
  bool gemm_;
  bool trans_a_ = false, trans_b_ = false;
  float alpha_ = 1.0f, beta_ = 1.0f;
  size_t b_input_;                     // B's input: 1, or 3 for QLinearMatMul
  size_t bias_input_;                  // FusedQLinearMatMul's bias input (8), else SIZE_MAX
  std::optional<QuantProduct> quant_;  // set for QLinearMatMul
  bool a_bf16_, y_bf16_;               // FusedMatMul's A or Y stored as bf16
  PackedWeights* PackedInput(size_t i) const override {
    return i == b_input_ && b_const_.data != nullptr ? &packed_ : nullptr;
  }

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
  r.Register(kCpuBackend, "", "QLinearMatMul", product(ProductKind::kQLinearMatMul));
  r.Register(kCpuBackend, kKilnDomain, "FusedQLinearMatMul", product(ProductKind::kQLinearMatMul));
  r.Register(kCpuBackend, "", "MatMulInteger", product(ProductKind::kMatMulInteger));
}

}  // namespace kiln::cpu
