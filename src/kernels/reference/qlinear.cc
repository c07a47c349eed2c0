// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Reference kernels of QLinearConv, ConvInteger, QLinearMatMul and MatMulInteger (uint8 and int8
// tensors; per-tensor, per-output-channel, per-row and per-column scales and zero points), and of
// Kiln's FusedQLinearConv (QLinearConv, then a quantized residual add and Relu;
// src/ir/ops/fused.cc).
//
// As in the ONNX reference, the inputs are widened to int32 less their zero points (so a
// convolution's padding reads the zero point, a real 0), products are summed in 32 bits (ONNX
// lets the sum, and only the sum, wrap there), and the QLinear ops requantize the sum:
// saturate(round_half_even(sum * (a_scale * b_scale / y_scale)) + y_zero_point), the scale
// ratio computed in the scales' type and the rest in double. A NaN (a zero y_scale times a zero
// sum) becomes the type's lowest value, as QuantizeLinear makes it.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/reference/common.h"
#include "kernels/reference/families.h"
#include "kernels/reference/nn_conv.h"
#include "kernels/util.h"

namespace kiln::kernels {
namespace {

// Element i of a uint8 or int8 tensor.
int32_t QAt(const TensorView& t, int64_t i) {
  return t.dtype == DataType::kInt8 ? int32_t{t.as<int8_t>()[i]} : int32_t{t.as<uint8_t>()[i]};
}

// Zero point j, 0 for an omitted one.
int32_t ZeroAt(const TensorView* zp, int64_t j) { return zp == nullptr ? 0 : QAt(*zp, j); }

// Element i of a float32, float16 or bfloat16 tensor.
float ScaleAt(const TensorView& t, int64_t i) {
  switch (t.dtype) {
    case DataType::kFloat16:
      return HalfToFloat(t.as<uint16_t>()[i]);
    case DataType::kBFloat16:
      return BFloat16ToFloat(t.as<uint16_t>()[i]);
    default:
      return t.as<float>()[i];
  }
}

// a_scale * b_scale / y_scale, each step rounded to the scales' type `t` (the ONNX reference
// computes it in numpy's arithmetic of that type).
double Multiplier(DataType t, float a, float b, float y) {
  return RoundTo(t, RoundTo(t, a * b) / y);
}

// Element i of the quantized `y`: the 32-bit `sum` requantized with `multiplier` and
// `zero_point`. As the ONNX spec writes it (and QuantizeLinear does), sum * multiplier is rounded
// before the zero point is added; the ONNX reference rounds after, which differs only at an exact
// tie with an odd zero point.
void StoreQuantized(const TensorView& y, int64_t i, double real_over_scale, int32_t zero_point) {
  const bool is_signed = y.dtype == DataType::kInt8;
  const double lo = is_signed ? -128 : 0, hi = is_signed ? 127 : 255;
  const double v = std::nearbyint(real_over_scale) + zero_point;
  const double q = !(v >= lo) ? lo : std::min(v, hi);  // NaN: the lowest value
  if (is_signed) {
    y.as<int8_t>()[i] = static_cast<int8_t>(q);
  } else {
    y.as<uint8_t>()[i] = static_cast<uint8_t>(q);
  }
}

void StoreRequantized(const TensorView& y, int64_t i, int32_t sum, double multiplier,
                      int32_t zero_point, bool relu = false) {
  const double v = static_cast<double>(sum) * multiplier;
  StoreQuantized(y, i, relu && v < 0 ? 0.0 : v, zero_point);
}

// ---------------------------------------------------------------------------------------------
// Convolutions.

// A convolution of X [N, C, in...] by W [M, C/group, kernel...] into Y [N, M, out...].
struct ConvGeometry {
  int64_t batch = 0, in_channels = 0, out_channels = 0, group = 1;
  Dims in, out, kernel, stride, dilation, pad_begin;
};

// The geometry of `def` over inputs of dims `x` and `w` into the bound output of dims `y`. The
// definition checked the attributes and dims; only SAME's pads are left to derive.
ConvGeometry ConvGeometryOf(const NodeDef& def, const Dims& x, const Dims& w, const Dims& y) {
  ConvGeometry g;
  const size_t r = x.size() - 2;
  g.batch = x[0];
  g.in_channels = x[1];
  g.out_channels = w[0];
  g.group = def.attr_int("group");
  g.in.assign(x.begin() + 2, x.end());
  g.out.assign(y.begin() + 2, y.end());
  g.kernel.assign(w.begin() + 2, w.end());
  g.stride = def.has_attr("strides") ? def.attr_ints("strides") : Dims(r, 1);
  g.dilation = def.has_attr("dilations") ? def.attr_ints("dilations") : Dims(r, 1);
  g.pad_begin.assign(r, 0);
  const std::string auto_pad = def.attr_string("auto_pad");
  if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    for (size_t d = 0; d < r; ++d) {
      const int64_t extent = g.dilation[d] * (g.kernel[d] - 1) + 1;
      const int64_t total = std::max<int64_t>(0, (g.out[d] - 1) * g.stride[d] + extent - g.in[d]);
      // SAME_UPPER puts the odd pixel at the end, SAME_LOWER at the beginning.
      g.pad_begin[d] = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
    }
  } else if (auto_pad != "VALID" && def.has_attr("pads")) {  // NOTSET (or empty): explicit
    const std::vector<int64_t> pads = def.attr_ints("pads");
    g.pad_begin.assign(pads.begin(), pads.begin() + static_cast<ptrdiff_t>(r));
  }
  return g;
}

// x (dims `g`'s X) and w (dims `g`'s W) less their zero points, as int32: x_zero_point holds
// one value, w_zero_point one or one per output channel.
void WidenConvInputs(const ConvGeometry& g, const TensorView& x, const TensorView* x_zp,
                     const TensorView& w, const TensorView* w_zp, std::vector<int32_t>& x32,
                     std::vector<int32_t>& w32) {
  x32.resize(static_cast<size_t>(x.num_elements()));
  const int32_t xz = ZeroAt(x_zp, 0);
  for (size_t i = 0; i < x32.size(); ++i) x32[i] = QAt(x, static_cast<int64_t>(i)) - xz;
  w32.resize(static_cast<size_t>(w.num_elements()));
  const int64_t per_channel = g.out_channels > 0 ? w.num_elements() / g.out_channels : 0;
  const bool one = w_zp == nullptr || w_zp->num_elements() == 1;
  for (size_t i = 0; i < w32.size(); ++i) {
    const int64_t m = one ? 0 : static_cast<int64_t>(i) / per_channel;
    w32[i] = QAt(w, static_cast<int64_t>(i)) - ZeroAt(w_zp, m);
  }
}

// Computes every output element of the convolution of `x` by `w` (both widened, padding reading
// 0) and hands it to emit(flat output index, output channel, 32-bit sum).
template <typename Emit>
void ConvolveInt(const ConvGeometry& g, const int32_t* x, const int32_t* w, KernelContext& ctx,
                 Emit emit) {
  const size_t r = g.in.size();
  const int64_t in_size = Product(g.in, 0, r), out_size = Product(g.out, 0, r);
  const int64_t k_size = Product(g.kernel, 0, r);
  const int64_t cg = g.in_channels / g.group, mg = g.out_channels / g.group;
  // Per kernel position and spatial dim, its offset from the window's start.
  std::vector<int64_t> k_offset(static_cast<size_t>(k_size) * r);
  for (int64_t kp = 0; kp < k_size; ++kp) {
    int64_t rem = kp;
    for (size_t d = r; d-- > 0;) {
      k_offset[static_cast<size_t>(kp) * r + d] = (rem % g.kernel[d]) * g.dilation[d];
      rem /= g.kernel[d];
    }
  }
  ctx.ParallelFor(g.batch * g.out_channels, 1, [&](int64_t begin, int64_t end) {
    Dims start(r);
    for (int64_t nm = begin; nm < end; ++nm) {
      const int64_t n = nm / g.out_channels, m = nm % g.out_channels;
      const int32_t* xg = x + (n * g.in_channels + m / mg * cg) * in_size;
      const int32_t* wm = w + m * cg * k_size;
      for (int64_t o = 0; o < out_size; ++o) {
        int64_t rem = o;
        for (size_t d = r; d-- > 0;) {
          start[d] = (rem % g.out[d]) * g.stride[d] - g.pad_begin[d];
          rem /= g.out[d];
        }
        // Summed in 64 bits and truncated: the same as a 32-bit sum that wraps.
        int64_t sum = 0;
        for (int64_t kp = 0; kp < k_size; ++kp) {
          const int64_t* ko = &k_offset[static_cast<size_t>(kp) * r];
          int64_t at = 0;
          bool inside = true;
          for (size_t d = 0; d < r && inside; ++d) {
            const int64_t p = start[d] + ko[d];
            inside = p >= 0 && p < g.in[d];
            at = at * g.in[d] + p;
          }
          if (!inside) continue;
          for (int64_t c = 0; c < cg; ++c) {
            sum += int64_t{xg[c * in_size + at]} * wm[c * k_size + kp];
          }
        }
        emit(nm * out_size + o, m, static_cast<int32_t>(sum));
      }
    }
  });
}

// QLinearConv(x, x_scale, x_zero_point, w, w_scale, w_zero_point, y_scale, y_zero_point, B?)
// into `y` (Y's dims and type), Relu applied before the quantization when `relu`.
void QLinearConvInto(const NodeDef& def, KernelContext& ctx, const TensorView& y_out, bool relu) {
  const TensorView &x = *ctx.input(0), &x_scale = *ctx.input(1), &w = *ctx.input(3);
  const TensorView &w_scale = *ctx.input(4), &y_scale = *ctx.input(6), &y_zp = *ctx.input(7);
  const TensorView* bias = ctx.num_inputs() > 8 ? ctx.input(8) : nullptr;
  const TensorView* y = &y_out;
  const ConvGeometry g = ConvGeometryOf(def, x.dims, w.dims, y->dims);
  std::vector<int32_t> x32, w32;
  WidenConvInputs(g, x, ctx.input(2), w, ctx.input(5), x32, w32);
  std::vector<double> multiplier(static_cast<size_t>(g.out_channels));
  const bool one_scale = w_scale.num_elements() == 1;
  for (int64_t m = 0; m < g.out_channels; ++m) {
    multiplier[static_cast<size_t>(m)] =
        Multiplier(DataType::kFloat32, ScaleAt(x_scale, 0), ScaleAt(w_scale, one_scale ? 0 : m),
                   ScaleAt(y_scale, 0));
  }
  const int32_t yz = QAt(y_zp, 0);
  const int32_t* b = Omitted(bias) ? nullptr : bias->as<int32_t>();
  ConvolveInt(g, x32.data(), w32.data(), ctx, [&](int64_t i, int64_t m, int32_t sum) {
    if (b != nullptr) sum = static_cast<int32_t>(int64_t{sum} + b[m]);  // wraps as the sum does
    StoreRequantized(*y, i, sum, multiplier[static_cast<size_t>(m)], yz, relu);
  });
}

Status RunQLinearConv(const NodeDef& def, KernelContext& ctx) {
  KILN_ASSIGN_OR_RETURN(TensorView * y, BoundOutput(def, ctx, 0));
  QLinearConvInto(def, ctx, *y, /*relu=*/false);
  return Status::Ok();
}

// FusedQLinearConv: Y = QLinearConv(inputs 0-8) [Relu without Z]; with Z (input 9, scale 10,
// zero point 11) the output (scale 12, zero point 13) is com.microsoft's QLinearAdd of Y and Z,
// computed as onnxruntime does, (y - y_zp) * (y_scale / out_scale) + (z - z_zp) * (z_scale /
// out_scale), then Relu, rounded half to even, plus out_zero_point, saturated. Channels-last X, Y
// and Z (the layout flags) go through NCHW temporaries.
class FusedQLinearConvKernel final : public Kernel {
 public:
  explicit FusedQLinearConvKernel(const NodeDef& def)
      : def_(def), relu_(def.attr_string("activation") == "Relu"), layout_(ReadConvLayout(def)) {}

