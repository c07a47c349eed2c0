// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// channels_last through transparent nodes: Concat and Split over the channels and Add of one
// shape keep the values they join NHWC (com.kiln ops with kiln_nhwc) when every producer is a
// conv, pool or transparent node and every reader takes NHWC; otherwise none of the values
// they join is.
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
using testing::RunPass;
using testing::SetType;

// Float32 input x [1,4,8,8]; 1x1 convs to 4 or 2 channels, all 8x8.
struct C2f {
  GraphBuilder g;
  ir::Value* x = g.In("x", DataType::kFloat32, {1, 4, 8, 8});
  ir::Value* w4 = g.ConstF("w4", {4, 4, 1, 1}, std::vector<float>(16, 0.5f));
  ir::Value* w2 = g.ConstF("w2", {2, 2, 1, 1}, std::vector<float>(4, 0.5f));
  ir::Value* w6 = g.ConstF("w6", {4, 6, 1, 1}, std::vector<float>(24, 0.5f));

  ir::Value* Conv(const std::string& name, ir::Value* in, ir::Value* w, int64_t out_c) {
    ir::Value* y = g.Op("Conv", name, {in, w});
    SetType(y, DataType::kFloat32, {1, out_c, 8, 8});
    return y;
  }
  // cv1 -> Split [2, 2] -> (a, b); b -> m (conv) -> Add(b, m) -> Concat(a, b, add) -> cv2.
  // Returns the nodes' outputs by name.
  std::map<std::string, ir::Value*> Build(int64_t split_axis = 1, int split_opset = 17) {
    std::map<std::string, ir::Value*> v;
    v["cv1"] = Conv("cv1", x, w4, 4);
    std::vector<ir::Value*> parts;
    if (split_opset >= 13) {
      ir::Value* sizes = g.ConstI("sizes", {2, 2});
      parts = g.OpN("Split", "split", {v["cv1"], sizes}, 2, {{"axis", split_axis}}, split_opset);
    } else {  // the sizes an attribute
      parts = g.OpN("Split", "split", {v["cv1"]}, 2,
                    {{"axis", split_axis}, {"split", std::vector<int64_t>{2, 2}}}, split_opset);
    }
    v["a"] = parts[0];
    v["b"] = parts[1];
    SetType(v["a"], DataType::kFloat32, {1, 2, 8, 8});
    SetType(v["b"], DataType::kFloat32, {1, 2, 8, 8});
    v["m"] = Conv("m", v["b"], w2, 2);
    v["add"] = g.Op("Add", "add", {v["b"], v["m"]});
    SetType(v["add"], DataType::kFloat32, {1, 2, 8, 8});
    v["cat"] = g.Op("Concat", "cat", {v["a"], v["b"], v["add"]}, {{"axis", int64_t{1}}});
    SetType(v["cat"], DataType::kFloat32, {1, 6, 8, 8});
    v["cv2"] = Conv("cv2", v["cat"], w6, 4);
    g.Out(v["cv2"]);
    return v;
  }
  const ir::Node* Node(const std::string& name) const {
    for (const auto& n : g.graph.nodes()) {
      if (n->name() == name) return n.get();
    }
    return nullptr;
  }
  // "domain:flags" of a node: the conv flags as x/y letters, a transparent node's kiln_nhwc as n.
  std::string Marks(const std::string& name) const {
    const ir::Node* n = Node(name);
    if (n == nullptr) return "<missing>";
    std::string s = n->domain() + ":";
    for (const char* a : {"kiln_x_nhwc", "kiln_y_nhwc", "kiln_nhwc"}) {
      if (n->has_attr(a) && n->attr_int(a) == 1) s += a[5] == 'n' ? 'n' : a[5];
    }
    return s;
  }
};

TEST(ChannelsLastTransparentTest, SplitAddConcatBetweenConvsKeepEverythingNhwc) {
  C2f m;
  m.Build();
  auto pass = CreateChannelsLastPass();
  EXPECT_TRUE(RunPass(*pass, m.g));
  EXPECT_EQ(m.Marks("cv1"), "com.kiln:y");
  EXPECT_EQ(m.Marks("split"), "com.kiln:n");
  EXPECT_EQ(m.Marks("m"), "com.kiln:xy");
  EXPECT_EQ(m.Marks("add"), "com.kiln:n");
  EXPECT_EQ(m.Marks("cat"), "com.kiln:n");
  EXPECT_EQ(m.Marks("cv2"), "com.kiln:x");  // its output is the graph's
  EXPECT_EQ(m.Node("cat")->attr_int("axis"), 1);
  EXPECT_EQ(m.Node("split")->inputs().size(), 2u);  // the sizes stay an input
  // The com.kiln schemas accept what the pass made, and a second run changes nothing.
  Status ok = m.g.Infer();
  EXPECT_TRUE(ok.ok()) << ok.message();
  EXPECT_FALSE(RunPass(*pass, m.g));
}

