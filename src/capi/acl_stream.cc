// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Stream management.
#include "acl/acl.h"
#include "capi/error.h"
#include "runtime/runtime.h"

using kiln::capi::InvalidParam;
using kiln::capi::Report;
using kiln::runtime::Runtime;

namespace {

constexpr uint32_t kStreamFlags = ACL_STREAM_FAST_LAUNCH | ACL_STREAM_FAST_SYNC |
                                  ACL_STREAM_PERSISTENT | ACL_STREAM_HUGE |
                                  ACL_STREAM_CPU_SCHEDULE | ACL_STREAM_DEVICE_USE_ONLY;
constexpr uint32_t kLowestPriority = 7;  // 0 is the highest, as on Ascend

aclError Create(const char* api, aclrtStream* stream, uint32_t priority, uint32_t flag) {
  if (stream == nullptr) return InvalidParam(api, "stream is NULL");
  *stream = nullptr;
  if (priority > kLowestPriority) {
    return InvalidParam(api, "priority ", priority, " is out of range 0..", kLowestPriority);
  }
  if ((flag & ~kStreamFlags) != 0) {
    return InvalidParam(api, "flag 0x", std::hex, flag, " has bits no ACL_STREAM_* flag uses");
  }
  auto s = Runtime::Get().CreateStream(priority, flag);
  if (!s.ok()) return Report(api, s.status());
  *stream = *s;
  return ACL_SUCCESS;
}

aclError Synchronize(const char* api, aclrtStream stream, int32_t timeout) {
  if (timeout < -1) {
    return InvalidParam(api, "timeout ", timeout,
                        " is invalid: use -1 (forever) or a number of milliseconds >= 0");
  }
  auto s = Runtime::Get().ResolveStream(stream);
  if (!s.ok()) return Report(api, s.status());
  return Report(api, (*s)->queue().Synchronize(timeout));
}

}  // namespace

extern "C" {

aclError aclrtCreateStream(aclrtStream* stream) {
  KILN_CAPI("aclrtCreateStream", { return Create("aclrtCreateStream", stream, 0, 0); });
}

aclError aclrtCreateStreamWithConfig(aclrtStream* stream, uint32_t priority, uint32_t flag) {
  KILN_CAPI("aclrtCreateStreamWithConfig",
            { return Create("aclrtCreateStreamWithConfig", stream, priority, flag); });
}

aclError aclrtDestroyStream(aclrtStream stream) {
  KILN_CAPI("aclrtDestroyStream",
            { return Report("aclrtDestroyStream", Runtime::Get().DestroyStream(stream, false)); });
}

aclError aclrtDestroyStreamForce(aclrtStream stream) {
  KILN_CAPI("aclrtDestroyStreamForce", {
    return Report("aclrtDestroyStreamForce", Runtime::Get().DestroyStream(stream, true));
  });
}

aclError aclrtSynchronizeStream(aclrtStream stream) {
  KILN_CAPI("aclrtSynchronizeStream",
            { return Synchronize("aclrtSynchronizeStream", stream, -1); });
}

aclError aclrtSynchronizeStreamWithTimeout(aclrtStream stream, int32_t timeout) {
  KILN_CAPI("aclrtSynchronizeStreamWithTimeout",
            { return Synchronize("aclrtSynchronizeStreamWithTimeout", stream, timeout); });
}

aclError aclrtStreamQuery(aclrtStream stream, aclrtStreamStatus* status) {
  KILN_CAPI("aclrtStreamQuery", {
    if (status == nullptr) return InvalidParam("aclrtStreamQuery", "status is NULL");
    auto s = Runtime::Get().ResolveStream(stream);
    if (!s.ok()) return Report("aclrtStreamQuery", s.status());
    *status = (*s)->queue().Idle() ? ACL_STREAM_STATUS_COMPLETE : ACL_STREAM_STATUS_NOT_READY;
    return ACL_SUCCESS;
  });
}

aclError aclrtStreamWaitEvent(aclrtStream stream, aclrtEvent event) {
  KILN_CAPI("aclrtStreamWaitEvent", {
    auto e = Runtime::Get().ResolveEvent(event);
    if (!e.ok()) return Report("aclrtStreamWaitEvent", e.status());
    auto s = Runtime::Get().ResolveStream(stream);
    if (!s.ok()) return Report("aclrtStreamWaitEvent", s.status());
    if ((*e)->device() != (*s)->device()) {
      return Report("aclrtStreamWaitEvent",
                    kiln::Error(kiln::code::kResourceNotMatch, "event ", kiln::PtrStr(event),
                                " belongs to device ", (*e)->device(), ", stream to device ",
                                (*s)->device()));
    }
    kiln::runtime::WaitEventTimed(**s, (*e)->hal());
    return ACL_SUCCESS;
  });
}

aclError aclrtSetStreamFailureMode(aclrtStream stream, uint64_t mode) {
  KILN_CAPI("aclrtSetStreamFailureMode", {
    if (mode != ACL_CONTINUE_ON_FAILURE && mode != ACL_STOP_ON_FAILURE) {
      return InvalidParam("aclrtSetStreamFailureMode", "mode ", mode,
                          " is invalid: use ACL_CONTINUE_ON_FAILURE or ACL_STOP_ON_FAILURE");
    }
    auto s = Runtime::Get().ResolveStream(stream);
    if (!s.ok()) return Report("aclrtSetStreamFailureMode", s.status());
    (*s)->queue().SetStopOnFailure(mode == ACL_STOP_ON_FAILURE);
    return ACL_SUCCESS;
  });
}

}  // extern "C"
