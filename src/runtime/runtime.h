// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The process-wide runtime behind the AscendCL C API: init/finalize, devices, contexts, streams,
// events, memory and host callbacks. Every method is thread-safe and validates its handles
// against the runtime's tables (a stale handle is an error, not a crash). Handles are the
// addresses of the objects in runtime/objects.h.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/status.h"
#include "hal/driver.h"
#include "runtime/config.h"
#include "runtime/objects.h"
#include "runtime/report.h"

namespace kiln::runtime {

// kFreedDevice: inside device memory that was freed (aclrtFree) and is still held by the pool.
enum class MemoryKind { kUnknown, kDevice, kHost, kFreedDevice };

struct PointerInfo {
  MemoryKind kind = MemoryKind::kUnknown;
  int32_t device = -1;
  size_t bytes_from = 0;  // bytes from the pointer to the end of its allocation
};

struct MemInfo {
  uint64_t free = 0;
  uint64_t total = 0;
};

class Runtime {
 public:
  static Runtime& Get();

  // --- init / finalize -------------------------------------------------------------------
  // `config_path` may be null or empty. kRepeatInitialize when already initialised (the
  // reference count still goes up, as CANN's does).
  Status Init(const char* config_path);
  // Resets every device and frees host memory; kRepeatFinalize when not initialised.
  Status Finalize();
  // Drops one Init reference; finalizes at zero. Returns the references left.
  Result<uint64_t> FinalizeReference();
  bool initialized() const;
  Config config() const;
  // kUninitialize unless Init succeeded.
  Status CheckInitialized(const char* api) const;

  // --- devices ---------------------------------------------------------------------------
  uint32_t VisibleDeviceCount();
  Status SetDevice(int32_t id);
  Status ResetDevice(int32_t id, bool force);
  Result<int32_t> CurrentDevice();
  Status SynchronizeDevice(int32_t timeout_ms);
  Result<hal::DeviceInfo> DeviceInfo(int32_t id);
  // The HAL device behind logical device `id`: the opened one, or a probe that opens nothing
  // in the runtime's tables (kRtInvalidDeviceId for an id that is not visible).
  Result<std::shared_ptr<hal::Device>> HalDevice(int32_t id);
  // Name of the current device, or of visible device 0 when the thread has none; "" when no
  // device is visible.
  std::string SocName();
  // Utilisation (%) of compute since the previous query, and of the memory pool.
  Status Utilization(int32_t id, int32_t* compute, int32_t* memory);

  // --- contexts --------------------------------------------------------------------------
  Result<void*> CreateContext(int32_t device);
  Status DestroyContext(void* handle);
  Status SetCurrentContext(void* handle);
  Result<void*> GetCurrentContext();
  Result<std::shared_ptr<Context>> CurrentContext();

  // --- streams ---------------------------------------------------------------------------
  Result<void*> CreateStream(uint32_t priority, uint32_t flags);
  Status DestroyStream(void* handle, bool force);
  // Null means the current context's default stream.
  Result<std::shared_ptr<Stream>> ResolveStream(void* handle);

  // --- events ----------------------------------------------------------------------------
  Result<void*> CreateEvent(uint32_t flags);
  Status DestroyEvent(void* handle);
  Result<std::shared_ptr<Event>> ResolveEvent(void* handle);
  // A bare device event for runtime-internal use (BLOCK callback gates); not a handle.
  Result<std::shared_ptr<hal::Event>> NewInternalEvent(int32_t device);

  // --- memory ----------------------------------------------------------------------------
  Result<void*> Malloc(size_t bytes, bool huge_pages);  // on the current device
  Status Free(void* ptr);
  Result<void*> MallocHost(size_t bytes);
  Status FreeHost(void* ptr);
  PointerInfo Classify(const void* ptr);
  // Copies (memmove) `bytes` between any mix of host and device memory, and fills device or
  // host memory: through the device that owns the memory where the host cannot address it (a
  // GPU: hal::DeviceInfo::host_addressable), plainly otherwise. aclrtMemcpy*, aclrtMemset*
  // and the C API's writes into device buffers (gear values, AIPP parameters) use them.
  void CopyMemory(void* dst, const void* src, size_t bytes);
  void FillMemory(void* dst, int value, size_t bytes);
  Result<MemInfo> GetMemInfo();  // current device
  hal::Allocator* CurrentAllocator();
  // The current context's device: its HAL backend name ("cpu") and memory pool.
  struct DeviceRef {
    int32_t id = 0;
    std::string backend;
    std::shared_ptr<MemoryPool> pool;
    std::shared_ptr<hal::Device> hal;
  };
  Result<DeviceRef> CurrentDeviceRef();

  // --- host callbacks --------------------------------------------------------------------
  ReportHub& reports() { return reports_; }

  // Calls `fn(device)` as each device is reset (and at aclFinalize), after its models are
  // removed and before its memory pool goes: for the layers above that keep objects in a
  // device's memory outside ModelTable (the single-operator models). Never removed.
  void AddResetListener(std::function<void(int32_t)> fn);

 private:
  Runtime() = default;
  Status ResetDeviceLocked(DeviceState& dev, std::unique_lock<std::mutex>& lock);
  Status OpenDeviceLocked(int32_t id);
  Result<std::shared_ptr<Context>> CurrentContextLocked();
  std::shared_ptr<Stream> NewStreamLocked(DeviceState& dev, Context* ctx, uint32_t priority,
                                          uint32_t flags);
  void FinalizeLocked(std::unique_lock<std::mutex>& lock);
  // Physical (driver, index) behind each visible device, after ASCEND_RT_VISIBLE_DEVICES.
  void DiscoverDevicesLocked();
  // kRtInvalidDeviceId unless `id` names a visible device.
  Status CheckDeviceIdLocked(int32_t id);

  mutable std::mutex mu_;
  uint64_t init_refs_ = 0;
  Config config_;
  uint64_t pool_capacity_override_ = 0;  // KILN_DEVICE_MEMORY_LIMIT or acl.json; 0 = default
  struct Physical {
    hal::Driver* driver;
    int index;
  };
  std::vector<Physical> visible_;
  bool discovered_ = false;
  std::unordered_map<int32_t, std::unique_ptr<DeviceState>> devices_;  // opened
  std::unordered_map<const void*, std::shared_ptr<Context>> contexts_;
  std::unordered_map<const void*, std::shared_ptr<Stream>> streams_;
  std::unordered_map<const void*, std::shared_ptr<Event>> events_;
  // An aclrtMallocHost block: its rounded size and the device that allocated it (null: the
  // default host memory of hal::Device, taken with no device current).
  struct HostBlock {
    size_t bytes = 0;
    std::shared_ptr<hal::Device> device;
  };
  std::map<uintptr_t, HostBlock> host_allocations_;  // aclrtMallocHost blocks by address
  static void FreeHostBlock(uintptr_t addr, const HostBlock& block);
  // The opened device the host cannot address that owns `a` or `b` (either may be null), or
  // null: none does, or no such device is open (then without taking the lock).
  std::shared_ptr<hal::Device> ApartDeviceOf(const void* a, const void* b);
  std::atomic<bool> apart_devices_{false};  // a device the host cannot address was opened
  ReportHub reports_;
  std::mutex listeners_mu_;
  std::vector<std::function<void(int32_t)>> reset_listeners_;
};

}  // namespace kiln::runtime
