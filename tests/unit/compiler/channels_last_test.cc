// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// channels_last: which conv outputs are kept NHWC (kiln_y_nhwc on the producer, kiln_x_nhwc /
// kiln_z_nhwc on the readers), when a plain Conv becomes a FusedConv, idempotence, and a bf16
// model's bf16 storage of those values (kiln_*_bf16).
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <utility>
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
using testing::SetType;

constexpr char kX[] = "kiln_x_nhwc";
constexpr char kY[] = "kiln_y_nhwc";
constexpr char kZ[] = "kiln_z_nhwc";

// The layout flags a node carries, as "xyz" letters of the attributes set to 1 ("" for none).
std::string Flags(const ir::Node* n) {
  if (n == nullptr) return "<null>";
  std::string s;
  if (n->has_attr(kX)) s += n->attr_int(kX) == 1 ? "x" : "?";
  if (n->has_attr(kY)) s += n->attr_int(kY) == 1 ? "y" : "?";
  if (n->has_attr(kZ)) s += n->attr_int(kZ) == 1 ? "z" : "?";
  return s;
}

// Float32 [1,4,8,8] input x; 3x3 convs with pads 1 keep that shape.
struct Net {
  GraphBuilder g;
  ir::Value* x = g.In("x", DataType::kFloat32, {1, 4, 8, 8});
  ir::Value* w = g.ConstF("w", {4, 4, 3, 3}, std::vector<float>(144, 0.25f));
  ir::Value* b = g.ConstF("b", {4}, {1, 2, 3, 4});

  ir::Value* Conv(const std::string& name, ir::Value* in) {
    ir::Value* y = g.Op(
        "Conv", name, {in, w, b},
        {{"kernel_shape", std::vector<int64_t>{3, 3}}, {"pads", std::vector<int64_t>{1, 1, 1, 1}}});
    SetType(y, DataType::kFloat32, {1, 4, 8, 8});
    return y;
  }
  // conv1 -> conv2 -> block, the shortcut conv of x as block's residual; block is the output.
  // Returns conv1's output.
  ir::Value* ResidualBlock() {
    ir::Value* y1 = Conv("conv1", x);
    ir::Value* y2 = Conv("conv2", y1);
    ir::Value* z = Conv("shortcut", x);
    g.Out(Fused("block", y2, z));
    return y1;
  }
  // A com.kiln FusedConv(in, w, b, z) with activation Relu.
  ir::Value* Fused(const std::string& name, ir::Value* in, ir::Value* z) {
    ir::Value* y = g.graph.AddUniqueValue(name + "_out", {});
    ir::Node* n = *g.graph.AddNode("FusedConv", "com.kiln", name, 1, {in, w, b, z}, {y});
    n->set_attr("kernel_shape", std::vector<int64_t>{3, 3});
    n->set_attr("pads", std::vector<int64_t>{1, 1, 1, 1});
    n->set_attr("activation", std::string("Relu"));
    SetType(y, DataType::kFloat32, {1, 4, 8, 8});
    return y;
  }
};

TEST(ChannelsLastPassTest, ConvChainKeepsTheValueBetweenThemNhwc) {
  Net m;
  ir::Value* y1 = m.Conv("conv1", m.x);
  ir::Value* y2 = m.Conv("conv2", y1);
  m.g.Out(y2);
  auto pass = CreateChannelsLastPass();
  ASSERT_NE(pass, nullptr);
  EXPECT_STREQ(pass->name(), "channels_last");
  EXPECT_TRUE(RunPass(*pass, m.g));
  EXPECT_EQ(m.g.OpTypes(), "FusedConv,FusedConv");
  const ir::Node* c1 = NodeAt(m.g, 0);
  const ir::Node* c2 = NodeAt(m.g, 1);
  ASSERT_NE(c1, nullptr);
  ASSERT_NE(c2, nullptr);
  EXPECT_EQ(c1->domain(), "com.kiln");
  EXPECT_EQ(c1->name(), "conv1");
  EXPECT_EQ(Flags(c1), "y");  // x is a graph input: stays NCHW
  EXPECT_EQ(Flags(c2), "x");  // y2 is a graph output: stays NCHW
  EXPECT_TRUE(c1->has_attr("activation"));
  EXPECT_EQ(c1->attr_string("activation"), "");
  EXPECT_TRUE(c2->has_attr("activation"));
  EXPECT_EQ(c2->attr_string("activation"), "");
  EXPECT_EQ(c1->inputs(), (std::vector<ir::Value*>{m.x, m.w, m.b}));
  EXPECT_EQ(c1->outputs(), (std::vector<ir::Value*>{y1}));
  EXPECT_EQ(c2->inputs(), (std::vector<ir::Value*>{y1, m.w, m.b}));
  EXPECT_EQ(c2->outputs(), (std::vector<ir::Value*>{y2}));
  EXPECT_EQ(m.g.graph.outputs()[0], y2);
  EXPECT_EQ(m.g.graph.opsets().count("com.kiln"), 1u);
}

