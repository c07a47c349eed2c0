// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// A thin layer over cuDNN's backend (graph) API for the kernels that use it (conv.cc): owned
// descriptors, typed attribute setters, and an execution plan chosen from the heuristics' list
// (mode A), for float32 skipping engines that down-convert its inputs (TF32) so float32 stays
// float32.
#pragma once

#include <cudnn.h>

#include <cstdint>
#include <initializer_list>
#include <vector>

#include "backends/cuda/cuda_libraries.h"
#include "base/status.h"

namespace kiln::cuda {

class CudnnDescriptor {
 public:
  CudnnDescriptor() = default;
  CudnnDescriptor(CudnnDescriptor&& o) noexcept : api_(o.api_), d_(o.d_) { o.d_ = nullptr; }
  CudnnDescriptor& operator=(CudnnDescriptor&& o) noexcept;
  ~CudnnDescriptor();
  static Result<CudnnDescriptor> Create(const CudnnApi* api, cudnnBackendDescriptorType_t type);

  cudnnBackendDescriptor_t get() const { return d_; }
  Status Set(cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type, int64_t count,
             const void* values) const;
  Status SetInt64(cudnnBackendAttributeName_t name, const std::vector<int64_t>& values) const {
    return Set(name, CUDNN_TYPE_INT64, static_cast<int64_t>(values.size()), values.data());
  }
  Status SetDescriptor(cudnnBackendAttributeName_t name, const CudnnDescriptor& d) const {
    cudnnBackendDescriptor_t v = d.get();
    return Set(name, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &v);
  }
  Status Finalize() const;

 private:
  const CudnnApi* api_ = nullptr;
  cudnnBackendDescriptor_t d_ = nullptr;
};

// A tensor of `type` and `dims` (packed, row-major strides) with the given unique id;
// `alignment` is what every pointer bound to it is aligned to (bytes).
Result<CudnnDescriptor> MakeTensor(const CudnnApi* api, const std::vector<int64_t>& dims,
                                   int64_t uid, int64_t alignment,
                                   cudnnDataType_t type = CUDNN_DATA_FLOAT);

// An execution plan for the one-operation graph of `op` on `handle`, and its workspace size;
// with `keep_float32` engines that compute float32 in TF32 are skipped. It keeps the variant
// pack of its last execution, with the pointers that pack binds.
struct CudnnPlan {
  CudnnDescriptor plan;
  int64_t workspace_bytes = 0;
  CudnnDescriptor pack;
  std::vector<void*> bound;  // the tensors' pointers, then the workspace's
};
Result<CudnnPlan> MakePlan(const CudnnApi* api, cudnnHandle_t handle, const CudnnDescriptor& op,
                           bool keep_float32);

// Runs `plan` with `pointers[i]` bound to tensor id `uids[i]`. The variant pack is made again
// only when a pointer differs from the last execution's (a run's tensors and its pooled
// workspace usually keep their addresses), so a repeated run allocates nothing on the host.
Status ExecutePlan(const CudnnApi* api, cudnnHandle_t handle, CudnnPlan& plan,
                   std::initializer_list<int64_t> uids, std::initializer_list<void*> pointers,
                   void* workspace);

}  // namespace kiln::cuda
