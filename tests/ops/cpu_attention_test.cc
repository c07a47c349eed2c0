// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The CPU backend's Attention (backends/cpu/kernels/attention.cc) against the reference kernel
// (double precision, the oracle): 3-D inputs with the heads read in place (BERT's form after
// attention_fusion), 4-D inputs, grouped-query heads, float masks broadcast over batch, heads or
// rows, a boolean mask, is_causal, opset 24's short mask, more query rows than one work item
// takes, no keys at all, the inputs the kernel leaves to the reference (past caches, softcap),
// and com.kiln PackedQkvAttention (Q, K and V side by side in one tensor); and in a bf16 model
// (attention_bf16.cc) the same forms within bf16 rounding of the reference.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "backends/cpu/kernels/dnnl_common.h"
#include "tests/ops/cpu_vs_reference_util.h"

namespace kiln::cpu {
namespace {

using namespace vs_reference;  // NOLINT(build/namespaces): the test helpers
using kernels::DataType;
using kernels::HostTensor;

// A boolean mask, true where (index % 5) != 0 and on the first column (no row fully masked).
HostTensor BoolMask(Dims dims) {
  HostTensor t(DataType::kBool, std::move(dims));
  const int64_t cols = t.dims.back();
  for (size_t i = 0; i < t.bytes.size(); ++i) {
    t.bytes[i] = static_cast<uint8_t>(i % 5 != 0 || static_cast<int64_t>(i) % cols == 0);
  }
  return t;
}

TEST(CpuAttentionTest, ThreeDimensionalHeadsReadInPlaceWithAPaddingMask) {
  // BERT: q, k, v [B, S, H * D], mask [B, 1, 1, S] of 0 and -10000.
  HostTensor mask = Random({2, 1, 1, 9}, 4, -1.0f, 1.0f);
  auto* m = reinterpret_cast<float*>(mask.bytes.data());
  for (int i = 0; i < 18; ++i) m[i] = m[i] < -0.5f ? -10000.0f : 0.0f;
  Node n("Attention", 23);
  n.In(Random({2, 7, 32}, 1)).In(Random({2, 9, 32}, 2)).In(Random({2, 9, 32}, 3)).In(mask);
  n.Int("q_num_heads", 4).Int("kv_num_heads", 4).Float("scale", 0.35f);
  n.Check(9);
}

TEST(CpuAttentionTest, FourDimensionalGroupedQueryHeadsCausalOverSeveralRowBlocks) {
  // 4 query heads over 2 key / value heads, Dv != D; 2100 keys make a work item 16 query rows
  // (its scores within 128 KiB), so the 40 rows are three items per head.
  Node n("Attention", 23);
  n.In(Random({1, 4, 40, 16}, 5)).In(Random({1, 2, 2100, 16}, 6)).In(Random({1, 2, 2100, 6}, 7));
  n.Int("is_causal", 1);
  n.Check(2100);
}

TEST(CpuAttentionTest, MasksBroadcastOverRowsColumnsAndHeads) {
  const std::vector<Dims> masks = {{5, 11}, {2, 3, 5, 1}, {3, 1, 11}, {1, 1, 1, 11}};
  for (const Dims& md : masks) {
    SCOPED_TRACE(::testing::PrintToString(md));
    Node n("Attention", 23);
    n.In(Random({2, 3, 5, 8}, 8)).In(Random({2, 3, 11, 8}, 9)).In(Random({2, 3, 11, 8}, 10));
    n.In(Random(md, 11, -2.0f, 2.0f));
    n.Check(11);
  }
}

TEST(CpuAttentionTest, BooleanMaskAndCausalTogether) {
  Node n("Attention", 23);
  n.In(Random({1, 2, 6, 8}, 12)).In(Random({1, 2, 6, 8}, 13)).In(Random({1, 2, 6, 8}, 14));
  n.In(BoolMask({6, 6})).Int("is_causal", 1);
  n.Check(6);
}

TEST(CpuAttentionTest, AShortMaskIsPaddedFromOpset24) {
  Node n("Attention", 24);
  n.In(Random({1, 2, 4, 8}, 15)).In(Random({1, 2, 10, 8}, 16)).In(Random({1, 2, 10, 8}, 17));
  n.In(Random({1, 1, 4, 7}, 18));
  n.Check(10);
}

TEST(CpuAttentionTest, NoKeysGiveZeros) {
  Node n("Attention", 23);
  n.In(Random({1, 2, 3, 4}, 27)).In(Random({1, 2, 0, 4}, 28)).In(Random({1, 2, 0, 5}, 29));
  n.Check(1);
}

TEST(CpuAttentionTest, PastCachesAndSoftcapGoToTheReferenceKernel) {
  {
    Node n("Attention", 23);
    n.In(Random({1, 2, 3, 4}, 19)).In(Random({1, 2, 3, 4}, 20)).In(Random({1, 2, 3, 4}, 21));
    n.Float("softcap", 2.0f);
    n.Check(4, Expect::kDeclined);
  }
  Node n("Attention", 23);
  n.In(Random({1, 2, 3, 4}, 22)).In(Random({1, 2, 3, 4}, 23)).In(Random({1, 2, 3, 4}, 24));
  n.None().In(Random({1, 2, 5, 4}, 25)).In(Random({1, 2, 5, 4}, 26));
  n.Outputs({DataType::kFloat32, DataType::kFloat32, DataType::kFloat32});
  n.Check(8, Expect::kDeclined);
}

// Columns [begin, begin + width) of a [B, S, W] tensor: one of Q, K and V cut from a packed row.
HostTensor LastAxisSlice(const HostTensor& t, int64_t begin, int64_t width) {
  HostTensor out(t.dtype, {t.dims[0], t.dims[1], width});
  const auto* src = reinterpret_cast<const float*>(t.bytes.data());
  auto* dst = reinterpret_cast<float*>(out.bytes.data());
  for (int64_t r = 0; r < t.dims[0] * t.dims[1]; ++r) {
    for (int64_t c = 0; c < width; ++c) dst[r * width + c] = src[r * t.dims[2] + begin + c];
  }
  return out;
}

TEST(CpuAttentionTest, PackedQkvReadsEachHeadFromItsSliceOfARow) {
  // 4 query heads and 2 key / value heads of 8 side by side: [2, 9, (4 + 2 + 2) * 8]; against
  // ONNX Attention's reference on the three slices (cut here) and the packed op's reference.
  HostTensor mask = Random({2, 1, 1, 9}, 31, -1.0f, 1.0f);
  for (const bool masked : {true, false}) {
    SCOPED_TRACE(masked ? "padding mask" : "causal");
    const HostTensor qkv = Random({2, 9, 64}, 30);
    Node packed = Node::Fused("PackedQkvAttention");
    Node split("Attention", 23);
    packed.In(qkv);
    split.In(LastAxisSlice(qkv, 0, 32)).In(LastAxisSlice(qkv, 32, 16));
    split.In(LastAxisSlice(qkv, 48, 16));
    for (Node* n : {&packed, &split}) {
      if (masked) n->In(mask);
      n->Int("q_num_heads", 4).Int("kv_num_heads", 2).Int("is_causal", masked ? 0 : 1);
      if (masked) n->Float("scale", 0.3f);
    }
    packed.Check(9);
    std::vector<HostTensor> got;
    RunOnCpu(packed, &got);
    Node::Compare(got, RunOn(kernels::kReferenceBackend, split), 9);
  }
}

// The largest |got - want| over the elements, as a fraction of the largest |want|; NaN where
// the NaNs of the two differ.
double RelativeMaxError(const HostTensor& got, const HostTensor& want) {
  const auto g = Values<float>(got), w = Values<float>(want);
  if (g.size() != w.size()) return std::numeric_limits<double>::quiet_NaN();
  double top = 0, err = 0;
  for (size_t i = 0; i < g.size(); ++i) {
    if (std::isnan(g[i]) != std::isnan(w[i])) return std::numeric_limits<double>::quiet_NaN();
    if (std::isnan(w[i])) continue;
    top = std::max(top, std::fabs(static_cast<double>(w[i])));
    err = std::max(err, std::fabs(static_cast<double>(g[i]) - w[i]));
  }
  return top == 0 ? err : err / top;
}

// In a bf16 model Q Kᵀ and P V run as bf16 matmuls (Q, K, P and V rounded to bf16, f32 sums):
// each case within 1 % of the output's range of the reference (double), and, on a CPU with
// bf16 arithmetic, visibly rounded (above 1e-5 of the range: the float32 kernel is within 1e-6,
// so the bf16 kernel ran, not the float32 one it falls back to). Chunks of heads, blocks of
// query rows with a tail, cross-attention lengths either way, grouped-query heads, float masks
// broadcast in several ways, a boolean mask, is_causal, the packed form; a fully masked row gives
// NaN as the reference's does.
TEST(CpuAttentionTest, Bf16ProductsWithinBf16RoundingOfTheReference) {
  HostTensor padding = Random({2, 1, 1, 9}, 40, -1.0f, 1.0f);
  auto* pm = reinterpret_cast<float*>(padding.bytes.data());
  for (int i = 0; i < 18; ++i) pm[i] = pm[i] < -0.5f ? -10000.0f : 0.0f;
  HostTensor dead_row = Random({3, 4}, 41);
  for (int j = 0; j < 4; ++j) reinterpret_cast<float*>(dead_row.bytes.data())[4 + j] = -INFINITY;
  struct Case {
    std::string name;
    std::function<Node()> make;
    int64_t k;
    bool rounded = true;
  };
  const std::vector<Case> cases = {
      {"3-D, padding mask, 7 queries over 9 keys",
       [&] {
         Node n("Attention", 23);
         n.In(Random({2, 7, 32}, 42)).In(Random({2, 9, 32}, 43)).In(Random({2, 9, 32}, 44));
         n.In(padding).Int("q_num_heads", 4).Int("kv_num_heads", 4).Float("scale", 0.35f);
         return n;
       },
       9},
      {"4-D, a mask per head, row and key",
       [&] {
         Node n("Attention", 23);
         n.In(Random({2, 4, 7, 16}, 55)).In(Random({2, 4, 9, 16}, 56));
         n.In(Random({2, 4, 9, 16}, 57)).In(Random({2, 4, 7, 9}, 58, -3.0f, 3.0f));
         return n;
       },
       9},
      {"4-D, a mask per head and key",
       [&] {
         Node n("Attention", 23);
         n.In(Random({2, 4, 7, 16}, 59)).In(Random({2, 4, 9, 16}, 60));
         n.In(Random({2, 4, 9, 16}, 61)).In(Random({4, 1, 9}, 62, -3.0f, 3.0f));
         return n;
       },
       9},
      {"3-D, causal, 13 queries over 6 keys",
       [&] {
         Node n("Attention", 23);
         n.In(Random({1, 13, 16}, 45)).In(Random({1, 6, 16}, 46)).In(Random({1, 6, 16}, 47));
         n.Int("q_num_heads", 2).Int("kv_num_heads", 2).Int("is_causal", 1);
         return n;
       },
       6},
      {"4-D, grouped-query, causal, 2100 keys: blocks of 112 query rows and a tail of 18",
       [&] {
         Node n("Attention", 23);
         n.In(Random({1, 4, 130, 32}, 48)).In(Random({1, 2, 2100, 32}, 49));
         n.In(Random({1, 2, 2100, 16}, 50)).Int("is_causal", 1);
         return n;
       },
       2100},
      {"packed, 4 query and 2 key / value heads, boolean mask",
       [&] {
         Node n = Node::Fused("PackedQkvAttention");
         n.In(Random({2, 9, 64}, 51)).In(BoolMask({9, 9}));
         n.Int("q_num_heads", 4).Int("kv_num_heads", 2);
         return n;
       },
       9},
      {"a fully masked row",
       [&] {
         Node n("Attention", 23);
         n.In(Random({1, 1, 3, 8}, 52)).In(Random({1, 1, 4, 8}, 53)).In(Random({1, 1, 4, 8}, 54));
         n.In(dead_row);
         return n;
       },
       4, false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Node n = c.make();
    n.Precision(kernels::MatrixPrecision::kBf16);
    const std::vector<HostTensor> want = RunOn(kernels::kReferenceBackend, n);
    std::vector<HostTensor> got;
    ASSERT_NO_FATAL_FAILURE(RunOnCpu(n, &got));
    ASSERT_EQ(got.size(), 1u);
    const double err = RelativeMaxError(got[0], want.at(0));
    EXPECT_LE(err, 1e-2) << "NaN: the NaNs differ";
    if (c.rounded && CpuHasBf16()) EXPECT_GT(err, 1e-5) << "the float32 kernel ran";
  }
}

}  // namespace
}  // namespace kiln::cpu
