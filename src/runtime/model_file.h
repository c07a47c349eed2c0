// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Reading an .om file: the checks and messages of aclmdlLoadFromFile / aclmdlQuerySize for a
// path (missing, not a regular file, unreadable, empty, short read), and a read of the whole
// file into memory the caller provides — so the model loader can read a file straight into the
// block that keeps its weights (Model::LoadFile) instead of copying them there.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "base/regular_file.h"
#include "base/status.h"
#include "hal/device.h"

namespace kiln::runtime {

class ModelFile {
 public:
  // Opens `path` (kGeModelPathInvalid naming it when it is missing, not a regular file,
  // unreadable or empty).
  static Result<ModelFile> Open(const char* path);

  size_t size() const { return static_cast<size_t>(file_.size()); }
  // Reads the whole file into `into` (size() bytes); kGeModelPathInvalid on a short read. With
  // a device, a large file is read in pieces by the device's preparation threads, each piece
  // checksummed while it is in cache: most of a read into fresh memory is the kernel zeroing
  // the pages it copies into, and two cores do that and the CRC in about half the time (a
  // 100 MB ResNet-50 .om: 20 ms to read and 11 to check on one). Then `payload_crc32` (when
  // not null) receives the CRC-32 of the bytes after the .om header, for format::VerifyOm.
  Status ReadAll(uint8_t* into, hal::Device* device = nullptr,
                 std::optional<uint32_t>* payload_crc32 = nullptr) const;

 private:
  explicit ModelFile(RegularFile file) : file_(std::move(file)) {}
  RegularFile file_;
};

}  // namespace kiln::runtime
