// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Element conversions of the ONNX low-precision types (ONNX 1.22), for Cast, CastLike,
// QuantizeLinear and DequantizeLinear: float8 (FLOAT8E4M3FN 17, FLOAT8E4M3FNUZ 18, FLOAT8E5M2 19,
// FLOAT8E5M2FNUZ 20), FLOAT8E8M0 (24), FLOAT4E2M1 (23) and the packed integers UINT4 (21),
// INT4 (22), UINT2 (25), INT2 (26).
//
// The API speaks in raw codes: a float8 element is its byte, a 4-bit element its nibble in the
// low bits of a uint8_t, a 2-bit element its two low bits. Sub-byte tensors are packed low bits
// first (element 2i in bits 0-3 of byte i, element 2i+1 in bits 4-7; four 2-bit elements per
// byte from bit 0 up), the last byte padded with zero bits, as onnx.numpy_helper packs them.
//
// Where the ONNX spec text and its reference implementation (onnx.reference, onnx.numpy_helper
// and the ml_dtypes package it uses, which also generated the ONNX conformance data) disagree,
// these functions do what the reference does, so that the conformance data pass; each such
// place is named at the function. Every function is pure (no state, no allocation) and so
// thread-safe; none reads the floating-point environment.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace kiln::kernels {

// ---- float8: E4M3FN, E4M3FNUZ, E5M2, E5M2FNUZ ---------------------------------------------

// The four float8 formats with a sign bit. FN: no infinities, NaN is S.1111.111. FNUZ: no
// infinities, no negative zero, the single NaN is 0x80. E5M2 is IEEE-like (inf S.11111.00, NaN
// S.11111.xx with xx != 0).
enum class Float8Kind : uint8_t { kE4M3FN, kE4M3FNUZ, kE5M2, kE5M2FNUZ };

// The float8 kind of ONNX TensorProto.DataType `onnx_type` (17..20); nullopt for any other type.
std::optional<Float8Kind> Float8KindOfOnnxType(int32_t onnx_type);

// The value of float8 `code`, exact (every float8 value is a float). NaN codes give a quiet NaN
// with the code's sign (FNUZ's 0x80 gives a negative one, as ml_dtypes does); E5M2's infinities
// give infinities.
float Float8ToFloat(Float8Kind kind, uint8_t code);

// The float8 code of `v`, rounded to nearest, ties to even (one rounding, also for subnormal
// results). NaN gives NaN (E4M3FN: sign|0x7F, E5M2: sign|0x7E, FNUZ: 0x80). A value whose
// rounded magnitude exceeds the largest finite one, and +-inf:
//   saturate true  -> +-largest finite (448, 240, 57344, 57344), as ONNX's saturate_cast;
//   saturate false -> +-inf for E5M2, NaN for the others (E4M3FN keeps the sign: 0x7F/0xFF).
// For FNUZ, -0 and negative values that round to zero give +0 (0x00). Cast, CastLike and
// QuantizeLinear (after dividing by the scale and adding the zero point) use this with their
// `saturate` attribute. A double converts to float first: the reference (ml_dtypes) and ONNX
// Runtime round a double twice so (a double just off a float8 tie becomes the tie, then goes
// to even), and matching them means doing the same.
uint8_t FloatToFloat8(Float8Kind kind, float v, bool saturate);

// Bulk forms of Float8ToFloat and FloatToFloat8 over n elements (n >= 0); `in` and `out` must
// not overlap.
void Float8ToFloatN(Float8Kind kind, const uint8_t* in, int64_t n, float* out);
void FloatToFloat8N(Float8Kind kind, const float* in, int64_t n, bool saturate, uint8_t* out);

// ---- FLOAT8E8M0 ------------------------------------------------------------------------------

// Cast's `round_mode` attribute (opset 24+) for conversions to FLOAT8E8M0.
enum class E8M0RoundMode : uint8_t { kUp, kDown, kNearest };

