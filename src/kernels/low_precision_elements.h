// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Element access to tensors of the low-precision types (ir::IsLowPrecision: float8 x4, E8M0,
// FLOAT4E2M1, int4/uint4/int2/uint2) by their ir::DataType, on top of the code conversions of
// kernels/low_precision.h: what Cast, CastLike, QuantizeLinear and DequantizeLinear (and
// ReadDoubles/ReadInts) need to read and write them one element at a time. Packed types are
// addressed by element index; a store changes only its element's bits.
#pragma once

#include <cstdint>

#include "ir/data_type.h"
#include "kernels/low_precision.h"

namespace kiln::kernels {

// The exact value of element i of `data`, a buffer of low-precision type `t`: float8, E8M0 and
// FLOAT4E2M1 as their float values (NaN and inf kept), the sub-byte integers as integers.
double LoadLowPrecision(ir::DataType t, const void* data, int64_t i);

// How a store rounds where the target type asks: Cast's and QuantizeLinear's 'saturate' (float8
// targets) and Cast's 'round_mode' (E8M0 targets).
struct LowPrecisionRounding {
  bool saturate = true;
  E8M0RoundMode round_mode = E8M0RoundMode::kUp;
};

// Stores `v`, a floating-point value, as element i with Cast's semantics: float8, E8M0 and
// FLOAT4E2M1 round the value converted to float first (as ONNX's reference does); the sub-byte
// integers truncate toward zero and keep the low bits (CastFloatToSubByteInt).
void StoreLowPrecisionFromFloat(ir::DataType t, void* data, int64_t i, double v,
                                const LowPrecisionRounding& rounding);

// Stores `v`, an integer value, as element i with Cast's semantics: the sub-byte integers keep
// its low bits (WrapToSubByteInt), the float types round float(v).
void StoreLowPrecisionFromInt(ir::DataType t, void* data, int64_t i, int64_t v,
                              const LowPrecisionRounding& rounding);

// Whether `t` is one of the sub-byte integer types (int4, uint4, int2, uint2), and its kind.
bool IsSubByteInt(ir::DataType t);
SubByteInt SubByteIntOf(ir::DataType t);

}  // namespace kiln::kernels