TEST(ChannelsLastPassTest, ConvFeedingTheResidualOfAFusedConvIsKeptNhwc) {
  Net m;
  ir::Value* a = m.Conv("a", m.x);
  ir::Value* z = m.Conv("shortcut", m.x);
  ir::Value* out = m.Fused("block", a, z);
  m.g.Out(out);
  auto pass = CreateChannelsLastPass();
  EXPECT_TRUE(RunPass(*pass, m.g));
  EXPECT_EQ(m.g.OpTypes(), "FusedConv,FusedConv,FusedConv");
  EXPECT_EQ(Flags(NodeAt(m.g, 0)), "y");
  EXPECT_EQ(Flags(NodeAt(m.g, 1)), "y");
  const ir::Node* block = NodeAt(m.g, 2);
  ASSERT_NE(block, nullptr);
  EXPECT_EQ(block->name(), "block");
  EXPECT_EQ(Flags(block), "xz");
  EXPECT_TRUE(block->has_attr("activation"));
  EXPECT_EQ(block->attr_string("activation"), "Relu");  // untouched
  EXPECT_EQ(block->inputs(), (std::vector<ir::Value*>{a, m.w, m.b, z}));
}

TEST(ChannelsLastPassTest, ResidualOfAnotherShapeIsNotKeptNhwc) {
  Net m;
  ir::Value* a = m.Conv("a", m.x);
  ir::Value* z = m.Conv("shortcut", m.x);
  SetType(z, DataType::kFloat32, {1, 4, 1, 1});  // broadcast residual (as typed by hand)
  m.g.Out(m.Fused("block", a, z));
  auto pass = CreateChannelsLastPass();
  EXPECT_TRUE(RunPass(*pass, m.g));
  EXPECT_EQ(m.g.OpTypes(), "FusedConv,Conv,FusedConv");
  EXPECT_EQ(Flags(NodeAt(m.g, 0)), "y");
  EXPECT_EQ(Flags(NodeAt(m.g, 1)), "");
  EXPECT_EQ(Flags(NodeAt(m.g, 2)), "x");
}

TEST(ChannelsLastPassTest, ValueAlsoReadByANonConvOpIsNotMarked) {
  Net m;
  ir::Value* y1 = m.Conv("conv1", m.x);
  m.g.Out(m.Conv("conv2", y1));
  m.g.Out(m.g.Op("Relu", "relu", {y1}));
  auto pass = CreateChannelsLastPass();
  EXPECT_FALSE(RunPass(*pass, m.g));
  EXPECT_EQ(m.g.OpTypes(), "Conv,Conv,Relu");
  for (const auto& n : m.g.graph.nodes()) EXPECT_EQ(Flags(n.get()), "") << n->Label();
}

TEST(ChannelsLastPassTest, ValueReadAsWeightsIsNotMarked) {
  Net m;
  ir::Value* y1 = m.Conv("conv1", m.x);
  ir::Value* y2 = m.g.Op("Conv", "conv2", {m.x, y1});  // y1 as W
  SetType(y2, DataType::kFloat32, {1, 4, 1, 1});
  m.g.Out(y2);
  auto pass = CreateChannelsLastPass();
  EXPECT_FALSE(RunPass(*pass, m.g));
  EXPECT_EQ(m.g.OpTypes(), "Conv,Conv");
}