TEST(ChannelsLastTransparentTest, AValueFromAnotherOpKeepsTheWholeGroupPlain) {
  C2f m;
  auto v = m.Build();
  // The Concat also reads the graph input: its stored order is NCHW, so nothing the Concat
  // joins (through the Split and the Add too) may be NHWC.
  ir::Node* cat = const_cast<ir::Node*>(m.Node("cat"));
  cat->set_input(0, m.x);
  SetType(v["cat"], DataType::kFloat32, {1, 8, 8, 8});
  auto pass = CreateChannelsLastPass();
  RunPass(*pass, m.g);
  EXPECT_EQ(m.Marks("split"), ":");
  EXPECT_EQ(m.Marks("add"), ":");
  EXPECT_EQ(m.Marks("cat"), ":");
  EXPECT_EQ(m.Node("cv1")->has_attr("kiln_y_nhwc"), false);
  // m's input comes from the Split (plain), its output feeds the Add (plain).
  EXPECT_EQ(m.Node("m")->has_attr("kiln_x_nhwc"), false);
}

TEST(ChannelsLastTransparentTest, AReaderThatNeedsNchwKeepsTheGroupPlain) {
  C2f m;
  auto v = m.Build();
  m.g.Out(m.g.Op("Relu", "relu", {v["b"]}));  // reads a Split output
  auto pass = CreateChannelsLastPass();
  RunPass(*pass, m.g);
  for (const char* n : {"split", "add", "cat"}) EXPECT_EQ(m.Marks(n), ":") << n;
}

// A Split of opset 11 gives its sizes as an attribute: the com.kiln Split (the newest opset's)
// takes them as a constant input instead, and the C2f block stays NHWC as with opset 13.
TEST(ChannelsLastTransparentTest, ASplitWhoseSizesAreAnAttributeBecomesTransparent) {
  C2f m;
  m.Build(1, /*split_opset=*/11);
  auto pass = CreateChannelsLastPass();
  EXPECT_TRUE(RunPass(*pass, m.g));
  EXPECT_EQ(m.Marks("split"), "com.kiln:n");
  EXPECT_EQ(m.Marks("cat"), "com.kiln:n");
  const ir::Node* split = m.Node("split");
  ASSERT_NE(split, nullptr);
  EXPECT_FALSE(split->has_attr("split"));
  ASSERT_EQ(split->inputs().size(), 2u);
  ASSERT_NE(split->input(1)->constant(), nullptr);
  EXPECT_EQ(split->input(1)->constant()->AsInt64s(), (std::vector<int64_t>{2, 2}));
  Status ok = m.g.Infer();
  EXPECT_TRUE(ok.ok()) << ok.message();
  EXPECT_FALSE(RunPass(*pass, m.g));
}

TEST(ChannelsLastTransparentTest, OtherAxesAndBroadcastAddsAreNotTransparent) {
  {  // Split over the height
    C2f m;
    m.Build(/*split_axis=*/2);
    auto pass = CreateChannelsLastPass();
    RunPass(*pass, m.g);
    EXPECT_EQ(m.Marks("split"), ":");
    EXPECT_EQ(m.Marks("cat"), ":");
  }
  {  // An Add broadcasting one channel over the other
    C2f m;
    auto v = m.Build();
    SetType(v["m"], DataType::kFloat32, {1, 1, 8, 8});
    auto pass = CreateChannelsLastPass();
    RunPass(*pass, m.g);
    EXPECT_EQ(m.Marks("add"), ":");
    EXPECT_EQ(m.Marks("cat"), ":");
  }
}

TEST(ChannelsLastTransparentTest, Bf16ModelsLeaveTransparentNodesAlone) {
  C2f m;
  m.Build();
  auto pass = CreateChannelsLastPass();
  PassContext ctx;
  ctx.matrix_bf16 = true;
  ASSERT_TRUE(pass->Run(m.g.graph, ctx).ok());
  for (const char* n : {"split", "add", "cat"}) EXPECT_EQ(m.Marks(n), ":") << n;
}

