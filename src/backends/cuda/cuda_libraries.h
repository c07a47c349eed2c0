// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// cuBLASLt and cuDNN, opened at first use with dlopen (docs/cuda.md decision 1): libascendcl.so
// needs no NVIDIA library to load, a machine without them runs the CPU device and the CUDA
// device's own kernels, and a kernel that needs a missing library declines at load naming the
// library and dlerror's reason. Each table holds the functions Kiln calls, typed from the
// headers it was compiled against; the library's major version is the headers' (cuBLASLt's
// soname carries the CUDA major, cuDNN's its own).
#pragma once

#include <cublasLt.h>
#include <cublas_api.h>
#include <cudnn.h>

#include "base/status.h"

namespace kiln::cuda {

struct CublasLtApi {
  decltype(&cublasLtCreate) Create;
  decltype(&cublasLtDestroy) Destroy;
  decltype(&cublasLtMatmulDescCreate) MatmulDescCreate;
  decltype(&cublasLtMatmulDescDestroy) MatmulDescDestroy;
  decltype(&cublasLtMatmulDescSetAttribute) MatmulDescSetAttribute;
  decltype(&cublasLtMatrixLayoutCreate) MatrixLayoutCreate;
  decltype(&cublasLtMatrixLayoutDestroy) MatrixLayoutDestroy;
  decltype(&cublasLtMatrixLayoutSetAttribute) MatrixLayoutSetAttribute;
  decltype(&cublasLtMatmulPreferenceCreate) MatmulPreferenceCreate;
  decltype(&cublasLtMatmulPreferenceDestroy) MatmulPreferenceDestroy;
  decltype(&cublasLtMatmulPreferenceSetAttribute) MatmulPreferenceSetAttribute;
  decltype(&cublasLtMatmulAlgoGetHeuristic) MatmulAlgoGetHeuristic;
  decltype(&cublasLtMatmul) Matmul;
};

struct CudnnApi {
  decltype(&cudnnCreate) Create;
  decltype(&cudnnDestroy) Destroy;
  decltype(&cudnnSetStream) SetStream;
  decltype(&cudnnGetErrorString) GetErrorString;
  decltype(&cudnnBackendCreateDescriptor) BackendCreateDescriptor;
  decltype(&cudnnBackendDestroyDescriptor) BackendDestroyDescriptor;
  decltype(&cudnnBackendSetAttribute) BackendSetAttribute;
  decltype(&cudnnBackendGetAttribute) BackendGetAttribute;
  decltype(&cudnnBackendFinalize) BackendFinalize;
  decltype(&cudnnBackendExecute) BackendExecute;
};

// The loaded table, or kFeatureUnsupported naming the library and why it did not load. Loaded
// once per process (thread-safe); the libraries stay open.
Result<const CublasLtApi*> CublasLt();
Result<const CudnnApi*> Cudnn();

// A cuBLASLt / cuDNN status as a Status: Ok for success; otherwise kRtInternalError (or
// kRtMemoryAllocation for an allocation failure) "<what>: <library's name for the status>".
Status CublasStatus(cublasStatus_t status, const char* what);
Status CudnnStatus(cudnnStatus_t status, const char* what);

}  // namespace kiln::cuda
