// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "tools/kiln/prof_model.h"

#include <unistd.h>

#include <cstring>
#include <fstream>
#include <random>
#include <set>
#include <sstream>

#include "acl/acl.h"
#include "acl/acl_prof.h"
#include "tools/kiln/prof_report.h"

namespace kiln::tools {
namespace {

std::string AclMessage(const char* call, aclError ret) {
  const char* m = aclGetRecentErrMsg();
  return std::string(call) + " failed (aclError " + std::to_string(ret) + ")" +
         (m != nullptr && *m ? std::string(": ") + m : std::string());
}

// numpy's descr of an AscendCL data type ("" when numpy has none).
std::string NumpyDescr(aclDataType t) {
  switch (t) {
    case ACL_FLOAT:
      return "<f4";
    case ACL_FLOAT16:
      return "<f2";
    case ACL_DOUBLE:
      return "<f8";
    case ACL_INT8:
      return "|i1";
    case ACL_UINT8:
      return "|u1";
    case ACL_INT16:
      return "<i2";
    case ACL_UINT16:
      return "<u2";
    case ACL_INT32:
      return "<i4";
    case ACL_UINT32:
      return "<u4";
    case ACL_INT64:
      return "<i8";
    case ACL_UINT64:
      return "<u8";
    case ACL_BOOL:
      return "|b1";
    default:
      return "";
  }
}

// The value of `key` in a .npy header dict ("{'descr': '<f4', 'fortran_order': False, ...}").
std::string HeaderValue(const std::string& header, const std::string& key) {
  const size_t k = header.find("'" + key + "'");
  if (k == std::string::npos) return "";
  size_t v = header.find(':', k);
  if (v == std::string::npos) return "";
  v = header.find_first_not_of(' ', v + 1);
  if (v == std::string::npos) return "";
  if (header[v] == '\'') {
    const size_t end = header.find('\'', v + 1);
    return end == std::string::npos ? "" : header.substr(v + 1, end - v - 1);
  }
  if (header[v] == '(') {
    const size_t end = header.find(')', v);
    return end == std::string::npos ? "" : header.substr(v, end - v + 1);
  }
  const size_t end = header.find_first_of(",}", v);
  return header.substr(v, end == std::string::npos ? std::string::npos : end - v);
}

// Reads one input file: a .npy (its data, checked against the input's dtype) or raw bytes.
bool ReadInput(const std::string& path, size_t index, aclDataType type, size_t expected,
               std::vector<char>* data, std::string* error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *error = "--input " + std::to_string(index) + ": cannot open '" + path + "'";
    return false;
  }
  std::ostringstream all;
  all << in.rdbuf();
  std::string bytes = all.str();
  const std::string where = "--input " + std::to_string(index) + " '" + path + "'";
  if (bytes.size() >= 10 && bytes.compare(0, 6, "\x93NUMPY") == 0) {
    const int major = static_cast<unsigned char>(bytes[6]);
    size_t header_len = 0, start = 0;
    if (major == 1) {
      header_len = static_cast<unsigned char>(bytes[8]) |
                   (static_cast<size_t>(static_cast<unsigned char>(bytes[9])) << 8);
      start = 10;
    } else if (bytes.size() >= 12) {
      for (int i = 0; i < 4; ++i) {
        header_len |= static_cast<size_t>(static_cast<unsigned char>(bytes[8 + i])) << (8 * i);
      }
      start = 12;
    }
    if (start == 0 || start + header_len > bytes.size()) {
      *error = where + ": a truncated .npy header";
      return false;
    }
    const std::string header = bytes.substr(start, header_len);
    const std::string descr = HeaderValue(header, "descr");
    if (HeaderValue(header, "fortran_order") == "True") {
      *error = where + ": a Fortran-order array; save it C-contiguous (np.ascontiguousarray)";
      return false;
    }
    const std::string want = NumpyDescr(type);
    if (!want.empty() && descr != want && !(want[0] == '|' && descr.substr(1) == want.substr(1))) {
      *error = where + ": dtype '" + descr + "', the model's input " + std::to_string(index) +
               " is '" + want + "' (shape " + HeaderValue(header, "shape") + ")";
      return false;
    }
    bytes.erase(0, start + header_len);
  }
  if (bytes.size() != expected) {
    *error = where + ": " + std::to_string(bytes.size()) + " bytes of data, the model's input " +
             std::to_string(index) + " takes " + std::to_string(expected);
    return false;
  }
  data->assign(bytes.begin(), bytes.end());
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
