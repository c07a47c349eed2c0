// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "base/status.h"

namespace kiln::frontend::onnx {

// A read-only memory mapping of a whole file, shared by the tensors that point into it.
class MappedFile {
 public:
  static Result<std::shared_ptr<MappedFile>> Open(const std::string& path);
  ~MappedFile();
  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  MappedFile() = default;
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace kiln::frontend::onnx
