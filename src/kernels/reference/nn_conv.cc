// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Reference convolutions and pools: Conv, ConvTranspose, MaxPool, AveragePool, LpPool and the
// global pools, over any number of spatial dims (up to kMaxSpatial). Plain loops: a
// convolution accumulates, per output plane, one kernel tap at a time over the rows of output
// positions that tap reads inside the input, so padding is skipped by bounds, never tested per
// element. Sums run in double. The attributes come from kernels/attrs.h, which the CPU backend's
// kernels share, and the window they give over an input from the op definitions (ir/ops/nn.h):
// the node, its inputs and the bound outputs fit it.
#include "kernels/reference/nn_conv.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/reference/families.h"
#include "kernels/util.h"

namespace kiln::kernels {
namespace {

constexpr size_t kMaxSpatial = kMaxSpatialDims;
using SmallDims = std::array<int64_t, kMaxSpatial>;

int64_t FloorDiv(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }  // b > 0
int64_t CeilDiv(int64_t a, int64_t b) { return -FloorDiv(-a, b); }                       // b > 0

template <typename C>
bool IsNan(C v) {
  if constexpr (std::is_floating_point_v<C>) {
    return std::isnan(v);
  } else {
    return false;
  }
}

// The lowest finite value of element type T, as its compute type.
template <typename T>
ComputeT<T> Lowest() {
  if constexpr (std::is_same_v<T, Half>) {
    return -65504.0f;
  } else if constexpr (std::is_same_v<T, BFloat16>) {
    return BFloat16ToFloat(0xff7f);
  } else {
    return std::numeric_limits<T>::lowest();
  }
}

// Calls fn(a, b, n) for every row of positions p in `a_dims` (a row runs along the last dim)
// whose image q = p * stride + off (per dim) lies inside `b_dims`: `a` is the flat index of the
// row's first p, `b` that of its q; along the row p advances by 1 and q by stride[rank - 1].
template <typename Fn>
void ForEachMappedRow(size_t rank, const int64_t* a_dims, const int64_t* a_strides,
                      const int64_t* b_dims, const int64_t* b_strides, const int64_t* stride,
                      const int64_t* off, Fn&& fn) {
  SmallDims lo, hi, p;
  for (size_t i = 0; i < rank; ++i) {
    lo[i] = off[i] >= 0 ? 0 : CeilDiv(-off[i], stride[i]);
    int64_t top = b_dims[i] - 1 - off[i];
    hi[i] = top < 0 ? 0 : std::min(a_dims[i], top / stride[i] + 1);
    if (lo[i] >= hi[i]) return;
    p[i] = lo[i];
  }
  const size_t last = rank - 1;
  const int64_t n = hi[last] - lo[last];
  for (;;) {
    int64_t a = 0, b = 0;
    for (size_t i = 0; i < rank; ++i) {
      a += p[i] * a_strides[i];
      b += (p[i] * stride[i] + off[i]) * b_strides[i];
    }
    fn(a, b, n);
    size_t d = last;
    for (;;) {
      if (d == 0) return;
      --d;
      if (++p[d] < hi[d]) break;
      p[d] = lo[d];
    }
  }
}

// Calls fn(tap, off) for every kernel tap (its flat index in the kernel) with off[i] =
// k[i] * dilation[i] - pad_begin[i], the input (Conv) or output (ConvTranspose) offset.
template <typename Fn>
void ForEachTap(const Window& w, Fn&& fn) {
  SmallDims k{}, off;
  for (size_t i = 0; i < w.rank; ++i) off[i] = -w.pad_begin[i];
  const int64_t taps = NumElements(w.kernel);
  for (int64_t t = 0; t < taps; ++t) {
    fn(t, off.data());
    for (size_t d = w.rank; d-- > 0;) {
      off[d] += w.dilation[d];
      if (++k[d] < w.kernel[d]) break;
      k[d] = 0;
      off[d] = -w.pad_begin[d];
    }
  }
}

// The inputs common to Conv and ConvTranspose: X [N, C, ...], W [., ., k...], optional B.
struct ConvInputs {
  const TensorView* x = nullptr;
  const TensorView* w = nullptr;
  const TensorView* b = nullptr;
};

ConvInputs ReadConvInputs(const KernelContext& ctx) {
  return {ctx.input(0), ctx.input(1), ctx.num_inputs() > 2 ? ctx.input(2) : nullptr};
}

// Spatial dims of a tensor of rank >= 2.
Dims Spatial(const Dims& d) { return Dims(d.begin() + 2, d.end()); }

// The window of `a` over spatial dims `in` with kernel dims `kernel`: the op definition has
// checked that it fits, so an error here means a caller skipped the definition.
Result<Window> WindowOver(const NodeDef& def, const WindowAttrs& a, const Dims& in,
                          const Dims& kernel) {
  Result<Window> w = ir::ResolveWindow(a, in, kernel);
  if (!w.ok()) return def.Fail(w.status().code(), w.status().message());
  return w;
}

// ---------------------------------------------------------------------------------------------
// Conv.

template <typename T>
void ConvCompute(const ConvInputs& in, const Window& w, int64_t group, TensorView& y,
                 KernelContext& ctx) {
  const T* x = in.x->as<const T>();
  const T* wt = in.w->as<const T>();
  const T* b = in.b ? in.b->as<const T>() : nullptr;
  T* out = y.as<T>();
  const int64_t n_batch = in.x->dims[0], c_in = in.x->dims[1], m_out = in.w->dims[0];
  const int64_t c_group = c_in / group, m_group = m_out / group;
  const int64_t in_size = NumElements(w.in), out_size = NumElements(w.out);
  const int64_t taps = NumElements(w.kernel);
  const Dims in_strides = Strides(w.in), out_strides = Strides(w.out);
  const int64_t s_last = w.stride[w.rank - 1];
  ctx.ParallelFor(n_batch * m_out, 1, [&](int64_t begin, int64_t end) {
    std::vector<double> acc(static_cast<size_t>(out_size));
    for (int64_t nm = begin; nm < end; ++nm) {
      const int64_t n = nm / m_out, m = nm % m_out, g = m / m_group;
      std::fill(acc.begin(), acc.end(), b ? static_cast<double>(Load(b, m)) : 0.0);
      for (int64_t c = 0; c < c_group; ++c) {
        const T* xp = x + (n * c_in + g * c_group + c) * in_size;
        const T* wp = wt + (m * c_group + c) * taps;
        ForEachTap(w, [&](int64_t t, const int64_t* off) {
          const double wv = static_cast<double>(Load(wp, t));
          ForEachMappedRow(w.rank, w.out.data(), out_strides.data(), w.in.data(), in_strides.data(),
                           w.stride.data(), off, [&](int64_t a, int64_t bi, int64_t len) {
                             double* ap = acc.data() + a;
                             for (int64_t j = 0; j < len; ++j) {
                               ap[j] += wv * static_cast<double>(Load(xp, bi + j * s_last));
                             }
                           });
        });
      }
      T* yp = out + nm * out_size;
      for (int64_t i = 0; i < out_size; ++i) {
        Store(yp, i, static_cast<ComputeT<T>>(acc[static_cast<size_t>(i)]));
      }
    }
  });
}

class ConvKernel final : public Kernel {
 public:
  ConvKernel(const NodeDef& def, ConvAttrs attrs) : def_(def), attrs_(std::move(attrs)) {}
  Status Run(KernelContext& ctx) const override { return RunConv(def_, attrs_, ctx).status(); }

