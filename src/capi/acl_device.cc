// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Device management.
#include "acl/acl.h"
#include "capi/error.h"
#include "runtime/runtime.h"

using kiln::capi::InvalidParam;
using kiln::capi::Report;
using kiln::runtime::Runtime;

namespace {

// Checks `id` names a visible device (kRtInvalidDeviceId / kRtNoDevice otherwise).
kiln::Status CheckDevice(int64_t id) {
  uint32_t count = Runtime::Get().VisibleDeviceCount();
  if (count == 0)
    return kiln::Error(kiln::code::kRtNoDevice, "no device is visible to this process");
  if (id < 0 || id >= count) {
    return kiln::Error(kiln::code::kRtInvalidDeviceId, "device id ", id, " is invalid: ", count,
                       " device(s) visible, ids 0..", count - 1);
  }
  return kiln::Status::Ok();
}

}  // namespace

extern "C" {

aclError aclrtSetDevice(int32_t deviceId) {
  KILN_CAPI("aclrtSetDevice",
            { return Report("aclrtSetDevice", Runtime::Get().SetDevice(deviceId)); });
}

aclError aclrtResetDevice(int32_t deviceId) {
  KILN_CAPI("aclrtResetDevice",
            { return Report("aclrtResetDevice", Runtime::Get().ResetDevice(deviceId, false)); });
}

aclError aclrtResetDeviceForce(int32_t deviceId) {
  KILN_CAPI("aclrtResetDeviceForce", {
    return Report("aclrtResetDeviceForce", Runtime::Get().ResetDevice(deviceId, true));
  });
}

aclError aclrtGetDevice(int32_t* deviceId) {
  KILN_CAPI("aclrtGetDevice", {
    if (deviceId == nullptr) return InvalidParam("aclrtGetDevice", "deviceId is NULL");
    auto id = Runtime::Get().CurrentDevice();
    if (!id.ok()) return Report("aclrtGetDevice", id.status());
    *deviceId = *id;
    return ACL_SUCCESS;
  });
}

aclError aclrtGetDeviceCount(uint32_t* count) {
  KILN_CAPI("aclrtGetDeviceCount", {
    if (count == nullptr) return InvalidParam("aclrtGetDeviceCount", "count is NULL");
    *count = 0;
    kiln::Status init = Runtime::Get().CheckInitialized("aclrtGetDeviceCount");
    if (!init.ok()) return Report("aclrtGetDeviceCount", init);
    *count = Runtime::Get().VisibleDeviceCount();
    return ACL_SUCCESS;
  });
}

aclError aclrtGetRunMode(aclrtRunMode* runMode) {
  KILN_CAPI("aclrtGetRunMode", {
    if (runMode == nullptr) return InvalidParam("aclrtGetRunMode", "runMode is NULL");
    *runMode = ACL_HOST;  // the application runs on the host; device memory needs memcpy
    return ACL_SUCCESS;
  });
}

aclError aclrtSynchronizeDevice(void) {
  KILN_CAPI("aclrtSynchronizeDevice",
            { return Report("aclrtSynchronizeDevice", Runtime::Get().SynchronizeDevice(-1)); });
}

aclError aclrtSynchronizeDeviceWithTimeout(int32_t timeout) {
  KILN_CAPI("aclrtSynchronizeDeviceWithTimeout", {
    if (timeout < -1) {
      return InvalidParam("aclrtSynchronizeDeviceWithTimeout", "timeout ", timeout,
                          " is invalid: use -1 (forever) or a number of milliseconds >= 0");
    }
    return Report("aclrtSynchronizeDeviceWithTimeout", Runtime::Get().SynchronizeDevice(timeout));
  });
}

aclError aclrtSetTsDevice(aclrtTsId tsId) {
  KILN_CAPI("aclrtSetTsDevice", {
    int ts = kiln::capi::EnumInt(tsId);
    if (ts != ACL_TS_ID_AICORE && ts != ACL_TS_ID_AIVECTOR) {
      return InvalidParam("aclrtSetTsDevice", "tsId ", ts,
                          " is invalid: use ACL_TS_ID_AICORE or ACL_TS_ID_AIVECTOR");
    }
    // One scheduler serves both kinds of work on Kiln devices: nothing to switch.
    return ACL_SUCCESS;
  });
}

aclError aclrtGetDeviceUtilizationRate(int32_t deviceId, aclrtUtilizationInfo* utilizationInfo) {
  KILN_CAPI("aclrtGetDeviceUtilizationRate", {
    if (utilizationInfo == nullptr) {
      return InvalidParam("aclrtGetDeviceUtilizationRate", "utilizationInfo is NULL");
    }
    int32_t compute = 0, memory = 0;
    kiln::Status st = Runtime::Get().Utilization(deviceId, &compute, &memory);
    if (!st.ok()) return Report("aclrtGetDeviceUtilizationRate", st);
    utilizationInfo->cubeUtilization = compute;
    utilizationInfo->vectorUtilization = compute;
    utilizationInfo->aicpuUtilization = 0;
    utilizationInfo->memoryUtilization = memory;
    return ACL_SUCCESS;
  });
}

aclError aclrtQueryDeviceStatus(int32_t deviceId, aclrtDeviceStatus* deviceStatus) {
  KILN_CAPI("aclrtQueryDeviceStatus", {
    if (deviceStatus == nullptr)
      return InvalidParam("aclrtQueryDeviceStatus", "deviceStatus is NULL");
    kiln::Status st = CheckDevice(deviceId);
    if (!st.ok()) return Report("aclrtQueryDeviceStatus", st);
    *deviceStatus = ACL_RT_DEVICE_STATUS_NORMAL;
    return ACL_SUCCESS;
  });
}

aclError aclGetDeviceCapability(uint32_t deviceId, aclDeviceInfo deviceInfo, int64_t* value) {
  KILN_CAPI("aclGetDeviceCapability", {
    if (value == nullptr) return InvalidParam("aclGetDeviceCapability", "value is NULL");
    kiln::Status st = CheckDevice(deviceId);
    if (!st.ok()) return Report("aclGetDeviceCapability", st);
    auto info = Runtime::Get().DeviceInfo(static_cast<int32_t>(deviceId));
    if (!info.ok()) return Report("aclGetDeviceCapability", info.status());
    switch (kiln::capi::EnumInt(deviceInfo)) {
      case ACL_DEVICE_INFO_AI_CORE_NUM:
      case ACL_DEVICE_INFO_VECTOR_CORE_NUM:
        *value = info->compute_units;
        return ACL_SUCCESS;
      case ACL_DEVICE_INFO_L2_SIZE:
        *value = info->l2_cache_bytes;
        return ACL_SUCCESS;
      default:
        return InvalidParam("aclGetDeviceCapability", "deviceInfo ",
                            kiln::capi::EnumInt(deviceInfo), " is not an aclDeviceInfo");
    }
  });
}

aclError aclrtDeviceCanAccessPeer(int32_t* canAccessPeer, int32_t deviceId, int32_t peerDeviceId) {
  KILN_CAPI("aclrtDeviceCanAccessPeer", {
    if (canAccessPeer == nullptr)
      return InvalidParam("aclrtDeviceCanAccessPeer", "canAccessPeer is NULL");
    kiln::Status st = CheckDevice(deviceId);
    if (st.ok()) st = CheckDevice(peerDeviceId);
    if (!st.ok()) return Report("aclrtDeviceCanAccessPeer", st);
    if (deviceId == peerDeviceId) {
      return InvalidParam("aclrtDeviceCanAccessPeer", "deviceId and peerDeviceId are both ",
                          deviceId);
    }
    // CPU devices share the host's memory, so each can read the others'.
    *canAccessPeer = 1;
    return ACL_SUCCESS;
  });
}

aclError aclrtDeviceEnablePeerAccess(int32_t peerDeviceId, uint32_t flags) {
  KILN_CAPI("aclrtDeviceEnablePeerAccess", {
    if (flags != 0)
      return InvalidParam("aclrtDeviceEnablePeerAccess", "flags must be 0, got ", flags);
    auto current = Runtime::Get().CurrentDevice();
    if (!current.ok()) return Report("aclrtDeviceEnablePeerAccess", current.status());
    kiln::Status st = CheckDevice(peerDeviceId);
    if (!st.ok()) return Report("aclrtDeviceEnablePeerAccess", st);
    if (*current == peerDeviceId) {
      return InvalidParam("aclrtDeviceEnablePeerAccess", "device ", peerDeviceId,
                          " is the current device");
    }
    return ACL_SUCCESS;  // always enabled between CPU devices (shared host memory)
  });
}

aclError aclrtDeviceDisablePeerAccess(int32_t peerDeviceId) {
  KILN_CAPI("aclrtDeviceDisablePeerAccess", {
    kiln::Status st = CheckDevice(peerDeviceId);
    return Report("aclrtDeviceDisablePeerAccess", st);
  });
}

}  // extern "C"
