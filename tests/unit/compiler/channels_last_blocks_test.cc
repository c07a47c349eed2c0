// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// channels_last's channel blocks: float values kept NHWC are stored in blocks of 16 channels
// (values of other channel counts stay NHWC) — kiln_x_cblock / kiln_y_cblock / kiln_z_cblock
// beside the NHWC marks, kiln_cblock on a transparent node that computes on blocks — never in a
// bf16 model, and at batch 1 not where a conv would then read or write both blocks and NHWC
// unless the NHWC side is small; FusedConv's and the transparent ops' definitions refuse marks
// that do not fit their tensors.
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
using testing::SetType;

// "x16 y16 z8"-style: each of X, Y, Z with its NHWC mark and its block (0 when NHWC unblocked).
std::string Blocks(const ir::Node* n) {
  std::string s;
  for (const char* t : {"x", "y", "z"}) {
    const std::string nhwc = std::string("kiln_") + t + "_nhwc";
    const std::string block = std::string("kiln_") + t + "_cblock";
    if (!n->has_attr(nhwc)) {
      if (n->has_attr(block)) s += std::string(s.empty() ? "" : " ") + t + "?";
      continue;
    }
    s += std::string(s.empty() ? "" : " ") + t +
         std::to_string(n->has_attr(block) ? n->attr_int(block) : 0);
  }
  return s;
}

std::vector<std::string> AllBlocks(const GraphBuilder& g) {
  std::vector<std::string> out;
  for (const auto& n : g.graph.nodes()) out.push_back(Blocks(n.get()));
  return out;
}

// A float32 input of `batch` x `channels` x 8 x 8 and 1x1 convolutions between channel counts.
struct Net {
  explicit Net(int64_t batch, int64_t channels) : n(batch) {
    x = g.In("x", DataType::kFloat32, {batch, channels, 8, 8});
  }
  ir::Value* Conv(const std::string& name, ir::Value* in, int64_t c_in, int64_t c_out) {
    ir::Value* w = g.ConstF(name + "_w", {c_out, c_in, 1, 1},
                            std::vector<float>(static_cast<size_t>(c_out * c_in), 0.125f));
    ir::Value* y = g.Op("Conv", name, {in, w});
    SetType(y, DataType::kFloat32, {n, c_out, 8, 8});
    return y;
  }
  ir::Value* Pool(const std::string& name, ir::Value* in, int64_t c) {
    ir::Value* y = g.Op(
        "MaxPool", name, {in},
        {{"kernel_shape", std::vector<int64_t>{3, 3}}, {"pads", std::vector<int64_t>{1, 1, 1, 1}}});
    SetType(y, DataType::kFloat32, {n, c, 8, 8});
    return y;
  }
  // A com.kiln FusedConv(in, w, -, z), 1x1, no activation.
  ir::Value* Residual(const std::string& name, ir::Value* in, ir::Value* z, int64_t c) {
    ir::Value* w =
        g.ConstF(name + "_w", {c, c, 1, 1}, std::vector<float>(static_cast<size_t>(c * c), 0.125f));
    ir::Value* y = g.graph.AddUniqueValue(name + "_out", {});
    ir::Node* node = *g.graph.AddNode("FusedConv", "com.kiln", name, 1, {in, w, nullptr, z}, {y});
    node->set_attr("activation", std::string());
    SetType(y, DataType::kFloat32, {n, c, 8, 8});
    return y;
  }

  int64_t n;
  GraphBuilder g;
  ir::Value* x = nullptr;
};

TEST(ChannelsLastBlocksTest, BatchOfTwoStoresConvToConvValuesInBlocksOf16) {
  Net m(2, 16);
  ir::Value* a = m.Conv("a", m.x, 16, 32);
  ir::Value* p = m.Pool("p", a, 32);
  ir::Value* b = m.Conv("b", p, 32, 32);
  m.g.Out(m.Residual("c", b, a, 32));
  auto pass = CreateChannelsLastPass();
  EXPECT_TRUE(RunPass(*pass, m.g));
  EXPECT_EQ(m.g.OpTypes(), "FusedConv,MaxPool,FusedConv,FusedConv");
  // x is a graph input and c's output a graph output: both stay NCHW.
  EXPECT_EQ(AllBlocks(m.g), (std::vector<std::string>{"y16", "x16 y16", "x16 y16", "x16 z16"}));
  Status ok = m.g.Infer();  // the definitions accept what the pass wrote
  EXPECT_TRUE(ok.ok()) << ok.message();
  EXPECT_FALSE(RunPass(*pass, m.g));  // idempotent
}