// "up", "down", "nearest" -> the mode; nullopt for any other string.
std::optional<E8M0RoundMode> ParseE8M0RoundMode(std::string_view s);

// The value 2^(code - 127) of E8M0 `code`; 0xFF is NaN. Code 0 is 2^-127, a float subnormal.
float Float8E8M0ToFloat(uint8_t code);

// The E8M0 code of `v`, exactly as onnx.numpy_helper.to_float8e8m0 (which Cast's reference
// uses) computes it from the float's bits; the sign is ignored (the spec leaves negative inputs
// unspecified). With b the float exponent field (0 for zero and subnormals):
//   kDown:    b;
//   kUp:      b + 1 if any mantissa bit is set, else b (so a subnormal, even 2^-127, gives 1);
//   kNearest: b + 1 if the mantissa is >= half (normals: |v| >= 1.5 * 2^e), else b; for
//             subnormals b + 1 only if |v| > 2^-127.
// A result of 255 (rounding up from b = 254) is NaN unless `saturate`, which keeps 254. NaN and
// +-inf give 0xFF (NaN) whatever `saturate` is. The Cast spec's table says inf -> E8M0_MAX
// under saturate and 0 -> NaN under saturate false with kNearest; the reference (and so the
// conformance data) does neither, and this function follows the reference.
uint8_t FloatToFloat8E8M0(float v, bool saturate, E8M0RoundMode mode);

// ---- FLOAT4E2M1 ------------------------------------------------------------------------------

// The value of the E2M1 code in the low 4 bits of `nibble` (the high bits are ignored):
// +-{0, 0.5, 1, 1.5, 2, 3, 4, 6}, bit 3 the sign.
float Float4E2M1ToFloat(uint8_t nibble);

// The E2M1 code (0..15) of `v`, rounded to nearest, ties to even, saturating: |v| > 6 and +-inf
// give +-6, -0 gives 0x8. NaN has no E2M1 code; it gives 0x8 (-0) and -NaN gives 0x0, which is
// what ml_dtypes produces and the conformance data for Cast FLOAT -> FLOAT4E2M1 expect (the
// float4 page of the ONNX docs says NaN -> 6). Cast ignores `saturate` for this type. A
// double converts to float first, as for FloatToFloat8.
uint8_t FloatToFloat4E2M1(float v);

// Packed forms: n E2M1 elements from/to ceil(n / 2) bytes (low nibble first, zero padding).
void Float4E2M1PackedToFloat(const uint8_t* packed, int64_t n, float* out);
void FloatToFloat4E2M1Packed(const float* in, int64_t n, uint8_t* packed);

// ---- INT4, UINT4, INT2, UINT2 ---------------------------------------------------------------

enum class SubByteInt : uint8_t { kUInt4, kInt4, kUInt2, kInt2 };

// The sub-byte integer kind of ONNX TensorProto.DataType `onnx_type` (21, 22, 25, 26); nullopt
// for any other type.
std::optional<SubByteInt> SubByteIntOfOnnxType(int32_t onnx_type);

// Width in bits (4 or 2) and value range: uint4 [0, 15], int4 [-8, 7], uint2 [0, 3], int2
// [-2, 1].
int SubByteIntBits(SubByteInt kind);
int32_t SubByteIntMin(SubByteInt kind);
int32_t SubByteIntMax(SubByteInt kind);

// The value of the element whose `bits` (2 or 4 wide) are in the low bits of `raw`: the bits
// themselves for unsigned kinds, sign-extended for signed ones. The high bits are ignored.
int8_t SubByteIntFromBits(SubByteInt kind, uint8_t raw);

// `v` reduced to `kind` as Cast reduces an integer to a narrower one: the low 2 or 4 bits,
// reinterpreted in two's complement for signed kinds (the spec: "discard higher bits and
// reinterpret"; e.g. 8 -> int4 -8, -9 -> int4 7, -1 -> uint4 15). A uint64 value passes as its
// int64 bit pattern.
int8_t WrapToSubByteInt(SubByteInt kind, int64_t v);

