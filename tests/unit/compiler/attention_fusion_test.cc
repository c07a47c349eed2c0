// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "compiler/passes/passes.h"
#include "tests/unit/compiler/fusion_test_util.h"
#include "tests/unit/compiler/pass_test_util.h"

namespace kiln::compiler {
namespace {

using ir::DataType;
using testing::GraphBuilder;
using testing::NodeAt;
using testing::RunPass;

using Perm = std::vector<int64_t>;

constexpr int64_t kBatch = 2, kSeq = 5, kHeads = 3, kHead = 4, kHidden = kHeads * kHead;

// Transpose(Reshape(x, [B, S, H, D]), perm): one head split as BERT's export writes it.
ir::Value* SplitHeads(GraphBuilder& g, ir::Value* x, const std::string& name,
                      std::vector<int64_t> perm) {
  ir::Value* shape = g.ConstI(name + "_shape", {kBatch, kSeq, kHeads, kHead});
  ir::Value* r = g.Op("Reshape", name + "_reshape", {x, shape}, {}, 17);
  return g.Op("Transpose", name + "_transpose", {r}, {{"perm", perm}});
}

// BERT's self-attention after the fusions before this pass: the scores' FusedMatMul carries
// 1/sqrt(D) as post_scale, Kᵀ's two transposes are one (transpose_cancellation).
struct BertAttention {
  explicit BertAttention(bool with_mask = true, bool merge_heads = true) {
    q = g.In("q", DataType::kFloat32, {kBatch, kSeq, kHidden});
    k = g.In("k", DataType::kFloat32, {kBatch, kSeq, kHidden});
    v = g.In("v", DataType::kFloat32, {kBatch, kSeq, kHidden});
    mask = g.In("mask", DataType::kFloat32, {kBatch, 1, 1, kSeq});
    ir::Value* q4 = SplitHeads(g, q, "q", {0, 2, 1, 3});
    ir::Value* kt4 = SplitHeads(g, k, "k", {0, 2, 3, 1});
    ir::Value* v4 = SplitHeads(g, v, "v", {0, 2, 1, 3});
    ir::Value* scores = g.Op("MatMul", "scores", {q4, kt4});
    ir::Node* mm = g.graph.nodes().back().get();
    ir::Value* probs_in = with_mask ? g.Op("Add", "add_mask", {scores, mask}) : scores;
    ir::Value* probs = g.Op("Softmax", "softmax", {probs_in}, {{"axis", int64_t{-1}}}, 13);
    out = g.Op("MatMul", "context", {probs, v4});
    if (merge_heads) {
      ir::Value* t = g.Op("Transpose", "merge_transpose", {out}, {{"perm", Perm{0, 2, 1, 3}}});
      y = g.Op("Reshape", "merge_reshape", {t, g.ConstI("merge_shape", {kBatch, kSeq, kHidden})},
               {}, 17);
    } else {
      y = out;
    }
    g.Out(y);
    EXPECT_TRUE(g.Infer().ok());
    // What bias_activation_fusion and post_affine_fusion make of MatMul / Div(sqrt(D)).
    ir::Node* fused = *g.graph.AddNode("FusedMatMul", "com.kiln", "scores_fused", 1, {q4, kt4},
                                       {g.graph.AddUniqueValue("s", scores->type())});
    fused->set_attr("activation", std::string());
    fused->set_attr("post_scale", 0.5f);
    g.graph.ReplaceAllUses(scores, fused->output(0));
    g.graph.RemoveNode(mm);
    EXPECT_TRUE(g.graph.TopologicalSort().ok());
    g.graph.Prune();
  }
  GraphBuilder g;
  ir::Value *q, *k, *v, *mask, *out, *y;
};

TEST(AttentionFusionPassTest, BertSelfAttentionBecomesOneThreeDimensionalAttention) {
  BertAttention m;
  auto pass = CreateAttentionFusionPass();
  EXPECT_STREQ(pass->name(), "attention_fusion");
  PassContext ctx;
  EXPECT_TRUE(RunPass(*pass, m.g, ctx));
  ASSERT_EQ(m.g.OpTypes(), "Attention");
  const ir::Node* a = NodeAt(m.g, 0);
  EXPECT_EQ(a->domain(), "");
  EXPECT_EQ(a->opset(), 23);
  EXPECT_EQ(a->inputs(), (std::vector<ir::Value*>{m.q, m.k, m.v, m.mask}));
  EXPECT_EQ(a->outputs(), (std::vector<ir::Value*>{m.y}));
  EXPECT_EQ(a->attr_int("q_num_heads"), kHeads);
  EXPECT_EQ(a->attr_int("kv_num_heads"), kHeads);
  EXPECT_FLOAT_EQ(a->attr_float("scale"), 0.5f);
  ASSERT_EQ(ctx.log.size(), 1u);
  EXPECT_NE(ctx.log[0].find("3-D"), std::string::npos) << ctx.log[0];
  // The Attention definition takes what the pass made.
  EXPECT_TRUE(m.g.Infer().ok());
  EXPECT_EQ(m.y->shape(), ir::Shape::Of({kBatch, kSeq, kHidden}));
}

TEST(AttentionFusionPassTest, WithoutMaskOrHeadMergeTheFourDimensionalFormNeedsKsOwnTranspose) {
  // No merge after the context: the 3-D form cannot be written; Kᵀ is a head split, not a
  // Transpose(K, 0,1,3,2) of a 4-D K, so nothing is fused.
  BertAttention m(/*with_mask=*/false, /*merge_heads=*/false);
  auto pass = CreateAttentionFusionPass();
  EXPECT_FALSE(RunPass(*pass, m.g));
  EXPECT_EQ(m.g.FindNode("Attention"), nullptr);
}

TEST(AttentionFusionPassTest, FourDimensionalQKVWithKTransposedBecomeAttention) {
  GraphBuilder g;
  ir::Value* q = g.In("q", DataType::kFloat32, {kBatch, kHeads, kSeq, kHead});
  ir::Value* k = g.In("k", DataType::kFloat32, {kBatch, kHeads, 7, kHead});
  ir::Value* v = g.In("v", DataType::kFloat32, {kBatch, kHeads, 7, 6});
  ir::Value* kt = g.Op("Transpose", "kt", {k}, {{"perm", Perm{0, 1, 3, 2}}});
  ir::Value* s = g.Op("MatMul", "scores", {q, kt});
  ir::Value* p = g.Op("Softmax", "softmax", {s}, {{"axis", int64_t{3}}}, 13);
  ir::Value* y = g.Op("MatMul", "context", {p, v});
  g.Out(y);
  ASSERT_TRUE(g.Infer().ok());
  auto pass = CreateAttentionFusionPass();
  EXPECT_TRUE(RunPass(*pass, g));
  ASSERT_EQ(g.OpTypes(), "Attention");
  const ir::Node* a = NodeAt(g, 0);
  EXPECT_EQ(a->inputs(), (std::vector<ir::Value*>{q, k, v}));
  EXPECT_EQ(a->outputs(), (std::vector<ir::Value*>{y}));
  EXPECT_FLOAT_EQ(a->attr_float("scale"), 1.0f);  // a plain MatMul: no scaling
  EXPECT_FALSE(a->has_attr("q_num_heads"));
  EXPECT_EQ(a->origins(), (testing::Names{"softmax", "kt", "scores", "context"}));
  EXPECT_TRUE(g.Infer().ok());
  EXPECT_EQ(y->shape(), ir::Shape::Of({kBatch, kHeads, kSeq, 6}));
}

TEST(AttentionFusionPassTest, ScoresReadElsewhereOrASoftmaxOverAnotherAxisStay) {
  for (int variant = 0; variant < 3; ++variant) {
    SCOPED_TRACE(variant);
    GraphBuilder g;
    ir::Value* q = g.In("q", DataType::kFloat32, {kBatch, kHeads, kSeq, kHead});
    ir::Value* k = g.In("k", DataType::kFloat32, {kBatch, kHeads, kSeq, kHead});
    ir::Value* v = g.In("v", DataType::kFloat32, {kBatch, kHeads, kSeq, kHead});
    ir::Value* kt = g.Op("Transpose", "kt", {k}, {{"perm", Perm{0, 1, 3, 2}}});
    ir::Value* s = g.Op("MatMul", "scores", {q, kt});
    // 0: the softmax runs over the queries; 1: the scores are a graph output too; 2: before
    // opset 13 an absent axis is 1.
    std::map<std::string, ir::Attribute> attrs;
    if (variant == 0) attrs["axis"] = int64_t{2};
    ir::Value* p = g.Op("Softmax", "softmax", {s}, attrs, variant == 2 ? 11 : 13);
    if (variant == 2) g.graph.nodes().back()->erase_attr("axis");
    g.Out(g.Op("MatMul", "context", {p, v}));
    if (variant == 1) g.Out(s);
    ASSERT_TRUE(g.Infer().ok());
    auto pass = CreateAttentionFusionPass();
    EXPECT_FALSE(RunPass(*pass, g));
    EXPECT_EQ(g.OpTypes(), "Transpose,MatMul,Softmax,MatMul");
  }
}

TEST(AttentionFusionPassTest, AMaskThatWouldGrowTheScoresStays) {
  GraphBuilder g;
  ir::Value* q = g.In("q", DataType::kFloat32, {1, kHeads, kSeq, kHead});
  ir::Value* k = g.In("k", DataType::kFloat32, {1, kHeads, kSeq, kHead});
  ir::Value* v = g.In("v", DataType::kFloat32, {1, kHeads, kSeq, kHead});
  ir::Value* mask = g.In("mask", DataType::kFloat32, {kBatch, 1, 1, kSeq});  // batch 2 > 1
  ir::Value* kt = g.Op("Transpose", "kt", {k}, {{"perm", Perm{0, 1, 3, 2}}});
  ir::Value* s = g.Op("Add", "add", {g.Op("MatMul", "scores", {q, kt}), mask});
  ir::Value* p = g.Op("Softmax", "softmax", {s}, {{"axis", int64_t{-1}}}, 13);
  g.Out(g.Op("MatMul", "context", {p, v}));
  ASSERT_TRUE(g.Infer().ok());
  auto pass = CreateAttentionFusionPass();
  EXPECT_FALSE(RunPass(*pass, g));
}

}  // namespace
}  // namespace kiln::compiler
