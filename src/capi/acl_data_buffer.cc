// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// aclDataBuffer: a (pointer, size) view of memory the caller owns.
#include "acl/acl.h"
#include "capi/error.h"
#include "capi/handle_table.h"
#include "capi/model_handles.h"

using kiln::capi::InvalidParam;

namespace {

// What an aclDataBuffer handle names.
struct DataBuffer {
  void* data;
  size_t size;
};

kiln::capi::HandleTable<aclDataBuffer, DataBuffer>& Buffers() {
  static auto* table =
      new kiln::capi::HandleTable<aclDataBuffer, DataBuffer>("dataBuffer", "aclDataBuffer");
  return *table;
}

}  // namespace

namespace kiln::capi {
bool ReadDataBuffer(const aclDataBuffer* buffer, void** data, size_t* size) {
  std::shared_ptr<DataBuffer> b = Buffers().Find(buffer);
  if (b == nullptr) return false;
  *data = b->data;
  *size = b->size;
  return true;
}

bool WriteDataBuffer(const aclDataBuffer* buffer, void* data, size_t size) {
  std::shared_ptr<DataBuffer> b = Buffers().Find(buffer);
  if (b == nullptr) return false;
  b->data = data;
  b->size = size;
  return true;
}
}  // namespace kiln::capi

extern "C" {

aclDataBuffer* aclCreateDataBuffer(void* data, size_t size) {
  try {
    // (NULL, 0) is allowed: a model output the runtime allocates.
    return Buffers().Add(std::make_shared<DataBuffer>(DataBuffer{data, size}));
  } catch (...) {
    kiln::capi::Report("aclCreateDataBuffer",
                       kiln::Error(kiln::code::kBadAlloc, "out of host memory"));
    return nullptr;
  }
}

aclError aclDestroyDataBuffer(const aclDataBuffer* dataBuffer) {
  KILN_CAPI("aclDestroyDataBuffer", {
    if (dataBuffer == nullptr) return InvalidParam("aclDestroyDataBuffer", "dataBuffer is NULL");
    if (Buffers().Remove(dataBuffer) == nullptr) {
      return InvalidParam("aclDestroyDataBuffer", Buffers().NotLive(dataBuffer));
    }
    return ACL_SUCCESS;
  });
}

aclError aclUpdateDataBuffer(aclDataBuffer* dataBuffer, void* data, size_t size) {
  KILN_CAPI("aclUpdateDataBuffer", {
    std::shared_ptr<DataBuffer> b = Buffers().Live("aclUpdateDataBuffer", dataBuffer);
    if (b == nullptr) return ACL_ERROR_INVALID_PARAM;
    b->data = data;
    b->size = size;
    return ACL_SUCCESS;
  });
}

void* aclGetDataBufferAddr(const aclDataBuffer* dataBuffer) {
  std::shared_ptr<DataBuffer> b = Buffers().Live("aclGetDataBufferAddr", dataBuffer);
  return b ? b->data : nullptr;
}

uint32_t aclGetDataBufferSize(const aclDataBuffer* dataBuffer) {
  std::shared_ptr<DataBuffer> b = Buffers().Live("aclGetDataBufferSize", dataBuffer);
  return b ? static_cast<uint32_t>(b->size) : 0;
}

size_t aclGetDataBufferSizeV2(const aclDataBuffer* dataBuffer) {
  std::shared_ptr<DataBuffer> b = Buffers().Live("aclGetDataBufferSizeV2", dataBuffer);
  return b ? b->size : 0;
}

}  // extern "C"
