// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// acl.rt: devices, contexts, streams, events, memory and host callbacks. Every call that can
// wait (synchronise, process_report, reset, destroy, memcpy) releases the GIL, so a callback
// thread that needs it can run meanwhile.
#include <mutex>
#include <string>
#include <tuple>

#include "python/src/bindings.h"

namespace kiln::python {
namespace {

using GIL = py::call_guard<py::gil_scoped_release>;

// One acl.rt.launch_callback: the Python function and its argument, owned until it has run.
struct PyCallback {
  py::object func;
  py::object args;
};

void RunPyCallback(void* user_data) {
  py::gil_scoped_acquire gil;
  auto* cb = static_cast<PyCallback*>(user_data);
  try {
    cb->func(cb->args);
  } catch (py::error_already_set& e) {
    // There is no caller to raise into: report it as Python reports errors in threads.
    e.discard_as_unraisable("acl.rt.launch_callback function");
  }
  delete cb;
}

// acl.rt.set_exception_info_callback: the C callback has no user data, so the function is
// process-wide, as in CANN.
std::mutex g_exception_mu;
py::object* g_exception_fn = nullptr;

void RunExceptionCallback(aclrtExceptionInfo* info) {
  py::gil_scoped_acquire gil;
  std::lock_guard<std::mutex> lock(g_exception_mu);
  if (g_exception_fn == nullptr) return;
  try {
    (*g_exception_fn)(ToPtr(info));
  } catch (py::error_already_set& e) {
    e.discard_as_unraisable("acl.rt exception info callback");
  }
}

}  // namespace

void RegisterRt(py::module_& rt) {
  // Devices.
  rt.def("set_device", &aclrtSetDevice, GIL(), py::arg("device_id"));
  rt.def("reset_device", &aclrtResetDevice, GIL(), py::arg("device_id"));
  rt.def("reset_device_force", &aclrtResetDeviceForce, GIL(), py::arg("device_id"));
  rt.def(
      "get_device",
      [] {
        int32_t id = 0;
        aclError ret = aclrtGetDevice(&id);
        return std::make_tuple(id, ret);
      },
      "aclrtGetDevice: (device_id, ret)");
  rt.def(
      "get_device_count",
      [] {
        uint32_t n = 0;
        aclError ret = aclrtGetDeviceCount(&n);
        return std::make_tuple(n, ret);
      },
      GIL(), "aclrtGetDeviceCount: (count, ret)");
  rt.def(
      "get_run_mode",
      [] {
        aclrtRunMode mode = ACL_HOST;
        aclError ret = aclrtGetRunMode(&mode);
        return std::make_tuple(static_cast<int>(mode), ret);
      },
      "aclrtGetRunMode: (run_mode, ret)");
  rt.def("synchronize_device", &aclrtSynchronizeDevice, GIL());
  rt.def("synchronize_device_with_timeout", &aclrtSynchronizeDeviceWithTimeout, GIL(),
         py::arg("timeout"));
  rt.def(
      "set_ts_device", [](int ts) { return aclrtSetTsDevice(static_cast<aclrtTsId>(ts)); },
      py::arg("ts_id"));
  rt.def(
      "get_device_utilization_rate",
      [](int32_t device) {
        aclrtUtilizationInfo info{};
        aclError ret = aclrtGetDeviceUtilizationRate(device, &info);
        py::dict d;
        if (ret == ACL_SUCCESS) {
          d["cube_utilization"] = info.cubeUtilization;
          d["vector_utilization"] = info.vectorUtilization;
          d["aicpu_utilization"] = info.aicpuUtilization;
          d["memory_utilization"] = info.memoryUtilization;
        }
        return py::make_tuple(d, ret);
      },
      py::arg("device_id"), "aclrtGetDeviceUtilizationRate: (dict, ret)");
  rt.def(
      "query_device_status",
      [](int32_t device) {
        aclrtDeviceStatus status = ACL_RT_DEVICE_STATUS_NORMAL;
        aclError ret = aclrtQueryDeviceStatus(device, &status);
        return std::make_tuple(static_cast<int>(status), ret);
      },
      GIL(), py::arg("device_id"), "aclrtQueryDeviceStatus: (status, ret)");
  rt.def(
      "device_can_access_peer",
      [](int32_t device, int32_t peer) {
        int32_t can = 0;
        aclError ret = aclrtDeviceCanAccessPeer(&can, device, peer);
        return std::make_tuple(can, ret);
      },
      GIL(), py::arg("device_id"), py::arg("peer_device_id"));
  rt.def("device_enable_peer_access", &aclrtDeviceEnablePeerAccess, GIL(),
         py::arg("peer_device_id"), py::arg("flags"));
  rt.def("device_disable_peer_access", &aclrtDeviceDisablePeerAccess, GIL(),
         py::arg("peer_device_id"));
  rt.def(
      "peek_at_last_error",
      [](int level) { return aclrtPeekAtLastError(static_cast<aclrtLastErrLevel>(level)); },
      py::arg("level") = 0);
  rt.def(
      "get_last_error",
      [](int level) { return aclrtGetLastError(static_cast<aclrtLastErrLevel>(level)); },
      py::arg("level") = 0);

  // Contexts.
  rt.def(
      "create_context",
      [](int32_t device) {
        aclrtContext ctx = nullptr;
        aclError ret = aclrtCreateContext(&ctx, device);
        return std::make_tuple(ToPtr(ctx), ret);
      },
      GIL(), py::arg("device_id"), "aclrtCreateContext: (context, ret)");
  rt.def(
      "destroy_context", [](Ptr ctx) { return aclrtDestroyContext(FromPtr(ctx)); }, GIL(),
      py::arg("context"));
  rt.def(
      "set_context", [](Ptr ctx) { return aclrtSetCurrentContext(FromPtr(ctx)); }, GIL(),
      py::arg("context"));
  rt.def(
      "get_context",
      [] {
        aclrtContext ctx = nullptr;
        aclError ret = aclrtGetCurrentContext(&ctx);
        return std::make_tuple(ToPtr(ctx), ret);
      },
      "aclrtGetCurrentContext: (context, ret)");
  rt.def(
      "ctx_set_sys_param_opt",
      [](int opt, int64_t value) {
        return aclrtCtxSetSysParamOpt(static_cast<aclSysParamOpt>(opt), value);
      },
      py::arg("opt"), py::arg("value"));
  rt.def(
      "ctx_get_sys_param_opt",
      [](int opt) {
        int64_t value = 0;
        aclError ret = aclrtCtxGetSysParamOpt(static_cast<aclSysParamOpt>(opt), &value);
        return std::make_tuple(value, ret);
      },
      py::arg("opt"));

  // Streams.
  rt.def(
      "create_stream",
      [] {
        aclrtStream s = nullptr;
        aclError ret = aclrtCreateStream(&s);
        return std::make_tuple(ToPtr(s), ret);
      },
      GIL(), "aclrtCreateStream: (stream, ret)");
  rt.def(
      "create_stream_with_config",
      [](uint32_t priority, uint32_t flag) {
        aclrtStream s = nullptr;
        aclError ret = aclrtCreateStreamWithConfig(&s, priority, flag);
        return std::make_tuple(ToPtr(s), ret);
      },
      GIL(), py::arg("priority"), py::arg("flag"));
  rt.def(
      "destroy_stream", [](Ptr s) { return aclrtDestroyStream(FromPtr(s)); }, GIL(),
      py::arg("stream"));
  rt.def(
      "destroy_stream_force", [](Ptr s) { return aclrtDestroyStreamForce(FromPtr(s)); }, GIL(),
      py::arg("stream"));
  rt.def(
      "synchronize_stream", [](Ptr s) { return aclrtSynchronizeStream(FromPtr(s)); }, GIL(),
      py::arg("stream"));
  rt.def(
      "synchronize_stream_with_timeout",
      [](Ptr s, int32_t timeout) { return aclrtSynchronizeStreamWithTimeout(FromPtr(s), timeout); },
      GIL(), py::arg("stream"), py::arg("timeout"));
  rt.def(
      "stream_query",
      [](Ptr s) {
        aclrtStreamStatus status = ACL_STREAM_STATUS_COMPLETE;
        aclError ret = aclrtStreamQuery(FromPtr(s), &status);
        return std::make_tuple(static_cast<int>(status), ret);
      },
      GIL(), py::arg("stream"), "aclrtStreamQuery: (status, ret)");
  rt.def(
      "stream_wait_event",
      [](Ptr s, Ptr e) { return aclrtStreamWaitEvent(FromPtr(s), FromPtr(e)); }, GIL(),
      py::arg("stream"), py::arg("event"));
  rt.def(
      "set_stream_failure_mode",
      [](Ptr s, uint64_t mode) { return aclrtSetStreamFailureMode(FromPtr(s), mode); }, GIL(),
      py::arg("stream"), py::arg("mode"));

  // Events.
  rt.def(
      "create_event",
      [] {
        aclrtEvent e = nullptr;
        aclError ret = aclrtCreateEvent(&e);
        return std::make_tuple(ToPtr(e), ret);
      },
      GIL(), "aclrtCreateEvent: (event, ret)");
  rt.def(
      "create_event_with_flag",
      [](uint32_t flag) {
        aclrtEvent e = nullptr;
        aclError ret = aclrtCreateEventWithFlag(&e, flag);
        return std::make_tuple(ToPtr(e), ret);
      },
      GIL(), py::arg("flag"));
  rt.def(
      "create_event_ex_with_flag",
      [](uint32_t flag) {
        aclrtEvent e = nullptr;
        aclError ret = aclrtCreateEventExWithFlag(&e, flag);
        return std::make_tuple(ToPtr(e), ret);
      },
      GIL(), py::arg("flag"));
  rt.def(
      "destroy_event", [](Ptr e) { return aclrtDestroyEvent(FromPtr(e)); }, GIL(),
      py::arg("event"));
  rt.def(
      "record_event", [](Ptr e, Ptr s) { return aclrtRecordEvent(FromPtr(e), FromPtr(s)); }, GIL(),
      py::arg("event"), py::arg("stream"));
  rt.def(
      "reset_event", [](Ptr e, Ptr s) { return aclrtResetEvent(FromPtr(e), FromPtr(s)); }, GIL(),
      py::arg("event"), py::arg("stream"));
  rt.def(
      "query_event",
      [](Ptr e) {
        aclrtEventStatus status = ACL_EVENT_STATUS_COMPLETE;
        aclError ret = aclrtQueryEvent(FromPtr(e), &status);
        return std::make_tuple(static_cast<int>(status), ret);
      },
      GIL(), py::arg("event"), "aclrtQueryEvent: (status, ret)");
  rt.def(
      "query_event_status",
      [](Ptr e) {
        aclrtEventRecordedStatus status = ACL_EVENT_RECORDED_STATUS_NOT_READY;
        aclError ret = aclrtQueryEventStatus(FromPtr(e), &status);
        return std::make_tuple(static_cast<int>(status), ret);
      },
      GIL(), py::arg("event"), "aclrtQueryEventStatus: (status, ret)");
  rt.def(
      "query_event_wait_status",
      [](Ptr e) {
        aclrtEventWaitStatus status = ACL_EVENT_WAIT_STATUS_COMPLETE;
        aclError ret = aclrtQueryEventWaitStatus(FromPtr(e), &status);
        return std::make_tuple(static_cast<int>(status), ret);
      },
      GIL(), py::arg("event"));
  rt.def(
      "synchronize_event", [](Ptr e) { return aclrtSynchronizeEvent(FromPtr(e)); }, GIL(),
      py::arg("event"));
  rt.def(
      "synchronize_event_with_timeout",
      [](Ptr e, int32_t timeout) { return aclrtSynchronizeEventWithTimeout(FromPtr(e), timeout); },
      GIL(), py::arg("event"), py::arg("timeout"));
  rt.def(
      "event_elapsed_time",
      [](Ptr start, Ptr end) {
        float ms = 0;
        aclError ret = aclrtEventElapsedTime(&ms, FromPtr(start), FromPtr(end));
        return std::make_tuple(ms, ret);
      },
      GIL(), py::arg("start"), py::arg("end"), "aclrtEventElapsedTime: (ms, ret)");
  rt.def(
      "event_get_timestamp",
      [](Ptr e) {
        uint64_t ts = 0;
        aclError ret = aclrtEventGetTimestamp(FromPtr(e), &ts);
        return std::make_tuple(ts, ret);
      },
      GIL(), py::arg("event"));

  // Memory.
  rt.def(
      "malloc",
      [](size_t size, int policy) {
        void* p = nullptr;
        aclError ret = aclrtMalloc(&p, size, static_cast<aclrtMemMallocPolicy>(policy));
        return std::make_tuple(ToPtr(p), ret);
      },
      GIL(), py::arg("size"), py::arg("policy") = 0, "aclrtMalloc: (ptr, ret)");
  rt.def(
      "malloc_align32",
      [](size_t size, int policy) {
        void* p = nullptr;
        aclError ret = aclrtMallocAlign32(&p, size, static_cast<aclrtMemMallocPolicy>(policy));
        return std::make_tuple(ToPtr(p), ret);
      },
      GIL(), py::arg("size"), py::arg("policy") = 0);
  rt.def(
      "malloc_cached",
      [](size_t size, int policy) {
        void* p = nullptr;
        aclError ret = aclrtMallocCached(&p, size, static_cast<aclrtMemMallocPolicy>(policy));
        return std::make_tuple(ToPtr(p), ret);
      },
      GIL(), py::arg("size"), py::arg("policy") = 0);
  rt.def(
      "mem_flush", [](Ptr p, size_t size) { return aclrtMemFlush(FromPtr(p), size); }, GIL(),
      py::arg("ptr"), py::arg("size"));
  rt.def(
      "mem_invalidate", [](Ptr p, size_t size) { return aclrtMemInvalidate(FromPtr(p), size); },
      GIL(), py::arg("ptr"), py::arg("size"));
  rt.def(
      "free", [](Ptr p) { return aclrtFree(FromPtr(p)); }, GIL(), py::arg("ptr"));
  rt.def(
      "malloc_host",
      [](size_t size) {
        void* p = nullptr;
        aclError ret = aclrtMallocHost(&p, size);
        return std::make_tuple(ToPtr(p), ret);
      },
      GIL(), py::arg("size"), "aclrtMallocHost: (ptr, ret)");
  rt.def(
      "free_host", [](Ptr p) { return aclrtFreeHost(FromPtr(p)); }, GIL(), py::arg("ptr"));
  rt.def(
      "memset",
      [](Ptr p, size_t max, int32_t value, size_t count) {
        return aclrtMemset(FromPtr(p), max, value, count);
      },
      GIL(), py::arg("ptr"), py::arg("max_count"), py::arg("value"), py::arg("count"));
  rt.def(
      "memset_async",
      [](Ptr p, size_t max, int32_t value, size_t count, Ptr s) {
        return aclrtMemsetAsync(FromPtr(p), max, value, count, FromPtr(s));
      },
      GIL(), py::arg("ptr"), py::arg("max_count"), py::arg("value"), py::arg("count"),
      py::arg("stream"));
  rt.def(
      "memcpy",
      [](Ptr dst, size_t dst_max, Ptr src, size_t count, int kind) {
        return aclrtMemcpy(FromPtr(dst), dst_max, FromPtr(src), count,
                           static_cast<aclrtMemcpyKind>(kind));
      },
      GIL(), py::arg("dst"), py::arg("dest_max"), py::arg("src"), py::arg("count"),
      py::arg("kind"));
  rt.def(
      "memcpy_async",
      [](Ptr dst, size_t dst_max, Ptr src, size_t count, int kind, Ptr s) {
        return aclrtMemcpyAsync(FromPtr(dst), dst_max, FromPtr(src), count,
                                static_cast<aclrtMemcpyKind>(kind), FromPtr(s));
      },
      GIL(), py::arg("dst"), py::arg("dest_max"), py::arg("src"), py::arg("count"), py::arg("kind"),
      py::arg("stream"));
  rt.def(
      "memcpy_2d",
      [](Ptr dst, size_t dpitch, Ptr src, size_t spitch, size_t width, size_t height, int kind) {
        return aclrtMemcpy2d(FromPtr(dst), dpitch, FromPtr(src), spitch, width, height,
                             static_cast<aclrtMemcpyKind>(kind));
      },
      GIL(), py::arg("dst"), py::arg("dpitch"), py::arg("src"), py::arg("spitch"), py::arg("width"),
      py::arg("height"), py::arg("kind"));
  rt.def(
      "memcpy_2d_async",
      [](Ptr dst, size_t dpitch, Ptr src, size_t spitch, size_t width, size_t height, int kind,
         Ptr s) {
        return aclrtMemcpy2dAsync(FromPtr(dst), dpitch, FromPtr(src), spitch, width, height,
                                  static_cast<aclrtMemcpyKind>(kind), FromPtr(s));
      },
      GIL(), py::arg("dst"), py::arg("dpitch"), py::arg("src"), py::arg("spitch"), py::arg("width"),
      py::arg("height"), py::arg("kind"), py::arg("stream"));
  rt.def(
      "get_mem_info",
      [](int attr) {
        size_t free = 0, total = 0;
        aclError ret = aclrtGetMemInfo(static_cast<aclrtMemAttr>(attr), &free, &total);
        return std::make_tuple(free, total, ret);
      },
      GIL(), py::arg("attr"), "aclrtGetMemInfo: (free, total, ret)");

  // Host callbacks. The thread id is the pthread_t of the thread that calls process_report
  // (acl.util.start_thread returns it).
  rt.def(
      "subscribe_report", [](uint64_t tid, Ptr s) { return aclrtSubscribeReport(tid, FromPtr(s)); },
      GIL(), py::arg("thread_id"), py::arg("stream"));
  rt.def(
      "unsubscribe_report",
      [](uint64_t tid, Ptr s) { return aclrtUnSubscribeReport(tid, FromPtr(s)); }, GIL(),
      py::arg("thread_id"), py::arg("stream"));
  rt.def("process_report", &aclrtProcessReport, GIL(), py::arg("timeout"));
  rt.def(
      "launch_callback",
      [](py::object func, py::object args, int block_type, Ptr stream) {
        if (!PyCallable_Check(func.ptr())) {
          throw py::type_error("acl.rt.launch_callback: the first argument must be callable");
        }
        auto* cb = new PyCallback{std::move(func), std::move(args)};
        aclError ret;
        {
          py::gil_scoped_release release;
          ret = aclrtLaunchCallback(
              &RunPyCallback, cb, static_cast<aclrtCallbackBlockType>(block_type), FromPtr(stream));
        }
        if (ret != ACL_SUCCESS) delete cb;  // never enqueued: nothing will run it
        return ret;
      },
      py::arg("func"), py::arg("args"), py::arg("block_type"), py::arg("stream"),
      "aclrtLaunchCallback: ret; func(args) runs in the thread subscribed to the stream");
  rt.def(
      "launch_host_func",
      [](Ptr stream, py::object func, py::object args) {
        if (!PyCallable_Check(func.ptr())) {
          throw py::type_error("acl.rt.launch_host_func: func must be callable");
        }
        auto* cb = new PyCallback{std::move(func), std::move(args)};
        aclError ret;
        {
          py::gil_scoped_release release;
          ret = aclrtLaunchHostFunc(FromPtr(stream), &RunPyCallback, cb);
        }
        if (ret != ACL_SUCCESS) delete cb;
        return ret;
      },
      py::arg("stream"), py::arg("func"), py::arg("args"));

  // Timeouts and exception information.
  rt.def("set_op_wait_timeout", &aclrtSetOpWaitTimeout, py::arg("timeout"));
  rt.def("set_op_execute_timeout", &aclrtSetOpExecuteTimeOut, py::arg("timeout"));
  rt.def(
      "set_exception_info_callback",
      [](py::object func) {
        std::lock_guard<std::mutex> lock(g_exception_mu);
        delete g_exception_fn;
        g_exception_fn = func.is_none() ? nullptr : new py::object(std::move(func));
        return aclrtSetExceptionInfoCallback(g_exception_fn ? &RunExceptionCallback : nullptr);
      },
      py::arg("func"), "aclrtSetExceptionInfoCallback: func(info_ptr) on a task failure");
  rt.def(
      "get_task_id_from_exception_info",
      [](Ptr info) { return aclrtGetTaskIdFromExceptionInfo(FromPtr<aclrtExceptionInfo>(info)); },
      py::arg("info"));
  rt.def(
      "get_stream_id_from_exception_info",
      [](Ptr info) { return aclrtGetStreamIdFromExceptionInfo(FromPtr<aclrtExceptionInfo>(info)); },
      py::arg("info"));
  rt.def(
      "get_thread_id_from_exception_info",
      [](Ptr info) { return aclrtGetThreadIdFromExceptionInfo(FromPtr<aclrtExceptionInfo>(info)); },
      py::arg("info"));
  rt.def(
      "get_device_id_from_exception_info",
      [](Ptr info) { return aclrtGetDeviceIdFromExceptionInfo(FromPtr<aclrtExceptionInfo>(info)); },
      py::arg("info"));
  rt.def(
      "get_error_code_from_exception_info",
      [](Ptr info) {
        return aclrtGetErrorCodeFromExceptionInfo(FromPtr<aclrtExceptionInfo>(info));
      },
      py::arg("info"));
}

}  // namespace kiln::python
