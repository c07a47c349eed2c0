// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Reference kernels of QuantizeLinear, DequantizeLinear and DynamicQuantizeLinear (uint8, int8,
// uint16, int16 quantized values; int32 for dequantization), per tensor, per axis and blocked.
//
// QuantizeLinear divides in the precision of the scale's type (or the opset-23 'precision'
// attribute), rounds half to even, adds the zero point and saturates; NaN quantizes to the
// type's lowest value, as the ONNX reference does. DequantizeLinear computes
// float(x - zero_point) * scale in float32 and rounds to the output type, as the ONNX
// reference and ONNX Runtime do.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

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

// The granularity the scale's (and zero point's) shape selects; kInvalidParam when it fits
// none of them.
Result<ParamIndex> ResolveParams(const NodeDef& def, const TensorView& x, const TensorView& scale,
                                 const TensorView* zero_point) {
  if (zero_point != nullptr && zero_point->dims != scale.dims &&
      !(zero_point->num_elements() == 1 && scale.num_elements() == 1)) {
    return def.Fail(code::kInvalidParam, "the zero point ", DimsString(zero_point->dims),
                    " and the scale ", DimsString(scale.dims), " must have the same shape");
  }
  ParamIndex p;
  if (scale.num_elements() == 1) return p;
  const int64_t block = def.opset >= 21 ? def.attr_int("block_size", 0) : 0;
  if (def.opset < 13) {
    return def.Fail(code::kInvalidParam, "the scale ", DimsString(scale.dims),
                    " must hold one value before opset 13");
  }
  const int64_t axis_attr = def.attr_int("axis", 1);
  const std::optional<int64_t> axis = NormalizeAxis(axis_attr, static_cast<int64_t>(x.rank()));
  if (!axis) {
    return def.Fail(code::kInvalidParam, "axis ", axis_attr, " is out of range for input ",
                    DimsString(x.dims), " of rank ", x.rank());
  }
  const size_t a = static_cast<size_t>(*axis);
  p.axis_len = x.dims[a];
  p.inner = Product(x.dims, a + 1, x.rank());
  if (block <= 0) {
    if (scale.rank() != 1 || scale.dims[0] != x.dims[a]) {
      return def.Fail(code::kInvalidParam, "the scale ", DimsString(scale.dims),
                      " is neither one value nor one value per index of axis ", a, " of input ",
                      DimsString(x.dims));
    }
    p.mode = ParamIndex::Mode::kAxis;
    return p;
  }
  bool fits = scale.rank() == x.rank();
  for (size_t d = 0; fits && d < x.rank(); ++d) {
    const int64_t want = d == a ? (x.dims[d] + block - 1) / block : x.dims[d];
    fits = scale.dims[d] == want;
  }
  if (!fits) {
    return def.Fail(code::kInvalidParam, "the blocked scale ", DimsString(scale.dims),
                    " does not fit input ", DimsString(x.dims), " with block_size ", block,
                    " on axis ", a);
  }
  p.mode = ParamIndex::Mode::kBlocked;
  p.block = block;
  p.param_len = scale.dims[a];
  return p;
}

