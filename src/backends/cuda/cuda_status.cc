// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "backends/cuda/cuda_status.h"

namespace kiln::cuda {

Status CudaStatus(cudaError_t error, const char* what) {
  if (error == cudaSuccess) return Status::Ok();
  (void)cudaGetLastError();  // a non-sticky error must not be reported again by the next call
  int code = code::kRtInternalError;
  switch (error) {
    case cudaErrorMemoryAllocation:
      code = code::kRtMemoryAllocation;
      break;
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
    case cudaErrorInvalidDevice:
      code = code::kRtNoDevice;
      break;
    default:
      break;
  }
  return Error(code, what, ": ", cudaGetErrorName(error), " (", cudaGetErrorString(error), ")");
}

}  // namespace kiln::cuda
