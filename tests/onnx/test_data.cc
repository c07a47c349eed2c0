// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "tests/onnx/test_data.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "base/fp16.h"
#include "onnx/onnx_pb.h"

namespace kiln::conformance {
namespace {

std::string Num(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

// Larger tensors are refused (the test data's largest is a few MiB).
constexpr size_t kMaxTensorBytes = size_t{1} << 32;

bool IsFloating(int32_t t) {
  return t == kOnnxFloat || t == kOnnxDouble || t == kOnnxFloat16 || t == kOnnxBfloat16;
}

bool IsUnsigned(int32_t t) {
  return t == kOnnxUint8 || t == kOnnxUint16 || t == kOnnxUint32 || t == kOnnxUint64;
}

template <typename T>
T LoadAs(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

double LoadFloating(int32_t t, const uint8_t* p) {
  switch (t) {
    case kOnnxFloat:
      return LoadAs<float>(p);
    case kOnnxDouble:
      return LoadAs<double>(p);
    case kOnnxFloat16:
      return HalfToFloat(LoadAs<uint16_t>(p));
    case kOnnxBfloat16: {
      uint32_t bits = static_cast<uint32_t>(LoadAs<uint16_t>(p)) << 16;
      float f;
      std::memcpy(&f, &bits, sizeof f);
      return f;
    }
    default:
      return 0.0;
  }
}

int64_t LoadSigned(int32_t t, const uint8_t* p) {
  switch (t) {
    case kOnnxInt8:
      return LoadAs<int8_t>(p);
    case kOnnxInt16:
      return LoadAs<int16_t>(p);
    case kOnnxInt32:
      return LoadAs<int32_t>(p);
    case kOnnxInt64:
      return LoadAs<int64_t>(p);
    case kOnnxBool:
      return p[0] != 0 ? 1 : 0;
    default:
      return 0;
  }
}

uint64_t LoadUnsigned(int32_t t, const uint8_t* p) {
  switch (t) {
    case kOnnxUint8:
      return p[0];
    case kOnnxUint16:
      return LoadAs<uint16_t>(p);
    case kOnnxUint32:
      return LoadAs<uint32_t>(p);
    case kOnnxUint64:
      return LoadAs<uint64_t>(p);
    default:
      return 0;
  }
}

// Bytes one entry of the typed field fills: one element, or one byte of a packed type.
size_t EntryBytes(int32_t onnx_type) {
  return OnnxTypeBits(onnx_type) % 8 != 0 ? 1 : OnnxTypeSize(onnx_type);
}

// Stores the typed repeated field (its length already checked) into `out`.
template <typename Field, typename Store>
bool CopyField(const Field& field, HostTensor* out, Store store) {
  const size_t esize = EntryBytes(out->onnx_type);
  for (int i = 0; i < field.size(); ++i) store(field.Get(i), &out->bytes[i * esize]);
  return true;
}

// Element i of a low-precision tensor as its code (a byte, or a 4- or 2-bit field).
unsigned CodeAt(int32_t onnx_type, const std::vector<uint8_t>& bytes, size_t i) {
  const size_t bits = OnnxTypeBits(onnx_type);
  if (bits == 8) return bytes[i];
  const size_t per_byte = 8 / bits;
  return (bytes[i / per_byte] >> (bits * (i % per_byte))) & ((1u << bits) - 1);
}

// Whether `code` is a NaN of the float8 type (the types have several NaN codes, or one).
bool IsNanCode(int32_t onnx_type, unsigned code) {
  switch (onnx_type) {
    case 17:  // FLOAT8E4M3FN: S.1111.111
      return (code & 0x7f) == 0x7f;
    case 18:  // FLOAT8E4M3FNUZ
    case 20:  // FLOAT8E5M2FNUZ: only 1.0000.000
      return code == 0x80;
    case 19:  // FLOAT8E5M2: S.11111.mm, mm != 0
      return (code & 0x7c) == 0x7c && (code & 0x03) != 0;
    case 24:  // FLOAT8E8M0
      return code == 0xff;
    default:
      return false;
  }
}

// The typed field that holds the values of `onnx_type` when there is no raw_data.
const char* TypedFieldName(int32_t onnx_type) {
  switch (onnx_type) {
    case kOnnxFloat:
      return "float_data";
    case kOnnxDouble:
      return "double_data";
    case kOnnxInt64:
      return "int64_data";
    case kOnnxUint32:
    case kOnnxUint64:
      return "uint64_data";
    default:
      return "int32_data";
  }
}

size_t TypedFieldSize(const onnx::TensorProto& p, int32_t onnx_type) {
  switch (onnx_type) {
    case kOnnxFloat:
      return static_cast<size_t>(p.float_data_size());
    case kOnnxDouble:
      return static_cast<size_t>(p.double_data_size());
    case kOnnxInt64:
      return static_cast<size_t>(p.int64_data_size());
    case kOnnxUint32:
    case kOnnxUint64:
      return static_cast<size_t>(p.uint64_data_size());
    default:
      return static_cast<size_t>(p.int32_data_size());
  }
}

}  // namespace

bool IsLowPrecisionOnnxType(int32_t onnx_type) { return onnx_type >= 17 && onnx_type <= 26; }

size_t OnnxTypeBits(int32_t onnx_type) {
  switch (onnx_type) {
    case 21:  // UINT4
    case 22:  // INT4
    case 23:  // FLOAT4E2M1
      return 4;
    case 25:  // UINT2
    case 26:  // INT2
      return 2;
    default:
      return 8 * OnnxTypeSize(onnx_type);
  }
}

size_t OnnxStorageBytes(int32_t onnx_type, size_t count) {
  return (count * OnnxTypeBits(onnx_type) + 7) / 8;
}

size_t OnnxTypeSize(int32_t onnx_type) {
  switch (onnx_type) {
    case kOnnxUint8:
    case kOnnxInt8:
    case kOnnxBool:
    case 17:  // the float8 types
    case 18:
    case 19:
    case 20:
    case 24:
      return 1;
    case kOnnxUint16:
    case kOnnxInt16:
    case kOnnxFloat16:
    case kOnnxBfloat16:
      return 2;
    case kOnnxFloat:
    case kOnnxInt32:
    case kOnnxUint32:
      return 4;
    case kOnnxInt64:
    case kOnnxDouble:
    case kOnnxUint64:
      return 8;
    default:
      return 0;
  }
}

std::string OnnxTypeName(int32_t onnx_type) {
  if (onnx::TensorProto::DataType_IsValid(onnx_type)) {
    return onnx::TensorProto::DataType_Name(static_cast<onnx::TensorProto::DataType>(onnx_type));
  }
  // Types newer than the system's onnx.proto.
  static const char* const kNewer[] = {
      "FLOAT8E4M3FN", "FLOAT8E4M3FNUZ", "FLOAT8E5M2", "FLOAT8E5M2FNUZ", "UINT4",
      "INT4",         "FLOAT4E2M1",     "FLOAT8E8M0", "UINT2",          "INT2"};
  if (onnx_type >= 17 && onnx_type <= 26) return kNewer[onnx_type - 17];
  return "TYPE_" + std::to_string(onnx_type);
}

int AclTypeOfOnnx(int32_t onnx_type) {
  switch (onnx_type) {
    case kOnnxFloat:
      return 0;  // ACL_FLOAT
    case kOnnxFloat16:
      return 1;  // ACL_FLOAT16
    case kOnnxInt8:
      return 2;  // ACL_INT8
    case kOnnxInt32:
      return 3;  // ACL_INT32
    case kOnnxUint8:
      return 4;  // ACL_UINT8
    case kOnnxInt16:
      return 6;  // ACL_INT16
    case kOnnxUint16:
      return 7;  // ACL_UINT16
    case kOnnxUint32:
      return 8;  // ACL_UINT32
    case kOnnxInt64:
      return 9;  // ACL_INT64
    case kOnnxUint64:
      return 10;  // ACL_UINT64
    case kOnnxDouble:
      return 11;  // ACL_DOUBLE
    case kOnnxBool:
      return 12;  // ACL_BOOL
    case kOnnxString:
      return 13;  // ACL_STRING
    case 17:
      return 36;  // ACL_FLOAT8_E4M3FN
    case 19:
      return 35;  // ACL_FLOAT8_E5M2
    case 22:
      return 29;  // ACL_INT4
    case 23:
      return 40;  // ACL_FLOAT4_E2M1
    case 24:
      return 37;  // ACL_FLOAT8_E8M0
    case kOnnxBfloat16:
      return 27;  // ACL_BF16
    default:
      return -1;  // ACL_DT_UNDEFINED
  }
}

int32_t OnnxTypeOfAcl(int acl_type) {
  static const int32_t kAll[] = {
      kOnnxFloat,  kOnnxUint8, kOnnxInt8,    kOnnxUint16, kOnnxInt16,  kOnnxInt32,  kOnnxInt64,
      kOnnxString, kOnnxBool,  kOnnxFloat16, kOnnxDouble, kOnnxUint32, kOnnxUint64, kOnnxBfloat16,
      17,          19,         22,           23,          24};
  for (int32_t t : kAll) {
    if (AclTypeOfOnnx(t) == acl_type) return t;
  }
  return kOnnxUndefined;
}

size_t HostTensor::ElementCount() const {
  size_t n = 1;
  for (int64_t d : dims) n *= static_cast<size_t>(d < 0 ? 0 : d);
  return n;
}

std::string DimsToString(const std::vector<int64_t>& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i != 0) s += ",";
    s += std::to_string(dims[i]);
  }
  return s + "]";
}

bool TensorFromProto(const onnx::TensorProto& p, HostTensor* out, std::string* error) {
  if (p.data_location() == onnx::TensorProto::EXTERNAL) {
    *error = "tensor '" + p.name() + "' keeps its data in an external file";
    return false;
  }
  out->onnx_type = p.data_type();
  const size_t bits = OnnxTypeBits(out->onnx_type);
  if (bits == 0) {
    *error = "element type " + OnnxTypeName(out->onnx_type) + " is not supported";
    return false;
  }
  out->dims.assign(p.dims().begin(), p.dims().end());
  // Checked before anything is allocated: a file that is not really a TensorProto (a
  // SequenceProto read as one) can carry absurd dims.
  size_t count = 1;
  for (int64_t d : out->dims) {
    if (d < 0 || __builtin_mul_overflow(count, static_cast<size_t>(d), &count)) {
      *error = "tensor '" + p.name() + "' has invalid dims " + DimsToString(out->dims);
      return false;
    }
  }
  size_t bytes = 0;
  if (__builtin_mul_overflow(count, bits, &bytes) || (bytes = (bytes + 7) / 8) > kMaxTensorBytes) {
    *error = "tensor '" + p.name() + "' with dims " + DimsToString(out->dims) + " is too large";
    return false;
  }
  if (p.has_raw_data() && p.raw_data().size() != bytes) {
    *error = "raw_data has " + std::to_string(p.raw_data().size()) + " bytes but the dims " +
             DimsToString(out->dims) + " need " + std::to_string(bytes);
    return false;
  }
  if (!p.has_raw_data()) {
    const char* field = TypedFieldName(out->onnx_type);
    size_t have = TypedFieldSize(p, out->onnx_type);
    const size_t entries = bits % 8 != 0 ? bytes : count;  // packed: a byte per entry
    if (have != entries) {
      *error = std::string(field) + " has " + std::to_string(have) + " values but the dims " +
               DimsToString(out->dims) + " need " + std::to_string(entries);
      return false;
    }
  }
  out->bytes.assign(bytes, 0);
  if (p.has_raw_data()) {
    if (!out->bytes.empty()) std::memcpy(out->bytes.data(), p.raw_data().data(), out->bytes.size());
    return true;
  }
  switch (out->onnx_type) {
    case kOnnxFloat:
      return CopyField(p.float_data(), out,
                       [](float v, uint8_t* d) { std::memcpy(d, &v, sizeof v); });
    case kOnnxDouble:
      return CopyField(p.double_data(), out,
                       [](double v, uint8_t* d) { std::memcpy(d, &v, sizeof v); });
    case kOnnxInt64:
      return CopyField(p.int64_data(), out,
                       [](int64_t v, uint8_t* d) { std::memcpy(d, &v, sizeof v); });
    case kOnnxUint32:
      return CopyField(p.uint64_data(), out, [](uint64_t v, uint8_t* d) {
        auto u = static_cast<uint32_t>(v);
        std::memcpy(d, &u, sizeof u);
      });
    case kOnnxUint64:
      return CopyField(p.uint64_data(), out,
                       [](uint64_t v, uint8_t* d) { std::memcpy(d, &v, sizeof v); });
    case kOnnxBool:
      return CopyField(p.int32_data(), out, [](int32_t v, uint8_t* d) { *d = v != 0 ? 1 : 0; });
    default: {
      // int32, int16, int8, uint16, uint8, float16, bfloat16: the value (or the bit pattern) in
      // the low bytes of an int32 (little-endian host).
      const size_t esize = EntryBytes(out->onnx_type);
      return CopyField(p.int32_data(), out,
                       [esize](int32_t v, uint8_t* d) { std::memcpy(d, &v, esize); });
    }
  }
}

bool LoadTensorFile(const std::string& path, HostTensor* out, std::string* error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *error = "cannot open " + path;
    return false;
  }
  std::stringstream buffer;
  buffer << in.rdbuf();
  onnx::TensorProto proto;
  if (!proto.ParseFromString(buffer.str())) {
    *error = path + " is not a TensorProto";
    return false;
  }
  if (!TensorFromProto(proto, out, error)) {
    *error = path + ": " + *error;
    return false;
  }
  return true;
}

