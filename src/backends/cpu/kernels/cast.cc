// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Cast to float32 from the integer types quantized models produce on every execution (int32:
// MatMulInteger's and ConvInteger's sums before their scale; int64, uint8, int8) as vectorised
// loops; every other pair runs on the reference kernel. An integer converts to the nearest
// float32 (round half to even), as the reference's static_cast does.
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

template <typename T>
inline void ToFloatLoop(const T* KILN_RESTRICT x, float* KILN_RESTRICT y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = static_cast<float>(x[i]);
}
KILN_CPU_CLONES void I32ToF32(const int32_t* x, float* y, int64_t n) { ToFloatLoop(x, y, n); }
KILN_CPU_CLONES void I64ToF32(const int64_t* x, float* y, int64_t n) { ToFloatLoop(x, y, n); }
KILN_CPU_CLONES void U8ToF32(const uint8_t* x, float* y, int64_t n) { ToFloatLoop(x, y, n); }
KILN_CPU_CLONES void I8ToF32(const int8_t* x, float* y, int64_t n) { ToFloatLoop(x, y, n); }

bool Takes(DataType t) {
  return t == DataType::kInt32 || t == DataType::kInt64 || t == DataType::kUint8 ||
         t == DataType::kInt8;
}

class CastToFloatKernel final : public FallbackKernel {
 public:
  static Result<std::unique_ptr<Kernel>> Make(const KernelRegistry& registry, const NodeDef& def) {
    if (def.input_types.empty() || !Takes(def.input_types[0]) || def.output_types.empty() ||
        def.output_types[0] != DataType::kFloat32) {
      return def.Fail(code::kFeatureUnsupported,
                      "the cpu Cast takes int32, int64, uint8 or int8 to float32 only");
    }
    KILN_ASSIGN_OR_RETURN(auto reference, internal::PrepareReference(registry, def));
    return std::unique_ptr<Kernel>(new CastToFloatKernel(def, std::move(reference)));
  }

  Status Run(KernelContext& ctx) const override {
    const TensorView* x = ctx.input(0);
    if (!Takes(x->dtype)) return RunReference(ctx);
    KILN_ASSIGN_OR_RETURN(TensorView * y, kernels::BoundOutput(def_, ctx, 0));
    if (y->num_elements() != x->num_elements()) return RunReference(ctx);
    const DataType t = x->dtype;
    const void* in = x->data;
    float* out = y->as<float>();
    ctx.ParallelFor(x->num_elements(), kGrainCheap, [&](int64_t begin, int64_t end) {
      const int64_t n = end - begin;
      switch (t) {
        case DataType::kInt32:
          I32ToF32(static_cast<const int32_t*>(in) + begin, out + begin, n);
          break;
        case DataType::kInt64:
          I64ToF32(static_cast<const int64_t*>(in) + begin, out + begin, n);
          break;
        case DataType::kUint8:
          U8ToF32(static_cast<const uint8_t*>(in) + begin, out + begin, n);
          break;
        default:
          I8ToF32(static_cast<const int8_t*>(in) + begin, out + begin, n);
          break;
      }
    });
    return Status::Ok();
  }

 private:
  CastToFloatKernel(const NodeDef& def, std::unique_ptr<Kernel> reference)
      : FallbackKernel(def, std::move(reference)) {}
};

}  // namespace

void RegisterCpuCastKernels(KernelRegistry& r) {
  const KernelRegistry* reg = &r;
  r.Register(internal::kCpu, "", "Cast",
             [reg](const NodeDef& def) { return CastToFloatKernel::Make(*reg, def); });
}

}  // namespace kiln::cpu
