// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "backends/cuda/kernels/register.h"

#include <cuda_runtime_api.h>

#include "backends/cuda/cuda_status.h"
#include "hal/execution.h"

namespace kiln::cuda {

void RegisterCudaKernels(kernels::KernelRegistry& registry) {
  RegisterCudaElementwiseKernels(registry);
  RegisterCudaActivationKernels(registry);
  RegisterCudaMatmulKernels(registry);
  RegisterCudaConvKernels(registry);
  RegisterCudaNnKernels(registry);
  RegisterCudaNormKernels(registry);
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

Status RequireFp32Matrices(const kernels::NodeDef& def) {
  if (def.matrix_precision != kernels::MatrixPrecision::kFp32) {
    return def.Fail(code::kFeatureUnsupported,
                    "the CUDA device computes matrices in float32 only; ",
                    "the model was compiled for ", kernels::Name(def.matrix_precision));
  }
  return Status::Ok();
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
