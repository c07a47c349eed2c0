// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// arithmetic_chain: float32 Add / Sub / Mul / Div nodes each read only by the next become one
// com.kiln ArithmeticChain whose steps, inputs and operand sides are those of the nodes (what
// the chain computes is tested against the unfused nodes in tests/ops/arithmetic_chain_test.cc).
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
using Strings = std::vector<std::string>;
using Ints = std::vector<int64_t>;

struct Model {
  GraphBuilder g;
  ir::Value* x = g.In("x", DataType::kFloat32, {1, 4, 6, 6});
  ir::Value* s = g.In("s", DataType::kFloat32, {1, 4, 1, 1});
  ir::Value* r = g.In("r", DataType::kFloat32, {1, 4, 6, 6});
  // A com.kiln arithmetic node (or Relu) stored NHWC, as channels_last leaves it.
  ir::Value* Nhwc(const char* op, const std::string& name, std::vector<ir::Value*> in) {
    ir::Value* y = g.graph.AddUniqueValue(name + "_out", {});
    ir::Node* n = *g.graph.AddNode(op, "com.kiln", name, 1, std::move(in), {y});
    n->set_attr("kiln_nhwc", int64_t{1});
    return y;
  }
  // Runs the pass, then the definitions of every node (the chain's included).
  bool Fuse() {
    EXPECT_TRUE(g.Infer().ok());
    auto pass = CreateArithmeticChainPass();
    const bool changed = RunPass(*pass, g);
    const Status st = g.Infer();
    EXPECT_TRUE(st.ok()) << st.message();
    return changed;
  }
};

TEST(ArithmeticChainPassTest, ASqueezeExcitationTailAndAFeaturePyramidAddBecomeOneChain) {
  Model m;
  ir::Value* scaled = m.g.Op("Mul", "mul", {m.x, m.s});
  ir::Value* res = m.g.Op("Add", "add", {m.x, scaled});  // the running value on the right
  ir::Value* out = m.g.Op("Add", "fpn", {res, m.r});
  m.g.Out(out);
  EXPECT_STREQ(CreateArithmeticChainPass()->name(), "arithmetic_chain");
  ASSERT_TRUE(m.Fuse());
  ASSERT_EQ(m.g.OpTypes(), "ArithmeticChain");
  const ir::Node* chain = NodeAt(m.g, 0);
  EXPECT_EQ(chain->domain(), "com.kiln");
  EXPECT_EQ(chain->name(), "fpn");
  EXPECT_EQ(chain->inputs(), (std::vector<ir::Value*>{m.x, m.s, m.x, m.r}));
  EXPECT_EQ(chain->outputs(), (std::vector<ir::Value*>{out}));
  EXPECT_EQ(chain->attr_strings("ops"), (Strings{"Mul", "Add", "Add"}));
  EXPECT_EQ(chain->attr_ints("swapped"), (Ints{0, 1, 0}));
  EXPECT_FALSE(chain->has_attr("kiln_nhwc"));
  EXPECT_EQ(chain->origins(), (testing::Names{"fpn", "add", "mul"}));
  EXPECT_EQ(out->shape(), ir::Shape::Of({1, 4, 6, 6}));
}

TEST(ArithmeticChainPassTest, ASwappedDivisionKeepsItsSide) {
  Model m;
  ir::Value* centred = m.g.Op("Sub", "sub", {m.x, m.s});
  ir::Value* out = m.g.Op("Div", "div", {m.r, centred});
  m.g.Out(out);
  ASSERT_TRUE(m.Fuse());
  const ir::Node* chain = NodeAt(m.g, 0);
  EXPECT_EQ(chain->attr_strings("ops"), (Strings{"Sub", "Div"}));
  EXPECT_EQ(chain->attr_ints("swapped"), (Ints{0, 1}));
  EXPECT_EQ(chain->inputs(), (std::vector<ir::Value*>{m.x, m.s, m.r}));
}

