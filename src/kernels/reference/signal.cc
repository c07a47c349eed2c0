// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Reference kernels of the signal family: DFT, STFT, HannWindow, HammingWindow, BlackmanWindow
// and MelWeightMatrix. Everything is computed in double and rounded once to the output type.
//
// The DFT of a line is an iterative radix-2 FFT when its length is a power of two and a direct
// O(n^2) sum otherwise; both read one table of twiddle factors exp(-2 pi i j / n), so every
// product uses an accurately computed root of unity instead of an accumulated one.
//
// The op definitions (ir/ops/signal.cc) check the nodes and size the outputs from the input
// values (dft_length, axis, frame_length, size ...). The kernels read those values again to know
// what to compute, and check only that they agree with the bound outputs, so that no value can
// make a kernel read or write out of bounds.
#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <numbers>
#include <string>
#include <vector>

#include "kernels/reference/common.h"
#include "kernels/reference/families.h"
#include "kernels/util.h"

namespace kiln::kernels {
namespace {

using Complex = std::complex<double>;

// Stores `v` as element i of the number tensor `t`: floats rounded; integers truncated toward
// zero and saturated to their type, NaN as 0 (the window and mel outputs may be integers).
void StoreNumber(const TensorView& t, int64_t i, double v) {
  DispatchNumeric(t.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    StoreSaturating(t.as<T>(), i, v);
  });
}

// The one integer of scalar input i.
Result<int64_t> ScalarInput(const NodeDef& def, KernelContext& ctx, size_t i, const char* what) {
  KILN_ASSIGN_OR_RETURN(const TensorView* t, RequiredInput(def, ctx, i));
  return ScalarInt(def, *t, what);
}

// ---------------------------------------------------------------------------------------------
// The transform of one line.

// exp(-2 pi i j / n) for j in [0, n): the angle reduced to its quadrant, so that quarter turns
// are exact (a DFT of length 4 is exact arithmetic) and the errors are symmetric.
Complex Twiddle(int64_t j, int64_t n) {
  const int64_t quadrant = 4 * j / n, rest = 4 * j - quadrant * n;  // j / n = (q + rest / n) / 4
  const double t = std::numbers::pi / 2 * static_cast<double>(rest) / static_cast<double>(n);
  const double c = std::cos(t), s = std::sin(t);
  switch (quadrant) {  // exp(-i (q pi / 2 + t))
    case 0:
      return {c, -s};
    case 1:
      return {-s, -c};
    case 2:
      return {-c, s};
    default:
      return {s, c};
  }
}

// A complex DFT of one length n: out[k] = sum_j in[j] exp(-+2 pi i j k / n), unnormalised.
class DftPlan {
 public:
  explicit DftPlan(int64_t n) : n_(n), pow2_(n > 0 && (n & (n - 1)) == 0), twiddle_(n) {
    for (int64_t j = 0; j < n; ++j) twiddle_[j] = Twiddle(j, n);
  }

  int64_t size() const { return n_; }
  // Rough work of one line, for ParallelFor grains.
  int64_t cost() const {
    if (!pow2_) return n_ * n_;
    int64_t log2 = 0;
    while ((int64_t{1} << log2) < n_) ++log2;
    return n_ * std::max<int64_t>(log2, 1);
  }

  // `in` and `out` hold n values; `in` is used as scratch.
  void Run(std::vector<Complex>& in, std::vector<Complex>& out, bool inverse) const {
    if (pow2_) {
      Fft(in, inverse);
      out.swap(in);
      return;
    }
    for (int64_t k = 0; k < n_; ++k) {
      Complex sum = 0.0;
      int64_t jk = 0;  // j * k mod n, kept exact
      for (int64_t j = 0; j < n_; ++j) {
        const Complex w = inverse ? std::conj(twiddle_[jk]) : twiddle_[jk];
        sum += in[j] * w;
        jk += k;
        if (jk >= n_) jk -= n_;
      }
      out[k] = sum;
    }
  }

 private:
  // In-place iterative radix-2 FFT (bit-reversal permutation, then butterflies).
  void Fft(std::vector<Complex>& a, bool inverse) const {
    for (int64_t i = 1, j = 0; i < n_; ++i) {
      int64_t bit = n_ >> 1;
      for (; j & bit; bit >>= 1) j ^= bit;
      j ^= bit;
      if (i < j) std::swap(a[i], a[j]);
    }
    for (int64_t len = 2; len <= n_; len <<= 1) {
      const int64_t half = len / 2, stride = n_ / len;
      for (int64_t i = 0; i < n_; i += len) {
        for (int64_t k = 0; k < half; ++k) {
          const Complex w = inverse ? std::conj(twiddle_[k * stride]) : twiddle_[k * stride];
          const Complex u = a[i + k], v = a[i + k + half] * w;
          a[i + k] = u + v;
          a[i + k + half] = u - v;
        }
      }
    }
  }

