// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Bounded waits for the asynchronous C API tests: every wait a bug could turn into a hang has a
// limit, so such a bug fails the test instead.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "acl/acl.h"

namespace kiln::testing {

constexpr int32_t kSyncTimeoutMs = 5000;  // bounds every aclrt*WithTimeout call of a test
constexpr std::chrono::milliseconds kWaitLimit{5000};
constexpr std::chrono::milliseconds kGateLimit{10000};  // a gate left shut still lets go

// Holds whoever calls Pass (a host function or callback on a stream, or a thread) until the
// test opens the gate.
class Gate {
 public:
  // As an aclrtHostFunc / aclrtCallback with the Gate as its argument.
  static void Pass(void* gate) { static_cast<Gate*>(gate)->Pass(); }

  void Pass() {
    std::unique_lock<std::mutex> lock(mu_);
    entered_ = true;
    cv_.notify_all();
    cv_.wait_for(lock, kGateLimit, [this] { return open_; });
  }
  // True once someone is inside Pass (for a host function: its stream is busy).
  bool WaitUntilEntered() {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, kWaitLimit, [this] { return entered_; });
  }
  void Open() {
    std::lock_guard<std::mutex> lock(mu_);
    open_ = true;
    cv_.notify_all();
  }
  bool is_open() {
    std::lock_guard<std::mutex> lock(mu_);
    return open_;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool entered_ = false;
  bool open_ = false;
};

// Calls `call` on a helper thread and waits at most `limit` for it, so that a call with no
// timeout of its own fails the test instead of hanging it. nullopt when it did not return.
template <typename F>
std::optional<aclError> CallWithin(std::chrono::milliseconds limit, F call) {
  struct State {
    std::mutex mu;
    std::condition_variable cv;
    std::optional<aclError> result;
  };
  auto state = std::make_shared<State>();
  std::thread([state, call] {
    aclError result = call();
    std::lock_guard<std::mutex> lock(state->mu);
    state->result = result;
    state->cv.notify_all();
  }).detach();
  std::unique_lock<std::mutex> lock(state->mu);
  state->cv.wait_for(lock, limit, [&] { return state->result.has_value(); });
  return state->result;
}

}  // namespace kiln::testing
