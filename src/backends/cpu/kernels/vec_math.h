// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Float math the CPU backend's elementwise kernels vectorise: exp, log, log1p, sigmoid, tanh,
// erf and the rounding functions, as inline branch-free code (multiplies, adds, compares,
// bitwise selects, integer bit tricks) that GCC auto-vectorises inside the KILN_CPU_CLONES loops
// of elementwise.cc and reduce.cc. libm's functions are scalar calls that stop vectorisation,
// and the build keeps -fmath-errno and -ftrapping-math, under which GCC vectorises neither sqrt
// nor floor; hence these.
//
// Branch-free means no `?:` on floats: C++ evaluates only the chosen operand, and a loop with
// `c ? x * k : x` keeps a branch around x * k, which under -ftrapping-math GCC may not
// speculate; AVX-512 has masked arithmetic for that, AVX2 and SSE do not, so those clones would
// stay scalar. GCC also threads jumps over known values (a clamp to a constant) into such
// branches. Select() below blends two values already computed with integer masks instead.
//
// Accuracy, measured against the double-precision std:: functions rounded to float over every
// one of the 2^32 floats, both as plain x86-64 code and with GCC's multiply-add contraction into
// FMA (as in the AVX-512 clone), in units in the last place of the correctly rounded result
// (bit-pattern distance, so subnormal results count their own tiny ulps); cpu_elementwise_test
// re-checks a dense sweep through the kernels:
//   Exp      <= 1 ulp  everywhere; +inf above ln(FLT_MAX), +0 where e^x is below half the
//                       smallest subnormal (x < -103.97), subnormal results rounded once.
//   Log      <= 1 ulp  for every positive float, subnormals included; log(+-0) = -inf,
//                       log(x < 0) = NaN, log(+inf) = +inf.
//   Log1pUnit <= 1 ulp for x in [0, 1] (what Softplus needs).
//   Sigmoid  <= 2 ulp  everywhere (1 / (1 + e^-|x|), the numerator chosen by sign, so tiny
//                       results for very negative x keep their relative accuracy).
//   Tanh     <= 1 ulp  everywhere (odd polynomial below 0.9, 1 - 2 / (e^2|x| + 1) above).
//   Erf      <= 2 ulp  everywhere (odd polynomial below 0.875, 1 - e^-x^2 * R(1/|x|) above).
//   Floor, Ceil, RoundHalfEven: exact, signed zeros included.
// NaN in gives NaN out, and +-inf the limits (Tanh, Erf: +-1, Sigmoid: 1 and 0). The polynomial
// coefficients are least-squares fits on Chebyshev nodes refined towards minimax (mpmath, 40
// digits), except Exp's and Log's, which are Cephes' expf and logf.
//
// Everything here is float in, float out and free of undefined behaviour for any input bits
// (there is no float-to-int conversion at all).
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

// Vectorisation needs these inlined into the cloned loops; GCC's inliner gives up on the longer
// ones (Erf, Tanh) inside big loop bodies otherwise.
#define KILN_VEC_INLINE inline __attribute__((always_inline))
// The same for a lambda that a leaf loop applies per element: `[](float v) KILN_VEC_LAMBDA {..}`.
#define KILN_VEC_LAMBDA __attribute__((always_inline))

