// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Contract tests for aclInit / aclFinalize, versions, error reporting, logging, the fp16 helpers
// and aclDataTypeSize (docs: ascendcl-reference.md §1.1, §1.10, §2, §4, §5.4).
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <thread>

#include "acl/acl.h"

namespace {

// Sets (or, with nullptr, unsets) an environment variable and restores it on destruction.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value != nullptr) {
      setenv(name, value, 1);
    } else {
      unsetenv(name);
    }
  }
  ~ScopedEnv() {
    if (old_) {
      setenv(name_.c_str(), old_->c_str(), 1);
    } else {
      unsetenv(name_.c_str());
    }
  }

 private:
  std::string name_;
  std::optional<std::string> old_;
};

// A file under the test temp directory holding `text`, removed on destruction.
class TempFile {
 public:
  TempFile(const std::string& name, const std::string& text)
      : path_(testing::TempDir() + "kiln_init_test_" + std::to_string(getpid()) + "_" + name) {
    std::ofstream(path_, std::ios::binary) << text;
  }
  ~TempFile() { std::remove(path_.c_str()); }
  const char* path() const { return path_.c_str(); }

 private:
  std::string path_;
};

// A JSON document whose objects nest `levels` deep.
std::string NestedJson(int levels) {
  std::string text;
  for (int i = 1; i < levels; ++i) text += "{\"a\":";
  text += "{}";
  for (int i = 1; i < levels; ++i) text += "}";
  return text;
}

// Fails with ACL_ERROR_INVALID_PARAM on purpose.
aclError FailWithInvalidParam() { return aclrtGetVersion(nullptr, nullptr, nullptr); }

std::string RecentErrMsg() {
  const char* msg = aclGetRecentErrMsg();
  return msg == nullptr ? std::string() : std::string(msg);
}

}  // namespace

// --- aclInit / aclFinalize ---------------------------------------------------------------------

TEST(InitTest, InitAcceptsNullConfigPath) {
  ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
  EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
}

TEST(InitTest, InitAcceptsEmptyConfigPath) {
  ASSERT_EQ(aclInit(""), ACL_SUCCESS);
  EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
}

TEST(InitTest, InitAcceptsEmptyJsonObjectFile) {
  TempFile config("empty_object.json", "{}");
  ASSERT_EQ(aclInit(config.path()), ACL_SUCCESS);
  EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
}

TEST(InitTest, InitAcceptsEmptyFile) {
  TempFile config("empty.json", "");
  ASSERT_EQ(aclInit(config.path()), ACL_SUCCESS);
  EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
}

TEST(InitTest, InitWithMissingFileFailsWithInvalidFile) {
  std::string path =
      testing::TempDir() + "kiln_init_test_no_such_file_" + std::to_string(getpid()) + ".json";
  EXPECT_EQ(aclInit(path.c_str()), ACL_ERROR_INVALID_FILE);
  EXPECT_EQ(ACL_ERROR_INVALID_FILE, 100003);
}

TEST(InitTest, InitWithMalformedJsonFailsWithParseFileNamingTheFile) {
  TempFile config("malformed.json", "{\"err_msg_mode\": ");
  EXPECT_EQ(aclInit(config.path()), ACL_ERROR_PARSE_FILE);
  EXPECT_EQ(ACL_ERROR_PARSE_FILE, 100006);
  std::string msg = RecentErrMsg();
  EXPECT_NE(msg.find(config.path()), std::string::npos) << msg;
}

TEST(InitTest, InitWithJsonNestedElevenLevelsFailsWithParseFile) {
  TempFile config("deep.json", NestedJson(11));
  EXPECT_EQ(aclInit(config.path()), ACL_ERROR_PARSE_FILE);
}

TEST(InitTest, InitWithArraysNestedElevenLevelsFailsWithParseFile) {
  // {"a":[[[[[[[[[]]]]]]]]]}: one object and ten arrays.
  std::string text = "{\"a\":" + std::string(10, '[') + std::string(10, ']') + "}";
  TempFile config("deep_arrays.json", text);
  EXPECT_EQ(aclInit(config.path()), ACL_ERROR_PARSE_FILE);
}

