// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// channels_last's channel blocks: float values kept NHWC only between convs and pools are stored
// in blocks of 16 channels (values of other channel counts stay NHWC; at batch 1 such a value
// leaves the whole model NHWC) — kiln_x_cblock / kiln_y_cblock / kiln_z_cblock beside the NHWC
// marks — never through a transparent node or in a bf16 model, and at batch 1 not where a conv
// would then read or write both blocks and NHWC; FusedConv's definition refuses marks that do not
// fit their tensor.
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
  // From batch 2 the values only between convs are blocked beside the Add's NHWC ones (b, c and d
  // convert); at batch 1 b, c and d would, so a's and d's outputs stay NHWC too.
  EXPECT_EQ(AddBetweenConvs(2),
            (std::vector<std::string>{"y16", "x16 y0", "x16 y0", "", "x0 y16", "x16"}));
  EXPECT_EQ(AddBetweenConvs(1),
            (std::vector<std::string>{"y0", "x0 y0", "x0 y0", "", "x0 y0", "x0"}));
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

}  // namespace
}  // namespace kiln::compiler
