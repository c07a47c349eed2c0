// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The runtime objects behind AscendCL's handles. An application's aclrtContext / aclrtStream /
// aclrtEvent is the handle() of one of these, an id never reused (base/handle_id.h), not its
// address; the Runtime keeps them in tables by handle, so a stale or foreign handle is reported,
// never dereferenced and never taken for a newer object.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>

#include "base/handle_id.h"
#include "hal/device.h"
#include "runtime/memory_pool.h"

namespace kiln::runtime {

class Context;

// An opened (SetDevice'd) device.
struct DeviceState {
  int32_t id = 0;  // logical id, after ASCEND_RT_VISIBLE_DEVICES
  std::shared_ptr<hal::Device> hal;
  std::shared_ptr<MemoryPool> pool;  // shared: an allocation in flight keeps it alive
  int refcount = 0;                  // aclrtSetDevice calls not yet reset
  std::shared_ptr<Context> default_context;
  uint64_t last_busy_ns = 0;  // for utilisation between two queries
  uint64_t last_query_ns = 0;
};

class Stream {
 public:
  Stream(int32_t device, Context* context, std::shared_ptr<hal::Queue> queue, uint32_t priority,
         uint32_t flags)
      : device_(device),
        context_(context),
        queue_(std::move(queue)),
        priority_(priority),
        flags_(flags),
        id_(NextId()) {}
  int32_t device() const { return device_; }
  const void* handle() const { return handle_; }
  // Unique in the process (from 1), never reused: the profiles' stream id.
  uint32_t id() const { return id_; }
  Context* context() const { return context_; }
  hal::Queue& queue() { return *queue_; }
  uint32_t priority() const { return priority_; }
  uint32_t flags() const { return flags_; }
  // pthread_t of the thread subscribed for its callbacks; 0 when none.
  std::atomic<uint64_t> report_thread{0};

 private:
  int32_t device_;
  Context* context_;
  std::shared_ptr<hal::Queue> queue_;
  uint32_t priority_;
  uint32_t flags_;
  uint32_t id_;
  const void* handle_ = NewHandleId();

  static uint32_t NextId() {
    static std::atomic<uint32_t> next{1};
    return next.fetch_add(1, std::memory_order_relaxed);
  }
};

class Context {
 public:
  Context(int32_t device, bool is_default, std::shared_ptr<Stream> default_stream)
      : device_(device), is_default_(is_default), default_stream_(std::move(default_stream)) {}
  int32_t device() const { return device_; }
  const void* handle() const { return handle_; }
  bool is_default() const { return is_default_; }
  const std::shared_ptr<Stream>& default_stream() const { return default_stream_; }
  void set_default_stream(std::shared_ptr<Stream> s) { default_stream_ = std::move(s); }

  void SetSysParam(int option, int64_t value) {
    std::lock_guard<std::mutex> lock(mu_);
    sys_params_[option] = value;
  }
  bool GetSysParam(int option, int64_t* value) const {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = sys_params_.find(option);
    if (it == sys_params_.end()) return false;
    *value = it->second;
    return true;
  }

 private:
  int32_t device_;
  bool is_default_;
  const void* handle_ = NewHandleId();
  std::shared_ptr<Stream> default_stream_;
  mutable std::mutex mu_;
  std::map<int, int64_t> sys_params_;
};

class Event {
 public:
  Event(int32_t device, std::shared_ptr<hal::Event> event, uint32_t flags)
      : device_(device), event_(std::move(event)), flags_(flags) {}
  int32_t device() const { return device_; }
  const void* handle() const { return handle_; }
  const std::shared_ptr<hal::Event>& hal() const { return event_; }
  uint32_t flags() const { return flags_; }

 private:
  int32_t device_;
  std::shared_ptr<hal::Event> event_;
  uint32_t flags_;
  const void* handle_ = NewHandleId();
};

}  // namespace kiln::runtime
