// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Reference kernels of Kiln's fused ops (domain "com.kiln", see src/compiler/passes/README.md):
// FusedConv = act(Conv(X, W, B) + Z), FusedGemm = act(Gemm(A, B, C)), FusedMatMul =
// act(MatMul(A, B) + Bias), FusedConvTranspose = act(ConvTranspose(X, W, B)), ArithmeticChain (Add
// / Sub / Mul / Div in turn), ChannelShuffle (a permutation of the channels). FusedConv honours the
// channels_last layout flags (X, Y, Z stored NHWC) by transposing through NCHW temporaries. Each
// intermediate the unfused graph would store is rounded to the element type, so a fused node
// computes what the ops it replaces compute.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/attrs.h"
#include "kernels/reference/common.h"
#include "kernels/reference/families.h"
#include "kernels/reference/nn_conv.h"
#include "kernels/util.h"

namespace kiln::kernels {
namespace {

constexpr const char* kKilnDomain = "com.kiln";

// ---------------------------------------------------------------------------------------------
// Activations.

using ActKind = ActivationKind;

// The `activation` attribute (attrs.h) with its parameters as doubles, and the affine step
// after it (FusedConv's post_scale / post_shift).
struct Activation {
  ActKind kind = ActKind::kNone;
  double alpha = 0, beta = 0;
  double post_scale = 1, post_shift = 0;

  bool identity() const { return kind == ActKind::kNone && post_scale == 1 && post_shift == 0; }
  double Apply(double v) const { return Act(v) * post_scale + post_shift; }
  double Act(double v) const {
    switch (kind) {
      case ActKind::kNone:
        return v;
      case ActKind::kRelu:
        return v < 0 ? 0.0 : v;
      case ActKind::kLeakyRelu:
        return v < 0 ? alpha * v : v;
      case ActKind::kClip:
        return std::min(std::max(v, alpha), beta);
      case ActKind::kSigmoid:
        return 1.0 / (1.0 + std::exp(-v));
      case ActKind::kTanh:
        return std::tanh(v);
      case ActKind::kHardSigmoid:
        return std::max(0.0, std::min(1.0, alpha * v + beta));
      case ActKind::kHardSwish:
        return v * std::max(0.0, std::min(1.0, v / 6.0 + 0.5));
      case ActKind::kGelu:
        return 0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0)));
      case ActKind::kSwish:
        return v / (1.0 + std::exp(-alpha * v));
    }
    return v;
  }
};

Result<Activation> PrepareActivation(const NodeDef& def, DataType type) {
  KILN_ASSIGN_OR_RETURN(ActivationAttrs attrs, ReadActivation(def));
  const Activation a{attrs.kind, attrs.alpha, attrs.beta, attrs.post_scale, attrs.post_shift};
  if (!ir::IsFloat(type) && attrs.has_post()) {
    return def.Fail(code::kFeatureUnsupported, "post_scale / post_shift on ", ir::Name(type),
                    " is not supported");
  }
  if (!ir::IsFloat(type) && a.kind != ActKind::kNone && a.kind != ActKind::kRelu &&
      a.kind != ActKind::kClip) {
    return def.Fail(code::kFeatureUnsupported, "activation '", def.attr_string("activation"),
                    "' on ", ir::Name(type),
                    " is not supported; integer types take Relu or Clip only");
  }
  return a;
}

// `x` as the integer type T, rounded toward the inside of [lowest, max] (ceil for a lower
// bound, floor for an upper one); NaN is no bound.
template <typename T>
T IntBound(double x, bool lower) {
  const double lo = static_cast<double>(std::numeric_limits<T>::lowest());
  const double hi = static_cast<double>(std::numeric_limits<T>::max());
  if (std::isnan(x))
    return lower ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max();
  if (x <= lo) return std::numeric_limits<T>::lowest();
  if (x >= hi) return std::numeric_limits<T>::max();
  return static_cast<T>(lower ? std::ceil(x) : std::floor(x));
}