TEST(ChannelsLastBlocksTest, FromBatchTwoChannelsNotAMultipleOf16StayNhwcBesideBlocksOf16) {
  Net m(8, 16);
  ir::Value* a = m.Conv("a", m.x, 16, 24);  // 24 channels: NHWC, no block (not blocks of 8)
  ir::Value* b = m.Conv("b", a, 24, 32);    // 32: blocks of 16
  ir::Value* c = m.Conv("c", b, 32, 12);    // 12 channels: NHWC, no block
  m.g.Out(m.Conv("d", c, 12, 16));
  auto pass = CreateChannelsLastPass();
  EXPECT_TRUE(RunPass(*pass, m.g));
  EXPECT_EQ(AllBlocks(m.g), (std::vector<std::string>{"y0", "x0 y16", "x16 y0", "x0"}));
  Status ok = m.g.Infer();
  EXPECT_TRUE(ok.ok()) << ok.message();
}

// a -> (b, c) -> Add -> d -> e, at batch `n`: the Add's values stay NHWC unblocked.
std::vector<std::string> AddBetweenConvs(int64_t n) {
  Net m(n, 16);
  ir::Value* a = m.Conv("a", m.x, 16, 16);
  ir::Value* b = m.Conv("b", a, 16, 16);
  ir::Value* c = m.Conv("c", a, 16, 16);
  ir::Value* sum = m.g.Op("Add", "add", {b, c});
  SetType(sum, DataType::kFloat32, {n, 16, 8, 8});
  ir::Value* d = m.Conv("d", sum, 16, 16);
  m.g.Out(m.Conv("e", d, 16, 16));
  auto pass = CreateChannelsLastPass();
  EXPECT_TRUE(RunPass(*pass, m.g));
  Status ok = m.g.Infer();
  EXPECT_TRUE(ok.ok()) << ok.message();
  const ir::Node* add = NodeAt(m.g, 3);
  EXPECT_EQ(add->domain(), "com.kiln");
  EXPECT_EQ(add->attr_int("kiln_nhwc"), 1);
  EXPECT_EQ(add->attr_int("kiln_cblock"), 16);
  return AllBlocks(m.g);
}

TEST(ChannelsLastBlocksTest, TransparentNodesAndBf16KeepPlainNhwcAndBatchOneNeverMixes) {
  {  // batch 1: a chain of convs is blocked, in blocks of 16 only
    Net m(1, 16);
    m.g.Out(m.Conv("b", m.Conv("a", m.x, 16, 16), 16, 16));
    auto pass = CreateChannelsLastPass();
    EXPECT_TRUE(RunPass(*pass, m.g));
    EXPECT_EQ(AllBlocks(m.g), (std::vector<std::string>{"y16", "x16"}));
    Net eights(1, 16);
    eights.g.Out(eights.Conv("b", eights.Conv("a", eights.x, 16, 24), 24, 16));
    EXPECT_TRUE(RunPass(*pass, eights.g));
    EXPECT_EQ(AllBlocks(eights.g), (std::vector<std::string>{"y0", "x0"}));
  }
  // The Add computes on blocks too (kiln_cblock), so its values are blocked with the others at
  // either batch.
  for (int64_t n : {1, 2}) {
    EXPECT_EQ(AddBetweenConvs(n),
              (std::vector<std::string>{"y16", "x16 y16", "x16 y16", "", "x16 y16", "x16"}));
  }
  {  // a bf16 model stores its NHWC values as bf16, never in blocks
    Net m(8, 16);
    m.g.Out(m.Conv("b", m.Conv("a", m.x, 16, 16), 16, 16));
    auto pass = CreateChannelsLastPass();
    PassContext ctx;
    ctx.matrix_bf16 = true;
    EXPECT_TRUE(RunPass(*pass, m.g, ctx));
    EXPECT_EQ(AllBlocks(m.g), (std::vector<std::string>{"y0", "x0"}));
    // Compiled again for fp32, the values get their blocks.
    EXPECT_TRUE(RunPass(*pass, m.g));
    EXPECT_EQ(AllBlocks(m.g), (std::vector<std::string>{"y16", "x16"}));
  }
}

