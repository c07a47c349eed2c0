// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "backends/cuda/cuda_libraries.h"

#include "base/shared_library.h"

namespace kiln::cuda {
namespace {

constexpr const char* kCublasLtSoname = "libcublasLt.so." KILN_SONAME_VERSION(CUBLAS_VER_MAJOR);
constexpr const char* kCudnnSoname = "libcudnn.so." KILN_SONAME_VERSION(CUDNN_MAJOR);

}  // namespace

Result<const CublasLtApi*> CublasLt() {
  static const Result<CublasLtApi> api =
      LoadSharedLibrary<CublasLtApi>(kCublasLtSoname, "cuBLASLt", [](CublasLtApi& a, auto& sym) {
        sym(a.Create, "cublasLtCreate");
        sym(a.Destroy, "cublasLtDestroy");
        sym(a.MatmulDescCreate, "cublasLtMatmulDescCreate");
        sym(a.MatmulDescDestroy, "cublasLtMatmulDescDestroy");
        sym(a.MatmulDescSetAttribute, "cublasLtMatmulDescSetAttribute");
        sym(a.MatrixLayoutCreate, "cublasLtMatrixLayoutCreate");
        sym(a.MatrixLayoutDestroy, "cublasLtMatrixLayoutDestroy");
        sym(a.MatrixLayoutSetAttribute, "cublasLtMatrixLayoutSetAttribute");
        sym(a.MatmulPreferenceCreate, "cublasLtMatmulPreferenceCreate");
        sym(a.MatmulPreferenceDestroy, "cublasLtMatmulPreferenceDestroy");
        sym(a.MatmulPreferenceSetAttribute, "cublasLtMatmulPreferenceSetAttribute");
        sym(a.MatmulAlgoGetHeuristic, "cublasLtMatmulAlgoGetHeuristic");
        sym(a.Matmul, "cublasLtMatmul");
      });
  if (!api.ok()) return api.status();
  return &*api;
}

Result<const CudnnApi*> Cudnn() {
  static const Result<CudnnApi> api =
      LoadSharedLibrary<CudnnApi>(kCudnnSoname, "cuDNN", [](CudnnApi& a, auto& sym) {
        sym(a.Create, "cudnnCreate");
        sym(a.Destroy, "cudnnDestroy");
        sym(a.SetStream, "cudnnSetStream");
        sym(a.GetErrorString, "cudnnGetErrorString");
        sym(a.BackendCreateDescriptor, "cudnnBackendCreateDescriptor");
        sym(a.BackendDestroyDescriptor, "cudnnBackendDestroyDescriptor");
        sym(a.BackendSetAttribute, "cudnnBackendSetAttribute");
        sym(a.BackendGetAttribute, "cudnnBackendGetAttribute");
        sym(a.BackendFinalize, "cudnnBackendFinalize");
        sym(a.BackendExecute, "cudnnBackendExecute");
      });
  if (!api.ok()) return api.status();
  return &*api;
}

Status CublasStatus(cublasStatus_t status, const char* what) {
  if (status == CUBLAS_STATUS_SUCCESS) return Status::Ok();
  const int code =
      status == CUBLAS_STATUS_ALLOC_FAILED ? code::kRtMemoryAllocation : code::kRtInternalError;
  // cublasGetStatusName lives in libcublas, which Kiln does not open: the enum's number.
  return Error(code, what, ": cuBLASLt status ", static_cast<int>(status));
}

Status CudnnStatus(cudnnStatus_t status, const char* what) {
  if (status == CUDNN_STATUS_SUCCESS) return Status::Ok();
  auto api = Cudnn();
  const char* name = api.ok() ? (*api)->GetErrorString(status) : "cuDNN error";
  return Error(code::kRtInternalError, what, ": ", name, " (", static_cast<int>(status), ")");
}

}  // namespace kiln::cuda
