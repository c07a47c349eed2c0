// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// aclInit / aclFinalize, versions, recent errors, SoC name, application log, fp16 helpers,
// data type sizes and CANN attributes.
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <set>
#include <string>

#include "acl/acl.h"
#include "base/fp16.h"
#include "base/log.h"
#include "capi/error.h"
#include "kiln/base/version.h"
#include "runtime/runtime.h"

using kiln::runtime::Runtime;

namespace {

// Packages Kiln provides (aclsysGetVersionStr names and aclCANNPackageName values): the
// runtime, the compiler and the toolkit that holds both all report Kiln's version.
bool IsKilnPackage(const std::string& name) {
  return name == "cann" || name == "runtime" || name == "compiler" || name == "toolkit" ||
         name == "kiln";
}

// major * 1000000 + minor * 1000 + patch (docs/capi.md).
int32_t VersionNumber() {
  return KILN_VERSION_MAJOR * 1000000 + KILN_VERSION_MINOR * 1000 + KILN_VERSION_PATCH;
}

void CopyString(char* dst, size_t cap, const std::string& src) {
  std::snprintf(dst, cap, "%s", src.c_str());
}

}  // namespace

extern "C" {

aclError aclInit(const char* configPath) {
  KILN_CAPI("aclInit", {
    kiln::Status st = Runtime::Get().Init(configPath);
    if (st.ok()) kiln::capi::SetErrMsgMode(Runtime::Get().config().err_msg_mode);
    return kiln::capi::Report("aclInit", st);
  });
}

aclError aclFinalize(void) {
  KILN_CAPI("aclFinalize",
            { return kiln::capi::Report("aclFinalize", Runtime::Get().Finalize()); });
}

aclError aclFinalizeReference(uint64_t* refCount) {
  KILN_CAPI("aclFinalizeReference", {
    if (refCount != nullptr) *refCount = 0;
    auto left = Runtime::Get().FinalizeReference();
    if (!left.ok()) return kiln::capi::Report("aclFinalizeReference", left.status());
    if (refCount != nullptr) *refCount = *left;
    return ACL_SUCCESS;
  });
}

aclError aclrtGetVersion(int32_t* majorVersion, int32_t* minorVersion, int32_t* patchVersion) {
  KILN_CAPI("aclrtGetVersion", {
    if (majorVersion == nullptr || minorVersion == nullptr || patchVersion == nullptr) {
      return kiln::capi::InvalidParam("aclrtGetVersion", "an output pointer is NULL");
    }
    *majorVersion = KILN_ACL_VERSION_MAJOR;
    *minorVersion = KILN_ACL_VERSION_MINOR;
    *patchVersion = KILN_ACL_VERSION_PATCH;
    return ACL_SUCCESS;
  });
}

const char* aclGetRecentErrMsg(void) {
  try {
    return kiln::capi::TakeRecentErrMsg();
  } catch (...) {
    return nullptr;  // out of memory joining the messages
  }
}

aclError aclrtPeekAtLastError(aclrtLastErrLevel level) {
  (void)level;  // ACL_RT_THREAD_LEVEL is the only level
  return kiln::capi::PeekLastError();
}

aclError aclrtGetLastError(aclrtLastErrLevel level) {
  (void)level;
  return kiln::capi::TakeLastError();
}

aclError aclsysGetCANNVersion(aclCANNPackageName name, aclCANNPackageVersion* version) {
  KILN_CAPI("aclsysGetCANNVersion", {
    if (version == nullptr)
      return kiln::capi::InvalidParam("aclsysGetCANNVersion", "version is NULL");
    std::memset(version, 0, sizeof *version);
    static const char* const kNames[] = {"cann",    "runtime", "compiler",   "hccl",
                                         "toolkit", "opp",     "opp_kernel", "driver"};
    int index = kiln::capi::EnumInt(name);
    if (index < 0 || index > 7) {
      return kiln::capi::InvalidParam("aclsysGetCANNVersion", "package name ", index,
                                      " is not an aclCANNPackageName");
    }
    if (!IsKilnPackage(kNames[index])) {
      return kiln::capi::Report("aclsysGetCANNVersion",
                                kiln::Error(kiln::code::kInvalidFile, "package '", kNames[index],
                                            "' is not installed: Kiln provides cann, runtime, "
                                            "compiler and toolkit"));
    }
    CopyString(version->version, sizeof version->version, KILN_VERSION_STRING);
    CopyString(version->majorVersion, sizeof version->majorVersion,
               std::to_string(KILN_VERSION_MAJOR));
    CopyString(version->minorVersion, sizeof version->minorVersion,
               std::to_string(KILN_VERSION_MINOR));
    CopyString(version->releaseVersion, sizeof version->releaseVersion,
               std::to_string(KILN_VERSION_PATCH));
    CopyString(version->patchVersion, sizeof version->patchVersion, "0");
    return ACL_SUCCESS;
  });
}

aclError aclsysGetVersionStr(char* pkgName, char* versionStr) {
  KILN_CAPI("aclsysGetVersionStr", {
    if (pkgName == nullptr || versionStr == nullptr) {
      return kiln::capi::InvalidParam("aclsysGetVersionStr", "pkgName or versionStr is NULL");
    }
    if (!IsKilnPackage(pkgName)) {
      versionStr[0] = '\0';
      return kiln::capi::Report(
          "aclsysGetVersionStr",
          kiln::Error(kiln::code::kInvalidFile, "package '", pkgName, "' is not installed"));
    }
    CopyString(versionStr, ACL_PKG_VERSION_MAX_SIZE, KILN_VERSION_STRING);
    return ACL_SUCCESS;
  });
}

aclError aclsysGetVersionNum(char* pkgName, int32_t* versionNum) {
  KILN_CAPI("aclsysGetVersionNum", {
    if (pkgName == nullptr || versionNum == nullptr) {
      return kiln::capi::InvalidParam("aclsysGetVersionNum", "pkgName or versionNum is NULL");
    }
    *versionNum = 0;
    if (!IsKilnPackage(pkgName)) {
      return kiln::capi::Report(
          "aclsysGetVersionNum",
          kiln::Error(kiln::code::kInvalidFile, "package '", pkgName, "' is not installed"));
    }
    *versionNum = VersionNumber();
    return ACL_SUCCESS;
  });
}

// The name as static storage, as CANN's is: programs keep the pointer (onnxruntime's CANN
// provider reads it on another thread, later). Each distinct name is kept once.
const char* aclrtGetSocName(void) {
  static auto* names = new std::set<std::string>();
  static std::mutex mu;
  try {
    const std::string name = Runtime::Get().SocName();
    if (name.empty()) return nullptr;
    std::lock_guard<std::mutex> lock(mu);
    return names->insert(name).first->c_str();
  } catch (...) {
    return nullptr;
  }
}

void aclAppLog(aclLogLevel logLevel, const char* func, const char* file, uint32_t line,
               const char* fmt, ...) {
  int raw_level = kiln::capi::EnumInt(logLevel);
  if (fmt == nullptr || raw_level < ACL_DEBUG || raw_level > ACL_ERROR) return;
  auto level = static_cast<kiln::log::Level>(raw_level);
  if (!kiln::log::Enabled(kiln::log::Module::kApp, level)) return;
  va_list args;
  va_start(args, fmt);
  char buf[1024];
  std::vsnprintf(buf, sizeof buf, fmt, args);
  va_end(args);
  try {
    kiln::log::Write(kiln::log::Module::kApp, level, file ? file : "?", static_cast<int>(line),
                     func ? func : "?", buf);
  } catch (...) {
    // out of memory: the record is lost, the application goes on
  }
}

float aclFloat16ToFloat(aclFloat16 value) { return kiln::HalfToFloat(value); }

aclFloat16 aclFloatToFloat16(float value) { return kiln::FloatToHalf(value); }

size_t aclDataTypeSize(aclDataType dataType) {
  switch (kiln::capi::EnumInt(dataType)) {
    case ACL_BOOL:
    case ACL_INT8:
    case ACL_UINT8:
    case ACL_HIFLOAT8:
    case ACL_FLOAT8_E5M2:
    case ACL_FLOAT8_E4M3FN:
    case ACL_FLOAT8_E8M0:
      return 1;
    case ACL_FLOAT16:
    case ACL_BF16:
    case ACL_INT16:
    case ACL_UINT16:
      return 2;
    case ACL_FLOAT:
    case ACL_INT32:
    case ACL_UINT32:
    case ACL_COMPLEX32:
      return 4;
    case ACL_INT64:
    case ACL_UINT64:
    case ACL_DOUBLE:
    case ACL_COMPLEX64:
      return 8;
    case ACL_COMPLEX128:
      return 16;
    default:
      return 0;  // undefined, strings and sub-byte types have no per-element byte size
  }
}

aclError aclGetCannAttributeList(const aclCannAttr** cannAttrList, size_t* num) {
  KILN_CAPI("aclGetCannAttributeList", {
    if (cannAttrList == nullptr || num == nullptr) {
      return kiln::capi::InvalidParam("aclGetCannAttributeList", "an output pointer is NULL");
    }
    // Kiln's kernels follow IEEE inf/nan semantics and its compiler records bf16 precision.
    static const aclCannAttr kSupported[] = {ACL_CANN_ATTR_INF_NAN, ACL_CANN_ATTR_BF16};
    *cannAttrList = kSupported;
    *num = sizeof kSupported / sizeof kSupported[0];
    return ACL_SUCCESS;
  });
}

aclError aclGetCannAttribute(aclCannAttr cannAttr, int32_t* value) {
  KILN_CAPI("aclGetCannAttribute", {
    if (value == nullptr) return kiln::capi::InvalidParam("aclGetCannAttribute", "value is NULL");
    switch (kiln::capi::EnumInt(cannAttr)) {
      case ACL_CANN_ATTR_INF_NAN:
      case ACL_CANN_ATTR_BF16:
        *value = 1;
        return ACL_SUCCESS;
      case ACL_CANN_ATTR_JIT_COMPILE:
        *value = 0;
        return ACL_SUCCESS;
      default:
        *value = 0;
        return kiln::capi::InvalidParam("aclGetCannAttribute", "attribute ",
                                        kiln::capi::EnumInt(cannAttr), " is not an aclCannAttr");
    }
  });
}

}  // extern "C"
