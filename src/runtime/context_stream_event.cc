// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Contexts, streams and events of the Runtime.
#include "base/log.h"
#include "runtime/runtime.h"

namespace kiln::runtime {

extern thread_local const void* tls_context;

namespace {
// Per-device limits of the reference's larger SoCs (A2/A3), default stream included.
constexpr size_t kMaxStreamsPerDevice = 1984;
constexpr size_t kMaxEventsPerDevice = 65536;

Status StaleHandle(const char* what, const void* handle) {
  return Error(code::kRtInvalidHandle, what, " ", PtrStr(handle),
               " is not a live handle (destroyed, reset with its device, or never created)");
}
}  // namespace

Result<std::shared_ptr<Context>> Runtime::CurrentContextLocked() {
  if (init_refs_ == 0) return Error(code::kUninitialize, "needs aclInit to be called first");
  if (tls_context != nullptr) {
    auto it = contexts_.find(tls_context);
    if (it != contexts_.end()) return it->second;
    return Error(code::kRtContextNull, "the current context ", PtrStr(tls_context),
                 " was destroyed (aclrtDestroyContext or aclrtResetDevice); set a device or "
                 "context again");
  }
  if (init_refs_ > 0 && config_.default_device) {
    // acl.json "defaultDevice": threads that set nothing use that device.
    int32_t id = *config_.default_device;
    KILN_RETURN_IF_ERROR(OpenDeviceLocked(id), "acl.json defaultDevice");
    ++devices_[id]->refcount;
    tls_context = devices_[id]->default_context->handle();
    return devices_[id]->default_context;
  }
  return Error(code::kRtContextNull,
               "no current context on this thread: call aclrtSetDevice or "
               "aclrtSetCurrentContext first");
}

Result<std::shared_ptr<Context>> Runtime::CurrentContext() {
  std::lock_guard<std::mutex> lock(mu_);
  return CurrentContextLocked();
}

Result<void*> Runtime::CreateContext(int32_t device) {
  KILN_RETURN_IF_ERROR(CheckInitialized("aclrtCreateContext"), "");
  std::lock_guard<std::mutex> lock(mu_);
  KILN_RETURN_IF_ERROR(OpenDeviceLocked(device), "");
  DeviceState& dev = *devices_[device];
  auto ctx = std::make_shared<Context>(device, /*is_default=*/false, nullptr);
  ctx->set_default_stream(NewStreamLocked(dev, ctx.get(), 0, 0));
  contexts_[ctx->handle()] = ctx;
  tls_context = ctx->handle();
  return const_cast<void*>(ctx->handle());
}

Status Runtime::DestroyContext(void* handle) {
  if (handle == nullptr) return Error(code::kInvalidParam, "context is NULL");
  std::unique_lock<std::mutex> lock(mu_);
  auto it = contexts_.find(handle);
  if (it == contexts_.end()) return StaleHandle("context", handle);
  std::shared_ptr<Context> ctx = it->second;
  if (ctx->is_default()) {
    return Error(code::kInvalidParam, "context ", PtrStr(handle),
                 " is the default context of device ", ctx->device(),
                 ": it is released by aclrtResetDevice, not aclrtDestroyContext");
  }
  contexts_.erase(it);
  std::vector<std::shared_ptr<Stream>> streams{ctx->default_stream()};
  for (auto s = streams_.begin(); s != streams_.end();) {
    if (s->second->context() == ctx.get()) {
      streams.push_back(s->second);
      s = streams_.erase(s);
    } else {
      ++s;
    }
  }
  if (tls_context == handle) tls_context = nullptr;
  lock.unlock();
  for (auto& s : streams) reports_.ForgetStream(*s);  // all first (see ResetDeviceLocked)
  for (auto& s : streams) (void)s->queue().Synchronize(-1);
  return Status::Ok();
}

Status Runtime::SetCurrentContext(void* handle) {
  KILN_RETURN_IF_ERROR(CheckInitialized("aclrtSetCurrentContext"), "");
  if (handle == nullptr) return Error(code::kInvalidParam, "context is NULL");
  std::lock_guard<std::mutex> lock(mu_);
  if (!contexts_.count(handle)) return StaleHandle("context", handle);
  tls_context = handle;
  return Status::Ok();
}

Result<void*> Runtime::GetCurrentContext() {
  std::lock_guard<std::mutex> lock(mu_);
  KILN_ASSIGN_OR_RETURN(auto ctx, CurrentContextLocked());
  return const_cast<void*>(ctx->handle());
}

Result<void*> Runtime::CreateStream(uint32_t priority, uint32_t flags) {
  KILN_RETURN_IF_ERROR(CheckInitialized("aclrtCreateStream"), "");
  std::lock_guard<std::mutex> lock(mu_);
  KILN_ASSIGN_OR_RETURN(auto ctx, CurrentContextLocked());
  size_t on_device = 0;
  for (auto& [h, s] : streams_) on_device += s->device() == ctx->device();
  for (auto& [h, c] : contexts_) on_device += c->device() == ctx->device();
  if (on_device >= kMaxStreamsPerDevice) {
    return Error(code::kRtNoStreamResource, "device ", ctx->device(), " already has ", on_device,
                 " streams (the limit is ", kMaxStreamsPerDevice, ", default streams included)");
  }
  auto stream = NewStreamLocked(*devices_[ctx->device()], ctx.get(), priority, flags);
  streams_[stream->handle()] = stream;
  return const_cast<void*>(stream->handle());
}

Status Runtime::DestroyStream(void* handle, bool force) {
  if (handle == nullptr) return Error(code::kInvalidParam, "stream is NULL");
  std::shared_ptr<Stream> stream;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = streams_.find(handle);
    if (it == streams_.end()) return StaleHandle("stream", handle);
    stream = it->second;
    streams_.erase(it);
  }
  reports_.ForgetStream(*stream);
  if (force) {
    // Not waiting for a running task; the queue keeps itself alive until it has finished.
    stream->queue().DiscardPending();
    return Status::Ok();
  }
  Status st = stream->queue().Synchronize(-1);
  if (!st.ok()) {
    KILN_LOG(kRuntime, kWarning, "stream ", PtrStr(handle),
             " destroyed with a failed task: ", st.message());
  }
  return Status::Ok();
}