namespace kiln::cpu::vec {

inline constexpr float kInf = std::numeric_limits<float>::infinity();
inline constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

KILN_VEC_INLINE uint32_t Bits(float x) { return std::bit_cast<uint32_t>(x); }
KILN_VEC_INLINE float FromBits(uint32_t b) { return std::bit_cast<float>(b); }

// c ? a : b, with both a and b evaluated (see the file comment).
KILN_VEC_INLINE float Select(bool c, float a, float b) {
  const uint32_t m = 0u - static_cast<uint32_t>(c);
  return FromBits((Bits(a) & m) | (Bits(b) & ~m));
}
// |x| and copysign(x, s) as bit operations.
KILN_VEC_INLINE float Abs(float x) { return FromBits(Bits(x) & 0x7fffffffu); }
KILN_VEC_INLINE float CopySign(float x, float s) {
  return FromBits((Bits(x) & 0x7fffffffu) | (Bits(s) & 0x80000000u));
}

// e^x. Cody-Waite reduction x = n ln2 + r (|r| <= ln2 / 2; n found with the 1.5 * 2^23
// rounding trick, so no float-to-int conversion), Cephes' degree-7 expf polynomial for e^r, and
// 2^n applied as two power-of-two factors so that results down to the subnormals (n = -150)
// need no special case. The clamps keep n in [-150, 128]: 2^128 overflows to +inf exactly when
// the true result does, 2^-150 * e^r rounds to +0. NaN fails both comparisons and propagates.
KILN_VEC_INLINE float Exp(float x) {
  x = Select(x > 88.8f, 88.8f, x);
  x = Select(x < -104.0f, -104.0f, x);
  constexpr float kRound = 12582912.0f;  // 1.5 * 2^23
  const float t = x * 1.44269504088896341f + kRound;
  const float n = t - kRound;
  const int32_t ni = static_cast<int32_t>(Bits(t) - 0x4B400000u);
  float r = x - n * 0.693359375f;  // ln2's upper bits: exact for |n| <= 150
  r = r - n * -2.12194440e-4f;     // ln2's remainder
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * (r * r) + r + 1.0f;
  const int32_t n1 = ni >> 1;
  const int32_t n2 = ni - n1;
  const float s1 = FromBits(static_cast<uint32_t>(n1 + 127) << 23);
  const float s2 = FromBits(static_cast<uint32_t>(n2 + 127) << 23);
  return p * s1 * s2;
}

// Natural logarithm: x = m 2^e with m in [sqrt(1/2), sqrt(2)), Cephes' logf polynomial for
// log(m), e ln2 added in two parts. Subnormals are scaled by 2^23 first.
KILN_VEC_INLINE float Log(float x) {
  const bool tiny = x < 1.17549435e-38f;  // subnormal, zero or negative
  const float xs = Select(tiny, x * 8388608.0f, x);
  const uint32_t b = Bits(xs);
  // The exponent plus 256 (garbage for x <= 0, whose result is replaced at the end).
  uint32_t k = ((b >> 23) & 0xffu) + 129u - (tiny ? 23u : 0u);
  float m = FromBits((b & 0x007fffffu) | 0x3f800000u);  // [1, 2)
  const bool high = m > 1.41421356f;
  m = Select(high, m * 0.5f, m);
  k = high ? k + 1 : k;
  // The exponent as a float without an int-to-float conversion (which GCC will not speculate
  // under -ftrapping-math): 2^23 + k exactly, less 2^23 + 256.
  const float fe = FromBits(0x4B000000u | k) - 8388864.0f;
  const float f = m - 1.0f;
  const float z = f * f;
  float p = 7.0376836292e-2f;
  p = p * f - 1.1514610310e-1f;
  p = p * f + 1.1676998740e-1f;
  p = p * f - 1.2420140846e-1f;
  p = p * f + 1.4249322787e-1f;
  p = p * f - 1.6668057665e-1f;
  p = p * f + 2.0000714765e-1f;
  p = p * f - 2.4999993993e-1f;
  p = p * f + 3.3333331174e-1f;
  float y = p * f * z;
  y = y + fe * -2.12194440e-4f;
  y = y - 0.5f * z;
  float r = f + y;
  r = r + fe * 0.693359375f;
  r = Select(x == kInf, kInf, r);
  r = Select(x == 0.0f, -kInf, r);
  r = Select(x < 0.0f, kNaN, r);
  return Select(x != x, x, r);
}

// log(1 + x) for x in [0, 1] (and NaN): log(w) for w = 1 + x, corrected by the rounding error
// of w (Goldberg), so tiny x keep full relative accuracy.
KILN_VEC_INLINE float Log1pUnit(float x) {
  const float w = 1.0f + x;
  return Log(w) + (x - (w - 1.0f)) / w;
}

// 1 / (1 + e^-x), from e = e^-|x|: 1 / (1 + e) for x >= 0 and e / (1 + e) below, so neither
// side loses accuracy. +-inf give 1 and 0; NaN propagates.
KILN_VEC_INLINE float Sigmoid(float x) {
  const float e = Exp(-Abs(x));
  return Select(x >= 0.0f, 1.0f, e) / (1.0f + e);
}

// Hyperbolic tangent: x + x^3 P(x^2) for |x| < 0.9 (relative fit error 1.1e-9), else
// sign(x) (1 - 2 / (e^2|x| + 1)), which is +-1 once e^2|x| overflows.
KILN_VEC_INLINE float Tanh(float x) {
  const float ax = Abs(x);
  const float u = x * x;
  float p = -4.55295788e-4f;
  p = p * u + 2.58219940e-3f;
  p = p * u - 8.26401841e-3f;
  p = p * u + 2.16632505e-2f;
  p = p * u - 5.39292172e-2f;
  p = p * u + 1.33329772e-1f;
  p = p * u - 3.33333222e-1f;
  // tanh is odd: the sign of x, which also keeps tanh(-0) = -0 (-0 + +0 would be +0).
  const float small = CopySign(x + x * u * p, x);
  const float e = Exp(2.0f * ax);
  const float big = CopySign(1.0f - 2.0f / (e + 1.0f), x);
  return Select(ax < 0.9f, small, big);
}

// Error function: x + x P(x^2) for |x| < 0.875 (relative fit error 2e-10); above,
// sign(x) (1 - e^-x^2 R(1 / |x|)) with R(t) = erfc(1/t) e^(1/t^2) fitted on [1/4, 1/0.875]
// (absolute erfc error 1.7e-9); |x| is clamped to 4, where erf rounds to 1.
KILN_VEC_INLINE float Erf(float x) {
  const float ax = Abs(x);
  const float u = x * x;
  float p = 8.67517956e-5f;
  p = p * u - 8.21105507e-4f;
  p = p * u + 5.20674326e-3f;
  p = p * u - 2.68615838e-2f;
  p = p * u + 1.12837330e-1f;
  p = p * u - 3.76126356e-1f;
  p = p * u + 1.28379166e-1f;
  const float small = x + x * p;
  const float xc = Select(ax > 4.0f, 4.0f, ax);  // NaN stays NaN
  const float t = 1.0f / xc;
  float q = -1.31437806e-2f;
  q = q * t + 9.37500680e-2f;
  q = q * t - 2.89478536e-1f;
  q = q * t + 4.91082621e-1f;
  q = q * t - 4.40798938e-1f;
  q = q * t + 2.16133688e-2f;
  q = q * t + 5.64950168e-1f;
  q = q * t - 3.91426036e-4f;
  const float erfc = Exp(-xc * xc) * q;
  const float big = CopySign(1.0f - erfc, x);
  return Select(ax < 0.875f, small, big);
}

// floor, ceil and round-half-to-even, exact, keeping the sign of zero; |x| >= 2^23, infinities
// and NaN (already integral or not numbers) pass through. Adding and subtracting 2^23 rounds
// |x| < 2^23 to an integer in the current (nearest-even) rounding mode; floor and ceil then step
// by one where that went the wrong way. No float-to-int conversion: GCC will not speculate one
// under -ftrapping-math, so the loops would stay scalar.
KILN_VEC_INLINE float RoundHalfEven(float x) {
  const float ax = Abs(x);
  const float r = (ax + 8388608.0f) - 8388608.0f;
  return Select(ax < 8388608.0f, CopySign(r, x), x);
}
KILN_VEC_INLINE float Floor(float x) {
  const float r = RoundHalfEven(x);
  // The sign of x is the sign of floor(x) for every x, zeros included: floor(-0.5) = -1.
  return CopySign(Select(r > x, r - 1.0f, r), x);
}
KILN_VEC_INLINE float Ceil(float x) {
  const float r = RoundHalfEven(x);
  // Likewise for ceil: ceil(-0.5) = -0.
  return CopySign(Select(r < x, r + 1.0f, r), x);
}

}  // namespace kiln::cpu::vec
