// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "tests/hal/null_driver.h"

#include "tests/hal/guarded_memory.h"

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace kiln::hal::testing {
namespace {

uint64_t NowNs() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::steady_clock::now().time_since_epoch())
                                   .count());
}

class NullAllocator final : public Allocator {
 public:
  Result<void*> Allocate(size_t bytes, size_t alignment, bool) override {
    ++Counters().allocations;
    void* p = std::aligned_alloc(alignment, (bytes + alignment - 1) / alignment * alignment);
    if (p == nullptr) return Error(code::kRtMemoryAllocation, "null device: out of memory");
    return p;
  }
  void Free(void* ptr, size_t) override { std::free(ptr); }
  void Copy(void* dst, const void* src, size_t bytes) override {
    if (bytes) std::memmove(dst, src, bytes);
  }
  void Fill(void* dst, int value, size_t bytes) override {
    if (bytes) std::memset(dst, value, bytes);
  }
};

// Completes on record; a host record stays pending until signalled.
class NullEvent final : public Event {
 public:
  bool recorded() const override { return issued_ > reset_upto_; }
  bool IsComplete() const override { return !host_pending_; }
  Status Synchronize(int32_t timeout_ms) override {
    if (!host_pending_) return Status::Ok();
    return Error(code::kRtEventSyncTimeout, "null device: a host record is pending");
  }
  uint64_t timestamp_ns() const override { return timestamp_ns_; }
  uint64_t issued() const override { return issued_; }
  void Reset(uint64_t upto) override { reset_upto_ = upto; }
  void RecordOnHost() override {
    ++issued_;
    host_pending_ = true;
  }
  void SignalFromHost() override {
    host_pending_ = false;
    timestamp_ns_ = NowNs();
  }
  void Record() {
    ++issued_;
    timestamp_ns_ = NowNs();
  }

 private:
  uint64_t issued_ = 0, reset_upto_ = 0, timestamp_ns_ = 0;
  bool host_pending_ = false;
};

// Runs work as it is submitted, on the submitting thread.
class NullQueue final : public Queue {
 public:
  void Submit(Work work) override {
    if (stop_ && !first_failure_.ok()) return;
    Status st = work();
    if (!st.ok() && first_failure_.ok()) first_failure_ = std::move(st);
  }
  void RecordEvent(std::shared_ptr<Event> event) override {
    static_cast<NullEvent&>(*event).Record();
  }
  void WaitEvent(std::shared_ptr<Event>) override {}  // every queue record is complete
  Status Synchronize(int32_t) override {
    Status st = std::move(first_failure_);
    first_failure_ = Status::Ok();
    return st;
  }
  bool Idle() const override { return true; }
  void SetStopOnFailure(bool stop) override { stop_ = stop; }
  void DiscardPending() override {}

 private:
  Status first_failure_;
  bool stop_ = false;
};

// Serial, but counted: a test sees that the executor ran its kernels through it.
class NullExecution final : public Execution {
 public:
  void Begin() override { ++Counters().executions; }
  void ParallelFor(int64_t n, int64_t grain, FunctionRef<void(int64_t, int64_t)> fn) override {
    ++Counters().parallel_fors;
    if (n > 0) fn(0, n);
  }
};

