// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// com.kiln Concat, Split and Add with kiln_nhwc (kernels/nhwc_view.h) on the reference and the
// cpu backend: given tensors stored NHWC, they must write exactly the NHWC storage of what the
// ONNX op computes on the same values stored NCHW (the oracle: the ONNX op's reference kernel,
// then a transpose written here). Without the flag they are the ONNX op.
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "tests/ops/cpu_vs_reference_util.h"

namespace kiln::cpu {
namespace {

using namespace vs_reference;  // NOLINT(build/namespaces): the test helpers
using kernels::DataType;
using kernels::Dims;
using kernels::HostTensor;

HostTensor Sizes(std::vector<int64_t> v) {
  HostTensor t(DataType::kInt64, {static_cast<int64_t>(v.size())});
  std::memcpy(t.bytes.data(), v.data(), v.size() * sizeof(int64_t));
  return t;
}

// What a case gives the op besides its rank-4 data inputs: the inputs after them (a Split's
// sizes, a Resize's roi / scales / sizes; null: omitted; in N, C, H, W order), its attributes
// and output count.
struct Extra {
  std::vector<const HostTensor*> inputs;
  std::map<std::string, ir::Attribute> attrs;
  size_t outputs = 1;
  bool exact = true;      // bit for bit (data movement), else within 1e-6
  bool constant = false;  // the extra inputs are constants (weights), seen at Prepare
};

// The op on NCHW inputs through ONNX's reference kernel, against com.kiln's with kiln_nhwc on the
// same inputs stored NHWC, on each backend: equal after the oracle's transpose. The extra inputs
// are given to both in N, C, H, W order (com.kiln's Resize takes its scales as ONNX's does).
void ExpectNhwcMatches(const std::string& op, const std::vector<HostTensor>& inputs,
                       const Extra& extra) {
  Node onnx(op, 19);
  for (const HostTensor& t : inputs) onnx.In(t);
  for (const HostTensor* t : extra.inputs)
    t ? (void)onnx.In(*t, extra.constant) : (void)onnx.None();
  for (const auto& [name, value] : extra.attrs) onnx.Attr(name, value);
  onnx.Outputs(std::vector<DataType>(extra.outputs, DataType::kFloat32));
  const std::vector<HostTensor> want = RunOn(kernels::kReferenceBackend, onnx);
  ASSERT_FALSE(want.empty());
  for (const std::string backend : {kernels::kReferenceBackend, "cpu"}) {
    Node kiln(op, 1, "com.kiln");
    for (const HostTensor& t : inputs) kiln.In(ToNhwc(t));
    for (const HostTensor* t : extra.inputs) {
      t ? (void)kiln.In(*t, extra.constant) : (void)kiln.None();
    }
    for (const auto& [name, value] : extra.attrs) kiln.Attr(name, value);
    kiln.Int("kiln_nhwc", 1);
    kiln.Outputs(std::vector<DataType>(extra.outputs, DataType::kFloat32));
    const std::vector<HostTensor> got = RunOn(backend, kiln);
    ASSERT_EQ(got.size(), want.size()) << backend;
    for (size_t o = 0; o < got.size(); ++o) {
      EXPECT_EQ(got[o].dims, want[o].dims) << backend << " output " << o;
      const HostTensor stored = ToNhwc(want[o]);
      if (extra.exact) {
        EXPECT_EQ(got[o].bytes, stored.bytes) << backend << " output " << o;
        continue;
      }
      const auto g = Values<float>(got[o]);
      const auto w = Values<float>(stored);
      ASSERT_EQ(g.size(), w.size());
      for (size_t i = 0; i < g.size(); ++i) {
        ASSERT_NEAR(g[i], w[i], 1e-6) << backend << " output " << o << " element " << i;
      }
    }
  }
}

TEST(NhwcViewTest, ConcatOverTheChannels) {
  ExpectNhwcMatches("Concat",
                    {Random({2, 3, 4, 5}, 1), Random({2, 2, 4, 5}, 2), Random({2, 1, 4, 5}, 3)},
                    {{}, {{"axis", int64_t{1}}}});
  ExpectNhwcMatches("Concat", {Random({1, 16, 3, 3}, 4), Random({1, 5, 3, 3}, 5)},
                    {{}, {{"axis", int64_t{-3}}}});
}

TEST(NhwcViewTest, SplitOverTheChannels) {
  const HostTensor sizes = Sizes({1, 3});
  ExpectNhwcMatches("Split", {Random({2, 4, 3, 5}, 6)}, {{&sizes}, {{"axis", int64_t{1}}}, 2});
  ExpectNhwcMatches("Split", {Random({1, 16, 7, 7}, 7)},
                    {{}, {{"axis", int64_t{-3}}, {"num_outputs", int64_t{2}}}, 2});
}

TEST(NhwcViewTest, AddOfOneShape) {
  ExpectNhwcMatches("Add", {Random({1, 6, 5, 7}, 8), Random({1, 6, 5, 7}, 9)}, {});
}

TEST(NhwcViewTest, ArithmeticBroadcastingATensorOfHeightAndWidthOne) {
  // A squeeze-excitation scale [N, C, 1, 1]: the same bytes NCHW and NHWC, so it is given as it
  // is (ToNhwc leaves it unchanged) and broadcast over the channels-last tensor.
  for (const char* op : {"Mul", "Add", "Sub", "Div"}) {
    ExpectNhwcMatches(op, {Random({2, 6, 5, 7}, 16), Random({2, 6, 1, 1}, 17, 0.5f, 2.0f)}, {});
    ExpectNhwcMatches(op, {Random({1, 1, 1, 1}, 18, 0.5f, 2.0f), Random({1, 6, 5, 7}, 19)}, {});
  }
  // A constant scale (a weight), as a Mul by a per-channel constant is compiled.
  const HostTensor x = Random({1, 6, 5, 7}, 20), scale = Random({1, 6, 1, 1}, 21);
  Node onnx("Mul", 14);
  onnx.In(x).Const(scale);
  const std::vector<HostTensor> want = RunOn(kernels::kReferenceBackend, onnx);
  for (const std::string backend : {kernels::kReferenceBackend, "cpu"}) {
    Node kiln("Mul", 1, "com.kiln");
    kiln.In(ToNhwc(x)).Const(scale).Int("kiln_nhwc", 1);
    const std::vector<HostTensor> got = RunOn(backend, kiln);
    ASSERT_EQ(got.size(), 1u) << backend;
    EXPECT_EQ(got[0].bytes, ToNhwc(want[0]).bytes) << backend;
  }
}

HostTensor Floats(std::vector<float> v) {
  HostTensor t(DataType::kFloat32, {static_cast<int64_t>(v.size())});
  std::memcpy(t.bytes.data(), v.data(), v.size() * sizeof(float));
  return t;
}

TEST(NhwcViewTest, ResizeByScalesOrSizesNearestAndLinear) {
  const HostTensor up = Floats({1, 1, 2, 2}), odd = Floats({1, 1, 1.5f, 0.75f});
  const HostTensor sizes = Sizes({1, 3, 7, 4});
  const HostTensor x = Random({1, 3, 5, 6}, 10);
  ExpectNhwcMatches("Resize", {x}, {{nullptr, &up}, {{"mode", std::string("nearest")}}});
  ExpectNhwcMatches("Resize", {x},
                    {{nullptr, &odd},
                     {{"mode", std::string("nearest")},
                      {"coordinate_transformation_mode", std::string("asymmetric")},
                      {"nearest_mode", std::string("floor")}}});
  ExpectNhwcMatches("Resize", {x},
                    {{nullptr, nullptr, &sizes}, {{"mode", std::string("nearest")}}});
  Extra linear{{nullptr, &odd}, {{"mode", std::string("linear")}}};
  linear.exact = false;
  ExpectNhwcMatches("Resize", {Random({2, 4, 6, 5}, 11)}, linear);
  // The channels too: the scales are reordered with the axes.
  const HostTensor channels = Floats({1, 2, 1, 2});
  ExpectNhwcMatches("Resize", {x}, {{nullptr, &channels}, {{"mode", std::string("nearest")}}});
  // Constant scales and sizes (the kernel is prepared with them reordered).
  Extra constant{{nullptr, &odd}, {{"mode", std::string("nearest")}}};
  constant.constant = true;
  ExpectNhwcMatches("Resize", {x}, constant);
  Extra constant_sizes{{nullptr, nullptr, &sizes}, {{"mode", std::string("nearest")}}};
  constant_sizes.constant = true;
  ExpectNhwcMatches("Resize", {x}, constant_sizes);
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
  EXPECT_NE(a.status().message().find("height and width 1"), std::string::npos)
      << a.status().message();
}

}  // namespace
}  // namespace kiln::cpu