TEST(InitTest, InitWithJsonNestedTenLevelsSucceeds) {
  TempFile config("ten.json", NestedJson(10));
  ASSERT_EQ(aclInit(config.path()), ACL_SUCCESS);
  EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
}

TEST(InitTest, FailedInitLeavesTheProcessUninitialized) {
  TempFile config("bad.json", "not json");
  ASSERT_EQ(aclInit(config.path()), ACL_ERROR_PARSE_FILE);
  uint32_t count = 0;
  EXPECT_EQ(aclrtGetDeviceCount(&count), ACL_ERROR_UNINITIALIZE);
  EXPECT_EQ(aclInit(nullptr), ACL_SUCCESS);  // not ACL_ERROR_REPEAT_INITIALIZE
  EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
}

TEST(InitTest, RepeatedInitReturnsRepeatInitialize) {
  ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
  EXPECT_EQ(aclInit(nullptr), ACL_ERROR_REPEAT_INITIALIZE);
  EXPECT_EQ(ACL_ERROR_REPEAT_INITIALIZE, 100002);
  EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
}

TEST(InitTest, FinalizeWithoutInitReturnsRepeatFinalize) {
  EXPECT_EQ(aclFinalize(), ACL_ERROR_REPEAT_FINALIZE);
  EXPECT_EQ(ACL_ERROR_REPEAT_FINALIZE, 100037);
}

TEST(InitTest, SecondFinalizeReturnsRepeatFinalize) {
  ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
  EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
  EXPECT_EQ(aclFinalize(), ACL_ERROR_REPEAT_FINALIZE);
}

TEST(InitTest, OneFinalizeClearsEveryInitReference) {
  ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
  ASSERT_EQ(aclInit(nullptr), ACL_ERROR_REPEAT_INITIALIZE);
  EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
  uint32_t count = 0;
  EXPECT_EQ(aclrtGetDeviceCount(&count), ACL_ERROR_UNINITIALIZE);
}

