// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The host side of cast.cu: Cast and CastLike between float32, float16, bfloat16, float64,
// int64, int32, int16, int8, uint8 and bool; other types (the 8-bit and 4-bit floats, the
// unsigned wider integers, strings) are declined at load.
#include <memory>
#include <optional>

#include "backends/cuda/kernels/cast_launch.h"
#include "backends/cuda/kernels/register.h"

namespace kiln::cuda {
namespace {

using kernels::DataType;
using kernels::Kernel;
using kernels::KernelContext;
using kernels::NodeDef;

std::optional<CastType> CastTypeOf(DataType t) {
  switch (t) {
    case DataType::kFloat32:
      return CastType::kFloat32;
    case DataType::kFloat16:
      return CastType::kFloat16;
    case DataType::kBFloat16:
      return CastType::kBfloat16;
    case DataType::kFloat64:
      return CastType::kFloat64;
    case DataType::kInt64:
      return CastType::kInt64;
    case DataType::kInt32:
      return CastType::kInt32;
    case DataType::kInt16:
      return CastType::kInt16;
    case DataType::kInt8:
      return CastType::kInt8;
    case DataType::kUint8:
      return CastType::kUint8;
    case DataType::kBool:
      return CastType::kBool;
    default:
      return std::nullopt;
  }
}

class CastKernel final : public Kernel {
 public:
  // Enqueues its launches only (kernels/kernel.h).
  bool Replayable() const override { return true; }
  CastKernel(CastType from, CastType to) : from_(from), to_(to) {}
  Status Run(KernelContext& ctx) const override {
    const kernels::TensorView* x = ctx.input(0);
    kernels::TensorView* y = ctx.output(0);
    return Launched(LaunchCast(from_, to_, x->data, y->data, y->num_elements(), StreamOf(ctx)),
                    "launching a cast");
  }

 private:
  CastType from_, to_;
};

Result<std::unique_ptr<Kernel>> Prepare(const NodeDef& def) {
  const DataType from = def.input_types[0], to = def.output_types[0];
  const std::optional<CastType> f = CastTypeOf(from), t = CastTypeOf(to);
  if (!f || !t) {
    return def.Fail(code::kFeatureUnsupported, "the CUDA Cast does not convert ", ir::Name(from),
                    " to ", ir::Name(to));
  }
  return std::unique_ptr<Kernel>(std::make_unique<CastKernel>(*f, *t));
}

}  // namespace

void RegisterCudaCastKernels(kernels::KernelRegistry& registry) {
  registry.Register(kCudaBackend, "", "Cast", Prepare);
  registry.Register(kCudaBackend, "", "CastLike", Prepare);
}

}  // namespace kiln::cuda
