// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Event management.
#include "acl/acl.h"
#include "capi/error.h"
#include "runtime/runtime.h"

using kiln::capi::InvalidParam;
using kiln::capi::Report;
using kiln::runtime::Runtime;

namespace {

constexpr uint32_t kEventFlags = ACL_EVENT_SYNC | ACL_EVENT_CAPTURE_STREAM_PROGRESS |
                                 ACL_EVENT_TIME_LINE | ACL_EVENT_DEVICE_USE_ONLY |
                                 ACL_EVENT_EXTERNAL | ACL_EVENT_IPC;

aclError Create(const char* api, aclrtEvent* event, uint32_t flag) {
  if (event == nullptr) return InvalidParam(api, "event is NULL");
  *event = nullptr;
  if ((flag & ~kEventFlags) != 0) {
    return InvalidParam(api, "flag 0x", std::hex, flag, " has bits no ACL_EVENT_* flag uses");
  }
  auto e = Runtime::Get().CreateEvent(flag);
  if (!e.ok()) return Report(api, e.status());
  *event = *e;
  return ACL_SUCCESS;
}

// The event and stream of a record/reset, checked to be on one device.
aclError Resolve(const char* api, aclrtEvent event, aclrtStream stream,
                 std::shared_ptr<kiln::runtime::Event>* e,
                 std::shared_ptr<kiln::runtime::Stream>* s) {
  auto ev = Runtime::Get().ResolveEvent(event);
  if (!ev.ok()) return Report(api, ev.status());
  auto st = Runtime::Get().ResolveStream(stream);
  if (!st.ok()) return Report(api, st.status());
  if ((*ev)->device() != (*st)->device()) {
    return Report(api, kiln::Error(kiln::code::kResourceNotMatch, "event ", kiln::PtrStr(event),
                                   " belongs to device ", (*ev)->device(), ", stream to device ",
                                   (*st)->device()));
  }
  *e = *ev;
  *s = *st;
  return ACL_SUCCESS;
}

}  // namespace