TEST(ChannelsLastTransparentTest, AnEvenSplitNamesItsPartsAndBadFlagsAreRefused) {
  C2f m;
  auto v = m.Build();
  ir::Node* split = const_cast<ir::Node*>(m.Node("split"));
  split->set_input(1, nullptr);  // two even parts, no sizes
  auto pass = CreateChannelsLastPass();
  EXPECT_TRUE(RunPass(*pass, m.g));
  split = const_cast<ir::Node*>(m.Node("split"));
  EXPECT_EQ(m.Marks("split"), "com.kiln:n");
  EXPECT_EQ(split->attr_int("num_outputs"), 2);
  Status ok = m.g.Infer();
  EXPECT_TRUE(ok.ok()) << ok.message();
  // The schema refuses the flag on an axis other than the channels and on a broadcasting Add.
  ir::Node* cat = const_cast<ir::Node*>(m.Node("cat"));
  cat->set_attr("axis", int64_t{2});
  Status axis = m.g.Infer();
  EXPECT_FALSE(axis.ok());
  EXPECT_NE(axis.message().find("axis 1"), std::string::npos) << axis.message();
  cat->set_attr("axis", int64_t{-3});
  ir::Node* add = const_cast<ir::Node*>(m.Node("add"));
  add->set_input(1, m.g.ConstF("row", {1, 1, 1, 8}, std::vector<float>(8, 1.0f)));
  Status broadcast = m.g.Infer();
  EXPECT_FALSE(broadcast.ok());
  EXPECT_NE(broadcast.message().find("height and width 1"), std::string::npos)
      << broadcast.message();
  // One of height and width 1 is taken: its bytes are the same in either order.
  add->set_input(1, m.g.ConstF("one", {1, 2, 1, 1}, {1.0f, 2.0f}));
  Status neutral = m.g.Infer();
  EXPECT_TRUE(neutral.ok()) << neutral.message();
}

TEST(ChannelsLastTransparentTest, NearestResizeOfHeightAndWidthIsTransparentLinearIsNot) {
  for (const char* mode : {"nearest", "linear"}) {
    C2f m;
    ir::Value* c1 = m.Conv("cv1", m.x, m.w4, 4);
    ir::Value* scales = m.g.ConstF("scales", {4}, {1, 1, 2, 2});
    ir::Value* up = m.g.Op("Resize", "up", {c1, nullptr, scales}, {{"mode", std::string(mode)}});
    SetType(up, DataType::kFloat32, {1, 4, 16, 16});
    ir::Value* c2 = m.g.Op("Conv", "cv2", {up, m.w4});
    SetType(c2, DataType::kFloat32, {1, 4, 16, 16});
    m.g.Out(c2);
    auto pass = CreateChannelsLastPass();
    RunPass(*pass, m.g);
    const bool nearest = std::string(mode) == "nearest";
    EXPECT_EQ(m.Marks("up"), nearest ? "com.kiln:n" : ":") << mode;
    EXPECT_EQ(m.Marks("cv1"), nearest ? "com.kiln:y" : ":") << mode;
    EXPECT_EQ(m.Marks("cv2"), nearest ? "com.kiln:x" : ":") << mode;
    if (nearest) {
      EXPECT_EQ(m.Node("up")->inputs().size(), 3u);  // roi omitted, scales as they were
      Status ok = m.g.Infer();
      EXPECT_TRUE(ok.ok()) << ok.message();
    }
  }
}

TEST(ChannelsLastTransparentTest, SqueezeExcitationBlockStaysNhwc) {
  // conv -> y; GlobalAveragePool(y) -> 1x1 conv -> Sigmoid -> s [1,4,1,1]; Mul(y, s) -> conv.
  C2f m;
  ir::Value* y = m.Conv("cv1", m.x, m.w4, 4);
  ir::Value* squeezed = m.g.Op("GlobalAveragePool", "gap", {y});
  SetType(squeezed, DataType::kFloat32, {1, 4, 1, 1});
  ir::Value* excite = m.g.Op("Conv", "fc", {squeezed, m.w4});
  SetType(excite, DataType::kFloat32, {1, 4, 1, 1});
  ir::Value* s = m.g.Op("Sigmoid", "gate", {excite});
  SetType(s, DataType::kFloat32, {1, 4, 1, 1});
  ir::Value* scaled = m.g.Op("Mul", "scale", {y, s});
  SetType(scaled, DataType::kFloat32, {1, 4, 8, 8});
  ir::Value* out = m.g.Op("Conv", "cv2", {scaled, m.w4});
  SetType(out, DataType::kFloat32, {1, 4, 8, 8});
  m.g.Out(out);
  auto pass = CreateChannelsLastPass();
  EXPECT_TRUE(RunPass(*pass, m.g));
  EXPECT_EQ(m.Marks("cv1"), "com.kiln:y");
  EXPECT_EQ(m.Marks("gap"), "com.kiln:xy");  // an AveragePool of the whole 8x8 now
  EXPECT_EQ(m.Node("gap")->op_type(), "AveragePool");
  EXPECT_EQ(m.Node("gap")->attr_ints("kernel_shape"), (std::vector<int64_t>{8, 8}));
  EXPECT_EQ(m.Marks("fc"), "com.kiln:x");  // its output goes to Sigmoid
  EXPECT_EQ(m.Marks("scale"), "com.kiln:n");
  EXPECT_EQ(m.Marks("cv2"), "com.kiln:x");
  Status ok = m.g.Infer();
  EXPECT_TRUE(ok.ok()) << ok.message();
  EXPECT_FALSE(RunPass(*pass, m.g));
}

