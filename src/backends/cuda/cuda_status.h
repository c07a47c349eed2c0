// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// CUDA runtime errors as Kiln Status: the AscendCL code that means the same thing, and a message
// naming what failed, CUDA's own name for the error and its text.
#pragma once

#include <cuda_runtime_api.h>

#include "base/status.h"

namespace kiln::cuda {

// Ok for cudaSuccess; otherwise an error "<what>: <cudaErrorName> (<description>)" whose code
// is kRtMemoryAllocation for an allocation failure, kRtNoDevice when there is no usable device
// or driver, kRtInternalError otherwise. Clears CUDA's sticky last-error slot for the thread.
Status CudaStatus(cudaError_t error, const char* what);

}  // namespace kiln::cuda
