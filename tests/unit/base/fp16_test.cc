// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "base/fp16.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace kiln {
namespace {

// Hand-worked IEEE binary16 encodings.
TEST(Fp16Test, ConvertsKnownValuesBothWays) {
  struct Case {
    float f;
    uint16_t h;
  } cases[] = {{0.0f, 0x0000},
               {-0.0f, 0x8000},
               {1.0f, 0x3C00},
               {-2.0f, 0xC000},
               {0.5f, 0x3800},
               {65504.0f, 0x7BFF},
               {std::ldexp(1.0f, -14), 0x0400},  // smallest normal
               {std::ldexp(1.0f, -24), 0x0001},  // smallest subnormal
               {std::ldexp(1023.0f, -24), 0x03FF}};
  for (const auto& c : cases) {
    EXPECT_EQ(FloatToHalf(c.f), c.h) << c.f;
    EXPECT_EQ(HalfToFloat(c.h), c.f) << std::hex << c.h;
  }
}

TEST(Fp16Test, RoundsToNearestEven) {
  EXPECT_EQ(FloatToHalf(1.0f + std::ldexp(1.0f, -11)), 0x3C00);      // tie -> even (down)
  EXPECT_EQ(FloatToHalf(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3C02);  // tie -> even (up)
  EXPECT_EQ(FloatToHalf(std::ldexp(1.0f, -25)), 0x0000);             // tie below min subnormal
  EXPECT_EQ(FloatToHalf(std::ldexp(3.0f, -25)), 0x0002);             // tie -> even subnormal
  EXPECT_EQ(FloatToHalf(65520.0f), 0x7C00);                          // rounds to infinity
  EXPECT_EQ(FloatToHalf(65519.0f), 0x7BFF);
}

TEST(Fp16Test, KeepsInfinityAndNan) {
  EXPECT_EQ(FloatToHalf(std::numeric_limits<float>::infinity()), 0x7C00);
  EXPECT_EQ(FloatToHalf(-std::numeric_limits<float>::infinity()), 0xFC00);
  EXPECT_TRUE(std::isinf(HalfToFloat(0x7C00)));
  uint16_t nan = FloatToHalf(std::numeric_limits<float>::quiet_NaN());
  EXPECT_EQ(nan & 0x7C00, 0x7C00);
  EXPECT_NE(nan & 0x03FF, 0);
  EXPECT_TRUE(std::isnan(HalfToFloat(0x7E00)));
}

TEST(Fp16Test, EveryHalfRoundTripsThroughFloat) {
  for (uint32_t h = 0; h <= 0xFFFF; ++h) {
    if ((h & 0x7C00) == 0x7C00 && (h & 0x3FF) != 0) continue;  // NaN payloads may change
    ASSERT_EQ(FloatToHalf(HalfToFloat(static_cast<uint16_t>(h))), h) << std::hex << h;
  }
}

}  // namespace
}  // namespace kiln