Result<std::shared_ptr<Stream>> Runtime::ResolveStream(void* handle) {
  std::lock_guard<std::mutex> lock(mu_);
  if (init_refs_ == 0) return Error(code::kUninitialize, "needs aclInit to be called first");
  if (handle == nullptr) {
    KILN_ASSIGN_OR_RETURN(auto ctx, CurrentContextLocked());
    return ctx->default_stream();
  }
  auto it = streams_.find(handle);
  if (it == streams_.end()) return StaleHandle("stream", handle);
  return it->second;
}

Result<void*> Runtime::CreateEvent(uint32_t flags) {
  KILN_RETURN_IF_ERROR(CheckInitialized("aclrtCreateEvent"), "");
  std::lock_guard<std::mutex> lock(mu_);
  KILN_ASSIGN_OR_RETURN(auto ctx, CurrentContextLocked());
  size_t on_device = 0;
  for (auto& [h, e] : events_) on_device += e->device() == ctx->device();
  if (on_device >= kMaxEventsPerDevice) {
    return Error(code::kRtNoEventResource, "device ", ctx->device(), " already has ",
                 kMaxEventsPerDevice, " events");
  }
  auto event =
      std::make_shared<Event>(ctx->device(), devices_[ctx->device()]->hal->CreateEvent(), flags);
  events_[event->handle()] = event;
  return const_cast<void*>(event->handle());
}

Status Runtime::DestroyEvent(void* handle) {
  if (handle == nullptr) return Error(code::kInvalidParam, "event is NULL");
  std::lock_guard<std::mutex> lock(mu_);
  if (events_.erase(handle) == 0) return StaleHandle("event", handle);
  return Status::Ok();  // a queue still holding a record or wait keeps the hal event alive
}

Result<std::shared_ptr<hal::Event>> Runtime::NewInternalEvent(int32_t device) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = devices_.find(device);
  if (it == devices_.end())
    return Error(code::kRtInvalidDeviceId, "device ", device, " is not set");
  return it->second->hal->CreateEvent();
}

Result<std::shared_ptr<Event>> Runtime::ResolveEvent(void* handle) {
  if (handle == nullptr) return Error(code::kInvalidParam, "event is NULL");
  std::lock_guard<std::mutex> lock(mu_);
  if (init_refs_ == 0) return Error(code::kUninitialize, "needs aclInit to be called first");
  auto it = events_.find(handle);
  if (it == events_.end()) return StaleHandle("event", handle);
  return it->second;
}

}  // namespace kiln::runtime