  Status Run(KernelContext& ctx) const override {
    return RunOnNchw(ctx, layout_, 9, [&](KernelContext& c) { return RunNchw(c); });
  }

 private:
  Status RunNchw(KernelContext& ctx) const {
    KILN_ASSIGN_OR_RETURN(TensorView * out, BoundOutput(def_, ctx, 0));
    const TensorView* z = ctx.num_inputs() > 9 ? ctx.input(9) : nullptr;
    if (Omitted(z)) {
      QLinearConvInto(def_, ctx, *out, relu_);
      return Status::Ok();
    }
    HostTensor y_temp(out->dtype, out->dims);
    const TensorView y = y_temp.view();
    QLinearConvInto(def_, ctx, y, /*relu=*/false);
    const double out_scale = ScaleAt(*ctx.input(12), 0);
    const double ay = ScaleAt(*ctx.input(6), 0) / out_scale;
    const double az = ScaleAt(*ctx.input(10), 0) / out_scale;
    const int32_t yz = QAt(*ctx.input(7), 0), zz = QAt(*ctx.input(11), 0);
    const int32_t oz = QAt(*ctx.input(13), 0);
    std::vector<int64_t> zi;
    if (z->dims != out->dims) zi = BroadcastIndex(z->dims, out->dims);
    ctx.ParallelFor(out->num_elements(), 16384, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        const int64_t j = zi.empty() ? i : zi[static_cast<size_t>(i)];
        const double v = (QAt(y, i) - yz) * ay + (QAt(*z, j) - zz) * az;
        StoreQuantized(*out, i, relu_ && v < 0 ? 0.0 : v, oz);
      }
    });
    return Status::Ok();
  }

  NodeDef def_;
  bool relu_;
  ConvLayout layout_;
};

