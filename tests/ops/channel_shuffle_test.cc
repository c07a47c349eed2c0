// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// com.kiln ChannelShuffle (channel_shuffle_fusion's node) on the reference and the cpu backend:
// a case worked by hand, then against the three ONNX ops it replaces (Reshape to [N, g, C / g,
// ...], Transpose of axes 1 and 2, Reshape back: the reference Transpose of the input viewed at
// rank + 1), on NCHW and, with kiln_nhwc, on tensors stored NHWC; bit for bit (data movement).
// Float32 on the cpu backend must run its own kernel (oneDNN's reorder); other types the
// reference kernel.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "tests/ops/cpu_vs_reference_util.h"

namespace kiln::cpu {
namespace {

using namespace vs_reference;  // NOLINT(build/namespaces): the test helpers
using kernels::DataType;
using kernels::Dims;
using kernels::HostTensor;

constexpr const char* kBackends[] = {kernels::kReferenceBackend, "cpu"};

HostTensor Shuffle(const std::string& backend, const HostTensor& x, int64_t group, bool nhwc) {
  Node node = Node::Fused("ChannelShuffle");
  node.In(x).Int("group", group);
  if (nhwc) node.Int("kiln_nhwc", 1);
  node.Outputs({x.dtype});
  std::vector<HostTensor> y;
  if (backend == "cpu" && x.dtype == DataType::kFloat32) {
    RunOnCpu(node, &y);  // oneDNN's reorder, never the reference kernel
  } else {
    y = RunOn(backend, node);
  }
  return y.empty() ? HostTensor(x.dtype, {0}) : y[0];
}

// What Reshape -> Transpose (axes 1 and 2) -> Reshape computes, through the reference Transpose.
HostTensor Unfused(const HostTensor& x, int64_t group) {
  HostTensor split = x;
  split.dims = {x.dims[0], group, x.dims[1] / group};
  split.dims.insert(split.dims.end(), x.dims.begin() + 2, x.dims.end());
  std::vector<int64_t> perm{0, 2, 1};
  for (size_t i = 3; i < split.dims.size(); ++i) perm.push_back(static_cast<int64_t>(i));
  Node transpose("Transpose", 13);
  transpose.In(split).Ints("perm", perm).Outputs({x.dtype});
  std::vector<HostTensor> y = RunOn(kernels::kReferenceBackend, transpose);
  if (y.empty()) return HostTensor(x.dtype, {0});
  y[0].dims = x.dims;
  return y[0];
}

TEST(ChannelShuffleTest, SixChannelsInTwoAndThreeGroupsWorkedByHand) {
  // Channel c holds 10 c and 10 c + 1 (N 1, H 1, W 2).
  HostTensor x(DataType::kFloat32, {1, 6, 1, 2});
  std::vector<float> v;
  for (int c = 0; c < 6; ++c) v.insert(v.end(), {10.0f * c, 10.0f * c + 1});
  std::memcpy(x.bytes.data(), v.data(), v.size() * sizeof(float));
  // Two groups [0 1 2 | 3 4 5] read column by column: 0 3 1 4 2 5; three [0 1 | 2 3 | 4 5]: 0 2 4
  // 1 3 5.
  const std::vector<std::pair<int64_t, std::vector<int>>> cases = {{2, {0, 3, 1, 4, 2, 5}},
                                                                   {3, {0, 2, 4, 1, 3, 5}}};
  for (const auto& [group, order] : cases) {
    std::vector<float> want;
    for (int c : order) want.insert(want.end(), {10.0f * c, 10.0f * c + 1});
    for (const char* backend : kBackends) {
      EXPECT_EQ(Values<float>(Shuffle(backend, x, group, false)), want)
          << backend << " group " << group;
    }
  }
}

TEST(ChannelShuffleTest, MatchesTheThreeOnnxOpsItReplaces) {
  for (const auto& [dims, group] : std::vector<std::pair<Dims, int64_t>>{
           {{2, 12, 5, 7}, 4}, {{1, 136, 3, 3}, 4}, {{2, 8, 5}, 2}, {{1, 9, 2, 3, 2}, 3}}) {
    const HostTensor x = Random(dims, 30 + static_cast<uint32_t>(group));
    const HostTensor want = Unfused(x, group);
    for (const char* backend : kBackends) {
      EXPECT_EQ(Shuffle(backend, x, group, false).bytes, want.bytes)
          << backend << " " << kernels::DimsString(dims);
    }
  }
}

TEST(ChannelShuffleTest, OnTensorsStoredNhwc) {
  for (const auto& [dims, group] : std::vector<std::pair<Dims, int64_t>>{
           {{2, 12, 5, 7}, 4}, {{1, 112, 6, 6}, 4}, {{1, 116, 4, 4}, 2}, {{1, 6, 1, 1}, 3}}) {
    const HostTensor x = Random(dims, 40 + static_cast<uint32_t>(group));
    const HostTensor want = ToNhwc(Unfused(x, group));
    for (const char* backend : kBackends) {
      const HostTensor got = Shuffle(backend, ToNhwc(x), group, true);
      EXPECT_EQ(got.dims, dims) << backend;
      EXPECT_EQ(got.bytes, want.bytes) << backend << " " << kernels::DimsString(dims);
    }
  }
}

TEST(ChannelShuffleTest, OtherElementTypesMoveAsTheyAre) {
  HostTensor x(DataType::kInt64, {1, 4, 2, 1});
  std::vector<int64_t> v{0, 1, 10, 11, 20, 21, 30, 31};
  std::memcpy(x.bytes.data(), v.data(), v.size() * sizeof(int64_t));
  for (const char* backend : kBackends) {
    EXPECT_EQ(Values<int64_t>(Shuffle(backend, x, 2, false)),
              (std::vector<int64_t>{0, 1, 20, 21, 10, 11, 30, 31}))
        << backend;
  }
}

TEST(ChannelShuffleTest, TheDefinitionRefusesChannelsNotInGroupsAndNhwcBelowRankFour) {
  Node uneven = Node::Fused("ChannelShuffle");
  uneven.In(Random({1, 6, 2, 2}, 50)).Int("group", 4);
  Node flat = Node::Fused("ChannelShuffle");
  flat.In(Random({1, 6, 4}, 51)).Int("group", 2).Int("kiln_nhwc", 1);
  for (Node* node : {&uneven, &flat}) {
    for (const char* backend : kBackends) {
      auto k = Registry().Create(backend, node->def());
      ASSERT_FALSE(k.ok()) << backend;
      EXPECT_EQ(k.status().code(), code::kInvalidParam) << k.status().message();
    }
  }
}

}  // namespace
}  // namespace kiln::cpu