// An activation bound to element type T (integer Clip bounds converted once).
template <typename T>
class Epilogue {
 public:
  using C = ComputeT<T>;
  explicit Epilogue(const Activation& a) : act_(a) {
    if constexpr (!kIsFloat<T>) {
      lo_ = IntBound<T>(a.alpha, true);
      hi_ = IntBound<T>(a.beta, false);
    }
  }
  C operator()(C v) const {
    if constexpr (kIsFloat<T>) {
      return act_.identity() ? v : static_cast<C>(act_.Apply(static_cast<double>(v)));
    } else {
      switch (act_.kind) {
        case ActKind::kRelu:
          if constexpr (std::is_signed_v<T>) return v < 0 ? T{0} : v;
          return v;
        case ActKind::kClip:
          return std::min(std::max(v, lo_), hi_);
        default:
          return v;
      }
    }
  }

 private:
  Activation act_;
  T lo_{}, hi_{};
};

// `v` rounded to T and back (what storing an intermediate tensor does).
template <typename T>
ComputeT<T> RoundTo(ComputeT<T> v) {
  T t;
  Store(&t, 0, v);
  return Load(&t, 0);
}

// out[m * n_cols + n] = sum_k A(m, k) * B(k, n), where A(m, k) = a[m * a_rs + k * a_cs] and
// B(k, n) = b[k * b_rs + n * b_cs].
template <typename T>
void MatMulAccumulate(const T* a, int64_t a_rs, int64_t a_cs, const T* b, int64_t b_rs,
                      int64_t b_cs, int64_t rows, int64_t cols, int64_t depth, AccT<T>* out) {
  std::fill(out, out + rows * cols, AccT<T>{});
  for (int64_t m = 0; m < rows; ++m) {
    AccT<T>* row = out + m * cols;
    for (int64_t k = 0; k < depth; ++k) {
      const AccT<T> av = LoadAcc(a, m * a_rs + k * a_cs);
      const T* bk = b + k * b_rs;
      for (int64_t n = 0; n < cols; ++n) row[n] += av * LoadAcc(bk, n * b_cs);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// FusedConv.

class FusedConvKernel final : public Kernel {
 public:
  FusedConvKernel(const NodeDef& def, ConvAttrs conv, Activation act, ConvLayout layout)
      : def_(def), conv_(std::move(conv)), act_(act), layout_(layout) {}

  Status Run(KernelContext& ctx) const override {
    return RunOnNchw(ctx, layout_, 3, [&](KernelContext& c) { return RunNchw(c); });
  }

 private:
  Status RunNchw(KernelContext& ctx) const {
    // The residual Z has Y's type and broadcasts to Y (the definition's rules). It may share Y's
    // memory (the planner's in-place reuse): then it is copied before the convolution writes Y.
    const TensorView* z = ctx.num_inputs() > 3 ? ctx.input(3) : nullptr;
    HostTensor z_copy;
    TensorView z_view;
    if (z != nullptr) {
      KILN_ASSIGN_OR_RETURN(TensorView * out, BoundOutput(def_, ctx, 0));
      if (out->data == z->data && z->bytes() != 0) {
        z_copy = HostTensor(z->dtype, z->dims);
        std::memcpy(z_copy.bytes.data(), z->data, z->bytes());
        z_view = z_copy.view();
        z = &z_view;
      }
    }
    KILN_ASSIGN_OR_RETURN(TensorView * y, RunConv(def_, conv_, ctx));
    if (z == nullptr && act_.identity()) return Status::Ok();
    DispatchFloat(y->dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      Apply<T>(*y, z, ctx);
    });
    return Status::Ok();
  }

  template <typename T>
  void Apply(TensorView& y, const TensorView* z, KernelContext& ctx) const {
    T* yd = y.as<T>();
    const T* zd = z ? z->as<const T>() : nullptr;
    std::vector<int64_t> zi;
    if (z && z->dims != y.dims) zi = BroadcastIndex(z->dims, y.dims);
    const Epilogue<T> act(act_);
    ctx.ParallelFor(y.num_elements(), 16384, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        ComputeT<T> v = Load(yd, i);
        if (zd) v = RoundTo<T>(v + Load(zd, zi.empty() ? i : zi[static_cast<size_t>(i)]));
        Store(yd, i, act(v));
      }
    });
  }

  NodeDef def_;
  ConvAttrs conv_;
  Activation act_;
  ConvLayout layout_;
};

