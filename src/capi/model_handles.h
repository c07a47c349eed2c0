// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// What the model API's files share: the object behind an aclmdlDataset handle (acl_mdl.cc and
// acl_mdl_dataset.cc), the data buffer and tensor desc reads execution makes, and the mapping of
// Kiln's element types to aclDataType.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "capi/handle_table.h"
#include "runtime/model.h"

namespace kiln::capi {

// What an aclmdlDataset handle names.
struct Dataset {
  std::vector<aclDataBuffer*> buffers;  // handles, resolved at each use
  std::vector<aclTensorDesc*> descs;    // owned handles; null where none was set
  // Guards `descs` between threads: a run on a stream writes its output dataset's descs while
  // another call may read the same dataset as an input (aclmdlExecuteAsync A: in -> mid, then
  // B: mid -> out, with no synchronisation in between).
  mutable std::mutex descs_mu;
};

HandleTable<aclmdlDataset, Dataset>& Datasets();
// The dataset when it is live; otherwise records why not (for `api`) and returns null.
std::shared_ptr<Dataset> LiveDataset(const char* api, const aclmdlDataset* dataset);

aclDataType ToAclType(ir::DataType t);

// Writes `name` (truncated to fit) and `dims` into an aclmdlIODims.
void FillIoDims(const std::string& name, const kernels::Dims& dims, aclmdlIODims* out);

// A live aclDataBuffer's address and size (acl_data_buffer.cc); false when the handle is not
// live (never created, or destroyed).
bool ReadDataBuffer(const aclDataBuffer* buffer, void** data, size_t* size);
// Device memory of `size` bytes as aclrtMalloc(ACL_MEM_MALLOC_HUGE_FIRST) gives it (same
// padding, so aclrtFree and the memory checks treat it as theirs), for memory the runtime hands
// to the application (acl_memory.cc); null when it cannot be had.
void* MallocForCaller(size_t size);
// Points a live aclDataBuffer at `data` of `size` bytes (an output aclmdlExecute allocated);
// false when it is not live.
bool WriteDataBuffer(const aclDataBuffer* buffer, void* data, size_t size);

// What the model API reads and writes of a dataset's descs (defined with aclTensorDesc in
// acl_tensor_desc.cc), without going through a public call (which a profile would count as one
// the application made), and without allocating when nothing changed:
// a descriptor's dims, copied into `dims` (its storage reused); false when it is not live;
bool ReadTensorDescDims(const aclTensorDesc* desc, std::vector<int64_t>* dims);
// whether a live descriptor already says `dtype`, `format` and `dims`.
bool TensorDescSays(const aclTensorDesc* desc, aclDataType dtype, aclFormat format,
                    const std::vector<int64_t>& dims);

}  // namespace kiln::capi
