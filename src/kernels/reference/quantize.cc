// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Reference kernels of QuantizeLinear, DequantizeLinear and DynamicQuantizeLinear (every
// quantized type of ir/ops/quantize.cc; int32 for dequantization), per tensor, per axis and
// blocked.
//
// QuantizeLinear divides in the precision of the scale's type (or the opset-23 'precision'
// attribute). To an integer type it rounds half to even, adds the zero point and saturates;
// NaN quantizes to the type's lowest value, as the ONNX reference does. To a float8 or float4
// type it adds the zero point and converts (rounding to nearest even; float8 saturating as the
// 'saturate' attribute says, float4 always). DequantizeLinear computes
// float(x - zero_point) * scale in float32 and rounds to the output type, as the ONNX
// reference and ONNX Runtime do.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "kernels/low_precision_elements.h"
#include "kernels/reference/families.h"
#include "kernels/util.h"

namespace kiln::kernels {
namespace {

// Where element i of x finds its scale and zero point.
struct ParamIndex {
  enum class Mode { kTensor, kAxis, kBlocked } mode = Mode::kTensor;
  int64_t axis_len = 1;   // x's dim on the axis
  int64_t inner = 1;      // x's elements after the axis
  int64_t block = 1;      // blocked: the block size
  int64_t param_len = 1;  // blocked: the scale's dim on the axis

  int64_t operator()(int64_t i) const {
    switch (mode) {
      case Mode::kTensor:
        return 0;
      case Mode::kAxis:
        return (i / inner) % axis_len;
      case Mode::kBlocked: {
        const int64_t r = i % inner;
        const int64_t k = (i / inner) % axis_len;
        const int64_t o = i / (inner * axis_len);
        return (o * param_len + k / block) * inner + r;
      }
    }
    return 0;
  }
};

// The granularity the scale's shape selects (the definition checked the shapes against x, the
// axis and block_size). kInvalidParam when the run's dims do not fit it after all (dims the
// load-time check could not see), so no index leaves the scale or zero point.
Result<ParamIndex> ResolveParams(const NodeDef& def, const TensorView& x, const TensorView& scale,
                                 const TensorView* zero_point) {
  ParamIndex p;
  const int64_t n = scale.num_elements();
  int64_t want = 1;
  if (n != 1) {
    const int64_t block = def.opset >= 21 ? def.attr_int("block_size") : 0;
    const std::optional<int64_t> axis =
        def.opset >= 13 ? NormalizeAxis(def.attr_int("axis"), static_cast<int64_t>(x.rank()))
                        : std::nullopt;
    want = -1;
    if (axis) {
      const size_t a = static_cast<size_t>(*axis);
      p.axis_len = x.dims[a];
      p.inner = Product(x.dims, a + 1, x.rank());
      if (block <= 0) {
        p.mode = ParamIndex::Mode::kAxis;
        want = p.axis_len;
      } else if (scale.rank() == x.rank()) {
        p.mode = ParamIndex::Mode::kBlocked;
        p.block = block;
        p.param_len = (p.axis_len + block - 1) / block;
        want = Product(x.dims, 0, a) * p.param_len * p.inner;
      }
    }
  }
  if (n != want || (zero_point != nullptr && zero_point->num_elements() != n)) {
    return def.Fail(code::kInvalidParam, "the scale ", DimsString(scale.dims),
                    zero_point ? " and zero point " : "",
                    zero_point ? DimsString(zero_point->dims) : "", " do not fit input ",
                    DimsString(x.dims));
  }
  return p;
}

// The value range of quantized type `t`.
std::pair<double, double> QuantRange(DataType t) {
  switch (t) {
    case DataType::kUint8:
      return {0, 255};
    case DataType::kInt8:
      return {-128, 127};
    case DataType::kUint16:
      return {0, 65535};
    case DataType::kInt16:
      return {-32768, 32767};
    default:
      return {0, 0};
  }
}

// Writes the integral value `v` (within t's range) as element i of quantized type `t`.
void StoreQuantized(DataType t, void* data, int64_t i, double v) {
  switch (t) {
    case DataType::kUint8:
      static_cast<uint8_t*>(data)[i] = static_cast<uint8_t>(v);
      break;
    case DataType::kInt8:
      static_cast<int8_t*>(data)[i] = static_cast<int8_t>(v);
      break;
    case DataType::kUint16:
      static_cast<uint16_t*>(data)[i] = static_cast<uint16_t>(v);
      break;
    case DataType::kInt16:
      static_cast<int16_t*>(data)[i] = static_cast<int16_t>(v);
      break;
    default:
      break;
  }
}

// x / s rounded as a division in type `precision` would round it.
double Divide(double x, double s, DataType precision) {
  switch (precision) {
    case DataType::kFloat32:
      return static_cast<float>(x) / static_cast<float>(s);
    case DataType::kFloat16: {
      // A float quotient of two halves rounded to half is the correctly rounded half quotient.
      const float q = HalfToFloat(FloatToHalf(static_cast<float>(x))) /
                      HalfToFloat(FloatToHalf(static_cast<float>(s)));
      return HalfToFloat(FloatToHalf(q));
    }
    case DataType::kBFloat16: {
      const float q = BFloat16ToFloat(FloatToBFloat16(static_cast<float>(x))) /
                      BFloat16ToFloat(FloatToBFloat16(static_cast<float>(s)));
      return BFloat16ToFloat(FloatToBFloat16(q));
    }
    default:
      return x / s;  // float64, and int32 scales (true division, as numpy's)
  }
}

// round_half_even(q) + zero_point, saturated to [lo, hi]; NaN gives lo.
double Saturate(double q, double zero_point, double lo, double hi) {
  const double v = std::nearbyint(q) + zero_point;
  if (std::isnan(v)) return lo;
  return std::clamp(v, lo, hi);
}

// ---- QuantizeLinear ------------------------------------------------------------------------

// Stores the quotient q (x / scale) with the zero point `zero_point` as element i of the
// low-precision quantized type `t`.
void StoreQuantizedLowPrecision(DataType t, void* data, int64_t i, double q, double zero_point,
                                const LowPrecisionRounding& rounding) {
  if (IsSubByteInt(t)) {
    const SubByteInt kind = SubByteIntOf(t);
    const int8_t v = QuantizeToSubByteInt(kind, q, static_cast<int32_t>(zero_point));
    StoreLowPrecisionFromInt(t, data, i, v, rounding);
  } else {
    StoreLowPrecisionFromFloat(t, data, i, static_cast<float>(q) + static_cast<float>(zero_point),
                               rounding);
  }
}

class QuantizeKernel final : public Kernel {
 public:
  QuantizeKernel(const NodeDef& def, DataType precision, bool saturate)
      : def_(def), precision_(precision) {
    rounding_.saturate = saturate;
  }