Result<std::unique_ptr<Kernel>> MakeFusedConv(const NodeDef& def) {
  KILN_ASSIGN_OR_RETURN(Activation act, PrepareActivation(def, def.input_types[0]));
  return std::unique_ptr<Kernel>(
      std::make_unique<FusedConvKernel>(def, ReadConvAttrs(def), act, ReadConvLayout(def)));
}

// FusedConvTranspose = act(ConvTranspose(X, W, B)).
class FusedConvTransposeKernel final : public Kernel {
 public:
  FusedConvTransposeKernel(const NodeDef& def, ConvAttrs conv, Activation act)
      : def_(def), conv_(std::move(conv)), act_(act) {}

  Status Run(KernelContext& ctx) const override {
    KILN_ASSIGN_OR_RETURN(TensorView * y, RunConvTranspose(def_, conv_, ctx));
    if (act_.identity()) return Status::Ok();
    DispatchFloat(y->dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      T* yd = y->as<T>();
      const Epilogue<T> act(act_);
      ctx.ParallelFor(y->num_elements(), 16384, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) Store(yd, i, act(Load(yd, i)));
      });
    });
    return Status::Ok();
  }

 private:
  NodeDef def_;
  ConvAttrs conv_;
  Activation act_;
};

Result<std::unique_ptr<Kernel>> MakeFusedConvTranspose(const NodeDef& def) {
  KILN_ASSIGN_OR_RETURN(Activation act, PrepareActivation(def, def.input_types[0]));
  return std::unique_ptr<Kernel>(
      std::make_unique<FusedConvTransposeKernel>(def, ReadConvAttrs(def), act));
}

// ---------------------------------------------------------------------------------------------
// FusedGemm.

struct GemmAttrs {
  double alpha = 1, beta = 1;
  bool trans_a = false, trans_b = false;
  Activation act;
};

template <typename T>
void GemmCompute(const GemmAttrs& g, const TensorView& a, const TensorView& b, const TensorView* c,
                 int64_t rows, int64_t cols, int64_t depth, TensorView& y, KernelContext& ctx) {
  const T* ad = a.as<const T>();
  const T* bd = b.as<const T>();
  const T* cd = c ? c->as<const T>() : nullptr;
  T* yd = y.as<T>();
  // C broadcasts to [M, N]: a 1 (or missing) dim repeats.
  const int64_t c_rows = c && c->rank() == 2 ? c->dims[0] : 1;
  const int64_t c_cols = c && c->rank() >= 1 ? c->dims[c->rank() - 1] : 1;
  const int64_t a_rs = g.trans_a ? 1 : depth, a_cs = g.trans_a ? rows : 1;
  const int64_t b_rs = g.trans_b ? 1 : cols, b_cs = g.trans_b ? depth : 1;
  const Epilogue<T> act(g.act);
  ctx.ParallelFor(rows, 1, [&](int64_t begin, int64_t end) {
    std::vector<AccT<T>> acc(static_cast<size_t>(cols));
    for (int64_t m = begin; m < end; ++m) {
      MatMulAccumulate(ad + m * a_rs, a_rs, a_cs, bd, b_rs, b_cs, 1, cols, depth, acc.data());
      for (int64_t n = 0; n < cols; ++n) {
        const int64_t ci = (c_rows == 1 ? 0 : m) * c_cols + (c_cols == 1 ? 0 : n);
        AccT<T> v = acc[static_cast<size_t>(n)];
        if constexpr (kIsFloat<T>) {
          v *= g.alpha;
          if (cd) v += g.beta * static_cast<double>(Load(cd, ci));
          Store(yd, m * cols + n, act(RoundTo<T>(static_cast<ComputeT<T>>(v))));
        } else {
          // Integral alpha and beta (checked at Prepare), in modular arithmetic.
          v *= static_cast<uint64_t>(static_cast<int64_t>(g.alpha));
          if (cd) v += static_cast<uint64_t>(static_cast<int64_t>(g.beta)) * LoadAcc(cd, ci);
          yd[m * cols + n] = act(static_cast<T>(v));
        }
      }
    }
  });
}

class FusedGemmKernel final : public Kernel {
 public:
  FusedGemmKernel(const NodeDef& def, GemmAttrs attrs) : def_(def), g_(attrs) {}

