// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Element access to low-precision tensors by ir::DataType: values worked by hand from the
// formats (float8 E4M3FN 0x38 = 1.0, E5M2 0x3C = 1.0, E8M0 127 = 1.0, E2M1 0x3 = 1.5) and
// from Cast's rules (integers wrap into the sub-byte types, floats truncate first).
#include "kernels/low_precision_elements.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

namespace kiln::kernels {
namespace {

using ir::DataType;

TEST(LowPrecisionElementsTest, LoadsEachTypesValue) {
  const uint8_t e4m3[] = {0x38, 0xB8, 0x7F};
  EXPECT_EQ(LoadLowPrecision(DataType::kFloat8E4M3FN, e4m3, 0), 1.0);
  EXPECT_EQ(LoadLowPrecision(DataType::kFloat8E4M3FN, e4m3, 1), -1.0);
  EXPECT_TRUE(std::isnan(LoadLowPrecision(DataType::kFloat8E4M3FN, e4m3, 2)));
  const uint8_t e5m2[] = {0x3C, 0x7C};
  EXPECT_EQ(LoadLowPrecision(DataType::kFloat8E5M2, e5m2, 0), 1.0);
  EXPECT_TRUE(std::isinf(LoadLowPrecision(DataType::kFloat8E5M2, e5m2, 1)));
  const uint8_t e8m0[] = {127, 130};
  EXPECT_EQ(LoadLowPrecision(DataType::kFloat8E8M0, e8m0, 1), 8.0);
  // Packed: element 0 in the low nibble, element 1 in the high one.
  const uint8_t fp4[] = {0xB3};  // 0x3 = 1.5, 0xB = -1.5
  EXPECT_EQ(LoadLowPrecision(DataType::kFloat4E2M1, fp4, 0), 1.5);
  EXPECT_EQ(LoadLowPrecision(DataType::kFloat4E2M1, fp4, 1), -1.5);
  const uint8_t int4[] = {0x8F};  // 0xF = -1, 0x8 = -8
  EXPECT_EQ(LoadLowPrecision(DataType::kInt4, int4, 0), -1.0);
  EXPECT_EQ(LoadLowPrecision(DataType::kInt4, int4, 1), -8.0);
  EXPECT_EQ(LoadLowPrecision(DataType::kUint4, int4, 1), 8.0);
  const uint8_t int2[] = {0b10'01'11'00};  // elements 0, 3, 1, 2 from the low bits
  EXPECT_EQ(LoadLowPrecision(DataType::kInt2, int2, 1), -1.0);
  EXPECT_EQ(LoadLowPrecision(DataType::kInt2, int2, 3), -2.0);
  EXPECT_EQ(LoadLowPrecision(DataType::kUint2, int2, 1), 3.0);
}

TEST(LowPrecisionElementsTest, StoresChangeOnlyTheirElement) {
  uint8_t packed[2] = {0xFF, 0xFF};
  StoreLowPrecisionFromInt(DataType::kInt4, packed, 1, 3, {});
  EXPECT_EQ(packed[0], 0x3F);
  StoreLowPrecisionFromInt(DataType::kUint2, packed, 5, 0, {});
  EXPECT_EQ(packed[1], 0xF3);
  EXPECT_EQ(packed[0], 0x3F);
}

TEST(LowPrecisionElementsTest, IntegersWrapAndFloatsTruncateIntoSubByteTypes) {
  uint8_t b[1] = {0};
  StoreLowPrecisionFromInt(DataType::kInt4, b, 0, 9, {});  // 9 = 0b1001 -> -7
  EXPECT_EQ(LoadLowPrecision(DataType::kInt4, b, 0), -7.0);
  StoreLowPrecisionFromFloat(DataType::kInt4, b, 0, -1.75, {});  // truncated: -1
  EXPECT_EQ(LoadLowPrecision(DataType::kInt4, b, 0), -1.0);
  StoreLowPrecisionFromInt(DataType::kUint4, b, 0, -1, {});  // low bits: 15
  EXPECT_EQ(LoadLowPrecision(DataType::kUint4, b, 0), 15.0);
}

TEST(LowPrecisionElementsTest, FloatStoresRoundAsCastSays) {
  uint8_t b[1] = {0};
  StoreLowPrecisionFromFloat(DataType::kFloat8E4M3FN, b, 0, 1000.0, {});
  EXPECT_EQ(b[0], 0x7E);  // saturated to 448
  LowPrecisionRounding no_saturate;
  no_saturate.saturate = false;
  StoreLowPrecisionFromFloat(DataType::kFloat8E4M3FN, b, 0, 1000.0, no_saturate);
  EXPECT_EQ(b[0], 0x7F);  // NaN
  StoreLowPrecisionFromFloat(DataType::kFloat8E5M2, b, 0, 1e6, no_saturate);
  EXPECT_EQ(b[0], 0x7C);  // +inf
  LowPrecisionRounding down;
  down.round_mode = E8M0RoundMode::kDown;
  StoreLowPrecisionFromFloat(DataType::kFloat8E8M0, b, 0, 3.0, down);
  EXPECT_EQ(b[0], 128);                                              // 2^1
  StoreLowPrecisionFromFloat(DataType::kFloat8E8M0, b, 0, 3.0, {});  // up
  EXPECT_EQ(b[0], 129);                                              // 2^2
  StoreLowPrecisionFromInt(DataType::kFloat4E2M1, b, 0, 5, {});      // tie of 4 and 6 -> even (4)
  EXPECT_EQ(LoadLowPrecision(DataType::kFloat4E2M1, b, 0), 4.0);
}

}  // namespace
}  // namespace kiln::kernels