 private:
  NodeDef def_;
  ConvAttrs attrs_;
};

// ---------------------------------------------------------------------------------------------
// ConvTranspose.

template <typename T>
void ConvTransposeCompute(const ConvInputs& in, const Window& w, int64_t group, TensorView& y,
                          KernelContext& ctx) {
  const T* x = in.x->as<const T>();
  const T* wt = in.w->as<const T>();
  const T* b = in.b ? in.b->as<const T>() : nullptr;
  T* out = y.as<T>();
  const int64_t n_batch = in.x->dims[0], c_in = in.x->dims[1], m_group = in.w->dims[1];
  const int64_t c_group = c_in / group, m_out = m_group * group;
  const int64_t in_size = NumElements(w.in), out_size = NumElements(w.out);
  const int64_t taps = NumElements(w.kernel);
  const Dims in_strides = Strides(w.in), out_strides = Strides(w.out);
  const int64_t s_last = w.stride[w.rank - 1];
  ctx.ParallelFor(n_batch * m_out, 1, [&](int64_t begin, int64_t end) {
    std::vector<double> acc(static_cast<size_t>(out_size));
    for (int64_t nm = begin; nm < end; ++nm) {
      const int64_t n = nm / m_out, m = nm % m_out, g = m / m_group, mg = m % m_group;
      std::fill(acc.begin(), acc.end(), b ? static_cast<double>(Load(b, m)) : 0.0);
      for (int64_t c = 0; c < c_group; ++c) {
        const T* xp = x + (n * c_in + g * c_group + c) * in_size;
        const T* wp = wt + ((g * c_group + c) * m_group + mg) * taps;
        ForEachTap(w, [&](int64_t t, const int64_t* off) {
          const double wv = static_cast<double>(Load(wp, t));
          ForEachMappedRow(w.rank, w.in.data(), in_strides.data(), w.out.data(), out_strides.data(),
                           w.stride.data(), off, [&](int64_t a, int64_t bi, int64_t len) {
                             double* op = acc.data() + bi;
                             for (int64_t j = 0; j < len; ++j) {
                               op[j * s_last] += wv * static_cast<double>(Load(xp, a + j));
                             }
                           });
        });
      }
      T* yp = out + nm * out_size;
      for (int64_t i = 0; i < out_size; ++i) {
        Store(yp, i, static_cast<ComputeT<T>>(acc[static_cast<size_t>(i)]));
      }
    }
  });
}

class ConvTransposeKernel final : public Kernel {
 public:
  ConvTransposeKernel(const NodeDef& def, ConvAttrs attrs) : def_(def), attrs_(std::move(attrs)) {}
  Status Run(KernelContext& ctx) const override {
    return RunConvTranspose(def_, attrs_, ctx).status();
  }

