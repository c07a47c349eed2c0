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

#include "base/regular_file.h"
#include "base/status.h"

namespace kiln::runtime {

class ModelFile {
 public:
  // Opens `path` (kGeModelPathInvalid naming it when it is missing, not a regular file,
  // unreadable or empty).
  static Result<ModelFile> Open(const char* path);

  size_t size() const { return static_cast<size_t>(file_.size()); }
  // Reads the whole file into `into` (size() bytes); kGeModelPathInvalid on a short read.
  Status ReadAll(uint8_t* into) const { return file_.ReadAll(into); }

 private:
  explicit ModelFile(RegularFile file) : file_(std::move(file)) {}
  RegularFile file_;
};

}  // namespace kiln::runtime