// ConvInteger(x, w, x_zero_point?, w_zero_point?) -> int32.
Status RunConvInteger(const NodeDef& def, KernelContext& ctx) {
  const TensorView &x = *ctx.input(0), &w = *ctx.input(1);
  KILN_ASSIGN_OR_RETURN(TensorView * y, BoundOutput(def, ctx, 0));
  const ConvGeometry g = ConvGeometryOf(def, x.dims, w.dims, y->dims);
  std::vector<int32_t> x32, w32;
  WidenConvInputs(g, x, ctx.input(2), w, ctx.input(3), x32, w32);
  int32_t* out = y->as<int32_t>();
  ConvolveInt(g, x32.data(), w32.data(), ctx,
              [&](int64_t i, int64_t, int32_t sum) { out[i] = sum; });
  return Status::Ok();
}

// ---------------------------------------------------------------------------------------------
// Matrix products.

// numpy.matmul of A [a_batch..., M, K] by B [b_batch..., K, N] (a 1-D A is one row, a 1-D B one
// column); the batches broadcast.
struct MatMulGeometry {
  int64_t m = 1, k = 1, n = 1;
  Dims a_batch, b_batch;
  // Per output batch: the flat batch index of A and of B it reads.
  std::vector<int64_t> a_index, b_index;
};

