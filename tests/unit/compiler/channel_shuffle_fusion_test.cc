// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// channel_shuffle_fusion: Reshape [N, C, S...] -> [N, g, C / g, S...] -> Transpose of axes 1 and 2
// -> Reshape back becomes one com.kiln ChannelShuffle; anything else stays as it is.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "compiler/passes/passes.h"
#include "tests/unit/compiler/fusion_test_util.h"
#include "tests/unit/compiler/pass_test_util.h"

namespace kiln::compiler {
namespace {

using ir::DataType;
using testing::GraphBuilder;
using testing::RunPass;

// x [dims] -> Reshape to `split` -> Transpose `perm` -> Reshape to `back`, shapes inferred.
struct Shuffle {
  GraphBuilder g;
  ir::Value* x;
  ir::Value* mid;
  ir::Value* t;
  ir::Value* y;
  Shuffle(std::vector<int64_t> dims, std::vector<int64_t> split, std::vector<int64_t> perm,
          std::vector<int64_t> back) {
    x = g.In("x", DataType::kFloat32, dims);
    mid = g.Op("Reshape", "r1", {x, g.ConstI("s1", split)});
    t = g.Op("Transpose", "t", {mid}, {{"perm", perm}});
    y = g.Op("Reshape", "r2", {t, g.ConstI("s2", back)});
    g.Out(y);
    Status ok = g.Infer();
    EXPECT_TRUE(ok.ok()) << ok.message();
  }
};

TEST(ChannelShuffleFusionPassTest, ReshapeTransposeReshapeBecomesOneChannelShuffle) {
  Shuffle s({1, 12, 4, 4}, {1, 3, 4, 4, 4}, {0, 2, 1, 3, 4}, {1, 12, 4, 4});
  auto pass = CreateChannelShuffleFusionPass();
  EXPECT_STREQ(pass->name(), "channel_shuffle_fusion");
  EXPECT_TRUE(RunPass(*pass, s.g));
  EXPECT_EQ(s.g.OpTypes(), "ChannelShuffle");
  const ir::Node* n = s.g.FindNode("ChannelShuffle");
  ASSERT_NE(n, nullptr);
  EXPECT_EQ(n->domain(), "com.kiln");
  EXPECT_EQ(n->attr_int("group"), 3);
  EXPECT_EQ(n->inputs(), (std::vector<ir::Value*>{s.x}));
  EXPECT_EQ(n->outputs(), (std::vector<ir::Value*>{s.y}));
  // The schema takes what the pass made, and the shape is the input's.
  Status ok = s.g.Infer();
  EXPECT_TRUE(ok.ok()) << ok.message();
  EXPECT_EQ(s.y->shape().Sizes(), (std::vector<int64_t>{1, 12, 4, 4}));
}

TEST(ChannelShuffleFusionPassTest, AnyRankFromThreeAndAReshapeGivenMinusOne) {
  // [N, C, L] (a 1-D net), the first Reshape spelling C / g as -1 and the last as 0 and -1.
  Shuffle s({2, 8, 5}, {2, 2, -1, 5}, {0, 2, 1, 3}, {0, -1, 5});
  EXPECT_TRUE(RunPass(*CreateChannelShuffleFusionPass(), s.g));
  EXPECT_EQ(s.g.OpTypes(), "ChannelShuffle");
  EXPECT_EQ(s.g.FindNode("ChannelShuffle")->attr_int("group"), 2);
}

TEST(ChannelShuffleFusionPassTest, OtherPermutationsAndShapesStay) {
  // Another permutation (the spatial axes swapped too).
  Shuffle a({1, 12, 4, 4}, {1, 3, 4, 4, 4}, {0, 2, 1, 4, 3}, {1, 12, 4, 4});
  EXPECT_FALSE(RunPass(*CreateChannelShuffleFusionPass(), a.g));
  // The channels split with the batch merged into them, not over the channels alone.
  Shuffle b({2, 6, 4, 4}, {1, 4, 3, 4, 4}, {0, 2, 1, 3, 4}, {2, 6, 4, 4});
  EXPECT_FALSE(RunPass(*CreateChannelShuffleFusionPass(), b.g));
  // Not reshaped back to X's shape.
  Shuffle c({1, 12, 4, 4}, {1, 3, 4, 4, 4}, {0, 2, 1, 3, 4}, {1, 12, 16});
  EXPECT_FALSE(RunPass(*CreateChannelShuffleFusionPass(), c.g));
  EXPECT_EQ(c.g.OpTypes(), "Reshape,Transpose,Reshape");
}

TEST(ChannelShuffleFusionPassTest, AnIntermediateReadElsewhereKeepsTheNodes) {
  Shuffle s({1, 12, 4, 4}, {1, 3, 4, 4, 4}, {0, 2, 1, 3, 4}, {1, 12, 4, 4});
  s.g.Out(s.t);  // the transposed value is a graph output too
  EXPECT_FALSE(RunPass(*CreateChannelShuffleFusionPass(), s.g));
  Shuffle m({1, 12, 4, 4}, {1, 3, 4, 4, 4}, {0, 2, 1, 3, 4}, {1, 12, 4, 4});
  m.g.Out(m.g.Op("Relu", "other", {m.mid}));  // the split value read by another node
  EXPECT_FALSE(RunPass(*CreateChannelShuffleFusionPass(), m.g));
}

}  // namespace
}  // namespace kiln::compiler
