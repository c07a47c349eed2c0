// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "ir/data_type.h"

#include <cstdint>

namespace kiln::ir {

size_t SizeOf(DataType type) {
  switch (type) {
    case DataType::kBool:
    case DataType::kUint8:
    case DataType::kInt8:
    case DataType::kFloat8E4M3FN:
    case DataType::kFloat8E4M3FNUZ:
    case DataType::kFloat8E5M2:
    case DataType::kFloat8E5M2FNUZ:
    case DataType::kFloat8E8M0:
      return 1;
    case DataType::kUint16:
    case DataType::kInt16:
    case DataType::kFloat16:
    case DataType::kBFloat16:
      return 2;
    case DataType::kFloat32:
    case DataType::kInt32:
    case DataType::kUint32:
      return 4;
    case DataType::kInt64:
    case DataType::kUint64:
    case DataType::kFloat64:
      return 8;
    case DataType::kUndefined:
    case DataType::kString:
    case DataType::kUint4:
    case DataType::kInt4:
    case DataType::kFloat4E2M1:
    case DataType::kUint2:
    case DataType::kInt2:
      return 0;
  }
  return 0;
}

size_t BitsOf(DataType type) {
  switch (type) {
    case DataType::kUint4:
    case DataType::kInt4:
    case DataType::kFloat4E2M1:
      return 4;
    case DataType::kUint2:
    case DataType::kInt2:
      return 2;
    default:
      return 8 * SizeOf(type);
  }
}

uint64_t StorageBytes(DataType type, uint64_t count) {
  const uint64_t bits = BitsOf(type);
  if (bits == 0 || count == 0) return 0;
  if (count > UINT64_MAX / bits) return UINT64_MAX;
  return (count * bits + 7) / 8;
}

bool IsPacked(DataType type) { return BitsOf(type) % 8 != 0; }

bool IsLowPrecision(DataType type) {
  const int32_t t = static_cast<int32_t>(type);
  return t >= static_cast<int32_t>(DataType::kFloat8E4M3FN) &&
         t <= static_cast<int32_t>(DataType::kInt2);
}

const char* Name(DataType type) {
  switch (type) {
    case DataType::kFloat32:
      return "float32";
    case DataType::kUint8:
      return "uint8";
    case DataType::kInt8:
      return "int8";
    case DataType::kUint16:
      return "uint16";
    case DataType::kInt16:
      return "int16";
    case DataType::kInt32:
      return "int32";
    case DataType::kInt64:
      return "int64";
    case DataType::kString:
      return "string";
    case DataType::kBool:
      return "bool";
    case DataType::kFloat16:
      return "float16";
    case DataType::kFloat64:
      return "float64";
    case DataType::kUint32:
      return "uint32";
    case DataType::kUint64:
      return "uint64";
    case DataType::kBFloat16:
      return "bfloat16";
    case DataType::kFloat8E4M3FN:
      return "float8e4m3fn";
    case DataType::kFloat8E4M3FNUZ:
      return "float8e4m3fnuz";
    case DataType::kFloat8E5M2:
      return "float8e5m2";
    case DataType::kFloat8E5M2FNUZ:
      return "float8e5m2fnuz";
    case DataType::kUint4:
      return "uint4";
    case DataType::kInt4:
      return "int4";
    case DataType::kFloat4E2M1:
      return "float4e2m1";
    case DataType::kFloat8E8M0:
      return "float8e8m0";
    case DataType::kUint2:
      return "uint2";
    case DataType::kInt2:
      return "int2";
    case DataType::kUndefined:
      break;
  }
  return "undefined";
}

DataType FromOnnx(int32_t onnx_type) {
  switch (onnx_type) {
    case 1:
    case 2:
    case 3:
    case 4:
    case 5:
    case 6:
    case 7:
    case 8:
    case 9:
    case 10:
    case 11:
    case 12:
    case 13:
    case 16:
    case 17:
    case 18:
    case 19:
    case 20:
    case 21:
    case 22:
    case 23:
    case 24:
    case 25:
    case 26:
      return static_cast<DataType>(onnx_type);
    default:
      return DataType::kUndefined;
  }
}

bool IsFloat(DataType t) {
  return t == DataType::kFloat16 || t == DataType::kBFloat16 || t == DataType::kFloat32 ||
         t == DataType::kFloat64;
}

bool IsInteger(DataType t) {
  switch (t) {
    case DataType::kUint8:
    case DataType::kInt8:
    case DataType::kUint16:
    case DataType::kInt16:
    case DataType::kInt32:
    case DataType::kInt64:
    case DataType::kUint32:
    case DataType::kUint64:
      return true;
    default:
      return false;
  }
}

bool IsSigned(DataType t) {
  return IsFloat(t) || t == DataType::kInt8 || t == DataType::kInt16 || t == DataType::kInt32 ||
         t == DataType::kInt64;
}

}  // namespace kiln::ir
