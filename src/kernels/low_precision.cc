// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "kernels/low_precision.h"

#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string_view>

namespace kiln::kernels {
namespace {

// A small binary floating-point format with a sign bit, IEEE-style subnormals and no implicit
// special exponent: whether the top codes are NaN/inf is decided by the caller.
struct Format {
  int mant_bits;
  int bias;
  int max_mag;  // the largest finite code without its sign bit
};

constexpr Format kE4M3FN{3, 7, 0x7E};
constexpr Format kE4M3FNUZ{3, 8, 0x7F};
constexpr Format kE5M2{2, 15, 0x7B};
constexpr Format kE5M2FNUZ{2, 16, 0x7F};
constexpr Format kE2M1{1, 1, 0x7};

constexpr Format FormatOf(Float8Kind kind) {
  switch (kind) {
    case Float8Kind::kE4M3FN:
      return kE4M3FN;
    case Float8Kind::kE4M3FNUZ:
      return kE4M3FNUZ;
    case Float8Kind::kE5M2:
      return kE5M2;
    case Float8Kind::kE5M2FNUZ:
      return kE5M2FNUZ;
  }
  return kE4M3FN;
}

constexpr bool IsFnuz(Float8Kind kind) {
  return kind == Float8Kind::kE4M3FNUZ || kind == Float8Kind::kE5M2FNUZ;
}

constexpr uint32_t kFloatSign = 0x80000000u;
constexpr uint32_t kFloatInf = 0x7F800000u;
constexpr uint32_t kFloatQuietNan = 0x7FC00000u;

// The code magnitude (exponent and mantissa bits, no sign) of the finite float whose bits
// without the sign are `abs`, rounded to nearest even in format `f`. The result may exceed
// f.max_mag (the caller decides what overflow means); a carry out of the mantissa moves into
// the exponent, and out of the subnormals into the smallest normal, by plain addition.
int RoundMagnitude(const Format& f, uint32_t abs) {
  const int exp_field = static_cast<int>(abs >> 23);
  // Zero and float subnormals (< 2^-126) are far below half of any smallest subnormal here.
  if (exp_field == 0) return 0;
  const int e = exp_field - 127;
  const int emin = 1 - f.bias;
  const uint32_t mant = (abs & 0x7FFFFFu) | 0x800000u;
  // Results below the smallest normal keep fewer mantissa bits (subnormals).
  const int shift = 23 - f.mant_bits + (e < emin ? emin - e : 0);
  if (shift > 25) return 0;  // below half the smallest subnormal
  uint32_t q = mant >> shift;
  const uint32_t rem = mant & ((1u << shift) - 1);
  const uint32_t half = 1u << (shift - 1);
  if (rem > half || (rem == half && (q & 1) != 0)) ++q;
  if (e < emin) return static_cast<int>(q);  // q in [0, 2^M]; 2^M is the smallest normal
  // q in [2^M, 2^(M+1)]: the implicit bit adds one to the biased exponent.
  return ((e + f.bias - 1) << f.mant_bits) + static_cast<int>(q);
}

uint8_t Float8Nan(Float8Kind kind, uint8_t sign) {
  switch (kind) {
    case Float8Kind::kE4M3FN:
      return static_cast<uint8_t>(sign | 0x7F);
    case Float8Kind::kE5M2:
      return static_cast<uint8_t>(sign | 0x7E);  // the quiet NaN ml_dtypes produces
    case Float8Kind::kE4M3FNUZ:
    case Float8Kind::kE5M2FNUZ:
      return 0x80;
  }
  return 0x80;
}

uint8_t Float8Overflow(Float8Kind kind, uint8_t sign, bool saturate) {
  if (saturate) return static_cast<uint8_t>(sign | FormatOf(kind).max_mag);
  if (kind == Float8Kind::kE5M2) return static_cast<uint8_t>(sign | 0x7C);  // +-inf
  return Float8Nan(kind, sign);
}

// The float bits of the value of `code` in format f: the sign in bit `sign_bit`, the magnitude
// below it. Specials (NaN, inf) are the caller's.
constexpr uint32_t DecodeFiniteBits(const Format& f, uint8_t code, int sign_bit) {
  const uint32_t sign = static_cast<uint32_t>((code >> sign_bit) & 1u) << 31;
  const uint32_t mag = code & ((1u << sign_bit) - 1);
  const uint32_t exp = mag >> f.mant_bits;
  uint32_t man = mag & ((1u << f.mant_bits) - 1);
  if (exp != 0) {
    return sign | (static_cast<uint32_t>(static_cast<int>(exp) - f.bias + 127) << 23) |
           (man << (23 - f.mant_bits));
  }
  if (man == 0) return sign;
  // Subnormal man * 2^(1 - bias - M): normalise so that the leading bit becomes implicit.
  int p = f.mant_bits - 1;
  while ((man & (1u << p)) == 0) --p;
  man &= ~(1u << p);
  const int unbiased = p + 1 - f.bias - f.mant_bits;
  return sign | (static_cast<uint32_t>(unbiased + 127) << 23) | (man << (23 - p));
}

constexpr uint32_t DecodeFloat8Bits(Float8Kind kind, uint8_t code) {
  const uint32_t sign = static_cast<uint32_t>(code & 0x80u) << 24;
  switch (kind) {
    case Float8Kind::kE4M3FN:
      if ((code & 0x7F) == 0x7F) return sign | kFloatQuietNan;
      break;
    case Float8Kind::kE5M2:
      if ((code & 0x7C) == 0x7C) return sign | ((code & 0x3) != 0 ? kFloatQuietNan : 0x7F800000u);
      break;
    case Float8Kind::kE4M3FNUZ:
    case Float8Kind::kE5M2FNUZ:
      if (code == 0x80) return 0x80000000u | kFloatQuietNan;
      break;
  }
  return DecodeFiniteBits(FormatOf(kind), code, 7);
}

using DecodeTable = std::array<uint32_t, 256>;

constexpr DecodeTable MakeFloat8Table(Float8Kind kind) {
  DecodeTable t{};
  for (int c = 0; c < 256; ++c) t[c] = DecodeFloat8Bits(kind, static_cast<uint8_t>(c));
  return t;
}

constexpr std::array<DecodeTable, 4> kFloat8Tables = {
    MakeFloat8Table(Float8Kind::kE4M3FN), MakeFloat8Table(Float8Kind::kE4M3FNUZ),
    MakeFloat8Table(Float8Kind::kE5M2), MakeFloat8Table(Float8Kind::kE5M2FNUZ)};

constexpr std::array<uint32_t, 16> MakeE2M1Table() {
  std::array<uint32_t, 16> t{};
  for (int c = 0; c < 16; ++c) t[c] = DecodeFiniteBits(kE2M1, static_cast<uint8_t>(c), 3);
  return t;
}
constexpr std::array<uint32_t, 16> kE2M1Table = MakeE2M1Table();

// Round half to even without the floating-point environment.
double RoundHalfEven(double x) {
  if (!(std::fabs(x) < 4503599627370496.0)) return x;  // >= 2^52: integral (or NaN)
  const double t = std::trunc(x);
  const double frac = std::fabs(x - t);  // exact
  const double away = x < 0 ? t - 1 : t + 1;
  if (frac > 0.5) return away;
  if (frac == 0.5 && std::fmod(t, 2.0) != 0) return away;
  return t;
}

}  // namespace

// ---- float8 ----------------------------------------------------------------------------------

std::optional<Float8Kind> Float8KindOfOnnxType(int32_t onnx_type) {
  switch (onnx_type) {
    case 17:
      return Float8Kind::kE4M3FN;
    case 18:
      return Float8Kind::kE4M3FNUZ;
    case 19:
      return Float8Kind::kE5M2;
    case 20:
      return Float8Kind::kE5M2FNUZ;
    default:
      return std::nullopt;
  }
}

float Float8ToFloat(Float8Kind kind, uint8_t code) {
  return std::bit_cast<float>(kFloat8Tables[static_cast<int>(kind)][code]);
}

uint8_t FloatToFloat8(Float8Kind kind, float v, bool saturate) {
  const uint32_t bits = std::bit_cast<uint32_t>(v);
  const uint8_t sign = (bits & kFloatSign) != 0 ? 0x80 : 0;
  const uint32_t abs = bits & ~kFloatSign;
  if (abs > kFloatInf) return Float8Nan(kind, sign);
  if (abs == kFloatInf) return Float8Overflow(kind, sign, saturate);
  const Format f = FormatOf(kind);
  const int mag = RoundMagnitude(f, abs);
  if (mag > f.max_mag) return Float8Overflow(kind, sign, saturate);
  if (mag == 0 && IsFnuz(kind)) return 0;  // FNUZ has no negative zero (0x80 is NaN)
  return static_cast<uint8_t>(sign | mag);
}

void Float8ToFloatN(Float8Kind kind, const uint8_t* in, int64_t n, float* out) {
  const DecodeTable& table = kFloat8Tables[static_cast<int>(kind)];
  for (int64_t i = 0; i < n; ++i) out[i] = std::bit_cast<float>(table[in[i]]);
}

void FloatToFloat8N(Float8Kind kind, const float* in, int64_t n, bool saturate, uint8_t* out) {
  for (int64_t i = 0; i < n; ++i) out[i] = FloatToFloat8(kind, in[i], saturate);
}

// ---- FLOAT8E8M0 ------------------------------------------------------------------------------

std::optional<E8M0RoundMode> ParseE8M0RoundMode(std::string_view s) {
  if (s == "up") return E8M0RoundMode::kUp;
  if (s == "down") return E8M0RoundMode::kDown;
  if (s == "nearest") return E8M0RoundMode::kNearest;
  return std::nullopt;
}

float Float8E8M0ToFloat(uint8_t code) {
  if (code == 0xFF) return std::bit_cast<float>(kFloatQuietNan);
  if (code == 0) return std::bit_cast<float>(0x00400000u);  // 2^-127, a float subnormal
  return std::bit_cast<float>(static_cast<uint32_t>(code) << 23);
}

uint8_t FloatToFloat8E8M0(float v, bool saturate, E8M0RoundMode mode) {
  const uint32_t bits = std::bit_cast<uint32_t>(v);
  const uint32_t exp = (bits >> 23) & 0xFFu;
  if (exp == 0xFF) return 0xFF;  // NaN and +-inf
  const uint32_t mant = bits & 0x7FFFFFu;
  bool up = false;
  switch (mode) {
    case E8M0RoundMode::kUp:
      up = mant != 0;
      break;
    case E8M0RoundMode::kDown:
      break;
    case E8M0RoundMode::kNearest: {
      // The reference's guard/round/sticky test, with the implicit bit of a normal as the
      // "lsb": a normal rounds up from half on (ties up), a subnormal only above half.
      const bool guard = (mant & 0x400000u) != 0;
      const bool rest = (mant & 0x3FFFFFu) != 0;
      up = guard && (rest || exp > 0);
      break;
    }
  }
  if (up && !(saturate && exp == 0xFE)) return static_cast<uint8_t>(exp + 1);  // 0xFF: NaN
  return static_cast<uint8_t>(exp);
}

// ---- FLOAT4E2M1 ------------------------------------------------------------------------------

float Float4E2M1ToFloat(uint8_t nibble) { return std::bit_cast<float>(kE2M1Table[nibble & 0xF]); }

uint8_t FloatToFloat4E2M1(float v) {
  const uint32_t bits = std::bit_cast<uint32_t>(v);
  const bool negative = (bits & kFloatSign) != 0;
  const uint32_t abs = bits & ~kFloatSign;
  // ml_dtypes' stand-in NaN for a type without one is its "-0" code, negated for -NaN.
  if (abs > kFloatInf) return negative ? 0x0 : 0x8;
  const uint8_t sign = negative ? 0x8 : 0;
  if (abs == kFloatInf) return static_cast<uint8_t>(sign | kE2M1.max_mag);
  const int mag = RoundMagnitude(kE2M1, abs);
  return static_cast<uint8_t>(sign | (mag > kE2M1.max_mag ? kE2M1.max_mag : mag));
}

void Float4E2M1PackedToFloat(const uint8_t* packed, int64_t n, float* out) {
  for (int64_t i = 0; i < n; ++i) out[i] = Float4E2M1ToFloat(Load4Bit(packed, i));
}

void FloatToFloat4E2M1Packed(const float* in, int64_t n, uint8_t* packed) {
  for (int64_t i = 0; i + 1 < n; i += 2) {
    packed[i / 2] =
        static_cast<uint8_t>(FloatToFloat4E2M1(in[i]) | FloatToFloat4E2M1(in[i + 1]) << 4);
  }
  if (n % 2 != 0) packed[n / 2] = FloatToFloat4E2M1(in[n - 1]);
}

// ---- INT4, UINT4, INT2, UINT2 ---------------------------------------------------------------

std::optional<SubByteInt> SubByteIntOfOnnxType(int32_t onnx_type) {
  switch (onnx_type) {
    case 21:
      return SubByteInt::kUInt4;
    case 22:
      return SubByteInt::kInt4;
    case 25:
      return SubByteInt::kUInt2;
    case 26:
      return SubByteInt::kInt2;
    default:
      return std::nullopt;
  }
}

int SubByteIntBits(SubByteInt kind) {
  return kind == SubByteInt::kUInt4 || kind == SubByteInt::kInt4 ? 4 : 2;
}

int32_t SubByteIntMin(SubByteInt kind) {
  switch (kind) {
    case SubByteInt::kInt4:
      return -8;
    case SubByteInt::kInt2:
      return -2;
    case SubByteInt::kUInt4:
    case SubByteInt::kUInt2:
      return 0;
  }
  return 0;
}

int32_t SubByteIntMax(SubByteInt kind) {
  switch (kind) {
    case SubByteInt::kUInt4:
      return 15;
    case SubByteInt::kInt4:
      return 7;
    case SubByteInt::kUInt2:
      return 3;
    case SubByteInt::kInt2:
      return 1;
  }
  return 0;
}

int8_t SubByteIntFromBits(SubByteInt kind, uint8_t raw) {
  switch (kind) {
    case SubByteInt::kUInt4:
      return static_cast<int8_t>(raw & 0xF);
    case SubByteInt::kInt4:
      return static_cast<int8_t>((raw & 0x8) != 0 ? (raw & 0xF) - 16 : raw & 0xF);
    case SubByteInt::kUInt2:
      return static_cast<int8_t>(raw & 0x3);
    case SubByteInt::kInt2:
      return static_cast<int8_t>((raw & 0x2) != 0 ? (raw & 0x3) - 4 : raw & 0x3);
  }
  return 0;
}

int8_t WrapToSubByteInt(SubByteInt kind, int64_t v) {
  return SubByteIntFromBits(kind, static_cast<uint8_t>(static_cast<uint64_t>(v) & 0xFu));
}

int8_t CastFloatToSubByteInt(SubByteInt kind, double v) {
  // NaN fails the comparison too. -2^31 itself would give 0 either way (its low bits are 0).
  if (!(v >= -2147483648.0 && v <= 2147483647.0)) return 0;
  return WrapToSubByteInt(kind, static_cast<int64_t>(v));  // truncates toward zero
}

int8_t QuantizeToSubByteInt(SubByteInt kind, double q, int32_t zero_point) {
  const double lo = SubByteIntMin(kind), hi = SubByteIntMax(kind);
  const double v = RoundHalfEven(q) + zero_point;
  if (std::isnan(v)) return static_cast<int8_t>(lo);
  if (v < lo) return static_cast<int8_t>(lo);
  if (v > hi) return static_cast<int8_t>(hi);
  return static_cast<int8_t>(v);
}

void PackInt4(const int8_t* values, int64_t n, uint8_t* packed) {
  PackUInt4(reinterpret_cast<const uint8_t*>(values), n, packed);
}

void PackUInt4(const uint8_t* values, int64_t n, uint8_t* packed) {
  for (int64_t i = 0; i + 1 < n; i += 2) {
    packed[i / 2] = static_cast<uint8_t>((values[i] & 0xF) | (values[i + 1] & 0xF) << 4);
  }
  if (n % 2 != 0) packed[n / 2] = static_cast<uint8_t>(values[n - 1] & 0xF);
}

void PackInt2(const int8_t* values, int64_t n, uint8_t* packed) {
  PackUInt2(reinterpret_cast<const uint8_t*>(values), n, packed);
}

void PackUInt2(const uint8_t* values, int64_t n, uint8_t* packed) {
  const int64_t bytes = Packed2BitBytes(n);
  for (int64_t b = 0; b < bytes; ++b) {
    uint8_t byte = 0;
    for (int64_t j = 0; j < 4 && 4 * b + j < n; ++j) {
      byte = static_cast<uint8_t>(byte | (values[4 * b + j] & 0x3) << (2 * j));
    }
    packed[b] = byte;
  }
}

void UnpackInt4(const uint8_t* packed, int64_t n, int8_t* values) {
  for (int64_t i = 0; i < n; ++i) {
    values[i] = SubByteIntFromBits(SubByteInt::kInt4, Load4Bit(packed, i));
  }
}

void UnpackUInt4(const uint8_t* packed, int64_t n, uint8_t* values) {
  for (int64_t i = 0; i < n; ++i) values[i] = Load4Bit(packed, i);
}

void UnpackInt2(const uint8_t* packed, int64_t n, int8_t* values) {
  for (int64_t i = 0; i < n; ++i) {
    values[i] = SubByteIntFromBits(SubByteInt::kInt2, Load2Bit(packed, i));
  }
}

void UnpackUInt2(const uint8_t* packed, int64_t n, uint8_t* values) {
  for (int64_t i = 0; i < n; ++i) values[i] = Load2Bit(packed, i);
}

}  // namespace kiln::kernels