 private:
  NodeDef def_;
  ConvAttrs attrs_;
};

// ---------------------------------------------------------------------------------------------
// Pools.

// One output position's window: for each dim the range [lo, hi) of kernel indices that land
// inside the input, the input position of kernel index 0, and how many window positions lie
// inside the input plus its explicit (or auto) pads.
struct WindowSpan {
  SmallDims lo, hi, start;
  int64_t padded_count = 1;
  bool empty = false;
};

WindowSpan SpanAt(const Window& w, const int64_t* o) {
  WindowSpan s;
  for (size_t i = 0; i < w.rank; ++i) {
    const int64_t d = w.dilation[i], start = o[i] * w.stride[i] - w.pad_begin[i];
    s.start[i] = start;
    s.lo[i] = start >= 0 ? 0 : CeilDiv(-start, d);
    const int64_t top = w.in[i] - 1 - start;
    s.hi[i] = top < 0 ? 0 : std::min(w.kernel[i], top / d + 1);
    if (s.lo[i] >= s.hi[i]) s.empty = true;
    const int64_t padded_top = w.in[i] + w.pad_end[i] - 1 - start;
    s.padded_count *= padded_top < 0 ? 0 : std::min(w.kernel[i], padded_top / d + 1);
  }
  return s;
}

// Calls fn(spatial) for the input position (as a SmallDims) of every window element inside
// the input.
template <typename Fn>
void ForEachInWindow(const Window& w, const WindowSpan& s, Fn&& fn) {
  if (s.empty) return;
  SmallDims k = s.lo, pos;
  for (;;) {
    for (size_t i = 0; i < w.rank; ++i) pos[i] = s.start[i] + k[i] * w.dilation[i];
    fn(pos);
    size_t d = w.rank;
    for (;;) {
      if (d == 0) return;
      --d;
      if (++k[d] < s.hi[d]) break;
      k[d] = s.lo[d];
    }
  }
}

template <typename T>
void PoolCompute(const PoolAttrs& a, const Window& w, const TensorView& x, TensorView& y,
                 int64_t* indices, KernelContext& ctx) {
  using C = ComputeT<T>;
  const T* xd = x.as<const T>();
  T* yd = y.as<T>();
  const int64_t planes = x.dims[0] * x.dims[1];
  const int64_t in_size = NumElements(w.in), out_size = NumElements(w.out);
  const Dims row_strides = Strides(w.in);
  Dims col_strides(w.rank, 1);  // storage_order 1: the first spatial dim varies fastest
  for (size_t i = 1; i < w.rank; ++i) col_strides[i] = col_strides[i - 1] * w.in[i - 1];
  const Dims& idx_strides = a.column_major_indices ? col_strides : row_strides;
  const int64_t window_size = std::max<int64_t>(1, NumElements(w.kernel));
  const int64_t grain = std::max<int64_t>(1, 65536 / std::max<int64_t>(1, out_size * window_size));
  ctx.ParallelFor(planes, grain, [&](int64_t begin, int64_t end) {
    for (int64_t plane = begin; plane < end; ++plane) {
      const T* xp = xd + plane * in_size;
      T* yp = yd + plane * out_size;
      SmallDims o{};
      for (int64_t oi = 0; oi < out_size; ++oi) {
        const WindowSpan s = SpanAt(w, o.data());
        if (a.kind == PoolKind::kMax) {
          bool found = false;
          C best{};
          int64_t best_index = -1;
          ForEachInWindow(w, s, [&](const SmallDims& pos) {
            int64_t flat = 0;
            for (size_t i = 0; i < w.rank; ++i) flat += pos[i] * row_strides[i];
            const C v = Load(xp, flat);
            // NaNs are skipped unless the window holds nothing else.
            if (!found || v > best || (IsNan(best) && !IsNan(v))) {
              found = true;
              best = v;
              best_index = 0;
              for (size_t i = 0; i < w.rank; ++i) best_index += pos[i] * idx_strides[i];
            }
          });
          if (!found) best = Lowest<T>();
          Store(yp, oi, best);
          if (indices) {
            indices[plane * out_size + oi] = found ? plane * in_size + best_index : -1;
          }
        } else {
          double sum = 0;
          int64_t count = 0;
          ForEachInWindow(w, s, [&](const SmallDims& pos) {
            int64_t flat = 0;
            for (size_t i = 0; i < w.rank; ++i) flat += pos[i] * row_strides[i];
            const double v = static_cast<double>(Load(xp, flat));
            sum += a.kind == PoolKind::kLp ? std::pow(std::fabs(v), static_cast<double>(a.p)) : v;
            ++count;
          });
          double r;
          if (a.kind == PoolKind::kLp) {
            r = std::pow(sum, 1.0 / static_cast<double>(a.p));
          } else {
            r = sum / static_cast<double>(a.count_include_pad ? s.padded_count : count);
          }
          Store(yp, oi, static_cast<C>(r));
        }
        for (size_t d = w.rank; d-- > 0;) {
          if (++o[d] < w.out[d]) break;
          o[d] = 0;
        }
      }
    }
  });
}

Status RunPool(const NodeDef& def, const PoolAttrs& a, KernelContext& ctx) {
  const TensorView* x = ctx.input(0);
  KILN_ASSIGN_OR_RETURN(TensorView * y, BoundOutput(def, ctx, 0));
  // MaxPool's optional Indices (int64, Y's dims).
  TensorView* iv = a.kind == PoolKind::kMax && ctx.num_outputs() > 1 ? ctx.output(1) : nullptr;
  int64_t* indices = iv ? iv->as<int64_t>() : nullptr;
  KILN_ASSIGN_OR_RETURN(Window w,
                        WindowOver(def, a.window, Spatial(x->dims), a.window.kernel_shape));
  DispatchNumeric(x->dtype, [&](auto tag) {
    PoolCompute<typename decltype(tag)::type>(a, w, *x, *y, indices, ctx);
  });
  return Status::Ok();
}

class PoolKernel final : public Kernel {
 public:
  PoolKernel(const NodeDef& def, PoolAttrs attrs) : def_(def), attrs_(std::move(attrs)) {}
  Status Run(KernelContext& ctx) const override { return RunPool(def_, attrs_, ctx); }

