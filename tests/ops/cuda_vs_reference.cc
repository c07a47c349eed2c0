// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "tests/ops/cuda_vs_reference.h"

#include <cmath>
#include <random>

namespace kiln::cuda::testing {

HostTensor Random(Dims dims, float lo, float hi, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(static_cast<size_t>(kernels::NumElements(dims)));
  for (float& x : v) x = dist(gen);
  return kernels::testing::F32(std::move(dims), v);
}

void ExpectClose(const Ran& ran, float rtol, const std::string& what) {
  if (!ran) return;
  const auto& [expected_tensor, actual_tensor] = *ran;
  ASSERT_EQ(expected_tensor.dims, actual_tensor.dims) << what;
  const std::vector<float> expected = kernels::testing::Values<float>(expected_tensor);
  const std::vector<float> actual = kernels::testing::Values<float>(actual_tensor);
  ASSERT_EQ(expected.size(), actual.size()) << what;
  for (size_t i = 0; i < expected.size(); ++i) {
    const float e = expected[i], a = actual[i];
    if (std::isnan(e)) {
      EXPECT_TRUE(std::isnan(a)) << what << " [" << i << "]";
      continue;
    }
    EXPECT_LE(std::fabs(e - a), rtol * std::fabs(e) + (rtol > 0 ? 1e-6f : 0.f))
        << what << " [" << i << "]: reference " << e << ", CUDA " << a;
  }
}

void ExpectNear(const Ran& ran, float atol, float rtol, const std::string& what) {
  if (!ran) return;
  ASSERT_EQ(ran->first.dims, ran->second.dims) << what;
  const std::vector<float> expected = kernels::testing::Values<float>(ran->first);
  const std::vector<float> actual = kernels::testing::Values<float>(ran->second);
  ASSERT_EQ(expected.size(), actual.size()) << what;
  int reported = 0;
  for (size_t i = 0; i < expected.size() && reported < 10; ++i) {
    const float e = expected[i], a = actual[i];
    if (!(std::fabs(e - a) <= atol + rtol * std::fabs(e))) {
      ADD_FAILURE() << what << " [" << i << "]: reference " << e << ", CUDA " << a;
      ++reported;
    }
  }
}

void ExpectSameBytes(const Ran& ran, const std::string& what) {
  if (!ran) return;
  EXPECT_EQ(ran->first.dims, ran->second.dims) << what;
  EXPECT_EQ(ran->first.bytes, ran->second.bytes) << what;
}

}  // namespace kiln::cuda::testing