TEST(ArithmeticChainPassTest, AValueReadElsewhereOrAGraphOutputEndsTheChain) {
  Model m;
  ir::Value* a = m.g.Op("Mul", "mul", {m.x, m.s});
  ir::Value* b = m.g.Op("Add", "add", {a, m.r});
  ir::Value* c = m.g.Op("Relu", "relu", {a});  // a has a second reader
  ir::Value* d = m.g.Op("Sub", "sub", {b, m.x});
  m.g.Out(b);  // b is a graph output
  m.g.Out(c);
  m.g.Out(d);
  EXPECT_FALSE(m.Fuse());
  EXPECT_EQ(m.g.OpTypes(), "Mul,Add,Relu,Sub");
}

TEST(ArithmeticChainPassTest, OnlyFloatArithmeticOfOneLayoutChains) {
  Model m;
  ir::Value* i = m.g.In("i", DataType::kInt64, {4});
  ir::Value* ia = m.g.Op("Add", "iadd", {i, i});
  m.g.Out(m.g.Op("Mul", "imul", {ia, i}));  // int64
  ir::Value* sq = m.g.Op("Mul", "sq", {m.x, m.x});
  m.g.Out(m.g.Op("Mul", "self", {sq, sq}));  // reads the running value twice: not a step
  // A com.kiln Add stored NHWC and an ONNX one (NCHW) do not chain; two NHWC ones do.
  ir::Value* n1 = m.Nhwc("Add", "n1", {m.x, m.r});
  ir::Value* plain = m.g.Op("Add", "plain", {n1, m.s});
  ir::Value* n2 = m.Nhwc("Mul", "n2", {plain, m.s});
  m.g.Out(m.Nhwc("Sub", "n3", {n2, m.x}));
  ASSERT_TRUE(m.Fuse());
  EXPECT_EQ(m.g.OpTypes(), "Add,Mul,Mul,Mul,Add,Add,ArithmeticChain");
  const ir::Node* chain = m.g.FindNode("ArithmeticChain");
  EXPECT_EQ(chain->attr_strings("ops"), (Strings{"Mul", "Sub"}));
  EXPECT_EQ(chain->attr_int("kiln_nhwc"), 1);
  EXPECT_EQ(chain->inputs(), (std::vector<ir::Value*>{plain, m.s, m.x}));
}

// Nodes channels_last keeps in channel blocks (kiln_cblock beside kiln_nhwc) chain with nodes of
// the same blocks, and the chain keeps them; a node NHWC without blocks does not join.
TEST(ArithmeticChainPassTest, NodesInChannelBlocksChainOnlyWithTheSameBlocks) {
  GraphBuilder g;
  ir::Value* x = g.In("x", DataType::kFloat32, {1, 16, 6, 6});
  ir::Value* s = g.In("s", DataType::kFloat32, {1, 16, 1, 1});
  auto node = [&](const char* op, const std::string& name, std::vector<ir::Value*> in,
                  int64_t block) {
    ir::Value* y = g.graph.AddUniqueValue(name + "_out", {});
    ir::Node* n = *g.graph.AddNode(op, "com.kiln", name, 1, std::move(in), {y});
    n->set_attr("kiln_nhwc", int64_t{1});
    if (block != 0) n->set_attr("kiln_cblock", block);
    return y;
  };
  g.graph.opsets().emplace("com.kiln", 1);
  ir::Value* scaled = node("Mul", "bn_mul", {x, s}, 16);
  ir::Value* shifted = node("Add", "bn_add", {scaled, s}, 16);
  ir::Value* act = node("Relu", "relu", {shifted}, 16);
  ir::Value* other = node("Sub", "nhwc_sub", {act, s}, 0);  // NHWC, not in blocks
  g.Out(node("Mul", "nhwc_mul", {other, s}, 0));
  ASSERT_TRUE(g.Infer().ok());
  auto pass = CreateArithmeticChainPass();
  ASSERT_TRUE(RunPass(*pass, g));
  const Status st = g.Infer();
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(g.OpTypes(), "ArithmeticChain,ArithmeticChain");
  const ir::Node* blocked = NodeAt(g, 0);
  EXPECT_EQ(blocked->attr_strings("ops"), (Strings{"Mul", "Add"}));
  EXPECT_EQ(blocked->attr_string("activation"), "Relu");
  EXPECT_EQ(blocked->attr_int("kiln_nhwc"), 1);
  EXPECT_EQ(blocked->attr_int("kiln_cblock"), 16);
  const ir::Node* nhwc = NodeAt(g, 1);
  EXPECT_EQ(nhwc->attr_strings("ops"), (Strings{"Sub", "Mul"}));
  EXPECT_EQ(nhwc->attr_int("kiln_nhwc"), 1);
  EXPECT_FALSE(nhwc->has_attr("kiln_cblock"));
}