Comparison CompareTensors(const HostTensor& actual, const HostTensor& expected,
                          const Tolerance& tolerance, const std::string& what) {
  Comparison c;
  if (actual.dims != expected.dims) {
    c.message = what + " has shape " + DimsToString(actual.dims) + ", expected " +
                DimsToString(expected.dims);
    return c;
  }
  if (actual.onnx_type != expected.onnx_type) {
    c.message = what + " has dtype " + OnnxTypeName(actual.onnx_type) + ", expected " +
                OnnxTypeName(expected.onnx_type);
    return c;
  }
  const int32_t t = expected.onnx_type;
  const size_t count = expected.ElementCount();
  if (IsLowPrecisionOnnxType(t)) {
    // Conversions to these types are exact: the same code, or a NaN for a NaN.
    const size_t bytes = OnnxStorageBytes(t, count);
    if (actual.bytes.size() != bytes || expected.bytes.size() != bytes) {
      c.message = what + ": data size does not match shape " + DimsToString(expected.dims);
      return c;
    }
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < count; ++i) {
      const unsigned a = CodeAt(t, actual.bytes, i), e = CodeAt(t, expected.bytes, i);
      if (a == e || (IsNanCode(t, a) && IsNanCode(t, e))) continue;
      if (bad++ == 0) first = i;
    }
    c.ok = bad == 0;
    if (!c.ok) {
      c.message = what + ": " + std::to_string(bad) + " of " + std::to_string(count) +
                  " elements differ (first at flat index " + std::to_string(first) + ": code " +
                  std::to_string(CodeAt(t, actual.bytes, first)) + ", expected " +
                  std::to_string(CodeAt(t, expected.bytes, first)) + ")";
    }
    return c;
  }
  const size_t esize = OnnxTypeSize(t);
  if (esize == 0 || actual.bytes.size() != count * esize ||
      expected.bytes.size() != count * esize) {
    c.message = what + ": data size does not match shape " + DimsToString(expected.dims);
    return c;
  }
  size_t bad = 0;
  size_t first_bad = 0;
  std::string first_got, first_want;
  for (size_t i = 0; i < count; ++i) {
    const uint8_t* a = &actual.bytes[i * esize];
    const uint8_t* e = &expected.bytes[i * esize];
    bool equal;
    std::string got, want;
    if (IsFloating(t)) {
      double av = LoadFloating(t, a);
      double ev = LoadFloating(t, e);
      if (std::isnan(ev) || std::isnan(av)) {
        equal = std::isnan(ev) && std::isnan(av);
      } else if (std::isinf(ev) || std::isinf(av)) {
        equal = av == ev;
      } else {
        double diff = std::fabs(av - ev);
        equal = diff <= tolerance.atol + tolerance.rtol * std::fabs(ev);
        c.max_abs = std::max(c.max_abs, diff);
        if (ev != 0.0) c.max_rel = std::max(c.max_rel, diff / std::fabs(ev));
      }
      if (!equal) {
        got = Num(av);
        want = Num(ev);
      }
    } else if (IsUnsigned(t)) {
      uint64_t av = LoadUnsigned(t, a);
      uint64_t ev = LoadUnsigned(t, e);
      equal = av == ev;
      if (!equal) {
        double diff = av > ev ? static_cast<double>(av - ev) : static_cast<double>(ev - av);
        c.max_abs = std::max(c.max_abs, diff);
        if (ev != 0) c.max_rel = std::max(c.max_rel, diff / static_cast<double>(ev));
        got = std::to_string(av);
        want = std::to_string(ev);
      }
    } else {
      int64_t av = LoadSigned(t, a);
      int64_t ev = LoadSigned(t, e);
      equal = av == ev;
      if (!equal) {
        double diff = std::fabs(static_cast<double>(av) - static_cast<double>(ev));
        c.max_abs = std::max(c.max_abs, diff);
        if (ev != 0) c.max_rel = std::max(c.max_rel, diff / std::fabs(static_cast<double>(ev)));
        got = std::to_string(av);
        want = std::to_string(ev);
      }
    }
    if (!equal) {
      if (bad == 0) {
        first_bad = i;
        first_got = got;
        first_want = want;
      }
      ++bad;
    }
  }
  if (bad == 0) {
    c.ok = true;
    return c;
  }
  c.message = what + ": " + std::to_string(bad) + " of " + std::to_string(count) +
              " elements differ (first at flat index " + std::to_string(first_bad) + ": got " +
              first_got + ", expected " + first_want + "); max abs err " + Num(c.max_abs) +
              ", max rel err " + Num(c.max_rel) + " (rtol " + Num(tolerance.rtol) + ", atol " +
              Num(tolerance.atol) + ")";
  return c;
}

}  // namespace kiln::conformance
