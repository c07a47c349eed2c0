// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Contract tests of the memory API (ascendcl-reference.md §1.6 and Kiln's decisions): device and
// host allocation and their checks, the device pool's capacity, copies (1-D, 2-D, synchronous
// and on a stream) with kind and bounds checks, fills and aclrtGetMemInfo.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "acl/acl.h"

namespace {

constexpr int32_t kSyncTimeoutMs = 5000;  // bounds every wait a bug could turn into a hang
constexpr size_t kMiB = size_t{1} << 20;

// Environment a test needs before aclInit. Each TEST runs in its own process (CTest), so SetUp
// may set it; TearDown removes it again for runs of the whole binary in one process.
struct TestEnvironment {
  std::string_view test;
  const char* name;
  const char* value;
};
constexpr TestEnvironment kTestEnvironment[] = {
    {"MemInfoReportsTheConfiguredDeviceMemoryLimit", "KILN_DEVICE_MEMORY_LIMIT", "64M"},
    {"ExhaustedPoolFailsWithMemoryAllocationAndRecoversAfterFree", "KILN_DEVICE_MEMORY_LIMIT",
     "64M"},
    {"FreeMemoryDropsByAtLeastTheAllocatedSizeAndComesBackAfterFree", "KILN_DEVICE_MEMORY_LIMIT",
     "64M"},
};

// The size the reference says aclrtMalloc really provides on most SoCs.
constexpr size_t AclrtMallocRealSize(size_t size) { return (size + 31) / 32 * 32 + 32; }

// The text of this thread's recent errors ("" if none); reading it clears them.
std::string RecentErrMsg() {
  const char* msg = aclGetRecentErrMsg();
  return msg ? msg : "";
}

// Bytes 0, 1, 2, ... (mod 256) from `seed`.
std::vector<unsigned char> Pattern(size_t n, unsigned seed = 1) {
  std::vector<unsigned char> bytes(n);
  for (size_t i = 0; i < n; ++i) bytes[i] = static_cast<unsigned char>(seed + i * 7);
  return bytes;
}

class MemoryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string_view name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    for (const auto& env : kTestEnvironment) {
      if (env.test == name) {
        setenv(env.name, env.value, 1);
        set_env_.push_back(env.name);
      }
    }
    ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
    ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
    open_ = true;
  }

  void TearDown() override {
    if (open_) {
      EXPECT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
      EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
    }
    for (const char* env : set_env_) unsetenv(env);
  }

  void* DeviceAlloc(size_t size) {
    void* ptr = nullptr;
    EXPECT_EQ(aclrtMalloc(&ptr, size, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    EXPECT_NE(ptr, nullptr);
    return ptr;
  }

  void* HostAlloc(size_t size) {
    void* ptr = nullptr;
    EXPECT_EQ(aclrtMallocHost(&ptr, size), ACL_SUCCESS);
    EXPECT_NE(ptr, nullptr);
    return ptr;
  }

  // The bytes of a device range, read back with a device-to-host copy.
  std::vector<unsigned char> ReadDevice(const void* dev, size_t n) {
    std::vector<unsigned char> out(n, 0xCD);
    EXPECT_EQ(aclrtMemcpy(out.data(), n, dev, n, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    return out;
  }

  bool open_ = false;
  std::vector<const char*> set_env_;
};

// ---------------------------------------------------------------------------------------------
// Allocation

TEST_F(MemoryTest, MallocRejectsSizeZeroWithAMessageAboutTheSize) {
  RecentErrMsg();
  void* ptr = reinterpret_cast<void*>(0x1);
  EXPECT_EQ(aclrtMalloc(&ptr, 0, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(RecentErrMsg().find("size"), std::string::npos);
}

TEST_F(MemoryTest, MallocRejectsANullDevPtr) {
  EXPECT_EQ(aclrtMalloc(nullptr, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM);
}

TEST_F(MemoryTest, MallocReturnsA64ByteAlignedAddress) {
  for (size_t size : {size_t{1}, size_t{33}, size_t{1000}, size_t{4097}, kMiB + 1}) {
    void* ptr = DeviceAlloc(size);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(ptr) % 64, 0u) << "size " << size;
    EXPECT_EQ(aclrtFree(ptr), ACL_SUCCESS);
  }
}

TEST_F(MemoryTest, MallocAcceptsEveryPolicyWithAndWithoutHighBandwidth) {
  for (int policy = ACL_MEM_MALLOC_HUGE_FIRST; policy <= ACL_MEM_MALLOC_HUGE1G_ONLY_P2P; ++policy) {
    for (int flags : {0, static_cast<int>(ACL_MEM_TYPE_HIGH_BAND_WIDTH)}) {
      for (size_t size : {size_t{4096}, 3 * kMiB}) {
        auto p = static_cast<aclrtMemMallocPolicy>(policy | flags);
        void* ptr = nullptr;
        ASSERT_EQ(aclrtMalloc(&ptr, size, p), ACL_SUCCESS)
            << "policy " << policy << " flags " << flags << " size " << size;
        ASSERT_NE(ptr, nullptr);
        EXPECT_EQ(aclrtMemset(ptr, size, 0x11, size), ACL_SUCCESS);
        EXPECT_EQ(aclrtFree(ptr), ACL_SUCCESS);
      }
    }
  }
}

TEST_F(MemoryTest, MallocAllocationCanBeWrittenInFullIncludingItsPadding) {
  for (size_t size : {size_t{1}, size_t{31}, size_t{32}, size_t{100}, size_t{4096}}) {
    void* ptr = DeviceAlloc(size);
    size_t real = AclrtMallocRealSize(size);  // 1 -> 64, 32 -> 64, 100 -> 160, 4096 -> 4160
    EXPECT_EQ(aclrtMemset(ptr, real, 0x77, real), ACL_SUCCESS) << "size " << size;
    std::vector<unsigned char> back = ReadDevice(ptr, real);
    EXPECT_EQ(back, std::vector<unsigned char>(real, 0x77)) << "size " << size;
    EXPECT_EQ(aclrtFree(ptr), ACL_SUCCESS);
  }
}

TEST_F(MemoryTest, MallocAlign32AllocationCanBeWrittenUpToTheAlignedSize) {
  for (size_t size : {size_t{1}, size_t{100}, size_t{4096}}) {
    void* ptr = nullptr;
    ASSERT_EQ(aclrtMallocAlign32(&ptr, size, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    ASSERT_NE(ptr, nullptr);
    size_t aligned = (size + 31) / 32 * 32;  // 1 -> 32, 100 -> 128, 4096 -> 4096
    EXPECT_EQ(aclrtMemset(ptr, aligned, 0x42, aligned), ACL_SUCCESS) << "size " << size;
    EXPECT_EQ(ReadDevice(ptr, aligned), std::vector<unsigned char>(aligned, 0x42));
    EXPECT_EQ(aclrtFree(ptr), ACL_SUCCESS);
  }
  EXPECT_EQ(aclrtMallocAlign32(nullptr, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM);
  void* ptr = nullptr;
  EXPECT_EQ(aclrtMallocAlign32(&ptr, 0, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM);
}

TEST_F(MemoryTest, MallocCachedMemoryCanBeFlushedAndInvalidated) {
  constexpr size_t kSize = 4096;
  void* ptr = nullptr;
  ASSERT_EQ(aclrtMallocCached(&ptr, kSize, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  ASSERT_NE(ptr, nullptr);
  EXPECT_EQ(aclrtMemset(ptr, kSize, 0x21, kSize), ACL_SUCCESS);
  EXPECT_EQ(aclrtMemFlush(ptr, kSize), ACL_SUCCESS);
  EXPECT_EQ(aclrtMemInvalidate(ptr, kSize), ACL_SUCCESS);
  EXPECT_EQ(ReadDevice(ptr, kSize), std::vector<unsigned char>(kSize, 0x21));
  EXPECT_EQ(aclrtFree(ptr), ACL_SUCCESS);
}

TEST_F(MemoryTest, FlushAndInvalidateRejectHostMemory) {
  void* host = HostAlloc(4096);
  EXPECT_EQ(aclrtMemFlush(host, 4096), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtMemInvalidate(host, 4096), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtFreeHost(host), ACL_SUCCESS);
}

TEST_F(MemoryTest, FreeTwiceIsRejected) {
  void* ptr = DeviceAlloc(256);
  EXPECT_EQ(aclrtFree(ptr), ACL_SUCCESS);
  EXPECT_EQ(aclrtFree(ptr), ACL_ERROR_INVALID_PARAM);
}

TEST_F(MemoryTest, FreeRejectsHostMemoryFromMallocHost) {
  void* host = HostAlloc(256);
  EXPECT_EQ(aclrtFree(host), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtFreeHost(host), ACL_SUCCESS);  // still owned by the caller
}

TEST_F(MemoryTest, FreeHostTwiceIsRejected) {
  void* host = HostAlloc(256);
  std::memset(host, 0x5A, 256);  // usable by the host
  EXPECT_EQ(aclrtFreeHost(host), ACL_SUCCESS);
  EXPECT_EQ(aclrtFreeHost(host), ACL_ERROR_INVALID_PARAM);
}

// ---------------------------------------------------------------------------------------------
// Pool capacity (KILN_DEVICE_MEMORY_LIMIT=64M, kTestEnvironment)

TEST_F(MemoryTest, MemInfoReportsTheConfiguredDeviceMemoryLimit) {
  size_t free = 0, total = 0;
  ASSERT_EQ(aclrtGetMemInfo(ACL_HBM_MEM, &free, &total), ACL_SUCCESS);
  EXPECT_EQ(total, 64 * kMiB);
  EXPECT_LE(free, total);
}

TEST_F(MemoryTest, ExhaustedPoolFailsWithMemoryAllocationAndRecoversAfterFree) {
  void* first = nullptr;
  ASSERT_EQ(aclrtMalloc(&first, 40 * kMiB, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  RecentErrMsg();
  void* second = nullptr;
  EXPECT_EQ(aclrtMalloc(&second, 40 * kMiB, ACL_MEM_MALLOC_HUGE_FIRST),
            ACL_ERROR_RT_MEMORY_ALLOCATION);
  EXPECT_NE(RecentErrMsg().find("exhausted"), std::string::npos);
  ASSERT_EQ(aclrtFree(first), ACL_SUCCESS);
  // Nothing leaked: the same request fits again.
  ASSERT_EQ(aclrtMalloc(&second, 40 * kMiB, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  EXPECT_EQ(aclrtFree(second), ACL_SUCCESS);
}

TEST_F(MemoryTest, FreeMemoryDropsByAtLeastTheAllocatedSizeAndComesBackAfterFree) {
  size_t free_before = 0, free_allocated = 0, free_freed = 0, total = 0;
  ASSERT_EQ(aclrtGetMemInfo(ACL_HBM_MEM, &free_before, &total), ACL_SUCCESS);
  void* ptr = DeviceAlloc(3 * kMiB);
  ASSERT_EQ(aclrtGetMemInfo(ACL_HBM_MEM, &free_allocated, &total), ACL_SUCCESS);
  ASSERT_LE(free_allocated, free_before);
  EXPECT_GE(free_before - free_allocated, 3 * kMiB);
  ASSERT_EQ(aclrtFree(ptr), ACL_SUCCESS);
  // Freed memory is available again, so aclrtGetMemInfo counts it as free.
  ASSERT_EQ(aclrtGetMemInfo(ACL_HBM_MEM, &free_freed, &total), ACL_SUCCESS);
  EXPECT_GE(free_freed, free_allocated + 3 * kMiB);
  EXPECT_LE(free_freed, total);
}

TEST_F(MemoryTest, InvalidDeviceMemoryLimitMakesAclInitFail) {
  ASSERT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
  ASSERT_EQ(aclFinalize(), ACL_SUCCESS);
  open_ = false;
  setenv("KILN_DEVICE_MEMORY_LIMIT", "abc", 1);
  set_env_.push_back("KILN_DEVICE_MEMORY_LIMIT");
  EXPECT_EQ(aclInit(nullptr), ACL_ERROR_INVALID_PARAM);
  // The failed aclInit left nothing to finalize.
  EXPECT_EQ(aclFinalize(), ACL_ERROR_REPEAT_FINALIZE);
}

// ---------------------------------------------------------------------------------------------
// aclrtMemcpy

TEST_F(MemoryTest, MemcpyRejectsACountAboveDestMax) {
  void* dev = DeviceAlloc(64);
  std::vector<unsigned char> host(64, 1);
  EXPECT_EQ(aclrtMemcpy(dev, 16, host.data(), 32, ACL_MEMCPY_HOST_TO_DEVICE),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtFree(dev), ACL_SUCCESS);
}

TEST_F(MemoryTest, MemcpyHostToHostCopiesBetweenHostBuffers) {
  constexpr size_t kSize = 1000;
  auto* src = static_cast<unsigned char*>(HostAlloc(kSize));
  auto* dst = static_cast<unsigned char*>(HostAlloc(kSize));
  std::vector<unsigned char> pattern = Pattern(kSize);
  std::memcpy(src, pattern.data(), kSize);
  std::memset(dst, 0, kSize);
  ASSERT_EQ(aclrtMemcpy(dst, kSize, src, kSize, ACL_MEMCPY_HOST_TO_HOST), ACL_SUCCESS);
  EXPECT_EQ(std::vector<unsigned char>(dst, dst + kSize), pattern);

  // Ordinary (pageable) host buffers too.
  std::vector<unsigned char> plain(kSize, 0);
  ASSERT_EQ(aclrtMemcpy(plain.data(), kSize, src, kSize, ACL_MEMCPY_HOST_TO_HOST), ACL_SUCCESS);
  EXPECT_EQ(plain, pattern);
  EXPECT_EQ(aclrtFreeHost(src), ACL_SUCCESS);
  EXPECT_EQ(aclrtFreeHost(dst), ACL_SUCCESS);
}

TEST_F(MemoryTest, MemcpyCopiesHostToDeviceAndBack) {
  constexpr size_t kSize = 4096;
  std::vector<unsigned char> pattern = Pattern(kSize, 3);
  void* dev = DeviceAlloc(kSize);
  ASSERT_EQ(aclrtMemcpy(dev, kSize, pattern.data(), kSize, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
  std::vector<unsigned char> back(kSize, 0);
  ASSERT_EQ(aclrtMemcpy(back.data(), kSize, dev, kSize, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
  EXPECT_EQ(back, pattern);
  EXPECT_EQ(aclrtFree(dev), ACL_SUCCESS);
}

TEST_F(MemoryTest, MemcpyCopiesDeviceToDevice) {
  constexpr size_t kSize = 512;
  std::vector<unsigned char> pattern = Pattern(kSize, 9);
  void* a = DeviceAlloc(kSize);
  void* b = DeviceAlloc(kSize);
  ASSERT_EQ(aclrtMemset(b, kSize, 0, kSize), ACL_SUCCESS);
  ASSERT_EQ(aclrtMemcpy(a, kSize, pattern.data(), kSize, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
  ASSERT_EQ(aclrtMemcpy(b, kSize, a, kSize, ACL_MEMCPY_DEVICE_TO_DEVICE), ACL_SUCCESS);
  EXPECT_EQ(ReadDevice(b, kSize), pattern);
  EXPECT_EQ(aclrtFree(a), ACL_SUCCESS);
  EXPECT_EQ(aclrtFree(b), ACL_SUCCESS);
}

TEST_F(MemoryTest, MemcpyDefaultKindCopiesInEveryDirection) {
  constexpr size_t kSize = 256;
  std::vector<unsigned char> pattern = Pattern(kSize, 5);
  std::vector<unsigned char> host(kSize, 0), back(kSize, 0);
  void* a = DeviceAlloc(kSize);
  void* b = DeviceAlloc(kSize);
  ASSERT_EQ(aclrtMemcpy(host.data(), kSize, pattern.data(), kSize, ACL_MEMCPY_DEFAULT),
            ACL_SUCCESS);
  EXPECT_EQ(host, pattern);
  ASSERT_EQ(aclrtMemcpy(a, kSize, host.data(), kSize, ACL_MEMCPY_DEFAULT), ACL_SUCCESS);
  ASSERT_EQ(aclrtMemcpy(b, kSize, a, kSize, ACL_MEMCPY_DEFAULT), ACL_SUCCESS);
  ASSERT_EQ(aclrtMemcpy(back.data(), kSize, b, kSize, ACL_MEMCPY_DEFAULT), ACL_SUCCESS);
  EXPECT_EQ(back, pattern);
  EXPECT_EQ(aclrtFree(a), ACL_SUCCESS);
  EXPECT_EQ(aclrtFree(b), ACL_SUCCESS);
}

TEST_F(MemoryTest, MemcpyRejectsAKindThatContradictsThePointers) {
  std::vector<unsigned char> src(64, 1), dst(64, 0);
  EXPECT_EQ(aclrtMemcpy(dst.data(), dst.size(), src.data(), src.size(), ACL_MEMCPY_HOST_TO_DEVICE),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtMemcpy(dst.data(), dst.size(), src.data(), src.size(), ACL_MEMCPY_DEVICE_TO_HOST),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(dst, std::vector<unsigned char>(64, 0)) << "a rejected copy wrote its destination";
}

TEST_F(MemoryTest, MemcpyRejectsAnUnknownKind) {
  std::vector<unsigned char> src(64, 1), dst(64, 0);
  const auto kind = static_cast<aclrtMemcpyKind>(99);
  EXPECT_EQ(aclrtMemcpy(dst.data(), dst.size(), src.data(), src.size(), kind),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtMemcpyAsync(dst.data(), dst.size(), src.data(), src.size(), kind, nullptr),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtMemcpy2d(dst.data(), 8, src.data(), 8, 8, 8, kind), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtMemcpy2dAsync(dst.data(), 8, src.data(), 8, 8, 8, kind, nullptr),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtSynchronizeStreamWithTimeout(nullptr, kSyncTimeoutMs), ACL_SUCCESS);
  EXPECT_EQ(dst, std::vector<unsigned char>(64, 0)) << "a rejected copy wrote its destination";
}

TEST_F(MemoryTest, MemcpyRejectsANullDestinationOrSource) {
  void* dev = DeviceAlloc(64);
  std::vector<unsigned char> host(64, 1);
  EXPECT_EQ(aclrtMemcpy(nullptr, 64, host.data(), 64, ACL_MEMCPY_HOST_TO_DEVICE),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtMemcpy(dev, 64, nullptr, 64, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtMemcpy(nullptr, 64, host.data(), 64, ACL_MEMCPY_DEFAULT), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtMemcpy(host.data(), 64, nullptr, 64, ACL_MEMCPY_DEFAULT), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtFree(dev), ACL_SUCCESS);
}

TEST_F(MemoryTest, MemcpyRejectsACopyThatOverrunsADeviceAllocation) {
  void* dev = DeviceAlloc(64);
  std::vector<unsigned char> host(4096, 1);
  RecentErrMsg();
  EXPECT_EQ(aclrtMemcpy(dev, 4096, host.data(), 4096, ACL_MEMCPY_HOST_TO_DEVICE),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(RecentErrMsg().find("overrun"), std::string::npos);
  EXPECT_EQ(aclrtFree(dev), ACL_SUCCESS);
}

TEST_F(MemoryTest, MemcpyIntoTheMiddleOfADeviceAllocationWorks) {
  constexpr size_t kSize = 256, kOffset = 100, kCount = 16;
  void* dev = DeviceAlloc(kSize);
  ASSERT_EQ(aclrtMemset(dev, kSize, 0, kSize), ACL_SUCCESS);
  std::vector<unsigned char> pattern = Pattern(kCount, 0xA0);
  auto* interior = static_cast<unsigned char*>(dev) + kOffset;
  ASSERT_EQ(
      aclrtMemcpy(interior, kSize - kOffset, pattern.data(), kCount, ACL_MEMCPY_HOST_TO_DEVICE),
      ACL_SUCCESS);
  std::vector<unsigned char> expected(kSize, 0);
  std::copy(pattern.begin(), pattern.end(), expected.begin() + kOffset);
  EXPECT_EQ(ReadDevice(dev, kSize), expected);
  // And back out of the middle.
  std::vector<unsigned char> out(kCount, 0);
  ASSERT_EQ(aclrtMemcpy(out.data(), kCount, interior, kCount, ACL_MEMCPY_DEVICE_TO_HOST),
            ACL_SUCCESS);
  EXPECT_EQ(out, pattern);
  EXPECT_EQ(aclrtFree(dev), ACL_SUCCESS);
}

TEST_F(MemoryTest, MemcpyAsyncDeliversTheDataAfterSynchronize) {
  constexpr size_t kSize = 8192;
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  auto* src = static_cast<unsigned char*>(HostAlloc(kSize));
  auto* dst = static_cast<unsigned char*>(HostAlloc(kSize));
  std::vector<unsigned char> pattern = Pattern(kSize, 11);
  std::memcpy(src, pattern.data(), kSize);
  std::memset(dst, 0, kSize);
  void* dev = DeviceAlloc(kSize);
  ASSERT_EQ(aclrtMemcpyAsync(dev, kSize, src, kSize, ACL_MEMCPY_HOST_TO_DEVICE, stream),
            ACL_SUCCESS);
  ASSERT_EQ(aclrtMemcpyAsync(dst, kSize, dev, kSize, ACL_MEMCPY_DEVICE_TO_HOST, stream),
            ACL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStreamWithTimeout(stream, kSyncTimeoutMs), ACL_SUCCESS);
  EXPECT_EQ(std::vector<unsigned char>(dst, dst + kSize), pattern);
  EXPECT_EQ(aclrtMemcpyAsync(dst, 16, src, 32, ACL_MEMCPY_HOST_TO_HOST, stream),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtFree(dev), ACL_SUCCESS);
  EXPECT_EQ(aclrtFreeHost(src), ACL_SUCCESS);
  EXPECT_EQ(aclrtFreeHost(dst), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
}

// ---------------------------------------------------------------------------------------------
// aclrtMemcpy2d

// A 5 x 8 host image with pixel (r, c) = r * 16 + c.
std::vector<unsigned char> Image5x8() {
  std::vector<unsigned char> image(5 * 8);
  for (int r = 0; r < 5; ++r) {
    for (int c = 0; c < 8; ++c) image[r * 8 + c] = static_cast<unsigned char>(r * 16 + c);
  }
  return image;
}

TEST_F(MemoryTest, Memcpy2dCopiesASubRectangleBetweenPitchedBuffers) {
  std::vector<unsigned char> image = Image5x8();
  void* dev = DeviceAlloc(18);  // 3 rows of pitch 6
  ASSERT_EQ(aclrtMemset(dev, 18, 0xEE, 18), ACL_SUCCESS);
  // Rows 1..3, columns 2..5 (3 rows of 4 bytes) into a buffer whose rows are 6 bytes apart.
  ASSERT_EQ(aclrtMemcpy2d(dev, 6, image.data() + 1 * 8 + 2, 8, 4, 3, ACL_MEMCPY_HOST_TO_DEVICE),
            ACL_SUCCESS);
  const std::vector<unsigned char> expected = {
      0x12, 0x13, 0x14, 0x15, 0xEE, 0xEE,  //
      0x22, 0x23, 0x24, 0x25, 0xEE, 0xEE,  //
      0x32, 0x33, 0x34, 0x35, 0xEE, 0xEE,  //
  };
  EXPECT_EQ(ReadDevice(dev, 18), expected);
  EXPECT_EQ(aclrtFree(dev), ACL_SUCCESS);
}

TEST_F(MemoryTest, Memcpy2dAsyncCopiesASubRectangleOnAStream) {
  std::vector<unsigned char> image = Image5x8();
  void* dev = DeviceAlloc(image.size());
  ASSERT_EQ(aclrtMemcpy(dev, image.size(), image.data(), image.size(), ACL_MEMCPY_HOST_TO_DEVICE),
            ACL_SUCCESS);
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  auto* out = static_cast<unsigned char*>(HostAlloc(15));  // 3 rows of pitch 5
  std::memset(out, 0xEE, 15);
  // Rows 2..4, columns 3..6 of the device image.
  ASSERT_EQ(aclrtMemcpy2dAsync(out, 5, static_cast<unsigned char*>(dev) + 2 * 8 + 3, 8, 4, 3,
                               ACL_MEMCPY_DEVICE_TO_HOST, stream),
            ACL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStreamWithTimeout(stream, kSyncTimeoutMs), ACL_SUCCESS);
  const std::vector<unsigned char> expected = {
      0x23, 0x24, 0x25, 0x26, 0xEE,  //
      0x33, 0x34, 0x35, 0x36, 0xEE,  //
      0x43, 0x44, 0x45, 0x46, 0xEE,  //
  };
  EXPECT_EQ(std::vector<unsigned char>(out, out + 15), expected);
  EXPECT_EQ(aclrtFreeHost(out), ACL_SUCCESS);
  EXPECT_EQ(aclrtFree(dev), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
}

TEST_F(MemoryTest, Memcpy2dRejectsAWidthAboveAPitch) {
  std::vector<unsigned char> src(64, 1), dst(64, 0);
  EXPECT_EQ(aclrtMemcpy2d(dst.data(), 8, src.data(), 8, 9, 2, ACL_MEMCPY_HOST_TO_HOST),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtMemcpy2d(dst.data(), 16, src.data(), 8, 9, 2, ACL_MEMCPY_HOST_TO_HOST),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtMemcpy2d(dst.data(), 8, src.data(), 16, 9, 2, ACL_MEMCPY_HOST_TO_HOST),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(
      aclrtMemcpy2dAsync(dst.data(), 8, src.data(), 8, 9, 2, ACL_MEMCPY_HOST_TO_HOST, nullptr),
      ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(dst, std::vector<unsigned char>(64, 0));
}

TEST_F(MemoryTest, Memcpy2dRejectsAHeightOfZero) {
  std::vector<unsigned char> src(64, 1), dst(64, 0);
  EXPECT_EQ(aclrtMemcpy2d(dst.data(), 8, src.data(), 8, 4, 0, ACL_MEMCPY_HOST_TO_HOST),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(
      aclrtMemcpy2dAsync(dst.data(), 8, src.data(), 8, 4, 0, ACL_MEMCPY_HOST_TO_HOST, nullptr),
      ACL_ERROR_INVALID_PARAM);
}

// ---------------------------------------------------------------------------------------------
// aclrtMemset

TEST_F(MemoryTest, MemsetFillsDeviceMemoryWithTheLowByteOfValue) {
  void* dev = DeviceAlloc(128);
  ASSERT_EQ(aclrtMemset(dev, 128, 0, 128), ACL_SUCCESS);
  ASSERT_EQ(aclrtMemset(dev, 128, 0x1A5, 100), ACL_SUCCESS);  // low 8 bits: 0xA5
  std::vector<unsigned char> expected(128, 0);
  std::fill(expected.begin(), expected.begin() + 100, 0xA5);
  EXPECT_EQ(ReadDevice(dev, 128), expected);
  EXPECT_EQ(aclrtFree(dev), ACL_SUCCESS);
}

TEST_F(MemoryTest, MemsetRejectsACountAboveMaxCount) {
  void* dev = DeviceAlloc(128);
  EXPECT_EQ(aclrtMemset(dev, 64, 1, 65), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtMemsetAsync(dev, 64, 1, 65, nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtFree(dev), ACL_SUCCESS);
}

TEST_F(MemoryTest, MemsetAcceptsHostMemory) {
  std::vector<unsigned char> plain(100, 0);
  ASSERT_EQ(aclrtMemset(plain.data(), plain.size(), 0x3C, 60), ACL_SUCCESS);
  std::vector<unsigned char> expected(100, 0);
  std::fill(expected.begin(), expected.begin() + 60, 0x3C);
  EXPECT_EQ(plain, expected);

  auto* pinned = static_cast<unsigned char*>(HostAlloc(64));
  ASSERT_EQ(aclrtMemset(pinned, 64, 0x7E, 64), ACL_SUCCESS);
  EXPECT_EQ(std::vector<unsigned char>(pinned, pinned + 64), std::vector<unsigned char>(64, 0x7E));
  EXPECT_EQ(aclrtFreeHost(pinned), ACL_SUCCESS);
}

TEST_F(MemoryTest, MemsetAsyncFillsDeviceAndHostMemoryOnAStream) {
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  void* dev = DeviceAlloc(256);
  std::vector<unsigned char> host(256, 0);
  ASSERT_EQ(aclrtMemsetAsync(dev, 256, 0x69, 256, stream), ACL_SUCCESS);
  ASSERT_EQ(aclrtMemsetAsync(host.data(), host.size(), 0x96, 200, stream), ACL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStreamWithTimeout(stream, kSyncTimeoutMs), ACL_SUCCESS);
  EXPECT_EQ(ReadDevice(dev, 256), std::vector<unsigned char>(256, 0x69));
  std::vector<unsigned char> expected(256, 0);
  std::fill(expected.begin(), expected.begin() + 200, 0x96);
  EXPECT_EQ(host, expected);
  EXPECT_EQ(aclrtFree(dev), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
}

// ---------------------------------------------------------------------------------------------
// aclrtGetMemInfo

TEST_F(MemoryTest, GetMemInfoRejectsANullFreeOrTotal) {
  size_t value = 0;
  EXPECT_EQ(aclrtGetMemInfo(ACL_HBM_MEM, nullptr, &value), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtGetMemInfo(ACL_HBM_MEM, &value, nullptr), ACL_ERROR_INVALID_PARAM);
}

TEST_F(MemoryTest, GetMemInfoReportsZeroForMemoryTheDeviceLacks) {
  size_t free = 123, total = 456;
  ASSERT_EQ(aclrtGetMemInfo(ACL_HBM_MEM_P2P_HUGE, &free, &total), ACL_SUCCESS);
  EXPECT_EQ(free, 0u);
  EXPECT_EQ(total, 0u);
}

TEST_F(MemoryTest, GetMemInfoRejectsAnUnknownAttribute) {
  size_t free = 0, total = 0;
  EXPECT_EQ(aclrtGetMemInfo(static_cast<aclrtMemAttr>(999), &free, &total),
            ACL_ERROR_INVALID_PARAM);
}

}  // namespace