  int64_t n_;
  bool pow2_;
  std::vector<Complex> twiddle_;  // exp(-2 pi i j / n), j in [0, n)
};

// Lines per ParallelFor chunk for lines of `cost` operations each.
int64_t LineGrain(int64_t cost) { return std::max<int64_t>(1, (int64_t{1} << 15) / cost); }

// ---------------------------------------------------------------------------------------------
// DFT.

Status RunDft(const NodeDef& def, KernelContext& ctx) {
  const TensorView& x = *ctx.input(0);
  KILN_ASSIGN_OR_RETURN(TensorView * y, BoundOutput(def, ctx, 0));
  const bool inverse = def.attr_int("inverse") != 0;
  const bool onesided = def.attr_int("onesided") != 0;
  const bool irfft = onesided && inverse;
  const int64_t rank = static_cast<int64_t>(x.rank());
  int64_t axis = -2;
  if (def.opset < 20) {
    axis = def.attr_int("axis");
  } else if (ctx.input(2) != nullptr) {
    KILN_ASSIGN_OR_RETURN(axis, ScalarInput(def, ctx, 2, "axis"));
  }
  if (axis < -rank || axis > rank - 2 || axis == -1) {
    return def.Fail(code::kInvalidParam, "axis ", axis, " is out of range for input ",
                    DimsString(x.dims));
  }
  const size_t a = static_cast<size_t>(axis < 0 ? axis + rank : axis);
  const int64_t n_in = x.dims[a];
  int64_t length = irfft ? 2 * (n_in - 1) : n_in;
  if (ctx.input(1) != nullptr) {
    KILN_ASSIGN_OR_RETURN(length, ScalarInput(def, ctx, 1, "dft_length"));
  }
  // The bound output must be what these values make (its dims came from the same values).
  Dims want = x.dims;
  want[a] = onesided && !inverse ? length / 2 + 1 : length;
  want.back() = irfft ? 1 : 2;
  if (length < 1 || y->dims != want) {
    return def.Fail(code::kInvalidParam, "dft_length ", length, " and axis ", axis,
                    " make output dims ", DimsString(want), ", bound as ", DimsString(y->dims));
  }

  const int64_t outer = Product(x.dims, 0, a);
  const int64_t inner = Product(x.dims, a + 1, x.rank() - 1);
  const int64_t c_in = x.dims.back(), c_out = y->dims.back(), n_out = y->dims[a];
  const DftPlan plan(length);
  const double scale = inverse ? 1.0 / static_cast<double>(length) : 1.0;
  DispatchFloat(x.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* xp = x.as<const T>();
    T* yp = y->as<T>();
    ctx.ParallelFor(outer * inner, LineGrain(plan.cost()), [&](int64_t begin, int64_t end) {
      std::vector<Complex> in(static_cast<size_t>(length)), out(static_cast<size_t>(length));
      for (int64_t line = begin; line < end; ++line) {
        const int64_t o = line / inner, i = line % inner;
        // Element k of the line, real or complex; 0 past the input's end (zero padding).
        auto at = [&](int64_t k) {
          if (k >= n_in) return Complex(0.0, 0.0);
          const int64_t e = ((o * n_in + k) * inner + i) * c_in;
          return Complex(Load(xp, e), c_in == 2 ? static_cast<double>(Load(xp, e + 1)) : 0.0);
        };
        std::fill(in.begin(), in.end(), Complex(0.0, 0.0));
        if (irfft) {
          // The input holds bins 0 .. length/2 of a Hermitian spectrum: the rest are their
          // conjugates; the imaginary parts of bin 0 and, for an even length, of bin length/2
          // cannot belong to a real signal and are dropped, as numpy's irfft does.
          in[0] = Complex(at(0).real(), 0.0);
          for (int64_t k = 1; k <= length / 2; ++k) {
            const Complex v = at(k);
            if (2 * k == length) {
              in[k] = Complex(v.real(), 0.0);
            } else {
              in[k] = v;
              in[length - k] = std::conj(v);
            }
          }
        } else {
          for (int64_t k = 0; k < std::min(n_in, length); ++k) in[k] = at(k);
        }
        plan.Run(in, out, inverse);
        for (int64_t k = 0; k < n_out; ++k) {
          const int64_t e = ((o * n_out + k) * inner + i) * c_out;
          Store(yp, e, static_cast<ComputeT<T>>(out[k].real() * scale));
          if (c_out == 2) Store(yp, e + 1, static_cast<ComputeT<T>>(out[k].imag() * scale));
        }
      }
    });
  });
  return Status::Ok();
}

