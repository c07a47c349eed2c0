// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "backends/cuda/kernels/register.h"

#include <cuda_runtime_api.h>

#include "backends/cuda/cuda_status.h"
#include "backends/cuda/kernels/cast_launch.h"
#include "hal/execution.h"

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

MatrixInput MatrixInputOf(const kernels::NodeDef& def) {
  switch (def.matrix_precision) {
    case kernels::MatrixPrecision::kFp16:
      return MatrixInput::kFloat16;
    case kernels::MatrixPrecision::kBf16:
      return MatrixInput::kBfloat16;
    case kernels::MatrixPrecision::kFp32:
      break;
  }
  return MatrixInput::kFloat32;
}

Status ToMatrixInput(kernels::KernelContext& ctx, MatrixInput type, const float* src, void* dst,
                     int64_t n) {
  const CastType to = type == MatrixInput::kBfloat16 ? CastType::kBfloat16 : CastType::kFloat16;
  return Launched(LaunchCast(CastType::kFloat32, to, src, dst, n, StreamOf(ctx)),
                  "converting a matrix input");
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

Status Launched(int error, const char* what) {
  return CudaStatus(static_cast<cudaError_t>(error), what);
}

}  // namespace kiln::cuda
