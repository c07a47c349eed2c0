// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Memory: device allocation (through the device's caching pool), host allocation, copies and
// fills. Copies check what the kind claims against where each pointer really lives, and that
// the copy stays inside the allocation, so a bug that would corrupt an NPU's memory is an error
// here too.
#include <cstring>
#include <mutex>
#include <unordered_set>

#include "acl/acl.h"
#define ENABLE_DVPP_INTERFACE
#include "acl/ops/acl_dvpp.h"
#include "capi/error.h"
#include "capi/model_handles.h"
#include "runtime/runtime.h"

using kiln::capi::InvalidParam;
using kiln::capi::Report;
using kiln::runtime::MemoryKind;
using kiln::runtime::PointerInfo;
using kiln::runtime::Runtime;

namespace {

constexpr size_t kHugeFirstThreshold = size_t{1} << 20;  // ACL_MEM_MALLOC_HUGE_FIRST: > 1 MiB
constexpr size_t kHugeDefaultThreshold = size_t{2} << 20;
constexpr uint32_t kPolicyFlagBits =
    ACL_MEM_TYPE_LOW_BAND_WIDTH | ACL_MEM_TYPE_HIGH_BAND_WIDTH | ACL_MEM_ACCESS_USER_SPACE_READONLY;

enum class Padding { kAlignUp32Plus32, kAlignUp32 };

bool WantsHugePages(uint32_t policy, size_t size) {
  switch (policy & ~kPolicyFlagBits) {
    case ACL_MEM_MALLOC_HUGE_FIRST:
    case ACL_MEM_MALLOC_HUGE_FIRST_P2P:
      return size > kHugeFirstThreshold;
    case ACL_MEM_MALLOC_HUGE_ONLY:
    case ACL_MEM_MALLOC_HUGE_ONLY_P2P:
    case ACL_MEM_MALLOC_HUGE1G_ONLY:
    case ACL_MEM_MALLOC_HUGE1G_ONLY_P2P:
      return true;
    case ACL_MEM_MALLOC_NORMAL_ONLY:
    case ACL_MEM_MALLOC_NORMAL_ONLY_P2P:
      return false;
    default:  // out of range: huge pages from 2 MiB (the reference's rule)
      return size >= kHugeDefaultThreshold;
  }
}

// AscendCL's real size: ALIGN_UP(size, 32) + 32 (aclrtMalloc) or ALIGN_UP(size, 32).
size_t PaddedSize(size_t size, Padding padding) {
  return (size + 31) / 32 * 32 + (padding == Padding::kAlignUp32Plus32 ? 32 : 0);
}

aclError DeviceMalloc(const char* api, void** devPtr, size_t size, aclrtMemMallocPolicy policy,
                      Padding padding) {
  if (devPtr == nullptr) return InvalidParam(api, "devPtr is NULL");
  *devPtr = nullptr;
  if (size == 0) return InvalidParam(api, "value 0 for size is invalid: size must be > 0");
  if (size > SIZE_MAX - 64) {
    return Report(api, kiln::Error(kiln::code::kRtMemoryAllocation, "size ", size,
                                   " is larger than any device"));
  }
  auto ptr = Runtime::Get().Malloc(
      PaddedSize(size, padding),
      WantsHugePages(static_cast<uint32_t>(kiln::capi::EnumInt(policy)), size));
  if (!ptr.ok()) return Report(api, ptr.status());
  *devPtr = *ptr;
  return ACL_SUCCESS;
}

const char* KindName(int kind) {
  switch (kind) {
    case ACL_MEMCPY_HOST_TO_HOST:
      return "ACL_MEMCPY_HOST_TO_HOST";
    case ACL_MEMCPY_HOST_TO_DEVICE:
      return "ACL_MEMCPY_HOST_TO_DEVICE";
    case ACL_MEMCPY_DEVICE_TO_HOST:
      return "ACL_MEMCPY_DEVICE_TO_HOST";
    case ACL_MEMCPY_DEVICE_TO_DEVICE:
      return "ACL_MEMCPY_DEVICE_TO_DEVICE";
    case ACL_MEMCPY_DEFAULT:
      return "ACL_MEMCPY_DEFAULT";
    case ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE:
      return "ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE";
    case ACL_MEMCPY_INNER_DEVICE_TO_DEVICE:
      return "ACL_MEMCPY_INNER_DEVICE_TO_DEVICE";
    case ACL_MEMCPY_INTER_DEVICE_TO_DEVICE:
      return "ACL_MEMCPY_INTER_DEVICE_TO_DEVICE";
  }
  return nullptr;
}

// Where `kind` says src and dst live: 'h' host, 'd' device, '*' either.
bool KindSides(int kind, char* src, char* dst) {
  switch (kind) {
    case ACL_MEMCPY_HOST_TO_HOST:
      *src = 'h', *dst = 'h';
      return true;
    case ACL_MEMCPY_HOST_TO_DEVICE:
    case ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE:
      *src = 'h', *dst = 'd';
      return true;
    case ACL_MEMCPY_DEVICE_TO_HOST:
      *src = 'd', *dst = 'h';
      return true;
    case ACL_MEMCPY_DEVICE_TO_DEVICE:
    case ACL_MEMCPY_INNER_DEVICE_TO_DEVICE:
    case ACL_MEMCPY_INTER_DEVICE_TO_DEVICE:
      *src = 'd', *dst = 'd';
      return true;
    case ACL_MEMCPY_DEFAULT:
      *src = '*', *dst = '*';
      return true;
  }
  return false;
}

// Checks that `ptr` is where `side` says and that `extent` bytes from it stay inside its
// allocation when it is device memory.
kiln::Status CheckSide(const char* name, const void* ptr, char side, size_t extent,
                       const char* kind_name) {
  PointerInfo info = Runtime::Get().Classify(ptr);
  if (info.kind == MemoryKind::kFreedDevice) {
    return kiln::Error(kiln::code::kInvalidParam, name, " ", kiln::PtrStr(ptr),
                       " points into device memory that was freed (aclrtFree) on device ",
                       info.device);
  }
  bool is_device = info.kind == MemoryKind::kDevice;
  if (side == 'd' && !is_device) {
    return kiln::Error(kiln::code::kInvalidParam, name, " ", kiln::PtrStr(ptr),
                       " is not device memory from aclrtMalloc, but ", kind_name, " says it is");
  }
  if (side == 'h' && is_device) {
    return kiln::Error(kiln::code::kInvalidParam, name, " ", kiln::PtrStr(ptr),
                       " is device memory (device ", info.device, "), but ", kind_name,
                       " says it is host memory");
  }
  if (is_device && extent > info.bytes_from) {
    return kiln::Error(kiln::code::kInvalidParam, name, " ", kiln::PtrStr(ptr), ": ", extent,
                       " bytes overrun its allocation, which has ", info.bytes_from,
                       " bytes from that address");
  }
  return kiln::Status::Ok();
}

// Validates a copy; the extents are the bytes touched from dst and src.
kiln::Status CheckCopy(void* dst, const void* src, size_t dst_extent, size_t src_extent, int kind) {
  char src_side, dst_side;
  if (!KindSides(kind, &src_side, &dst_side)) {
    return kiln::Error(kiln::code::kInvalidParam, "kind ", kind, " is not an aclrtMemcpyKind");
  }
  if (dst == nullptr || src == nullptr) {
    return kiln::Error(kiln::code::kInvalidParam, dst == nullptr ? "dst" : "src", " is NULL");
  }
  KILN_RETURN_IF_ERROR(CheckSide("dst", dst, dst_side, dst_extent, KindName(kind)), "");
  KILN_RETURN_IF_ERROR(CheckSide("src", src, src_side, src_extent, KindName(kind)), "");
  return kiln::Status::Ok();
}

kiln::Status CheckLinearCopy(void* dst, size_t destMax, const void* src, size_t count, int kind) {
  if (count > destMax) {
    return kiln::Error(kiln::code::kInvalidParam, "count ", count, " exceeds destMax ", destMax);
  }
  return CheckCopy(dst, src, count, count, kind);
}

kiln::Status Check2dCopy(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                         size_t height, int kind) {
  if (width == 0 || height == 0) {
    return kiln::Error(kiln::code::kInvalidParam, "width ", width, " and height ", height,
                       " must both be > 0");
  }
  if (width > dpitch || width > spitch) {
    return kiln::Error(kiln::code::kInvalidParam, "width ", width,
                       " is larger than a pitch (dpitch ", dpitch, ", spitch ", spitch, ")");
  }
  size_t dst_extent, src_extent;
  if (__builtin_mul_overflow(height - 1, dpitch, &dst_extent) ||
      __builtin_add_overflow(dst_extent, width, &dst_extent) ||
      __builtin_mul_overflow(height - 1, spitch, &src_extent) ||
      __builtin_add_overflow(src_extent, width, &src_extent)) {
    return kiln::Error(kiln::code::kInvalidParam, "height ", height, " rows of pitch ", dpitch, "/",
                       spitch, " do not fit in the address space");
  }
  return CheckCopy(dst, src, dst_extent, src_extent, kind);
}

void Copy2d(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height) {
  auto* d = static_cast<unsigned char*>(dst);
  const auto* s = static_cast<const unsigned char*>(src);
  for (size_t row = 0; row < height; ++row) {
    Runtime::Get().CopyMemory(d + row * dpitch, s + row * spitch, width);
  }
}

kiln::Status CheckFill(void* devPtr, size_t maxCount, size_t count) {
  if (devPtr == nullptr) return kiln::Error(kiln::code::kInvalidParam, "devPtr is NULL");
  if (count > maxCount) {
    return kiln::Error(kiln::code::kInvalidParam, "count ", count, " exceeds maxCount ", maxCount);
  }
  // Host or device memory (decided by the address); device memory must hold `count` bytes.
  return CheckSide("devPtr", devPtr, '*', count, "aclrtMemset");
}

}  // namespace

