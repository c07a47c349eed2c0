// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The CUDA 8-bit launchers (quant.cu), callable from plain C++: DequantizeLinear,
// DynamicQuantizeLinear and MatMulInteger with the reference kernels' formulas
// (kernels/reference/quantize.cc, qlinear.cc).
#pragma once

#include <cstdint>

#include "backends/cuda/kernels/matmul_shape.h"

namespace kiln::cuda {

// y[i] = (x[i] - zero_point[p]) * scale[p] in float32, p = (i / inner) % axis_len (0 for one
// scale: axis_len 1). x and the zero point are int8 (`signed_x`) or uint8; zero_point may be
// null (0).
int LaunchDequantize(const void* x, bool signed_x, const float* scale, const void* zero_point,
                     float* y, int64_t n, int64_t inner, int64_t axis_len, void* stream);

// DynamicQuantizeLinear: the range [min(0, min x), max(0, max x)] of the float32 x (NaN left
// out) over [0, 255]; writes y (uint8), *y_scale and *y_zero_point. `range` is 2 floats of
// device scratch.
int LaunchDynamicQuantize(const float* x, int64_t n, uint8_t* y, float* y_scale,
                          uint8_t* y_zero_point, float* range, void* stream);

// MatMulInteger: y (int32) = Σ (a - a_zero_point) · (b - b_zero_point) over each product's K
// terms (wrapping as a 32-bit sum), A and B 8-bit (`signed_a`, `signed_b`), laid out as `s`
// (no transposes). a_zero_point: one value or null; b_zero_point: one value, one per column
// (`b_zp_per_column`), or null.
int LaunchMatMulInteger(const void* a, bool signed_a, const void* b, bool signed_b,
                        const void* a_zero_point, const void* b_zero_point, bool b_zp_per_column,
                        int32_t* y, const MatmulShape& s, void* stream);

}  // namespace kiln::cuda