TEST(ChannelsLastPassTest, GraphOutputIsNotMarkedEvenWhenAConvReadsIt) {
  Net m;
  ir::Value* y1 = m.Conv("conv1", m.x);
  m.g.Out(m.Conv("conv2", y1));
  m.g.Out(y1);
  auto pass = CreateChannelsLastPass();
  EXPECT_FALSE(RunPass(*pass, m.g));
  EXPECT_EQ(m.g.OpTypes(), "Conv,Conv");
}

TEST(ChannelsLastPassTest, ValueCapturedByASubgraphIsNotMarked) {
  Net m;
  ir::Value* y1 = m.Conv("conv1", m.x);
  m.g.Out(m.Conv("conv2", y1));
  // An If whose branches read conv1's output by name from the enclosing graph.
  auto body = std::make_shared<ir::Graph>();
  ir::Value* captured = *body->AddValue(y1->name(), {});
  ir::Value* copy = *body->AddValue("copy", {});
  ASSERT_TRUE(body->AddNode("Identity", "", "id", 17, {captured}, {copy}).ok());
  body->outputs().push_back(copy);
  ir::Value* cond = m.g.In("cond", DataType::kBool, {});
  m.g.Out(m.g.Op("If", "if", {cond}, {{"then_branch", body}, {"else_branch", body}}));
  auto pass = CreateChannelsLastPass();
  EXPECT_FALSE(RunPass(*pass, m.g));
  EXPECT_EQ(m.g.OpTypes(), "Conv,Conv,If");
}

TEST(ChannelsLastPassTest, NonFloatOrNonTwoDimensionalConvsAreNotMarked) {
  // A 1-D conv chain (rank-3 tensors).
  {
    GraphBuilder g;
    ir::Value* x = g.In("x", DataType::kFloat32, {1, 2, 8});
    ir::Value* w = g.ConstF("w", {2, 2, 3}, std::vector<float>(12, 1.0f));
    ir::Value* y1 = g.Op("Conv", "c1", {x, w});
    SetType(y1, DataType::kFloat32, {1, 2, 6});
    ir::Value* y2 = g.Op("Conv", "c2", {y1, w});
    SetType(y2, DataType::kFloat32, {1, 2, 4});
    g.Out(y2);
    auto pass = CreateChannelsLastPass();
    EXPECT_FALSE(RunPass(*pass, g));
    EXPECT_EQ(g.OpTypes(), "Conv,Conv");
  }
  // A float16 chain.
  {
    GraphBuilder g;
    ir::Value* x = g.In("x", DataType::kFloat16, {1, 2, 8, 8});
    ir::Value* w = g.In("w", DataType::kFloat16, {2, 2, 1, 1});
    ir::Value* y1 = g.Op("Conv", "c1", {x, w});
    SetType(y1, DataType::kFloat16, {1, 2, 8, 8});
    ir::Value* y2 = g.Op("Conv", "c2", {y1, w});
    SetType(y2, DataType::kFloat16, {1, 2, 8, 8});
    g.Out(y2);
    auto pass = CreateChannelsLastPass();
    EXPECT_FALSE(RunPass(*pass, g));
    EXPECT_EQ(g.OpTypes(), "Conv,Conv");
  }
}

TEST(ChannelsLastPassTest, RunningTwiceChangesNothingTheSecondTime) {
  Net m;
  m.ResidualBlock();
  auto pass = CreateChannelsLastPass();
  EXPECT_TRUE(RunPass(*pass, m.g));
  const std::string types = m.g.OpTypes();
  std::vector<std::string> flags;
  for (const auto& n : m.g.graph.nodes()) flags.push_back(Flags(n.get()));
  EXPECT_EQ(flags, (std::vector<std::string>{"y", "xy", "y", "xz"}));
  EXPECT_FALSE(RunPass(*pass, m.g));
  EXPECT_EQ(m.g.OpTypes(), types);
  std::vector<std::string> again;
  for (const auto& n : m.g.graph.nodes()) again.push_back(Flags(n.get()));
  EXPECT_EQ(again, flags);
}

