// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The CUDA Cast launcher (cast.cu), callable from plain C++: element-wise conversion between the
// types below with ONNX Cast's rules as the reference kernel applies them (to bool: non-zero;
// to a float type: rounded to nearest; float to integer: truncated, NaN to 0, beyond int64's
// range saturated to it, then wrapped to the width).
#pragma once

#include <cstdint>

namespace kiln::cuda {

enum class CastType : int {
  kFloat32,
  kFloat16,
  kBfloat16,
  kFloat64,
  kInt64,
  kInt32,
  kInt16,
  kInt8,
  kUint8,
  kBool,
};

int LaunchCast(CastType from, CastType to, const void* x, void* y, int64_t n, void* stream);

}  // namespace kiln::cuda