TEST(ArithmeticChainPassTest, AReluThatAloneReadsTheChainEndsIt) {
  Model m;
  ir::Value* scaled = m.g.Op("Mul", "bn_mul", {m.x, m.s});
  ir::Value* shifted = m.g.Op("Add", "bn_add", {scaled, m.s});
  ir::Value* act = m.g.Op("Relu", "relu", {shifted});
  m.g.Out(m.g.Op("Add", "after", {act, m.r}));  // after the Relu: not a step of the chain
  ASSERT_TRUE(m.Fuse());
  EXPECT_EQ(m.g.OpTypes(), "ArithmeticChain,Add");
  const ir::Node* chain = NodeAt(m.g, 0);
  EXPECT_EQ(chain->attr_strings("ops"), (Strings{"Mul", "Add"}));
  EXPECT_EQ(chain->attr_string("activation"), "Relu");
  EXPECT_EQ(chain->outputs(), (std::vector<ir::Value*>{act}));
  EXPECT_EQ(chain->inputs(), (std::vector<ir::Value*>{m.x, m.s, m.s}));
}

TEST(ArithmeticChainPassTest, AReluOfAnotherLayoutOrReadingAValueReadElsewhereStays) {
  // An NHWC chain (com.kiln Adds) and an ONNX Relu (NCHW); and an NHWC Relu after it, which
  // fuses.
  Model m;
  ir::Value* a = m.Nhwc("Add", "a", {m.x, m.r});
  m.g.Out(m.g.Op("Relu", "onnx_relu", {m.Nhwc("Mul", "b", {a, m.s})}));
  ir::Value* c = m.g.Op("Mul", "c", {m.r, m.s});
  m.g.Out(m.g.Op("Relu", "relu_c", {c}));
  m.g.Out(c);  // c is read by its Relu and is a graph output
  ir::Value* d = m.Nhwc("Sub", "d", {m.x, m.s});
  m.g.Out(m.Nhwc("Relu", "nhwc_relu", {d}));
  ASSERT_TRUE(m.Fuse());
  EXPECT_EQ(m.g.OpTypes(), "ArithmeticChain,Relu,Mul,Relu,ArithmeticChain");
  const ir::Node* first = NodeAt(m.g, 0);
  EXPECT_EQ(first->attr_string("activation"), "");
  const ir::Node* last = NodeAt(m.g, 4);
  EXPECT_EQ(last->attr_strings("ops"), (Strings{"Sub"}));
  EXPECT_EQ(last->attr_string("activation"), "Relu");
  EXPECT_EQ(last->attr_int("kiln_nhwc"), 1);
}

TEST(ArithmeticChainPassTest, ALongChainIsCutAtTheOpsInputLimit) {
  // The first walk pairs the nodes, later walks join the pairs while they fit in 8 steps.
  Model m;
  ir::Value* v = m.x;
  for (int i = 0; i < 12; ++i) v = m.g.Op(i % 2 ? "Add" : "Mul", "n" + std::to_string(i), {v, m.s});
  m.g.Out(v);
  ASSERT_TRUE(m.Fuse());
  ASSERT_EQ(m.g.OpTypes(), "ArithmeticChain,ArithmeticChain");
  EXPECT_EQ(NodeAt(m.g, 0)->attr_strings("ops").size(), 8u);
  EXPECT_EQ(NodeAt(m.g, 1)->attr_strings("ops").size(), 4u);
  EXPECT_EQ(NodeAt(m.g, 1)->input(0), NodeAt(m.g, 0)->output(0));
  EXPECT_EQ(NodeAt(m.g, 1)->output(0), v);
}

}  // namespace
}  // namespace kiln::compiler
