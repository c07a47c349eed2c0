// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "base/regular_file.h"
#include "base/status.h"

namespace kiln::frontend::onnx {

// A read-only memory mapping of a whole file, shared by the tensors that point into it.
class MappedFile {
 public:
  // `path`, which must be a regular file (kInvalidFile otherwise, or when it cannot be read).
  static Result<std::shared_ptr<MappedFile>> Open(const std::string& path);
  // `relative` inside directory `dir`, contained by resolution rather than by spelling: the
  // kernel resolves it beneath `dir` (openat2 RESOLVE_BENEATH; where the kernel lacks it, both
  // paths' real paths are compared), so an absolute path, "..", or a symbolic link to anything
  // outside `dir` is refused (kInvalidFile saying so), and so is anything but a regular file.
  static Result<std::shared_ptr<MappedFile>> OpenBeneath(const std::string& dir,
                                                         const std::string& relative);
  ~MappedFile();
  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  MappedFile() = default;
  // Maps a file base/regular_file.h opened and checked; `path` names it in errors.
  static Result<std::shared_ptr<MappedFile>> Map(const RegularFile& file, const std::string& path);
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace kiln::frontend::onnx
