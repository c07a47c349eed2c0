// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <mutex>
#include <unordered_set>

namespace kiln::capi {

// The live objects of one C handle type that the C API allocates itself (data buffers, tensor
// descriptors), so that a NULL, foreign or twice-destroyed handle is an error, not a crash.
template <typename T>
class HandleSet {
 public:
  T* Add(T* object) {
    std::lock_guard<std::mutex> lock(mu_);
    live_.insert(object);
    return object;
  }
  bool Contains(const T* object) const {
    std::lock_guard<std::mutex> lock(mu_);
    return object != nullptr && live_.count(object) != 0;
  }
  // Removes and returns true when `object` was live.
  bool Remove(const T* object) {
    std::lock_guard<std::mutex> lock(mu_);
    return live_.erase(object) != 0;
  }

 private:
  mutable std::mutex mu_;
  std::unordered_set<const T*> live_;
};

}  // namespace kiln::capi