// DenseNet's layer after batch_norm_affine: Concat(conv outputs) -> the BN's
// ArithmeticChain (constants [1, C, 1, 1]) -> Relu -> conv. Every value stays NHWC: the Relu
// becomes com.kiln's with kiln_nhwc, the chain gets kiln_nhwc.
TEST(ChannelsLastTransparentTest, APreActivationChainAndReluBeforeAConvStayNhwc) {
  C2f m;
  ir::Value* a = m.Conv("a", m.x, m.w4, 4);
  ir::Value* b = m.Conv("b", a, m.w4, 4);
  ir::Value* cat = m.g.Op("Concat", "cat", {a, b}, {{"axis", int64_t{1}}});
  SetType(cat, DataType::kFloat32, {1, 8, 8, 8});
  ir::Value* k = m.g.ConstF("k", {1, 8, 1, 1}, std::vector<float>(8, 2.0f));
  ir::Value* t = m.g.ConstF("t", {1, 8, 1, 1}, std::vector<float>(8, -1.0f));
  m.g.graph.opsets().emplace("com.kiln", 1);
  ir::Value* chain = m.g.graph.AddUniqueValue("bn_out", {});
  SetType(chain, DataType::kFloat32, {1, 8, 8, 8});
  ir::Node* bn = *m.g.graph.AddNode("ArithmeticChain", "com.kiln", "bn", 1, {cat, k, t}, {chain});
  bn->set_attr("ops", std::vector<std::string>{"Mul", "Add"});
  bn->set_attr("swapped", std::vector<int64_t>{0, 0});
  ir::Value* relu = m.g.Op("Relu", "relu", {chain});
  SetType(relu, DataType::kFloat32, {1, 8, 8, 8});
  ir::Value* w8 = m.g.ConstF("w8", {4, 8, 1, 1}, std::vector<float>(32, 0.5f));
  m.g.Out(m.Conv("c", relu, w8, 4));
  auto pass = CreateChannelsLastPass();
  EXPECT_TRUE(RunPass(*pass, m.g));
  EXPECT_EQ(m.Marks("a"), "com.kiln:y");
  EXPECT_EQ(m.Marks("b"), "com.kiln:xy");
  EXPECT_EQ(m.Marks("cat"), "com.kiln:n");
  EXPECT_EQ(m.Marks("bn"), "com.kiln:n");
  EXPECT_EQ(m.Marks("relu"), "com.kiln:n");
  EXPECT_EQ(m.Marks("c"), "com.kiln:x");  // its output is the graph's
  // The com.kiln schemas accept what the pass made, and a second run changes nothing.
  Status ok = m.g.Infer();
  EXPECT_TRUE(ok.ok()) << ok.message();
  EXPECT_FALSE(RunPass(*pass, m.g));
}

TEST(ChannelsLastTransparentTest, AChannelShuffleBetweenConvsStaysNhwc) {
  C2f m;
  ir::Value* a = m.Conv("a", m.x, m.w4, 4);
  m.g.graph.opsets().emplace("com.kiln", 1);
  ir::Value* shuffled = m.g.graph.AddUniqueValue("shuffled", {});
  SetType(shuffled, DataType::kFloat32, {1, 4, 8, 8});
  ir::Node* shuffle =
      *m.g.graph.AddNode("ChannelShuffle", "com.kiln", "shuffle", 1, {a}, {shuffled});
  shuffle->set_attr("group", int64_t{2});
  m.g.Out(m.Conv("c", shuffled, m.w4, 4));
  auto pass = CreateChannelsLastPass();
  EXPECT_TRUE(RunPass(*pass, m.g));
  EXPECT_EQ(m.Marks("a"), "com.kiln:y");
  EXPECT_EQ(m.Marks("shuffle"), "com.kiln:n");
  EXPECT_EQ(m.Marks("c"), "com.kiln:x");
  Status ok = m.g.Infer();
  EXPECT_TRUE(ok.ok()) << ok.message();
  EXPECT_FALSE(RunPass(*pass, m.g));
}

TEST(ChannelsLastTransparentTest, AReluWhoseValueIsAGraphOutputStaysPlain) {
  C2f m;
  ir::Value* a = m.Conv("a", m.x, m.w4, 4);
  ir::Value* relu = m.g.Op("Relu", "relu", {a});
  SetType(relu, DataType::kFloat32, {1, 4, 8, 8});
  m.g.Out(relu);
  m.g.Out(m.Conv("c", relu, m.w4, 4));
  RunPass(*CreateChannelsLastPass(), m.g);
  EXPECT_EQ(m.Marks("relu"), ":");
  EXPECT_EQ(m.Node("a")->has_attr("kiln_y_nhwc"), false);
}

}  // namespace
}  // namespace kiln::compiler
