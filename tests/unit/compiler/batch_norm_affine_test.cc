// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// batch_norm_affine: a BatchNormalization not after a convolution, with the per-channel affine
// steps after it, becomes one ArithmeticChain x * scale + shift (what the chain computes is tested
// against the unfused nodes in tests/ops/arithmetic_chain_test.cc; here the constants, worked by
// hand).
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
using testing::NodeAt;
using testing::RunPass;

struct Model {
  GraphBuilder g;
  ir::Value* x = g.In("x", DataType::kFloat32, {1, 4, 6, 6});
  // epsilon 0.25: sqrt(var + epsilon) = 1, 2, 3, 0.5, so k = scale / that = 1, 1, -1, 1 and
  // t = B - mean * k = -1, 2, 2.5, 3.
  ir::Value* BatchNorm(ir::Value* in, ir::Value* var = nullptr) {
    return g.Op("BatchNormalization", "bn",
                {in, g.ConstF("scale", {4}, {1, 2, -3, 0.5f}), g.ConstF("b", {4}, {0, 1, 2, 3}),
                 g.ConstF("mean", {4}, {1, -1, 0.5f, 0}),
                 var ? var : g.ConstF("var", {4}, {0.75f, 3.75f, 8.75f, 0})},
                {{"epsilon", 0.25f}}, 15);
  }
  static std::vector<float> Values(const ir::Value* v) {
    const ir::Tensor* t = v->constant();
    if (t == nullptr) return {};
    return std::vector<float>(t->data<float>(), t->data<float>() + t->num_elements());
  }
};

TEST(BatchNormAffinePassTest, ABatchNormAndTheAffineStepsAfterItBecomeOneChain) {
  Model m;
  ir::Value* bn = m.BatchNorm(m.x);
  // A Caffe2 export's Mul and Add per channel after the BN ([C, 1, 1], a scalar).
  ir::Value* mul = m.g.Op("Mul", "mul", {bn, m.g.ConstF("w", {4, 1, 1}, {2, 1, 0.5f, -1})});
  ir::Value* out = m.g.Op("Add", "add", {mul, m.g.ConstF("one", {}, {1})});
  m.g.Out(m.g.Op("Relu", "relu", {out}));
  ASSERT_TRUE(m.g.Infer().ok());
  auto pass = CreateBatchNormAffinePass();
  EXPECT_STREQ(pass->name(), "batch_norm_affine");
  ASSERT_TRUE(RunPass(*pass, m.g));
  ASSERT_EQ(m.g.OpTypes(), "ArithmeticChain,Relu");
  const ir::Node* chain = NodeAt(m.g, 0);
  EXPECT_EQ(chain->domain(), "com.kiln");
  EXPECT_EQ(chain->attr_strings("ops"), (std::vector<std::string>{"Mul", "Add"}));
  EXPECT_EQ(chain->attr_ints("swapped"), (std::vector<int64_t>{0, 0}));
  ASSERT_EQ(chain->inputs().size(), 3u);
  EXPECT_EQ(chain->input(0), m.x);
  EXPECT_EQ(chain->outputs(), (std::vector<ir::Value*>{out}));
  // Layout-neutral constants of X's rank.
  EXPECT_EQ(chain->input(1)->constant()->dims(), (std::vector<int64_t>{1, 4, 1, 1}));
  EXPECT_EQ(chain->input(2)->constant()->dims(), (std::vector<int64_t>{1, 4, 1, 1}));
  // (x * k + t) * w + 1: scale k * w = 2, 1, -0.5, -1; shift t * w + 1 = -1, 3, 2.25, -2.
  EXPECT_EQ(Model::Values(chain->input(1)), (std::vector<float>{2, 1, -0.5f, -1}));
  EXPECT_EQ(Model::Values(chain->input(2)), (std::vector<float>{-1, 3, 2.25f, -2}));
}

TEST(BatchNormAffinePassTest, AComputedFactorEndsTheChainAndStaysAnOp) {
  Model m;
  ir::Value* s = m.g.In("s", DataType::kFloat32, {1, 4, 1, 1});
  m.g.Out(m.g.Op("Mul", "mul", {m.BatchNorm(m.x), s}));
  ASSERT_TRUE(m.g.Infer().ok());
  ASSERT_TRUE(RunPass(*CreateBatchNormAffinePass(), m.g));
  ASSERT_EQ(m.g.OpTypes(), "ArithmeticChain,Mul");
  EXPECT_EQ(Model::Values(NodeAt(m.g, 0)->input(1)), (std::vector<float>{1, 1, -1, 1}));
  EXPECT_EQ(Model::Values(NodeAt(m.g, 0)->input(2)), (std::vector<float>{-1, 2, 2.5f, 3}));
  EXPECT_EQ(NodeAt(m.g, 1)->input(0), NodeAt(m.g, 0)->output(0));
}

TEST(BatchNormAffinePassTest, ComputedParametersOrReadStatisticsLeaveTheBatchNorm) {
  Model m;
  ir::Value* v = m.g.In("v", DataType::kFloat32, {4});  // a variance known at run time only
  m.g.Out(m.BatchNorm(m.x, v));
  ir::Value* ones = m.g.ConstF("ones", {4}, {1, 1, 1, 1});
  auto outs = m.g.OpN("BatchNormalization", "training", {m.x, ones, ones, ones, ones}, 3,
                      {{"training_mode", int64_t{1}}}, 15);
  m.g.Out(outs[0]);
  m.g.Out(outs[1]);
  ASSERT_TRUE(m.g.Infer().ok());
  EXPECT_FALSE(RunPass(*CreateBatchNormAffinePass(), m.g));
  EXPECT_EQ(m.g.OpTypes(), "BatchNormalization,BatchNormalization");
}

}  // namespace
}  // namespace kiln::compiler
