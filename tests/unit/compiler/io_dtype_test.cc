// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "compiler/passes/io_dtype.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tests/unit/compiler/pass_test_util.h"

namespace kiln::compiler {
namespace {

using ir::DataType;
using testing::GraphBuilder;
using Values = std::vector<ir::Value*>;
using Names = std::vector<std::string>;
using Pairs = std::vector<std::pair<std::string, std::string>>;

// ONNX TensorProto.DataType numbers, written out rather than taken from DataType.
constexpr int64_t kOnnxFloat = 1;
constexpr int64_t kOnnxInt32 = 6;
constexpr int64_t kOnnxFloat16 = 10;

IoDtypeOptions AllOutputs(std::string type) {
  IoDtypeOptions o;
  o.all_outputs = std::move(type);
  return o;
}

IoDtypeOptions Fp16Inputs(Names inputs) {
  IoDtypeOptions o;
  o.fp16_inputs = std::move(inputs);
  return o;
}

IoDtypeOptions PerOutput(Pairs pairs) {
  IoDtypeOptions o;
  o.per_output = std::move(pairs);
  return o;
}

// Runs the pass; returns whether it reported a change (a failure fails the test).
bool Retype(GraphBuilder& g, IoDtypeOptions options, PassContext* ctx = nullptr) {
  PassContext local;
  auto changed = CreateIoDtypePass(std::move(options))->Run(g.graph, ctx ? *ctx : local);
  EXPECT_TRUE(changed.ok()) << changed.status().message();
  return changed.ok() && *changed;
}

// Runs the pass, expecting it to fail with `code`; returns the message.
std::string RetypeError(GraphBuilder& g, IoDtypeOptions options,
                        int expected_code = code::kInvalidParam) {
  PassContext ctx;
  auto changed = CreateIoDtypePass(std::move(options))->Run(g.graph, ctx);
  EXPECT_FALSE(changed.ok());
  if (changed.ok()) return "";
  EXPECT_EQ(changed.status().code(), expected_code);
  return changed.status().message();
}

std::string ParseError(const std::string& output_type, const std::string& fp16_nodes = "") {
  auto parsed = ParseIoDtypeFlags(output_type, fp16_nodes);
  EXPECT_FALSE(parsed.ok());
  if (parsed.ok()) return "";
  EXPECT_EQ(parsed.status().code(), code::kInvalidParam);
  return parsed.status().message();
}

// x float32 [2,3] -> Relu 'relu' -> y, the output; types inferred.
struct ReluModel {
  ReluModel() {
    g.Out(y);
    EXPECT_TRUE(g.Infer().ok());
  }
  GraphBuilder g;
  ir::Value* x = g.In("x", DataType::kFloat32, {2, 3});
  ir::Value* y = g.Op("Relu", "relu", {x});
  ir::Node* relu = y->producer();
};

// x float32 [5] -> TopK 'topk' (k = 2) -> values, indices; both outputs; types inferred.
struct TopKModel {
  TopKModel() {
    g.Out(out[0]);
    g.Out(out[1]);
    EXPECT_TRUE(g.Infer().ok());
  }
  GraphBuilder g;
  ir::Value* x = g.In("x", DataType::kFloat32, {5});
  Values out = g.OpN("TopK", "topk", {x, g.ConstI("k", {2})}, 2);
};

TEST(IoDtypePassTest, PassIsNamedIoDtype) {
  EXPECT_STREQ(CreateIoDtypePass({})->name(), "io_dtype");
}

TEST(IoDtypePassTest, Fp16OutputTypeAppendsACastThatKeepsTheOutputName) {
  ReluModel m;
  PassContext ctx;

  EXPECT_TRUE(Retype(m.g, AllOutputs("FP16"), &ctx));

  EXPECT_EQ(m.g.OpTypes(), "Relu,Cast");
  ASSERT_EQ(m.g.graph.outputs(), (Values{m.y}));
  EXPECT_EQ(m.y->name(), "relu_out0");
  EXPECT_EQ(m.y->dtype(), DataType::kFloat16);
  const ir::Node* cast = m.y->producer();
  ASSERT_NE(cast, nullptr);
  EXPECT_EQ(cast->op_type(), "Cast");
  EXPECT_EQ(cast->domain(), "");
  EXPECT_EQ(cast->name(), "relu_out0_kiln_cast");
  EXPECT_TRUE(cast->origins().empty());
  EXPECT_EQ(cast->opset(), 13);
  EXPECT_TRUE(cast->has_attr("to"));
  EXPECT_EQ(cast->attr_int("to"), kOnnxFloat16);
  // What Relu computed now has a fresh name and keeps float32.
  const ir::Value* pre = cast->input(0);
  ASSERT_NE(pre, nullptr);
  EXPECT_EQ(pre->name(), "relu_out0_kiln_pre_cast");
  EXPECT_EQ(pre->dtype(), DataType::kFloat32);
  EXPECT_EQ(m.g.graph.FindValue("relu_out0_kiln_pre_cast"), pre);
  EXPECT_EQ(m.g.graph.FindValue("relu_out0"), m.y);
  const ir::Node* relu = pre->producer();
  ASSERT_NE(relu, nullptr);
  EXPECT_EQ(relu->op_type(), "Relu");
  EXPECT_EQ(relu->name(), "relu");
  EXPECT_EQ(relu->origins(), (Names{"relu"}));
  EXPECT_EQ(relu->inputs(), (Values{m.x}));
  ASSERT_EQ(ctx.log.size(), 1u);
  EXPECT_EQ(ctx.log[0],
            "io_dtype: output 'relu_out0' float32 -> float16 by Cast "
            "'relu_out0_kiln_cast'");
  // Shape inference agrees with the types the pass set.
  ASSERT_TRUE(m.g.Infer().ok());
  EXPECT_EQ(m.y->dtype(), DataType::kFloat16);
  EXPECT_EQ(m.y->shape(), ir::Shape::Of({2, 3}));
}

TEST(IoDtypePassTest, OutputAlreadyOfTheTypeIsLeftAlone) {
  ReluModel m;

  EXPECT_FALSE(Retype(m.g, AllOutputs("FP32")));

  EXPECT_EQ(m.g.OpTypes(), "Relu");
  EXPECT_EQ(m.y->producer(), m.relu);
}

TEST(IoDtypePassTest, EmptyOptionsChangeNothing) {
  ReluModel m;

  EXPECT_FALSE(Retype(m.g, {}));

  EXPECT_EQ(m.g.OpTypes(), "Relu");
}

TEST(IoDtypePassTest, OtherReadersOfARetypedOutputReadTheUncastValue) {
  GraphBuilder g;
  ir::Value* x = g.In("x", DataType::kFloat32, {4});
  ir::Value* y = g.Op("Relu", "relu", {x});
  ir::Value* z = g.Op("Neg", "neg", {y});
  g.Out(y);
  g.Out(z);
  ASSERT_TRUE(g.Infer().ok());

  EXPECT_TRUE(Retype(g, AllOutputs("FP16")));

  EXPECT_EQ(g.graph.outputs(), (Values{y, z}));
  EXPECT_EQ(y->dtype(), DataType::kFloat16);
  EXPECT_EQ(z->dtype(), DataType::kFloat16);
  const ir::Node* neg = g.graph.FindValue("neg_out0_kiln_pre_cast")->producer();
  ASSERT_NE(neg, nullptr);
  EXPECT_EQ(neg->op_type(), "Neg");
  EXPECT_EQ(neg->input(0), g.graph.FindValue("relu_out0_kiln_pre_cast"));
  EXPECT_EQ(g.OpTypes(), "Relu,Neg,Cast,Cast");
  ASSERT_TRUE(g.graph.TopologicalSort().ok());
  ASSERT_TRUE(g.Infer().ok());
  EXPECT_EQ(neg->input(0)->dtype(), DataType::kFloat32);
}

TEST(IoDtypePassTest, PerOutputEntryRetypesOnlyThatOutput) {
  TopKModel m;

  EXPECT_TRUE(Retype(m.g, PerOutput({{"topk:1", "INT32"}})));

  EXPECT_EQ(m.g.graph.outputs(), m.out);
  EXPECT_EQ(m.out[0]->dtype(), DataType::kFloat32);
  EXPECT_EQ(m.out[0]->producer()->op_type(), "TopK");
  EXPECT_EQ(m.out[1]->dtype(), DataType::kInt32);
  const ir::Node* cast = m.out[1]->producer();
  EXPECT_EQ(cast->name(), "topk_out1_kiln_cast");
  EXPECT_TRUE(cast->has_attr("to"));
  EXPECT_EQ(cast->attr_int("to"), kOnnxInt32);
  const ir::Node* topk = cast->input(0)->producer();
  ASSERT_NE(topk, nullptr);
  EXPECT_EQ(topk->op_type(), "TopK");
  EXPECT_EQ(topk->outputs(), (Values{m.out[0], cast->input(0)}));
  EXPECT_EQ(cast->input(0)->dtype(), DataType::kInt64);
}

TEST(IoDtypePassTest, BothOutputsOfOneNodeCanBeRetyped) {
  TopKModel m;

  EXPECT_TRUE(Retype(m.g, PerOutput({{"topk_out0", "FP16"}, {"topk:1", "INT32"}})));

  EXPECT_EQ(m.g.OpTypes(), "TopK,Cast,Cast");
  const ir::Node* topk = m.g.FindNode("TopK");
  EXPECT_EQ(topk->outputs()[0]->name(), "topk_out0_kiln_pre_cast");
  EXPECT_EQ(topk->outputs()[1]->name(), "topk_out1_kiln_pre_cast");
  EXPECT_EQ(topk->input(1), m.g.graph.FindValue("k"));
  ASSERT_TRUE(m.g.Infer().ok());
  EXPECT_EQ(m.out[0]->dtype(), DataType::kFloat16);
  EXPECT_EQ(m.out[1]->dtype(), DataType::kInt32);
}

TEST(IoDtypePassTest, RebuiltProducerKeepsAttributesAndOrigins) {
  GraphBuilder g;
  ir::Value* x = g.In("x", DataType::kFloat32, {2, 3});
  ir::Value* y = g.Op("Transpose", "t", {x}, {{"perm", std::vector<int64_t>{1, 0}}});
  y->producer()->add_origins({"t0"});
  g.Out(y);
  ASSERT_TRUE(g.Infer().ok());

  EXPECT_TRUE(Retype(g, AllOutputs("FP16")));

  const ir::Node* t = g.FindNode("Transpose");
  EXPECT_EQ(t->name(), "t");
  EXPECT_EQ(t->origins(), (Names{"t", "t0"}));
  EXPECT_EQ(t->attr_ints("perm"), (std::vector<int64_t>{1, 0}));
}

TEST(IoDtypePassTest, PerOutputTypeWinsOverTheTypeForAllOutputs) {
  TopKModel m;
  IoDtypeOptions options = AllOutputs("FP16");
  options.per_output = {{"topk:0", "FP32"}};

  EXPECT_TRUE(Retype(m.g, options));

  EXPECT_EQ(m.out[0]->dtype(), DataType::kFloat32);
  EXPECT_EQ(m.out[0]->producer()->op_type(), "TopK");
  EXPECT_EQ(m.out[1]->dtype(), DataType::kFloat16);
  EXPECT_EQ(m.out[1]->producer()->op_type(), "Cast");
}

TEST(IoDtypePassTest, CastOpsetFollowsANewerGraphOpset) {
  ReluModel m;
  m.g.graph.opsets()[""] = 18;

  EXPECT_TRUE(Retype(m.g, AllOutputs("FP16")));

  EXPECT_EQ(m.y->producer()->opset(), 18);
}

TEST(IoDtypePassTest, CastOpsetIs13ForAnOlderGraph) {
  ReluModel m;
  m.g.graph.opsets()[""] = 11;

  EXPECT_TRUE(Retype(m.g, AllOutputs("FP16")));

  EXPECT_EQ(m.y->producer()->opset(), 13);
}

TEST(IoDtypePassTest, CastNameAvoidsANodeNameTheModelUses) {
  GraphBuilder g;
  ir::Value* x = g.In("x", DataType::kFloat32, {4});
  ir::Value* y = g.Op("Relu", "relu", {x});
  g.Op("Neg", "y_kiln_cast", {x});
  ir::Value* out = *g.graph.AddValue("y", {});
  (void)*g.graph.AddNode("Neg", "", "n", 17, {y}, {out});
  g.Out(out);
  ASSERT_TRUE(g.Infer().ok());

  EXPECT_TRUE(Retype(g, AllOutputs("FP16")));

  EXPECT_EQ(out->producer()->name(), "y_kiln_cast_1");
}

TEST(IoDtypePassTest, ConstantOutputIsCastFromACopyOfItsData) {
  GraphBuilder g;
  ir::Value* c = g.ConstF("c", {2}, {1.5f, -2});
  g.Out(c);

  EXPECT_TRUE(Retype(g, AllOutputs("FP16")));

  EXPECT_EQ(c->constant(), nullptr);
  EXPECT_EQ(c->dtype(), DataType::kFloat16);
  const ir::Node* cast = c->producer();
  ASSERT_NE(cast, nullptr);
  const ir::Value* pre = cast->input(0);
  ASSERT_NE(pre->constant(), nullptr);
  ASSERT_EQ(pre->constant()->num_elements(), 2);
  EXPECT_EQ(pre->constant()->data<float>()[0], 1.5f);
  EXPECT_EQ(pre->constant()->data<float>()[1], -2.0f);
}

TEST(IoDtypePassTest, Fp16InputBecomesFloat16AndItsReadersReadACast) {
  ReluModel m;
  PassContext ctx;

  EXPECT_TRUE(Retype(m.g, Fp16Inputs({"x"}), &ctx));

  EXPECT_EQ(m.g.graph.inputs(), (Values{m.x}));
  EXPECT_EQ(m.x->name(), "x");
  EXPECT_EQ(m.x->dtype(), DataType::kFloat16);
  EXPECT_EQ(m.x->shape(), ir::Shape::Of({2, 3}));
  EXPECT_EQ(m.g.OpTypes(), "Cast,Relu");
  const ir::Node* cast = m.g.graph.nodes().front().get();
  EXPECT_EQ(cast->name(), "x_kiln_cast");
  EXPECT_TRUE(cast->origins().empty());
  EXPECT_EQ(cast->opset(), 13);
  EXPECT_TRUE(cast->has_attr("to"));
  EXPECT_EQ(cast->attr_int("to"), kOnnxFloat);
  EXPECT_EQ(cast->inputs(), (Values{m.x}));
  const ir::Value* restored = cast->output(0);
  EXPECT_EQ(restored->name(), "x_kiln_cast");
  EXPECT_EQ(restored->dtype(), DataType::kFloat32);
  EXPECT_EQ(m.relu->input(0), restored);
  ASSERT_EQ(ctx.log.size(), 1u);
  EXPECT_EQ(ctx.log[0], "io_dtype: input 'x' is float16, Cast 'x_kiln_cast' restores float32");
  ASSERT_TRUE(m.g.Infer().ok());
  EXPECT_EQ(m.y->dtype(), DataType::kFloat32);
}

TEST(IoDtypePassTest, Fp16InputsAndFp16OutputsCombine) {
  // ATC's sample: --input_fp16_nodes=data --output_type=FP16 on one model.
  ReluModel m;
  IoDtypeOptions options = AllOutputs("FP16");
  options.fp16_inputs = {"x"};

  EXPECT_TRUE(Retype(m.g, options));

  EXPECT_EQ(m.g.OpTypes(), "Cast,Relu,Cast");
  EXPECT_EQ(m.x->dtype(), DataType::kFloat16);
  EXPECT_EQ(m.y->dtype(), DataType::kFloat16);
  ASSERT_TRUE(m.g.Infer().ok());
  EXPECT_EQ(m.g.graph.FindValue("relu_out0_kiln_pre_cast")->dtype(), DataType::kFloat32);
}

TEST(IoDtypePassTest, InputNamedTwiceGetsOneCast) {
  ReluModel m;

  EXPECT_TRUE(Retype(m.g, Fp16Inputs({"x", "x"})));

  EXPECT_EQ(m.g.OpTypes(), "Cast,Relu");
}

TEST(IoDtypePassTest, Float16InputIsLeftAlone) {
  GraphBuilder g;
  ir::Value* x = g.In("x", DataType::kFloat16, {4});
  g.Out(g.Op("Relu", "relu", {x}));
  ASSERT_TRUE(g.Infer().ok());

  EXPECT_FALSE(Retype(g, Fp16Inputs({"x"})));

  EXPECT_EQ(g.OpTypes(), "Relu");
}

TEST(IoDtypePassTest, UnknownFp16InputIsAnErrorListingTheInputs) {
  ReluModel m;

  EXPECT_EQ(RetypeError(m.g, Fp16Inputs({"data"})),
            "--input_fp16_nodes names 'data', which is not an input of the model; its inputs "
            "are: 'x'");
}

TEST(IoDtypePassTest, IntegerFp16InputIsAnError) {
  GraphBuilder g;
  ir::Value* ids = g.In("ids", DataType::kInt64, {4});
  g.Out(g.Op("Neg", "neg", {ids}));
  ASSERT_TRUE(g.Infer().ok());

  EXPECT_EQ(RetypeError(g, Fp16Inputs({"ids"})),
            "--input_fp16_nodes names 'ids', an input of type int64; only float inputs "
            "(float32, float64, bfloat16) can be passed as float16");
  EXPECT_EQ(ids->dtype(), DataType::kInt64);
}

TEST(IoDtypePassTest, InitializerListedAsInputIsAnError) {
  GraphBuilder g;
  ir::Value* w = g.ConstF("w", {2}, {1, 2});
  g.graph.inputs().push_back(w);
  g.Out(g.Op("Relu", "relu", {w}));

  EXPECT_EQ(RetypeError(g, Fp16Inputs({"w"})),
            "--input_fp16_nodes names 'w', an initializer the model lists as an input; only "
            "inputs the application passes can be float16");
}

TEST(IoDtypePassTest, OutputThatIsNotAGraphOutputIsAnErrorListingTheOutputs) {
  TopKModel m;
  m.g.graph.outputs().pop_back();

  EXPECT_EQ(RetypeError(m.g, PerOutput({{"topk:1", "INT32"}})),
            "--output_type entry 'topk:1' names tensor 'topk_out1', which is not an output of "
            "the model; its outputs are: 'topk_out0' (select it with --out_nodes)");
}

TEST(IoDtypePassTest, UnknownOutputEntryIsAnError) {
  ReluModel m;

  EXPECT_EQ(RetypeError(m.g, PerOutput({{"prob:0", "FP16"}})),
            "--output_type entry 'prob:0': no node is named 'prob' and no tensor 'prob:0'; "
            "nodes are: 'relu'");
}

TEST(IoDtypePassTest, TwoTypesForOneOutputAreAnError) {
  ReluModel m;

  EXPECT_EQ(RetypeError(m.g, PerOutput({{"relu:0", "FP16"}, {"relu_out0", "INT32"}})),
            "--output_type entries 'relu:0' and 'relu_out0' give output 'relu_out0' two types");
}

TEST(IoDtypePassTest, BadTypeNameInTheOptionsIsAnErrorListingTheAllowedOnes) {
  ReluModel m;

  EXPECT_EQ(RetypeError(m.g, AllOutputs("FP17")),
            "--output_type: 'FP17' is not an output type; use one of FP32, FP16, UINT8, INT8, "
            "UINT16, INT16, UINT32, INT32, UINT64, INT64, DOUBLE");
  EXPECT_EQ(RetypeError(m.g, PerOutput({{"relu:0", "BF16"}})),
            "--output_type entry 'relu:0': 'BF16' is not an output type; use one of FP32, FP16, "
            "UINT8, INT8, UINT16, INT16, UINT32, INT32, UINT64, INT64, DOUBLE");
}

TEST(IoDtypePassTest, OutputOfUnknownTypeIsAnError) {
  GraphBuilder g;  // no shape inference
  ir::Value* x = g.In("x", DataType::kFloat32, {4});
  g.Out(g.Op("Relu", "relu", {x}));

  EXPECT_EQ(RetypeError(g, AllOutputs("FP16")),
            "--output_type 'FP16': the type of output 'relu_out0' is not known yet; io_dtype "
            "must run after shape inference");
}

TEST(IoDtypePassTest, OutputThatIsTheInputItselfIsAnError) {
  GraphBuilder g;
  ir::Value* x = g.In("x", DataType::kFloat32, {4});
  g.Out(x);

  EXPECT_EQ(RetypeError(g, AllOutputs("FP16")),
            "--output_type 'FP16': output 'x' is the model input itself, whose name a Cast "
            "cannot take over; select another output");
}

TEST(IoDtypePassTest, OutputASubgraphReadsByNameIsUnsupported) {
  ReluModel m;
  auto body = std::make_shared<ir::Graph>();
  ir::Value* captured = *body->AddValue("relu_out0", {});
  ir::Value* inner = *body->AddValue("inner", {});
  (void)*body->AddNode("Identity", "", "id", 17, {captured}, {inner});
  body->outputs().push_back(inner);
  ir::Value* cond = m.g.In("cond", DataType::kBool, {});
  m.g.Op("If", "if", {cond}, {{"then_branch", body}, {"else_branch", body}});

  EXPECT_EQ(RetypeError(m.g, AllOutputs("FP16"), code::kFeatureUnsupported),
            "--output_type 'FP16': output 'relu_out0' is also read by name inside a subgraph "
            "(If/Loop/Scan body), which a retyped output would change; Kiln cannot retype it");
}

TEST(IoDtypePassTest, InputASubgraphReadsByNameIsUnsupported) {
  ReluModel m;
  auto body = std::make_shared<ir::Graph>();
  ir::Value* captured = *body->AddValue("x", {});
  ir::Value* inner = *body->AddValue("inner", {});
  (void)*body->AddNode("Identity", "", "id", 17, {captured}, {inner});
  body->outputs().push_back(inner);
  ir::Value* cond = m.g.In("cond", DataType::kBool, {});
  m.g.Op("If", "if", {cond}, {{"then_branch", body}, {"else_branch", body}});

  EXPECT_EQ(RetypeError(m.g, Fp16Inputs({"x"}), code::kFeatureUnsupported),
            "--input_fp16_nodes names 'x', which a subgraph (If/Loop/Scan body) reads by name; "
            "Kiln cannot retype such an input");
}

TEST(IoDtypePassTest, ErrorLeavesTheGraphUntouched) {
  ReluModel m;
  IoDtypeOptions options = Fp16Inputs({"x"});
  options.per_output = {{"nope", "FP16"}};

  RetypeError(m.g, options);

  EXPECT_EQ(m.x->dtype(), DataType::kFloat32);
  EXPECT_EQ(m.g.OpTypes(), "Relu");
  EXPECT_EQ(m.relu->input(0), m.x);
}

TEST(IoDtypePassTest, ParseTakesOneTypeForAllOutputs) {
  auto parsed = ParseIoDtypeFlags("FP16", "");

  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_EQ(parsed->all_outputs, "FP16");
  EXPECT_TRUE(parsed->per_output.empty());
  EXPECT_TRUE(parsed->fp16_inputs.empty());
}

TEST(IoDtypePassTest, ParseTakesNodeIndexTypeEntries) {
  auto parsed = ParseIoDtypeFlags("prob:0:FP16;prob:1:FP32;", "");

  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_EQ(parsed->all_outputs, "");
  EXPECT_EQ(parsed->per_output, (Pairs{{"prob:0", "FP16"}, {"prob:1", "FP32"}}));
}

TEST(IoDtypePassTest, ParseSplitsTheTypeAtTheLastColon) {
  auto parsed = ParseIoDtypeFlags("dense/BiasAdd:0:INT32; scores : DOUBLE", "");

  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_EQ(parsed->per_output, (Pairs{{"dense/BiasAdd:0", "INT32"}, {"scores", "DOUBLE"}}));
}

TEST(IoDtypePassTest, ParseTakesFp16InputNames) {
  auto parsed = ParseIoDtypeFlags("", "in1; in2;");

  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_EQ(parsed->all_outputs, "");
  EXPECT_EQ(parsed->fp16_inputs, (Names{"in1", "in2"}));
}

TEST(IoDtypePassTest, ParseRejectsAnUnknownTypeListingTheAllowedOnes) {
  EXPECT_EQ(ParseError("FP17"),
            "--output_type: 'FP17' is not an output type; use one of FP32, FP16, UINT8, INT8, "
            "UINT16, INT16, UINT32, INT32, UINT64, INT64, DOUBLE");
  EXPECT_EQ(ParseError("fp16"),
            "--output_type: 'fp16' is not an output type; use one of FP32, FP16, UINT8, INT8, "
            "UINT16, INT16, UINT32, INT32, UINT64, INT64, DOUBLE");
  EXPECT_EQ(ParseError("prob:0:INT4"),
            "--output_type entry 'prob:0:INT4': 'INT4' is not an output type; use one of FP32, "
            "FP16, UINT8, INT8, UINT16, INT16, UINT32, INT32, UINT64, INT64, DOUBLE");
}

TEST(IoDtypePassTest, ParseRejectsAscend950TypesAsUnsupported) {
  EXPECT_EQ(ParseError("HIF8"),
            "--output_type: 'HIF8' is not supported by Kiln (an Ascend 950 type); use one of "
            "FP32, FP16, UINT8, INT8, UINT16, INT16, UINT32, INT32, UINT64, INT64, DOUBLE");
}

TEST(IoDtypePassTest, ParseRejectsAMixOfTheTwoForms) {
  EXPECT_EQ(ParseError("FP16;prob:0:FP32"),
            "--output_type entry 'FP16' has no target; give one type for every output "
            "(--output_type=FP16) or \"node:index:TYPE\" entries "
            "(--output_type=\"prob:0:FP16;prob:1:FP32\"), not both");
}

TEST(IoDtypePassTest, ParseRejectsAnEntryWithoutATarget) {
  EXPECT_EQ(ParseError(":FP16"),
            "--output_type entry ':FP16' has no target before the type; write "
            "\"node:index:TYPE\"");
}

}  // namespace
}  // namespace kiln::compiler