TEST(ChannelsLastPassTest, StaleFlagsAreDroppedWhenTheValueGainsAnotherReader) {
  Net m;
  ir::Value* y1 = m.Conv("conv1", m.x);
  m.g.Out(m.Conv("conv2", y1));
  auto pass = CreateChannelsLastPass();
  EXPECT_TRUE(RunPass(*pass, m.g));
  EXPECT_EQ(Flags(NodeAt(m.g, 0)), "y");
  m.g.Out(y1);  // now a graph output: must be stored NCHW again
  EXPECT_TRUE(RunPass(*pass, m.g));
  EXPECT_EQ(m.g.OpTypes(), "FusedConv,FusedConv");
  EXPECT_EQ(Flags(NodeAt(m.g, 0)), "");
  EXPECT_EQ(Flags(NodeAt(m.g, 1)), "");
}

TEST(ChannelsLastPassTest, ConvTurnedIntoFusedConvKeepsItsAttributesAndOrigins) {
  GraphBuilder g;
  ir::Value* x = g.In("x", DataType::kFloat32, {1, 4, 9, 9});
  ir::Value* w = g.ConstF("w", {4, 2, 3, 3}, std::vector<float>(72, 0.5f));
  ir::Value* y1 = g.Op("Conv", "conv1", {x, w},
                       {{"kernel_shape", std::vector<int64_t>{3, 3}},
                        {"strides", std::vector<int64_t>{2, 2}},
                        {"dilations", std::vector<int64_t>{1, 1}},
                        {"group", int64_t{2}},
                        {"auto_pad", std::string("SAME_UPPER")}});
  SetType(y1, DataType::kFloat32, {1, 4, 5, 5});
  ir::Node* conv1 = g.graph.nodes().front().get();
  ASSERT_NE(conv1, nullptr);
  conv1->add_origins({"bn1"});  // as conv_bn_fold leaves it
  const std::map<std::string, ir::Attribute> attrs = conv1->attrs();
  ir::Value* y2 = g.Op("Conv", "conv2", {y1, w}, {{"group", int64_t{2}}});
  SetType(y2, DataType::kFloat32, {1, 4, 3, 3});
  g.Out(y2);
  auto pass = CreateChannelsLastPass();
  PassContext ctx;
  EXPECT_TRUE(RunPass(*pass, g, ctx));
  EXPECT_FALSE(ctx.log.empty());
  const ir::Node* fused = NodeAt(g, 0);
  ASSERT_NE(fused, nullptr);
  EXPECT_EQ(fused->op_type(), "FusedConv");
  EXPECT_EQ(fused->name(), "conv1");
  EXPECT_EQ(fused->origins(), (testing::Names{"conv1", "bn1"}));
  for (const auto& [name, value] : attrs) ASSERT_TRUE(fused->has_attr(name)) << name;
  EXPECT_EQ(fused->attr_ints("kernel_shape"), (std::vector<int64_t>{3, 3}));
  EXPECT_EQ(fused->attr_ints("strides"), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(fused->attr_ints("dilations"), (std::vector<int64_t>{1, 1}));
  EXPECT_TRUE(fused->has_attr("group"));
  EXPECT_EQ(fused->attr_int("group"), 2);
  EXPECT_TRUE(fused->has_attr("auto_pad"));
  EXPECT_EQ(fused->attr_string("auto_pad"), "SAME_UPPER");
  EXPECT_EQ(fused->attrs().size(), attrs.size() + 2);  // + activation, kiln_y_nhwc
  EXPECT_TRUE(fused->has_attr("activation"));
  EXPECT_EQ(fused->attr_string("activation"), "");
  EXPECT_EQ(Flags(fused), "y");
  const ir::Node* second = NodeAt(g, 1);
  ASSERT_NE(second, nullptr);
  EXPECT_EQ(second->origins(), (testing::Names{"conv2"}));
  EXPECT_TRUE(second->has_attr("group"));
  EXPECT_EQ(second->attr_int("group"), 2);
  EXPECT_EQ(Flags(second), "x");
}

TEST(ChannelsLastPassTest, MarkedGraphPassesShapeInferenceAndBadFlagsAreRejected) {
  Net m;
  ir::Value* y1 = m.Conv("conv1", m.x);
  ir::Value* z = m.Conv("shortcut", m.x);
  m.g.Out(m.Fused("block", y1, z));
  auto pass = CreateChannelsLastPass();
  EXPECT_TRUE(RunPass(*pass, m.g));
  Status ok = m.g.Infer();  // the FusedConv schema accepts the flags it sets
  EXPECT_TRUE(ok.ok()) << ok.message();
  EXPECT_EQ(Flags(NodeAt(m.g, 2)), "xz");
  // A flag other than 0 / 1 is refused by the schema, naming the attribute.
  m.g.graph.nodes().back()->set_attr(kZ, int64_t{2});
  Status bad = m.g.Infer();
  EXPECT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find(kZ), std::string::npos) << bad.message();
  // So is one set on a residual that is absent.
  m.g.graph.nodes().back()->set_attr(kZ, int64_t{1});
  m.g.graph.nodes().back()->set_input(3, nullptr);
  Status absent = m.g.Infer();
  EXPECT_FALSE(absent.ok());
  EXPECT_NE(absent.message().find("absent"), std::string::npos) << absent.message();
}