// ---------------------------------------------------------------------------------------------
// STFT.

Status RunStft(const NodeDef& def, KernelContext& ctx) {
  const TensorView& x = *ctx.input(0);
  KILN_ASSIGN_OR_RETURN(TensorView * y, BoundOutput(def, ctx, 0));
  const TensorView* window = ctx.input(2);
  KILN_ASSIGN_OR_RETURN(const int64_t step, ScalarInput(def, ctx, 1, "frame_step"));
  const int64_t batch = x.dims[0], n = x.dims[1], c_in = x.dims[2];
  int64_t length = window != nullptr ? window->dims[0] : n;
  if (ctx.input(3) != nullptr) {
    KILN_ASSIGN_OR_RETURN(length, ScalarInput(def, ctx, 3, "frame_length"));
  }
  const bool onesided = def.attr_int("onesided") != 0;
  const int64_t frames = y->dims[1];
  const Dims want = {batch, frames, onesided ? length / 2 + 1 : length, 2};
  if (step < 1 || length < 1 || length > n || (window && window->dims[0] != length) ||
      frames != 1 + (n - length) / step || y->dims != want) {
    return def.Fail(code::kInvalidParam, "frame_step ", step, " and frame_length ", length,
                    " do not make the bound output dims ", DimsString(y->dims), " for signal ",
                    DimsString(x.dims));
  }
  const int64_t bins = want[2];
  std::vector<double> w = window ? ReadDoubles(*window) : std::vector<double>(length, 1.0);
  const DftPlan plan(length);
  DispatchFloat(x.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* xp = x.as<const T>();
    T* yp = y->as<T>();
    ctx.ParallelFor(batch * frames, LineGrain(plan.cost()), [&](int64_t begin, int64_t end) {
      std::vector<Complex> in(static_cast<size_t>(length)), out(static_cast<size_t>(length));
      for (int64_t bf = begin; bf < end; ++bf) {
        const int64_t b = bf / frames, f = bf % frames;
        for (int64_t k = 0; k < length; ++k) {
          const int64_t e = (b * n + f * step + k) * c_in;
          const double im = c_in == 2 ? static_cast<double>(Load(xp, e + 1)) : 0.0;
          in[k] = Complex(Load(xp, e), im) * w[k];
        }
        plan.Run(in, out, /*inverse=*/false);
        for (int64_t k = 0; k < bins; ++k) {
          const int64_t e = (bf * bins + k) * 2;
          Store(yp, e, static_cast<ComputeT<T>>(out[k].real()));
          Store(yp, e + 1, static_cast<ComputeT<T>>(out[k].imag()));
        }
      }
    });
  });
  return Status::Ok();
}

// ---------------------------------------------------------------------------------------------
// Windows: w[n] = a0 - a1 cos(2 pi n / N) + a2 cos(4 pi n / N), N = size (periodic) or size - 1
// (symmetric), the cosine-sum form of ONNX's definitions.

struct CosineSum {
  double a0, a1, a2;
};

CosineSum WindowCoefficients(const std::string& op) {
  if (op == "HannWindow") return {0.5, 0.5, 0.0};
  if (op == "HammingWindow") return {25.0 / 46.0, 21.0 / 46.0, 0.0};
  return {0.42, 0.5, 0.08};  // BlackmanWindow
}

Status RunWindow(const NodeDef& def, KernelContext& ctx) {
  KILN_ASSIGN_OR_RETURN(TensorView * y, BoundOutput(def, ctx, 0));
  KILN_ASSIGN_OR_RETURN(const int64_t size, ScalarInput(def, ctx, 0, "size"));
  if (y->dims != Dims{size}) {
    return def.Fail(code::kInvalidParam, "size ", size, " does not match the bound output dims ",
                    DimsString(y->dims));
  }
  const CosineSum c = WindowCoefficients(def.op_type);
  const int64_t period = def.attr_int("periodic") != 0 ? size : size - 1;
  for (int64_t i = 0; i < size; ++i) {
    // A symmetric window of one value divides 0 by 0, as ONNX's function body does: NaN.
    const double angle =
        period == 0 ? std::numeric_limits<double>::quiet_NaN()
                    : 2.0 * std::numbers::pi * static_cast<double>(i) / static_cast<double>(period);
    StoreNumber(*y, i, c.a0 - c.a1 * std::cos(angle) + c.a2 * std::cos(2.0 * angle));
  }
  return Status::Ok();
}

// ---------------------------------------------------------------------------------------------
// MelWeightMatrix, as ONNX's reference computes it: num_mel_bins + 2 edge frequencies evenly
// spaced on the mel scale mel(f) = 2595 log10(1 + f / 700) from lower_edge_hertz (with a step of
// (mel(upper) - mel(lower)) / (num_mel_bins + 2)), each mapped to the spectrogram bin
// floor((dft_length + 1) * f / sample_rate); band i is the triangle rising from edge i to 1 at
// edge i + 1 and falling to 0 at edge i + 2.

