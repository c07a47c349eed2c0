// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Hostile arguments and hostile timing: sizes that overflow, nesting that would recurse, BLOCK
// callbacks that are never processed, force-destroying a busy stream.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "acl/acl.h"

namespace {

class RobustnessTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
    ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  }
  void TearDown() override {
    (void)aclrtResetDevice(0);
    (void)aclFinalize();
  }
};

TEST_F(RobustnessTest, MallocOfAnImpossibleSizeFailsAndLeavesThePoolIntact) {
  void* small = nullptr;
  ASSERT_EQ(aclrtMalloc(&small, 1 << 20, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  void* huge = nullptr;
  EXPECT_EQ(aclrtMalloc(&huge, SIZE_MAX - (1 << 20) - 127, ACL_MEM_MALLOC_HUGE_FIRST),
            ACL_ERROR_RT_MEMORY_ALLOCATION);
  EXPECT_EQ(huge, nullptr);
  size_t free_bytes = 0, total = 0;
  ASSERT_EQ(aclrtGetMemInfo(ACL_HBM_MEM, &free_bytes, &total), ACL_SUCCESS);
  EXPECT_LE(free_bytes, total);  // the accounting did not wrap
  EXPECT_EQ(aclrtFree(small), ACL_SUCCESS);
}

TEST_F(RobustnessTest, Memcpy2dWhoseExtentOverflowsIsRefused) {
  void* dev = nullptr;
  ASSERT_EQ(aclrtMalloc(&dev, 4096, ACL_MEM_MALLOC_NORMAL_ONLY), ACL_SUCCESS);
  char host[64] = {0};
  EXPECT_EQ(aclrtMemcpy2d(dev, size_t{1} << 63, host, 16, 16, 3, ACL_MEMCPY_HOST_TO_DEVICE),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtFree(dev), ACL_SUCCESS);
}

// A device allocation's extent is what was asked for (AscendCL's real size: ALIGN_UP(size, 32)
// + 32), not the pool's size class: a copy or fill past it is refused even though the pool's
// block has room; so is any use of freed device memory the pool still holds.
TEST_F(RobustnessTest, CopiesPastAnAllocationOrIntoFreedMemoryAreRefused) {
  void* dev = nullptr;
  ASSERT_EQ(aclrtMalloc(&dev, 64, ACL_MEM_MALLOC_NORMAL_ONLY), ACL_SUCCESS);  // real size 96
  std::vector<char> host(4096, 1);
  EXPECT_EQ(aclrtMemcpy(dev, 96, host.data(), 96, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
  EXPECT_EQ(aclrtMemcpy(dev, 4096, host.data(), 97, ACL_MEMCPY_HOST_TO_DEVICE),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtMemcpy(host.data(), 4096, dev, 200, ACL_MEMCPY_DEVICE_TO_HOST),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtMemset(dev, 4096, 0, 97), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtMemset(dev, 96, 0, 96), ACL_SUCCESS);
  ASSERT_EQ(aclrtFree(dev), ACL_SUCCESS);
  EXPECT_EQ(aclrtMemset(dev, 64, 0, 64), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("freed"), std::string::npos);
  EXPECT_EQ(aclrtMemcpy(dev, 64, host.data(), 64, ACL_MEMCPY_HOST_TO_DEVICE),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtMemcpy(host.data(), 64, dev, 64, ACL_MEMCPY_DEFAULT), ACL_ERROR_INVALID_PARAM);
}

TEST_F(RobustnessTest, TensorDescSizesThatOverflowAreZero) {
  int64_t dims[2] = {(int64_t{1} << 62) + 1, 4};
  aclTensorDesc* desc = aclCreateTensorDesc(ACL_FLOAT, 2, dims, ACL_FORMAT_ND);
  ASSERT_NE(desc, nullptr);
  EXPECT_EQ(aclGetTensorDescElementCount(desc), 0u);
  EXPECT_EQ(aclGetTensorDescSize(desc), 0u);
  EXPECT_NE(aclGetRecentErrMsg(), nullptr);
  aclDestroyTensorDesc(desc);
}

// A BLOCK callback nobody processes yet must not occupy the only worker: other streams run.
TEST(RobustnessNoFixtureTest, PendingBlockCallbackHoldsNoWorker) {
  setenv("KILN_CPU_THREADS", "1", 1);
  ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  aclrtStream blocked = nullptr, other = nullptr;
  ASSERT_EQ(aclrtCreateStream(&blocked), ACL_SUCCESS);
  ASSERT_EQ(aclrtCreateStream(&other), ACL_SUCCESS);
  std::atomic<bool> stop{false};
  std::atomic<int> ran{0};
  std::atomic<uint64_t> tid{0};
  std::atomic<bool> go{false};
  std::thread reporter([&] {
    tid = static_cast<uint64_t>(pthread_self());
    while (!go) std::this_thread::yield();
    while (!stop) (void)aclrtProcessReport(20);
  });
  while (tid == 0) std::this_thread::yield();
  ASSERT_EQ(aclrtSubscribeReport(tid, blocked), ACL_SUCCESS);
  ASSERT_EQ(aclrtLaunchCallback([](void* p) { static_cast<std::atomic<int>*>(p)->fetch_add(1); },
                                &ran, ACL_CALLBACK_BLOCK, blocked),
            ACL_SUCCESS);
  char a[256] = {1}, b[256] = {0};
  ASSERT_EQ(aclrtMemcpyAsync(b, sizeof b, a, sizeof a, ACL_MEMCPY_HOST_TO_HOST, other),
            ACL_SUCCESS);
  // The reporter has not started processing: the callback waits, yet `other` completes.
  EXPECT_EQ(aclrtSynchronizeStreamWithTimeout(other, 5000), ACL_SUCCESS);
  EXPECT_EQ(b[0], 1);
  EXPECT_EQ(ran.load(), 0);
  go = true;
  EXPECT_EQ(aclrtSynchronizeStreamWithTimeout(blocked, 5000), ACL_SUCCESS);
  EXPECT_EQ(ran.load(), 1);
  EXPECT_EQ(aclrtUnSubscribeReport(tid, blocked), ACL_SUCCESS);
  stop = true;
  reporter.join();
  EXPECT_EQ(aclrtDestroyStream(blocked), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyStream(other), ACL_SUCCESS);
  EXPECT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
  EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
  unsetenv("KILN_CPU_THREADS");
}

TEST_F(RobustnessTest, DestroyStreamForceDoesNotWaitForARunningTask) {
  aclrtStream s = nullptr;
  ASSERT_EQ(aclrtCreateStream(&s), ACL_SUCCESS);
  static std::atomic<bool> started{false};
  static std::atomic<bool> release{false};
  static std::atomic<bool> finished{false};
  started = release = finished = false;
  ASSERT_EQ(aclrtLaunchHostFunc(
                s,
                [](void*) {
                  started = true;
                  while (!release) std::this_thread::yield();
                  finished = true;
                },
                nullptr),
            ACL_SUCCESS);
  while (!started) std::this_thread::yield();          // running, not just queued
  EXPECT_EQ(aclrtDestroyStreamForce(s), ACL_SUCCESS);  // returns while the task still runs
  EXPECT_FALSE(finished.load());
  release = true;
  while (!finished) std::this_thread::yield();
}

TEST(RobustnessNoFixtureTest, DeeplyNestedAclJsonIsAParseErrorNotACrash) {
  char path[] = "/tmp/kiln-deep-XXXXXX";
  int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  close(fd);
  {
    std::ofstream f(path);
    f << "{\"a\":" << std::string(200000, '[') << std::string(200000, ']') << "}";
  }
  EXPECT_EQ(aclInit(path), ACL_ERROR_PARSE_FILE);
  std::remove(path);
}

// acl.json's defaultDevice must name a device this process sees: aclInit refuses another
// with 100006 and stays uninitialised (a later aclInit with a good file succeeds).
TEST(RobustnessNoFixtureTest, DefaultDeviceThatDoesNotExistIsRefusedAtInit) {
  char path[] = "/tmp/kiln-defdev-XXXXXX";
  int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  close(fd);
  for (const char* dev : {"999", "-1", "zero", "0"}) {
    std::ofstream(path) << "{\"defaultDevice\": {\"default_device\": \"" << dev << "\"}}";
    const aclError want = std::string(dev) == "0" ? ACL_SUCCESS : ACL_ERROR_PARSE_FILE;
    EXPECT_EQ(aclInit(path), want) << dev;
    if (want == ACL_SUCCESS) {
      EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
    }
  }
  std::remove(path);
}

TEST(RobustnessNoFixtureTest, DeviceCapabilityNeedsInitAndDoesNotSetTheDevice) {
  int64_t cores = 0;
  EXPECT_EQ(aclGetDeviceCapability(0, ACL_DEVICE_INFO_AI_CORE_NUM, &cores), ACL_ERROR_UNINITIALIZE);
  setenv("KILN_DEVICE_MEMORY_LIMIT", "64M", 1);
  ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
  EXPECT_EQ(aclGetDeviceCapability(0, ACL_DEVICE_INFO_AI_CORE_NUM, &cores), ACL_SUCCESS);
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  size_t free_bytes = 0, total = 0;
  ASSERT_EQ(aclrtGetMemInfo(ACL_HBM_MEM, &free_bytes, &total), ACL_SUCCESS);
  EXPECT_EQ(total, size_t{64} << 20);  // the limit applies: the query did not open the device
  EXPECT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
  EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
  unsetenv("KILN_DEVICE_MEMORY_LIMIT");
}

}  // namespace