TEST(InitTest, InitAfterFinalizeWorksAgain) {
  ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  ASSERT_EQ(aclFinalize(), ACL_SUCCESS);
  ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
  int32_t id = -1;
  EXPECT_EQ(aclrtGetDevice(&id), ACL_ERROR_RT_CONTEXT_NULL);  // finalize released device 0
  EXPECT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  void* ptr = nullptr;
  EXPECT_EQ(aclrtMalloc(&ptr, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  EXPECT_EQ(aclrtFree(ptr), ACL_SUCCESS);
  EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
}

TEST(InitTest, FinalizeReferenceCountsDownTheInitsAndFinalizesAtZero) {
  ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
  ASSERT_EQ(aclInit(nullptr), ACL_ERROR_REPEAT_INITIALIZE);
  uint64_t refs = 99;
  ASSERT_EQ(aclFinalizeReference(&refs), ACL_SUCCESS);
  EXPECT_EQ(refs, 1u);
  uint32_t count = 0;
  EXPECT_EQ(aclrtGetDeviceCount(&count), ACL_SUCCESS);  // still initialised
  ASSERT_EQ(aclFinalizeReference(&refs), ACL_SUCCESS);
  EXPECT_EQ(refs, 0u);
  EXPECT_EQ(aclrtGetDeviceCount(&count), ACL_ERROR_UNINITIALIZE);
  EXPECT_EQ(aclFinalize(), ACL_ERROR_REPEAT_FINALIZE);
}

TEST(InitTest, FinalizeReferenceAcceptsNullCount) {
  ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
  EXPECT_EQ(aclFinalizeReference(nullptr), ACL_SUCCESS);
  uint32_t count = 0;
  EXPECT_EQ(aclrtGetDeviceCount(&count), ACL_ERROR_UNINITIALIZE);
}

TEST(InitTest, FinalizeReferenceWithoutInitFails) {
  uint64_t refs = 99;
  EXPECT_NE(aclFinalizeReference(&refs), ACL_SUCCESS);
}

TEST(InitTest, RuntimeCallsBeforeInitFailWithUninitialize) {
  EXPECT_EQ(ACL_ERROR_UNINITIALIZE, 100001);
  EXPECT_EQ(aclrtSetDevice(0), ACL_ERROR_UNINITIALIZE);
  aclrtStream stream = nullptr;
  EXPECT_EQ(aclrtCreateStream(&stream), ACL_ERROR_UNINITIALIZE);
  void* ptr = nullptr;
  EXPECT_EQ(aclrtMalloc(&ptr, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_UNINITIALIZE);
  uint32_t count = 0;
  EXPECT_EQ(aclrtGetDeviceCount(&count), ACL_ERROR_UNINITIALIZE);
}

// --- versions ----------------------------------------------------------------------------------

TEST(InitTest, GetVersionReportsInterfaceVersion1_17_0) {
  int32_t major = -1, minor = -1, patch = -1;
  ASSERT_EQ(aclrtGetVersion(&major, &minor, &patch), ACL_SUCCESS);
  EXPECT_EQ(major, 1);
  EXPECT_EQ(minor, 17);
  EXPECT_EQ(patch, 0);
}

TEST(InitTest, GetVersionWithNullOutputFailsWithInvalidParam) {
  int32_t major = 0, minor = 0;
  EXPECT_EQ(aclrtGetVersion(&major, &minor, nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(ACL_ERROR_INVALID_PARAM, 100000);
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
TEST(InitTest, CannVersionOfRuntimeIsANonEmptyString) {
  ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
  aclCANNPackageVersion version;
  std::memset(&version, 0x7f, sizeof version);
  ASSERT_EQ(aclsysGetCANNVersion(ACL_PKG_NAME_RUNTIME, &version), ACL_SUCCESS);
  ASSERT_NE(std::memchr(version.version, '\0', sizeof version.version), nullptr);
  EXPECT_GT(std::strlen(version.version), 0u);
  EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
}

TEST(InitTest, CannVersionStringStartsWithItsMajorAndMinorParts) {
  ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
  aclCANNPackageVersion version;
  ASSERT_EQ(aclsysGetCANNVersion(ACL_PKG_NAME_RUNTIME, &version), ACL_SUCCESS);
  std::string prefix = std::string(version.majorVersion) + "." + version.minorVersion + ".";
  EXPECT_EQ(std::string(version.version).rfind(prefix, 0), 0u)
      << version.version << " vs " << prefix;
  char name[] = "runtime";
  char str[ACL_PKG_VERSION_MAX_SIZE] = {};
  ASSERT_EQ(aclsysGetVersionStr(name, str), ACL_SUCCESS);
  EXPECT_STREQ(str, version.version);  // one package, one version
  EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
}

TEST(InitTest, CannVersionOfMissingHcclPackageFailsWithInvalidFile) {
  ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
  aclCANNPackageVersion version;
  EXPECT_EQ(aclsysGetCANNVersion(ACL_PKG_NAME_HCCL, &version), ACL_ERROR_INVALID_FILE);
  EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
}

TEST(InitTest, CannVersionWithNullOutputFailsWithInvalidParam) {
  ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
  EXPECT_EQ(aclsysGetCANNVersion(ACL_PKG_NAME_RUNTIME, nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
}
#pragma GCC diagnostic pop

TEST(InitTest, VersionStrAndNumOfRuntimeSucceed) {
  ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
  char name[] = "runtime";
  char version[ACL_PKG_VERSION_MAX_SIZE] = {};
  ASSERT_EQ(aclsysGetVersionStr(name, version), ACL_SUCCESS);
  EXPECT_GT(std::strlen(version), 0u);
  int32_t number = 0;
  ASSERT_EQ(aclsysGetVersionNum(name, &number), ACL_SUCCESS);
  EXPECT_GT(number, 0);
  EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
}

TEST(InitTest, VersionStrAndNumOfMissingHcclPackageFailWithInvalidFile) {
  ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
  char name[] = "hccl";
  char version[ACL_PKG_VERSION_MAX_SIZE] = {};
  EXPECT_EQ(aclsysGetVersionStr(name, version), ACL_ERROR_INVALID_FILE);
  int32_t number = 0;
  EXPECT_EQ(aclsysGetVersionNum(name, &number), ACL_ERROR_INVALID_FILE);
  EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
}

// --- recent error messages and last errors -----------------------------------------------------

TEST(InitTest, RecentErrMsgIsNullWhenNothingFailed) {
  ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
  EXPECT_EQ(aclGetRecentErrMsg(), nullptr);
  EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
}

TEST(InitTest, RecentErrMsgOfInvalidParamStartsWithEh0001AndNamesTheApi) {
  ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
  ASSERT_EQ(FailWithInvalidParam(), ACL_ERROR_INVALID_PARAM);
  const char* msg = aclGetRecentErrMsg();
  ASSERT_NE(msg, nullptr);
  std::string text(msg);
  EXPECT_EQ(text.rfind("EH0001", 0), 0u) << text;
  EXPECT_NE(text.find("aclrtGetVersion"), std::string::npos) << text;
  EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
}

TEST(InitTest, RecentErrMsgIsClearedByReading) {
  ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
  ASSERT_EQ(FailWithInvalidParam(), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(aclGetRecentErrMsg(), nullptr);
  EXPECT_EQ(aclGetRecentErrMsg(), nullptr);
  EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
}

TEST(InitTest, RecentErrMsgListsTheNewestFailureFirst) {
  ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
  ASSERT_EQ(FailWithInvalidParam(), ACL_ERROR_INVALID_PARAM);
  ASSERT_EQ(aclrtGetDeviceCount(nullptr), ACL_ERROR_INVALID_PARAM);
  std::string text = RecentErrMsg();
  size_t older = text.find("aclrtGetVersion");
  size_t newer = text.find("aclrtGetDeviceCount");
  ASSERT_NE(older, std::string::npos) << text;
  ASSERT_NE(newer, std::string::npos) << text;
  EXPECT_LT(newer, older) << text;
  EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
}

TEST(InitTest, RecentErrMsgOfAnotherThreadIsNotVisibleByDefault) {
  ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
  bool seen_in_thread = false;
  std::thread worker([&] {
    FailWithInvalidParam();
    seen_in_thread = aclGetRecentErrMsg() != nullptr;
    FailWithInvalidParam();  // left unread in the worker
  });
  worker.join();
  EXPECT_TRUE(seen_in_thread);
  EXPECT_EQ(aclGetRecentErrMsg(), nullptr);
  EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
}

TEST(InitTest, RecentErrMsgOfAnotherThreadIsVisibleInProcessMode) {
  TempFile config("process_mode.json", "{\"err_msg_mode\":\"1\"}");
  ASSERT_EQ(aclInit(config.path()), ACL_SUCCESS);
  std::thread worker([] { FailWithInvalidParam(); });
  worker.join();
  std::string text = RecentErrMsg();
  EXPECT_NE(text.find("aclrtGetVersion"), std::string::npos) << text;
  EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
}

TEST(InitTest, GetLastErrorClearsButPeekAtLastErrorDoesNot) {
  ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
  EXPECT_EQ(aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL), ACL_SUCCESS);
  ASSERT_EQ(FailWithInvalidParam(), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtGetLastError(ACL_RT_THREAD_LEVEL), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtGetLastError(ACL_RT_THREAD_LEVEL), ACL_SUCCESS);
  EXPECT_EQ(aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL), ACL_SUCCESS);
  EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
}

TEST(InitTest, SocNameStartsWithCpu) {
  ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
  const char* name = aclrtGetSocName();
  ASSERT_NE(name, nullptr);
  EXPECT_EQ(std::string(name).rfind("cpu", 0), 0u) << name;
  EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
}

// --- fp16 helpers (values worked by hand from the binary16 layout) -----------------------------

TEST(InitTest, Float16ToFloatDecodesHandWorkedPatterns) {
  EXPECT_EQ(aclFloat16ToFloat(0x3C00), 1.0f);
  EXPECT_EQ(aclFloat16ToFloat(0xC000), -2.0f);
  EXPECT_EQ(aclFloat16ToFloat(0x7BFF), 65504.0f);
  EXPECT_EQ(aclFloat16ToFloat(0x0001), std::ldexp(1.0f, -24));  // smallest subnormal
  EXPECT_EQ(aclFloat16ToFloat(0x3C01), 1.0f + std::ldexp(1.0f, -10));
  EXPECT_EQ(aclFloat16ToFloat(0x7C00), std::numeric_limits<float>::infinity());
  EXPECT_EQ(aclFloat16ToFloat(0xFC00), -std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(aclFloat16ToFloat(0x7E00)));
}

TEST(InitTest, FloatToFloat16EncodesHandWorkedValues) {
  EXPECT_EQ(aclFloatToFloat16(1.0f), 0x3C00);
  EXPECT_EQ(aclFloatToFloat16(-2.0f), 0xC000);
  EXPECT_EQ(aclFloatToFloat16(65504.0f), 0x7BFF);
  EXPECT_EQ(aclFloatToFloat16(std::ldexp(1.0f, -24)), 0x0001);
  EXPECT_EQ(aclFloatToFloat16(std::numeric_limits<float>::infinity()), 0x7C00);
  EXPECT_EQ(aclFloatToFloat16(1e6f), 0x7C00);  // beyond the largest half: overflows to inf
}

TEST(InitTest, FloatToFloat16RoundsHalfwayCasesToEven) {
  // Half ulp at 1.0 is 2^-11: 1 + 2^-11 lies halfway between 0x3C00 and 0x3C01 (even: 0x3C00),
  // 1 + 3 * 2^-11 halfway between 0x3C01 and 0x3C02 (even: 0x3C02).
  EXPECT_EQ(aclFloatToFloat16(1.0f + std::ldexp(1.0f, -11)), 0x3C00);
  EXPECT_EQ(aclFloatToFloat16(1.0f + 3.0f * std::ldexp(1.0f, -11)), 0x3C02);
  // 65520 is halfway between 65504 (0x7BFF, odd) and 65536 (inf, 0x7C00): it rounds to inf.
  EXPECT_EQ(aclFloatToFloat16(65520.0f), 0x7C00);
  EXPECT_EQ(aclFloatToFloat16(65519.0f), 0x7BFF);
}

TEST(InitTest, FloatToFloat16RoundsSubnormalsToNearestEven) {
  // Subnormal halves are m * 2^-24. 2^-25 = 0.5 ulp: tie between 0 and 1 (even: 0);
  // 3 * 2^-25 = 1.5 ulp: tie between 1 and 2 (even: 2); 1023.5 ulp: tie between 0x03FF and
  // 0x0400, the smallest normal (even: 0x0400).
  EXPECT_EQ(aclFloatToFloat16(std::ldexp(1.0f, -25)), 0x0000);
  EXPECT_EQ(aclFloatToFloat16(3.0f * std::ldexp(1.0f, -25)), 0x0002);
  EXPECT_EQ(aclFloatToFloat16(1023.0f * std::ldexp(1.0f, -24)), 0x03FF);
  EXPECT_EQ(aclFloatToFloat16(1023.5f * std::ldexp(1.0f, -24)), 0x0400);
  EXPECT_EQ(aclFloatToFloat16(std::ldexp(1.0f, -14)), 0x0400);
  EXPECT_EQ(aclFloat16ToFloat(0x03FF), 1023.0f * std::ldexp(1.0f, -24));
}

TEST(InitTest, FloatToFloat16RoundsUpJustAboveHalfway) {
  // 1 + 2^-11 + 2^-20 is past the halfway point between 0x3C00 and 0x3C01.
  EXPECT_EQ(aclFloatToFloat16(1.0f + std::ldexp(1.0f, -11) + std::ldexp(1.0f, -20)), 0x3C01);
  EXPECT_EQ(aclFloatToFloat16(-(1.0f + std::ldexp(1.0f, -11) + std::ldexp(1.0f, -20))), 0xBC01);
}

TEST(InitTest, Float16KeepsTheSignOfZero) {
  EXPECT_EQ(aclFloatToFloat16(-0.0f), 0x8000);
  EXPECT_EQ(aclFloatToFloat16(0.0f), 0x0000);
  float negative_zero = aclFloat16ToFloat(0x8000);
  EXPECT_EQ(negative_zero, 0.0f);
  EXPECT_TRUE(std::signbit(negative_zero));
}

TEST(InitTest, FloatToFloat16KeepsNanANan) {
  aclFloat16 h = aclFloatToFloat16(std::numeric_limits<float>::quiet_NaN());
  EXPECT_EQ(h & 0x7C00, 0x7C00);
  EXPECT_NE(h & 0x03FF, 0);
  EXPECT_TRUE(std::isnan(aclFloat16ToFloat(h)));
}

// --- aclDataTypeSize ---------------------------------------------------------------------------

TEST(InitTest, DataTypeSizeIsTheElementSizeOfEveryType) {
  EXPECT_EQ(aclDataTypeSize(ACL_FLOAT), 4u);
  EXPECT_EQ(aclDataTypeSize(ACL_FLOAT16), 2u);
  EXPECT_EQ(aclDataTypeSize(ACL_INT8), 1u);
  EXPECT_EQ(aclDataTypeSize(ACL_INT32), 4u);
  EXPECT_EQ(aclDataTypeSize(ACL_UINT8), 1u);
  EXPECT_EQ(aclDataTypeSize(ACL_INT16), 2u);
  EXPECT_EQ(aclDataTypeSize(ACL_UINT16), 2u);
  EXPECT_EQ(aclDataTypeSize(ACL_UINT32), 4u);
  EXPECT_EQ(aclDataTypeSize(ACL_INT64), 8u);
  EXPECT_EQ(aclDataTypeSize(ACL_UINT64), 8u);
  EXPECT_EQ(aclDataTypeSize(ACL_DOUBLE), 8u);
  EXPECT_EQ(aclDataTypeSize(ACL_BOOL), 1u);
  EXPECT_EQ(aclDataTypeSize(ACL_COMPLEX64), 8u);
  EXPECT_EQ(aclDataTypeSize(ACL_COMPLEX128), 16u);
  EXPECT_EQ(aclDataTypeSize(ACL_BF16), 2u);
  EXPECT_EQ(aclDataTypeSize(ACL_COMPLEX32), 4u);  // two fp16 halves
  EXPECT_EQ(aclDataTypeSize(ACL_FLOAT8_E5M2), 1u);
  EXPECT_EQ(aclDataTypeSize(ACL_FLOAT8_E4M3FN), 1u);
}

TEST(InitTest, DataTypeSizeOfUndefinedAndStringIsZero) {
  EXPECT_EQ(aclDataTypeSize(ACL_DT_UNDEFINED), 0u);
  EXPECT_EQ(aclDataTypeSize(ACL_STRING), 0u);
  EXPECT_EQ(aclDataTypeSize(static_cast<aclDataType>(5)), 0u);  // unassigned value
}

// --- application log ---------------------------------------------------------------------------

namespace {

// Writes one INFO record through ACL_APP_LOG; returns the line it was written from.
int LogGreeting() {
  int line = __LINE__ + 1;
  ACL_APP_LOG(ACL_INFO, "greeting %d", 42);
  return line;
}

}  // namespace

TEST(InitTest, AppLogWritesCannFormattedLineToStdout) {
  ScopedEnv to_stdout("ASCEND_SLOG_PRINT_TO_STDOUT", "1");
  ScopedEnv new_name("ASCEND_LOG_PRINT_TO_STDOUT", nullptr);
  ScopedEnv level("ASCEND_GLOBAL_LOG_LEVEL", "0");
  ScopedEnv modules("ASCEND_MODULE_LOG_LEVEL", nullptr);
  ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
  testing::internal::CaptureStdout();
  int line = LogGreeting();
  std::string out = testing::internal::GetCapturedStdout();
  std::regex record("\\[INFO\\] APP\\(" + std::to_string(getpid()) +
                    ",[^)]+\\):\\d{4}-\\d{2}-\\d{2}-\\d{2}:\\d{2}:\\d{2}\\.\\d{3}\\.\\d{3} "
                    "\\[[^\\]]*init_test\\.cc:" +
                    std::to_string(line) + "\\]\\d+ LogGreeting: greeting 42");
  EXPECT_TRUE(std::regex_search(out, record)) << out;
  EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
}

TEST(InitTest, AppLogDropsInfoRecordsAtErrorLevel) {
  ScopedEnv to_stdout("ASCEND_SLOG_PRINT_TO_STDOUT", "1");
  ScopedEnv new_name("ASCEND_LOG_PRINT_TO_STDOUT", nullptr);
  ScopedEnv level("ASCEND_GLOBAL_LOG_LEVEL", "3");
  ScopedEnv modules("ASCEND_MODULE_LOG_LEVEL", nullptr);
  ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
  testing::internal::CaptureStdout();
  LogGreeting();
  ACL_APP_LOG(ACL_ERROR, "failure %s", "recorded");
  std::string out = testing::internal::GetCapturedStdout();
  EXPECT_EQ(out.find("greeting 42"), std::string::npos) << out;
  EXPECT_NE(out.find("[ERROR] APP("), std::string::npos) << out;  // the stdout path works
  EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
}

TEST(InitTest, AppLogWritesNothingAtLevelNull) {
  ScopedEnv to_stdout("ASCEND_SLOG_PRINT_TO_STDOUT", "1");
  ScopedEnv new_name("ASCEND_LOG_PRINT_TO_STDOUT", nullptr);
  ScopedEnv level("ASCEND_GLOBAL_LOG_LEVEL", "4");
  ScopedEnv modules("ASCEND_MODULE_LOG_LEVEL", nullptr);
  ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
  testing::internal::CaptureStdout();
  ACL_APP_LOG(ACL_ERROR, "failure %s", "dropped");
  std::string out = testing::internal::GetCapturedStdout();
  EXPECT_EQ(out.find("failure dropped"), std::string::npos) << out;
  EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
}

TEST(InitTest, ModuleLogLevelOverridesTheGlobalLevel) {
  ScopedEnv to_stdout("ASCEND_SLOG_PRINT_TO_STDOUT", "1");
  ScopedEnv new_name("ASCEND_LOG_PRINT_TO_STDOUT", nullptr);
  ScopedEnv level("ASCEND_GLOBAL_LOG_LEVEL", "3");
  ScopedEnv modules("ASCEND_MODULE_LOG_LEVEL", "GE=3:APP=1");
  ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
  testing::internal::CaptureStdout();
  LogGreeting();
  std::string out = testing::internal::GetCapturedStdout();
  EXPECT_NE(out.find("greeting 42"), std::string::npos) << out;
  EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
}

TEST(InitTest, ModuleLogLevelWithASyntaxErrorIsIgnoredWhole) {
  ScopedEnv to_stdout("ASCEND_SLOG_PRINT_TO_STDOUT", "1");
  ScopedEnv new_name("ASCEND_LOG_PRINT_TO_STDOUT", nullptr);
  ScopedEnv level("ASCEND_GLOBAL_LOG_LEVEL", "3");
  ScopedEnv modules("ASCEND_MODULE_LOG_LEVEL", "APP=1:GE");
  ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
  testing::internal::CaptureStdout();
  LogGreeting();
  std::string out = testing::internal::GetCapturedStdout();
  EXPECT_EQ(out.find("greeting 42"), std::string::npos) << out;
  EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
}

TEST(InitTest, NewPrintToStdoutVariableWinsOverTheOldOne) {
  ScopedEnv to_stdout("ASCEND_SLOG_PRINT_TO_STDOUT", "1");
  ScopedEnv new_name("ASCEND_LOG_PRINT_TO_STDOUT", "0");
  ScopedEnv level("ASCEND_GLOBAL_LOG_LEVEL", "0");
  ScopedEnv modules("ASCEND_MODULE_LOG_LEVEL", nullptr);
  std::string root_template = testing::TempDir() + "kiln_plog_XXXXXX";
  ASSERT_NE(mkdtemp(root_template.data()), nullptr);
  ScopedEnv path("ASCEND_PROCESS_LOG_PATH", root_template.c_str());
  ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
  testing::internal::CaptureStdout();
  LogGreeting();
  std::string out = testing::internal::GetCapturedStdout();
  EXPECT_EQ(out.find("greeting 42"), std::string::npos) << out;
  EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
  std::error_code ec;
  std::filesystem::remove_all(root_template, ec);
}

TEST(InitTest, FailedCallWritesErrorRecordToPlogFile) {
  std::string root_template = testing::TempDir() + "kiln_plog_XXXXXX";
  ASSERT_NE(mkdtemp(root_template.data()), nullptr);
  const std::string base = root_template;
  const std::string root = base + "/not/yet/there";  // created by the runtime
  {
    ScopedEnv path("ASCEND_PROCESS_LOG_PATH", root.c_str());
    ScopedEnv to_stdout("ASCEND_SLOG_PRINT_TO_STDOUT", nullptr);
    ScopedEnv new_name("ASCEND_LOG_PRINT_TO_STDOUT", nullptr);
    ScopedEnv level("ASCEND_GLOBAL_LOG_LEVEL", nullptr);
    ScopedEnv modules("ASCEND_MODULE_LOG_LEVEL", nullptr);
    ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
    ASSERT_EQ(FailWithInvalidParam(), ACL_ERROR_INVALID_PARAM);
    EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
  }
  std::filesystem::path dir = std::filesystem::path(root) / "debug" / "plog";
  std::regex name("plog-" + std::to_string(getpid()) + "_\\d+\\.log");
  std::string found;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    if (std::regex_match(entry.path().filename().string(), name)) found = entry.path().string();
  }
  ASSERT_FALSE(found.empty()) << "no plog-<pid>_<digits>.log under " << dir;
  std::ifstream in(found);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_NE(text.str().find("[ERROR] ASCENDCL("), std::string::npos) << text.str();
  std::filesystem::remove_all(base, ec);
}

// --- acl.json "kiln" section -------------------------------------------------------------------

TEST(InitTest, ConfigDeviceMemoryLimitSetsTheReportedTotal) {
  ScopedEnv env_limit("KILN_DEVICE_MEMORY_LIMIT", nullptr);
  TempFile config("limit.json", "{\"kiln\":{\"device_memory_limit\":\"64M\"}}");
  ASSERT_EQ(aclInit(config.path()), ACL_SUCCESS);
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  size_t free_bytes = 0, total = 0;
  ASSERT_EQ(aclrtGetMemInfo(ACL_HBM_MEM, &free_bytes, &total), ACL_SUCCESS);
  EXPECT_EQ(total, size_t{64} << 20);
  EXPECT_LE(free_bytes, total);
  EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
}

TEST(InitTest, ConfigDeviceMemoryLimitRejectsANegativeValue) {
  TempFile config("negative.json", "{\"kiln\":{\"device_memory_limit\":\"-3\"}}");
  EXPECT_EQ(aclInit(config.path()), ACL_ERROR_PARSE_FILE);
}

TEST(InitTest, ConfigDeviceMemoryLimitRejectsAWord) {
  TempFile config("word.json", "{\"kiln\":{\"device_memory_limit\":\"abc\"}}");
  EXPECT_EQ(aclInit(config.path()), ACL_ERROR_PARSE_FILE);
}
