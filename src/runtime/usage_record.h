// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Publishes this process's per-device memory use for other processes (`kiln smi`), in the file
// layout of include/kiln/kiln_usage.h: one mapped record per process, created when the first
// device opens and removed at aclFinalize and at exit. Updates are two atomic stores into the
// mapping (no system call), so the memory pool can publish on every allocation and free.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

struct kilnUsageDevice;

namespace kiln::runtime {

class UsageMapping;

// One device's slot in the record. The pool that owns it stores its byte counts into it; the
// destructor marks the device closed. Only the newest slot of a device writes: a pool that
// outlives its device's reset cannot overwrite, or close, the one the device was reopened with.
// Keeps the mapping alive, so a pool that outlives aclFinalize writes into a record no longer in
// the file system, never into unmapped memory.
class UsageSlot {
 public:
  // `id` < KILN_USAGE_MAX_DEVICES. Becomes the device's writer once UsagePublisher says so.
  UsageSlot(std::shared_ptr<UsageMapping> mapping, int32_t id);
  ~UsageSlot();
  UsageSlot(const UsageSlot&) = delete;
  UsageSlot& operator=(const UsageSlot&) = delete;
  void Set(uint64_t bytes_in_use, uint64_t bytes_reserved);

 private:
  std::shared_ptr<UsageMapping> mapping_;
  int32_t id_;
  kilnUsageDevice* device_;
};

// The process's record. Thread-safe.
class UsagePublisher {
 public:
  static UsagePublisher& Get();
  // The slot of device `id` (pool capacity `capacity`), making the record file on first use.
  // Null when publishing is off (KILN_USAGE_DIR=none), `id` is past KILN_USAGE_MAX_DEVICES or
  // the file cannot be made (said once in the log; the runtime works on without it).
  std::shared_ptr<UsageSlot> OpenDevice(int32_t id, uint64_t capacity);
  // Removes the record file (aclFinalize, exit). Slots still held keep their mapping.
  void Remove();
  // The record file's path while one exists, else "".
  std::string path() const;

 private:
  UsagePublisher() = default;
  mutable std::mutex mu_;
  std::shared_ptr<UsageMapping> mapping_;
  std::string path_;
  bool warned_ = false;
  bool atexit_registered_ = false;
};

}  // namespace kiln::runtime
