// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "kernels/low_precision_elements.h"

#include <optional>

namespace kiln::kernels {
namespace {

using ir::DataType;

Float8Kind Float8KindOf(DataType t) {
  return *Float8KindOfOnnxType(static_cast<int32_t>(t));  // the ir values are ONNX's
}

bool IsFloat8(DataType t) { return Float8KindOfOnnxType(static_cast<int32_t>(t)).has_value(); }

void StoreBits(DataType t, void* data, int64_t i, uint8_t bits) {
  auto* bytes = static_cast<uint8_t*>(data);
  switch (ir::BitsOf(t)) {
    case 4:
      Store4Bit(bytes, i, bits);
      break;
    case 2:
      Store2Bit(bytes, i, bits);
      break;
    default:
      bytes[i] = bits;
      break;
  }
}

}  // namespace

bool IsSubByteInt(DataType t) { return SubByteIntOfOnnxType(static_cast<int32_t>(t)).has_value(); }

SubByteInt SubByteIntOf(DataType t) { return *SubByteIntOfOnnxType(static_cast<int32_t>(t)); }

double LoadLowPrecision(DataType t, const void* data, int64_t i) {
  const auto* bytes = static_cast<const uint8_t*>(data);
  if (IsFloat8(t)) return Float8ToFloat(Float8KindOf(t), bytes[i]);
  if (t == DataType::kFloat8E8M0) return Float8E8M0ToFloat(bytes[i]);
  if (t == DataType::kFloat4E2M1) return Float4E2M1ToFloat(Load4Bit(bytes, i));
  const SubByteInt kind = SubByteIntOf(t);
  const uint8_t raw = SubByteIntBits(kind) == 4 ? Load4Bit(bytes, i) : Load2Bit(bytes, i);
  return SubByteIntFromBits(kind, raw);
}

void StoreLowPrecisionFromFloat(DataType t, void* data, int64_t i, double v,
                                const LowPrecisionRounding& rounding) {
  const float f = static_cast<float>(v);
  uint8_t bits = 0;
  if (IsFloat8(t)) {
    bits = FloatToFloat8(Float8KindOf(t), f, rounding.saturate);
  } else if (t == DataType::kFloat8E8M0) {
    bits = FloatToFloat8E8M0(f, rounding.saturate, rounding.round_mode);
  } else if (t == DataType::kFloat4E2M1) {
    bits = FloatToFloat4E2M1(f);
  } else {
    bits = static_cast<uint8_t>(CastFloatToSubByteInt(SubByteIntOf(t), v));
  }
  StoreBits(t, data, i, bits);
}

void StoreLowPrecisionFromInt(DataType t, void* data, int64_t i, int64_t v,
                              const LowPrecisionRounding& rounding) {
  if (IsSubByteInt(t)) {
    StoreBits(t, data, i, static_cast<uint8_t>(WrapToSubByteInt(SubByteIntOf(t), v)));
    return;
  }
  StoreLowPrecisionFromFloat(t, data, i, static_cast<double>(v), rounding);
}

}  // namespace kiln::kernels
