// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The CUDA element-wise launchers (elementwise.cu), callable from plain C++: float32 unary math
// and activations, and binary arithmetic (float32 and integers) with numpy broadcasting. The
// kernels themselves live in the .cu file; this header needs no CUDA header.
#pragma once

#include <cstdint>

namespace kiln::cuda {

enum class UnaryOp : int {
  kRelu,
  kSigmoid,
  kTanh,
  kExp,
  kLog,
  kNeg,
  kAbs,
  kSqrt,
  kReciprocal,
  kFloor,
  kCeil,
  kErf,
  kSoftplus
};
enum class BinaryOp : int { kAdd, kSub, kMul, kDiv, kMax, kMin, kPow };
// The element types of the binary kernels: float32 for every op; the integers for all but kPow,
// with the reference kernel's integer rules (wrapping Add/Sub/Mul, Div truncating toward zero
// and 0 for a zero divisor).
enum class BinaryType : int { kFloat32, kInt64, kInt32 };

inline constexpr int kMaxBroadcastRank = 8;

#ifdef __CUDACC__
#define KILN_HOST_DEVICE __host__ __device__
#else
#define KILN_HOST_DEVICE
#endif

// An output of `rank` dims and, per operand, the stride of each output dim in that operand's
// elements (0 along a broadcast dim).
struct BroadcastShape {
  int rank = 0;
  int64_t dims[kMaxBroadcastRank] = {};
  int64_t a_strides[kMaxBroadcastRank] = {};
  int64_t b_strides[kMaxBroadcastRank] = {};
};

// The offsets in each operand of output element `i` (the kernels' indexing, also run on the
// host by the tests).
KILN_HOST_DEVICE inline void BroadcastOffsets(const BroadcastShape& s, int64_t i, int64_t* a,
                                              int64_t* b) {
  int64_t rest = i, ai = 0, bi = 0;
  for (int d = s.rank - 1; d >= 0; --d) {
    const int64_t coord = rest % s.dims[d];
    rest /= s.dims[d];
    ai += coord * s.a_strides[d];
    bi += coord * s.b_strides[d];
  }
  *a = ai;
  *b = bi;
}

// The broadcast of operands of dims `a` and `b` (numpy rules, right-aligned) to `out`: false
// when `out` has more than kMaxBroadcastRank dims or an operand more dims than `out`.
bool MakeBroadcastShape(const int64_t* a, int a_rank, const int64_t* b, int b_rank,
                        const int64_t* out, int out_rank, BroadcastShape* shape);

// Launch on `stream` (a cudaStream_t); return the launch's cudaError_t as an int (0: success).
int LaunchUnary(UnaryOp op, const float* x, float* y, int64_t n, void* stream);
// `same_shape`: both operands have the output's elements in order (no index arithmetic).
int LaunchBinary(BinaryOp op, BinaryType type, const void* a, const void* b, void* y, int64_t n,
                 const BroadcastShape& shape, bool same_shape, void* stream);

}  // namespace kiln::cuda
