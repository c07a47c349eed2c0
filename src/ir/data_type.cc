// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "ir/data_type.h"

namespace kiln::ir {

size_t SizeOf(DataType type) {
  switch (type) {
    case DataType::kBool:
    case DataType::kUint8:
    case DataType::kInt8:
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
      return 0;
  }
  return 0;
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
