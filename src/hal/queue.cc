// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "hal/queue.h"

#include <exception>
#include <new>

namespace kiln::hal {

Status RunWork(const Work& work) noexcept {
  try {
    return work();
  } catch (const std::bad_alloc&) {
    return Error(code::kBadAlloc, "out of host memory in a stream task");
  } catch (const std::exception& e) {
    return Error(code::kInternalError, "a stream task failed: ", e.what());
  } catch (...) {
    return Error(code::kInternalError, "a stream task failed");
  }
}

}  // namespace kiln::hal
