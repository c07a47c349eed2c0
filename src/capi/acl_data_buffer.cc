// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// aclDataBuffer: a (pointer, size) view of memory the caller owns.
#include "acl/acl.h"
#include "capi/error.h"
#include "capi/handle_set.h"
#include "capi/model_handles.h"

using kiln::capi::InvalidParam;

struct aclDataBuffer {
  void* data;
  size_t size;
};

namespace {
kiln::capi::HandleSet<aclDataBuffer>& Buffers() {
  static auto* set = new kiln::capi::HandleSet<aclDataBuffer>();
  return *set;
}

// The buffer when it is live; otherwise records why not and returns null.
const aclDataBuffer* Live(const char* api, const aclDataBuffer* buffer) {
  if (buffer == nullptr) {
    InvalidParam(api, "dataBuffer is NULL");
    return nullptr;
  }
  if (!Buffers().Contains(buffer)) {
    InvalidParam(api, "dataBuffer ", kiln::PtrStr(buffer),
                 " is not a live aclDataBuffer (destroyed already?)");
    return nullptr;
  }
  return buffer;
}
}  // namespace

namespace kiln::capi {
bool IsLiveDataBuffer(const aclDataBuffer* buffer) { return Buffers().Contains(buffer); }
}  // namespace kiln::capi

extern "C" {

aclDataBuffer* aclCreateDataBuffer(void* data, size_t size) {
  try {
    // (NULL, 0) is allowed: a model output the runtime allocates.
    return Buffers().Add(new aclDataBuffer{data, size});
  } catch (...) {
    kiln::capi::Report("aclCreateDataBuffer",
                       kiln::Error(kiln::code::kBadAlloc, "out of host memory"));
    return nullptr;
  }
}

aclError aclDestroyDataBuffer(const aclDataBuffer* dataBuffer) {
  KILN_CAPI("aclDestroyDataBuffer", {
    if (dataBuffer == nullptr) return InvalidParam("aclDestroyDataBuffer", "dataBuffer is NULL");
    // Remove() decides: of two threads destroying one buffer, exactly one deletes it.
    if (!Buffers().Remove(dataBuffer)) {
      return InvalidParam("aclDestroyDataBuffer", "dataBuffer ", kiln::PtrStr(dataBuffer),
                          " is not a live aclDataBuffer (destroyed already?)");
    }
    delete dataBuffer;
    return ACL_SUCCESS;
  });
}

aclError aclUpdateDataBuffer(aclDataBuffer* dataBuffer, void* data, size_t size) {
  KILN_CAPI("aclUpdateDataBuffer", {
    if (Live("aclUpdateDataBuffer", dataBuffer) == nullptr) return ACL_ERROR_INVALID_PARAM;
    dataBuffer->data = data;
    dataBuffer->size = size;
    return ACL_SUCCESS;
  });
}

void* aclGetDataBufferAddr(const aclDataBuffer* dataBuffer) {
  const aclDataBuffer* b = Live("aclGetDataBufferAddr", dataBuffer);
  return b ? b->data : nullptr;
}

uint32_t aclGetDataBufferSize(const aclDataBuffer* dataBuffer) {
  const aclDataBuffer* b = Live("aclGetDataBufferSize", dataBuffer);
  return b ? static_cast<uint32_t>(b->size) : 0;
}

size_t aclGetDataBufferSizeV2(const aclDataBuffer* dataBuffer) {
  const aclDataBuffer* b = Live("aclGetDataBufferSizeV2", dataBuffer);
  return b ? b->size : 0;
}

}  // extern "C"
