// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "ir/data_type.h"
#include "ir/shape.h"

namespace kiln::ir {

// Constant tensor data (an initializer, a Constant node's value, a folded result). The bytes
// are little-endian, dense, row-major, and shared: copies of a Tensor share one buffer, which
// may be owned memory or a region of a mapped file.
class Tensor {
 public:
  Tensor() = default;
  Tensor(DataType dtype, std::vector<int64_t> dims, std::shared_ptr<const uint8_t> data,
         size_t bytes)
      : dtype_(dtype), dims_(std::move(dims)), data_(std::move(data)), bytes_(bytes) {}

  // A tensor that owns a copy of `bytes` bytes at `src` (zero-filled when src is null).
  static Tensor Copy(DataType dtype, std::vector<int64_t> dims, const void* src, size_t bytes);
  template <typename T>
  static Tensor FromVector(DataType dtype, std::vector<int64_t> dims, const std::vector<T>& v) {
    return Copy(dtype, std::move(dims), v.data(), v.size() * sizeof(T));
  }

  DataType dtype() const { return dtype_; }
  const std::vector<int64_t>& dims() const { return dims_; }
  Shape shape() const { return Shape::Of(dims_); }
  int64_t num_elements() const;
  size_t bytes() const { return bytes_; }
  const uint8_t* raw() const { return data_.get(); }
  template <typename T>
  const T* data() const {
    return reinterpret_cast<const T*>(data_.get());
  }
  // The values of an integer tensor widened to int64 (for shape arithmetic); empty when the
  // tensor is not an integer type.
  std::vector<int64_t> AsInt64s() const;
  // The values of a float32 / float64 / float16 tensor as doubles.
  std::vector<double> AsDoubles() const;

 private:
  DataType dtype_ = DataType::kUndefined;
  std::vector<int64_t> dims_;
  std::shared_ptr<const uint8_t> data_;
  size_t bytes_ = 0;
};

}  // namespace kiln::ir