// Cast of a float (or double: pass it as is, it is not rounded to float first) to `kind`:
// truncated toward zero, then reduced as WrapToSubByteInt (0.5 -> 0, -1.5 -> -1, 8.7 -> int4
// -8), as the reference's ml_dtypes cast does and the conformance data (inputs -9..15) expect.
// The spec leaves values outside the type's range undefined; NaN, +-inf and values outside
// [-2^31, 2^31 - 1] give 0, as the reference does on x86-64 (its int32 step yields INT32_MIN).
int8_t CastFloatToSubByteInt(SubByteInt kind, double v);

// QuantizeLinear's saturation for a value already divided by the scale, with the zero point
// `zero_point` added after rounding: round half to even, add, clamp to the kind's range
// (+-inf clamp too). NaN gives the lowest value, as the reference does on x86-64 and as Kiln's
// 8- and 16-bit QuantizeLinear do.
int8_t QuantizeToSubByteInt(SubByteInt kind, double q, int32_t zero_point);

// Bytes that n packed elements occupy.
constexpr int64_t Packed4BitBytes(int64_t n) { return (n + 1) / 2; }
constexpr int64_t Packed2BitBytes(int64_t n) { return (n + 3) / 4; }

// Raw bits of element i of a packed 4-bit (2-bit) buffer, and storing them (only the low 4 (2)
// bits of `bits` are stored; the other elements of the byte are kept). Not thread-safe for two
// writers of elements that share a byte.
inline uint8_t Load4Bit(const uint8_t* packed, int64_t i) {
  return static_cast<uint8_t>((packed[i >> 1] >> ((i & 1) * 4)) & 0xFu);
}
inline void Store4Bit(uint8_t* packed, int64_t i, uint8_t bits) {
  const int shift = static_cast<int>(i & 1) * 4;
  uint8_t& byte = packed[i >> 1];
  byte = static_cast<uint8_t>((byte & ~(0xFu << shift)) | ((bits & 0xFu) << shift));
}
inline uint8_t Load2Bit(const uint8_t* packed, int64_t i) {
  return static_cast<uint8_t>((packed[i >> 2] >> ((i & 3) * 2)) & 0x3u);
}
inline void Store2Bit(uint8_t* packed, int64_t i, uint8_t bits) {
  const int shift = static_cast<int>(i & 3) * 2;
  uint8_t& byte = packed[i >> 2];
  byte = static_cast<uint8_t>((byte & ~(0x3u << shift)) | ((bits & 0x3u) << shift));
}

// Whole-buffer packing of n >= 0 elements into Packed4BitBytes(n) (Packed2BitBytes(n)) bytes,
// every byte written, the padding bits zero. Each value's low 4 (2) bits are stored, so values
// must already be in range (use WrapToSubByteInt or QuantizeToSubByteInt first). The unpacking
// forms read n elements, sign-extending for the signed types. PackUInt4/UnpackUInt4 also pack
// FLOAT4E2M1 codes. `values` and `packed` must not overlap.
void PackInt4(const int8_t* values, int64_t n, uint8_t* packed);
void PackUInt4(const uint8_t* values, int64_t n, uint8_t* packed);
void PackInt2(const int8_t* values, int64_t n, uint8_t* packed);
void PackUInt2(const uint8_t* values, int64_t n, uint8_t* packed);
void UnpackInt4(const uint8_t* packed, int64_t n, int8_t* values);
void UnpackUInt4(const uint8_t* packed, int64_t n, uint8_t* values);
void UnpackInt2(const uint8_t* packed, int64_t n, int8_t* values);
void UnpackUInt2(const uint8_t* packed, int64_t n, uint8_t* values);

}  // namespace kiln::kernels
