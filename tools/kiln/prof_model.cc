// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "tools/kiln/prof_model.h"

#include <unistd.h>

#include <cstring>
#include <random>
#include <set>

#include "acl/acl.h"
#include "acl/acl_prof.h"
#include "tools/kiln/bench_io.h"
#include "tools/kiln/prof_report.h"

namespace kiln::tools {
namespace {

std::string AclMessage(const char* call, aclError ret) {
  const char* m = aclGetRecentErrMsg();
  return std::string(call) + " failed (aclError " + std::to_string(ret) + ")" +
         (m != nullptr && *m ? std::string(": ") + m : std::string());
}

// Reads one input file (.npy, its dtype checked against the input's, or raw bytes) with the
// tools' tensor-file reader (bench_io.h).
bool ReadInput(const std::string& path, size_t index, aclDataType type, size_t expected,
               std::vector<char>* data, std::string* error) {
  const std::string where = "--input " + std::to_string(index);
  bench::TensorFile file;
  if (bench::IoError io = bench::ReadTensorFile(path, &file); !io.ok()) {
    *error = where + ": " + io.error;
    return false;
  }
  if (file.has_header && type != ACL_DT_UNDEFINED && file.dtype != type) {
    *error = where + " '" + path + "': dtype '" + bench::NpyDescr(file.dtype) +
             "', the model's input " + std::to_string(index) + " is '" + bench::NpyDescr(type) +
             "'";
    return false;
  }
  if (file.bytes.size() != expected) {
    *error = where + " '" + path + "': " + std::to_string(file.bytes.size()) +
             " bytes of data, the model's input " + std::to_string(index) + " takes " +
             std::to_string(expected);
    return false;
  }
  *data = std::move(file.bytes);
  return true;
}

// Random data of `type` (floats in [0, 1), integers and booleans 0 or 1: valid indices and
// masks for any model).
std::vector<char> RandomInput(aclDataType type, size_t size, std::mt19937& rng) {
  std::vector<char> data(size, 0);
  std::uniform_real_distribution<float> real(0.0f, 1.0f);
  const size_t elem = aclDataTypeSize(type);
  if (type == ACL_FLOAT) {
    for (size_t i = 0; i + 4 <= size; i += 4) {
      const float v = real(rng);
      std::memcpy(&data[i], &v, 4);
    }
  } else if (type == ACL_FLOAT16) {
    for (size_t i = 0; i + 2 <= size; i += 2) {
      const aclFloat16 v = aclFloatToFloat16(real(rng));
      std::memcpy(&data[i], &v, 2);
    }
  } else if (type == ACL_DOUBLE) {
    for (size_t i = 0; i + 8 <= size; i += 8) {
      const double v = real(rng);
      std::memcpy(&data[i], &v, 8);
    }
  } else if (elem > 0) {
    for (size_t i = 0; i + elem <= size; i += elem) data[i] = static_cast<char>(rng() & 1);
  }
  return data;
}

// Everything ProfileModel acquires, released in reverse order whatever happens.
struct Session {
  bool initialized = false, device_set = false, prof_initialized = false;
  int32_t device = 0;
  uint32_t model_id = 0;
  bool loaded = false;
  aclmdlDesc* desc = nullptr;
  aclmdlDataset* inputs = nullptr;
  aclmdlDataset* outputs = nullptr;
  aclprofConfig* config = nullptr;

