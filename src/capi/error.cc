// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "capi/error.h"

#include <atomic>
#include <deque>
#include <mutex>
#include <string>

#include "base/log.h"

namespace kiln::capi {
namespace {

constexpr size_t kMaxKept = 16;  // messages kept per scope before the oldest are dropped

struct Messages {
  std::deque<std::string> items;  // newest last
};

thread_local Messages tls_messages;
thread_local std::string tls_returned;  // backs the pointer aclGetRecentErrMsg returns
thread_local aclError tls_last_error = ACL_SUCCESS;
std::mutex process_mu;
Messages* process_messages = new Messages();  // err_msg_mode 1
std::atomic<int> err_msg_mode{0};

// CANN prefixes messages with an error-manager code: EH0001 for an invalid parameter, EH9999
// for other AscendCL errors, EE9999 for runtime errors (1x07xx / 2x07xx / 5x07xx codes).
const char* Family(int code) {
  if (code == code::kInvalidParam) return "EH0001";
  if ((code / 1000) % 100 == 7) return "EE9999";
  return "EH9999";
}

}  // namespace

void SetErrMsgMode(int mode) { err_msg_mode.store(mode); }

// Logs the failure and keeps its message for aclGetRecentErrMsg (may throw bad_alloc).
static void Store(const char* api, const Status& status) {
  std::string text = StrCat(Family(status.code()), ": ", api, ": ", status.message(), " [aclError ",
                            status.code(), "]");
  if (log::Enabled(log::Module::kAscendCl, log::Level::kError)) {
    log::Write(log::Module::kAscendCl, log::Level::kError, __FILE__, __LINE__, api, text);
  }
  Messages* target = &tls_messages;
  std::unique_lock<std::mutex> lock(process_mu, std::defer_lock);
  if (err_msg_mode.load() == 1) {
    lock.lock();
    target = process_messages;
  }
  target->items.push_back(std::move(text));
  if (target->items.size() > kMaxKept) target->items.pop_front();
  tls_last_error = status.code();
}

aclError Report(const char* api, const Status& status) noexcept {
  if (status.ok()) return ACL_SUCCESS;
  try {
    Store(api, status);
  } catch (...) {
    tls_last_error = status.code();
  }
  return status.code();
}

const char* TakeRecentErrMsg() {
  Messages* source = &tls_messages;
  std::unique_lock<std::mutex> lock(process_mu, std::defer_lock);
  if (err_msg_mode.load() == 1) {
    lock.lock();
    source = process_messages;
  }
  if (source->items.empty()) return nullptr;
  tls_returned.clear();
  for (auto it = source->items.rbegin(); it != source->items.rend(); ++it) {
    if (!tls_returned.empty()) tls_returned += '\n';
    tls_returned += *it;
  }
  source->items.clear();
  return tls_returned.c_str();
}

aclError PeekLastError() { return tls_last_error; }

aclError TakeLastError() {
  aclError e = tls_last_error;
  tls_last_error = ACL_SUCCESS;
  return e;
}

}  // namespace kiln::capi
