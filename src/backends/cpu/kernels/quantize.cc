// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// QuantizeLinear and DequantizeLinear as a QDQ model runs them on every execution: float32
// activations to and from uint8 / int8 with one scale and zero point (per tensor), the QDQ
// nodes qdq_fusion leaves around the ops it does not turn into integer ops (and a model's first
// quantization of its input); and DynamicQuantizeLinear, which onnxruntime's dynamic quantization
// puts before every MatMulInteger. The arithmetic is the reference kernel's (kernels/reference/
// quantize.cc): x / scale in float32, rounded half to even, plus the zero point, saturated, NaN
// to the lowest value; float32(x - zero_point) * scale; DynamicQuantizeLinear's range [min(0,
// min x), max(0, max x)] (NaN left out) over [0, 255]. Per-axis and blocked parameters, other
// types, opset 23's precision and a degenerate range (all zero, infinite) run on the reference
// kernel.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>

#include "backends/cpu/kernels/elementwise_internal.h"
#include "backends/cpu/kernels/families.h"
#include "backends/cpu/kernels/simd.h"
#include "kernels/util.h"

namespace kiln::cpu {
namespace {

using internal::DataType;
using internal::FallbackKernel;
using internal::Kernel;
using internal::KernelContext;
using internal::KernelRegistry;
using internal::kGrainCheap;
using internal::NodeDef;
using internal::TensorView;

// round_half_even(x / scale) + zero_point, saturated to [lo, hi]; NaN gives lo.
template <typename Q>
inline void QuantizeLoop(const float* KILN_RESTRICT x, Q* KILN_RESTRICT y, int64_t n, float scale,
                         float zero_point, float lo, float hi) {
  for (int64_t i = 0; i < n; ++i) {
    float v = std::nearbyint(x[i] / scale) + zero_point;
    v = v >= lo ? v : lo;  // also NaN
    v = v <= hi ? v : hi;
    y[i] = static_cast<Q>(static_cast<int32_t>(v));
  }
}

KILN_CPU_CLONES void QuantizeU8(const float* x, uint8_t* y, int64_t n, float s, float z) {
  QuantizeLoop(x, y, n, s, z, 0.0f, 255.0f);
}
KILN_CPU_CLONES void QuantizeS8(const float* x, int8_t* y, int64_t n, float s, float z) {
  QuantizeLoop(x, y, n, s, z, -128.0f, 127.0f);
}
KILN_CPU_CLONES void DequantizeU8(const uint8_t* KILN_RESTRICT x, float* KILN_RESTRICT y, int64_t n,
                                  float s, int32_t z) {
  for (int64_t i = 0; i < n; ++i) y[i] = static_cast<float>(int32_t{x[i]} - z) * s;
}
KILN_CPU_CLONES void DequantizeS8(const int8_t* KILN_RESTRICT x, float* KILN_RESTRICT y, int64_t n,
                                  float s, int32_t z) {
  for (int64_t i = 0; i < n; ++i) y[i] = static_cast<float>(int32_t{x[i]} - z) * s;
}

// min(0, min x) and max(0, max x), NaN left out (a NaN compares false), in 16 lanes.
KILN_CPU_CLONES void RangeWithZero(const float* KILN_RESTRICT x, int64_t n, float* lo, float* hi) {
  float mn[16] = {}, mx[16] = {};
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    for (int j = 0; j < 16; ++j) {
      const float v = x[i + j];
      mn[j] = v < mn[j] ? v : mn[j];
      mx[j] = v > mx[j] ? v : mx[j];
    }
  }
  for (; i < n; ++i) {
    mn[0] = x[i] < mn[0] ? x[i] : mn[0];
    mx[0] = x[i] > mx[0] ? x[i] : mx[0];
  }
  float a = 0.0f, b = 0.0f;
  for (int j = 0; j < 16; ++j) {
    a = mn[j] < a ? mn[j] : a;
    b = mx[j] > b ? mx[j] : b;
  }
  *lo = a;
  *hi = b;
}

bool Is8Bit(DataType t) { return t == DataType::kUint8 || t == DataType::kInt8; }

// The planned dims of input i hold exactly one element.
bool OneValue(const NodeDef& def, size_t i) {
  if (!def.input_given(i) || !def.input_ranked(i)) return false;
  int64_t n = 1;
  for (int64_t d : def.input_dims[i]) n *= d;  // -1 (unknown) makes it not 1
  return n == 1;
}

class QdqKernel final : public FallbackKernel {
 public:
  enum class Kind { kQuantize, kDequantize };

  static Result<std::unique_ptr<Kernel>> Make(const KernelRegistry& registry, const NodeDef& def,
                                              Kind kind) {
    const DataType in = def.input_types.empty() ? DataType::kUndefined : def.input_types[0];
    const DataType out = def.output_types.empty() ? DataType::kUndefined : def.output_types[0];
    const DataType q = kind == Kind::kQuantize ? out : in;
    const DataType f = kind == Kind::kQuantize ? in : out;
    const bool zp = def.num_inputs() > 2 && def.input_given(2);
    if (f != DataType::kFloat32 || !Is8Bit(q) || !OneValue(def, 1) ||
        def.input_types[1] != DataType::kFloat32 || (zp && !OneValue(def, 2)) ||
        (zp && def.input_types[2] != q) || (def.opset >= 23 && def.attr_int("precision") != 0)) {
      return def.Fail(code::kFeatureUnsupported,
                      "the cpu kernel takes float32 <-> uint8/int8 with one scale and zero point");
    }
    KILN_ASSIGN_OR_RETURN(auto reference, internal::PrepareReference(registry, def));
    return std::unique_ptr<Kernel>(new QdqKernel(def, std::move(reference), kind));
  }