extern "C" {

aclError aclrtCreateEvent(aclrtEvent* event) {
  KILN_CAPI("aclrtCreateEvent", { return Create("aclrtCreateEvent", event, ACL_EVENT_SYNC); });
}

aclError aclrtCreateEventWithFlag(aclrtEvent* event, uint32_t flag) {
  KILN_CAPI("aclrtCreateEventWithFlag",
            { return Create("aclrtCreateEventWithFlag", event, flag); });
}

aclError aclrtCreateEventExWithFlag(aclrtEvent* event, uint32_t flag) {
  KILN_CAPI("aclrtCreateEventExWithFlag",
            { return Create("aclrtCreateEventExWithFlag", event, flag); });
}

aclError aclrtDestroyEvent(aclrtEvent event) {
  KILN_CAPI("aclrtDestroyEvent",
            { return Report("aclrtDestroyEvent", Runtime::Get().DestroyEvent(event)); });
}

aclError aclrtRecordEvent(aclrtEvent event, aclrtStream stream) {
  KILN_CAPI("aclrtRecordEvent", {
    std::shared_ptr<kiln::runtime::Event> e;
    std::shared_ptr<kiln::runtime::Stream> s;
    if (aclError err = Resolve("aclrtRecordEvent", event, stream, &e, &s)) return err;
    if (kiln::runtime::Profiler::Get().tasks_on()) {  // the point the record takes effect
      s->queue().Submit(kiln::runtime::TimedTask(kiln::runtime::TaskKind::kEventRecord, *s,
                                                 "event record",
                                                 [] { return kiln::Status::Ok(); }));
    }
    s->queue().RecordEvent(e->hal());
    return ACL_SUCCESS;
  });
}

aclError aclrtResetEvent(aclrtEvent event, aclrtStream stream) {
  KILN_CAPI("aclrtResetEvent", {
    std::shared_ptr<kiln::runtime::Event> e;
    std::shared_ptr<kiln::runtime::Stream> s;
    if (aclError err = Resolve("aclrtResetEvent", event, stream, &e, &s)) return err;
    // Only the records made before this call are forgotten: a record issued for the next
    // round while the reset waits in the stream stays pending.
    uint64_t upto = e->hal()->issued();
    s->queue().Submit([hal = e->hal(), upto] {
      hal->Reset(upto);
      return kiln::Status::Ok();
    });
    return ACL_SUCCESS;
  });
}

aclError aclrtQueryEvent(aclrtEvent event, aclrtEventStatus* status) {
  KILN_CAPI("aclrtQueryEvent", {
    if (status == nullptr) return InvalidParam("aclrtQueryEvent", "status is NULL");
    auto e = Runtime::Get().ResolveEvent(event);
    if (!e.ok()) return Report("aclrtQueryEvent", e.status());
    *status = (*e)->hal()->IsComplete() ? ACL_EVENT_STATUS_COMPLETE : ACL_EVENT_STATUS_NOT_READY;
    return ACL_SUCCESS;
  });
}

aclError aclrtQueryEventStatus(aclrtEvent event, aclrtEventRecordedStatus* status) {
  KILN_CAPI("aclrtQueryEventStatus", {
    if (status == nullptr) return InvalidParam("aclrtQueryEventStatus", "status is NULL");
    auto e = Runtime::Get().ResolveEvent(event);
    if (!e.ok()) return Report("aclrtQueryEventStatus", e.status());
    *status = (*e)->hal()->IsComplete() ? ACL_EVENT_RECORDED_STATUS_COMPLETE
                                        : ACL_EVENT_RECORDED_STATUS_NOT_READY;
    return ACL_SUCCESS;
  });
}

aclError aclrtQueryEventWaitStatus(aclrtEvent event, aclrtEventWaitStatus* status) {
  KILN_CAPI("aclrtQueryEventWaitStatus", {
    if (status == nullptr) return InvalidParam("aclrtQueryEventWaitStatus", "status is NULL");
    auto e = Runtime::Get().ResolveEvent(event);
    if (!e.ok()) return Report("aclrtQueryEventWaitStatus", e.status());
    *status = (*e)->hal()->IsComplete() ? ACL_EVENT_WAIT_STATUS_COMPLETE
                                        : ACL_EVENT_WAIT_STATUS_NOT_READY;
    return ACL_SUCCESS;
  });
}

aclError aclrtSynchronizeEvent(aclrtEvent event) {
  KILN_CAPI("aclrtSynchronizeEvent", {
    auto e = Runtime::Get().ResolveEvent(event);
    if (!e.ok()) return Report("aclrtSynchronizeEvent", e.status());
    return Report("aclrtSynchronizeEvent", (*e)->hal()->Synchronize(-1));
  });
}

aclError aclrtSynchronizeEventWithTimeout(aclrtEvent event, int32_t timeout) {
  KILN_CAPI("aclrtSynchronizeEventWithTimeout", {
    if (timeout < -1) {
      return InvalidParam("aclrtSynchronizeEventWithTimeout", "timeout ", timeout,
                          " is invalid: use -1 (forever) or a number of milliseconds >= 0");
    }
    auto e = Runtime::Get().ResolveEvent(event);
    if (!e.ok()) return Report("aclrtSynchronizeEventWithTimeout", e.status());
    return Report("aclrtSynchronizeEventWithTimeout", (*e)->hal()->Synchronize(timeout));
  });
}

aclError aclrtEventElapsedTime(float* ms, aclrtEvent startEvent, aclrtEvent endEvent) {
  KILN_CAPI("aclrtEventElapsedTime", {
    const char* api = "aclrtEventElapsedTime";
    if (ms == nullptr) return InvalidParam(api, "ms is NULL");
    *ms = 0;
    auto start = Runtime::Get().ResolveEvent(startEvent);
    if (!start.ok()) return Report(api, start.status());
    auto end = Runtime::Get().ResolveEvent(endEvent);
    if (!end.ok()) return Report(api, end.status());
    for (auto* e : {&*start, &*end}) {
      const auto& hal = (*e)->hal();
      if (!hal->recorded()) {
        return Report(api, kiln::Error(kiln::code::kRtEventTimestampInvalid, "event ",
                                       kiln::PtrStr(e->get()), " was never recorded"));
      }
      if (!hal->IsComplete()) {
        return Report(api,
                      kiln::Error(kiln::code::kRtEventNotComplete, "event ", kiln::PtrStr(e->get()),
                                  " has not completed: synchronize it first"));
      }
    }
    uint64_t t0 = (*start)->hal()->timestamp_ns(), t1 = (*end)->hal()->timestamp_ns();
    if (t1 < t0) {
      return Report(api, kiln::Error(ACL_ERROR_RT_EVENT_TIMESTAMP_REVERSAL,
                                     "the end event completed before the start event"));
    }
    *ms = static_cast<float>(static_cast<double>(t1 - t0) / 1e6);
    return ACL_SUCCESS;
  });
}

aclError aclrtEventGetTimestamp(aclrtEvent event, uint64_t* timestamp) {
  KILN_CAPI("aclrtEventGetTimestamp", {
    if (timestamp == nullptr) return InvalidParam("aclrtEventGetTimestamp", "timestamp is NULL");
    *timestamp = 0;
    auto e = Runtime::Get().ResolveEvent(event);
    if (!e.ok()) return Report("aclrtEventGetTimestamp", e.status());
    if (!(*e)->hal()->recorded() || !(*e)->hal()->IsComplete()) {
      return Report("aclrtEventGetTimestamp",
                    kiln::Error(kiln::code::kRtEventNotComplete, "event ", kiln::PtrStr(event),
                                " has no completed record"));
    }
    *timestamp = (*e)->hal()->timestamp_ns() / 1000;  // microseconds, steady clock
    return ACL_SUCCESS;
  });
}

}  // extern "C"
