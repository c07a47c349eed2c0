// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The model API's handle types (aclmdlDataset, aclmdlDesc), shared by acl_mdl.cc and
// acl_mdl_dataset.cc, and the mapping of Kiln's element types to aclDataType.
#pragma once

#include <cstdint>
#include <mutex>
#include <vector>

#include "acl/acl.h"
#include "capi/handle_set.h"
#include "runtime/model.h"

struct aclmdlDataset {
  std::vector<aclDataBuffer*> buffers;
  std::vector<aclTensorDesc*> descs;  // owned; null where none was set
  // Guards `descs` between threads: a run on a stream writes its output dataset's descs while
  // another call may read the same dataset as an input (aclmdlExecuteAsync A: in -> mid, then
  // B: mid -> out, with no synchronisation in between).
  mutable std::mutex descs_mu;
};

struct aclmdlDesc {
  bool filled = false;
  uint32_t model_id = 0;
  kiln::runtime::ModelInfo info;
};

namespace kiln::capi {

HandleSet<aclmdlDataset>& Datasets();
// The dataset when it is live; otherwise records why not (for `api`) and returns null.
aclmdlDataset* LiveDataset(const char* api, const aclmdlDataset* dataset);

aclDataType ToAclType(ir::DataType t);

// Whether `buffer` is a live aclDataBuffer (created, not yet destroyed; acl_data_buffer.cc).
bool IsLiveDataBuffer(const aclDataBuffer* buffer);

// What the model API reads and writes of a dataset's descs (defined with aclTensorDesc in
// acl_tensor_desc.cc), without going through a public call (which a profile would count as one
// the application made), and without allocating when nothing changed:
// a live descriptor's dims, copied into `dims` (its storage reused);
void ReadTensorDescDims(const aclTensorDesc* desc, std::vector<int64_t>* dims);
// whether a live descriptor already says `dtype`, `format` and `dims`.
bool TensorDescSays(const aclTensorDesc* desc, aclDataType dtype, aclFormat format,
                    const std::vector<int64_t>& dims);

}  // namespace kiln::capi
