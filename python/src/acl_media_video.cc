// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// acl.media video: the aclvdec* and aclvenc* channels of acl/ops/acl_dvpp.h as pyACL spells
// them (aclvdecSetChannelDescEnType -> acl.media.vdec_set_channel_desc_entype). A channel's
// Python callback is kept per channel description; each send registers a call (that function
// and the send's user_data object) under an id, which the C library gets as its userData. One C
// trampoline per channel type takes the call back by id on the report thread, holding the GIL,
// and runs func(input, output, user_data) with the two descriptions as ints, as pyACL does. The
// C library calls back at most once per send, and not at all for some (an end-of-stream send,
// a frame the encoder emitted nothing for), so calls still registered when their channel is
// destroyed are released then. Sends, channel creation and destruction release the GIL.
#include <pthread.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "python/src/bindings.h"

#ifndef ENABLE_DVPP_INTERFACE
#define ENABLE_DVPP_INTERFACE  // acl_dvpp.h requires it, as CANN's does
#endif
#include "acl/ops/acl_dvpp.h"

namespace kiln::python {
namespace {

enum class Codec { kVdec, kVenc };

// A channel description of one kind, the key of the Python callbacks.
using ChannelKey = std::pair<Codec, uintptr_t>;

// One send waiting for its callback.
struct VideoCall {
  py::object func;
  py::object user_data;
  ChannelKey channel;
};

// Guarded by g_video_mu; Python objects are only released with the GIL held and outside the
// lock (a __del__ may call back into these bindings). Never destroyed, like acl.rt's table, so
// nothing is released after the interpreter has gone.
std::mutex g_video_mu;
auto& g_funcs = *new std::map<ChannelKey, py::object>();  // the callback of each channel desc
auto& g_calls = *new std::map<uint64_t, std::unique_ptr<VideoCall>>();
uint64_t g_next_call = 1;

// Registers a send on `channel` with its user data; 0 when the description has no Python
// callback (then no channel can exist on it, and the C library refuses the send).
uint64_t AddCall(ChannelKey channel, py::object user_data) {
  auto call = std::make_unique<VideoCall>();
  call->user_data = std::move(user_data);
  call->channel = channel;
  std::unique_ptr<VideoCall> unused;
  std::lock_guard<std::mutex> lock(g_video_mu);
  auto f = g_funcs.find(channel);
  if (f == g_funcs.end()) {
    unused = std::move(call);  // released after the lock, with the GIL still held
    return 0;
  }
  call->func = f->second;
  uint64_t id = g_next_call++;
  g_calls[id] = std::move(call);
  return id;
}

std::unique_ptr<VideoCall> TakeCall(uint64_t id) {
  std::lock_guard<std::mutex> lock(g_video_mu);
  auto it = g_calls.find(id);
  if (it == g_calls.end()) return nullptr;
  std::unique_ptr<VideoCall> call = std::move(it->second);
  g_calls.erase(it);
  return call;
}

// Releases (with the GIL held) the calls of `channel` that no callback took.
void ForgetCalls(ChannelKey channel) {
  std::vector<std::unique_ptr<VideoCall>> dropped;
  std::lock_guard<std::mutex> lock(g_video_mu);
  for (auto it = g_calls.begin(); it != g_calls.end();) {
    if (it->second->channel == channel) {
      dropped.push_back(std::move(it->second));
      it = g_calls.erase(it);
    } else {
      ++it;
    }
  }
  // The lock is released before `dropped` (declared first) releases the Python objects.
}

void SetFunc(ChannelKey channel, py::object func) {
  py::object old;
  std::lock_guard<std::mutex> lock(g_video_mu);
  py::object& slot = g_funcs[channel];
  old = std::move(slot);  // released after the lock (declared before it)
  slot = std::move(func);
}

py::object GetFunc(ChannelKey channel) {
  std::lock_guard<std::mutex> lock(g_video_mu);
  auto f = g_funcs.find(channel);
  if (f == g_funcs.end()) return py::none();
  return f->second;
}

void ForgetChannelDesc(ChannelKey channel) {
  ForgetCalls(channel);
  py::object old;
  std::lock_guard<std::mutex> lock(g_video_mu);
  auto f = g_funcs.find(channel);
  if (f == g_funcs.end()) return;
  old = std::move(f->second);
  g_funcs.erase(f);
}

// The C callbacks (the same two for every channel): on the report thread, the send's Python
// function with (input, output, user_data). An exception it raises is reported as Python
// reports errors in threads (sys.unraisablehook); the channel goes on.
template <typename In, typename Out>
void RunVideoCallback(In* input, Out* output, void* user_data, const char* what) {
  if (MustNotEnterPython()) return;  // shutting down: Python code can no longer run
  WithGil([&] {
    std::unique_ptr<VideoCall> call = TakeCall(reinterpret_cast<uintptr_t>(user_data));
    if (!call) return;  // a send the binding did not register, or its channel is gone
    try {
      call->func(ToPtr(input), ToPtr(output), call->user_data);
    } catch (py::error_already_set& e) {
      e.discard_as_unraisable(what);
    } catch (const std::exception& e) {
      PyErr_SetString(PyExc_RuntimeError, e.what());
      PyErr_WriteUnraisable(call->func.ptr());
    }
  });
}

void VdecTrampoline(acldvppStreamDesc* input, acldvppPicDesc* output, void* user_data) {
  RunVideoCallback(input, output, user_data, "acl.media vdec callback");
}

void VencTrampoline(acldvppPicDesc* input, acldvppStreamDesc* output, void* user_data) {
  RunVideoCallback(input, output, user_data, "acl.media venc callback");
}

// Sends one piece: registers the call, runs `send(user data id)` without the GIL, and forgets
// the call when the C library refused it (nothing will call it back).
template <typename Send>
aclError SendWithCall(ChannelKey channel, py::object user_data, Send&& send) {
  const uint64_t id = AddCall(channel, std::move(user_data));
  aclError ret;
  {
    ReleaseGil release;
    ret = send(reinterpret_cast<void*>(id));
  }
  if (ret != ACL_SUCCESS) TakeCall(id);
  return ret;
}

// Destroys a channel: refused on its own report thread (destroy waits for the callbacks that
// thread has to run, so it would never return); after it, the calls no callback took are
// released.
template <typename Desc>
aclError DestroyChannel(const char* api, Codec codec, uintptr_t desc,
                        uint64_t (*thread_of)(const Desc*), aclError (*destroy)(Desc*)) {
  const uint64_t tid = thread_of(FromPtr<Desc>(desc));
  if (tid != 0 && pthread_equal(static_cast<pthread_t>(tid), pthread_self())) {
    return Reject(api,
                  "called on the channel's report thread (from its callback?): it waits for "
                  "callbacks only that thread can run; destroy the channel from another thread");
  }
  aclError ret;
  {
    ReleaseGil release;
    ret = destroy(FromPtr<Desc>(desc));
  }
  if (ret == ACL_SUCCESS) ForgetCalls({codec, desc});
  return ret;
}

py::function CheckCallable(const char* api, const py::object& func) {
  if (!PyCallable_Check(func.ptr())) {
    throw py::type_error(std::string(api) + ": callback must be callable");
  }
  return py::reinterpret_borrow<py::function>(func);
}

// name(handle) -> ret.
template <typename H, aclError (*F)(H*)>
void DefHandleCall(py::module_& m, const char* name, const char* arg, bool release_gil = false) {
  if (release_gil) {
    m.def(
        name, [](Ptr h) { return F(FromPtr<H>(h)); }, GIL(), py::arg(arg));
  } else {
    m.def(
        name, [](Ptr h) { return F(FromPtr<H>(h)); }, py::arg(arg));
  }
}

// name(handle, value) -> ret, for the unsigned setters ("I", "K" or "B" in pyACL).
template <typename H, typename V, aclError (*F)(H*, V)>
void DefSet(py::module_& m, const char* name, const char* handle, const char* value) {
  m.def(
      name, [](Ptr h, Masked<V> v) { return F(FromPtr<H>(h), v); }, py::arg(handle),
      py::arg(value));
}

// name(handle, value) -> ret, for the enum setters ("i" in pyACL).
template <typename H, typename E, aclError (*F)(H*, E)>
void DefSetEnum(py::module_& m, const char* name, const char* handle, const char* value) {
  m.def(
      name, [](Ptr h, int v) { return F(FromPtr<H>(h), static_cast<E>(v)); }, py::arg(handle),
      py::arg(value));
}

// name(handle) -> the getter's value (an int for enums and pointers); the C library answers a
// NULL or dead handle with its documented default.
template <typename H, auto F>
void DefGet(py::module_& m, const char* name, const char* handle) {
  m.def(
      name,
      [](Ptr h) {
        auto v = F(FromPtr<H>(h));
        if constexpr (std::is_enum_v<decltype(v)>) {
          return static_cast<int>(v);
        } else if constexpr (std::is_pointer_v<decltype(v)>) {
          return ToPtr(v);
        } else {
          return v;
        }
      },
      py::arg(handle));
}

void RegisterVdec(py::module_& m) {
  using Desc = aclvdecChannelDesc;
  const char* d = "vdec_channel_desc";
  m.def("vdec_create_channel_desc", [] { return ToPtr(aclvdecCreateChannelDesc()); });
  m.def(
      "vdec_destroy_channel_desc",
      [](Ptr desc) {
        aclError ret = aclvdecDestroyChannelDesc(FromPtr<Desc>(desc));
        if (ret == ACL_SUCCESS) ForgetChannelDesc({Codec::kVdec, desc});
        return ret;
      },
      py::arg(d));
  m.def(
      "vdec_set_channel_desc_callback",
      [](Ptr desc, py::object callback) {
        py::function f = CheckCallable("acl.media.vdec_set_channel_desc_callback", callback);
        aclError ret = aclvdecSetChannelDescCallback(FromPtr<Desc>(desc), &VdecTrampoline);
        if (ret == ACL_SUCCESS) SetFunc({Codec::kVdec, desc}, std::move(f));
        return ret;
      },
      py::arg(d), py::arg("callback"),
      "callback(input_stream_desc, output_pic_desc, user_data) runs on the report thread");
  m.def(
      "vdec_get_channel_desc_callback",
      [](Ptr desc) {
        return GetFunc({Codec::kVdec, desc});
      },
      py::arg(d), "the Python callback set on the description, None when there is none");
  DefSet<Desc, uint32_t, &aclvdecSetChannelDescChannelId>(m, "vdec_set_channel_desc_channel_id", d,
                                                          "channel_id");
  DefSet<Desc, uint64_t, &aclvdecSetChannelDescThreadId>(m, "vdec_set_channel_desc_thread_id", d,
                                                         "thread_id");
  DefSetEnum<Desc, acldvppStreamFormat, &aclvdecSetChannelDescEnType>(
      m, "vdec_set_channel_desc_entype", d, "en_type");
  DefSetEnum<Desc, acldvppPixelFormat, &aclvdecSetChannelDescOutPicFormat>(
      m, "vdec_set_channel_desc_out_pic_format", d, "out_pic_format");
  DefSet<Desc, uint32_t, &aclvdecSetChannelDescOutPicWidth>(
      m, "vdec_set_channel_desc_out_pic_width", d, "out_pic_width");
  DefSet<Desc, uint32_t, &aclvdecSetChannelDescOutPicHeight>(
      m, "vdec_set_channel_desc_out_pic_height", d, "out_pic_height");
  DefSet<Desc, uint32_t, &aclvdecSetChannelDescRefFrameNum>(
      m, "vdec_set_channel_desc_ref_frame_num", d, "ref_frame_num");
  DefSet<Desc, uint32_t, &aclvdecSetChannelDescBitDepth>(m, "vdec_set_channel_desc_bit_depth", d,
                                                         "bit_depth");
  DefSet<Desc, uint32_t, &aclvdecSetChannelDescOutMode>(m, "vdec_set_channel_desc_out_mode", d,
                                                        "out_mode");
  DefGet<Desc, &aclvdecGetChannelDescChannelId>(m, "vdec_get_channel_desc_channel_id", d);
  DefGet<Desc, &aclvdecGetChannelDescThreadId>(m, "vdec_get_channel_desc_thread_id", d);
  DefGet<Desc, &aclvdecGetChannelDescEnType>(m, "vdec_get_channel_desc_entype", d);
  DefGet<Desc, &aclvdecGetChannelDescOutPicFormat>(m, "vdec_get_channel_desc_out_pic_format", d);
  DefGet<Desc, &aclvdecGetChannelDescOutPicWidth>(m, "vdec_get_channel_desc_out_pic_width", d);
  DefGet<Desc, &aclvdecGetChannelDescOutPicHeight>(m, "vdec_get_channel_desc_out_pic_height", d);
  DefGet<Desc, &aclvdecGetChannelDescBitDepth>(m, "vdec_get_channel_desc_bit_depth", d);
  DefGet<Desc, &aclvdecGetChannelDescRefFrameNum>(m, "vdec_get_channel_desc_ref_frame_num", d);
  DefGet<Desc, &aclvdecGetChannelDescOutMode>(m, "vdec_get_channel_desc_out_mode", d);

  m.def("vdec_create_frame_config", [] { return ToPtr(aclvdecCreateFrameConfig()); });
  DefHandleCall<aclvdecFrameConfig, &aclvdecDestroyFrameConfig>(m, "vdec_destroy_frame_config",
                                                                "vdec_frame_config");

  DefHandleCall<Desc, &aclvdecCreateChannel>(m, "vdec_create_channel", d, true);
  m.def(
      "vdec_destroy_channel",
      [](Ptr desc) {
        return DestroyChannel<Desc>("acl.media.vdec_destroy_channel", Codec::kVdec, desc,
                                    &aclvdecGetChannelDescThreadId, &aclvdecDestroyChannel);
      },
      py::arg(d), "ret; waits until every callback has run (not on the report thread)");
  m.def(
      "vdec_send_frame",
      [](Ptr desc, Ptr input, Ptr output, Ptr config, py::object user_data) {
        return SendWithCall({Codec::kVdec, desc}, std::move(user_data), [&](void* id) {
          return aclvdecSendFrame(FromPtr<Desc>(desc), FromPtr<acldvppStreamDesc>(input),
                                  FromPtr<acldvppPicDesc>(output),
                                  FromPtr<aclvdecFrameConfig>(config), id);
        });
      },
      py::arg(d), py::arg("dvpp_stream_desc"), py::arg("dvpp_pic_desc"),
      py::arg("vdec_frame_config"), py::arg("user_data"),
      "ret; the callback gets user_data (any Python object) with this send's descriptions");
  m.def(
      "vdec_send_skipped_frame",
      [](Ptr desc, Ptr input, Ptr config, py::object user_data) {
        return SendWithCall({Codec::kVdec, desc}, std::move(user_data), [&](void* id) {
          return aclvdecSendSkippedFrame(FromPtr<Desc>(desc), FromPtr<acldvppStreamDesc>(input),
                                         FromPtr<aclvdecFrameConfig>(config), id);
        });
      },
      py::arg(d), py::arg("dvpp_stream_desc"), py::arg("vdec_frame_config"), py::arg("user_data"),
      "ret; the callback's output_pic_desc is 0");
}

// venc_set_channel_desc_param(desc, type, param): the callback (a callable), the thread id and
// buffer address (8 bytes) or a uint32 field (4 bytes, also for a type the C library does not
// know, which it refuses).
aclError VencSetParam(uintptr_t desc, int type, const py::object& param) {
  auto* d = FromPtr<aclvencChannelDesc>(desc);
  const auto t = static_cast<aclvencChannelDescParamType>(type);
  try {
    if (type == ACL_VENC_CALLBACK_PTR) {
      py::function f = CheckCallable("acl.media.venc_set_channel_desc_param", param);
      aclvencCallback cb = &VencTrampoline;
      aclError ret = aclvencSetChannelDescParam(d, t, sizeof cb, &cb);
      if (ret == ACL_SUCCESS) SetFunc({Codec::kVenc, desc}, std::move(f));
      return ret;
    }
    if (type == ACL_VENC_THREAD_ID_UINT64 || type == ACL_VENC_BUF_ADDR_PTR) {
      uint64_t v = param.cast<U64>();
      return aclvencSetChannelDescParam(d, t, sizeof v, &v);
    }
    uint32_t v = param.cast<U32>();
    return aclvencSetChannelDescParam(d, t, sizeof v, &v);
  } catch (const py::cast_error&) {
    throw py::type_error("acl.media.venc_set_channel_desc_param: param must be an int");
  }
}

// venc_get_channel_desc_param(desc, type) -> (value, ret); the callback is the Python function.
py::tuple VencGetParam(uintptr_t desc, int type) {
  uint64_t value = 0;  // room for the widest field; the C library says how much it wrote
  size_t size = 0;
  aclError ret = aclvencGetChannelDescParam(FromPtr<aclvencChannelDesc>(desc),
                                            static_cast<aclvencChannelDescParamType>(type),
                                            sizeof value, &size, &value);
  if (type == ACL_VENC_CALLBACK_PTR) {
    return py::make_tuple(ret == ACL_SUCCESS ? GetFunc({Codec::kVenc, desc}) : py::none(), ret);
  }
  if (ret != ACL_SUCCESS) return py::make_tuple(0, ret);
  if (size == sizeof(uint32_t)) {
    uint32_t v32 = 0;
    std::memcpy(&v32, &value, sizeof v32);
    return py::make_tuple(v32, ret);
  }
  return py::make_tuple(value, ret);
}

void RegisterVenc(py::module_& m) {
  using Desc = aclvencChannelDesc;
  const char* d = "venc_channel_desc";
  m.def("venc_create_channel_desc", [] { return ToPtr(aclvencCreateChannelDesc()); });
  m.def(
      "venc_destroy_channel_desc",
      [](Ptr desc) {
        aclError ret = aclvencDestroyChannelDesc(FromPtr<Desc>(desc));
        if (ret == ACL_SUCCESS) ForgetChannelDesc({Codec::kVenc, desc});
        return ret;
      },
      py::arg(d));
  m.def(
      "venc_set_channel_desc_callback",
      [](Ptr desc, py::object callback) {
        py::function f = CheckCallable("acl.media.venc_set_channel_desc_callback", callback);
        aclError ret = aclvencSetChannelDescCallback(FromPtr<Desc>(desc), &VencTrampoline);
        if (ret == ACL_SUCCESS) SetFunc({Codec::kVenc, desc}, std::move(f));
        return ret;
      },
      py::arg(d), py::arg("callback"),
      "callback(input_pic_desc, output_stream_desc, user_data) runs on the report thread; the "
      "stream desc and its data are valid only during the call");
  m.def(
      "venc_get_channel_desc_callback",
      [](Ptr desc) {
        return GetFunc({Codec::kVenc, desc});
      },
      py::arg(d), "the Python callback set on the description, None when there is none");
  DefSet<Desc, uint64_t, &aclvencSetChannelDescThreadId>(m, "venc_set_channel_desc_thread_id", d,
                                                         "thread_id");
  DefSetEnum<Desc, acldvppStreamFormat, &aclvencSetChannelDescEnType>(
      m, "venc_set_channel_desc_entype", d, "en_type");
  DefSetEnum<Desc, acldvppPixelFormat, &aclvencSetChannelDescPicFormat>(
      m, "venc_set_channel_desc_pic_format", d, "pic_format");
  DefSet<Desc, uint32_t, &aclvencSetChannelDescPicWidth>(m, "venc_set_channel_desc_pic_width", d,
                                                         "pic_width");
  DefSet<Desc, uint32_t, &aclvencSetChannelDescPicHeight>(m, "venc_set_channel_desc_pic_height", d,
                                                          "pic_height");
  DefSet<Desc, uint32_t, &aclvencSetChannelDescKeyFrameInterval>(
      m, "venc_set_channel_desc_key_frame_interval", d, "key_frame_interval");
  m.def(
      "venc_set_channel_desc_buf_addr",
      [](Ptr desc, Ptr buf) {
        return aclvencSetChannelDescBufAddr(FromPtr<Desc>(desc), FromPtr(buf));
      },
      py::arg(d), py::arg("buf_addr"));
  DefSet<Desc, uint32_t, &aclvencSetChannelDescBufSize>(m, "venc_set_channel_desc_buf_size", d,
                                                        "buf_size");
  DefSet<Desc, uint32_t, &aclvencSetChannelDescRcMode>(m, "venc_set_channel_desc_rc_mode", d,
                                                       "rc_mode");
  DefSet<Desc, uint32_t, &aclvencSetChannelDescSrcRate>(m, "venc_set_channel_desc_src_rate", d,
                                                        "src_rate");
  DefSet<Desc, uint32_t, &aclvencSetChannelDescMaxBitRate>(m, "venc_set_channel_desc_max_bit_rate",
                                                           d, "max_bit_rate");
  m.def(
      "venc_set_channel_desc_param",
      [](Ptr desc, int type, py::object param) { return VencSetParam(desc, type, param); },
      py::arg(d), py::arg("param_type"), py::arg("param"));
  m.def(
      "venc_get_channel_desc_param", [](Ptr desc, int type) { return VencGetParam(desc, type); },
      py::arg(d), py::arg("param_type"),
      "(value, ret); the value is the callable for the callback");
  DefGet<Desc, &aclvencGetChannelDescBufAddr>(m, "venc_get_channel_desc_buf_addr", d);
  DefGet<Desc, &aclvencGetChannelDescBufSize>(m, "venc_get_channel_desc_buf_size", d);
  DefGet<Desc, &aclvencGetChannelDescChannelId>(m, "venc_get_channel_desc_channel_id", d);
  DefGet<Desc, &aclvencGetChannelDescThreadId>(m, "venc_get_channel_desc_thread_id", d);
  DefGet<Desc, &aclvencGetChannelDescEnType>(m, "venc_get_channel_desc_entype", d);
  DefGet<Desc, &aclvencGetChannelDescPicFormat>(m, "venc_get_channel_desc_pic_format", d);
  DefGet<Desc, &aclvencGetChannelDescPicWidth>(m, "venc_get_channel_desc_pic_width", d);
  DefGet<Desc, &aclvencGetChannelDescPicHeight>(m, "venc_get_channel_desc_pic_height", d);
  DefGet<Desc, &aclvencGetChannelDescKeyFrameInterval>(
      m, "venc_get_channel_desc_key_frame_interval", d);
  DefGet<Desc, &aclvencGetChannelDescRcMode>(m, "venc_get_channel_desc_rc_mode", d);
  DefGet<Desc, &aclvencGetChannelDescSrcRate>(m, "venc_get_channel_desc_src_rate", d);
  DefGet<Desc, &aclvencGetChannelDescMaxBitRate>(m, "venc_get_channel_desc_max_bit_rate", d);

  using Config = aclvencFrameConfig;
  const char* c = "venc_frame_config";
  m.def("venc_create_frame_config", [] { return ToPtr(aclvencCreateFrameConfig()); });
  DefHandleCall<Config, &aclvencDestroyFrameConfig>(m, "venc_destroy_frame_config", c);
  DefSet<Config, uint8_t, &aclvencSetFrameConfigForceIFrame>(
      m, "venc_set_frame_config_force_i_frame", c, "force_i_frame");
  DefSet<Config, uint8_t, &aclvencSetFrameConfigEos>(m, "venc_set_frame_config_eos", c, "eos");
  DefGet<Config, &aclvencGetFrameConfigForceIFrame>(m, "venc_get_frame_config_force_i_frame", c);
  DefGet<Config, &aclvencGetFrameConfigEos>(m, "venc_get_frame_config_eos", c);

  DefHandleCall<Desc, &aclvencCreateChannel>(m, "venc_create_channel", d, true);
  m.def(
      "venc_destroy_channel",
      [](Ptr desc) {
        return DestroyChannel<Desc>("acl.media.venc_destroy_channel", Codec::kVenc, desc,
                                    &aclvencGetChannelDescThreadId, &aclvencDestroyChannel);
      },
      py::arg(d), "ret; waits until every callback has run (not on the report thread)");
  m.def(
      "venc_send_frame",
      [](Ptr desc, Ptr input, Ptr reserve, Ptr config, py::object user_data) {
        return SendWithCall({Codec::kVenc, desc}, std::move(user_data), [&](void* id) {
          return aclvencSendFrame(FromPtr<Desc>(desc), FromPtr<acldvppPicDesc>(input),
                                  FromPtr(reserve), FromPtr<Config>(config), id);
        });
      },
      py::arg(d), py::arg("input"), py::arg("reserve"), py::arg("config"), py::arg("userdata"),
      "ret; the callback gets userdata (any Python object) with this frame's bitstream");
}

}  // namespace

void RegisterMediaVideo(py::module_& media) {
  RegisterVdec(media);
  RegisterVenc(media);
}

}  // namespace kiln::python
