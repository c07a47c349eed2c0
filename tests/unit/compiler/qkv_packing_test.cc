// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// qkv_packing: in a bf16 model, an Attention whose Q, K and V are constant-weight projections of
// one input becomes one FusedMatMul with the weights and biases side by side and a
// PackedQkvAttention on its output (a float32 model keeps them);
// a projection read elsewhere, of another input, with an activation, or heads of another size
// leaves the graph alone. (The packed graph's numbers: tests/python/test_attention_fusion.py,
// against onnxruntime.)
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "compiler/passes/passes.h"
#include "tests/unit/compiler/fusion_test_util.h"

namespace kiln::compiler {
namespace {

using ir::DataType;
using testing::GraphBuilder;
using testing::NodeAt;
using testing::RunPass;

constexpr int64_t kBatch = 2, kSeq = 5, kIn = 6, kHeads = 3, kHead = 4, kHidden = kHeads * kHead;

// Weights whose every element tells where it came from: projection p, row r, column c.
std::vector<float> Weights(int p, int64_t cols) {
  std::vector<float> w;
  for (int64_t r = 0; r < kIn; ++r) {
    for (int64_t c = 0; c < cols; ++c) w.push_back(static_cast<float>(p * 1000 + r * 100 + c));
  }
  return w;
}

// x [B, S, 6] projected to q, k, v [B, S, 12] (k without a bias: a plain MatMul) and an
// Attention of 3 heads with a padding mask, as attention_fusion leaves BERT's self-attention.
struct SelfAttention {
  // `variant`: 0 as described; 1 k is a graph output too; 2 v projects another input; 3 q has a
  // Relu; 4 v's heads are 6 wide (18 columns), K's 4.
  explicit SelfAttention(int variant = 0) {
    x = g.In("x", DataType::kFloat32, {kBatch, kSeq, kIn});
    ir::Value* other = g.In("other", DataType::kFloat32, {kBatch, kSeq, kIn});
    mask = g.In("mask", DataType::kFloat32, {kBatch, 1, 1, kSeq});
    auto project = [&](int p, const std::string& name, ir::Value* in, bool bias, int64_t cols) {
      ir::Value* y =
          g.Op("MatMul", name, {in, g.ConstF(name + "_w", {kIn, cols}, Weights(p, cols))});
      if (!bias) return y;
      return g.Op("Add", name + "_add",
                  {y, g.ConstF(name + "_b", {cols}, std::vector<float>(cols, 0.5f + p))});
    };
    ir::Value* q = project(0, "q", x, true, kHidden);
    if (variant == 3) q = g.Op("Relu", "q_relu", {q});
    ir::Value* k = project(1, "k", x, false, kHidden);
    ir::Value* v = project(2, "v", variant == 2 ? other : x, true, variant == 4 ? 18 : kHidden);
    y = g.Op("Attention", "attention", {q, k, v, mask},
             {{"q_num_heads", kHeads}, {"kv_num_heads", kHeads}, {"scale", 0.5f}}, 23);
    g.Out(y);
    if (variant == 1) g.Out(k);
    Status ok = g.Infer();
    EXPECT_TRUE(ok.ok()) << ok.message();
    RunPass(*CreateBiasActivationFusionPass(), g);  // MatMul + Add [+ Relu] -> FusedMatMul
  }
  GraphBuilder g;
  ir::Value *x, *mask, *y;
};

TEST(QkvPackingPassTest, ThreeProjectionsOfOneInputBecomeOneProductAndAPackedAttention) {
  SelfAttention m;
  ASSERT_EQ(m.g.OpTypes(), "FusedMatMul,MatMul,FusedMatMul,Attention");
  auto pass = CreateQkvPackingPass();
  EXPECT_STREQ(pass->name(), "qkv_packing");
  PassContext ctx;
  EXPECT_FALSE(RunPass(*pass, m.g, ctx));  // a float32 model keeps its three projections
  ctx.matrix_bf16 = true;
  EXPECT_TRUE(RunPass(*pass, m.g, ctx));
  ASSERT_EQ(m.g.OpTypes(), "FusedMatMul,PackedQkvAttention");
  const ir::Node* mm = NodeAt(m.g, 0);
  const ir::Node* a = NodeAt(m.g, 1);
  EXPECT_EQ(mm->domain(), "com.kiln");
  EXPECT_EQ(mm->input(0), m.x);
  EXPECT_EQ(mm->attr_string("activation"), "");
  // [Wq | Wk | Wv] row by row; the biases side by side, zeros for k's.
  const ir::Tensor& w = *mm->input(1)->constant();
  ASSERT_EQ(w.dims(), (std::vector<int64_t>{kIn, 3 * kHidden}));
  for (int64_t r = 0; r < kIn; ++r) {
    for (int64_t c = 0; c < 3 * kHidden; ++c) {
      const int64_t p = c / kHidden;
      EXPECT_EQ(w.data<float>()[r * 3 * kHidden + c], p * 1000 + r * 100 + c % kHidden)
          << r << "," << c;
    }
  }
  const ir::Tensor& b = *mm->input(2)->constant();
  ASSERT_EQ(b.dims(), (std::vector<int64_t>{3 * kHidden}));
  EXPECT_EQ(b.data<float>()[0], 0.5f);
  EXPECT_EQ(b.data<float>()[kHidden], 0.0f);
  EXPECT_EQ(b.data<float>()[2 * kHidden + 11], 2.5f);
  EXPECT_EQ(a->domain(), "com.kiln");
  EXPECT_EQ(a->inputs(), (std::vector<ir::Value*>{mm->output(0), m.mask}));
  EXPECT_EQ(a->outputs(), (std::vector<ir::Value*>{m.y}));
  EXPECT_EQ(a->attr_int("q_num_heads"), kHeads);
  EXPECT_EQ(a->attr_int("kv_num_heads"), kHeads);
  EXPECT_EQ(a->attr_int("is_causal"), 0);
  EXPECT_FLOAT_EQ(a->attr_float("scale"), 0.5f);
  ASSERT_EQ(ctx.log.size(), 1u);
  EXPECT_NE(ctx.log[0].find("one product of 36 columns"), std::string::npos) << ctx.log[0];
  // The definitions take what the pass made.
  Status ok = m.g.Infer();
  EXPECT_TRUE(ok.ok()) << ok.message();
  EXPECT_EQ(mm->output(0)->shape(), ir::Shape::Of({kBatch, kSeq, 3 * kHidden}));
  EXPECT_EQ(m.y->shape(), ir::Shape::Of({kBatch, kSeq, kHidden}));
  EXPECT_FALSE(RunPass(*pass, m.g, ctx));  // nothing left to pack
}

TEST(QkvPackingPassTest, AProjectionReadElsewhereOfAnotherInputWithAnActivationOrWiderHeadsStays) {
  for (int variant = 1; variant <= 4; ++variant) {
    SCOPED_TRACE(variant);
    SelfAttention m(variant);
    const std::string before = m.g.OpTypes();
    PassContext ctx;
    ctx.matrix_bf16 = true;
    EXPECT_FALSE(RunPass(*CreateQkvPackingPass(), m.g, ctx));
    EXPECT_EQ(m.g.OpTypes(), before);
  }
}

}  // namespace
}  // namespace kiln::compiler