// A Concat of two convs' outputs over the channels, read by a conv, at batch 1: blocked like the
// convs' values (a Fire module), with a nearest Resize in the group too. With a ChannelShuffle
// (it moves channels across blocks) in the group it stays NHWC, and so, at batch 1, do the convs
// beside it.
TEST(ChannelsLastBlocksTest, ConcatAndSplitGroupsAreBlockedWhereEveryNodeComputesOnBlocks) {
  for (const char* with : {"", "Resize", "ChannelShuffle"}) {
    SCOPED_TRACE(std::string("with ") + with);
    const bool shuffle = std::string(with) == "ChannelShuffle";
    Net m(1, 16);
    ir::Value* a = m.Conv("a", m.x, 16, 16);
    ir::Value* b = m.Conv("b", a, 16, 32);
    ir::Value* c = m.Conv("c", a, 16, 48);
    if (std::string(with) == "Resize") {
      c = m.g.Op("Resize", "up", {c, nullptr, m.g.ConstF("scales", {4}, {1, 1, 1, 1})},
                 {{"mode", std::string("nearest")}});
      SetType(c, DataType::kFloat32, {1, 48, 8, 8});
    } else if (shuffle) {
      m.g.graph.opsets().emplace("com.kiln", 1);
      ir::Value* y = m.g.graph.AddUniqueValue("shuffled", {});
      ir::Node* n = *m.g.graph.AddNode("ChannelShuffle", "com.kiln", "shuffle", 1, {c}, {y});
      n->set_attr("group", int64_t{2});
      SetType(y, DataType::kFloat32, {1, 48, 8, 8});
      c = y;
    }
    ir::Value* cat = m.g.Op("Concat", "cat", {b, c}, {{"axis", int64_t{1}}});
    SetType(cat, DataType::kFloat32, {1, 80, 8, 8});
    m.g.Out(m.Conv("d", cat, 80, 16));
    auto pass = CreateChannelsLastPass();
    EXPECT_TRUE(RunPass(*pass, m.g));
    Status ok = m.g.Infer();
    ASSERT_TRUE(ok.ok()) << ok.message();
    const ir::Node* concat = cat->producer();
    EXPECT_EQ(concat->domain(), "com.kiln");
    EXPECT_EQ(concat->attr_int("kiln_nhwc"), 1);
    EXPECT_EQ(concat->has_attr("kiln_cblock") ? concat->attr_int("kiln_cblock") : 0,
              shuffle ? 0 : 16);
    EXPECT_EQ(Blocks(b->producer()), shuffle ? "x0 y0" : "x16 y16");
    EXPECT_FALSE(RunPass(*pass, m.g));  // idempotent
  }
}

// A chain of 256-channel convs at batch 1 with one 24-channel value (no whole blocks of 16) among
// them: its two convs read or write both blocks and NHWC while that value holds at most 1 % of
// the elements in blocks (ten 256-channel values), else (three) every value stays NHWC.
std::vector<std::string> ChainWithA24ChannelValue(int wide) {
  Net m(1, 16);
  ir::Value* v = m.Conv("in", m.x, 16, 256);
  for (int i = 1; i < wide - 1; ++i) v = m.Conv("w" + std::to_string(i), v, 256, 256);
  ir::Value* narrow = m.Conv("narrow", v, 256, 24);
  ir::Value* back = m.Conv("back", narrow, 24, 256);
  m.g.Out(m.Conv("out", back, 256, 16));
  auto pass = CreateChannelsLastPass();
  EXPECT_TRUE(RunPass(*pass, m.g));
  std::vector<std::string> all = AllBlocks(m.g);
  return {all.end() - 3, all.end()};
}

TEST(ChannelsLastBlocksTest, AtBatchOneASmallNhwcValueMayStayBesideBlocks) {
  EXPECT_EQ(ChainWithA24ChannelValue(10), (std::vector<std::string>{"x16 y0", "x0 y16", "x16"}));
  EXPECT_EQ(ChainWithA24ChannelValue(3), (std::vector<std::string>{"x0 y0", "x0 y0", "x0"}));
}

// A classifier's last conv (1000 channels, no whole blocks) read only by its global pool: its Y
// is stored plain, so the conv reads blocks; the pool stays ONNX's.
TEST(ChannelsLastBlocksTest, AConvOutputOnlyAGlobalPoolReadsGoesPlainBesideBlocks) {
  Net m(1, 16);
  ir::Value* a = m.Conv("a", m.x, 16, 64);
  ir::Value* logits = m.Conv("logits", m.Conv("b", a, 64, 64), 64, 1000);
  ir::Value* pooled = m.g.Op("GlobalAveragePool", "gap", {logits});
  SetType(pooled, DataType::kFloat32, {1, 1000, 1, 1});
  m.g.Out(m.g.Op("Flatten", "flat", {pooled}));
  auto pass = CreateChannelsLastPass();
  EXPECT_TRUE(RunPass(*pass, m.g));
  EXPECT_EQ(m.g.OpTypes(), "FusedConv,FusedConv,FusedConv,GlobalAveragePool,Flatten");
  EXPECT_EQ(AllBlocks(m.g), (std::vector<std::string>{"y16", "x16 y16", "x16", "", ""}));
}

