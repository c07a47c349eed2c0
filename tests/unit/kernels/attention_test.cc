// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Reference kernels of the attention family. The expected values are worked by hand: most
// cases use one-dim heads whose scores are 0 and ln 3, so the softmax is exactly [1/4, 3/4].
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "kernel_test_util.h"

namespace kiln::kernels {
namespace {

using testing::Def;
using testing::F32;
using testing::I64;
using testing::Make;
using testing::RunReference;
using testing::Values;

const float kLn3 = std::log(3.0f);

const float kInf = std::numeric_limits<float>::infinity();
constexpr DataType kF32 = DataType::kFloat32;

void ExpectNear(const std::vector<float>& got, const std::vector<float>& want, float tol = 1e-5f) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << "at " << i;
}

HostTensor Bools(Dims dims, const std::vector<uint8_t>& v) {
  return Make(DataType::kBool, std::move(dims), v);
}

// ---------------------------------------------------------------------------------------------
// Attention.

TEST(AttentionKernelTest, SoftmaxOfScoresWeightsTheValues) {
  // Q·K = [0, ln3] with head size 1 (scale 1) -> weights [1/4, 3/4] -> 4/4 + 8*3/4 = 7.
  HostTensor q = F32({1, 1, 1, 1}, {1});
  HostTensor k = F32({1, 1, 2, 1}, {0, kLn3});
  HostTensor v = F32({1, 1, 2, 1}, {4, 8});
  NodeDef def = Def("Attention", {&q, &k, &v}, {kF32}, 23);
  auto out = RunReference(def, {&q, &k, &v});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ((*out)[0].dims, (Dims{1, 1, 1, 1}));
  ExpectNear(Values<float>((*out)[0]), {7});
}

TEST(AttentionKernelTest, DefaultScaleIsOneOverSqrtHeadSizeAndScaleOverridesIt) {
  // Head size 4: Q·K = 2 * [0, ln3] and the default scale 1/2 gives back [0, ln3].
  HostTensor q = F32({1, 1, 1, 4}, {1, 1, 1, 1});
  HostTensor k = F32({1, 1, 2, 4}, {0, 0, 0, 0, kLn3 / 2, kLn3 / 2, kLn3 / 2, kLn3 / 2});
  HostTensor v = F32({1, 1, 2, 1}, {4, 8});
  NodeDef def = Def("Attention", {&q, &k, &v}, {kF32}, 23);
  auto out = RunReference(def, {&q, &k, &v});
  ASSERT_TRUE(out.ok()) << out.status().message();
  ExpectNear(Values<float>((*out)[0]), {7});
  // scale = 0 makes every score 0: the plain mean of V.
  def.attrs["scale"] = 0.0f;
  out = RunReference(def, {&q, &k, &v});
  ASSERT_TRUE(out.ok()) << out.status().message();
  ExpectNear(Values<float>((*out)[0]), {6});
}

TEST(AttentionKernelTest, CausalMaskHidesLaterKeys) {
  // Zero scores: row 0 sees key 0 only (2), row 1 sees both (mean 3).
  HostTensor q = F32({1, 1, 2, 1}, {0, 0});
  HostTensor k = F32({1, 1, 2, 1}, {5, 7});
  HostTensor v = F32({1, 1, 2, 1}, {2, 4});
  NodeDef def = Def("Attention", {&q, &k, &v}, {kF32}, 23);
  auto out = RunReference(def, {&q, &k, &v});
  ASSERT_TRUE(out.ok());
  ExpectNear(Values<float>((*out)[0]), {3, 3}, 1e-4f);
  def.attrs["is_causal"] = int64_t{1};
  out = RunReference(def, {&q, &k, &v});
  ASSERT_TRUE(out.ok()) << out.status().message();
  ExpectNear(Values<float>((*out)[0]), {2, 3});
}

TEST(AttentionKernelTest, PastIsPrependedToPresentAndShiftsTheCausalDiagonal) {
  // One new token after one cached one: the causal row 0 may see both positions.
  HostTensor q = F32({1, 1, 1, 1}, {0});
  HostTensor k = F32({1, 1, 1, 1}, {9});
  HostTensor v = F32({1, 1, 1, 2}, {2, 20});
  HostTensor past_k = F32({1, 1, 1, 1}, {8});
  HostTensor past_v = F32({1, 1, 1, 2}, {6, 60});
  std::vector<const HostTensor*> in = {&q, &k, &v, nullptr, &past_k, &past_v};
  NodeDef def = Def("Attention", in, {kF32, kF32, kF32}, 23);
  def.attrs["is_causal"] = int64_t{1};
  auto out = RunReference(def, in);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ((*out)[0].dims, (Dims{1, 1, 1, 2}));
  ExpectNear(Values<float>((*out)[0]), {4, 40});
  EXPECT_EQ((*out)[1].dims, (Dims{1, 1, 2, 1}));
  EXPECT_EQ(Values<float>((*out)[1]), (std::vector<float>{8, 9}));
  EXPECT_EQ((*out)[2].dims, (Dims{1, 1, 2, 2}));
  EXPECT_EQ(Values<float>((*out)[2]), (std::vector<float>{6, 60, 2, 20}));
}

TEST(AttentionKernelTest, BoolMaskKeepsTrueAndFloatMaskIsAddedWithBroadcasting) {
  HostTensor q = F32({1, 2, 1, 1}, {0, 0});
  HostTensor k = F32({1, 2, 2, 1}, {0, 0, 0, 0});
  HostTensor v = F32({1, 2, 2, 1}, {4, 8, 10, 20});
  // A [1, 2] bool mask broadcast over both heads: only key 1 takes part.
  HostTensor bmask = Bools({1, 2}, {0, 1});
  std::vector<const HostTensor*> in = {&q, &k, &v, &bmask};
  auto out = RunReference(Def("Attention", in, {kF32}, 23), in);
  ASSERT_TRUE(out.ok()) << out.status().message();
  ExpectNear(Values<float>((*out)[0]), {8, 20});
  // A [2, 1, 2] float mask per head: head 0 gets bias [0, ln3], head 1 [-inf, 0].
  HostTensor fmask = F32({2, 1, 2}, {0, kLn3, -kInf, 0});
  in[3] = &fmask;
  out = RunReference(Def("Attention", in, {kF32}, 23), in);
  ASSERT_TRUE(out.ok()) << out.status().message();
  ExpectNear(Values<float>((*out)[0]), {7, 20});
}

TEST(AttentionKernelTest, GroupedQueryHeadsShareTheirKeyValueHead) {
  // Two query heads on one key/value head; head 0 scores [0, 0], head 1 [0, ln3].
  HostTensor q = F32({1, 2, 1, 1}, {0, 1});
  HostTensor k = F32({1, 1, 2, 1}, {0, kLn3});
  HostTensor v = F32({1, 1, 2, 1}, {4, 8});
  auto out = RunReference(Def("Attention", {&q, &k, &v}, {kF32}, 23), {&q, &k, &v});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ((*out)[0].dims, (Dims{1, 2, 1, 1}));
  ExpectNear(Values<float>((*out)[0]), {6, 7});
}

TEST(AttentionKernelTest, ThreeDimensionalInputsSplitTheHiddenSizeIntoHeads) {
  // [B, S, heads * size] with 2 heads of size 1: head 0 has q = 0 (mean of 2 and 6), head 1
  // has q = 1 against keys [0, ln3] (values 4 and 8).
  HostTensor q = F32({1, 1, 2}, {0, 1});
  HostTensor k = F32({1, 2, 2}, {5, 0, 7, kLn3});
  HostTensor v = F32({1, 2, 2}, {2, 4, 6, 8});
  NodeDef def = Def("Attention", {&q, &k, &v}, {kF32}, 23);
  def.attrs["q_num_heads"] = int64_t{2};
  def.attrs["kv_num_heads"] = int64_t{2};
  auto out = RunReference(def, {&q, &k, &v});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ((*out)[0].dims, (Dims{1, 1, 2}));
  ExpectNear(Values<float>((*out)[0]), {4, 7});
}

TEST(AttentionKernelTest, SoftcapAndEveryQkMatmulOutputMode) {
  // softcap 2: raw scores [0, r] with 2 tanh(r / 2) = ln3, so the capped scores are [0, ln3].
  const float r = 2 * std::atanh(kLn3 / 2);
  HostTensor q = F32({1, 1, 1, 1}, {1});
  HostTensor k = F32({1, 1, 2, 1}, {0, r});
  HostTensor v = F32({1, 1, 2, 1}, {4, 8});
  HostTensor mask = F32({1, 2}, {1, 0});
  std::vector<const HostTensor*> in = {&q, &k, &v, &mask};
  const std::vector<std::vector<float>> want = {
      {0, r}, {0, kLn3}, {1, kLn3}, {1 / (1 + std::exp(kLn3 - 1)), 1 / (1 + std::exp(1 - kLn3))}};
  for (int64_t mode = 0; mode < 4; ++mode) {
    NodeDef def = Def("Attention", in, {kF32, kF32, kF32, kF32}, 23);
    def.attrs["softcap"] = 2.0f;
    def.attrs["qk_matmul_output_mode"] = mode;
    auto out = RunReference(def, in);
    ASSERT_TRUE(out.ok()) << out.status().message();
    EXPECT_EQ((*out)[3].dims, (Dims{1, 1, 1, 2}));
    ExpectNear(Values<float>((*out)[3]), want[static_cast<size_t>(mode)]);
    // Y uses the softmax of mode 3 in every mode.
    ExpectNear(Values<float>((*out)[0]), {4 * want[3][0] + 8 * want[3][1]});
  }
}

TEST(AttentionKernelTest, Opset24PadsAShortMaskWithMinusInfinityAndHonoursNonpadLengths) {
  HostTensor q = F32({1, 1, 1, 1}, {0});
  HostTensor k = F32({1, 1, 3, 1}, {0, 0, 0});
  HostTensor v = F32({1, 1, 3, 1}, {3, 6, 9});
  HostTensor mask = F32({1, 2}, {0, 0});  // key 2 is padding
  std::vector<const HostTensor*> in = {&q, &k, &v, &mask};
  auto out = RunReference(Def("Attention", in, {kF32}, 24), in);
  ASSERT_TRUE(out.ok()) << out.status().message();
  ExpectNear(Values<float>((*out)[0]), {4.5f});
  // Opset 23 has no padding: the short mask is an error.
  out = RunReference(Def("Attention", in, {kF32}, 23), in);
  EXPECT_EQ(out.status().code(), code::kInvalidParam);
  // nonpad_kv_seqlen = 1: only key 0 counts.
  HostTensor nonpad = I64({1}, {1});
  std::vector<const HostTensor*> in2 = {&q, &k, &v, nullptr, nullptr, nullptr, &nonpad};
  out = RunReference(Def("Attention", in2, {kF32}, 24), in2);
  ASSERT_TRUE(out.ok()) << out.status().message();
  ExpectNear(Values<float>((*out)[0]), {3});
}

TEST(AttentionKernelTest, Float16InputsAndSoftmaxPrecision) {
  auto half = [](Dims d, const std::vector<float>& v) {
    std::vector<uint16_t> bits;
    for (float f : v) bits.push_back(FloatToHalf(f));
    return Make(DataType::kFloat16, std::move(d), bits);
  };
  HostTensor q = half({1, 1, 1, 1}, {1});
  HostTensor k = half({1, 1, 2, 1}, {0, kLn3});
  HostTensor v = half({1, 1, 2, 1}, {4, 8});
  NodeDef def = Def("Attention", {&q, &k, &v}, {DataType::kFloat16}, 23);
  def.attrs["softmax_precision"] = int64_t{1};  // float
  auto out = RunReference(def, {&q, &k, &v});
  ASSERT_TRUE(out.ok()) << out.status().message();
  // ln3 rounded to float16 moves the result by less than 0.01.
  EXPECT_NEAR(HalfToFloat(Values<uint16_t>((*out)[0])[0]), 7.0f, 1e-2f);
}

TEST(AttentionKernelTest, BadShapesAndAttributesAreRejected) {
  HostTensor q = F32({1, 1, 1, 2}, {1, 1});
  HostTensor k = F32({1, 1, 2, 3}, {0, 0, 0, 0, 0, 0});
  HostTensor v = F32({1, 1, 2, 1}, {4, 8});
  // Q and K head sizes differ.
  auto out = RunReference(Def("Attention", {&q, &k, &v}, {kF32}, 23), {&q, &k, &v});
  EXPECT_EQ(out.status().code(), code::kInvalidParam);
  EXPECT_NE(out.status().message().find("Attention 'n'"), std::string::npos);
  // 3-D inputs without head counts.
  HostTensor q3 = F32({1, 1, 2}, {0, 0});
  HostTensor k3 = F32({1, 2, 2}, {0, 0, 0, 0});
  out = RunReference(Def("Attention", {&q3, &k3, &k3}, {kF32}, 23), {&q3, &k3, &k3});
  EXPECT_EQ(out.status().code(), code::kInvalidParam);
  // A mask that does not broadcast.
  HostTensor q1 = F32({1, 1, 1, 1}, {1});
  HostTensor k1 = F32({1, 1, 2, 1}, {0, 0});
  HostTensor mask = F32({3}, {0, 0, 0});
  std::vector<const HostTensor*> in = {&q1, &k1, &k1, &mask};
  out = RunReference(Def("Attention", in, {kF32}, 23), in);
  EXPECT_EQ(out.status().code(), code::kInvalidParam);
  // past_key without past_value.
  std::vector<const HostTensor*> in2 = {&q1, &k1, &k1, nullptr, &k1};
  out = RunReference(Def("Attention", in2, {kF32}, 23), in2);
  EXPECT_EQ(out.status().code(), code::kInvalidParam);
  // Prepare rejects a bad mode and a string mask.
  NodeDef def = Def("Attention", {&q1, &k1, &k1}, {kF32}, 23);
  def.attrs["qk_matmul_output_mode"] = int64_t{4};
  EXPECT_EQ(RunReference(def, {&q1, &k1, &k1}).status().code(), code::kInvalidParam);
  NodeDef def2 = Def("Attention", {&q1, &k1, &k1, &mask}, {kF32}, 23);
  def2.input_types[3] = DataType::kString;
  EXPECT_EQ(RunReference(def2, in).status().code(), code::kInvalidParam);
}

// ---------------------------------------------------------------------------------------------
// RotaryEmbedding.

TEST(AttentionKernelTest, RotaryEmbeddingRotatesHalvesOrInterleavedPairs) {
  // cos = [0, 1], sin = [1, 0]: pair 0 rotates by 90 degrees, pair 1 stays.
  HostTensor x = F32({1, 1, 1, 4}, {1, 2, 3, 4});
  HostTensor cos = F32({1, 1, 2}, {0, 1});
  HostTensor sin = F32({1, 1, 2}, {1, 0});
  NodeDef def = Def("RotaryEmbedding", {&x, &cos, &sin}, {kF32}, 23);
  auto out = RunReference(def, {&x, &cos, &sin});
  ASSERT_TRUE(out.ok()) << out.status().message();
  // Halves: pairs (1, 3) -> (-3, 1) and (2, 4) unchanged.
  EXPECT_EQ(Values<float>((*out)[0]), (std::vector<float>{-3, 2, 1, 4}));
  def.attrs["interleaved"] = int64_t{1};
  out = RunReference(def, {&x, &cos, &sin});
  ASSERT_TRUE(out.ok()) << out.status().message();
  // Interleaved: pairs (1, 2) -> (-2, 1) and (3, 4) unchanged.
  EXPECT_EQ(Values<float>((*out)[0]), (std::vector<float>{-2, 1, 3, 4}));
}

TEST(AttentionKernelTest, RotaryEmbeddingPositionIdsSelectCacheRowsAndPartialRotationKeepsTheRest) {
  // Caches of 2 positions x 1 value; position 1 is a 90 degree rotation.
  HostTensor x = F32({1, 1, 2, 4}, {1, 2, 3, 4, 1, 2, 3, 4});
  HostTensor cos = F32({2, 1}, {1, 0});
  HostTensor sin = F32({2, 1}, {0, 1});
  HostTensor pos = I64({1, 2}, {1, 0});
  NodeDef def = Def("RotaryEmbedding", {&x, &cos, &sin, &pos}, {kF32}, 23);
  def.attrs["rotary_embedding_dim"] = int64_t{2};
  auto out = RunReference(def, {&x, &cos, &sin, &pos});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(Values<float>((*out)[0]), (std::vector<float>{-2, 1, 3, 4, 1, 2, 3, 4}));
  // A position id beyond the cache.
  HostTensor bad = I64({1, 2}, {2, 0});
  out = RunReference(def, {&x, &cos, &sin, &bad});
  EXPECT_EQ(out.status().code(), code::kInvalidParam);
}

TEST(AttentionKernelTest, RotaryEmbeddingThreeDimensionalInputUsesNumHeads) {
  HostTensor x = F32({1, 1, 4}, {1, 2, 3, 4});
  HostTensor cos = F32({1, 1, 1}, {0});
  HostTensor sin = F32({1, 1, 1}, {1});
  NodeDef def = Def("RotaryEmbedding", {&x, &cos, &sin}, {kF32}, 23);
  def.attrs["num_heads"] = int64_t{2};
  auto out = RunReference(def, {&x, &cos, &sin});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(Values<float>((*out)[0]), (std::vector<float>{-2, 1, -4, 3}));
  // Caches that do not match [batch, seq, rot / 2].
  HostTensor cos2 = F32({1, 1, 2}, {0, 0});
  out = RunReference(def, {&x, &cos2, &cos2});
  EXPECT_EQ(out.status().code(), code::kInvalidParam);
}

}  // namespace
}  // namespace kiln::kernels
