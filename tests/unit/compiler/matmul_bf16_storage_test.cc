// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// matmul_bf16_storage: in a bf16 model, a float32 value written by a constant-weights FusedMatMul
// and read only as A by constant-weights FusedMatMuls is stored bf16 (kiln_y_bf16 on the writer,
// kiln_a_bf16 on the readers); any other reader, a graph output or a float32 model keeps it
// float32.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "compiler/passes/passes.h"
#include "tests/unit/compiler/fusion_test_util.h"

namespace kiln::compiler {
namespace {

using ir::DataType;
using testing::GraphBuilder;
using testing::RunPass;

// x [4, 8] -> MatMul W1 [8, 16] + b1 -> Relu = h -> MatMul W2 [16, 8] + b2 = y: after
// bias_activation_fusion, two FusedMatMuls (a transformer's feed-forward block).
struct Mlp {
  GraphBuilder g;
  ir::Value* x;
  ir::Value* h;
  Mlp() {
    x = g.In("x", DataType::kFloat32, {4, 8});
    h = g.Op("Relu", "act",
             {g.Op("Add", "add1",
                   {g.Op("MatMul", "mm1", {x, g.ConstF("w1", {8, 16}, std::vector<float>(128))}),
                    g.ConstF("b1", {16}, std::vector<float>(16))})});
  }
  ir::Value* Second(const std::string& name, ir::Value* a) {
    return g.Op("Add", name + "_add",
                {g.Op("MatMul", name, {a, g.ConstF(name + "_w", {16, 8}, std::vector<float>(128))}),
                 g.ConstF(name + "_b", {8}, std::vector<float>(8))});
  }
  // Infers, fuses the bias and activation, runs the pass: whether it changed the graph.
  bool Run(bool bf16) {
    Status ok = g.Infer();
    EXPECT_TRUE(ok.ok()) << ok.message();
    RunPass(*CreateBiasActivationFusionPass(), g);
    PassContext ctx;
    ctx.matrix_bf16 = bf16;
    return RunPass(*CreateMatMulBf16StoragePass(), g, ctx);
  }
  // "a" / "y" / "ay" / "": the node's storage flags.
  std::string Flags(const std::string& name) {
    for (const auto& n : g.graph.nodes()) {
      if (n->name() != name) continue;
      EXPECT_EQ(n->op_type(), "FusedMatMul") << name;
      return std::string(n->attr_int("kiln_a_bf16") == 1 ? "a" : "") +
             (n->attr_int("kiln_y_bf16") == 1 ? "y" : "");
    }
    ADD_FAILURE() << "no node " << name;
    return "?";
  }
};

TEST(MatMulBf16StoragePassTest, TheValueBetweenTwoProductsIsStoredBf16) {
  Mlp m;
  m.g.Out(m.Second("mm2", m.h));
  auto pass = CreateMatMulBf16StoragePass();
  EXPECT_STREQ(pass->name(), "matmul_bf16_storage");
  EXPECT_TRUE(m.Run(true));
  EXPECT_EQ(m.g.OpTypes(), "FusedMatMul,FusedMatMul");
  EXPECT_EQ(m.Flags("mm1"), "y");
  EXPECT_EQ(m.Flags("mm2"), "a");               // its output, the graph's, stays float32
  EXPECT_EQ(m.h->dtype(), DataType::kFloat32);  // the dtype stays; only the storage changes
  Status ok = m.g.Infer();                      // FusedMatMul's schema takes the flags
  EXPECT_TRUE(ok.ok()) << ok.message();
  PassContext ctx;
  ctx.matrix_bf16 = true;
  EXPECT_FALSE(RunPass(*pass, m.g, ctx));  // idempotent
}

TEST(MatMulBf16StoragePassTest, EveryReaderMustBeAProductReadingItAsA) {
  {  // two product readers (the projections of one value): all of them read bf16
    Mlp m;
    m.g.Out(m.Second("q", m.h));
    m.g.Out(m.Second("k", m.h));
    EXPECT_TRUE(m.Run(true));
    EXPECT_EQ(m.Flags("mm1"), "y");
    EXPECT_EQ(m.Flags("q"), "a");
    EXPECT_EQ(m.Flags("k"), "a");
  }
  {  // a residual Add reads it too
    Mlp m;
    m.g.Out(m.Second("mm2", m.h));
    m.g.Out(m.g.Op("Add", "residual", {m.h, m.h}));
    EXPECT_FALSE(m.Run(true));
    EXPECT_EQ(m.Flags("mm1"), "");
  }
  {  // it is a graph output itself
    Mlp m;
    m.g.Out(m.Second("mm2", m.h));
    m.g.Out(m.h);
    EXPECT_FALSE(m.Run(true));
  }
  {  // read as B by a product of two computed values (attention's kind), which stays float32
    Mlp m;
    m.g.Out(m.g.Op("MatMul", "scores", {m.g.In("q", DataType::kFloat32, {16, 4}), m.h}));
    EXPECT_FALSE(m.Run(true));
  }
  {  // read as A by a product whose B is computed
    Mlp m;
    ir::Value* w = m.g.In("w", DataType::kFloat32, {16, 8});
    m.g.Out(
        m.g.Op("Add", "mm2_add",
               {m.g.Op("MatMul", "mm2", {m.h, w}), m.g.ConstF("b2", {8}, std::vector<float>(8))}));
    EXPECT_FALSE(m.Run(true));
  }
}

TEST(MatMulBf16StoragePassTest, AFloat32ModelKeepsFloat32Storage) {
  Mlp m;
  m.g.Out(m.Second("mm2", m.h));
  EXPECT_FALSE(m.Run(false));
  EXPECT_EQ(m.Flags("mm1"), "");
  EXPECT_EQ(m.Flags("mm2"), "");
  // Compiled for bf16 and then again for float32, the marks go.
  PassContext bf16;
  bf16.matrix_bf16 = true;
  EXPECT_TRUE(RunPass(*CreateMatMulBf16StoragePass(), m.g, bf16));
  EXPECT_EQ(m.Flags("mm1"), "y");
  EXPECT_TRUE(RunPass(*CreateMatMulBf16StoragePass(), m.g));
  EXPECT_EQ(m.Flags("mm1"), "");
  EXPECT_EQ(m.Flags("mm2"), "");
}

TEST(MatMulBf16StoragePassTest, TheSchemaRefusesAFlagOtherThanZeroOrOne) {
  Mlp m;
  m.g.Out(m.Second("mm2", m.h));
  EXPECT_TRUE(m.Run(true));
  for (const auto& n : m.g.graph.nodes()) {
    if (n->name() == "mm2") n->set_attr("kiln_a_bf16", int64_t{2});
  }
  Status bad = m.g.Infer();
  EXPECT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("kiln_a_bf16"), std::string::npos) << bad.message();
}

}  // namespace
}  // namespace kiln::compiler
