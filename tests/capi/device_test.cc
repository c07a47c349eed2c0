// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Contract tests for device management (docs: ascendcl-reference.md §1.2, §2, §4).
#include <gtest/gtest.h>
#include <stdlib.h>

#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "acl/acl.h"

namespace {

// Each TEST runs in its own process. Tests that need environment variables set them with SetEnv
// before Init(); TearDown finalizes and restores them.
class DeviceTest : public testing::Test {
 protected:
  void SetEnv(const char* name, const char* value) {
    const char* old = std::getenv(name);
    saved_.emplace_back(name, old ? std::optional<std::string>(old) : std::nullopt);
    setenv(name, value, 1);
  }

  void Init() {
    ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
    initialized_ = true;
  }

  void SetUp() override {
    // The defaults must not leak in from the caller's environment.
    Unset("KILN_CPU_DEVICES");
    Unset("ASCEND_RT_VISIBLE_DEVICES");
    Unset("KILN_DEVICE_MEMORY_LIMIT");
  }

  void TearDown() override {
    if (initialized_) {
      EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
    }
    for (auto it = saved_.rbegin(); it != saved_.rend(); ++it) {
      if (it->second) {
        setenv(it->first.c_str(), it->second->c_str(), 1);
      } else {
        unsetenv(it->first.c_str());
      }
    }
  }

 private:
  void Unset(const char* name) {
    if (const char* old = std::getenv(name)) {
      saved_.emplace_back(name, std::string(old));
      unsetenv(name);
    }
  }

