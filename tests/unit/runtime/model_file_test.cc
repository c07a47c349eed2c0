// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "runtime/model_file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "base/error_codes.h"
#include "format/om_file.h"

namespace kiln::runtime {
namespace {

// A device that runs preparation pieces last to first, each once, and counts them: the pieces
// of a read must land where they belong whatever order they run in.
class BackwardsDevice final : public hal::Device {
 public:
  const hal::DeviceInfo& info() const override { return info_; }
  hal::Allocator& allocator() override { std::abort(); }
  std::shared_ptr<hal::Queue> CreateQueue() override { return nullptr; }
  std::shared_ptr<hal::Event> CreateEvent() override { return nullptr; }
  uint64_t busy_ns() const override { return 0; }
  Status RunPreparation(FunctionRef<Status()> prepare) override {
    ++preparations;
    return prepare();
  }
  void ForEachPreparation(size_t n, FunctionRef<void(size_t)> task) override {
    pieces += n;
    for (size_t i = n; i-- > 0;) task(i);
  }
  int preparations = 0;
  size_t pieces = 0;

 private:
  hal::DeviceInfo info_;
};

class ModelFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = ::testing::TempDir() + "model_file_test_" + std::to_string(getpid()) + ".om";
  }
  void TearDown() override { std::filesystem::remove(path_); }
  // A file of `bytes` bytes where no two aligned 4-byte words repeat within 16 GiB.
  std::vector<uint8_t> Write(size_t bytes) {
    std::vector<uint8_t> data(bytes);
    for (size_t i = 0; i < bytes; ++i) data[i] = static_cast<uint8_t>((i >> (8 * (i % 4))) ^ 0x5a);
    std::ofstream(path_, std::ios::binary)
        .write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(bytes));
    return data;
  }
  std::string path_;
};

// A large file is read in pieces on the device's preparation threads; a small one at once.
TEST_F(ModelFileTest, ALargeFileIsReadInPiecesThatLandInPlace) {
  const std::vector<uint8_t> data = Write((size_t{37} << 20) + 4097);  // not a whole piece
  auto file = ModelFile::Open(path_.c_str());
  ASSERT_TRUE(file.ok()) << file.status().message();
  BackwardsDevice device;
  std::vector<uint8_t> got(data.size(), 0);
  ASSERT_TRUE(file->ReadAll(got.data(), &device).ok());
  EXPECT_EQ(device.preparations, 1);
  EXPECT_GT(device.pieces, 2u);
  EXPECT_TRUE(got == data);

  std::vector<uint8_t> alone(data.size(), 0);
  ASSERT_TRUE(file->ReadAll(alone.data()).ok());  // no device: one read
  EXPECT_TRUE(alone == data);
}

// Read in pieces, the file is checksummed piece by piece as it is read: the CRC-32 of the bytes
// after the .om header, which format::VerifyOm then checks instead of reading them again.
TEST_F(ModelFileTest, PiecesGiveTheCrcOfTheBytesAfterTheHeader) {
  std::vector<uint8_t> data = Write((size_t{25} << 20) + 77);
  auto file = ModelFile::Open(path_.c_str());
  ASSERT_TRUE(file.ok());
  BackwardsDevice device;
  std::vector<uint8_t> got(data.size());
  std::optional<uint32_t> crc;
  ASSERT_TRUE(file->ReadAll(got.data(), &device, &crc).ok());
  ASSERT_TRUE(crc.has_value());
  const size_t header = format::kHeaderSize;
  EXPECT_EQ(*crc, format::Crc32(data.data() + header, data.size() - header));
}

TEST_F(ModelFileTest, ASmallFileIsOneReadEvenWithADevice) {
  const std::vector<uint8_t> data = Write(100000);
  auto file = ModelFile::Open(path_.c_str());
  ASSERT_TRUE(file.ok());
  BackwardsDevice device;
  std::vector<uint8_t> got(data.size());
  ASSERT_TRUE(file->ReadAll(got.data(), &device).ok());
  EXPECT_EQ(device.pieces, 0u);
  EXPECT_TRUE(got == data);
}

// A file that shrinks between the open and the read fails with the model-path code, naming the
// file and how far the read came — the first piece that came short, whatever order they ran in.
TEST_F(ModelFileTest, AFileThatShrankFailsNamingItAndTheFirstShortPiece) {
  Write(size_t{40} << 20);
  auto file = ModelFile::Open(path_.c_str());
  ASSERT_TRUE(file.ok());
  std::filesystem::resize_file(path_, (size_t{20} << 20) + 5);
  BackwardsDevice device;
  std::vector<uint8_t> got(size_t{40} << 20);
  Status read = file->ReadAll(got.data(), &device);
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.code(), code::kGeModelPathInvalid);
  EXPECT_NE(read.message().find(path_), std::string::npos) << read.message();
  EXPECT_NE(read.message().find("(20971525 of 41943040 bytes read)"), std::string::npos)
      << read.message();
}

}  // namespace
}  // namespace kiln::runtime
