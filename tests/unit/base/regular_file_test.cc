// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "base/regular_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

namespace kiln {
namespace {

constexpr int kCode = 145000;

class RegularFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ::testing::TempDir() + "regular_file_test_" + std::to_string(getpid());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string Write(const std::string& name, const std::string& text) {
    const std::string path = dir_ + "/" + name;
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }
  std::string dir_;
};

TEST_F(RegularFileTest, ReadsARegularFileWhole) {
  auto f = RegularFile::Open(Write("a.txt", "hello\nworld"), "config", kCode);
  ASSERT_TRUE(f.ok()) << f.status().message();
  EXPECT_EQ(f->size(), 11u);
  auto text = f->ReadText();
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(*text, "hello\nworld");
  auto bytes = f->ReadBytes();  // reads from the start again
  ASSERT_TRUE(bytes.ok());
  EXPECT_EQ(bytes->size(), 11u);
}

TEST_F(RegularFileTest, ReadsARangeAndSaysWhereAShortOneEnded) {
  auto f = RegularFile::Open(Write("r.bin", "0123456789"), "model file", kCode);
  ASSERT_TRUE(f.ok());
  char got[4] = {};
  ASSERT_TRUE(f->ReadRange(got, 3, 4).ok());
  EXPECT_EQ(std::string(got, 4), "3456");
  Status past = f->ReadRange(got, 8, 4);  // two of the four bytes exist
  ASSERT_FALSE(past.ok());
  EXPECT_EQ(past.code(), kCode);
  EXPECT_NE(past.message().find("bytes 8 to 12 of model file '"), std::string::npos)
      << past.message();
  std::filesystem::resize_file(dir_ + "/r.bin", 6);  // shrank after the open
  Status shrank = f->ReadRange(got, 4, 4);
  ASSERT_FALSE(shrank.ok());
  EXPECT_NE(shrank.message().find("(6 of 10 bytes read)"), std::string::npos) << shrank.message();
}

TEST_F(RegularFileTest, AMissingFileSaysSoWithTheCallersCode) {
  auto f = RegularFile::Open(dir_ + "/missing.json", "acl.json file", kCode);
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.status().code(), kCode);
  EXPECT_NE(f.status().message().find("acl.json file '"), std::string::npos);
  EXPECT_NE(f.status().message().find("does not exist"), std::string::npos);
}

// A FIFO with no writer would block open() and then read() forever; /dev/zero never ends; a
// folder is not a file: each is refused at once.
TEST_F(RegularFileTest, AFifoADeviceAndAFolderAreRefusedWithoutBlocking) {
  const std::string fifo = dir_ + "/pipe";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  const auto start = std::chrono::steady_clock::now();
  for (const std::string& path : {fifo, std::string("/dev/zero"), dir_}) {
    auto f = RegularFile::Open(path, "model file", kCode);
    ASSERT_FALSE(f.ok()) << path;
    EXPECT_EQ(f.status().code(), kCode);
    EXPECT_NE(f.status().message().find("is not a regular file"), std::string::npos)
        << f.status().message();
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

TEST_F(RegularFileTest, AFileOverTheLimitIsRefused) {
  auto f = RegularFile::Open(Write("big", std::string(100, 'x')), "config", kCode, 99);
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.status().message().find("holds 100 bytes; at most 99"), std::string::npos)
      << f.status().message();
  EXPECT_TRUE(RegularFile::Open(Write("ok", std::string(99, 'x')), "config", kCode, 99).ok());
}

// A symlink to a regular file is read (it is the file the user named); one to a device is not.
TEST_F(RegularFileTest, ASymlinkIsJudgedByWhatItOpens) {
  const std::string target = Write("t.txt", "abc");
  const std::string to_file = dir_ + "/to_file", to_zero = dir_ + "/to_zero";
  ASSERT_EQ(symlink(target.c_str(), to_file.c_str()), 0);
  ASSERT_EQ(symlink("/dev/zero", to_zero.c_str()), 0);
  EXPECT_TRUE(RegularFile::Open(to_file, "config", kCode).ok());
  EXPECT_FALSE(RegularFile::Open(to_zero, "config", kCode).ok());
}

}  // namespace
}  // namespace kiln
