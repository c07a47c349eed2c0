// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// acl.rt: devices, contexts, streams, events, memory and host callbacks. Every call that can
// wait (synchronise, process_report, reset, destroy, memcpy) releases the GIL, so a callback
// thread that needs it can run meanwhile.
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "python/src/bindings.h"

namespace kiln::python {
namespace {

// One acl.rt.launch_callback / launch_host_func: the Python function and its argument.
struct PyCallback {
  py::object func;
  py::object args;
  uintptr_t stream = 0;
};

// The callbacks enqueued and not yet run, by id; the C library gets the id as its user data.
// The runtime drops a callback without calling it when its stream loses its report thread or is
// destroyed, so an entry is removed either by the run or by ForgetCallbacksOfStream /
// ForgetAllCallbacks after the stream (or AscendCL) is gone: whichever takes it first owns it,
// and a run that finds its entry gone does nothing. Guarded by g_callbacks_mu; the Python
// objects are only released with the GIL held.
std::mutex g_callbacks_mu;
auto& g_callbacks = *new std::map<uint64_t, std::unique_ptr<PyCallback>>();  // never destroyed
uint64_t g_next_callback = 1;

std::unique_ptr<PyCallback> TakeCallback(uint64_t id) {
  std::lock_guard<std::mutex> lock(g_callbacks_mu);
  auto it = g_callbacks.find(id);
  if (it == g_callbacks.end()) return nullptr;
  std::unique_ptr<PyCallback> cb = std::move(it->second);
  g_callbacks.erase(it);
  return cb;
}

void RunPyCallback(void* user_data) {
  if (MustNotEnterPython()) return;  // shutting down: Python code can no longer run
  WithGil([user_data] {
    std::unique_ptr<PyCallback> cb = TakeCallback(reinterpret_cast<uintptr_t>(user_data));
    if (!cb) return;  // its stream was destroyed meanwhile
    try {
      cb->func(cb->args);
    } catch (py::error_already_set& e) {
      // There is no caller to raise into: report it as Python reports errors in threads.
      e.discard_as_unraisable("acl.rt.launch_callback function");
    } catch (const std::exception& e) {
      PyErr_SetString(PyExc_RuntimeError, e.what());
      PyErr_WriteUnraisable(cb->func.ptr());
    }
  });
}

// Registers `func(args)` for `stream`; the id to hand to the C library.
uint64_t AddCallback(py::object func, py::object args, uintptr_t stream) {
  auto cb = std::make_unique<PyCallback>();
  cb->func = std::move(func);
  cb->args = std::move(args);
  cb->stream = stream;
  std::lock_guard<std::mutex> lock(g_callbacks_mu);
  uint64_t id = g_next_callback++;
  g_callbacks[id] = std::move(cb);
  return id;
}

// Releases (with the GIL held) the callbacks that `match` selects.
template <typename Match>
void ForgetCallbacks(Match match) {
  std::vector<std::unique_ptr<PyCallback>> dropped;
  {
    std::lock_guard<std::mutex> lock(g_callbacks_mu);
    for (auto it = g_callbacks.begin(); it != g_callbacks.end();) {
      if (match(*it->second)) {
        dropped.push_back(std::move(it->second));
        it = g_callbacks.erase(it);
      } else {
        ++it;
      }
    }
  }
  // `dropped` goes out of scope here, releasing the Python objects outside the lock.
}

// acl.rt.set_exception_info_callback: the C callback has no user data, so the function is
// process-wide, as in CANN. g_exception_fn is replaced only with the GIL held.
std::mutex g_exception_mu;
py::object* g_exception_fn = nullptr;

// The aclrtExceptionInfo pointers valid right now: those being handed to the Python function.
// Only they may be read by the get_*_from_exception_info functions; any other int is answered
// as the C library answers NULL, instead of being dereferenced.
std::mutex g_info_mu;
std::multiset<uintptr_t>& LiveInfos() {
  static auto* live = new std::multiset<uintptr_t>();
  return *live;
}

void CallExceptionFunction(aclrtExceptionInfo* info);

void RunExceptionCallback(aclrtExceptionInfo* info) {
  if (MustNotEnterPython()) return;
  WithGil([info] { CallExceptionFunction(info); });
}

// The body of RunExceptionCallback, with the GIL held.
void CallExceptionFunction(aclrtExceptionInfo* info) {
  py::object fn;
  {
    std::lock_guard<std::mutex> lock(g_exception_mu);
    if (g_exception_fn == nullptr) return;
    fn = *g_exception_fn;  // a reference of our own: the function may replace the callback
  }
  {
    std::lock_guard<std::mutex> lock(g_info_mu);
    LiveInfos().insert(ToPtr(info));
  }
  try {
    fn(ToPtr(info));
  } catch (py::error_already_set& e) {
    e.discard_as_unraisable("acl.rt exception info callback");
  } catch (const std::exception& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
    PyErr_WriteUnraisable(fn.ptr());
  }
  std::lock_guard<std::mutex> lock(g_info_mu);
  LiveInfos().erase(LiveInfos().find(ToPtr(info)));
}

template <uint32_t (*F)(const aclrtExceptionInfo*)>
uint32_t FromExceptionInfo(Ptr info) {
  {
    std::lock_guard<std::mutex> lock(g_info_mu);
    if (LiveInfos().count(info) == 0) return F(nullptr);
  }
  return F(FromPtr<aclrtExceptionInfo>(info));
}

// Which sides of a copy `kind` says are host memory; for ACL_MEMCPY_DEFAULT (decided by the
// addresses) both, when device memory is host memory too (DeviceMemoryIsHost).
void HostSides(int kind, bool* src_host, bool* dst_host) {
  switch (kind) {
    case ACL_MEMCPY_HOST_TO_HOST:
      *src_host = *dst_host = true;
      return;
    case ACL_MEMCPY_DEFAULT:
      *src_host = *dst_host = DeviceMemoryIsHost();
      return;
    case ACL_MEMCPY_HOST_TO_DEVICE:
    case ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE:
      *src_host = true, *dst_host = false;
      return;
    case ACL_MEMCPY_DEVICE_TO_HOST:
      *src_host = false, *dst_host = true;
      return;
    default:  // device to device (the C library checks device memory), or an invalid kind
      *src_host = *dst_host = false;
  }
}

// The binding's check of a copy's host sides, `dst_extent` / `src_extent` bytes from each. A
// copy the C library will refuse anyway (count > destMax, a bad 2-D geometry) is left to it.
aclError CheckCopy(const char* api, uintptr_t dst, size_t dst_extent, uintptr_t src,
                   size_t src_extent, int kind) {
  bool src_host = false, dst_host = false;
  HostSides(kind, &src_host, &dst_host);
  if (dst_host) {
    if (aclError e = CheckMapped(api, "dst", dst, dst_extent)) return e;
  }
  if (src_host) {
    if (aclError e = CheckMapped(api, "src", src, src_extent)) return e;
  }
  return ACL_SUCCESS;
}

// The bytes a 2-D copy touches from a pointer with `pitch` (false when it overflows).
bool Extent2d(size_t pitch, size_t width, size_t height, size_t* extent) {
  if (width == 0 || height == 0) return false;
  return !__builtin_mul_overflow(height - 1, pitch, extent) &&
         !__builtin_add_overflow(*extent, width, extent);
}

aclError Memcpy2d(const char* api, uintptr_t dst, size_t dpitch, uintptr_t src, size_t spitch,
                  size_t width, size_t height, int kind, aclrtStream stream, bool async) {
  size_t dst_extent = 0, src_extent = 0;
  if (width <= dpitch && width <= spitch && Extent2d(dpitch, width, height, &dst_extent) &&
      Extent2d(spitch, width, height, &src_extent)) {
    if (aclError e = CheckCopy(api, dst, dst_extent, src, src_extent, kind)) return e;
  }
  ReleaseGil release;
  auto k = static_cast<aclrtMemcpyKind>(kind);
  return async ? aclrtMemcpy2dAsync(FromPtr(dst), dpitch, FromPtr(src), spitch, width, height, k,
                                    stream)
               : aclrtMemcpy2d(FromPtr(dst), dpitch, FromPtr(src), spitch, width, height, k);
}

// memset's pointer may be host or device memory (the C library decides by the address): on a
// CPU device both are host-mapped, so the range is checked either way.
aclError Memset(const char* api, uintptr_t p, size_t max, int32_t value, size_t count,
                aclrtStream stream, bool async) {
  if (count <= max && DeviceMemoryIsHost()) {
    if (aclError e = CheckMapped(api, "devPtr", p, count)) return e;
  }
  ReleaseGil release;
  return async ? aclrtMemsetAsync(FromPtr(p), max, value, count, stream)
               : aclrtMemset(FromPtr(p), max, value, count);
}

aclError Memcpy(const char* api, uintptr_t dst, size_t dst_max, uintptr_t src, size_t count,
                int kind, aclrtStream stream, bool async) {
  if (count <= dst_max) {
    if (aclError e = CheckCopy(api, dst, count, src, count, kind)) return e;
  }
  ReleaseGil release;
  auto k = static_cast<aclrtMemcpyKind>(kind);
  return async ? aclrtMemcpyAsync(FromPtr(dst), dst_max, FromPtr(src), count, k, stream)
               : aclrtMemcpy(FromPtr(dst), dst_max, FromPtr(src), count, k);
}

aclError DestroyStream(uintptr_t s, bool force) {
  aclError ret;
  {
    ReleaseGil release;
    ret = force ? aclrtDestroyStreamForce(FromPtr(s)) : aclrtDestroyStream(FromPtr(s));
  }
  if (ret == ACL_SUCCESS && s != 0) ForgetCallbacksOfStream(s);
  return ret;
}

}  // namespace

void ForgetCallbacksOfStream(uintptr_t stream) {
  ForgetCallbacks([stream](const PyCallback& cb) { return cb.stream == stream; });
}

void ForgetAllCallbacks() {
  ForgetCallbacks([](const PyCallback&) { return true; });
}

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
      [](U32 priority, U32 flag) {
        aclrtStream s = nullptr;
        aclError ret = aclrtCreateStreamWithConfig(&s, priority, flag);
        return std::make_tuple(ToPtr(s), ret);
      },
      GIL(), py::arg("priority"), py::arg("flag"));
  rt.def(
      "destroy_stream", [](Ptr s) { return DestroyStream(s, false); }, py::arg("stream"));
  rt.def(
      "destroy_stream_force", [](Ptr s) { return DestroyStream(s, true); }, py::arg("stream"));
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
      [](Ptr s, U64 mode) { return aclrtSetStreamFailureMode(FromPtr(s), mode); }, GIL(),
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
      [](U32 flag) {
        aclrtEvent e = nullptr;
        aclError ret = aclrtCreateEventWithFlag(&e, flag);
        return std::make_tuple(ToPtr(e), ret);
      },
      GIL(), py::arg("flag"));
  rt.def(
      "create_event_ex_with_flag",
      [](U32 flag) {
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
      [](Size size, int policy) {
        void* p = nullptr;
        aclError ret = aclrtMalloc(&p, size, static_cast<aclrtMemMallocPolicy>(policy));
        return std::make_tuple(ToPtr(p), ret);
      },
      GIL(), py::arg("size"), py::arg("policy") = 0, "aclrtMalloc: (ptr, ret)");
  rt.def(
      "malloc_align32",
      [](Size size, int policy) {
        void* p = nullptr;
        aclError ret = aclrtMallocAlign32(&p, size, static_cast<aclrtMemMallocPolicy>(policy));
        return std::make_tuple(ToPtr(p), ret);
      },
      GIL(), py::arg("size"), py::arg("policy") = 0);
  rt.def(
      "malloc_cached",
      [](Size size, int policy) {
        void* p = nullptr;
        aclError ret = aclrtMallocCached(&p, size, static_cast<aclrtMemMallocPolicy>(policy));
        return std::make_tuple(ToPtr(p), ret);
      },
      GIL(), py::arg("size"), py::arg("policy") = 0);
  rt.def(
      "mem_flush", [](Ptr p, Size size) { return aclrtMemFlush(FromPtr(p), size); }, GIL(),
      py::arg("ptr"), py::arg("size"));
  rt.def(
      "mem_invalidate", [](Ptr p, Size size) { return aclrtMemInvalidate(FromPtr(p), size); },
      GIL(), py::arg("ptr"), py::arg("size"));
  rt.def(
      "free", [](Ptr p) { return aclrtFree(FromPtr(p)); }, GIL(), py::arg("ptr"));
  rt.def(
      "malloc_host",
      [](Size size) {
        void* p = nullptr;
        aclError ret = aclrtMallocHost(&p, size);
        return std::make_tuple(ToPtr(p), ret);
      },
      GIL(), py::arg("size"), "aclrtMallocHost: (ptr, ret)");
  rt.def(
      "free_host", [](Ptr p) { return aclrtFreeHost(FromPtr(p)); }, GIL(), py::arg("ptr"));
  rt.def(
      "memset",
      [](Ptr p, Size max, int32_t value, Size count) {
        return Memset("acl.rt.memset", p, max, value, count, nullptr, false);
      },
      py::arg("ptr"), py::arg("max_count"), py::arg("value"), py::arg("count"));
  rt.def(
      "memset_async",
      [](Ptr p, Size max, int32_t value, Size count, Ptr s) {
        return Memset("acl.rt.memset_async", p, max, value, count, FromPtr(s), true);
      },
      py::arg("ptr"), py::arg("max_count"), py::arg("value"), py::arg("count"), py::arg("stream"));
  rt.def(
      "memcpy",
      [](Ptr dst, Size dst_max, Ptr src, Size count, int kind) {
        return Memcpy("acl.rt.memcpy", dst, dst_max, src, count, kind, nullptr, false);
      },
      py::arg("dst"), py::arg("dest_max"), py::arg("src"), py::arg("count"), py::arg("kind"));
  rt.def(
      "memcpy_async",
      [](Ptr dst, Size dst_max, Ptr src, Size count, int kind, Ptr s) {
        return Memcpy("acl.rt.memcpy_async", dst, dst_max, src, count, kind, FromPtr(s), true);
      },
      py::arg("dst"), py::arg("dest_max"), py::arg("src"), py::arg("count"), py::arg("kind"),
      py::arg("stream"));
  // pyACL spells aclrtMemcpy2d as memcpy2d (no underscore before the digit).
  rt.def(
      "memcpy2d",
      [](Ptr dst, Size dpitch, Ptr src, Size spitch, Size width, Size height, int kind) {
        return Memcpy2d("acl.rt.memcpy2d", dst, dpitch, src, spitch, width, height, kind, nullptr,
                        false);
      },
      py::arg("dst"), py::arg("dpitch"), py::arg("src"), py::arg("spitch"), py::arg("width"),
      py::arg("height"), py::arg("kind"));
  rt.def(
      "memcpy2d_async",
      [](Ptr dst, Size dpitch, Ptr src, Size spitch, Size width, Size height, int kind, Ptr s) {
        return Memcpy2d("acl.rt.memcpy2d_async", dst, dpitch, src, spitch, width, height, kind,
                        FromPtr(s), true);
      },
      py::arg("dst"), py::arg("dpitch"), py::arg("src"), py::arg("spitch"), py::arg("width"),
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
      "subscribe_report", [](U64 tid, Ptr s) { return aclrtSubscribeReport(tid, FromPtr(s)); },
      GIL(), py::arg("thread_id"), py::arg("stream"));
  rt.def(
      "unsubscribe_report", [](U64 tid, Ptr s) { return aclrtUnSubscribeReport(tid, FromPtr(s)); },
      GIL(), py::arg("thread_id"), py::arg("stream"));
  rt.def("process_report", &aclrtProcessReport, GIL(), py::arg("timeout"));
  rt.def(
      "launch_callback",
      [](py::object func, py::object args, int block_type, Ptr stream) {
        if (!PyCallable_Check(func.ptr())) {
          throw py::type_error("acl.rt.launch_callback: the first argument must be callable");
        }
        const uint64_t id = AddCallback(std::move(func), std::move(args), stream);
        aclError ret;
        {
          ReleaseGil release;
          ret =
              aclrtLaunchCallback(&RunPyCallback, reinterpret_cast<void*>(id),
                                  static_cast<aclrtCallbackBlockType>(block_type), FromPtr(stream));
        }
        if (ret != ACL_SUCCESS) TakeCallback(id);  // never enqueued: nothing will run it
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
        const uint64_t id = AddCallback(std::move(func), std::move(args), stream);
        aclError ret;
        {
          ReleaseGil release;
          ret = aclrtLaunchHostFunc(FromPtr(stream), &RunPyCallback, reinterpret_cast<void*>(id));
        }
        if (ret != ACL_SUCCESS) TakeCallback(id);
        return ret;
      },
      py::arg("stream"), py::arg("func"), py::arg("args"));

  // Timeouts and exception information.
  rt.def(
      "set_op_wait_timeout", [](U32 timeout) { return aclrtSetOpWaitTimeout(timeout); },
      py::arg("timeout"));
  rt.def(
      "set_op_execute_timeout", [](U32 timeout) { return aclrtSetOpExecuteTimeOut(timeout); },
      py::arg("timeout"));
  rt.def(
      "set_exception_info_callback",
      [](py::object func) {
        // As pyACL: a callable sets it, None (or no argument) clears it, anything else is a
        // TypeError.
        if (!func.is_none() && !PyCallable_Check(func.ptr())) {
          throw py::type_error("acl.rt.set_exception_info_callback: func must be callable or None");
        }
        py::object* old = nullptr;
        aclError ret;
        {
          std::lock_guard<std::mutex> lock(g_exception_mu);
          old = g_exception_fn;
          g_exception_fn = func.is_none() ? nullptr : new py::object(std::move(func));
          ret = aclrtSetExceptionInfoCallback(g_exception_fn ? &RunExceptionCallback : nullptr);
        }
        delete old;  // with the GIL held, outside the lock
        return ret;
      },
      py::arg("func") = py::none(),
      "aclrtSetExceptionInfoCallback: func(info_ptr) on a task failure");
  rt.def("get_task_id_from_exception_info", &FromExceptionInfo<&aclrtGetTaskIdFromExceptionInfo>,
         py::arg("info"));
  rt.def("get_stream_id_from_exception_info",
         &FromExceptionInfo<&aclrtGetStreamIdFromExceptionInfo>, py::arg("info"));
  rt.def("get_thread_id_from_exception_info",
         &FromExceptionInfo<&aclrtGetThreadIdFromExceptionInfo>, py::arg("info"));
  rt.def("get_device_id_from_exception_info",
         &FromExceptionInfo<&aclrtGetDeviceIdFromExceptionInfo>, py::arg("info"));
  rt.def("get_error_code_from_exception_info",
         &FromExceptionInfo<&aclrtGetErrorCodeFromExceptionInfo>, py::arg("info"));
}

}  // namespace kiln::python