bool IsQuantized(DataType t) {
  return t == DataType::kUint8 || t == DataType::kInt8 || t == DataType::kUint16 ||
         t == DataType::kInt16;
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

class QuantizeKernel final : public Kernel {
 public:
  QuantizeKernel(const NodeDef& def, DataType precision) : def_(def), precision_(precision) {}

  Status Run(KernelContext& ctx) const override {
    const TensorView* x = ctx.input(0);
    const TensorView* scale = ctx.input(1);
    const TensorView* zp = ctx.num_inputs() > 2 ? ctx.input(2) : nullptr;
    if (x == nullptr || scale == nullptr) {
      return def_.Fail(code::kInvalidParam, "x and y_scale are required");
    }
    KILN_ASSIGN_OR_RETURN(ParamIndex index, ResolveParams(def_, *x, *scale, zp));
    KILN_ASSIGN_OR_RETURN(TensorView * y, ctx.Output(0, x->dims));
    if (!IsQuantized(y->dtype) || (zp != nullptr && zp->dtype != y->dtype)) {
      return def_.Fail(code::kInvalidParam, "output is ", ir::Name(y->dtype),
                       zp ? " and y_zero_point is " : "", zp ? ir::Name(zp->dtype) : "",
                       "; both must be one quantized type");
    }
    const DataType precision = precision_ != DataType::kUndefined ? precision_ : scale->dtype;
    const std::vector<double> scales = ReadDoubles(*scale);
    const std::vector<int64_t> zero_points =
        zp != nullptr ? ReadInts(*zp) : std::vector<int64_t>(scales.size(), 0);
    const std::vector<double> xs = ReadDoubles(*x);
    const auto [lo, hi] = QuantRange(y->dtype);
    for (int64_t i = 0; i < x->num_elements(); ++i) {
      const size_t p = static_cast<size_t>(index(i));
      const double q = Divide(xs[static_cast<size_t>(i)], scales[p], precision);
      StoreQuantized(y->dtype, y->data, i,
                     Saturate(q, static_cast<double>(zero_points[p]), lo, hi));
    }
    return Status::Ok();
  }

 private:
  NodeDef def_;
  DataType precision_;  // kUndefined: the scale's type
};

Result<std::unique_ptr<Kernel>> MakeQuantize(const NodeDef& def) {
  const DataType x = def.input_types.empty() ? DataType::kUndefined : def.input_types[0];
  if (!ir::IsFloat(x) && x != DataType::kInt32) {
    return def.Fail(code::kFeatureUnsupported, "x of type ", ir::Name(x), " is not supported");
  }
  if (def.input_types.size() > 1 && !ir::IsFloat(def.input_types[1]) &&
      def.input_types[1] != DataType::kInt32) {
    return def.Fail(code::kFeatureUnsupported, "y_scale of type ", ir::Name(def.input_types[1]),
                    " is not supported");
  }
  if (def.output_types.empty() || !IsQuantized(def.output_types[0])) {
    return def.Fail(code::kFeatureUnsupported, "output type ",
                    def.output_types.empty() ? "(none)" : ir::Name(def.output_types[0]),
                    " is not supported; uint8, int8, uint16 or int16 is required");
  }
  DataType precision = DataType::kUndefined;
  const int64_t p = def.opset >= 23 ? def.attr_int("precision", 0) : 0;
  if (p != 0) {
    precision = p > 0 && p < 64 ? ir::FromOnnx(static_cast<int32_t>(p)) : DataType::kUndefined;
    if (!ir::IsFloat(precision)) {
      return def.Fail(code::kFeatureUnsupported, "precision ", p, " is not supported");
    }
  }
  return std::unique_ptr<Kernel>(std::make_unique<QuantizeKernel>(def, precision));
}

// ---- DequantizeLinear ----------------------------------------------------------------------

Status RunDequantize(const NodeDef& def, KernelContext& ctx) {
  const TensorView* x = ctx.input(0);
  const TensorView* scale = ctx.input(1);
  const TensorView* zp = ctx.num_inputs() > 2 ? ctx.input(2) : nullptr;
  if (x == nullptr || scale == nullptr) {
    return def.Fail(code::kInvalidParam, "x and x_scale are required");
  }
  if (zp != nullptr && zp->dtype != x->dtype) {
    return def.Fail(code::kInvalidParam, "x_zero_point is ", ir::Name(zp->dtype), " but x is ",
                    ir::Name(x->dtype));
  }
  KILN_ASSIGN_OR_RETURN(ParamIndex index, ResolveParams(def, *x, *scale, zp));
  KILN_ASSIGN_OR_RETURN(TensorView * y, ctx.Output(0, x->dims));
  const std::vector<int64_t> xs = ReadInts(*x);
  const std::vector<double> scales = ReadDoubles(*scale);
  const std::vector<int64_t> zero_points =
      zp != nullptr ? ReadInts(*zp) : std::vector<int64_t>(scales.size(), 0);
  const bool ok = DispatchFloat(y->dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, double>) {
      return;  // rejected at Prepare
    } else {
      T* out = y->as<T>();
      for (int64_t i = 0; i < x->num_elements(); ++i) {
        const size_t p = static_cast<size_t>(index(i));
        const float d = static_cast<float>(xs[static_cast<size_t>(i)] - zero_points[p]);
        Store(out, i, d * static_cast<float>(scales[p]));
      }
    }
  });
  if (!ok || y->dtype == DataType::kFloat64) {
    return def.Fail(code::kInvalidParam, "output is ", ir::Name(y->dtype),
                    "; float32, float16 or bfloat16 is required");
  }
  return Status::Ok();
}