  bool initialized_ = false;
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

uint32_t DeviceCount() {
  uint32_t count = 12345;
  EXPECT_EQ(aclrtGetDeviceCount(&count), ACL_SUCCESS);
  return count;
}

}  // namespace

// --- set / reset -------------------------------------------------------------------------------

TEST_F(DeviceTest, SetDeviceIsReferenceCounted) {
  Init();
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  ASSERT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
  void* ptr = nullptr;
  ASSERT_EQ(aclrtMalloc(&ptr, 256, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);  // still usable
  EXPECT_EQ(aclrtFree(ptr), ACL_SUCCESS);
  ASSERT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
  int32_t id = -1;
  EXPECT_EQ(aclrtGetDevice(&id), ACL_ERROR_RT_CONTEXT_NULL);
  EXPECT_EQ(ACL_ERROR_RT_CONTEXT_NULL, 107002);
}

TEST_F(DeviceTest, ResetDeviceForceReleasesRegardlessOfTheCount) {
  Init();
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  ASSERT_EQ(aclrtResetDeviceForce(0), ACL_SUCCESS);
  int32_t id = -1;
  EXPECT_EQ(aclrtGetDevice(&id), ACL_ERROR_RT_CONTEXT_NULL);
}

TEST_F(DeviceTest, ResetDeviceReclaimsLeakedMemoryStreamsAndEvents) {
  Init();
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  void* ptr = nullptr;
  ASSERT_EQ(aclrtMalloc(&ptr, 4096, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  aclrtEvent event = nullptr;
  ASSERT_EQ(aclrtCreateEvent(&event), ACL_SUCCESS);
  EXPECT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
  EXPECT_EQ(aclrtFree(ptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_ERROR_RT_INVALID_HANDLE);
  EXPECT_EQ(ACL_ERROR_RT_INVALID_HANDLE, 107017);
  EXPECT_NE(aclrtDestroyEvent(event), ACL_SUCCESS);
}

TEST_F(DeviceTest, ResetDeviceReturnsLeakedMemoryToThePool) {
  SetEnv("KILN_DEVICE_MEMORY_LIMIT", "64M");
  Init();
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  void* ptr = nullptr;
  ASSERT_EQ(aclrtMalloc(&ptr, size_t{48} << 20, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  ASSERT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  // 48 MiB more fits only if the leaked 48 MiB came back.
  EXPECT_EQ(aclrtMalloc(&ptr, size_t{48} << 20, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  EXPECT_EQ(aclrtFree(ptr), ACL_SUCCESS);
}

TEST_F(DeviceTest, ResetOfADeviceNeverSetSucceeds) {
  Init();
  EXPECT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
}

TEST_F(DeviceTest, InvalidDeviceIdsFailWithInvalidDeviceId) {
  Init();
  EXPECT_EQ(ACL_ERROR_RT_INVALID_DEVICEID, 107001);
  EXPECT_EQ(aclrtSetDevice(-1), ACL_ERROR_RT_INVALID_DEVICEID);
  EXPECT_EQ(aclrtSetDevice(99), ACL_ERROR_RT_INVALID_DEVICEID);
  EXPECT_EQ(aclrtResetDevice(-1), ACL_ERROR_RT_INVALID_DEVICEID);
  EXPECT_EQ(aclrtResetDevice(99), ACL_ERROR_RT_INVALID_DEVICEID);
}

TEST_F(DeviceTest, GetDeviceWithoutADeviceFailsWithContextNull) {
  Init();
  int32_t id = -1;
  EXPECT_EQ(aclrtGetDevice(&id), ACL_ERROR_RT_CONTEXT_NULL);
}

TEST_F(DeviceTest, GetDeviceReturnsTheDeviceSetOnThisThread) {
  SetEnv("KILN_CPU_DEVICES", "2");
  Init();
  ASSERT_EQ(aclrtSetDevice(1), ACL_SUCCESS);
  int32_t id = -1;
  ASSERT_EQ(aclrtGetDevice(&id), ACL_SUCCESS);
  EXPECT_EQ(id, 1);
  EXPECT_EQ(aclrtGetDevice(nullptr), ACL_ERROR_INVALID_PARAM);
}

// --- device count and visibility ---------------------------------------------------------------

TEST_F(DeviceTest, DeviceCountIsOneByDefault) {
  Init();
  EXPECT_EQ(DeviceCount(), 1u);
}

TEST_F(DeviceTest, KilnCpuDevicesSetsTheDeviceCount) {
  SetEnv("KILN_CPU_DEVICES", "2");
  Init();
  EXPECT_EQ(DeviceCount(), 2u);
  EXPECT_EQ(aclrtSetDevice(1), ACL_SUCCESS);
}

TEST_F(DeviceTest, VisibleDevicesListRenumbersTheDevices) {
  SetEnv("KILN_CPU_DEVICES", "3");
  SetEnv("ASCEND_RT_VISIBLE_DEVICES", "2,0");
  Init();
  EXPECT_EQ(DeviceCount(), 2u);
  EXPECT_EQ(aclrtSetDevice(1), ACL_SUCCESS);
  EXPECT_EQ(aclrtSetDevice(2), ACL_ERROR_RT_INVALID_DEVICEID);
}

TEST_F(DeviceTest, VisibleDevicesWithOneIdShowsOneDevice) {
  SetEnv("KILN_CPU_DEVICES", "3");
  SetEnv("ASCEND_RT_VISIBLE_DEVICES", "1");
  Init();
  EXPECT_EQ(DeviceCount(), 1u);
}

TEST_F(DeviceTest, VisibleDevicesParsingStopsAtTheFirstBadCharacter) {
  SetEnv("KILN_CPU_DEVICES", "3");
  SetEnv("ASCEND_RT_VISIBLE_DEVICES", "1,x,2");
  Init();
  EXPECT_EQ(DeviceCount(), 1u);
}

TEST_F(DeviceTest, VisibleDevicesParsingStopsAtASpace) {
  SetEnv("KILN_CPU_DEVICES", "3");
  SetEnv("ASCEND_RT_VISIBLE_DEVICES", "1, 2");
  Init();
  EXPECT_EQ(DeviceCount(), 1u);
}

TEST_F(DeviceTest, VisibleDevicesParsingStopsAtTheFirstInvalidId) {
  SetEnv("KILN_CPU_DEVICES", "3");
  SetEnv("ASCEND_RT_VISIBLE_DEVICES", "0,2,8");
  Init();
  EXPECT_EQ(DeviceCount(), 2u);
}

TEST_F(DeviceTest, VisibleDevicesNamingNoDeviceLeavesNone) {
  SetEnv("KILN_CPU_DEVICES", "3");
  SetEnv("ASCEND_RT_VISIBLE_DEVICES", "7");
  Init();
  EXPECT_EQ(DeviceCount(), 0u);
  EXPECT_EQ(aclrtSetDevice(0), ACL_ERROR_RT_NO_DEVICE);
  EXPECT_EQ(ACL_ERROR_RT_NO_DEVICE, 207004);
}

TEST_F(DeviceTest, GetDeviceCountWithNullFailsWithInvalidParam) {
  Init();
  EXPECT_EQ(aclrtGetDeviceCount(nullptr), ACL_ERROR_INVALID_PARAM);
}

// --- queries -----------------------------------------------------------------------------------

TEST_F(DeviceTest, RunModeIsHost) {
  Init();
  aclrtRunMode mode = ACL_DEVICE;
  ASSERT_EQ(aclrtGetRunMode(&mode), ACL_SUCCESS);
  EXPECT_EQ(mode, ACL_HOST);
  EXPECT_EQ(aclrtGetRunMode(nullptr), ACL_ERROR_INVALID_PARAM);
}

TEST_F(DeviceTest, SynchronizeDeviceSucceedsWithAndWithoutTimeout) {
  Init();
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeDevice(), ACL_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeDeviceWithTimeout(1000), ACL_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeDeviceWithTimeout(-1), ACL_SUCCESS);
}

TEST_F(DeviceTest, SynchronizeDeviceWithNegativeTimeoutFailsWithInvalidParam) {
  Init();
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeDeviceWithTimeout(-5), ACL_ERROR_INVALID_PARAM);
}

TEST_F(DeviceTest, QueryDeviceStatusReportsNormal) {
  Init();
  aclrtDeviceStatus status = ACL_RT_DEVICE_STATUS_ABNORMAL;
  ASSERT_EQ(aclrtQueryDeviceStatus(0, &status), ACL_SUCCESS);
  EXPECT_EQ(status, ACL_RT_DEVICE_STATUS_NORMAL);
}

TEST_F(DeviceTest, QueryDeviceStatusOfBadIdFailsWithInvalidDeviceId) {
  Init();
  aclrtDeviceStatus status = ACL_RT_DEVICE_STATUS_NORMAL;
  EXPECT_EQ(aclrtQueryDeviceStatus(99, &status), ACL_ERROR_RT_INVALID_DEVICEID);
  EXPECT_EQ(aclrtQueryDeviceStatus(-1, &status), ACL_ERROR_RT_INVALID_DEVICEID);
}

TEST_F(DeviceTest, DeviceCapabilityReportsCoresAndL2) {
  Init();
  int64_t value = -1;
  ASSERT_EQ(aclGetDeviceCapability(0, ACL_DEVICE_INFO_AI_CORE_NUM, &value), ACL_SUCCESS);
  EXPECT_GT(value, 0);
  value = -1;
  ASSERT_EQ(aclGetDeviceCapability(0, ACL_DEVICE_INFO_VECTOR_CORE_NUM, &value), ACL_SUCCESS);
  EXPECT_GT(value, 0);
  value = -1;
  ASSERT_EQ(aclGetDeviceCapability(0, ACL_DEVICE_INFO_L2_SIZE, &value), ACL_SUCCESS);
  EXPECT_GE(value, 0);
}

TEST_F(DeviceTest, DeviceCapabilityRejectsBadInfoAndNullValue) {
  Init();
  int64_t value = 0;
  EXPECT_EQ(aclGetDeviceCapability(0, static_cast<aclDeviceInfo>(7), &value),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclGetDeviceCapability(0, ACL_DEVICE_INFO_UNDEFINED, &value), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclGetDeviceCapability(0, ACL_DEVICE_INFO_AI_CORE_NUM, nullptr),
            ACL_ERROR_INVALID_PARAM);
}

TEST_F(DeviceTest, UtilizationRatesArePercentages) {
  Init();
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  aclrtUtilizationInfo info = {-1, -1, -1, -1, nullptr};
  ASSERT_EQ(aclrtGetDeviceUtilizationRate(0, &info), ACL_SUCCESS);
  for (int32_t rate : {info.cubeUtilization, info.vectorUtilization, info.aicpuUtilization,
                       info.memoryUtilization}) {
    EXPECT_GE(rate, 0);
    EXPECT_LE(rate, 100);
  }
  EXPECT_EQ(aclrtGetDeviceUtilizationRate(99, &info), ACL_ERROR_RT_INVALID_DEVICEID);
  EXPECT_EQ(aclrtGetDeviceUtilizationRate(0, nullptr), ACL_ERROR_INVALID_PARAM);
}

TEST_F(DeviceTest, MemoryUtilizationFollowsAllocations) {
  SetEnv("KILN_DEVICE_MEMORY_LIMIT", "64M");
  Init();
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  void* ptr = nullptr;
  ASSERT_EQ(aclrtMalloc(&ptr, size_t{32} << 20, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  aclrtUtilizationInfo info = {-1, -1, -1, -1, nullptr};
  ASSERT_EQ(aclrtGetDeviceUtilizationRate(0, &info), ACL_SUCCESS);
  EXPECT_GE(info.memoryUtilization, 45);
  EXPECT_LE(info.memoryUtilization, 55);
  EXPECT_EQ(aclrtFree(ptr), ACL_SUCCESS);
}

// --- peers and task schedulers -----------------------------------------------------------------

TEST_F(DeviceTest, TwoDevicesCanAccessEachOther) {
  SetEnv("KILN_CPU_DEVICES", "2");
  Init();
  int32_t can = -1;
  ASSERT_EQ(aclrtDeviceCanAccessPeer(&can, 0, 1), ACL_SUCCESS);
  EXPECT_EQ(can, 1);
  can = -1;
  ASSERT_EQ(aclrtDeviceCanAccessPeer(&can, 1, 0), ACL_SUCCESS);
  EXPECT_EQ(can, 1);
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  EXPECT_EQ(aclrtDeviceEnablePeerAccess(1, 0), ACL_SUCCESS);
  EXPECT_EQ(aclrtDeviceDisablePeerAccess(1), ACL_SUCCESS);
}

TEST_F(DeviceTest, PeerAccessToTheSameDeviceFailsWithInvalidParam) {
  SetEnv("KILN_CPU_DEVICES", "2");
  Init();
  int32_t can = -1;
  EXPECT_EQ(aclrtDeviceCanAccessPeer(&can, 0, 0), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtDeviceCanAccessPeer(nullptr, 0, 1), ACL_ERROR_INVALID_PARAM);
}

TEST_F(DeviceTest, SetTsDeviceAcceptsAiCoreAndRejectsUnknownIds) {
  Init();
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  EXPECT_EQ(aclrtSetTsDevice(ACL_TS_ID_AICORE), ACL_SUCCESS);
  EXPECT_EQ(aclrtSetTsDevice(static_cast<aclrtTsId>(7)), ACL_ERROR_INVALID_PARAM);
}

TEST_F(DeviceTest, SetCurrentContextMakesItsDeviceCurrent) {
  SetEnv("KILN_CPU_DEVICES", "2");
  Init();
  aclrtContext ctx1 = nullptr;
  ASSERT_EQ(aclrtCreateContext(&ctx1, 1), ACL_SUCCESS);
  int32_t id = -1;
  ASSERT_EQ(aclrtGetDevice(&id), ACL_SUCCESS);
  EXPECT_EQ(id, 1);
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  ASSERT_EQ(aclrtGetDevice(&id), ACL_SUCCESS);
  EXPECT_EQ(id, 0);
  ASSERT_EQ(aclrtSetCurrentContext(ctx1), ACL_SUCCESS);
  ASSERT_EQ(aclrtGetDevice(&id), ACL_SUCCESS);
  EXPECT_EQ(id, 1);
  EXPECT_EQ(aclrtDestroyContext(ctx1), ACL_SUCCESS);
}

TEST_F(DeviceTest, SetDeviceWorksAgainAfterAForcedReset) {
  Init();
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  ASSERT_EQ(aclrtResetDeviceForce(0), ACL_SUCCESS);
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  aclrtStream stream = nullptr;
  EXPECT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
}

// --- threads -----------------------------------------------------------------------------------

TEST_F(DeviceTest, ThreadsSettingTheSameDeviceShareItsDefaultContext) {
  Init();
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  aclrtContext main_ctx = nullptr;
  ASSERT_EQ(aclrtGetCurrentContext(&main_ctx), ACL_SUCCESS);
  aclrtContext worker_ctx = nullptr;
  aclError set = -1, get = -1, reset = -1;
  std::thread worker([&] {
    set = aclrtSetDevice(0);
    get = aclrtGetCurrentContext(&worker_ctx);
    reset = aclrtResetDevice(0);
  });
  worker.join();
  EXPECT_EQ(set, ACL_SUCCESS);
  EXPECT_EQ(get, ACL_SUCCESS);
  EXPECT_EQ(reset, ACL_SUCCESS);
  EXPECT_NE(main_ctx, nullptr);
  EXPECT_EQ(worker_ctx, main_ctx);
  // The worker's reset dropped only its own reference.
  void* ptr = nullptr;
  EXPECT_EQ(aclrtMalloc(&ptr, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  EXPECT_EQ(aclrtFree(ptr), ACL_SUCCESS);
}