 private:
  NodeDef def_;
  PoolAttrs attrs_;
};

// GlobalAveragePool, GlobalMaxPool and GlobalLpPool: one value per (n, c) plane.
template <typename T>
void GlobalPoolCompute(PoolKind kind, int64_t p, const TensorView& x, TensorView& y,
                       KernelContext& ctx) {
  using C = ComputeT<T>;
  const T* xd = x.as<const T>();
  T* yd = y.as<T>();
  const int64_t planes = x.dims[0] * x.dims[1];
  const int64_t size = Product(x.dims, 2, x.dims.size());
  const int64_t grain = std::max<int64_t>(1, 65536 / std::max<int64_t>(1, size));
  ctx.ParallelFor(planes, grain, [&](int64_t begin, int64_t end) {
    for (int64_t plane = begin; plane < end; ++plane) {
      const T* xp = xd + plane * size;
      if (kind == PoolKind::kMax) {
        C best = Lowest<T>();
        bool found = false;
        for (int64_t i = 0; i < size; ++i) {
          const C v = Load(xp, i);
          if (!found || v > best || (IsNan(best) && !IsNan(v))) best = v;
          found = true;
        }
        Store(yd, plane, best);
        continue;
      }
      double sum = 0;
      for (int64_t i = 0; i < size; ++i) {
        const double v = static_cast<double>(Load(xp, i));
        sum += kind == PoolKind::kLp ? std::pow(std::fabs(v), static_cast<double>(p)) : v;
      }
      const double r = kind == PoolKind::kLp ? std::pow(sum, 1.0 / static_cast<double>(p))
                                             : sum / static_cast<double>(size);
      Store(yd, plane, static_cast<C>(r));
    }
  });
}

struct GlobalPoolAttrs {
  PoolKind kind;
  int64_t p;
};

class GlobalPoolKernel final : public Kernel {
 public:
  GlobalPoolKernel(const NodeDef& def, GlobalPoolAttrs attrs) : def_(def), attrs_(attrs) {}
  Status Run(KernelContext& ctx) const override {
    const TensorView* x = ctx.input(0);
    KILN_ASSIGN_OR_RETURN(TensorView * y, BoundOutput(def_, ctx, 0));
    DispatchFloat(x->dtype, [&](auto tag) {
      GlobalPoolCompute<typename decltype(tag)::type>(attrs_.kind, attrs_.p, *x, *y, ctx);
    });
    return Status::Ok();
  }

