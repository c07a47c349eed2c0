// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "backends/cpu/kernels/register.h"

#include "backends/cpu/kernels/dnnl_common.h"
#include "backends/cpu/kernels/families.h"
#include "kernels/nhwc_view.h"

namespace kiln::cpu {

void RegisterCpuKernels(kernels::KernelRegistry& registry) {
  RegisterCpuConvKernels(registry);
  RegisterCpuDeconvKernels(registry);
  RegisterCpuMatMulKernels(registry);
  RegisterCpuNnKernels(registry);
  RegisterCpuRecurrentKernels(registry);
  RegisterCpuShuffleKernels(registry);
  RegisterCpuElementwiseKernels(registry);
  RegisterCpuReduceKernels(registry);
  RegisterCpuTensorKernels(registry);
  RegisterCpuResizePadKernels(registry);
  RegisterCpuQuantizeKernels(registry);
  RegisterCpuCastKernels(registry);
  RegisterCpuAttentionKernels(registry);
  kernels::RegisterNhwcViewKernels(registry, kCpuBackend);
}

}  // namespace kiln::cpu
