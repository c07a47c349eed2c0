// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Reading an .om file: the checks and messages of aclmdlLoadFromFile / aclmdlQuerySize for a
// path (missing, not a regular file, unreadable, empty, short read), and one read() of the
// whole file into memory the caller provides — so the model loader can read a file straight
// into the block that keeps its weights (Model::LoadFile) instead of copying them there.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

#include "base/status.h"

namespace kiln::runtime {

class ModelFile {
 public:
  // Opens `path` (kGeModelPathInvalid naming it when it is missing, not a regular file,
  // unreadable or empty).
  static Result<ModelFile> Open(const char* path);
  ModelFile(ModelFile&& other) noexcept;
  ModelFile& operator=(ModelFile&&) = delete;
  ~ModelFile();

  size_t size() const { return size_; }
  // Reads the whole file into `into` (size() bytes); kGeModelPathInvalid on a short read.
  Status ReadAll(uint8_t* into);

 private:
  ModelFile(int fd, size_t size, std::string path) : fd_(fd), size_(size), path_(std::move(path)) {}
  int fd_ = -1;
  size_t size_ = 0;
  std::string path_;
};

}  // namespace kiln::runtime
