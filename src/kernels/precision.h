// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The precision a compiled model's matrix kernels (convolutions, transposed convolutions,
// matrix products) may compute in, chosen at compile time by ATC's precision modes
// (docs/atc.md "Precision"): kFp32 keeps every product in float32; kBf16 lets a kernel take its
// inputs as bfloat16 with float32 accumulation and float32 results, where the device has
// bf16 arithmetic (AVX512_BF16 or AMX on the CPU, a GPU's tensor cores; elsewhere it computes in
// float32); kFp16 likewise with float16 inputs, recorded only for a CUDA target (the CPU has no
// fp16 matrix arithmetic). Every other op computes in float32 in all three.
#pragma once

#include <optional>
#include <string_view>

#include "base/status.h"

namespace kiln::kernels {

enum class MatrixPrecision : unsigned char { kFp32, kBf16, kFp16 };

// The .om option that carries it (absent: kFp32), and its values "fp32" / "bf16" / "fp16".
inline constexpr char kMatrixPrecisionOption[] = "matrix_precision";
const char* Name(MatrixPrecision p);
std::optional<MatrixPrecision> ParseMatrixPrecision(std::string_view name);

// ATC's --precision_mode / --precision_mode_v2 values for a target with (`fp16_device`: a GPU)
// or without (the CPU) fp16 matrix arithmetic: allow_fp32_to_bf16, allow_mix_precision_bf16 and
// mixed_bfloat16 give kBf16; the fp16 modes (force_fp16, allow_fp32_to_fp16,
// allow_mix_precision, allow_mix_precision_fp16, fp16, mixed_float16, cube_fp16in_fp32out) give
// kFp16 on an fp16 device and kFp32 elsewhere; force_fp32, must_keep_origin_dtype, origin and
// the hif8 modes (cube_hif8, mixed_hif8: no device here has hif8) give kFp32; anything else is
// kParamInvalid naming the valid values.
Result<MatrixPrecision> MatrixPrecisionForAtcMode(std::string_view mode, bool fp16_device);

}  // namespace kiln::kernels