Status RunMelWeightMatrix(const NodeDef& def, KernelContext& ctx) {
  KILN_ASSIGN_OR_RETURN(TensorView * y, BoundOutput(def, ctx, 0));
  KILN_ASSIGN_OR_RETURN(const int64_t mel_bins, ScalarInput(def, ctx, 0, "num_mel_bins"));
  KILN_ASSIGN_OR_RETURN(const int64_t dft_length, ScalarInput(def, ctx, 1, "dft_length"));
  KILN_ASSIGN_OR_RETURN(const int64_t sample_rate, ScalarInput(def, ctx, 2, "sample_rate"));
  const double lower = ReadDoubles(*ctx.input(3)).at(0);
  const double upper = ReadDoubles(*ctx.input(4)).at(0);
  const int64_t spectrogram_bins = dft_length / 2 + 1;
  if (mel_bins < 1 || sample_rate < 1 || dft_length < 1 ||
      y->dims != Dims{spectrogram_bins, mel_bins}) {
    return def.Fail(code::kInvalidParam, "num_mel_bins ", mel_bins, ", dft_length ", dft_length,
                    " and sample_rate ", sample_rate, " do not match the bound output dims ",
                    DimsString(y->dims));
  }
  auto mel = [](double hz) { return 2595.0 * std::log10(1.0 + hz / 700.0); };
  const double low_mel = mel(lower);
  const double mel_step = (mel(upper) - low_mel) / static_cast<double>(mel_bins + 2);
  std::vector<int64_t> edge(static_cast<size_t>(mel_bins + 2));
  for (size_t i = 0; i < edge.size(); ++i) {
    const double hz =
        700.0 * (std::pow(10.0, (low_mel + static_cast<double>(i) * mel_step) / 2595.0) - 1.0);
    const double bin =
        std::floor(static_cast<double>(dft_length + 1) * hz / static_cast<double>(sample_rate));
    // A band edge off the spectrogram (an edge frequency below 0 or above the Nyquist
    // frequency) has no bin to weight.
    if (!(bin >= 0.0 && bin <= static_cast<double>(spectrogram_bins))) {
      return def.Fail(code::kInvalidParam, "lower_edge_hertz ", lower, " and upper_edge_hertz ",
                      upper, " put a band edge at bin ", bin, ", outside the ", spectrogram_bins,
                      " bins of a ", dft_length, "-point DFT at sample_rate ", sample_rate);
    }
    edge[i] = static_cast<int64_t>(bin);
  }
  std::vector<double> out(static_cast<size_t>(spectrogram_bins * mel_bins), 0.0);
  auto set = [&](int64_t bin, int64_t band, double v) -> Status {
    if (bin < 0 || bin >= spectrogram_bins) {
      return def.Fail(code::kInvalidParam, "lower_edge_hertz ", lower, " and upper_edge_hertz ",
                      upper, " make mel band ", band, " weight bin ", bin, ", outside the ",
                      spectrogram_bins, " bins of a ", dft_length, "-point DFT");
    }
    out[static_cast<size_t>(bin * mel_bins + band)] = v;
    return Status::Ok();
  };
  for (int64_t i = 0; i < mel_bins; ++i) {
    const int64_t left = edge[i], center = edge[i + 1], right = edge[i + 2];
    if (center == left) {
      KILN_RETURN_IF_ERROR(set(center, i, 1.0), "");
    } else {
      for (int64_t j = left; j <= center; ++j) {
        KILN_RETURN_IF_ERROR(
            set(j, i, static_cast<double>(j - left) / static_cast<double>(center - left)), "");
      }
    }
    for (int64_t j = center; j < right; ++j) {
      KILN_RETURN_IF_ERROR(
          set(j, i, static_cast<double>(right - j) / static_cast<double>(right - center)), "");
    }
  }
  for (size_t i = 0; i < out.size(); ++i) StoreNumber(*y, static_cast<int64_t>(i), out[i]);
  return Status::Ok();
}

}  // namespace

void RegisterSignalKernels(KernelRegistry& r) {
  RegisterStateless(r, "DFT", RunDft);
  RegisterStateless(r, "STFT", RunStft);
  RegisterStateless(r, "HannWindow", RunWindow);
  RegisterStateless(r, "HammingWindow", RunWindow);
  RegisterStateless(r, "BlackmanWindow", RunWindow);
  RegisterStateless(r, "MelWeightMatrix", RunMelWeightMatrix);
}

}  // namespace kiln::kernels
