// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// aclmdlDataset: the ordered data buffers (and optional tensor descs) of a model's inputs or
// outputs.
#include "capi/error.h"
#include "capi/model_handles.h"

using kiln::capi::InvalidParam;

namespace kiln::capi {

HandleTable<aclmdlDataset, Dataset>& Datasets() {
  static auto* table = new HandleTable<aclmdlDataset, Dataset>("dataset", "aclmdlDataset");
  return *table;
}

std::shared_ptr<Dataset> LiveDataset(const char* api, const aclmdlDataset* dataset) {
  return Datasets().Live(api, dataset);
}

aclDataType ToAclType(ir::DataType t) {
  using D = ir::DataType;
  switch (t) {
    case D::kFloat32:
      return ACL_FLOAT;
    case D::kFloat16:
      return ACL_FLOAT16;
    case D::kInt8:
      return ACL_INT8;
    case D::kInt32:
      return ACL_INT32;
    case D::kUint8:
      return ACL_UINT8;
    case D::kInt16:
      return ACL_INT16;
    case D::kUint16:
      return ACL_UINT16;
    case D::kUint32:
      return ACL_UINT32;
    case D::kInt64:
      return ACL_INT64;
    case D::kUint64:
      return ACL_UINT64;
    case D::kFloat64:
      return ACL_DOUBLE;
    case D::kBool:
      return ACL_BOOL;
    case D::kString:
      return ACL_STRING;
    case D::kBFloat16:
      return ACL_BF16;
    case D::kFloat8E4M3FN:
      return ACL_FLOAT8_E4M3FN;
    case D::kFloat8E5M2:
      return ACL_FLOAT8_E5M2;
    case D::kFloat8E8M0:
      return ACL_FLOAT8_E8M0;
    case D::kInt4:
      return ACL_INT4;
    case D::kFloat4E2M1:
      return ACL_FLOAT4_E2M1;
    default:  // AscendCL has no value for the FNUZ float8s, uint4, int2 and uint2
      return ACL_DT_UNDEFINED;
  }
}

}  // namespace kiln::capi

using kiln::capi::Datasets;
using kiln::capi::LiveDataset;