MatMulGeometry MatMulGeometryOf(const Dims& a, const Dims& b) {
  MatMulGeometry g;
  g.k = a.back();
  if (a.size() >= 2) g.m = a[a.size() - 2];
  if (b.size() >= 2) g.n = b.back();
  g.a_batch.assign(a.begin(), a.end() - static_cast<ptrdiff_t>(std::min<size_t>(a.size(), 2)));
  g.b_batch.assign(b.begin(), b.end() - static_cast<ptrdiff_t>(std::min<size_t>(b.size(), 2)));
  // The definition checked that the batches broadcast.
  const Dims batch = BroadcastDims({&g.a_batch, &g.b_batch}).value_or(Dims{});
  g.a_index = BroadcastIndex(g.a_batch, batch);
  g.b_index = BroadcastIndex(g.b_batch, batch);
  return g;
}

// Where a scale or zero point of a matrix input keeps the value of (the input's own flat batch
// index, row of A or column of B): one value; one per row or column ([len]); or the N-D form
// [batch..., len, 1] / [batch..., 1, len], its batch dims those of the input or 1.
struct MatrixParam {
  int64_t len = 0;             // 0: one value
  std::vector<int64_t> batch;  // N-D form: per batch of the input, the parameter's batch
  int64_t operator()(int64_t xb, int64_t i) const {
    if (len == 0) return 0;
    return (batch.empty() ? 0 : batch[static_cast<size_t>(xb)]) * len + i;
  }
};

