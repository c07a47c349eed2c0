// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The four shapes of a call on a HandleTable object, for the C API's many small create /
// destroy / set / get functions: NULL or dead handles give ACL_ERROR_INVALID_PARAM (set,
// destroy) or the documented default (get), and an object with a `mu` member is locked around
// the setter or getter (the *Locked forms).
#pragma once

#include <memory>
#include <mutex>

#include "acl/acl_base.h"
#include "capi/error.h"
#include "capi/handle_table.h"

namespace kiln::capi {

// Adds `object` (default-constructed when null); null, with the error recorded, when out of
// memory.
template <typename Handle, typename Object>
Handle* CreateHandle(const char* api, HandleTable<Handle, Object>& table,
                     std::shared_ptr<Object> object = nullptr) {
  try {
    return table.Add(object ? std::move(object) : std::make_shared<Object>());
  } catch (...) {
    Report(api, Error(code::kBadAlloc, "out of host memory"));
    return nullptr;
  }
}

template <typename Handle, typename Object>
aclError DestroyHandle(const char* api, HandleTable<Handle, Object>& table, const Handle* h) {
  KILN_CAPI(api, {
    if (h == nullptr) return InvalidParam(api, "the handle is NULL");
    if (table.Remove(h) == nullptr) return InvalidParam(api, table.NotLive(h));
    return ACL_SUCCESS;
  });
}

// `set(object)` (returning an aclError) on the object behind `h`.
template <typename Handle, typename Object, typename F>
aclError SetOnHandle(const char* api, HandleTable<Handle, Object>& table, const Handle* h,
                     F&& set) {
  KILN_CAPI(api, {
    std::shared_ptr<Object> object = table.Live(api, h);
    if (object == nullptr) return ACL_ERROR_INVALID_PARAM;
    return set(*object);
  });
}
template <typename Handle, typename Object, typename F>
aclError SetOnHandleLocked(const char* api, HandleTable<Handle, Object>& table, const Handle* h,
                           F&& set) {
  return SetOnHandle(api, table, h, [&](Object& o) -> aclError {
    std::lock_guard<std::mutex> lock(o.mu);
    return set(o);
  });
}

// `get(object)`, or `fallback` for a NULL or dead handle.
template <typename R, typename Handle, typename Object, typename F>
R GetFromHandle(HandleTable<Handle, Object>& table, const Handle* h, R fallback, F&& get) {
  std::shared_ptr<Object> object = table.Find(h);
  return object == nullptr ? fallback : get(*object);
}
template <typename R, typename Handle, typename Object, typename F>
R GetFromHandleLocked(HandleTable<Handle, Object>& table, const Handle* h, R fallback, F&& get) {
  return GetFromHandle(table, h, fallback, [&](Object& o) -> R {
    std::lock_guard<std::mutex> lock(o.mu);
    return get(o);
  });
}

}  // namespace kiln::capi