 private:
  NodeDef def_;
  GlobalPoolAttrs attrs_;
};

// com.kiln MaxPool / AveragePool (channels_last's pools): the pool over X and Y as stored
// (NHWC, maybe bf16; ConvLayout's X and Y flags), seen in plain NCHW float32 through NchwContext.
class LayoutPoolKernel final : public Kernel {
 public:
  LayoutPoolKernel(const NodeDef& def, PoolAttrs attrs)
      : pool_(def, std::move(attrs)), layout_(ReadConvLayout(def)) {}
  Status Run(KernelContext& ctx) const override {
    return RunOnNchw(ctx, layout_, SIZE_MAX, [&](KernelContext& c) { return pool_.Run(c); });
  }

 private:
  PoolKernel pool_;
  ConvLayout layout_;
};

// ONNX's pools, and com.kiln's (with the layout flags).
KernelFactory PoolFactory(PoolKind kind) {
  return [kind](const NodeDef& def) -> Result<std::unique_ptr<Kernel>> {
    PoolAttrs attrs = ReadPoolAttrs(def, kind);
    if (def.domain == "com.kiln") {
      return std::unique_ptr<Kernel>(std::make_unique<LayoutPoolKernel>(def, std::move(attrs)));
    }
    return std::unique_ptr<Kernel>(std::make_unique<PoolKernel>(def, std::move(attrs)));
  };
}

KernelFactory GlobalPoolFactory(PoolKind kind) {
  return [kind](const NodeDef& def) -> Result<std::unique_ptr<Kernel>> {
    const GlobalPoolAttrs a{kind, kind == PoolKind::kLp ? def.attr_int("p") : 2};
    return std::unique_ptr<Kernel>(std::make_unique<GlobalPoolKernel>(def, a));
  };
}

}  // namespace

ConvLayout ReadConvLayout(const NodeDef& def) {
  return {def.attr_int("kiln_x_nhwc") == 1, def.attr_int("kiln_y_nhwc") == 1,
          def.attr_int("kiln_z_nhwc") == 1, def.attr_int("kiln_x_bf16") == 1,
          def.attr_int("kiln_y_bf16") == 1, def.attr_int("kiln_z_bf16") == 1,
          def.attr_int("kiln_x_cblock"),    def.attr_int("kiln_y_cblock"),
          def.attr_int("kiln_z_cblock")};
}

namespace {

// One (image, pixel) per step: its C elements gathered from channels-last storage or scattered
// into it, each converted by `convert` (S to D). Channels-last is N, C/b, H, W, b with a `block`
// b; 0 is b = C, which is NHWC.
template <typename S, typename D, typename Convert>
void TransposeConverting(const void* src, void* dst, const Dims& nchw, bool to_nhwc,
                         Convert convert, KernelContext& ctx, int64_t block = 0) {
  const int64_t n = nchw[0], c = nchw[1], hw = nchw[2] * nchw[3];
  const int64_t b = block > 0 ? block : c;
  const auto* s = static_cast<const S*>(src);
  auto* d = static_cast<D*>(dst);
  ctx.ParallelFor(n * hw, 1024, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      const int64_t img = i / hw, p = i % hw;
      for (int64_t ch = 0; ch < c; ++ch) {
        const int64_t planar = (img * c + ch) * hw + p;                          // NCHW offset
        const int64_t packed = ((img * c + ch - ch % b) * hw + p * b) + ch % b;  // blocked
        if (to_nhwc) {
          d[packed] = convert(s[planar]);
        } else {
          d[planar] = convert(s[packed]);
        }
      }
    }
  });
}

}  // namespace

