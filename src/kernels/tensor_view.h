// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// TensorView: what a kernel reads and writes — an element type, dims and host-addressable
// bytes it does not own. HostTensor: a tensor that owns its bytes (control-flow bodies,
// kernel-private buffers).
#pragma once

#include <cstdint>
#include <vector>

#include "ir/data_type.h"

namespace kiln::kernels {

using Dims = std::vector<int64_t>;
using ir::DataType;

// Element count of `dims` (1 for a scalar); assumes every dim >= 0 and no overflow, which the
// executor checks before a tensor reaches a kernel.
inline int64_t NumElements(const Dims& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

struct TensorView {
  DataType dtype = DataType::kUndefined;
  Dims dims;
  void* data = nullptr;

  int64_t num_elements() const { return NumElements(dims); }
  size_t bytes() const {
    return static_cast<size_t>(ir::StorageBytes(dtype, static_cast<uint64_t>(num_elements())));
  }
  size_t rank() const { return dims.size(); }
  template <typename T>
  T* as() const {
    return static_cast<T*>(data);
  }
};

struct HostTensor {
  DataType dtype = DataType::kUndefined;
  Dims dims;
  std::vector<uint8_t> bytes;

  HostTensor() = default;
  HostTensor(DataType t, Dims d) : dtype(t), dims(std::move(d)) {
    bytes.resize(
        static_cast<size_t>(ir::StorageBytes(dtype, static_cast<uint64_t>(NumElements(dims)))));
  }
  TensorView view() { return TensorView{dtype, dims, bytes.data()}; }
  TensorView view() const { return TensorView{dtype, dims, const_cast<uint8_t*>(bytes.data())}; }
};

}  // namespace kiln::kernels
