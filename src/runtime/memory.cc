// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Device and host memory of the Runtime.
#include <cstdlib>
#include <cstring>

#include "runtime/runtime.h"

namespace kiln::runtime {

Result<void*> Runtime::Malloc(size_t bytes, bool huge_pages) {
  KILN_RETURN_IF_ERROR(CheckInitialized("aclrtMalloc"), "");
  std::shared_ptr<MemoryPool> pool;
  {
    std::lock_guard<std::mutex> lock(mu_);
    KILN_ASSIGN_OR_RETURN(auto ctx, CurrentContextLocked());
    pool = devices_[ctx->device()]->pool;
  }
  return pool->Allocate(bytes, huge_pages);
}

Result<Runtime::DeviceRef> Runtime::CurrentDeviceRef() {
  std::lock_guard<std::mutex> lock(mu_);
  KILN_ASSIGN_OR_RETURN(auto ctx, CurrentContextLocked());
  const auto& dev = devices_[ctx->device()];
  return DeviceRef{ctx->device(), dev->hal->info().backend, dev->pool, dev->hal};
}

Status Runtime::Free(void* ptr) {
  if (ptr == nullptr) return Error(code::kInvalidParam, "devPtr is NULL");
  std::lock_guard<std::mutex> lock(mu_);
  if (init_refs_ == 0)
    return Error(code::kUninitialize, "aclrtFree needs aclInit to be called first");
  for (auto& [id, dev] : devices_) {
    if (dev->pool->BytesFrom(ptr) != 0) return dev->pool->Free(ptr);
  }
  if (host_allocations_.count(reinterpret_cast<uintptr_t>(ptr))) {
    return Error(code::kInvalidParam, "address ", PtrStr(ptr),
                 " is host memory from aclrtMallocHost: free it with aclrtFreeHost");
  }
  return Error(code::kInvalidParam, "address ", PtrStr(ptr),
               " is not device memory from aclrtMalloc (already freed, or its device was reset)");
}

// Host memory comes from the current device where there is one (page-locked on a GPU), so
// copies between it and that device run at full speed; otherwise it is ordinary memory.
Result<void*> Runtime::MallocHost(size_t bytes) {
  KILN_RETURN_IF_ERROR(CheckInitialized("aclrtMallocHost"), "");
  if (bytes == 0) return Error(code::kInvalidParam, "size 0 is invalid");
  if (bytes > SIZE_MAX - 64) return Error(code::kBadAlloc, "size ", bytes, " cannot be allocated");
  HostBlock block;
  block.bytes = (bytes + 63) / 64 * 64;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto ctx = CurrentContextLocked(); ctx.ok()) block.device = devices_[(*ctx)->device()]->hal;
  }
  KILN_ASSIGN_OR_RETURN(void* ptr, block.device ? block.device->AllocateHost(block.bytes)
                                                : hal::AllocateHostMemory(block.bytes));
  std::lock_guard<std::mutex> lock(mu_);
  host_allocations_[reinterpret_cast<uintptr_t>(ptr)] = std::move(block);
  return ptr;
}

void Runtime::FreeHostBlock(uintptr_t addr, const HostBlock& block) {
  void* ptr = reinterpret_cast<void*>(addr);
  if (block.device) {
    block.device->FreeHost(ptr);
  } else {
    hal::FreeHostMemory(ptr);
  }
}

Status Runtime::FreeHost(void* ptr) {
  if (ptr == nullptr) return Error(code::kInvalidParam, "hostPtr is NULL");
  std::lock_guard<std::mutex> lock(mu_);
  auto it = host_allocations_.find(reinterpret_cast<uintptr_t>(ptr));
  if (it == host_allocations_.end()) {
    return Error(code::kInvalidParam, "address ", PtrStr(ptr),
                 " is not host memory from aclrtMallocHost (already freed?)");
  }
  FreeHostBlock(it->first, it->second);
  host_allocations_.erase(it);
  return Status::Ok();
}

std::shared_ptr<hal::Device> Runtime::ApartDeviceOf(const void* a, const void* b) {
  if (!apart_devices_.load(std::memory_order_acquire)) return nullptr;
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& [id, dev] : devices_) {
    if (dev->hal->info().host_addressable) continue;
    if ((a != nullptr && dev->pool->BytesFrom(a) != 0) ||
        (b != nullptr && dev->pool->BytesFrom(b) != 0)) {
      return dev->hal;
    }
  }
  return nullptr;
}

void Runtime::CopyMemory(void* dst, const void* src, size_t bytes) {
  if (bytes == 0) return;
  if (auto device = ApartDeviceOf(dst, src)) {
    device->allocator().Copy(dst, src, bytes);
  } else {
    std::memmove(dst, src, bytes);
  }
}

void Runtime::FillMemory(void* dst, int value, size_t bytes) {
  if (bytes == 0) return;
  if (auto device = ApartDeviceOf(dst, nullptr)) {
    device->allocator().Fill(dst, value, bytes);
  } else {
    std::memset(dst, value, bytes);
  }
}

PointerInfo Runtime::Classify(const void* ptr) {
  PointerInfo info;
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& [id, dev] : devices_) {
    size_t left = dev->pool->BytesFrom(ptr);
    if (left != 0) return PointerInfo{MemoryKind::kDevice, id, left};
  }
  auto addr = reinterpret_cast<uintptr_t>(ptr);
  auto it = host_allocations_.upper_bound(addr);
  if (it != host_allocations_.begin()) {
    --it;
    if (addr < it->first + it->second.bytes) {
      return PointerInfo{MemoryKind::kHost, -1, it->first + it->second.bytes - addr};
    }
  }
  for (auto& [id, dev] : devices_) {
    if (dev->pool->WasFreed(ptr)) return PointerInfo{MemoryKind::kFreedDevice, id, 0};
  }
  return info;
}

Result<MemInfo> Runtime::GetMemInfo() {
  std::lock_guard<std::mutex> lock(mu_);
  KILN_ASSIGN_OR_RETURN(auto ctx, CurrentContextLocked());
  PoolStats stats = devices_[ctx->device()]->pool->stats();
  return MemInfo{stats.capacity - stats.live_bytes, stats.capacity};
}

hal::Allocator* Runtime::CurrentAllocator() {
  std::lock_guard<std::mutex> lock(mu_);
  auto ctx = CurrentContextLocked();
  if (!ctx.ok()) return nullptr;
  return &devices_[(*ctx)->device()]->hal->allocator();
}

}  // namespace kiln::runtime
