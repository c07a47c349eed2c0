// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "backends/cuda/kernels/register.h"

#include <cuda_runtime_api.h>

#include "backends/cuda/cuda_status.h"
#include "hal/execution.h"

namespace kiln::cuda {

void RegisterCudaKernels(kernels::KernelRegistry& registry) {
  RegisterCudaElementwiseKernels(registry);
  RegisterCudaNnKernels(registry);
  RegisterCudaTensorKernels(registry);
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

Status Launched(int error, const char* what) {
  return CudaStatus(static_cast<cudaError_t>(error), what);
}

}  // namespace kiln::cuda