  Status Run(KernelContext& ctx) const override {
    const TensorView* a = ctx.input(0);
    const TensorView* b = ctx.input(1);
    const TensorView* c = ctx.num_inputs() > 2 ? ctx.input(2) : nullptr;
    KILN_ASSIGN_OR_RETURN(TensorView * y, BoundOutput(def_, ctx, 0));
    // Y is [M, N]; K is A's other dim.
    const int64_t rows = y->dims[0], cols = y->dims[1], depth = a->dims[g_.trans_a ? 0 : 1];
    DispatchNumeric(a->dtype, [&](auto tag) {
      GemmCompute<typename decltype(tag)::type>(g_, *a, *b, c, rows, cols, depth, *y, ctx);
    });
    return Status::Ok();
  }

 private:
  NodeDef def_;
  GemmAttrs g_;
};

Result<std::unique_ptr<Kernel>> MakeFusedGemm(const NodeDef& def) {
  GemmAttrs g;
  g.alpha = def.attr_float("alpha");
  g.beta = def.attr_float("beta");
  g.trans_a = def.attr_int("transA") != 0;
  g.trans_b = def.attr_int("transB") != 0;
  const DataType t = def.input_types[0];
  if (!ir::IsFloat(t) && (g.alpha != std::trunc(g.alpha) || g.beta != std::trunc(g.beta))) {
    return def.Fail(code::kFeatureUnsupported, "alpha ", g.alpha, " and beta ", g.beta, " on ",
                    ir::Name(t), " are not supported; integer types take integral values only");
  }
  KILN_ASSIGN_OR_RETURN(g.act, PrepareActivation(def, t));
  return std::unique_ptr<Kernel>(std::make_unique<FusedGemmKernel>(def, g));
}

// ---------------------------------------------------------------------------------------------
// FusedMatMul.

template <typename T>
void MatMulCompute(const Activation& act_attr, const TensorView& a, const TensorView& b,
                   const TensorView* bias, const Dims& batch, const Dims& a_batch,
                   const Dims& b_batch, int64_t rows, int64_t cols, int64_t depth, TensorView& y,
                   KernelContext& ctx) {
  const T* ad = a.as<const T>();
  const T* bd = b.as<const T>();
  const T* biasd = bias ? bias->as<const T>() : nullptr;
  const bool bias_scalar = bias && bias->num_elements() == 1;
  T* yd = y.as<T>();
  const std::vector<int64_t> a_index = BroadcastIndex(a_batch, batch);
  const std::vector<int64_t> b_index = BroadcastIndex(b_batch, batch);
  const Epilogue<T> act(act_attr);
  const int64_t count = NumElements(batch);
  ctx.ParallelFor(count * rows, 1, [&](int64_t begin, int64_t end) {
    std::vector<AccT<T>> acc(static_cast<size_t>(cols));
    for (int64_t bm = begin; bm < end; ++bm) {
      const int64_t bi = bm / rows, m = bm % rows;
      const T* ap = ad + (a_index[static_cast<size_t>(bi)] * rows + m) * depth;
      const T* bp = bd + b_index[static_cast<size_t>(bi)] * depth * cols;
      MatMulAccumulate(ap, depth, 1, bp, cols, 1, 1, cols, depth, acc.data());
      T* yp = yd + bm * cols;
      for (int64_t n = 0; n < cols; ++n) {
        const int64_t k = bias_scalar ? 0 : n;
        if constexpr (kIsFloat<T>) {
          ComputeT<T> v = RoundTo<T>(static_cast<ComputeT<T>>(acc[static_cast<size_t>(n)]));
          if (biasd) v = RoundTo<T>(v + Load(biasd, k));
          Store(yp, n, act(v));
        } else {
          uint64_t v = acc[static_cast<size_t>(n)];
          if (biasd) v += LoadAcc(biasd, k);
          yp[n] = act(static_cast<T>(v));
        }
      }
    }
  });
}

// A float32 tensor stored as bfloat16 (its bytes), widened.
HostTensor WidenBf16(const TensorView& stored) {
  HostTensor wide(DataType::kFloat32, stored.dims);
  const auto* s = static_cast<const uint16_t*>(stored.data);
  auto* d = reinterpret_cast<float*>(wide.bytes.data());
  for (int64_t i = 0; i < NumElements(stored.dims); ++i) d[i] = BFloat16ToFloat(s[i]);
  return wide;
}