TEST(ChannelsLastBlocksTest, DefinitionRefusesBlocksThatDoNotFitTheirTensor) {
  Net m(2, 16);
  m.g.Out(m.Conv("b", m.Conv("a", m.x, 16, 24), 24, 16));
  auto pass = CreateChannelsLastPass();
  EXPECT_TRUE(RunPass(*pass, m.g));
  ir::Node* second = m.g.graph.nodes().back().get();
  ASSERT_EQ(Blocks(second), "x0");
  struct Case {
    const char* attr;
    int64_t value;
    const char* message;
  };
  for (const Case& c : {Case{"kiln_x_cblock", 4, "must be the int 0, 8 or 16"},
                        Case{"kiln_x_cblock", 16, "24 channels, not a multiple"},
                        Case{"kiln_y_cblock", 8, "not kept NHWC"}}) {
    ir::Node* n = m.g.graph.nodes().back().get();
    n->set_attr(c.attr, c.value);
    Status bad = m.g.Infer();
    EXPECT_FALSE(bad.ok()) << c.attr << "=" << c.value;
    EXPECT_NE(bad.message().find(c.attr), std::string::npos) << bad.message();
    EXPECT_NE(bad.message().find(c.message), std::string::npos) << bad.message();
    EXPECT_TRUE(RunPass(*pass, m.g));  // the pass puts back what the graph calls for
    EXPECT_EQ(Blocks(n), "x0");
  }
  Net blocked(2, 16);  // a value of 32 channels between two convs: blocks of 16
  blocked.g.Out(blocked.Conv("b", blocked.Conv("a", blocked.x, 16, 32), 32, 16));
  EXPECT_TRUE(RunPass(*pass, blocked.g));
  second = blocked.g.graph.nodes().back().get();
  ASSERT_EQ(Blocks(second), "x16");
  second->set_attr("kiln_x_bf16", int64_t{1});
  Status both = blocked.g.Infer();
  EXPECT_FALSE(both.ok());
  EXPECT_NE(both.message().find("stored as bf16"), std::string::npos) << both.message();
}

// A transparent op's kiln_cblock: 8 or 16, beside kiln_nhwc, on channels that are whole blocks
// (or one).
TEST(ChannelsLastBlocksTest, DefinitionRefusesTransparentBlocksThatDoNotFit) {
  struct Case {
    const char* op;
    int64_t channels, block, nhwc;
    const char* message;  // null: accepted
  };
  for (const Case& c :
       {Case{"Relu", 32, 16, 1, nullptr}, Case{"Relu", 24, 8, 1, nullptr},
        Case{"Relu", 24, 16, 1, "not a multiple"},
        Case{"Relu", 32, 4, 1, "must be the int 0, 8 or 16"},
        Case{"Relu", 32, 16, 0, "'kiln_nhwc' is not 1"}, Case{"Resize", 32, 16, 1, nullptr}}) {
    SCOPED_TRACE(std::string(c.op) + " " + std::to_string(c.channels) + " in blocks of " +
                 std::to_string(c.block));
    GraphBuilder g;
    g.graph.opsets().emplace("com.kiln", 1);
    ir::Value* x = g.In("x", DataType::kFloat32, {1, c.channels, 4, 4});
    std::vector<ir::Value*> in = {x};
    if (std::string(c.op) == "Resize") {
      in.push_back(nullptr);
      in.push_back(g.ConstF("scales", {4}, {1, 1, 2, 2}));
    }
    ir::Value* y = g.graph.AddUniqueValue("y", {});
    ir::Node* n = *g.graph.AddNode(c.op, "com.kiln", "n", 1, in, {y});
    if (std::string(c.op) == "Resize") n->set_attr("mode", std::string("nearest"));
    n->set_attr("kiln_nhwc", c.nhwc);
    n->set_attr("kiln_cblock", c.block);
    g.Out(y);
    Status st = g.Infer();
    if (c.message == nullptr) {
      EXPECT_TRUE(st.ok()) << st.message();
    } else {
      EXPECT_FALSE(st.ok());
      EXPECT_NE(st.message().find(c.message), std::string::npos) << st.message();
    }
  }
}

}  // namespace
}  // namespace kiln::compiler