Result<std::unique_ptr<Kernel>> MakeDequantize(const NodeDef& def) {
  const DataType x = def.input_types.empty() ? DataType::kUndefined : def.input_types[0];
  if (!IsQuantized(x) && x != DataType::kInt32) {
    return def.Fail(code::kFeatureUnsupported, "x of type ", ir::Name(x),
                    " is not supported; uint8, int8, uint16, int16 or int32 is required");
  }
  auto is_out = [](DataType t) {
    return t == DataType::kFloat32 || t == DataType::kFloat16 || t == DataType::kBFloat16;
  };
  if (def.input_types.size() > 1 && !is_out(def.input_types[1])) {
    return def.Fail(code::kFeatureUnsupported, "x_scale of type ", ir::Name(def.input_types[1]),
                    " is not supported");
  }
  if (def.output_types.empty() || !is_out(def.output_types[0])) {
    return def.Fail(code::kFeatureUnsupported, "output type ",
                    def.output_types.empty() ? "(none)" : ir::Name(def.output_types[0]),
                    " is not supported; float32, float16 or bfloat16 is required");
  }
  return MakeFunctionKernel(def, RunDequantize);
}

// ---- DynamicQuantizeLinear -----------------------------------------------------------------

// The ONNX formula in float32: the range [min(0, min x), max(0, max x)] over [0, 255]
// (NaN elements left out of the range).
Status RunDynamicQuantize(const NodeDef& def, KernelContext& ctx) {
  const TensorView* x = ctx.input(0);
  if (x == nullptr) return def.Fail(code::kInvalidParam, "x is required");
  if (x->dtype != DataType::kFloat32) {
    return def.Fail(code::kInvalidParam, "x is ", ir::Name(x->dtype), "; float32 is required");
  }
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
  KILN_ASSIGN_OR_RETURN(TensorView * y, ctx.Output(0, x->dims));
  KILN_ASSIGN_OR_RETURN(TensorView * y_scale, ctx.Output(1, {}));
  KILN_ASSIGN_OR_RETURN(TensorView * y_zero_point, ctx.Output(2, {}));
  if (y->dtype != DataType::kUint8 || y_scale->dtype != DataType::kFloat32 ||
      y_zero_point->dtype != DataType::kUint8) {
    return def.Fail(code::kInvalidParam, "outputs are ", ir::Name(y->dtype), ", ",
                    ir::Name(y_scale->dtype), ", ", ir::Name(y_zero_point->dtype),
                    "; uint8, float32, uint8 are required");
  }
  uint8_t* out = y->as<uint8_t>();
  for (int64_t i = 0; i < n; ++i) {
    const float v = std::nearbyint(in[i] / scale) + zero_point;
    out[i] = std::isnan(v) ? 0 : static_cast<uint8_t>(std::clamp(v, kQMin, kQMax));
  }
  *y_scale->as<float>() = scale;
  *y_zero_point->as<uint8_t>() = static_cast<uint8_t>(zero_point);
  return Status::Ok();
}

Result<std::unique_ptr<Kernel>> MakeDynamicQuantize(const NodeDef& def) {
  if (def.input_types.empty() || def.input_types[0] != DataType::kFloat32) {
    return def.Fail(code::kFeatureUnsupported, "x of type ",
                    def.input_types.empty() ? "(none)" : ir::Name(def.input_types[0]),
                    " is not supported; float32 is required");
  }
  return MakeFunctionKernel(def, RunDynamicQuantize);
}

}  // namespace

void RegisterQuantizeKernels(KernelRegistry& r) {
  r.Register(kReferenceBackend, "", "QuantizeLinear", MakeQuantize);
  r.Register(kReferenceBackend, "", "DequantizeLinear", MakeDequantize);
  r.Register(kReferenceBackend, "", "DynamicQuantizeLinear", MakeDynamicQuantize);
}

}  // namespace kiln::kernels
