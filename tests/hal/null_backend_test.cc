// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The null backend (tests/hal/null_driver.h) behind the AscendCL API: a device that is not the
// CPU runs a real model through the same loader and executor, on the reference kernels, and
// the executor sends its kernels' work to that device's Execution.
#include <gtest/gtest.h>

#include "acl/acl.h"
#include "tests/capi/model_test_util.h"
#include "tests/hal/null_driver.h"

namespace kiln::hal::testing {
namespace {

using model_test::IoDatasets;
using model_test::LoadedModel;
using model_test::RecentErrMsg;

class NullBackendTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    // Before the runtime lists devices: the null device takes physical id 0, the CPU id 1.
    RegisterDriver(CreateNullDriver());
  }
  void SetUp() override { ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS) << RecentErrMsg(); }
  void TearDown() override { EXPECT_EQ(aclFinalize(), ACL_SUCCESS) << RecentErrMsg(); }
};

// Runs mnist-8's three ONNX test data sets on device `id`; returns the outputs.
std::vector<std::vector<float>> RunMnist(int32_t id) {
  EXPECT_EQ(aclrtSetDevice(id), ACL_SUCCESS) << RecentErrMsg();
  std::vector<std::vector<float>> outputs;
  {
    LoadedModel m(model_test::MnistOm());
    IoDatasets io({model_test::kMnistInputBytes}, {model_test::kMnistOutputBytes});
    for (int set = 0; set < 3; ++set) {
      model_test::MnistCase c = model_test::LoadMnistCase(set);
      io.input(0).Write(c.input);
      EXPECT_EQ(aclmdlExecute(m.id(), io.in(), io.out()), ACL_SUCCESS) << RecentErrMsg();
      outputs.push_back(io.output(0).ReadFloats(model_test::kMnistOutputFloats));
      EXPECT_TRUE(model_test::MatchesOnnx(outputs.back(), c.expected, {1, 10}))
          << "device " << id << ", data set " << set;
    }
  }
  EXPECT_EQ(aclrtResetDevice(id), ACL_SUCCESS) << RecentErrMsg();
  return outputs;
}

TEST_F(NullBackendTest, ListsTheNullDeviceBeforeTheCpu) {
  uint32_t count = 0;
  ASSERT_EQ(aclrtGetDeviceCount(&count), ACL_SUCCESS);
  EXPECT_EQ(count, 2u);
}

TEST_F(NullBackendTest, RunsAModelOnTheReferenceKernelsThroughTheSameExecutor) {
  KILN_REQUIRE_MNIST();
  NullCounters& counters = Counters();
  const int64_t runs = counters.executions, loops = counters.parallel_fors;
  const int64_t allocations = counters.allocations;
  std::vector<std::vector<float>> on_null = RunMnist(0);
  // Every execution began on the null device's Execution, and the reference convolution's
  // parallel loops went to it.
  EXPECT_EQ(counters.executions - runs, 3);
  EXPECT_GT(counters.parallel_fors - loops, 0);
  // Weights, workspace and I/O buffers came from the null device's allocator.
  EXPECT_GT(counters.allocations - allocations, 0);
  // The CPU device (oneDNN and Kiln's own kernels) agrees with the oracle run.
  const int64_t before_cpu = counters.executions;
  std::vector<std::vector<float>> on_cpu = RunMnist(1);
  EXPECT_EQ(counters.executions, before_cpu);  // nothing of the CPU run touched the null device
  for (size_t s = 0; s < on_null.size(); ++s) {
    EXPECT_TRUE(model_test::MatchesOnnx(on_cpu[s], on_null[s], {1, 10})) << "data set " << s;
  }
}

}  // namespace
}  // namespace kiln::hal::testing
