// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Host callbacks (report mechanism and host functions), timeouts and exception callbacks.
#include <atomic>

#include "acl/acl.h"
#include "base/log.h"
#include "capi/error.h"
#include "runtime/runtime.h"

using kiln::capi::InvalidParam;
using kiln::capi::Report;
using kiln::runtime::Runtime;

// What an aclrtExceptionInfoCallback receives (opaque to applications).
struct rtExceptionInfo {
  uint32_t task_id;
  uint32_t stream_id;
  uint32_t thread_id;
  uint32_t device_id;
  uint32_t error_code;
};

namespace {
std::atomic<uint32_t> op_wait_timeout_s{0};
std::atomic<uint32_t> op_execute_timeout_s{0};
std::atomic<aclrtExceptionInfoCallback> exception_callback{nullptr};
constexpr uint32_t kNoInfo = 0xFFFFFFFFu;
}  // namespace

extern "C" {

aclError aclrtSubscribeReport(uint64_t threadId, aclrtStream stream) {
  KILN_CAPI("aclrtSubscribeReport", {
    auto s = Runtime::Get().ResolveStream(stream);
    if (!s.ok()) return Report("aclrtSubscribeReport", s.status());
    return Report("aclrtSubscribeReport", Runtime::Get().reports().Subscribe(threadId, **s));
  });
}

aclError aclrtUnSubscribeReport(uint64_t threadId, aclrtStream stream) {
  KILN_CAPI("aclrtUnSubscribeReport", {
    auto s = Runtime::Get().ResolveStream(stream);
    if (!s.ok()) return Report("aclrtUnSubscribeReport", s.status());
    return Report("aclrtUnSubscribeReport", Runtime::Get().reports().Unsubscribe(threadId, **s));
  });
}

aclError aclrtProcessReport(int32_t timeout) {
  KILN_CAPI("aclrtProcessReport", {
    if (timeout < -1) {
      return InvalidParam("aclrtProcessReport", "timeout ", timeout,
                          " is invalid: use -1 (forever) or a number of milliseconds >= 0");
    }
    kiln::Status st = Runtime::Get().reports().Process(timeout);
    // A time-out is the normal answer of an idle polling loop: keep it out of the error log.
    if (st.code() == kiln::code::kRtReportTimeout) return ACL_ERROR_RT_REPORT_TIMEOUT;
    return Report("aclrtProcessReport", st);
  });
}

aclError aclrtLaunchCallback(aclrtCallback fn, void* userData, aclrtCallbackBlockType blockType,
                             aclrtStream stream) {
  KILN_CAPI("aclrtLaunchCallback", {
    if (fn == nullptr) return InvalidParam("aclrtLaunchCallback", "fn is NULL");
    int block = kiln::capi::EnumInt(blockType);
    if (block != ACL_CALLBACK_NO_BLOCK && block != ACL_CALLBACK_BLOCK) {
      return InvalidParam("aclrtLaunchCallback", "blockType ", block,
                          " is invalid: use ACL_CALLBACK_NO_BLOCK or ACL_CALLBACK_BLOCK");
    }
    auto s = Runtime::Get().ResolveStream(stream);
    if (!s.ok()) return Report("aclrtLaunchCallback", s.status());
    std::shared_ptr<kiln::hal::Event> gate;
    if (block == ACL_CALLBACK_BLOCK) {
      auto event = Runtime::Get().NewInternalEvent((*s)->device());
      if (!event.ok()) return Report("aclrtLaunchCallback", event.status());
      gate = *event;
    }
    return Report("aclrtLaunchCallback",
                  Runtime::Get().reports().Launch(fn, userData, std::move(gate), *s));
  });
}

aclError aclrtLaunchHostFunc(aclrtStream stream, aclrtHostFunc fn, void* args) {
  KILN_CAPI("aclrtLaunchHostFunc", {
    if (fn == nullptr) return InvalidParam("aclrtLaunchHostFunc", "fn is NULL");
    auto s = Runtime::Get().ResolveStream(stream);
    if (!s.ok()) return Report("aclrtLaunchHostFunc", s.status());
    (*s)->queue().Submit(kiln::runtime::TimedTask(kiln::runtime::TaskKind::kCallback, **s,
                                                  "host function", [fn, args] {
                                                    fn(args);
                                                    return kiln::Status::Ok();
                                                  }));
    return ACL_SUCCESS;
  });
}

aclError aclrtSetOpWaitTimeout(uint32_t timeout) {
  KILN_CAPI("aclrtSetOpWaitTimeout", {
    op_wait_timeout_s.store(timeout);
    KILN_LOG(kRuntime, kInfo, "op wait timeout set to ", timeout,
             " s (recorded; CPU streams wait on events without a limit)");
    return ACL_SUCCESS;
  });
}

aclError aclrtSetOpExecuteTimeOut(uint32_t timeout) {
  KILN_CAPI("aclrtSetOpExecuteTimeOut", {
    op_execute_timeout_s.store(timeout);
    KILN_LOG(kRuntime, kInfo, "op execute timeout set to ", timeout,
             " s (recorded; CPU kernels are not interrupted)");
    return ACL_SUCCESS;
  });
}

aclError aclrtSetExceptionInfoCallback(aclrtExceptionInfoCallback callback) {
  exception_callback.store(callback);
  return ACL_SUCCESS;
}

uint32_t aclrtGetTaskIdFromExceptionInfo(const aclrtExceptionInfo* info) {
  return info ? info->task_id : kNoInfo;
}
uint32_t aclrtGetStreamIdFromExceptionInfo(const aclrtExceptionInfo* info) {
  return info ? info->stream_id : kNoInfo;
}
uint32_t aclrtGetThreadIdFromExceptionInfo(const aclrtExceptionInfo* info) {
  return info ? info->thread_id : kNoInfo;
}
uint32_t aclrtGetDeviceIdFromExceptionInfo(const aclrtExceptionInfo* info) {
  return info ? info->device_id : kNoInfo;
}
uint32_t aclrtGetErrorCodeFromExceptionInfo(const aclrtExceptionInfo* info) {
  return info ? info->error_code : kNoInfo;
}

}  // extern "C"
