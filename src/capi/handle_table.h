// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "base/handle_id.h"
#include "base/str_cat.h"
#include "capi/error.h"

namespace kiln::capi {

// The live objects of one C handle type that the C API allocates itself (data buffers, tensor
// descriptors, datasets, ...). The application holds a `Handle*` that is an id from NewHandleId,
// never the object's address, and `Handle` is left an incomplete type, so only this table turns a
// handle into its `Object`: a NULL, foreign, stale or twice-destroyed handle is an error, never a
// crash and never some other live object. Lookups share ownership, so an object stays alive for a
// call that found it even when another thread destroys its handle meanwhile.
template <typename Handle, typename Object>
class HandleTable {
 public:
  // `param` and `type` name the handle in errors ("dataBuffer", "aclDataBuffer").
  HandleTable(const char* param, const char* type) : param_(param), type_(type) {}

  Handle* Add(std::shared_ptr<Object> object) {
    const void* id = NewHandleId();
    std::lock_guard<std::mutex> lock(mu_);
    live_.emplace(id, std::move(object));
    return static_cast<Handle*>(const_cast<void*>(id));
  }
  // The object behind `handle`, or null when the handle is not live.
  std::shared_ptr<Object> Find(const Handle* handle) const {
    if (handle == nullptr) return nullptr;
    std::lock_guard<std::mutex> lock(mu_);
    auto it = live_.find(handle);
    return it == live_.end() ? nullptr : it->second;
  }
  // The object behind `handle`; otherwise records for `api` why not (NULL, or not live) and
  // returns null.
  std::shared_ptr<Object> Live(const char* api, const Handle* handle) const {
    if (handle == nullptr) {
      InvalidParam(api, param_, " is NULL");
      return nullptr;
    }
    std::shared_ptr<Object> object = Find(handle);
    if (object == nullptr) InvalidParam(api, NotLive(handle));
    return object;
  }
  // "<param> 0x... is not a live <type> (destroyed already?)"
  std::string NotLive(const Handle* handle) const {
    return StrCat(param_, " ", PtrStr(handle), " is not a live ", type_, " (destroyed already?)");
  }

  // Ends `handle`: returns its object when it was live (of two threads destroying one handle,
  // exactly one gets it), null otherwise.
  std::shared_ptr<Object> Remove(const Handle* handle) {
    if (handle == nullptr) return nullptr;
    std::lock_guard<std::mutex> lock(mu_);
    auto it = live_.find(handle);
    if (it == live_.end()) return nullptr;
    std::shared_ptr<Object> object = std::move(it->second);
    live_.erase(it);
    return object;
  }

 private:
  const char* param_;
  const char* type_;
  mutable std::mutex mu_;
  std::unordered_map<const void*, std::shared_ptr<Object>> live_;
};

// The process-wide table of one (Handle, Object) pair, made on first use and never destroyed
// (handles may outlive static destruction in applications that exit without cleaning up).
template <typename Handle, typename Object>
HandleTable<Handle, Object>& GlobalTable(const char* param, const char* type) {
  static auto* table = new HandleTable<Handle, Object>(param, type);
  return *table;
}

}  // namespace kiln::capi
