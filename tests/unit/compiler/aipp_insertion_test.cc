// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "compiler/passes/aipp_insertion.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "tests/unit/compiler/pass_test_util.h"

namespace kiln::compiler {
namespace {

using ir::DataType;
using testing::GraphBuilder;

AippConfig Static(AippInputFormat format) {
  AippConfig c;
  c.aipp_mode = AippMode::kStatic;
  c.input_format = format;
  return c;
}

// data float32 [1,3,224,224] -> Relu -> y.
struct Model {
  explicit Model(DataType dtype = DataType::kFloat32,
                 std::vector<int64_t> dims = {1, 3, 224, 224}) {
    x = g.In("data", dtype, std::move(dims));
    y = g.Op("Relu", "relu", {x});
    g.Out(y);
    EXPECT_TRUE(g.Infer().ok());
  }
  GraphBuilder g;
  ir::Value* x = nullptr;
  ir::Value* y = nullptr;
};

Result<bool> Insert(Model& m, std::vector<AippConfig> configs) {
  PassContext ctx;
  auto changed = CreateAippInsertionPass(std::move(configs))->Run(m.g.graph, ctx);
  if (changed.ok() && *changed) {
    EXPECT_TRUE(m.g.Infer().ok());
  }
  return changed;
}

// The input keeps its name and becomes the NV12 image (rows 1.5 H); an Aipp node in front of
// the model makes the float32 NCHW tensor, with every default resolved.
TEST(AippInsertionPassTest, StaticYuv420SpBecomesTheFirstNode) {
  Model m;
  AippConfig c = Static(AippInputFormat::kYuv420SpU8);
  c.src_image_size_w = 250;
  c.src_image_size_h = 240;
  c.crop = true;
  c.load_start_pos_w = 10;
  c.load_start_pos_h = 8;
  c.csc_switch = true;
  c.min_chn = {123.675f, 116.28f, 103.53f, 0};
  auto changed = Insert(m, {c});
  ASSERT_TRUE(changed.ok()) << changed.status().message();
  EXPECT_TRUE(*changed);
  EXPECT_EQ(m.g.OpTypes(), "Aipp,Relu");
  EXPECT_EQ(m.x->name(), "data");
  EXPECT_EQ(m.x->dtype(), DataType::kUint8);
  EXPECT_EQ(m.x->shape().Sizes(), (std::vector<int64_t>{1, 360, 250, 1}));
  const ir::Node* aipp = m.g.graph.nodes().front().get();
  EXPECT_EQ(aipp->domain(), "com.kiln");
  EXPECT_EQ(aipp->name(), "data_kiln_aipp");
  EXPECT_EQ(aipp->attr_string("input_format"), "YUV420SP_U8");
  EXPECT_EQ(aipp->attr_ints("src_image_size"), (std::vector<int64_t>{250, 240}));
  // crop_size 0 is the input's W and H.
  EXPECT_EQ(aipp->attr_ints("crop"), (std::vector<int64_t>{10, 8, 224, 224}));
  EXPECT_FALSE(aipp->has_attr("padding"));
  EXPECT_EQ(aipp->attr_ints("csc_matrix"),
            (std::vector<int64_t>{298, 516, 0, 298, -100, -208, 298, 0, 409}));
  EXPECT_EQ(aipp->attr_ints("csc_input_bias"), (std::vector<int64_t>{16, 128, 128}));
  EXPECT_EQ(aipp->attr_floats("min_chn")[1], 116.28f);
  EXPECT_EQ(aipp->attr_int("to"), static_cast<int64_t>(DataType::kFloat32));
  const ir::Value* model_in = aipp->output(0);
  EXPECT_EQ(model_in->name(), "data_kiln_aipp");
  EXPECT_EQ(model_in->dtype(), DataType::kFloat32);
  EXPECT_EQ(model_in->shape().Sizes(), (std::vector<int64_t>{1, 3, 224, 224}));
  EXPECT_EQ(m.y->producer()->input(0), model_in);
}

// Source size 0 is the input's; padding shrinks nothing the model sees; a dynamic N stays.
TEST(AippInsertionPassTest, RgbWithPaddingKeepsADynamicBatch) {
  Model m(DataType::kFloat32, {-1, 3, 32, 40});
  AippConfig c = Static(AippInputFormat::kRgb888U8);
  c.src_image_size_w = 36;
  c.src_image_size_h = 30;
  c.padding = true;
  c.left_padding_size = 4;
  c.top_padding_size = 2;
  c.padding_value = 0.5f;
  auto changed = Insert(m, {c});
  ASSERT_TRUE(changed.ok()) << changed.status().message();
  EXPECT_EQ(m.x->shape().Sizes(), (std::vector<int64_t>{-1, 30, 36, 3}));
  const ir::Node* aipp = m.g.graph.nodes().front().get();
  EXPECT_EQ(aipp->attr_ints("padding"), (std::vector<int64_t>{2, 0, 4, 0}));
  EXPECT_EQ(aipp->attr_float("padding_value"), 0.5f);
  EXPECT_EQ(aipp->output(0)->shape().Sizes(), (std::vector<int64_t>{-1, 3, 32, 40}));
}

// A dynamic block: the input becomes the images' bytes and a last input carries the parameters.
TEST(AippInsertionPassTest, DynamicBlockAddsTheParameterInput) {
  Model m(DataType::kFloat32, {2, 3, 224, 224});
  AippConfig c;
  c.aipp_mode = AippMode::kDynamic;
  c.max_src_image_size = 1 << 20;
  auto changed = Insert(m, {c});
  ASSERT_TRUE(changed.ok()) << changed.status().message();
  EXPECT_TRUE(*changed);
  EXPECT_EQ(m.g.OpTypes(), "DynamicAipp,Relu");
  EXPECT_EQ(m.x->dtype(), DataType::kUint8);
  EXPECT_EQ(m.x->shape().Sizes(), (std::vector<int64_t>{1 << 20}));
  ASSERT_EQ(m.g.graph.inputs().size(), 2u);
  const ir::Value* params = m.g.graph.inputs()[1];
  EXPECT_EQ(params->name(), "ascend_dynamic_aipp_data");
  EXPECT_EQ(params->shape().Sizes(), (std::vector<int64_t>{64 + 2 * 96}));  // CANN's block
  const ir::Node* aipp = m.g.graph.nodes().front().get();
  EXPECT_EQ(aipp->attr_ints("shape"), (std::vector<int64_t>{2, 3, 224, 224}));
  EXPECT_EQ(aipp->output(0)->shape().Sizes(), (std::vector<int64_t>{2, 3, 224, 224}));

  Model dynamic_batch(DataType::kFloat32, {-1, 3, 8, 8});
  auto r = Insert(dynamic_batch, {c});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("fixed batch"), std::string::npos) << r.status().message();
}

// Refusals name the block and the input, and leave the graph as it was.
TEST(AippInsertionPassTest, RefusesWhatAippCannotFeed) {
  Model ints(DataType::kInt64, {1, 3, 8, 8});
  auto r = Insert(ints, {Static(AippInputFormat::kRgb888U8)});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), code::kInvalidParam);
  EXPECT_NE(r.status().message().find("aipp_op block 0 for input 'data'"), std::string::npos)
      << r.status().message();
  EXPECT_NE(r.status().message().find("int64"), std::string::npos) << r.status().message();
  EXPECT_EQ(ints.g.OpTypes(), "Relu");

  Model gray(DataType::kFloat32, {1, 1, 8, 8});
  AippConfig csc = Static(AippInputFormat::kYuv400U8);
  csc.csc_switch = true;
  r = Insert(gray, {csc});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("csc_switch"), std::string::npos) << r.status().message();
  EXPECT_EQ(gray.x->dtype(), DataType::kFloat32);
}

}  // namespace
}  // namespace kiln::compiler
