// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "base/env.h"

#include <gtest/gtest.h>

#include <cstdlib>

namespace kiln::env {
namespace {

TEST(EnvTest, GetReturnsFallbackForUnsetAndEmpty) {
  unsetenv("KILN_TEST_VAR");
  EXPECT_EQ(Get("KILN_TEST_VAR", "dflt"), "dflt");
  setenv("KILN_TEST_VAR", "", 1);
  EXPECT_EQ(Get("KILN_TEST_VAR", "dflt"), "dflt");
  setenv("KILN_TEST_VAR", "x", 1);
  EXPECT_EQ(Get("KILN_TEST_VAR", "dflt"), "x");
}

TEST(EnvTest, ParseByteSizeUnderstandsBinaryUnits) {
  EXPECT_EQ(ParseByteSize("1024"), 1024u);
  EXPECT_EQ(ParseByteSize("64k"), 65536u);
  EXPECT_EQ(ParseByteSize("512M"), 512u << 20);
  EXPECT_EQ(ParseByteSize("512MB"), 512u << 20);
  EXPECT_EQ(ParseByteSize("2G"), uint64_t{2} << 30);
  EXPECT_EQ(ParseByteSize("1T"), uint64_t{1} << 40);
}

TEST(EnvTest, ParseByteSizeRejectsNonSizes) {
  for (const char* bad :
       {"", "0", "-5", "abc", "12X", "1.5G", "5M extra", "99999999999999999999", "20000000T"}) {
    EXPECT_FALSE(ParseByteSize(bad).has_value()) << bad;
  }
}

}  // namespace
}  // namespace kiln::env