// The bf16 storage marks a node carries, as "xyz" letters ("" for none).
std::string Bf16Flags(const ir::Node* n) {
  std::string s;
  for (const char* t : {"x", "y", "z"}) {
    const std::string a = std::string("kiln_") + t + "_bf16";
    if (n->has_attr(a)) s += n->attr_int(a) == 1 ? t : "?";
  }
  return s;
}

// Every node's NHWC flags and bf16 storage flags, in graph order.
std::pair<std::vector<std::string>, std::vector<std::string>> AllFlags(const GraphBuilder& g) {
  std::vector<std::string> nhwc, bf16;
  for (const auto& n : g.graph.nodes()) {
    nhwc.push_back(Flags(n.get()));
    bf16.push_back(Bf16Flags(n.get()));
  }
  return {nhwc, bf16};
}

TEST(ChannelsLastPassTest, Bf16ModelStoresTheNhwcValuesAsBf16) {
  Net m;
  ir::Value* y1 = m.ResidualBlock();
  auto pass = CreateChannelsLastPass();
  PassContext ctx;
  ctx.matrix_bf16 = true;
  EXPECT_TRUE(RunPass(*pass, m.g, ctx));
  const auto [nhwc, bf16] = AllFlags(m.g);
  // Exactly the values kept NHWC; the graph's input and output stay float32 NCHW.
  EXPECT_EQ(nhwc, (std::vector<std::string>{"y", "xy", "y", "xz"}));
  EXPECT_EQ(bf16, nhwc);
  EXPECT_EQ(y1->dtype(), DataType::kFloat32);  // the dtype stays; only the storage changes
  Status ok = m.g.Infer();
  EXPECT_TRUE(ok.ok()) << ok.message();
  EXPECT_FALSE(RunPass(*pass, m.g, ctx));  // idempotent
  // Compiled again for fp32, the pass drops the bf16 marks and keeps the NHWC ones.
  EXPECT_TRUE(RunPass(*pass, m.g));
  for (const auto& n : m.g.graph.nodes()) EXPECT_EQ(Bf16Flags(n.get()), "") << n->name();
  EXPECT_EQ(Flags(NodeAt(m.g, 3)), "xz");
}

TEST(ChannelsLastPassTest, Bf16MarkWithoutItsNhwcMarkIsRejected) {
  Net m;
  ir::Value* y1 = m.Conv("conv1", m.x);
  m.g.Out(m.Conv("conv2", y1));
  auto pass = CreateChannelsLastPass();
  PassContext ctx;
  ctx.matrix_bf16 = true;
  EXPECT_TRUE(RunPass(*pass, m.g, ctx));
  ir::Node* second = m.g.graph.nodes().back().get();
  EXPECT_EQ(Bf16Flags(second), "x");
  second->set_attr("kiln_x_bf16", int64_t{2});
  Status bad = m.g.Infer();
  EXPECT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("kiln_x_bf16"), std::string::npos) << bad.message();
  second->set_attr("kiln_x_bf16", int64_t{1});
  second->erase_attr(kX);
  Status alone = m.g.Infer();
  EXPECT_FALSE(alone.ok());
  EXPECT_NE(alone.message().find("not kept NHWC"), std::string::npos) << alone.message();
}

