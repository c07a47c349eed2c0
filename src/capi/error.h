// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The one place where a Status becomes an aclError (docs/design.md §7): the code is returned
// unchanged (Kiln's code space is AscendCL's), the message is logged and kept for
// aclGetRecentErrMsg, and the thread's last error is set for aclrtGetLastError.
#pragma once

#include <cstring>
#include <exception>
#include <type_traits>

#include "acl/acl_base.h"
#include "base/status.h"
#include "runtime/profiler.h"

namespace kiln::capi {

// The integer a C caller passed for an enum parameter. C may pass any int; reading it as the
// C++ enum type would be undefined when it lies outside the enumerators' range, so API
// entry points inspect enum arguments only through this.
template <typename E>
int EnumInt(const E& value) {
  static_assert(std::is_enum_v<E>);
  std::underlying_type_t<E> raw;
  std::memcpy(&raw, &value, sizeof raw);
  return static_cast<int>(raw);
}

// Records a failed `status` of `api` and returns its code; returns ACL_SUCCESS for Ok. Never
// throws (a message that cannot be stored for lack of memory is dropped).
aclError Report(const char* api, const Status& status) noexcept;

// Shorthand for the common argument failure.
template <typename... Args>
aclError InvalidParam(const char* api, Args&&... args) noexcept {
  try {
    return Report(api, Error(code::kInvalidParam, std::forward<Args>(args)...));
  } catch (...) {
    return code::kInvalidParam;  // out of memory while formatting: the code still stands
  }
}

// The text for aclGetRecentErrMsg (newest first), then cleared; NULL when there is none.
const char* TakeRecentErrMsg();

// The last error code of this thread (aclrtPeekAtLastError / aclrtGetLastError).
aclError PeekLastError();
aclError TakeLastError();

// Uses the acl.json err_msg_mode (0 thread, 1 process) from now on.
void SetErrMsgMode(int mode);

// Runs `body` and turns any escaping exception into ACL_ERROR_INTERNAL_ERROR: nothing ever
// unwinds into the C caller.
// While the profiler collects ACL_PROF_ACL_API, the call is timed for the API statistics.
template <typename F>
aclError Guard(const char* api, F&& body) noexcept {
  try {
    runtime::ApiTimer timer(api);
    return body();
  } catch (const std::bad_alloc&) {
    return Report(api, Error(code::kBadAlloc, "out of host memory"));
  } catch (const std::exception& e) {
    return Report(api, Error(code::kInternalError, "internal error: ", e.what()));
  } catch (...) {
    return Report(api, Error(code::kInternalError, "internal error"));
  }
}

}  // namespace kiln::capi

// Body of an aclError-returning API function with its catch-all.
#define KILN_CAPI(api, ...) return ::kiln::capi::Guard(api, [&]() -> aclError { __VA_ARGS__ })