class FusedMatMulKernel final : public Kernel {
 public:
  FusedMatMulKernel(const NodeDef& def, Activation act)
      : def_(def),
        act_(act),
        a_bf16_(def.attr_int("kiln_a_bf16") == 1),
        y_bf16_(def.attr_int("kiln_y_bf16") == 1) {}

  Status Run(KernelContext& ctx) const override {
    const TensorView* a = ctx.input(0);
    const TensorView* b = ctx.input(1);
    const TensorView* bias = ctx.num_inputs() > 2 ? ctx.input(2) : nullptr;
    KILN_ASSIGN_OR_RETURN(TensorView * y, BoundOutput(def_, ctx, 0));
    // matmul_bf16_storage's flags: float32 A or Y whose bytes are bfloat16, computed here in
    // float32 (A widened first; Y rounded to nearest even at the end).
    HostTensor a_wide, y_wide;
    TensorView a_view, y_view;
    if (a_bf16_) {
      a_wide = WidenBf16(*a);
      a_view = a_wide.view();
      a = &a_view;
    }
    TensorView* y_stored = y;
    if (y_bf16_) {
      y_wide = HostTensor(DataType::kFloat32, y->dims);
      y_view = y_wide.view();
      y = &y_view;
    }
    // numpy matmul: a 1-D A is a row [1, K], a 1-D B a column [K, 1]; both extra dims drop, and
    // Y's leading dims are the broadcast batch dims.
    const bool a_vec = a->rank() == 1, b_vec = b->rank() == 1;
    const Dims& ad = a->dims;
    const Dims& bd = b->dims;
    const int64_t rows = a_vec ? 1 : ad[ad.size() - 2], depth = ad.back();
    const int64_t cols = b_vec ? 1 : bd.back();
    const Dims a_batch(ad.begin(), ad.end() - (a_vec ? 1 : 2));
    const Dims b_batch(bd.begin(), bd.end() - (b_vec ? 1 : 2));
    const Dims batch(y->dims.begin(), y->dims.end() - (a_vec ? 0 : 1) - (b_vec ? 0 : 1));
    DispatchNumeric(a->dtype, [&](auto tag) {
      MatMulCompute<typename decltype(tag)::type>(act_, *a, *b, bias, batch, a_batch, b_batch, rows,
                                                  cols, depth, *y, ctx);
    });
    if (y_bf16_) {
      const float* wide = y->as<const float>();
      auto* stored = static_cast<uint16_t*>(y_stored->data);
      for (int64_t i = 0; i < y->num_elements(); ++i) stored[i] = FloatToBFloat16(wide[i]);
    }
    return Status::Ok();
  }

 private:
  NodeDef def_;
  Activation act_;
  bool a_bf16_, y_bf16_;
};

Result<std::unique_ptr<Kernel>> MakeFusedMatMul(const NodeDef& def) {
  KILN_ASSIGN_OR_RETURN(Activation act, PrepareActivation(def, def.input_types[0]));
  return std::unique_ptr<Kernel>(std::make_unique<FusedMatMulKernel>(def, act));
}

