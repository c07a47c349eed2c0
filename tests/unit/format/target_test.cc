// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "format/target.h"

#include <gtest/gtest.h>

namespace kiln::format {
namespace {

TEST(TargetTest, NamesAndTheirBackends) {
  for (const char* cpu : {"cpu", "cpu-avx2", "cpu-avx512"}) {
    EXPECT_TRUE(IsTarget(cpu)) << cpu;
    EXPECT_EQ(TargetBackend(cpu), "cpu") << cpu;
  }
  for (const char* cuda : {"cuda", "sm_75", "sm_80", "sm_90", "sm_100"}) {
    EXPECT_TRUE(IsTarget(cuda)) << cuda;
    EXPECT_EQ(TargetBackend(cuda), "cuda") << cuda;
  }
  for (const char* other : {"", "gpu", "CUDA", "sm_", "sm_9", "sm_9a", "sm_1000", "Ascend310",
                            "cpu-avx", "cpu-avx512 "}) {
    EXPECT_FALSE(IsTarget(other)) << "'" << other << "'";
    EXPECT_EQ(TargetBackend(other), "") << "'" << other << "'";
  }
}

TEST(TargetTest, ACpuTargetRunsOnEveryCpuDeviceAndNoGpu) {
  EXPECT_EQ(TargetMismatch("cpu-avx512", "cpu", "cpu-avx2"), "");
  EXPECT_EQ(TargetMismatch("cpu", "cpu", "cpu-avx512"), "");
  EXPECT_EQ(TargetMismatch("cpu-avx512", "null", "null"), "");  // a host test double
  const std::string why = TargetMismatch("cpu-avx512", "cuda", "sm_90");
  EXPECT_NE(why.find("'cpu-avx512'"), std::string::npos) << why;
  EXPECT_NE(why.find("sm_90"), std::string::npos) << why;
  EXPECT_NE(why.find("--soc_version=cuda"), std::string::npos) << why;
}

TEST(TargetTest, ACudaTargetIsRefusedOnTheCpuWithBothNames) {
  const std::string why = TargetMismatch("sm_90", "cpu", "cpu-avx512");
  EXPECT_NE(why.find("'sm_90'"), std::string::npos) << why;
  EXPECT_NE(why.find("cpu-avx512"), std::string::npos) << why;
  EXPECT_NE(why.find("--soc_version=cpu"), std::string::npos) << why;
  EXPECT_NE(TargetMismatch("cuda", "null", "null"), "");
  EXPECT_EQ(TargetMismatch("cuda", "cuda", "sm_90"), "");
}

TEST(TargetTest, AFileThatNamesNoTargetRunsAnywhere) {
  EXPECT_EQ(TargetMismatch("", "cpu", "cpu-avx512"), "");
  EXPECT_EQ(TargetMismatch("", "cuda", "sm_90"), "");
}

}  // namespace
}  // namespace kiln::format
