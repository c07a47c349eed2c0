// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The per-process usage record (include/kiln/kiln_usage.h) that `kiln smi` reads: written by
// libascendcl.so as the public API allocates and frees, read back with the tool's reader
// (tools/kiln/usage_reader.h, which knows only the public layout).
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "acl/acl.h"
#include "kiln/kiln_usage.h"
#include "tools/kiln/usage_reader.h"

namespace {

constexpr uint64_t kMiB = 1024 * 1024;

class UsageRecordTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/kiln-usage-test-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    ASSERT_EQ(setenv(KILN_USAGE_DIR_ENV, dir_.c_str(), 1), 0);
  }
  void TearDown() override {
    unsetenv(KILN_USAGE_DIR_ENV);
    std::string cmd = "rm -rf '" + dir_ + "'";
    ASSERT_EQ(std::system(cmd.c_str()), 0);
  }
  std::string OwnPath() const { return dir_ + "/" + std::to_string(getpid()) + ".usage"; }
  static bool Exists(const std::string& path) {
    struct stat st {};
    return stat(path.c_str(), &st) == 0;
  }
  // This process's device `id` in `scan`, or null.
  static const kiln::tools::UsageDevice* Own(const kiln::tools::UsageScan& scan, int32_t id) {
    for (const auto& p : scan.processes) {
      if (p.pid != getpid()) continue;
      for (const auto& d : p.devices) {
        if (d.device == id) return &d;
      }
    }
    return nullptr;
  }
  // Whether this process has device `id` open in a fresh scan.
  bool OwnOpen(int32_t id) const {
    return Own(kiln::tools::ScanUsage({dir_}, true), id) != nullptr;
  }
  void WriteFile(const std::string& name, const void* data, size_t size) {
    std::ofstream out(dir_ + "/" + name, std::ios::binary);
    out.write(static_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  static kilnUsageRecord ValidRecord(int32_t pid) {
    kilnUsageRecord r;
    std::memset(&r, 0, sizeof r);
    r.magic = KILN_USAGE_MAGIC;
    r.version = KILN_USAGE_VERSION;
    r.record_size = sizeof(kilnUsageRecord);
    r.pid = pid;
    std::strcpy(r.name, "handmade");
    r.device_slots = KILN_USAGE_MAX_DEVICES;
    r.devices[3].open = 1;
    r.devices[3].device_id = 3;
    r.devices[3].bytes_in_use = 5 * kMiB;
    r.devices[3].bytes_reserved = 6 * kMiB;
    return r;
  }
  // A pid that no process has now: a child that has exited and been reaped.
  static int32_t DeadPid() {
    pid_t child = fork();
    if (child == 0) _exit(0);
    int status = 0;
    waitpid(child, &status, 0);
    return static_cast<int32_t>(child);
  }

  std::string dir_;
};

TEST_F(UsageRecordTest, LayoutHasNoPadding) {
  EXPECT_EQ(sizeof(kilnUsageDevice), 40u);
  EXPECT_EQ(sizeof(kilnUsageRecord), 1384u);
}

TEST_F(UsageRecordTest, MallocShowsUnderThisPidFreeDropsFinalizeRemoves) {
  ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
  EXPECT_FALSE(Exists(OwnPath())) << "aclInit alone opens no device and publishes nothing";
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  ASSERT_TRUE(Exists(OwnPath()));
  auto scan = kiln::tools::ScanUsage({dir_}, true);
  const auto* dev = Own(scan, 0);
  ASSERT_NE(dev, nullptr);
  EXPECT_EQ(dev->bytes_in_use, 0u);

  void* ptr = nullptr;
  ASSERT_EQ(aclrtMalloc(&ptr, 100 * kMiB, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  scan = kiln::tools::ScanUsage({dir_}, true);
  dev = Own(scan, 0);
  ASSERT_NE(dev, nullptr);
  EXPECT_GE(dev->bytes_in_use, 100 * kMiB);
  EXPECT_GE(dev->bytes_reserved, dev->bytes_in_use);
  EXPECT_GT(dev->capacity, 0u);
  EXPECT_TRUE(scan.skipped.empty());
  ASSERT_EQ(scan.processes.size(), 1u);
  EXPECT_FALSE(scan.processes[0].name.empty());

  ASSERT_EQ(aclrtFree(ptr), ACL_SUCCESS);
  scan = kiln::tools::ScanUsage({dir_}, true);
  dev = Own(scan, 0);
  ASSERT_NE(dev, nullptr);
  EXPECT_LT(dev->bytes_in_use, 100 * kMiB) << "in use drops at aclrtFree";
  EXPECT_GE(dev->bytes_reserved, 100 * kMiB) << "the pool keeps the freed block cached";

  ASSERT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
  EXPECT_FALSE(OwnOpen(0)) << "a reset device is closed";
  ASSERT_EQ(aclFinalize(), ACL_SUCCESS);
  EXPECT_FALSE(Exists(OwnPath()));

  // A second session publishes anew.
  ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  ASSERT_EQ(aclrtMalloc(&ptr, 3 * kMiB, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  scan = kiln::tools::ScanUsage({dir_}, true);
  dev = Own(scan, 0);
  ASSERT_NE(dev, nullptr);
  EXPECT_GE(dev->bytes_in_use, 3 * kMiB);
  EXPECT_LT(dev->bytes_in_use, 100 * kMiB);
  ASSERT_EQ(aclrtFree(ptr), ACL_SUCCESS);
  ASSERT_EQ(aclFinalize(), ACL_SUCCESS);
  EXPECT_FALSE(Exists(OwnPath()));
}

TEST_F(UsageRecordTest, EachDeviceHasItsOwnSlot) {
  ASSERT_EQ(setenv("KILN_CPU_DEVICES", "2", 1), 0);
  ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
  void* a = nullptr;
  void* b = nullptr;
  ASSERT_EQ(aclrtSetDevice(1), ACL_SUCCESS);
  ASSERT_EQ(aclrtMalloc(&b, 7 * kMiB, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  ASSERT_EQ(aclrtMalloc(&a, 2 * kMiB, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  auto scan = kiln::tools::ScanUsage({dir_}, true);
  const auto* d0 = Own(scan, 0);
  const auto* d1 = Own(scan, 1);
  ASSERT_NE(d0, nullptr);
  ASSERT_NE(d1, nullptr);
  EXPECT_GE(d0->bytes_in_use, 2 * kMiB);
  EXPECT_LT(d0->bytes_in_use, 7 * kMiB);
  EXPECT_GE(d1->bytes_in_use, 7 * kMiB);
  ASSERT_EQ(aclrtResetDevice(1), ACL_SUCCESS);
  scan = kiln::tools::ScanUsage({dir_}, true);
  EXPECT_NE(Own(scan, 0), nullptr);
  EXPECT_EQ(Own(scan, 1), nullptr);
  // Reopened, device 1 starts from nothing.
  ASSERT_EQ(aclrtSetDevice(1), ACL_SUCCESS);
  scan = kiln::tools::ScanUsage({dir_}, true);
  ASSERT_NE(Own(scan, 1), nullptr);
  EXPECT_EQ(Own(scan, 1)->bytes_in_use, 0u);
  ASSERT_EQ(aclrtFree(a), ACL_SUCCESS);
  ASSERT_EQ(aclFinalize(), ACL_SUCCESS);
  unsetenv("KILN_CPU_DEVICES");
  EXPECT_FALSE(Exists(OwnPath()));
}

TEST_F(UsageRecordTest, AForkedChildDoesNotWriteItsParentsRecord) {
  ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  void* ptr = nullptr;
  ASSERT_EQ(aclrtMalloc(&ptr, 10 * kMiB, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  pid_t child = fork();
  if (child == 0) {
    // The child's pool (a copy) allocates; its stores must land in its own memory.
    void* more = nullptr;
    int rc = aclrtMalloc(&more, 50 * kMiB, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS ? 0 : 1;
    _exit(rc);
  }
  int status = -1;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  auto scan = kiln::tools::ScanUsage({dir_}, true);
  const auto* dev = Own(scan, 0);
  ASSERT_NE(dev, nullptr);
  EXPECT_GE(dev->bytes_in_use, 10 * kMiB);
  EXPECT_LT(dev->bytes_in_use, 50 * kMiB);
  EXPECT_FALSE(Exists(dir_ + "/" + std::to_string(child) + ".usage"));
  ASSERT_EQ(aclrtFree(ptr), ACL_SUCCESS);
  ASSERT_EQ(aclFinalize(), ACL_SUCCESS);
}

TEST_F(UsageRecordTest, OffWritesNothing) {
  ASSERT_EQ(setenv(KILN_USAGE_DIR_ENV, "none", 1), 0);
  ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  void* ptr = nullptr;
  ASSERT_EQ(aclrtMalloc(&ptr, 4 * kMiB, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  const std::string name = "/" + std::to_string(getpid()) + ".usage";
  const std::string uid = std::to_string(geteuid());
  EXPECT_FALSE(Exists("/dev/shm/kiln-" + uid + name));
  EXPECT_FALSE(Exists("/tmp/kiln-" + uid + name));
  EXPECT_FALSE(Exists("none" + name));
  if (const char* xdg = std::getenv("XDG_RUNTIME_DIR")) {
    EXPECT_FALSE(Exists(std::string(xdg) + "/kiln" + name));
  }
  auto scan = kiln::tools::ScanUsage(true);
  EXPECT_TRUE(scan.off);
  EXPECT_TRUE(scan.processes.empty());
  ASSERT_EQ(aclrtFree(ptr), ACL_SUCCESS);
  ASSERT_EQ(aclFinalize(), ACL_SUCCESS);
}

TEST_F(UsageRecordTest, ReadsAHandWrittenRecordOfALiveProcess) {
  kilnUsageRecord r = ValidRecord(getpid());  // start_time 0: unknown, so not compared
  WriteFile(std::to_string(getpid()) + ".usage", &r, sizeof r);
  auto scan = kiln::tools::ScanUsage({dir_}, true);
  ASSERT_EQ(scan.processes.size(), 1u);
  EXPECT_EQ(scan.processes[0].name, "handmade");
  ASSERT_EQ(scan.processes[0].devices.size(), 1u);
  EXPECT_EQ(scan.processes[0].devices[0].device, 3);
  EXPECT_EQ(scan.processes[0].devices[0].bytes_in_use, 5 * kMiB);
  EXPECT_EQ(scan.processes[0].devices[0].bytes_reserved, 6 * kMiB);
}

TEST_F(UsageRecordTest, StaleRecordsAreIgnoredAndCleaned) {
  int32_t dead = DeadPid();
  kilnUsageRecord gone = ValidRecord(dead);
  WriteFile(std::to_string(dead) + ".usage", &gone, sizeof gone);
  // This pid is alive, but the record says it started at another time: the pid was reused.
  kilnUsageRecord reused = ValidRecord(getpid());
  reused.start_time = 1;
  WriteFile(std::to_string(getpid()) + ".usage", &reused, sizeof reused);

  auto keep = kiln::tools::ScanUsage({dir_}, /*clean_stale=*/false);
  EXPECT_TRUE(keep.processes.empty());
  EXPECT_TRUE(Exists(dir_ + "/" + std::to_string(dead) + ".usage"));

  auto scan = kiln::tools::ScanUsage({dir_}, /*clean_stale=*/true);
  EXPECT_TRUE(scan.processes.empty());
  EXPECT_TRUE(scan.skipped.empty());
  EXPECT_EQ(scan.removed.size(), 2u);
  EXPECT_FALSE(Exists(dir_ + "/" + std::to_string(dead) + ".usage"));
  EXPECT_FALSE(Exists(OwnPath()));
}

TEST_F(UsageRecordTest, MalformedFilesAreSkippedNotDeleted) {
  const std::string me = std::to_string(getpid());
  WriteFile("1.usage", "", 0);  // empty
  std::string junk(sizeof(kilnUsageRecord), 'x');
  WriteFile("2.usage", junk.data(), junk.size());  // bad magic
  kilnUsageRecord r = ValidRecord(getpid());
  WriteFile("3.usage", &r, sizeof r / 2);  // truncated
  r.version = 99;
  WriteFile("4.usage", &r, sizeof r);  // a version this reader does not know
  r = ValidRecord(getpid());
  WriteFile("5.usage", &r, sizeof r);          // pid does not match the name
  WriteFile("abc.usage", &r, sizeof r);        // not <pid>.usage
  mkdir((dir_ + "/6.usage").c_str(), 0755);    // a directory
  WriteFile(me + ".usage.tmp", &r, sizeof r);  // a record being made: not read at all

  auto scan = kiln::tools::ScanUsage({dir_}, true);
  EXPECT_TRUE(scan.processes.empty());
  EXPECT_EQ(scan.skipped.size(), 7u);
  for (const auto& why : scan.skipped) EXPECT_NE(why.find(": "), std::string::npos) << why;
  EXPECT_TRUE(Exists(dir_ + "/2.usage"));
  EXPECT_TRUE(Exists(dir_ + "/4.usage"));
}

}  // namespace