// ArithmeticChain: each output element computed step by step in float32, as the Add / Sub / Mul /
// Div nodes it replaces compute it (then the Relu its activation names); with kiln_nhwc on the
// stored order (a rank-4 tensor's dims read N, H, W, C, or in channel blocks N, C/b, H, W, b; its
// definition admits only inputs whose bytes are the same in either order).
Status RunArithmeticChain(const NodeDef& def, KernelContext& ctx) {
  KILN_ASSIGN_OR_RETURN(const std::vector<ChainStep> steps, ReadChainSteps(def));
  KILN_ASSIGN_OR_RETURN(TensorView * y, BoundOutput(def, ctx, 0));
  const bool nhwc = def.attr_int("kiln_nhwc") == 1;
  const int64_t block = def.attr_int("kiln_cblock");
  const bool relu = def.attr_string("activation") == "Relu";
  auto stored = [nhwc, block](const Dims& d) {
    Dims s = d;
    if (nhwc) StoredDims(d, block, &s);
    return s;
  };
  const Dims out = stored(y->dims);
  std::vector<Dims> in_dims;
  std::vector<const float*> x;
  for (size_t i = 0; i <= steps.size(); ++i) {
    const TensorView* t = ctx.input(i);
    if (t == nullptr || t->dtype != DataType::kFloat32) {
      return def.Fail(code::kInvalidParam, "input ", i, " is absent or not float32");
    }
    in_dims.push_back(stored(t->dims));
    x.push_back(t->as<const float>());
  }
  std::vector<const Dims*> shapes;
  for (const Dims& d : in_dims) shapes.push_back(&d);
  if (BroadcastDims(shapes) != std::optional<Dims>(out)) {
    return def.Fail(code::kInvalidParam, "the inputs do not broadcast to the output's ",
                    DimsString(y->dims));
  }
  std::vector<std::vector<int64_t>> index;
  for (const Dims& d : in_dims) index.push_back(BroadcastIndex(d, out));
  float* py = y->as<float>();
  const int64_t n = NumElements(out);
  for (int64_t e = 0; e < n; ++e) {
    float v = x[0][index[0][e]];
    for (size_t s = 0; s < steps.size(); ++s) {
      const float o = x[s + 1][index[s + 1][e]];
      const float a = steps[s].swapped ? o : v;
      const float b = steps[s].swapped ? v : o;
      switch (steps[s].op) {
        case ChainStep::kAdd:
          v = a + b;
          break;
        case ChainStep::kSub:
          v = a - b;
          break;
        case ChainStep::kMul:
          v = a * b;
          break;
        case ChainStep::kDiv:
          v = a / b;
          break;
      }
    }
    py[e] = relu && v < 0.0f ? 0.0f : v;  // a Relu at the end: NaN and -0 pass, as the cpu's
  }
  return Status::Ok();
}

Result<std::unique_ptr<Kernel>> MakeArithmeticChain(const NodeDef& def) {
  KILN_RETURN_IF_ERROR(ReadChainSteps(def).status(), "");
  return MakeFunctionKernel(def, RunArithmeticChain);
}

// ChannelShuffle: each of Y's channels copied from X's channel (c % group) * (C / group) + c /
// group (its definition), a row of the spatial elements at a time; with kiln_nhwc, on the stored
// order: each pixel's C channels, one element at a time.
Status RunChannelShuffle(const NodeDef& def, KernelContext& ctx) {
  KILN_ASSIGN_OR_RETURN(const TensorView* x, RequiredInput(def, ctx, 0));
  KILN_ASSIGN_OR_RETURN(TensorView * y, BoundOutput(def, ctx, 0));
  const int64_t group = def.attr_int("group");
  const Dims& d = x->dims;
  if (d.size() < 2 || group < 1 || d[1] % group != 0) {
    return def.Fail(code::kInvalidParam, "X of ", DimsString(d), " has no channels in ", group,
                    " groups");
  }
  const bool nhwc = def.attr_int("kiln_nhwc") == 1;
  const int64_t c = d[1], per_group = c / group;
  int64_t outer = d[0], inner = 1;
  for (size_t i = 2; i < d.size(); ++i) (nhwc ? outer : inner) *= d[i];
  const size_t es = ElemSize(*x), row = static_cast<size_t>(inner) * es;
  const auto* src = static_cast<const uint8_t*>(x->data);
  auto* dst = static_cast<uint8_t*>(y->data);
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t ch = 0; ch < c; ++ch) {
      const int64_t from = (ch % group) * per_group + ch / group;
      std::memcpy(dst + static_cast<size_t>(o * c + ch) * row,
                  src + static_cast<size_t>(o * c + from) * row, row);
    }
  }
  return Status::Ok();
}

}  // namespace

void RegisterFusedKernels(KernelRegistry& r) {
  r.Register(kReferenceBackend, kKilnDomain, "FusedConv", MakeFusedConv);
  r.Register(kReferenceBackend, kKilnDomain, "FusedConvTranspose", MakeFusedConvTranspose);
  r.Register(kReferenceBackend, kKilnDomain, "FusedGemm", MakeFusedGemm);
  r.Register(kReferenceBackend, kKilnDomain, "FusedMatMul", MakeFusedMatMul);
  r.Register(kReferenceBackend, kKilnDomain, "ArithmeticChain", MakeArithmeticChain);
  r.Register(kReferenceBackend, kKilnDomain, "ChannelShuffle",
             [](const NodeDef& def) { return MakeFunctionKernel(def, RunChannelShuffle); });
}

}  // namespace kiln::kernels
