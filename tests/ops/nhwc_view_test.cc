// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// com.kiln Concat, Split and Add with kiln_nhwc (kernels/nhwc_view.h) on the reference and the
// cpu backend: given tensors stored NHWC, they must write exactly the NHWC storage of what the
// ONNX op computes on the same values stored NCHW (the oracle: the ONNX op's reference kernel,
// then a transpose written here). Without the flag they are the ONNX op.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/ops/cpu_vs_reference_util.h"

namespace kiln::cpu {
namespace {

using namespace vs_reference;  // NOLINT(build/namespaces): the test helpers
using kernels::DataType;
using kernels::Dims;
using kernels::HostTensor;

// The same values stored N, H, W, C (dims still read N, C, H, W).
HostTensor ToNhwc(const HostTensor& t) {
  HostTensor out(t.dtype, t.dims);
  const int64_t n = t.dims[0], c = t.dims[1], hw = t.dims[2] * t.dims[3];
  const auto* s = reinterpret_cast<const float*>(t.bytes.data());
  auto* d = reinterpret_cast<float*>(out.bytes.data());
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t ch = 0; ch < c; ++ch) {
      for (int64_t p = 0; p < hw; ++p) d[(i * hw + p) * c + ch] = s[(i * c + ch) * hw + p];
    }
  }
  return out;
}

HostTensor Sizes(std::vector<int64_t> v) {
  HostTensor t(DataType::kInt64, {static_cast<int64_t>(v.size())});
  std::memcpy(t.bytes.data(), v.data(), v.size() * sizeof(int64_t));
  return t;
}

std::vector<HostTensor> RunOn(const std::string& backend, const Node& node) {
  auto out = node.Run(Registry().Create(backend, node.def()));
  EXPECT_TRUE(out.ok()) << backend << ": " << out.status().message();
  return out.ok() ? *out : std::vector<HostTensor>{};
}

// The op on NCHW inputs through ONNX's reference kernel, against com.kiln's with kiln_nhwc on the
// same inputs stored NHWC, on each backend: equal bit for bit after the oracle's transpose.
void ExpectNhwcMatches(const std::string& op, const std::vector<HostTensor>& inputs,
                       const HostTensor* sizes, int64_t axis) {
  Node onnx(op, 18);
  for (const HostTensor& t : inputs) onnx.In(t);
  if (sizes != nullptr) onnx.In(*sizes);
  if (axis >= -4) onnx.Int("axis", axis);
  if (op == "Split") onnx.Outputs(std::vector<DataType>(2, DataType::kFloat32));
  const std::vector<HostTensor> want = RunOn(kernels::kReferenceBackend, onnx);
  ASSERT_FALSE(want.empty());
  for (const std::string backend : {kernels::kReferenceBackend, "cpu"}) {
    Node kiln(op, 1, "com.kiln");
    for (const HostTensor& t : inputs) kiln.In(ToNhwc(t));
    if (sizes != nullptr) kiln.In(*sizes);
    if (axis >= -4) kiln.Int("axis", axis);
    kiln.Int("kiln_nhwc", 1);
    if (op == "Split") kiln.Outputs(std::vector<DataType>(2, DataType::kFloat32));
    const std::vector<HostTensor> got = RunOn(backend, kiln);
    ASSERT_EQ(got.size(), want.size()) << backend;
    for (size_t o = 0; o < got.size(); ++o) {
      EXPECT_EQ(got[o].dims, want[o].dims) << backend << " output " << o;
      EXPECT_EQ(got[o].bytes, ToNhwc(want[o]).bytes) << backend << " output " << o;
    }
  }
}

TEST(NhwcViewTest, ConcatOverTheChannels) {
  ExpectNhwcMatches("Concat",
                    {Random({2, 3, 4, 5}, 1), Random({2, 2, 4, 5}, 2), Random({2, 1, 4, 5}, 3)},
                    nullptr, 1);
  ExpectNhwcMatches("Concat", {Random({1, 16, 3, 3}, 4), Random({1, 5, 3, 3}, 5)}, nullptr, -3);
}

TEST(NhwcViewTest, SplitOverTheChannels) {
  const HostTensor sizes = Sizes({1, 3});
  ExpectNhwcMatches("Split", {Random({2, 4, 3, 5}, 6)}, &sizes, 1);
  const HostTensor even = Sizes({8, 8});
  ExpectNhwcMatches("Split", {Random({1, 16, 7, 7}, 7)}, &even, -3);
}

TEST(NhwcViewTest, AddOfOneShape) {
  ExpectNhwcMatches("Add", {Random({1, 6, 5, 7}, 8), Random({1, 6, 5, 7}, 9)}, nullptr, -5);
}

TEST(NhwcViewTest, WithoutTheFlagTheOpIsOnnxs) {
  const HostTensor a = Random({1, 3, 2, 2}, 10), b = Random({1, 2, 2, 2}, 11);
  Node onnx("Concat", 18);
  onnx.In(a).In(b).Int("axis", 1);
  const std::vector<HostTensor> want = RunOn(kernels::kReferenceBackend, onnx);
  for (const std::string backend : {kernels::kReferenceBackend, "cpu"}) {
    Node kiln("Concat", 1, "com.kiln");
    kiln.In(a).In(b).Int("axis", 1);
    const std::vector<HostTensor> got = RunOn(backend, kiln);
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(got[0].bytes, want[0].bytes) << backend;
  }
}

TEST(NhwcViewTest, TheDefinitionRefusesOtherAxesAndBroadcasts) {
  Node concat("Concat", 1, "com.kiln");
  concat.In(Random({1, 2, 3, 3}, 12)).In(Random({1, 2, 3, 3}, 13)).Int("axis", 2);
  concat.Int("kiln_nhwc", 1);
  auto k = Registry().Create("cpu", concat.def());
  ASSERT_FALSE(k.ok());
  EXPECT_EQ(k.status().code(), code::kInvalidParam) << k.status().message();
  Node add("Add", 1, "com.kiln");
  add.In(Random({1, 2, 3, 3}, 14)).In(Random({1, 1, 3, 3}, 15)).Int("kiln_nhwc", 1);
  auto a = Registry().Create(kernels::kReferenceBackend, add.def());
  ASSERT_FALSE(a.ok());
  EXPECT_NE(a.status().message().find("one known shape"), std::string::npos)
      << a.status().message();
}

}  // namespace
}  // namespace kiln::cpu
