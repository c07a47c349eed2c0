// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Fuzz target: an .om file given to the runtime the way an application gives it. The bytes are
// resealed first (file size and both CRC-32s recomputed, as a crafted file would have them), so
// mutations get past the checksum gate and reach the verifier, the loader and the kernels. A
// model that loads is executed once on zeroed inputs (every gear of a gear model in turn is too
// slow for a fuzzer: the first one), then unloaded. Loading or executing may fail with any
// documented error; it must never crash, hang, leak or touch memory it does not own.
//
// Built two ways (tests/fuzz/CMakeLists.txt): with clang's -fsanitize=fuzzer as a libFuzzer
// target, and with the project's compiler linked to fuzz_main.cc, the driver CI runs (replay
// of the committed crafted files, and a time-boxed checksum-aware mutation run).
#include <zlib.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "acl/acl.h"
#include "format/om_file.h"

namespace {

// Recomputes what the .om gate checks before it looks inside: file size, the payload's CRC-32
// and the header's own (format/om_file.h). Shorter than a header: left as is (refused anyway).
void Reseal(std::vector<uint8_t>& bytes) {
  using kiln::format::OmHeader;
  if (bytes.size() < sizeof(OmHeader)) return;
  OmHeader h;
  std::memcpy(&h, bytes.data(), sizeof h);
  h.file_size = bytes.size();
  uLong crc = crc32(0L, Z_NULL, 0);
  const size_t payload = bytes.size() - sizeof h;
  if (payload > 0) {
    crc = crc32(crc, bytes.data() + sizeof h, static_cast<uInt>(payload));
  }
  h.payload_crc32 = static_cast<uint32_t>(crc);
  h.header_crc32 = kiln::format::HeaderChecksum(h);
  std::memcpy(bytes.data(), &h, sizeof h);
}

// Inputs and outputs larger than this are not allocated (the load is still exercised): a fuzzed
// model may record any size, and the fuzzer's own memory limit is not what is being tested.
constexpr size_t kMaxBufferBytes = size_t{64} << 20;

struct Dataset {
  aclmdlDataset* set = aclmdlCreateDataset();
  std::vector<void*> memory;
  ~Dataset() {
    for (size_t i = 0; i < aclmdlGetDatasetNumBuffers(set); ++i) {
      aclDestroyDataBuffer(aclmdlGetDatasetBuffer(set, i));
    }
    aclmdlDestroyDataset(set);
    for (void* p : memory) aclrtFree(p);
  }
  // Adds a zeroed buffer of `bytes`; false when it cannot be made.
  bool Add(size_t bytes) {
    void* p = nullptr;
    const size_t alloc = bytes == 0 ? 1 : bytes;
    if (bytes > kMaxBufferBytes || aclrtMalloc(&p, alloc, ACL_MEM_MALLOC_NORMAL_ONLY) != 0) {
      return false;
    }
    memory.push_back(p);
    std::memset(p, 0, alloc);
    aclDataBuffer* b = aclCreateDataBuffer(p, bytes);
    if (b == nullptr) return false;
    if (aclmdlAddDatasetBuffer(set, b) != ACL_SUCCESS) {
      aclDestroyDataBuffer(b);
      return false;
    }
    return true;
  }
};

// KILN_FUZZ_VERBOSE set: each failed load or execute prints its error (replaying a file).
void Report(const char* what, aclError ret) {
  static const bool verbose = std::getenv("KILN_FUZZ_VERBOSE") != nullptr;
  if (!verbose || ret == ACL_SUCCESS) return;
  const char* msg = aclGetRecentErrMsg();
  std::fprintf(stderr, "%s: %d %s\n", what, ret, msg ? msg : "");
}

void ExecuteOnce(uint32_t id) {
  aclmdlDesc* desc = aclmdlCreateDesc();
  if (desc == nullptr) return;
  if (aclmdlGetDesc(desc, id) == ACL_SUCCESS) {
    Dataset in, out;
    bool ok = in.set != nullptr && out.set != nullptr;
    for (size_t i = 0; ok && i < aclmdlGetNumInputs(desc); ++i) {
      ok = in.Add(aclmdlGetInputSizeByIndex(desc, i));
    }
    for (size_t i = 0; ok && i < aclmdlGetNumOutputs(desc); ++i) {
      ok = out.Add(aclmdlGetOutputSizeByIndex(desc, i));
    }
    aclmdlBatch batch{};
    size_t gear_input = 0;
    if (ok && aclmdlGetDynamicBatch(desc, &batch) == ACL_SUCCESS && batch.batchCount > 0 &&
        aclmdlGetInputIndexByName(desc, ACL_DYNAMIC_TENSOR_NAME, &gear_input) == ACL_SUCCESS) {
      (void)aclmdlSetDynamicBatchSize(id, in.set, gear_input, batch.batch[0]);
    }
    if (ok) Report("execute", aclmdlExecute(id, in.set, out.set));
  }
  aclmdlDestroyDesc(desc);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // Each tensor in an allocation of its own: a kernel writing past its output is caught by the
  // sanitizer instead of overwriting a neighbour in the workspace (docs/fuzzing.md).
  setenv("KILN_EXEC_SEPARATE_TENSORS", "1", 0);
  if (aclInit(nullptr) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS) std::abort();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<uint8_t> bytes(data, data + size);
  Reseal(bytes);
  uint32_t id = 0;
  const aclError loaded = aclmdlLoadFromMem(bytes.data(), bytes.size(), &id);
  Report("load", loaded);
  if (loaded != ACL_SUCCESS) return 0;
  ExecuteOnce(id);
  if (aclmdlUnload(id) != ACL_SUCCESS) std::abort();  // a loaded model always unloads
  return 0;
}