  static void Free(aclmdlDataset* ds) {
    if (ds == nullptr) return;
    for (size_t i = 0; i < aclmdlGetDatasetNumBuffers(ds); ++i) {
      aclDataBuffer* b = aclmdlGetDatasetBuffer(ds, i);
      (void)aclrtFree(aclGetDataBufferAddr(b));
      (void)aclDestroyDataBuffer(b);
    }
    (void)aclmdlDestroyDataset(ds);
  }
  ~Session() {
    if (config) (void)aclprofDestroyConfig(config);
    Free(inputs);
    Free(outputs);
    if (desc) (void)aclmdlDestroyDesc(desc);
    if (loaded) (void)aclmdlUnload(model_id);
    if (prof_initialized) (void)aclprofFinalize();
    if (device_set) (void)aclrtResetDevice(device);
    if (initialized) (void)aclFinalize();
  }
};

bool AddBuffer(aclmdlDataset* ds, size_t size, const std::vector<char>* host, std::string* error) {
  void* p = nullptr;
  aclError ret = aclrtMalloc(&p, size == 0 ? 1 : size, ACL_MEM_MALLOC_HUGE_FIRST);
  if (ret != ACL_SUCCESS) {
    *error = AclMessage("aclrtMalloc", ret);
    return false;
  }
  aclDataBuffer* buf = aclCreateDataBuffer(p, size);
  if (buf == nullptr || aclmdlAddDatasetBuffer(ds, buf) != ACL_SUCCESS) {
    (void)aclrtFree(p);
    *error = "cannot add a buffer to a dataset";
    return false;
  }
  if (host != nullptr && size > 0) {
    ret = aclrtMemcpy(p, size, host->data(), size, ACL_MEMCPY_HOST_TO_DEVICE);
    if (ret != ACL_SUCCESS) {
      *error = AclMessage("aclrtMemcpy", ret);
      return false;
    }
  }
  return true;
}

}  // namespace

std::string ProfileModel(const ModelProfileOptions& o, std::string* error) {
  Session s;
  s.device = o.device;
  auto fail = [&](const char* call, aclError ret) {
    *error = AclMessage(call, ret);
    return std::string();
  };
  aclError ret = aclInit(nullptr);
  if (ret != ACL_SUCCESS) return fail("aclInit", ret);
  s.initialized = true;
  if ((ret = aclrtSetDevice(o.device)) != ACL_SUCCESS) return fail("aclrtSetDevice", ret);
  s.device_set = true;
  if ((ret = aclprofInit(o.output.c_str(), o.output.size())) != ACL_SUCCESS) {
    return fail("aclprofInit", ret);
  }
  s.prof_initialized = true;
  if ((ret = aclmdlLoadFromFile(o.om.c_str(), &s.model_id)) != ACL_SUCCESS) {
    const char* m = aclGetRecentErrMsg();
    *error = "cannot load '" + o.om + "' (aclError " + std::to_string(ret) + ")" +
             (m != nullptr && *m ? std::string(": ") + m : std::string());
    return "";
  }
  s.loaded = true;
  s.desc = aclmdlCreateDesc();
  if ((ret = aclmdlGetDesc(s.desc, s.model_id)) != ACL_SUCCESS) return fail("aclmdlGetDesc", ret);
  const size_t n_in = aclmdlGetNumInputs(s.desc), n_out = aclmdlGetNumOutputs(s.desc);
  if (!o.inputs.empty() && o.inputs.size() != n_in) {
    *error = std::to_string(o.inputs.size()) + " --input file(s) given, '" + o.om + "' has " +
             std::to_string(n_in) + " input(s)";
    return "";
  }
  s.inputs = aclmdlCreateDataset();
  s.outputs = aclmdlCreateDataset();
  std::mt19937 rng(20261202u);
  for (size_t i = 0; i < n_in; ++i) {
    const size_t size = aclmdlGetInputSizeByIndex(s.desc, i);
    const aclDataType type = aclmdlGetInputDataType(s.desc, i);
    std::vector<char> data;
    if (o.inputs.empty()) {
      data = RandomInput(type, size, rng);
    } else if (!ReadInput(o.inputs[i], i, type, size, &data, error)) {
      return "";
    }
    if (!AddBuffer(s.inputs, size, &data, error)) return "";
  }
  for (size_t i = 0; i < n_out; ++i) {
    if (!AddBuffer(s.outputs, aclmdlGetOutputSizeByIndex(s.desc, i), nullptr, error)) return "";
  }
  for (int i = 0; i < o.warmup; ++i) {
    if ((ret = aclmdlExecute(s.model_id, s.inputs, s.outputs)) != ACL_SUCCESS) {
      return fail("aclmdlExecute (warm-up)", ret);
    }
  }
  uint32_t device = static_cast<uint32_t>(o.device);
  s.config = aclprofCreateConfig(&device, 1, ACL_AICORE_NONE, nullptr, o.data_types);
  if (s.config == nullptr) return fail("aclprofCreateConfig", ACL_ERROR_INVALID_PARAM);
  const std::vector<std::string> before = ListProfileFolders(o.output, ::getpid());
  if ((ret = aclprofStart(s.config)) != ACL_SUCCESS) return fail("aclprofStart", ret);
  for (int i = 0; i < o.loop; ++i) {
    if ((ret = aclmdlExecute(s.model_id, s.inputs, s.outputs)) != ACL_SUCCESS) {
      (void)aclprofStop(s.config);
      return fail("aclmdlExecute", ret);
    }
  }
  if ((ret = aclprofStop(s.config)) != ACL_SUCCESS) return fail("aclprofStop", ret);
  const std::set<std::string> old(before.begin(), before.end());
  for (const std::string& f : ListProfileFolders(o.output, ::getpid())) {
    if (!old.count(f)) return f;
  }
  *error = "aclprofStop succeeded but no new PROF_* folder is in '" + o.output + "'";
  return "";
}

}  // namespace kiln::tools