  Status Run(KernelContext& ctx) const override {
    const TensorView* x = ctx.input(0);
    const TensorView* scale = ctx.input(1);
    const TensorView* zp = ctx.num_inputs() > 2 ? ctx.input(2) : nullptr;
    const DataType q = kind_ == Kind::kQuantize ? def_.output_types[0] : x->dtype;
    if (scale->num_elements() != 1 || scale->dtype != DataType::kFloat32 ||
        (zp != nullptr && (zp->num_elements() != 1 || zp->dtype != q))) {
      return RunReference(ctx);
    }
    KILN_ASSIGN_OR_RETURN(TensorView * y, kernels::BoundOutput(def_, ctx, 0));
    if (y->num_elements() != x->num_elements()) return RunReference(ctx);
    const float s = scale->as<const float>()[0];
    int32_t z = 0;
    if (zp != nullptr) {
      z = q == DataType::kUint8 ? int32_t{zp->as<const uint8_t>()[0]}
                                : int32_t{zp->as<const int8_t>()[0]};
    }
    const bool u8 = q == DataType::kUint8;
    const void* in = x->data;
    void* out = y->data;
    const bool quantize = kind_ == Kind::kQuantize;
    ctx.ParallelFor(x->num_elements(), kGrainCheap, [&](int64_t begin, int64_t end) {
      const int64_t n = end - begin;
      if (quantize && u8) {
        QuantizeU8(static_cast<const float*>(in) + begin, static_cast<uint8_t*>(out) + begin, n, s,
                   static_cast<float>(z));
      } else if (quantize) {
        QuantizeS8(static_cast<const float*>(in) + begin, static_cast<int8_t*>(out) + begin, n, s,
                   static_cast<float>(z));
      } else if (u8) {
        DequantizeU8(static_cast<const uint8_t*>(in) + begin, static_cast<float*>(out) + begin, n,
                     s, z);
      } else {
        DequantizeS8(static_cast<const int8_t*>(in) + begin, static_cast<float*>(out) + begin, n, s,
                     z);
      }
    });
    return Status::Ok();
  }

 private:
  QdqKernel(const NodeDef& def, std::unique_ptr<Kernel> reference, Kind kind)
      : FallbackKernel(def, std::move(reference)), kind_(kind) {}

  Kind kind_;
};

class DynamicQuantizeKernel final : public FallbackKernel {
 public:
  static Result<std::unique_ptr<Kernel>> Make(const KernelRegistry& registry, const NodeDef& def) {
    if (def.input_types.empty() || def.input_types[0] != DataType::kFloat32) {
      return def.Fail(code::kFeatureUnsupported, "the cpu kernel takes float32 x only");
    }
    KILN_ASSIGN_OR_RETURN(auto reference, internal::PrepareReference(registry, def));
    return std::unique_ptr<Kernel>(new DynamicQuantizeKernel(def, std::move(reference)));
  }

  Status Run(KernelContext& ctx) const override {
    const TensorView* x = ctx.input(0);
    const float* in = x->as<const float>();
    const int64_t n = x->num_elements();
    float min_x = 0.0f, max_x = 0.0f;
    RangeWithZero(in, n, &min_x, &max_x);
    // The reference's formula; a degenerate or infinite range is left to it.
    const float scale = (max_x - min_x) / 255.0f;
    const float zero_point = std::nearbyint(std::min(std::max(-min_x / scale, 0.0f), 255.0f));
    if (!(scale > 0.0f) || !std::isfinite(scale) || std::isnan(zero_point)) {
      return RunReference(ctx);
    }
    KILN_ASSIGN_OR_RETURN(TensorView * y, kernels::BoundOutput(def_, ctx, 0));
    KILN_ASSIGN_OR_RETURN(TensorView * y_scale, kernels::BoundOutput(def_, ctx, 1));
    KILN_ASSIGN_OR_RETURN(TensorView * y_zero_point, kernels::BoundOutput(def_, ctx, 2));
    uint8_t* out = y->as<uint8_t>();
    ctx.ParallelFor(n, kGrainCheap, [&](int64_t begin, int64_t end) {
      QuantizeU8(in + begin, out + begin, end - begin, scale, zero_point);
    });
    *y_scale->as<float>() = scale;
    *y_zero_point->as<uint8_t>() = static_cast<uint8_t>(zero_point);
    return Status::Ok();
  }

 private:
  DynamicQuantizeKernel(const NodeDef& def, std::unique_ptr<Kernel> reference)
      : FallbackKernel(def, std::move(reference)) {}
};

}  // namespace

void RegisterCpuQuantizeKernels(KernelRegistry& r) {
  const KernelRegistry* reg = &r;
  using Kind = QdqKernel::Kind;
  r.Register(internal::kCpu, "", "QuantizeLinear",
             [reg](const NodeDef& def) { return QdqKernel::Make(*reg, def, Kind::kQuantize); });
  r.Register(internal::kCpu, "", "DequantizeLinear",
             [reg](const NodeDef& def) { return QdqKernel::Make(*reg, def, Kind::kDequantize); });
  r.Register(internal::kCpu, "", "DynamicQuantizeLinear",
             [reg](const NodeDef& def) { return DynamicQuantizeKernel::Make(*reg, def); });
}

}  // namespace kiln::cpu
