// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "ir/tensor.h"

#include "base/fp16.h"

namespace kiln::ir {

Tensor Tensor::Copy(DataType dtype, std::vector<int64_t> dims, const void* src, size_t bytes) {
  std::shared_ptr<uint8_t> buf(new uint8_t[bytes ? bytes : 1](), std::default_delete<uint8_t[]>());
  if (src != nullptr && bytes != 0) std::memcpy(buf.get(), src, bytes);
  return Tensor(dtype, std::move(dims), std::move(buf), bytes);
}

int64_t Tensor::num_elements() const {
  int64_t n = 1;
  for (int64_t d : dims_) n *= d;
  return n;
}

std::vector<int64_t> Tensor::AsInt64s() const {
  std::vector<int64_t> out;
  int64_t n = num_elements();
  if (IsPacked(dtype_) || StorageBytes(dtype_, static_cast<uint64_t>(n)) > bytes_) return out;
  out.reserve(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    switch (dtype_) {
      case DataType::kInt64:
        out.push_back(data<int64_t>()[i]);
        break;
      case DataType::kInt32:
        out.push_back(data<int32_t>()[i]);
        break;
      case DataType::kInt16:
        out.push_back(data<int16_t>()[i]);
        break;
      case DataType::kInt8:
        out.push_back(data<int8_t>()[i]);
        break;
      case DataType::kUint8:
        out.push_back(data<uint8_t>()[i]);
        break;
      case DataType::kUint16:
        out.push_back(data<uint16_t>()[i]);
        break;
      case DataType::kUint32:
        out.push_back(data<uint32_t>()[i]);
        break;
      case DataType::kUint64:
        out.push_back(static_cast<int64_t>(data<uint64_t>()[i]));
        break;
      case DataType::kBool:
        out.push_back(data<uint8_t>()[i] != 0);
        break;
      default:
        return {};
    }
  }
  return out;
}

std::vector<double> Tensor::AsDoubles() const {
  std::vector<double> out;
  int64_t n = num_elements();
  if (IsPacked(dtype_) || StorageBytes(dtype_, static_cast<uint64_t>(n)) > bytes_) return out;
  out.reserve(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    switch (dtype_) {
      case DataType::kFloat32:
        out.push_back(data<float>()[i]);
        break;
      case DataType::kFloat64:
        out.push_back(data<double>()[i]);
        break;
      case DataType::kFloat16:
        out.push_back(HalfToFloat(data<uint16_t>()[i]));
        break;
      default: {
        auto ints = AsInt64s();
        return std::vector<double>(ints.begin(), ints.end());
      }
    }
  }
  return out;
}

}  // namespace kiln::ir