void TransposeChannels(const void* src, void* dst, const Dims& nchw, size_t elem_size, bool to_nhwc,
                       KernelContext& ctx, int64_t block) {
  auto run = [&](auto word) {  // elements moved as words of their size
    using W = decltype(word);
    TransposeConverting<W, W>(
        src, dst, nchw, to_nhwc, [](W v) { return v; }, ctx, block);
  };
  switch (elem_size) {
    case 1:
      return run(uint8_t{});
    case 2:
      return run(uint16_t{});
    case 4:
      return run(uint32_t{});
    default:  // 8: the widest element a convolution takes (double)
      return run(uint64_t{});
  }
}

void TransposeChannelsBf16(const void* src, void* dst, const Dims& nchw, bool to_nhwc,
                           KernelContext& ctx) {
  if (to_nhwc) {
    TransposeConverting<float, uint16_t>(
        src, dst, nchw, true, [](float v) { return FloatToBFloat16(v); }, ctx);
  } else {
    TransposeConverting<uint16_t, float>(
        src, dst, nchw, false, [](uint16_t v) { return BFloat16ToFloat(v); }, ctx);
  }
}

Result<TensorView*> RunConv(const NodeDef& def, const ConvAttrs& a, KernelContext& ctx) {
  const ConvInputs in = ReadConvInputs(ctx);
  KILN_ASSIGN_OR_RETURN(TensorView * y, BoundOutput(def, ctx, 0));
  KILN_ASSIGN_OR_RETURN(Window w,
                        WindowOver(def, a.window, Spatial(in.x->dims), Spatial(in.w->dims)));
  DispatchFloat(in.x->dtype, [&](auto tag) {
    ConvCompute<typename decltype(tag)::type>(in, w, a.group, *y, ctx);
  });
  return y;
}

Result<TensorView*> RunConvTranspose(const NodeDef& def, const ConvAttrs& a, KernelContext& ctx) {
  const ConvInputs in = ReadConvInputs(ctx);
  KILN_ASSIGN_OR_RETURN(TensorView * y, BoundOutput(def, ctx, 0));
  KILN_ASSIGN_OR_RETURN(Window w,
                        WindowOver(def, a.window, Spatial(in.x->dims), Spatial(in.w->dims)));
  DispatchFloat(in.x->dtype, [&](auto tag) {
    ConvTransposeCompute<typename decltype(tag)::type>(in, w, a.group, *y, ctx);
  });
  return y;
}

void RegisterNnConvKernels(KernelRegistry& r) {
  r.Register(
      kReferenceBackend, "", "Conv", [](const NodeDef& def) -> Result<std::unique_ptr<Kernel>> {
        return std::unique_ptr<Kernel>(std::make_unique<ConvKernel>(def, ReadConvAttrs(def)));
      });
  r.Register(kReferenceBackend, "", "ConvTranspose",
             [](const NodeDef& def) -> Result<std::unique_ptr<Kernel>> {
               return std::unique_ptr<Kernel>(
                   std::make_unique<ConvTransposeKernel>(def, ReadConvAttrs(def)));
             });
  r.Register(kReferenceBackend, "", "MaxPool", PoolFactory(PoolKind::kMax));
  r.Register(kReferenceBackend, "", "AveragePool", PoolFactory(PoolKind::kAverage));
  r.Register(kReferenceBackend, "com.kiln", "MaxPool", PoolFactory(PoolKind::kMax));
  r.Register(kReferenceBackend, "com.kiln", "AveragePool", PoolFactory(PoolKind::kAverage));
  r.Register(kReferenceBackend, "", "LpPool", PoolFactory(PoolKind::kLp));
  r.Register(kReferenceBackend, "", "GlobalMaxPool", GlobalPoolFactory(PoolKind::kMax));
  r.Register(kReferenceBackend, "", "GlobalAveragePool", GlobalPoolFactory(PoolKind::kAverage));
  r.Register(kReferenceBackend, "", "GlobalLpPool", GlobalPoolFactory(PoolKind::kLp));
}

}  // namespace kiln::kernels
