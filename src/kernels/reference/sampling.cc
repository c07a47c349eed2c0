// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Reference kernels of the sampling family: GridSample, AffineGrid and Col2Im. Their
// definitions (ir/ops/sampling.cc) check the nodes and give the output dims; the kernels write
// into the bound outputs.
//
// GridSample follows ONNX's reference implementation: sampling coordinates are computed in the
// grid's precision (float unless the grid is float64), interpolation in double; integer
// outputs are truncated and saturated to their type, bool outputs are "!= 0".
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "kernels/reference/common.h"
#include "kernels/reference/families.h"
#include "kernels/util.h"

namespace kiln::kernels {
namespace {

using Doubles = std::vector<double>;

template <typename T>
double LoadValue(const T* p, int64_t i) {
  return static_cast<double>(Load(p, i));
}

// A double as an index: NaN and huge values become a far out-of-range index.
int64_t ToIndex(double v) {
  constexpr double kFar = 1e15;
  if (std::isnan(v) || v < -kFar) return -static_cast<int64_t>(kFar);
  if (v > kFar) return static_cast<int64_t>(kFar);
  return static_cast<int64_t>(v);
}

// ---------------------------------------------------------------------------------------------
// GridSample.

enum class GridMode { kLinear, kNearest, kCubic };
enum class GridPad { kZeros, kBorder, kReflection };

struct GridAttrs {
  GridMode mode = GridMode::kLinear;
  GridPad pad = GridPad::kZeros;
  bool align = false;
};

// Reflects x by the borders [lo, hi] until it lies between them.
double Reflect(double x, double lo, double hi) {
  const double range = hi - lo;
  if (!(range > 0.0)) return lo;  // a one-pixel axis with align_corners
  if (x < lo) {
    const double dx = lo - x;
    const double n = std::floor(dx / range);
    const double r = dx - n * range;
    return std::fmod(n, 2.0) == 0.0 ? lo + r : hi - r;
  }
  if (x > hi) {
    const double dx = x - hi;
    const double n = std::floor(dx / range);
    const double r = dx - n * range;
    return std::fmod(n, 2.0) == 0.0 ? hi - r : lo + r;
  }
  return x;
}

// Round half to even (numpy's rint), independent of the floating-point environment.
double RoundHalfEven(double x) {
  const double f = std::floor(x);
  const double diff = x - f;
  if (diff > 0.5) return f + 1.0;
  if (diff < 0.5) return f;
  return std::fmod(f, 2.0) == 0.0 ? f : f + 1.0;
}

// Keys' cubic convolution weights (alpha = -0.75) of the taps at -1, 0, 1, 2 for offset t.
void CubicWeights(double t, double w[4]) {
  constexpr double A = -0.75;
  const double t1 = t + 1.0, u = 1.0 - t, u1 = 2.0 - t;
  w[0] = ((A * t1 - 5.0 * A) * t1 + 8.0 * A) * t1 - 4.0 * A;
  w[1] = ((A + 2.0) * t - (A + 3.0)) * t * t + 1.0;
  w[2] = ((A + 2.0) * u - (A + 3.0)) * u * u + 1.0;
  w[3] = ((A * u1 - 5.0 * A) * u1 + 8.0 * A) * u1 - 4.0 * A;
}

// One spatial axis of the input: its size and the borders coordinates are folded back into.
struct Axis {
  int64_t size = 0;
  double lo = 0.0, hi = 0.0;
};

// The element of an axis an integer tap reads under the padding mode; -1 for a zero.
int64_t TapIndex(int64_t i, const Axis& a, GridPad pad) {
  if (pad == GridPad::kZeros) return i >= 0 && i < a.size ? i : -1;
  if (pad == GridPad::kReflection && (i < 0 || i >= a.size)) {
    i = ToIndex(Reflect(static_cast<double>(i), a.lo, a.hi));
  }
  return std::clamp<int64_t>(i, 0, a.size - 1);
}

template <typename T>
void RunGridSampleTyped(const TensorView* x, const TensorView* grid, TensorView* out,
                        const GridAttrs& at) {
  const size_t r = x->rank() - 2;
  const int64_t N = x->dims[0], C = x->dims[1];
  const int64_t out_n = out->num_elements();
  if (out_n == 0) return;

  // The definition checked that no spatial axis of X is empty when there is output to sample.
  std::vector<Axis> axes(r);
  int64_t in_size = 1;
  for (size_t i = 0; i < r; ++i) {
    Axis& a = axes[i];
    a.size = x->dims[i + 2];
    a.lo = at.align ? 0.0 : -0.5;
    a.hi = at.align ? static_cast<double>(a.size - 1) : static_cast<double>(a.size) - 0.5;
    in_size *= a.size;
  }
  const Dims in_strides = Strides(Dims(x->dims.begin() + 2, x->dims.end()));
  const int64_t out_spatial = out_n / (N * C);
  const bool single = grid->dtype != DataType::kFloat64;
  auto narrow = [single](double v) {
    return single ? static_cast<double>(static_cast<float>(v)) : v;
  };
  const Doubles g = ReadDoubles(*grid);
  const T* px = x->as<const T>();
  T* py = out->as<T>();

  const int taps = at.mode == GridMode::kCubic ? 4 : at.mode == GridMode::kLinear ? 2 : 1;
  // Per axis: the taps' element indices (-1 = zero padding) and weights.
  std::vector<int64_t> tap_index(r * 4);
  std::vector<double> tap_weight(r * 4);
  std::vector<int> counter(r);
  for (int64_t n = 0; n < N; ++n) {
    for (int64_t o = 0; o < out_spatial; ++o) {
      const double* gv = &g[static_cast<size_t>((n * out_spatial + o) * static_cast<int64_t>(r))];
      for (size_t i = 0; i < r; ++i) {
        const Axis& a = axes[i];
        // The grid lists coordinates innermost axis first.
        const double gn = narrow(gv[r - 1 - i]);
        const double len = static_cast<double>(a.size);
        double c = at.align ? narrow(narrow(narrow(gn + 1.0) / 2.0) * (len - 1.0))
                            : narrow(narrow(narrow(narrow(gn + 1.0) * len) - 1.0) / 2.0);
        if (at.mode == GridMode::kNearest) c = RoundHalfEven(c);
        if (c < a.lo || c > a.hi) {
          if (at.pad == GridPad::kBorder) c = narrow(std::clamp(c, 0.0, len - 1.0));
          if (at.pad == GridPad::kReflection) c = narrow(Reflect(c, a.lo, a.hi));
        }
        int64_t* ti = &tap_index[i * 4];
        double* tw = &tap_weight[i * 4];
        if (at.mode == GridMode::kNearest) {
          ti[0] = TapIndex(ToIndex(c), a, at.pad);
          tw[0] = 1.0;
          continue;
        }
        const double f = std::floor(c);
        const double t = c - f;
        const int64_t i0 = ToIndex(f);
        if (at.mode == GridMode::kLinear) {
          tw[0] = 1.0 - t;
          tw[1] = t;
          ti[0] = TapIndex(i0, a, at.pad);
          ti[1] = TapIndex(i0 + 1, a, at.pad);
        } else {
          CubicWeights(t, tw);
          for (int k = 0; k < 4; ++k) ti[k] = TapIndex(i0 - 1 + k, a, at.pad);
        }
      }
      for (int64_t ch = 0; ch < C; ++ch) {
        const int64_t in_base = (n * C + ch) * in_size;
        const int64_t out_i = (n * C + ch) * out_spatial + o;
        if (at.mode == GridMode::kNearest) {
          int64_t at_ = 0;
          bool zero = false;
          for (size_t i = 0; i < r; ++i) {
            zero = zero || tap_index[i * 4] < 0;
            at_ += tap_index[i * 4] * in_strides[i];
          }
          if (zero) {
            StoreSaturating(py, out_i, 0.0);
          } else {
            py[out_i] = px[in_base + at_];  // an exact copy of the nearest element
          }
          continue;
        }
        // Sum over every combination of taps (taps^r corners).
        double acc = 0.0;
        std::fill(counter.begin(), counter.end(), 0);
        while (true) {
          double w = 1.0;
          int64_t at_ = 0;
          bool zero = false;
          for (size_t i = 0; i < r; ++i) {
            const int64_t idx = tap_index[i * 4 + static_cast<size_t>(counter[i])];
            w *= tap_weight[i * 4 + static_cast<size_t>(counter[i])];
            zero = zero || idx < 0;
            at_ += idx * in_strides[i];
          }
          if (!zero) acc += w * LoadValue(px, in_base + at_);
          size_t i = r;
          while (i > 0 && ++counter[i - 1] == taps) counter[--i] = 0;
          if (i == 0) break;
        }
        StoreSaturating(py, out_i, acc);
      }
    }
  }
}

Status RunGridSample(const NodeDef& def, KernelContext& ctx) {
  KILN_ASSIGN_OR_RETURN(const TensorView* x, RequiredInput(def, ctx, 0));
  KILN_ASSIGN_OR_RETURN(const TensorView* grid, RequiredInput(def, ctx, 1));
  KILN_ASSIGN_OR_RETURN(TensorView * out, BoundOutput(def, ctx, 0));
  GridAttrs at;
  const std::string mode = def.attr_string("mode");
  at.mode = mode == "nearest"                      ? GridMode::kNearest
            : mode == "cubic" || mode == "bicubic" ? GridMode::kCubic
                                                   : GridMode::kLinear;
  const std::string pad = def.attr_string("padding_mode");
  at.pad = pad == "border"       ? GridPad::kBorder
           : pad == "reflection" ? GridPad::kReflection
                                 : GridPad::kZeros;
  at.align = def.attr_int("align_corners") == 1;
  DispatchAny(x->dtype, [&](auto tag) {
    RunGridSampleTyped<typename decltype(tag)::type>(x, grid, out, at);
  });
  return Status::Ok();
}

// ---------------------------------------------------------------------------------------------
// AffineGrid.

// The normalised coordinate of pixel i of n along one axis.
double GridCoordinate(int64_t i, int64_t n, bool align) {
  if (align) return n > 1 ? -1.0 + static_cast<double>(i) * 2.0 / static_cast<double>(n - 1) : -1.0;
  const double step = 2.0 / static_cast<double>(n);
  return -1.0 + step / 2.0 + static_cast<double>(i) * step;
}

Status RunAffineGrid(const NodeDef& def, KernelContext& ctx) {
  KILN_ASSIGN_OR_RETURN(const TensorView* theta, RequiredInput(def, ctx, 0));
  KILN_ASSIGN_OR_RETURN(TensorView * y, BoundOutput(def, ctx, 0));
  const bool align = def.attr_int("align_corners") == 1;
  // The grid is [N, H, W, 2] or [N, D, H, W, 3] (the size input gave its dims).
  const size_t spatial = y->rank() - 2;
  const int64_t N = y->dims[0];
  const int64_t D = spatial == 3 ? y->dims[1] : 1;
  const int64_t H = y->dims[spatial - 1], W = y->dims[spatial];
  const Doubles th = ReadDoubles(*theta);
  Doubles out(static_cast<size_t>(y->num_elements()));
  const size_t cols = spatial + 1;
  size_t o = 0;
  for (int64_t n = 0; n < N; ++n) {
    const double* t = &th[static_cast<size_t>(n) * spatial * cols];
    for (int64_t d = 0; d < D; ++d) {
      const double z = GridCoordinate(d, D, align);
      for (int64_t h = 0; h < H; ++h) {
        const double y = GridCoordinate(h, H, align);
        for (int64_t w = 0; w < W; ++w) {
          const double xs = GridCoordinate(w, W, align);
          // (x, y[, z], 1) times each row of theta.
          for (size_t k = 0; k < spatial; ++k) {
            const double* row = t + k * cols;
            out[o++] = spatial == 2 ? row[0] * xs + row[1] * y + row[2]
                                    : row[0] * xs + row[1] * y + row[2] * z + row[3];
          }
        }
      }
    }
  }
  DispatchFloat(y->dtype, [&](auto tag) {  // the definition: theta, hence the grid, is a float
    using T = typename decltype(tag)::type;
    for (size_t i = 0; i < out.size(); ++i)
      StoreSaturating(y->as<T>(), static_cast<int64_t>(i), out[i]);
  });
  return Status::Ok();
}

// ---------------------------------------------------------------------------------------------
// Col2Im.

// The geometry of one Col2Im run (the definition checked it, bounds included).
struct Col2ImShape {
  std::vector<int64_t> image, block, dilations, strides, pads, blocks;
  int64_t batch = 0, channels = 0, kernel = 1, length = 1;
};

Col2ImShape Col2ImGeometry(const NodeDef& def, const TensorView& x, const TensorView& image,
                           const TensorView& block) {
  Col2ImShape s;
  s.image = ReadInts(image);
  s.block = ReadInts(block);
  const size_t n = s.image.size();
  // Absent, dilations and strides are all 1 and pads 0, one per spatial axis.
  auto ints = [&](const char* name, size_t len, int64_t dflt) {
    return def.has_attr(name) ? def.attr_ints(name) : std::vector<int64_t>(len, dflt);
  };
  s.dilations = ints("dilations", n, 1);
  s.strides = ints("strides", n, 1);
  s.pads = ints("pads", 2 * n, 0);
  for (size_t i = 0; i < n; ++i) {
    const int64_t span =
        s.image[i] + s.pads[i] + s.pads[i + n] - s.dilations[i] * (s.block[i] - 1) - 1;
    s.blocks.push_back(span / s.strides[i] + 1);
    s.kernel *= s.block[i];
    s.length *= s.blocks.back();
  }
  s.batch = x.dims[0];
  s.channels = x.dims[1] / s.kernel;
  return s;
}

template <typename T>
void Col2ImTyped(const Col2ImShape& s, const TensorView& x, TensorView& out) {
  // Accumulate in double (floats), with wrap-around (integers) or as "or" (bool).
  using Acc = std::conditional_t<kIsFloat<T>, double,
                                 std::conditional_t<std::is_same_v<T, bool>, uint8_t, uint64_t>>;
  const size_t n = s.image.size();
  const int64_t image_size = NumElements(s.image);
  const Dims image_strides = Strides(s.image);
  std::vector<Acc> acc(static_cast<size_t>(s.batch * s.channels * image_size), Acc{});
  const T* px = x.as<const T>();
  std::vector<int64_t> off(n), blk(n);
  for (int64_t b = 0; b < s.batch; ++b) {
    for (int64_t c = 0; c < s.channels; ++c) {
      for (int64_t k = 0; k < s.kernel; ++k) {
        // Kernel offset of row k, last axis fastest.
        for (size_t i = n, rest = static_cast<size_t>(k); i-- > 0;) {
          off[i] = static_cast<int64_t>(rest % static_cast<size_t>(s.block[i]));
          rest /= static_cast<size_t>(s.block[i]);
        }
        const int64_t row = (b * s.channels + c) * s.kernel + k;
        for (int64_t l = 0; l < s.length; ++l) {
          int64_t rest = l, at = 0;
          bool inside = true;
          for (size_t i = n; i-- > 0;) {
            blk[i] = rest % s.blocks[i];
            rest /= s.blocks[i];
          }
          for (size_t i = 0; i < n && inside; ++i) {
            const int64_t p = blk[i] * s.strides[i] - s.pads[i] + off[i] * s.dilations[i];
            inside = p >= 0 && p < s.image[i];
            at += p * image_strides[i];
          }
          if (!inside) continue;
          Acc& a = acc[static_cast<size_t>((b * s.channels + c) * image_size + at)];
          const T v = px[row * s.length + l];
          if constexpr (kIsFloat<T>) {
            a += static_cast<double>(Load(&v, 0));
          } else if constexpr (std::is_same_v<T, bool>) {
            a = static_cast<uint8_t>(a || v);
          } else {
            a += static_cast<uint64_t>(v);
          }
        }
      }
    }
  }
  T* py = out.as<T>();
  for (size_t i = 0; i < acc.size(); ++i) {
    if constexpr (kIsFloat<T>) {
      Store(py, static_cast<int64_t>(i), static_cast<ComputeT<T>>(acc[i]));
    } else {
      py[i] = static_cast<T>(acc[i]);
    }
  }
}

Status RunCol2Im(const NodeDef& def, KernelContext& ctx) {
  KILN_ASSIGN_OR_RETURN(const TensorView* x, RequiredInput(def, ctx, 0));
  KILN_ASSIGN_OR_RETURN(const TensorView* image, RequiredInput(def, ctx, 1));
  KILN_ASSIGN_OR_RETURN(const TensorView* block, RequiredInput(def, ctx, 2));
  KILN_ASSIGN_OR_RETURN(TensorView * out, BoundOutput(def, ctx, 0));
  const Col2ImShape s = Col2ImGeometry(def, *x, *image, *block);
  DispatchAny(x->dtype, [&](auto tag) { Col2ImTyped<typename decltype(tag)::type>(s, *x, *out); });
  return Status::Ok();
}

}  // namespace

// Their definitions (ir/ops/sampling.cc) check the nodes (types included: X and the input of
// any type but string) and give the output dims; Prepare refuses string tensors.
void RegisterSamplingKernels(KernelRegistry& r) {
  RegisterStateless(r, "GridSample", RunGridSample);
  RegisterStateless(r, "AffineGrid", RunAffineGrid);
  RegisterStateless(r, "Col2Im", RunCol2Im);
}

}  // namespace kiln::kernels