// The guarded device's execution copies through the guarded memory's lock and records runs
// for replay as a CUDA graph does (GuardedRecorder): a host copy while it records breaks the
// recording, as it does a stream capture.
class GuardedExecution final : public Execution, public GuardedRecorder {
 public:
  void Begin() override { ++Counters().executions; }
  bool host_addressable() const override { return false; }
  void Copy(void* dst, const void* src, size_t bytes) override {
    if (recording_) {
      broken_ = true;
      return;
    }
    GuardedCopy(dst, src, bytes);
  }
  bool BeginRecording() override {
    if (!Counters().record) return false;
    ++Counters().recording_attempts;
    recording_ = true;
    broken_ = false;
    pending_.clear();
    return true;
  }
  bool EndRecording(bool complete) override {
    recording_ = false;
    if (!complete || broken_ || !Counters().keep) {
      pending_.clear();
      return false;
    }
    kept_.swap(pending_);
    pending_.clear();
    ++Counters().recordings;
    return Launch();
  }
  bool Replay() override {
    if (kept_.empty()) return false;
    ++Counters().replays;
    return Launch();
  }
  void Synchronize() override { ++Counters().synchronizes; }
  bool recording() const override { return recording_; }
  void Keep(std::function<Status()> call) override { pending_.push_back(std::move(call)); }
  void* AllocateTensor(size_t bytes) override {
    auto p = GuardedAllocator().Allocate(bytes, 64, false);
    return p.ok() ? *p : nullptr;
  }
  void FreeTensor(void* ptr) override { GuardedAllocator().Free(ptr, 0); }

 private:
  bool Launch() {
    for (const auto& call : kept_) {
      if (!call().ok()) return false;
    }
    return true;
  }

  bool recording_ = false, broken_ = false;
  std::vector<std::function<Status()>> pending_, kept_;
};

class NullDevice final : public Device {
 public:
  // `backend` / `name` override the device's own (a stand-in for another backend).
  explicit NullDevice(bool guarded, std::string backend = "", std::string name = "")
      : guarded_(guarded) {
    info_.backend = !backend.empty() ? backend : guarded ? kGuardedBackend : "null";
    info_.name = !name.empty() ? name : info_.backend;
    info_.host_addressable = !guarded;
    info_.memory_bytes = uint64_t{1} << 30;
    info_.compute_units = 1;
  }
  const DeviceInfo& info() const override { return info_; }
  Allocator& allocator() override {
    return guarded_ ? GuardedAllocator() : static_cast<Allocator&>(allocator_);
  }
  std::shared_ptr<Queue> CreateQueue() override { return std::make_shared<NullQueue>(); }
  std::shared_ptr<Event> CreateEvent() override { return std::make_shared<NullEvent>(); }
  uint64_t busy_ns() const override { return 0; }
  std::unique_ptr<Execution> CreateExecution() override {
    if (guarded_) return std::make_unique<GuardedExecution>();
    return std::make_unique<NullExecution>();
  }

 private:
  bool guarded_;
  DeviceInfo info_;
  NullAllocator allocator_;
};

class NullDriver final : public Driver {
 public:
  NullDriver(int devices, bool guarded, std::string backend = "", std::string device_name = "")
      : devices_(devices),
        guarded_(guarded),
        backend_(std::move(backend)),
        device_name_(std::move(device_name)) {}
  std::string name() const override {
    return !backend_.empty() ? backend_ + "-stand-in" : guarded_ ? kGuardedBackend : "null";
  }
  int DeviceCount() override { return devices_; }
  Result<std::unique_ptr<Device>> OpenDevice(int index) override {
    if (index < 0 || index >= devices_) {
      return Error(code::kRtInvalidDeviceId, "null device ", index, " does not exist");
    }
    return std::unique_ptr<Device>(std::make_unique<NullDevice>(guarded_, backend_, device_name_));
  }

 private:
  int devices_;
  bool guarded_;
  std::string backend_, device_name_;
};

}  // namespace

NullCounters& Counters() {
  static NullCounters* counters = new NullCounters();
  return *counters;
}

std::unique_ptr<Driver> CreateNullDriver(int devices) {
  return std::make_unique<NullDriver>(devices, false);
}

std::unique_ptr<Driver> CreateGuardedDriver() {
  static std::once_flag once;
  std::call_once(once, [] { RegisterGuardedKernels(kernels::KernelRegistry::Global()); });
  return std::make_unique<NullDriver>(1, true);
}

std::unique_ptr<Driver> CreateStandInDriver(const std::string& backend,
                                            const std::string& device_name) {
  return std::make_unique<NullDriver>(1, true, backend, device_name);
}

}  // namespace kiln::hal::testing
