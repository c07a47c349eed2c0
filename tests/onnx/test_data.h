// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The ONNX backend test data as the conformance runner sees it: TensorProto files read into
// plain host tensors, the ONNX <-> AscendCL element-type tables, and the output comparison of
// onnx/backend/test/runner (np.testing.assert_allclose after an exact shape and dtype check).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace onnx {
class TensorProto;
}  // namespace onnx

namespace kiln::conformance {

// ONNX TensorProto.DataType values the runner handles (the others are reported as unsupported).
enum OnnxType : int32_t {
  kOnnxUndefined = 0,
  kOnnxFloat = 1,
  kOnnxUint8 = 2,
  kOnnxInt8 = 3,
  kOnnxUint16 = 4,
  kOnnxInt16 = 5,
  kOnnxInt32 = 6,
  kOnnxInt64 = 7,
  kOnnxString = 8,
  kOnnxBool = 9,
  kOnnxFloat16 = 10,
  kOnnxDouble = 11,
  kOnnxUint32 = 12,
  kOnnxUint64 = 13,
  kOnnxBfloat16 = 16,
};

// Bytes per element of an ONNX type of whole bytes the runner handles; 0 for any other type
// (the packed 4- and 2-bit types among them).
size_t OnnxTypeSize(int32_t onnx_type);
// Bits per element of an ONNX type the runner handles (4 or 2 for the packed types); 0 else.
size_t OnnxTypeBits(int32_t onnx_type);
// Bytes of `count` elements (packed types: two or four per byte, the last byte padded).
size_t OnnxStorageBytes(int32_t onnx_type, size_t count);
// The float8, float4 and packed integer types (ONNX 17..26): compared code by code.
bool IsLowPrecisionOnnxType(int32_t onnx_type);

// "FLOAT", "INT64", ... (the TensorProto enum names; "TYPE_<n>" when unknown).
std::string OnnxTypeName(int32_t onnx_type);

// The aclDataType value of an ONNX type, or -1 (ACL_DT_UNDEFINED) when there is none.
int AclTypeOfOnnx(int32_t onnx_type);

// The ONNX type of an aclDataType value, or kOnnxUndefined.
int32_t OnnxTypeOfAcl(int acl_type);

// A dense little-endian tensor in host memory.
struct HostTensor {
  int32_t onnx_type = kOnnxUndefined;
  std::vector<int64_t> dims;
  std::vector<uint8_t> bytes;  // OnnxStorageBytes(onnx_type, ElementCount()) bytes

  size_t ElementCount() const;
};

// "[2,3,4]".
std::string DimsToString(const std::vector<int64_t>& dims);

// Converts a TensorProto (raw_data or the typed fields, float16/bfloat16/bool/small ints in
// int32_data, uint32/uint64 in uint64_data). False with `error` set for external data, strings
// and types the runner does not handle, or a field whose length does not match the dims.
bool TensorFromProto(const onnx::TensorProto& proto, HostTensor* out, std::string* error);

// Reads a serialized TensorProto file (input_N.pb / output_N.pb).
bool LoadTensorFile(const std::string& path, HostTensor* out, std::string* error);

// Tolerances of one case (data.json may override the defaults).
struct Tolerance {
  double rtol = 1e-3;
  double atol = 1e-7;
};

struct Comparison {
  bool ok = false;
  std::string message;   // empty when ok
  double max_abs = 0.0;  // largest |actual - expected| over finite pairs
  double max_rel = 0.0;  // largest |actual - expected| / |expected| over finite, non-zero expected
};

// Compares one output the way the ONNX backend runner does: the shape and the dtype must be
// equal; floating types then pass when |actual - expected| <= atol + rtol * |expected| for every
// element, NaN matching NaN and infinities matching exactly; integer and bool types must be
// equal element by element. `what` names the output in the message.
Comparison CompareTensors(const HostTensor& actual, const HostTensor& expected,
                          const Tolerance& tolerance, const std::string& what);

}  // namespace kiln::conformance
