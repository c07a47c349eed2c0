// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// One registration function per reference kernel family (kernels/reference/<family>.cc),
// called from RegisterReferenceKernels. The families follow ir/ops/.
#pragma once

#include "kernels/registry.h"

namespace kiln::kernels {

void RegisterElementwiseKernels(KernelRegistry& r);
void RegisterNnKernels(KernelRegistry& r);
void RegisterNnConvKernels(KernelRegistry& r);  // convolution and pooling
void RegisterTensorKernels(KernelRegistry& r);
void RegisterReduceKernels(KernelRegistry& r);
void RegisterControlFlowKernels(KernelRegistry& r);
void RegisterFusedKernels(KernelRegistry& r);
void RegisterQuantizeKernels(KernelRegistry& r);
void RegisterQLinearKernels(KernelRegistry& r);
void RegisterAttentionKernels(KernelRegistry& r);
void RegisterSamplingKernels(KernelRegistry& r);
void RegisterSignalKernels(KernelRegistry& r);  // DFT, STFT, windows, MelWeightMatrix
void RegisterStateSpaceKernels(KernelRegistry& r);
void RegisterImageKernels(KernelRegistry& r);  // com.kiln Aipp

}  // namespace kiln::kernels
