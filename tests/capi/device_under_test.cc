// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The device a C API suite runs on. By default device 0 is the host's CPU and models are
// compiled for it. The suites' `*_on_cuda` variants (label gpu, tests/capi/CMakeLists.txt) set
// KILN_TEST_TARGET=cuda: model_test::CompileOm compiles for it (model_test_util.h: TestTarget)
// and this sets KILN_ENABLE_CUDA=1 before the runtime lists devices, so device 0 is the first
// GPU; where device 0 is not of that target's backend — no GPU, no driver, a build without
// CUDA — the case exits with 77, which ctest reports as skipped.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "acl/acl.h"

namespace {

class DeviceUnderTest final : public ::testing::Environment {
 public:
  void SetUp() override {
    const char* target = std::getenv("KILN_TEST_TARGET");
    if (target == nullptr || std::string(target).empty()) return;
    const bool cuda = std::string(target) == "cuda" || std::string(target).rfind("sm_", 0) == 0;
    if (!cuda) return;
    setenv("KILN_ENABLE_CUDA", "1", /*overwrite=*/0);
    std::string device;
    if (aclInit(nullptr) == ACL_SUCCESS) {
      const char* soc = aclrtGetSocName();
      device = soc != nullptr ? soc : "";
      (void)aclFinalize();
    }
    if (device.rfind("sm_", 0) != 0) {
      std::printf("KILN_TEST_TARGET=%s but device 0 is '%s', not a GPU: skipped\n", target,
                  device.c_str());
      std::fflush(stdout);
      std::_Exit(77);
    }
  }
};

const auto* const registered = ::testing::AddGlobalTestEnvironment(new DeviceUnderTest());

}  // namespace
