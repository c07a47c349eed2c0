// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "backends/cuda/kernels/register.h"

#include <cuda_runtime_api.h>

#include "backends/cuda/cuda_status.h"
#include "backends/cuda/kernels/cast_launch.h"
#include "hal/execution.h"
#include "kernels/util.h"

namespace kiln::cuda {

void RegisterCudaKernels(kernels::KernelRegistry& registry) {
  RegisterCudaElementwiseKernels(registry);
  RegisterCudaActivationKernels(registry);
  RegisterCudaCastKernels(registry);
  RegisterCudaMatmulKernels(registry);
  RegisterCudaConvKernels(registry);
  RegisterCudaNnKernels(registry);
  RegisterCudaNormKernels(registry);
  RegisterCudaQuantKernels(registry);
  RegisterCudaResizeKernels(registry);
  RegisterCudaTensorKernels(registry);
  RegisterCudaMovementKernels(registry);
  RegisterCudaRnnKernels(registry);
  RegisterCudaCompareKernels(registry);
  RegisterCudaReduceKernels(registry);
  RegisterCudaControlFlowKernels(registry);
  RegisterCudaPadKernels(registry);
}

Status RequireFloat32(const kernels::NodeDef& def) {
  for (size_t i = 0; i < def.num_inputs(); ++i) {
    if (def.input_given(i) && def.input_types[i] != kernels::DataType::kFloat32) {
      return def.Fail(code::kFeatureUnsupported, "the CUDA kernel takes float32 only (input ", i,
                      ")");
    }
  }
  for (size_t i = 0; i < def.num_outputs(); ++i) {
    if (def.output_used(i) && def.output_types[i] != kernels::DataType::kFloat32) {
      return def.Fail(code::kFeatureUnsupported, "the CUDA kernel writes float32 only");
    }
  }
  return Status::Ok();
}

void* StreamOf(const kernels::KernelContext& ctx) {
  return ctx.exec() != nullptr ? ctx.exec()->native_queue() : nullptr;
}

Status RequireWholeBytes(const kernels::NodeDef& def, kernels::DataType type) {
  const size_t bytes = ir::SizeOf(type);
  if (ir::IsPacked(type) || (bytes != 1 && bytes != 2 && bytes != 4 && bytes != 8)) {
    return def.Fail(code::kFeatureUnsupported, "the CUDA kernel takes elements of 1, 2, 4 or 8 ",
                    "bytes; ", ir::Name(type), " is not one");
  }
  return Status::Ok();
}

void RegisterFunction(kernels::KernelRegistry& registry, const char* op, kernels::RunFn run,
                      std::initializer_list<PrepareCheck> checks, ReplayCheck replayable) {
  registry.Register(
      kCudaBackend, "", op,
      [run, checks = std::vector<PrepareCheck>(checks),
       replayable](const kernels::NodeDef& def) -> Result<std::unique_ptr<kernels::Kernel>> {
        for (PrepareCheck check : checks) KILN_RETURN_IF_ERROR(check(def), "");
        return kernels::MakeFunctionKernel(def, run, replayable == nullptr || replayable(def));
      });
}

bool SteeringIsConstant(const kernels::NodeDef& def) {
  for (size_t i = 1; i < def.num_inputs(); ++i) {
    if (def.input_given(i) && def.constant(i) == nullptr) return false;
  }
  return true;
}

namespace {

CastType HalfType(kernels::MatrixPrecision precision) {
  return precision == kernels::MatrixPrecision::kBf16 ? CastType::kBfloat16 : CastType::kFloat16;
}

}  // namespace

Status ToHalf(kernels::KernelContext& ctx, kernels::MatrixPrecision precision, const float* src,
              void* dst, int64_t n) {
  return Launched(LaunchCast(CastType::kFloat32, HalfType(precision), src, dst, n, StreamOf(ctx)),
                  "converting a matrix input to its half type");
}

Status FromHalf(kernels::KernelContext& ctx, kernels::MatrixPrecision precision, const void* src,
                float* dst, int64_t n) {
  return Launched(LaunchCast(HalfType(precision), CastType::kFloat32, src, dst, n, StreamOf(ctx)),
                  "converting a matrix result from its half type");
}

const kernels::TensorView* HostSteeringContext::input(size_t i) const {
  if (i == 0) return base_.input(0);
  if (const kernels::TensorView* c = def_.constant(i); c != nullptr) return c;
  const kernels::TensorView* device = base_.input(i);
  if (device == nullptr || base_.exec() == nullptr || i >= staged_.size()) return device;
  if (staged_[i] == nullptr) {
    staged_[i] = std::make_unique<kernels::HostTensor>(device->dtype, device->dims);
    base_.exec()->Copy(staged_[i]->bytes.data(), device->data, staged_[i]->bytes.size());
    views_[i] = staged_[i]->view();
  }
  return &views_[i];
}

RunScratch::RunScratch(const kernels::KernelContext& ctx, size_t bytes)
    : exec_(ctx.exec()), bytes_(bytes) {
  if (bytes_ != 0 && exec_ != nullptr) data_ = exec_->AllocateTensor(bytes_);
}

RunScratch::~RunScratch() {
  if (data_ != nullptr) exec_->FreeTensor(data_);
}

std::vector<size_t> HalfScratch::Offsets(std::initializer_list<int64_t> elements) {
  std::vector<size_t> offsets = {0};
  for (int64_t n : elements) {
    offsets.push_back(offsets.back() + (static_cast<size_t>(n) * 2 + 255) / 256 * 256);
  }
  return offsets;
}

HalfScratch::HalfScratch(const kernels::KernelContext& ctx, std::initializer_list<int64_t> elements)
    : offsets_(Offsets(elements)), scratch_(ctx, offsets_.back()) {}

uint32_t CommonAlignment(std::initializer_list<const void*> pointers, uint32_t cap) {
  uintptr_t bits = cap;
  for (const void* p : pointers) bits |= reinterpret_cast<uintptr_t>(p);
  return static_cast<uint32_t>(bits & (~bits + 1));  // the lowest set bit
}

Status AddBroadcastTerm(EpilogueParams& p, const kernels::TensorView& z, float scale,
                        const kernels::TensorView& y, const char* what) {
  p.z = static_cast<const float*>(z.data);
  p.z_scale = scale;
  p.z_same_shape = z.dims == y.dims;
  if (!p.z_same_shape &&
      !MakeBroadcastShape(y.dims.data(), static_cast<int>(y.dims.size()), z.dims.data(),
                          static_cast<int>(z.dims.size()), y.dims.data(),
                          static_cast<int>(y.dims.size()), &p.z_shape)) {
    return Error(code::kInvalidParam, what, " ", kernels::DimsString(z.dims),
                 " does not broadcast to ", kernels::DimsString(y.dims));
  }
  return Status::Ok();
}

Status Launched(int error, const char* what) {
  return CudaStatus(static_cast<cudaError_t>(error), what);
}

}  // namespace kiln::cuda
