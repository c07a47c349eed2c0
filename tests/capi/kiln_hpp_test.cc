// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// include/kiln/kiln.hpp, the header-only C++17 layer: mnist-8 run through it against the ONNX
// test data, errors as kiln::AclError with the aclError code and message, and ownership (moves,
// release on scope end, nothing leaked: the device's memory use returns to where it was).
#include "kiln/kiln.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/capi/model_test_util.h"

namespace {

using kiln::model_test::CompileOm;
using kiln::model_test::LoadMnistCase;
using kiln::model_test::MatchesOnnx;
using kiln::model_test::MnistOnnx;

size_t FreeDeviceMemory() {
  size_t free = 0, total = 0;
  kiln::Check(aclrtGetMemInfo(ACL_HBM_MEM, &free, &total), "aclrtGetMemInfo");
  return free;
}

TEST(KilnHppTest, RunsMnistThroughTheRaiiLayer) {
  KILN_REQUIRE_MNIST();
  const std::string om = CompileOm("mnist_hpp", MnistOnnx());
  kiln::Runtime runtime;
  kiln::Device device(0);
  const size_t free_before = FreeDeviceMemory();
  {
    kiln::Stream stream;
    kiln::Model model(om);
    ASSERT_EQ(model.num_inputs(), 1u);
    ASSERT_EQ(model.num_outputs(), 1u);
    EXPECT_EQ(model.input_name(0), "Input3");
    EXPECT_EQ(model.input_dims(0), (std::vector<int64_t>{1, 1, 28, 28}));
    EXPECT_EQ(model.output_dims(0), (std::vector<int64_t>{1, 10}));
    auto c = LoadMnistCase(1);
    kiln::DeviceBuffer in(model.input_size(0)), out(model.output_size(0));
    in.copy_from(kiln::Span<const float>(c.input));
    kiln::Event start, end;
    start.record(stream);
    model.execute({&in}, {&out}, stream);
    end.record(stream);
    stream.synchronize();
    EXPECT_GE(end.elapsed_since(start), 0.0f);
    std::vector<float> scores(10);
    out.copy_to(kiln::Span<float>(scores));
    EXPECT_TRUE(MatchesOnnx(scores, c.expected, {1, 10}));
    // The synchronous form, and a moved model.
    kiln::Model moved(std::move(model));
    std::fill(scores.begin(), scores.end(), 0.0f);
    moved.execute({&in}, {&out});
    out.copy_to(kiln::Span<float>(scores));
    EXPECT_TRUE(MatchesOnnx(scores, c.expected, {1, 10}));
  }
  // Every buffer, stream, event and model was released.
  EXPECT_EQ(FreeDeviceMemory(), free_before);
}

TEST(KilnHppTest, FailuresThrowErrorsWithTheirCode) {
  kiln::Runtime runtime;
  kiln::Device device(0);
  try {
    kiln::Model missing("/no/such/model.om");
    FAIL() << "no exception";
  } catch (const kiln::AclError& e) {
    EXPECT_EQ(e.code(), static_cast<aclError>(ACL_ERROR_GE_EXEC_MODEL_PATH_INVALID)) << e.what();
    EXPECT_NE(std::string(e.what()).find("aclmdlLoadFromFile failed with aclError"),
              std::string::npos);
  }
  kiln::DeviceBuffer small(8);
  std::vector<float> big(100, 1.0f);
  EXPECT_THROW(small.copy_from(kiln::Span<const float>(big)), kiln::AclError);
  EXPECT_THROW(kiln::Device(9999), kiln::AclError);
  EXPECT_GE(kiln::Device::count(), 1u);
}

}  // namespace