  Status Run(KernelContext& ctx) const override {
    const TensorView* x = ctx.input(0);
    const TensorView* scale = ctx.input(1);
    const TensorView* zp = ctx.num_inputs() > 2 ? ctx.input(2) : nullptr;
    KILN_ASSIGN_OR_RETURN(TensorView * y, BoundOutput(def_, ctx, 0));
    KILN_ASSIGN_OR_RETURN(ParamIndex index, ResolveParams(def_, *x, *scale, zp));
    const DataType precision = precision_ != DataType::kUndefined ? precision_ : scale->dtype;
    const std::vector<double> scales = ReadDoubles(*scale);
    const std::vector<double> zero_points =
        zp != nullptr ? ReadDoubles(*zp) : std::vector<double>(scales.size(), 0);
    const bool low_precision = ir::IsLowPrecision(y->dtype);
    if (low_precision && y->bytes() != 0) std::memset(y->data, 0, y->bytes());  // padding bits
    const auto [lo, hi] = QuantRange(y->dtype);
    const int64_t n = x->num_elements();
    DispatchNumeric(x->dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* xs = x->as<const T>();
      for (int64_t i = 0; i < n; ++i) {
        const size_t p = static_cast<size_t>(index(i));
        const double q = Divide(static_cast<double>(Load(xs, i)), scales[p], precision);
        if (low_precision) {
          StoreQuantizedLowPrecision(y->dtype, y->data, i, q, zero_points[p], rounding_);
        } else {
          StoreQuantized(y->dtype, y->data, i, Saturate(q, zero_points[p], lo, hi));
        }
      }
    });
    return Status::Ok();
  }

