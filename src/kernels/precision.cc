// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "kernels/precision.h"

#include <string>

#include "base/error_codes.h"

namespace kiln::kernels {

const char* Name(MatrixPrecision p) {
  switch (p) {
    case MatrixPrecision::kBf16:
      return "bf16";
    case MatrixPrecision::kFp16:
      return "fp16";
    case MatrixPrecision::kFp32:
      break;
  }
  return "fp32";
}

std::optional<MatrixPrecision> ParseMatrixPrecision(std::string_view name) {
  if (name == "fp32") return MatrixPrecision::kFp32;
  if (name == "bf16") return MatrixPrecision::kBf16;
  if (name == "fp16") return MatrixPrecision::kFp16;
  return std::nullopt;
}

Result<MatrixPrecision> MatrixPrecisionForAtcMode(std::string_view mode, bool fp16_device) {
  static constexpr std::string_view kBf16[] = {"allow_fp32_to_bf16", "allow_mix_precision_bf16",
                                               "mixed_bfloat16"};
  static constexpr std::string_view kFp16[] = {
      "force_fp16", "allow_fp32_to_fp16", "allow_mix_precision", "allow_mix_precision_fp16",
      "fp16",       "mixed_float16",      "cube_fp16in_fp32out"};
  static constexpr std::string_view kFp32[] = {"force_fp32", "must_keep_origin_dtype", "origin",
                                               "cube_hif8", "mixed_hif8"};
  std::string valid;
  for (std::string_view m : kBf16) {
    if (mode == m) return MatrixPrecision::kBf16;
    valid += std::string(m) + ", ";
  }
  for (std::string_view m : kFp16) {
    if (mode == m) return fp16_device ? MatrixPrecision::kFp16 : MatrixPrecision::kFp32;
    valid += std::string(m) + ", ";
  }
  for (std::string_view m : kFp32) {
    if (mode == m) return MatrixPrecision::kFp32;
    valid += std::string(m) + ", ";
  }
  valid.resize(valid.size() - 2);
  return Error(code::kInvalidParam, "precision mode '", mode, "' is not one of: ", valid);
}

}  // namespace kiln::kernels