// A 3x3 stride-1 pad-1 pool keeping [1,4,8,8].
ir::Value* Pool(Net& m, const std::string& op, const std::string& name, ir::Value* in) {
  ir::Value* y = m.g.Op(
      op, name, {in},
      {{"kernel_shape", std::vector<int64_t>{3, 3}}, {"pads", std::vector<int64_t>{1, 1, 1, 1}}});
  SetType(y, DataType::kFloat32, {1, 4, 8, 8});
  return y;
}

TEST(ChannelsLastPassTest, PoolsBetweenConvsKeepTheirXAndYNhwc) {
  Net m;
  ir::Value* c1 = m.Conv("conv1", m.x);
  ir::Value* p1 = Pool(m, "MaxPool", "max", c1);
  ir::Value* p2 = Pool(m, "AveragePool", "avg", p1);
  m.g.Out(m.Conv("conv2", p2));
  auto pass = CreateChannelsLastPass();
  PassContext ctx;
  ctx.matrix_bf16 = true;
  EXPECT_TRUE(RunPass(*pass, m.g, ctx));
  EXPECT_EQ(m.g.OpTypes(), "FusedConv,MaxPool,AveragePool,FusedConv");
  const auto [nhwc, bf16] = AllFlags(m.g);
  EXPECT_EQ(nhwc, (std::vector<std::string>{"y", "xy", "xy", "x"}));
  EXPECT_EQ(bf16, nhwc);
  const ir::Node* max = NodeAt(m.g, 1);
  EXPECT_EQ(max->domain(), "com.kiln");  // ONNX nodes never carry Kiln attributes
  EXPECT_EQ(max->name(), "max");
  EXPECT_EQ(max->attr_ints("kernel_shape"), (std::vector<int64_t>{3, 3}));
  EXPECT_EQ(max->outputs(), (std::vector<ir::Value*>{p1}));
  Status ok = m.g.Infer();  // the com.kiln pools' schemas accept what the pass wrote
  EXPECT_TRUE(ok.ok()) << ok.message();
  EXPECT_FALSE(RunPass(*pass, m.g, ctx));  // idempotent
}

TEST(ChannelsLastPassTest, PoolWhoseIndicesAreReadIsNotMarkedOneFeedingAnotherOpKeepsYPlain) {
  Net m;
  ir::Value* c1 = m.Conv("conv1", m.x);
  auto outs = m.g.OpN(
      "MaxPool", "max", {c1}, 2,
      {{"kernel_shape", std::vector<int64_t>{3, 3}}, {"pads", std::vector<int64_t>{1, 1, 1, 1}}});
  SetType(outs[0], DataType::kFloat32, {1, 4, 8, 8});
  SetType(outs[1], DataType::kInt64, {1, 4, 8, 8});
  m.g.Out(m.Conv("conv2", outs[0]));
  m.g.Out(outs[1]);
  ir::Value* p2 = Pool(m, "AveragePool", "avg", m.Conv("conv3", m.x));
  m.g.Out(m.g.Op("Relu", "relu", {p2}));
  auto pass = CreateChannelsLastPass();
  EXPECT_TRUE(RunPass(*pass, m.g));
  for (const auto& n : m.g.graph.nodes()) {
    if (n->name() == "max") {  // its Indices are read: an ONNX MaxPool, conv1's Y plain
      EXPECT_EQ(n->domain(), "");
      EXPECT_EQ(Flags(n.get()), "");
    } else if (n->name() == "avg") {  // reads conv3's Y NHWC, writes its own Y plain for Relu
      EXPECT_EQ(n->domain(), "com.kiln");
      EXPECT_EQ(Flags(n.get()), "x");
    } else if (n->name() == "conv1") {
      EXPECT_EQ(Flags(n.get()), "");
    }
  }
}

}  // namespace
}  // namespace kiln::compiler