extern "C" {

aclmdlDataset* aclmdlCreateDataset(void) {
  try {
    return Datasets().Add(std::make_shared<kiln::capi::Dataset>());
  } catch (...) {
    kiln::capi::Report("aclmdlCreateDataset",
                       kiln::Error(kiln::code::kBadAlloc, "out of host memory"));
    return nullptr;
  }
}

aclError aclmdlDestroyDataset(const aclmdlDataset* dataset) {
  KILN_CAPI("aclmdlDestroyDataset", {
    if (dataset == nullptr) return InvalidParam("aclmdlDestroyDataset", "dataset is NULL");
    std::shared_ptr<kiln::capi::Dataset> d = Datasets().Remove(dataset);
    if (d == nullptr) {
      return InvalidParam("aclmdlDestroyDataset", Datasets().NotLive(dataset));
    }
    std::lock_guard<std::mutex> lock(d->descs_mu);
    for (aclTensorDesc* desc : d->descs) aclDestroyTensorDesc(desc);
    d->descs.clear();
    return ACL_SUCCESS;
  });
}

aclError aclmdlAddDatasetBuffer(aclmdlDataset* dataset, aclDataBuffer* dataBuffer) {
  KILN_CAPI("aclmdlAddDatasetBuffer", {
    auto d = LiveDataset("aclmdlAddDatasetBuffer", dataset);
    if (d == nullptr) return ACL_ERROR_INVALID_PARAM;
    if (dataBuffer == nullptr) return InvalidParam("aclmdlAddDatasetBuffer", "dataBuffer is NULL");
    void* data;
    size_t size;
    if (!kiln::capi::ReadDataBuffer(dataBuffer, &data, &size)) {
      return InvalidParam("aclmdlAddDatasetBuffer", "dataBuffer ", kiln::PtrStr(dataBuffer),
                          " is not a live aclDataBuffer (destroyed already?)");
    }
    std::lock_guard<std::mutex> lock(d->descs_mu);
    // Both lists grow together or not at all (out of memory between them would leave a buffer
    // with no desc slot for execution to read).
    d->buffers.reserve(d->buffers.size() + 1);
    d->descs.reserve(d->descs.size() + 1);
    d->buffers.push_back(dataBuffer);
    d->descs.push_back(nullptr);
    return ACL_SUCCESS;
  });
}

size_t aclmdlGetDatasetNumBuffers(const aclmdlDataset* dataset) {
  auto d = LiveDataset("aclmdlGetDatasetNumBuffers", dataset);
  return d ? d->buffers.size() : 0;
}

aclDataBuffer* aclmdlGetDatasetBuffer(const aclmdlDataset* dataset, size_t index) {
  auto d = LiveDataset("aclmdlGetDatasetBuffer", dataset);
  if (d == nullptr) return nullptr;
  if (index >= d->buffers.size()) {
    InvalidParam("aclmdlGetDatasetBuffer", "index ", index, " is out of range: the dataset has ",
                 d->buffers.size(), " buffer(s)");
    return nullptr;
  }
  return d->buffers[index];
}

aclError aclmdlSetDatasetTensorDesc(aclmdlDataset* dataset, aclTensorDesc* tensorDesc,
                                    size_t index) {
  KILN_CAPI("aclmdlSetDatasetTensorDesc", {
    auto d = LiveDataset("aclmdlSetDatasetTensorDesc", dataset);
    if (d == nullptr) return ACL_ERROR_INVALID_PARAM;
    if (tensorDesc == nullptr) {
      return InvalidParam("aclmdlSetDatasetTensorDesc", "tensorDesc is NULL");
    }
    if (index >= d->buffers.size()) {
      return InvalidParam("aclmdlSetDatasetTensorDesc", "index ", index,
                          " is out of range: the dataset has ", d->buffers.size(), " buffer(s)");
    }
    // The dataset keeps its own copy: the caller may destroy tensorDesc afterwards.
    const size_t rank = aclGetTensorDescNumDims(tensorDesc);
    if (rank > ACL_MAX_DIM_CNT) {
      return InvalidParam("aclmdlSetDatasetTensorDesc",
                          "tensorDesc has no known rank (or is not a live desc)");
    }
    std::vector<int64_t> dims(rank);
    for (size_t i = 0; i < dims.size(); ++i) {
      if (aclGetTensorDescDimV2(tensorDesc, i, &dims[i]) != ACL_SUCCESS) {
        return InvalidParam("aclmdlSetDatasetTensorDesc", "tensorDesc is not a live desc");
      }
    }
    aclTensorDesc* copy =
        aclCreateTensorDesc(aclGetTensorDescType(tensorDesc), static_cast<int>(dims.size()),
                            dims.data(), aclGetTensorDescFormat(tensorDesc));
    if (copy == nullptr) return kiln::capi::PeekLastError();
    std::lock_guard<std::mutex> lock(d->descs_mu);
    if (d->descs[index]) aclDestroyTensorDesc(d->descs[index]);
    d->descs[index] = copy;
    return ACL_SUCCESS;
  });
}

aclTensorDesc* aclmdlGetDatasetTensorDesc(const aclmdlDataset* dataset, size_t index) {
  auto d = LiveDataset("aclmdlGetDatasetTensorDesc", dataset);
  if (d == nullptr) return nullptr;
  std::lock_guard<std::mutex> lock(d->descs_mu);
  if (index >= d->descs.size()) {
    InvalidParam("aclmdlGetDatasetTensorDesc", "index ", index,
                 " is out of range: the dataset has ", d->descs.size(), " buffer(s)");
    return nullptr;
  }
  return d->descs[index];
}

}  // extern "C"
