// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace kiln::ir {

// Element types. The values are ONNX's TensorProto.DataType numbers, so the front end and the
// .om file store them unchanged.
enum class DataType : int32_t {
  kUndefined = 0,
  kFloat32 = 1,
  kUint8 = 2,
  kInt8 = 3,
  kUint16 = 4,
  kInt16 = 5,
  kInt32 = 6,
  kInt64 = 7,
  kString = 8,
  kBool = 9,
  kFloat16 = 10,
  kFloat64 = 11,
  kUint32 = 12,
  kUint64 = 13,
  kBFloat16 = 16,
};

// Bytes per element; 0 for kUndefined and kString.
size_t SizeOf(DataType type);
// "float32", "int64", ...; "undefined" for unknown values.
const char* Name(DataType type);
// The type for an ONNX TensorProto.DataType number, or kUndefined when Kiln has no such type.
DataType FromOnnx(int32_t onnx_type);
bool IsFloat(DataType type);    // float16, bfloat16, float32, float64
bool IsInteger(DataType type);  // signed or unsigned integers (not bool)
bool IsSigned(DataType type);   // floats and signed integers

}  // namespace kiln::ir