MatrixParam MatrixParamOf(const TensorView* p, const Dims& x_batch, int64_t len) {
  MatrixParam q;
  if (p == nullptr || p->num_elements() == 1) return q;
  q.len = len;
  if (p->rank() > 1) q.batch = BroadcastIndex(Dims(p->dims.begin(), p->dims.end() - 2), x_batch);
  return q;
}

// A and B less their zero points (per row of A, per column of B), as int32, in their own
// layouts.
void WidenMatMulInputs(const MatMulGeometry& g, const TensorView& a, const TensorView* a_zp,
                       const TensorView& b, const TensorView* b_zp, std::vector<int32_t>& a32,
                       std::vector<int32_t>& b32) {
  const MatrixParam za = MatrixParamOf(a_zp, g.a_batch, g.m);
  const MatrixParam zb = MatrixParamOf(b_zp, g.b_batch, g.n);
  a32.resize(static_cast<size_t>(a.num_elements()));
  for (int64_t i = 0; i < a.num_elements(); ++i) {
    const int64_t row = i / g.k;
    a32[static_cast<size_t>(i)] = QAt(a, i) - ZeroAt(a_zp, za(row / g.m, row % g.m));
  }
  b32.resize(static_cast<size_t>(b.num_elements()));
  for (int64_t i = 0; i < b.num_elements(); ++i) {
    b32[static_cast<size_t>(i)] = QAt(b, i) - ZeroAt(b_zp, zb(i / (g.k * g.n), i % g.n));
  }
}

// Computes every element of the product of `a` by `b` (both widened) and hands it to
// emit(flat output index, A's batch, row, B's batch, column, 32-bit sum).
template <typename Emit>
void MatMulInt(const MatMulGeometry& g, const int32_t* a, const int32_t* b, KernelContext& ctx,
               Emit emit) {
  const int64_t rows = static_cast<int64_t>(g.a_index.size()) * g.m;
  ctx.ParallelFor(rows, 1, [&](int64_t begin, int64_t end) {
    for (int64_t row = begin; row < end; ++row) {
      const int64_t bi = row / g.m, i = row % g.m;
      const int64_t ab = g.a_index[static_cast<size_t>(bi)];
      const int64_t bb = g.b_index[static_cast<size_t>(bi)];
      const int32_t* ar = a + (ab * g.m + i) * g.k;
      const int32_t* bm = b + bb * g.k * g.n;
      for (int64_t j = 0; j < g.n; ++j) {
        int64_t sum = 0;  // truncated below: the same as a 32-bit sum that wraps
        for (int64_t kk = 0; kk < g.k; ++kk) sum += int64_t{ar[kk]} * bm[kk * g.n + j];
        emit(row * g.n + j, ab, i, bb, j, static_cast<int32_t>(sum));
      }
    }
  });
}

