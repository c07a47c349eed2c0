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
  // The low-precision types of ONNX 1.14-1.22 (kernels/low_precision.h converts them). The
  // 4-bit and 2-bit ones are packed: two (four) elements per byte, the first in the low bits.
  kFloat8E4M3FN = 17,
  kFloat8E4M3FNUZ = 18,
  kFloat8E5M2 = 19,
  kFloat8E5M2FNUZ = 20,
  kUint4 = 21,
  kInt4 = 22,
  kFloat4E2M1 = 23,
  kFloat8E8M0 = 24,
  kUint2 = 25,
  kInt2 = 26,
};

// Bytes per element of a type of whole bytes; 0 for kUndefined, kString and the packed
// sub-byte types (sizes of those come from StorageBytes).
size_t SizeOf(DataType type);
// Bits per element (4 and 2 for the packed types); 0 for kUndefined and kString.
size_t BitsOf(DataType type);
// Bytes that `count` elements of `type` occupy: packed for the sub-byte types, the last byte
// padded. Saturates at UINT64_MAX instead of overflowing.
uint64_t StorageBytes(DataType type, uint64_t count);
// The sub-byte types, stored packed.
bool IsPacked(DataType type);
// The float8, float4 and sub-byte integer types: storage and conversion only (Cast, CastLike,
// QuantizeLinear, DequantizeLinear and the ops that move data), no arithmetic.
bool IsLowPrecision(DataType type);
// "float32", "int64", ...; "undefined" for unknown values.
const char* Name(DataType type);
// The type for an ONNX TensorProto.DataType number, or kUndefined when Kiln has no such type.
DataType FromOnnx(int32_t onnx_type);
bool IsFloat(DataType type);    // float16, bfloat16, float32, float64
bool IsInteger(DataType type);  // signed or unsigned integers (not bool)
bool IsSigned(DataType type);   // floats and signed integers

}  // namespace kiln::ir