 private:
  NodeDef def_;
  DataType precision_;  // kUndefined: the scale's type
  LowPrecisionRounding rounding_;
};

Result<std::unique_ptr<Kernel>> MakeQuantize(const NodeDef& def) {
  // opset 23's 'precision' (0: the scale's type); the definition refused non-float types.
  const int64_t p = def.opset >= 23 ? def.attr_int("precision") : 0;
  const DataType precision =
      p > 0 && p < 64 ? ir::FromOnnx(static_cast<int32_t>(p)) : DataType::kUndefined;
  const bool saturate = def.opset < 19 || def.attr_int("saturate") != 0;
  return std::unique_ptr<Kernel>(std::make_unique<QuantizeKernel>(def, precision, saturate));
}

// ---- DequantizeLinear ----------------------------------------------------------------------

Status RunDequantize(const NodeDef& def, KernelContext& ctx) {
  const TensorView* x = ctx.input(0);
  const TensorView* scale = ctx.input(1);
  const TensorView* zp = ctx.num_inputs() > 2 ? ctx.input(2) : nullptr;
  KILN_ASSIGN_OR_RETURN(TensorView * y, BoundOutput(def, ctx, 0));
  KILN_ASSIGN_OR_RETURN(ParamIndex index, ResolveParams(def, *x, *scale, zp));
  const std::vector<double> scales = ReadDoubles(*scale);
  const std::vector<double> zero_points =
      zp != nullptr ? ReadDoubles(*zp) : std::vector<double>(scales.size(), 0);
  const int64_t n = x->num_elements();
  // x is an integer or low-precision type (exact in a double); y float32, float16 or bfloat16
  // (the definition's).
  DispatchFloat(y->dtype, [&](auto y_tag) {
    using T = typename decltype(y_tag)::type;
    if constexpr (!std::is_same_v<T, double>) {
      T* out = y->as<T>();
      auto dequantize = [&](int64_t i, double v) {
        const size_t p = static_cast<size_t>(index(i));
        const float d = static_cast<float>(v - zero_points[p]);
        Store(out, i, d * static_cast<float>(scales[p]));
      };
      if (ir::IsLowPrecision(x->dtype)) {
        for (int64_t i = 0; i < n; ++i) dequantize(i, LoadLowPrecision(x->dtype, x->data, i));
        return;
      }
      DispatchNumeric(x->dtype, [&](auto x_tag) {
        using X = typename decltype(x_tag)::type;
        if constexpr (!kIsFloat<X>) {
          const X* xs = x->as<const X>();
          for (int64_t i = 0; i < n; ++i) dequantize(i, static_cast<double>(xs[i]));
        }
      });
    }
  });
  return Status::Ok();
}

// ---- DynamicQuantizeLinear -----------------------------------------------------------------

// The ONNX formula in float32: the range [min(0, min x), max(0, max x)] over [0, 255]
// (NaN elements left out of the range).
Status RunDynamicQuantize(const NodeDef& def, KernelContext& ctx) {
  const TensorView* x = ctx.input(0);
  KILN_ASSIGN_OR_RETURN(TensorView * y, BoundOutput(def, ctx, 0));
  KILN_ASSIGN_OR_RETURN(TensorView * y_scale, BoundOutput(def, ctx, 1));
  KILN_ASSIGN_OR_RETURN(TensorView * y_zero_point, BoundOutput(def, ctx, 2));
  const float* in = x->as<const float>();
  const int64_t n = x->num_elements();
  float max_x = 0.f;
  float min_x = 0.f;
  for (int64_t i = 0; i < n; ++i) {
    if (in[i] > max_x) max_x = in[i];
    if (in[i] < min_x) min_x = in[i];
  }
  constexpr float kQMin = 0.f;
  constexpr float kQMax = 255.f;
  const float scale = (max_x == min_x ? 1.f : max_x - min_x) / (kQMax - kQMin);
  const float initial_zero_point = kQMin - min_x / scale;
  float zero_point = std::nearbyint(std::clamp(initial_zero_point, kQMin, kQMax));
  if (std::isnan(zero_point)) zero_point = kQMin;  // an infinite range
  uint8_t* out = y->as<uint8_t>();
  for (int64_t i = 0; i < n; ++i) {
    const float v = std::nearbyint(in[i] / scale) + zero_point;
    out[i] = std::isnan(v) ? 0 : static_cast<uint8_t>(std::clamp(v, kQMin, kQMax));
  }
  *y_scale->as<float>() = scale;
  *y_zero_point->as<uint8_t>() = static_cast<uint8_t>(zero_point);
  return Status::Ok();
}

}  // namespace

void RegisterQuantizeKernels(KernelRegistry& r) {
  r.Register(kReferenceBackend, "", "QuantizeLinear", MakeQuantize);
  r.Register(kReferenceBackend, "", "DequantizeLinear", [](const NodeDef& def) {
    return Result<std::unique_ptr<Kernel>>(MakeFunctionKernel(def, RunDequantize));
  });
  r.Register(kReferenceBackend, "", "DynamicQuantizeLinear", [](const NodeDef& def) {
    return Result<std::unique_ptr<Kernel>>(MakeFunctionKernel(def, RunDynamicQuantize));
  });
}

}  // namespace kiln::kernels
