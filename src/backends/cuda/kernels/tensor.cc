// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The CUDA device's data-movement kernels that copy bytes as they are: Reshape, Flatten,
// Squeeze, Unsqueeze and Identity, any element type (a device-to-device copy on the slot's
// stream; none when the executor gave the output the input's memory).
#include <cuda_runtime_api.h>

#include <memory>

#include "backends/cuda/cuda_status.h"
#include "backends/cuda/kernels/register.h"
#include "kernels/util.h"

namespace kiln::cuda {
namespace {

class CopyKernel final : public kernels::Kernel {
 public:
  Status Run(kernels::KernelContext& ctx) const override {
    const kernels::TensorView* x = ctx.input(0);
    kernels::TensorView* y = ctx.output(0);
    if (y->bytes() != x->bytes()) {
      return Error(code::kInternalError, "the output is bound with ", y->bytes(),
                   " bytes for an input of ", x->bytes());
    }
    if (y->data == x->data || x->bytes() == 0) return Status::Ok();
    return CudaStatus(cudaMemcpyAsync(y->data, x->data, x->bytes(), cudaMemcpyDeviceToDevice,
                                      static_cast<cudaStream_t>(StreamOf(ctx))),
                      "cudaMemcpyAsync");
  }
};

}  // namespace

void RegisterCudaTensorKernels(kernels::KernelRegistry& registry) {
  for (const char* name : {"Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity"}) {
    registry.Register(kCudaBackend, "", name,
                      [](const kernels::NodeDef&) -> Result<std::unique_ptr<kernels::Kernel>> {
                        return std::unique_ptr<kernels::Kernel>(std::make_unique<CopyKernel>());
                      });
  }
}

}  // namespace kiln::cuda