void* kiln::capi::MallocForCaller(size_t size) {
  if (size == 0 || size > SIZE_MAX - 64) return nullptr;
  auto ptr = Runtime::Get().Malloc(PaddedSize(size, Padding::kAlignUp32Plus32),
                                   WantsHugePages(ACL_MEM_MALLOC_HUGE_FIRST, size));
  return ptr.ok() ? *ptr : nullptr;
}

extern "C" {

aclError aclrtMalloc(void** devPtr, size_t size, aclrtMemMallocPolicy policy) {
  KILN_CAPI("aclrtMalloc", {
    return DeviceMalloc("aclrtMalloc", devPtr, size, policy, Padding::kAlignUp32Plus32);
  });
}

aclError aclrtMallocAlign32(void** devPtr, size_t size, aclrtMemMallocPolicy policy) {
  KILN_CAPI("aclrtMallocAlign32", {
    return DeviceMalloc("aclrtMallocAlign32", devPtr, size, policy, Padding::kAlignUp32);
  });
}

aclError aclrtMallocCached(void** devPtr, size_t size, aclrtMemMallocPolicy policy) {
  KILN_CAPI("aclrtMallocCached", {
    return DeviceMalloc("aclrtMallocCached", devPtr, size, policy, Padding::kAlignUp32Plus32);
  });
}

aclError aclrtMemFlush(void* devPtr, size_t size) {
  KILN_CAPI("aclrtMemFlush", {
    if (devPtr == nullptr || size == 0)
      return InvalidParam("aclrtMemFlush", "devPtr is NULL or size is 0");
    // CPU device memory is coherent with the host: after the range check there is nothing to
    // write back.
    return Report("aclrtMemFlush", CheckSide("devPtr", devPtr, 'd', size, "aclrtMemFlush"));
  });
}

aclError aclrtMemInvalidate(void* devPtr, size_t size) {
  KILN_CAPI("aclrtMemInvalidate", {
    if (devPtr == nullptr || size == 0) {
      return InvalidParam("aclrtMemInvalidate", "devPtr is NULL or size is 0");
    }
    return Report("aclrtMemInvalidate",
                  CheckSide("devPtr", devPtr, 'd', size, "aclrtMemInvalidate"));
  });
}

// DVPP memory is device memory that acldvppFree alone releases: the addresses acldvppMalloc gave
// and no free has released since.
static std::mutex g_dvpp_mu;
static auto& g_dvpp_blocks = *new std::unordered_set<void*>();  // never destroyed

aclError aclrtFree(void* devPtr) {
  KILN_CAPI("aclrtFree", {
    kiln::Status st = Runtime::Get().Free(devPtr);
    if (st.ok()) {  // a DVPP block freed this way is no longer one
      std::lock_guard<std::mutex> lock(g_dvpp_mu);
      g_dvpp_blocks.erase(devPtr);
    }
    return Report("aclrtFree", st);
  });
}

aclError acldvppMalloc(void** devPtr, size_t size) {
  KILN_CAPI("acldvppMalloc", {
    aclError rc = DeviceMalloc("acldvppMalloc", devPtr, size, ACL_MEM_MALLOC_HUGE_FIRST,
                               Padding::kAlignUp32Plus32);
    if (rc != ACL_SUCCESS) return rc;
    std::lock_guard<std::mutex> lock(g_dvpp_mu);
    g_dvpp_blocks.insert(*devPtr);
    return ACL_SUCCESS;
  });
}

aclError acldvppFree(void* devPtr) {
  KILN_CAPI("acldvppFree", {
    if (devPtr == nullptr) return InvalidParam("acldvppFree", "devPtr is NULL");
    std::lock_guard<std::mutex> lock(g_dvpp_mu);
    if (g_dvpp_blocks.count(devPtr) == 0) {
      return InvalidParam("acldvppFree", "devPtr ", kiln::PtrStr(devPtr),
                          " is not memory from acldvppMalloc (freed already, or from aclrtMalloc:",
                          " free that with aclrtFree)");
    }
    kiln::Status st = Runtime::Get().Free(devPtr);
    if (st.ok()) g_dvpp_blocks.erase(devPtr);
    return Report("acldvppFree", st);
  });
}

aclError aclrtMallocHost(void** hostPtr, size_t size) {
  KILN_CAPI("aclrtMallocHost", {
    if (hostPtr == nullptr) return InvalidParam("aclrtMallocHost", "hostPtr is NULL");
    *hostPtr = nullptr;
    if (size == 0)
      return InvalidParam("aclrtMallocHost", "value 0 for size is invalid: size must be > 0");
    auto ptr = Runtime::Get().MallocHost(size);
    if (!ptr.ok()) return Report("aclrtMallocHost", ptr.status());
    *hostPtr = *ptr;
    return ACL_SUCCESS;
  });
}

aclError aclrtFreeHost(void* hostPtr) {
  KILN_CAPI("aclrtFreeHost", { return Report("aclrtFreeHost", Runtime::Get().FreeHost(hostPtr)); });
}

aclError aclrtMemcpy(void* dst, size_t destMax, const void* src, size_t count,
                     aclrtMemcpyKind kind) {
  KILN_CAPI("aclrtMemcpy", {
    kiln::Status st = CheckLinearCopy(dst, destMax, src, count, kiln::capi::EnumInt(kind));
    if (!st.ok()) return Report("aclrtMemcpy", st);
    Runtime::Get().CopyMemory(dst, src, count);
    return ACL_SUCCESS;
  });
}

aclError aclrtMemcpyAsync(void* dst, size_t destMax, const void* src, size_t count,
                          aclrtMemcpyKind kind, aclrtStream stream) {
  KILN_CAPI("aclrtMemcpyAsync", {
    kiln::Status st = CheckLinearCopy(dst, destMax, src, count, kiln::capi::EnumInt(kind));
    if (!st.ok()) return Report("aclrtMemcpyAsync", st);
    auto s = Runtime::Get().ResolveStream(stream);
    if (!s.ok()) return Report("aclrtMemcpyAsync", s.status());
    (*s)->queue().Submit(kiln::runtime::TimedTask(kiln::runtime::TaskKind::kMemcpy, **s,
                                                  kiln::StrCat(count, " B"), [dst, src, count] {
                                                    Runtime::Get().CopyMemory(dst, src, count);
                                                    return kiln::Status::Ok();
                                                  }));
    return ACL_SUCCESS;
  });
}

aclError aclrtMemcpy2d(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                       size_t height, aclrtMemcpyKind kind) {
  KILN_CAPI("aclrtMemcpy2d", {
    kiln::Status st =
        Check2dCopy(dst, dpitch, src, spitch, width, height, kiln::capi::EnumInt(kind));
    if (!st.ok()) return Report("aclrtMemcpy2d", st);
    Copy2d(dst, dpitch, src, spitch, width, height);
    return ACL_SUCCESS;
  });
}

aclError aclrtMemcpy2dAsync(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                            size_t height, aclrtMemcpyKind kind, aclrtStream stream) {
  KILN_CAPI("aclrtMemcpy2dAsync", {
    kiln::Status st =
        Check2dCopy(dst, dpitch, src, spitch, width, height, kiln::capi::EnumInt(kind));
    if (!st.ok()) return Report("aclrtMemcpy2dAsync", st);
    auto s = Runtime::Get().ResolveStream(stream);
    if (!s.ok()) return Report("aclrtMemcpy2dAsync", s.status());
    (*s)->queue().Submit(kiln::runtime::TimedTask(
        kiln::runtime::TaskKind::kMemcpy, **s, kiln::StrCat(width, " B x ", height, " rows"), [=] {
          Copy2d(dst, dpitch, src, spitch, width, height);
          return kiln::Status::Ok();
        }));
    return ACL_SUCCESS;
  });
}

aclError aclrtMemset(void* devPtr, size_t maxCount, int32_t value, size_t count) {
  KILN_CAPI("aclrtMemset", {
    kiln::Status st = CheckFill(devPtr, maxCount, count);
    if (!st.ok()) return Report("aclrtMemset", st);
    Runtime::Get().FillMemory(devPtr, value, count);
    return ACL_SUCCESS;
  });
}

aclError aclrtMemsetAsync(void* devPtr, size_t maxCount, int32_t value, size_t count,
                          aclrtStream stream) {
  KILN_CAPI("aclrtMemsetAsync", {
    kiln::Status st = CheckFill(devPtr, maxCount, count);
    if (!st.ok()) return Report("aclrtMemsetAsync", st);
    auto s = Runtime::Get().ResolveStream(stream);
    if (!s.ok()) return Report("aclrtMemsetAsync", s.status());
    (*s)->queue().Submit(kiln::runtime::TimedTask(
        kiln::runtime::TaskKind::kMemset, **s, kiln::StrCat(count, " B"), [devPtr, value, count] {
          Runtime::Get().FillMemory(devPtr, value, count);
          return kiln::Status::Ok();
        }));
    return ACL_SUCCESS;
  });
}

aclError aclrtGetMemInfo(aclrtMemAttr attr, size_t* free, size_t* total) {
  KILN_CAPI("aclrtGetMemInfo", {
    if (free == nullptr || total == nullptr)
      return InvalidParam("aclrtGetMemInfo", "free or total is NULL");
    *free = 0;
    *total = 0;
    switch (kiln::capi::EnumInt(attr)) {
      case ACL_DDR_MEM:
      case ACL_HBM_MEM:
      case ACL_DDR_MEM_HUGE:
      case ACL_DDR_MEM_NORMAL:
      case ACL_HBM_MEM_HUGE:
      case ACL_HBM_MEM_NORMAL:
      case ACL_MEM_NORMAL:
      case ACL_MEM_HUGE: {
        // A CPU device has one kind of memory: every attribute reports its pool.
        auto info = Runtime::Get().GetMemInfo();
        if (!info.ok()) return Report("aclrtGetMemInfo", info.status());
        *free = info->free;
        *total = info->total;
        return ACL_SUCCESS;
      }
      case ACL_DDR_MEM_P2P_HUGE:
      case ACL_DDR_MEM_P2P_NORMAL:
      case ACL_HBM_MEM_P2P_HUGE:
      case ACL_HBM_MEM_P2P_NORMAL:
      case ACL_HBM_MEM_HUGE1G:
      case ACL_HBM_MEM_P2P_HUGE1G:
      case ACL_MEM_HUGE1G:
      case ACL_MEM_P2P_NORMAL:
      case ACL_MEM_P2P_HUGE:
      case ACL_MEM_P2P_HUGE1G:
        return ACL_SUCCESS;  // no such memory on this device: 0 free of 0
    }
    return InvalidParam("aclrtGetMemInfo", "attr ", kiln::capi::EnumInt(attr),
                        " is not an aclrtMemAttr");
  });
}

}  // extern "C"