// MatMulInteger(A, B, a_zero_point?, b_zero_point?) -> int32.
Status RunMatMulInteger(const NodeDef& def, KernelContext& ctx) {
  const TensorView &a = *ctx.input(0), &b = *ctx.input(1);
  KILN_ASSIGN_OR_RETURN(TensorView * y, BoundOutput(def, ctx, 0));
  const MatMulGeometry g = MatMulGeometryOf(a.dims, b.dims);
  std::vector<int32_t> a32, b32;
  WidenMatMulInputs(g, a, ctx.input(2), b, ctx.input(3), a32, b32);
  int32_t* out = y->as<int32_t>();
  MatMulInt(g, a32.data(), b32.data(), ctx,
            [&](int64_t o, int64_t, int64_t, int64_t, int64_t, int32_t sum) { out[o] = sum; });
  return Status::Ok();
}

// QLinearMatMul(a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point), and
// Kiln's FusedQLinearMatMul with its int32 bias (input 8, one per column) added to the sum.
Status RunQLinearMatMul(const NodeDef& def, KernelContext& ctx) {
  const TensorView &a = *ctx.input(0), &a_scale = *ctx.input(1), &b = *ctx.input(3);
  const TensorView &b_scale = *ctx.input(4), &y_scale = *ctx.input(6), &y_zp = *ctx.input(7);
  const TensorView* bias = ctx.num_inputs() > 8 ? ctx.input(8) : nullptr;
  KILN_ASSIGN_OR_RETURN(TensorView * y, BoundOutput(def, ctx, 0));
  const MatMulGeometry g = MatMulGeometryOf(a.dims, b.dims);
  std::vector<int32_t> a32, b32;
  WidenMatMulInputs(g, a, ctx.input(2), b, ctx.input(5), a32, b32);
  const MatrixParam sa = MatrixParamOf(&a_scale, g.a_batch, g.m);
  const MatrixParam sb = MatrixParamOf(&b_scale, g.b_batch, g.n);
  const DataType t = a_scale.dtype;
  const float ys = ScaleAt(y_scale, 0);
  const int32_t yz = QAt(y_zp, 0);
  const int32_t* bd = Omitted(bias) ? nullptr : bias->as<int32_t>();
  MatMulInt(g, a32.data(), b32.data(), ctx,
            [&](int64_t o, int64_t ab, int64_t i, int64_t bb, int64_t j, int32_t sum) {
              const double multiplier =
                  Multiplier(t, ScaleAt(a_scale, sa(ab, i)), ScaleAt(b_scale, sb(bb, j)), ys);
              if (bd != nullptr) sum = static_cast<int32_t>(int64_t{sum} + bd[j]);  // wraps
              StoreRequantized(*y, o, sum, multiplier, yz);
            });
  return Status::Ok();
}

}  // namespace

void RegisterQLinearKernels(KernelRegistry& r) {
  RegisterStateless(r, "QLinearConv", RunQLinearConv);
  r.Register(kReferenceBackend, "com.kiln", "FusedQLinearConv",
             [](const NodeDef& def) -> Result<std::unique_ptr<Kernel>> {
               return std::unique_ptr<Kernel>(std::make_unique<FusedQLinearConvKernel>(def));
             });
  RegisterStateless(r, "ConvInteger", RunConvInteger);
  RegisterStateless(r, "QLinearMatMul", RunQLinearMatMul);
  r.Register(kReferenceBackend, "com.kiln", "FusedQLinearMatMul",
             [](const NodeDef& def) -> Result<std::unique_ptr<Kernel>> {
               return MakeFunctionKernel(def, RunQLinearMatMul);
             });
  RegisterStateless(r, "MatMulInteger", RunMatMulInteger);
}

}  // namespace kiln::kernels
