// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "base/str_cat.h"
#include "tests/unit/ir/test_util.h"

namespace kiln::ir {
namespace {

using testing::F32;
using testing::I64;
using testing::Ints;
using testing::OneNode;
using testing::T;

TensorType Bool(std::vector<int64_t> dims) { return T(DataType::kBool, std::move(dims)); }

bool Contains(const Status& s, const std::string& text) {
  return s.message().find(text) != std::string::npos;
}

// Checks `s` is an invalid-node error whose message contains `text` (so it failed for the
// reason the test means).
void ExpectInvalid(const Status& s, const std::string& text) {
  EXPECT_EQ(s.code(), code::kInvalidParam) << s.message();
  EXPECT_TRUE(Contains(s, text)) << "\"" << text << "\" not in: " << s.message();
}

// A subgraph with inputs and outputs of the given declared types (nothing computes them:
// inference reads only the declared types).
std::shared_ptr<Graph> Body(const std::vector<TensorType>& inputs,
                            const std::vector<TensorType>& outputs) {
  auto g = std::make_shared<Graph>();
  for (size_t i = 0; i < inputs.size(); ++i) {
    g->inputs().push_back(*g->AddValue(StrCat("x", i), inputs[i]));
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    g->outputs().push_back(*g->AddValue(StrCat("y", i), outputs[i]));
  }
  return g;
}

// ---- Reductions ---------------------------------------------------------------------------

TEST(ReduceInferenceTest, ReduceMeanKeepsReducedAxesAsOnesByDefault) {
  OneNode n("ReduceMean", {F32({2, 3, 4})}, 1, /*opset=*/17);
  n.node->set_attr("axes", std::vector<int64_t>{1});
  ASSERT_TRUE(n.Infer().ok());
  EXPECT_EQ(n.out().dtype, DataType::kFloat32);
  EXPECT_EQ(n.out().shape.ToString(), "[2,1,4]");
}

TEST(ReduceInferenceTest, DeclaredAttributesFollowTheOpset) {
  OneNode old("ReduceMean", {F32({2, 3})}, 1, /*opset=*/13);
  ASSERT_TRUE(old.Infer().ok());
  EXPECT_EQ(old.node->attr_int("keepdims"), 1);
  EXPECT_FALSE(old.node->has_attr("axes"));  // optional: absent means every axis
  EXPECT_FALSE(old.node->has_attr("noop_with_empty_axes"));
  OneNode later("ReduceMean", {F32({2, 3})}, 1, /*opset=*/18);
  ASSERT_TRUE(later.Infer().ok());
  EXPECT_EQ(later.node->attr_int("noop_with_empty_axes"), 0);
  OneNode int_axes("ReduceMax", {F32({2, 3})}, 1, /*opset=*/13);
  int_axes.node->set_attr("axes", int64_t{1});
  ExpectInvalid(int_axes.Infer(), "attribute 'axes'");
}

TEST(ReduceInferenceTest, ReduceMeanDropsReducedAxesWithKeepdimsZero) {
  OneNode n("ReduceMean", {F32({2, 3, 4})}, 1, /*opset=*/17);
  n.node->set_attr("axes", std::vector<int64_t>{1});
  n.node->set_attr("keepdims", int64_t{0});
  ASSERT_TRUE(n.Infer().ok());
  EXPECT_EQ(n.out().shape.ToString(), "[2,4]");
}

TEST(ReduceInferenceTest, NegativeAxesCountFromTheLastAxis) {
  OneNode n("ReduceMax", {F32({2, 3, 4})}, 1, /*opset=*/11);
  n.node->set_attr("axes", std::vector<int64_t>{-1, -3});
  n.node->set_attr("keepdims", int64_t{0});
  ASSERT_TRUE(n.Infer().ok());
  EXPECT_EQ(n.out().shape.ToString(), "[3]");
}

TEST(ReduceInferenceTest, NoAxesReducesEveryAxis) {
  OneNode kept("ReduceProd", {F32({2, 3, 4})}, 1, /*opset=*/17);
  ASSERT_TRUE(kept.Infer().ok());
  EXPECT_EQ(kept.out().shape.ToString(), "[1,1,1]");
  OneNode dropped("ReduceProd", {F32({2, 3, 4})}, 1, /*opset=*/17);
  dropped.node->set_attr("keepdims", int64_t{0});
  ASSERT_TRUE(dropped.Infer().ok());
  EXPECT_TRUE(dropped.out().shape.rank_known());
  EXPECT_EQ(dropped.out().shape.ToString(), "[]");
}

TEST(ReduceInferenceTest, ReduceSumTakesAxesAsAConstantInputFromOpset13) {
  OneNode input("ReduceSum", {F32({2, 3, 4}), I64({2})}, 1, /*opset=*/13,
                {std::nullopt, Ints({0, 2})});
  ASSERT_TRUE(input.Infer().ok());
  EXPECT_EQ(input.out().shape.ToString(), "[1,3,1]");
  OneNode attr("ReduceSum", {F32({2, 3, 4})}, 1, /*opset=*/11);
  attr.node->set_attr("axes", std::vector<int64_t>{0, 2});
  attr.node->set_attr("keepdims", int64_t{0});
  ASSERT_TRUE(attr.Infer().ok());
  EXPECT_EQ(attr.out().shape.ToString(), "[3]");
}

TEST(ReduceInferenceTest, AxesMustTakeTheFormOfTheNodesOpset) {
  OneNode attr_at_13("ReduceSum", {F32({2, 3})}, 1, /*opset=*/13);
  attr_at_13.node->set_attr("axes", std::vector<int64_t>{0});
  Status s = attr_at_13.Infer();
  EXPECT_EQ(s.code(), code::kInvalidParam);
  EXPECT_TRUE(Contains(s, "attribute 'axes'")) << s.message();
  OneNode input_at_11("ReduceSum", {F32({2, 3}), I64({1})}, 1, /*opset=*/11,
                      {std::nullopt, Ints({0})});
  ExpectInvalid(input_at_11.Infer(), "only from opset 13");
  OneNode input_at_17("ReduceMax", {F32({2, 3}), I64({1})}, 1, /*opset=*/17,
                      {std::nullopt, Ints({0})});
  ExpectInvalid(input_at_17.Infer(), "only from opset 18");
}

TEST(ReduceInferenceTest, ReduceMaxTakesAxesAsAnInputFromOpset18) {
  OneNode n("ReduceMax", {F32({2, 3, 4}), I64({1})}, 1, /*opset=*/18, {std::nullopt, Ints({1})});
  n.node->set_attr("keepdims", int64_t{0});
  ASSERT_TRUE(n.Infer().ok());
  EXPECT_EQ(n.out().shape.ToString(), "[2,4]");
}

TEST(ReduceInferenceTest, NoopWithEmptyAxesPassesTheInputThrough) {
  OneNode omitted("ReduceSum", {F32({2, 3})}, 1, /*opset=*/13);
  omitted.node->set_attr("noop_with_empty_axes", int64_t{1});
  ASSERT_TRUE(omitted.Infer().ok());
  EXPECT_EQ(omitted.out().shape.ToString(), "[2,3]");
  OneNode empty("ReduceL2", {F32({2, 3}), I64({0})}, 1, /*opset=*/18, {std::nullopt, Ints({})});
  empty.node->set_attr("noop_with_empty_axes", int64_t{1});
  empty.node->set_attr("keepdims", int64_t{0});
  ASSERT_TRUE(empty.Infer().ok());
  EXPECT_EQ(empty.out().shape.ToString(), "[2,3]");
  // Without the flag, empty axes reduce everything.
  OneNode reduce_all("ReduceL2", {F32({2, 3}), I64({0})}, 1, /*opset=*/18,
                     {std::nullopt, Ints({})});
  ASSERT_TRUE(reduce_all.Infer().ok());
  EXPECT_EQ(reduce_all.out().shape.ToString(), "[1,1]");
}

TEST(ReduceInferenceTest, NoopWithEmptyAxesIsIgnoredBeforeAxesBecameAnInput) {
  OneNode n("ReduceMean", {F32({2, 3})}, 1, /*opset=*/17);
  n.node->set_attr("noop_with_empty_axes", int64_t{1});
  ASSERT_TRUE(n.Infer().ok());
  EXPECT_EQ(n.out().shape.ToString(), "[1,1]");
}

TEST(ReduceInferenceTest, RunTimeAxesKnowOnlyTheRankAndOnlyWithKeepdims) {
  OneNode kept("ReduceMean", {F32({2, 1, 4}), I64({1})}, 1, /*opset=*/18);
  ASSERT_TRUE(kept.Infer().ok());
  EXPECT_EQ(kept.out().dtype, DataType::kFloat32);
  // A dim of 1 is 1 whether or not it is reduced; the others are unknown.
  EXPECT_EQ(kept.out().shape.ToString(), "[?,1,?]");
  OneNode dropped("ReduceMean", {F32({2, 1, 4}), I64({1})}, 1, /*opset=*/18);
  dropped.node->set_attr("keepdims", int64_t{0});
  ASSERT_TRUE(dropped.Infer().ok());
  EXPECT_EQ(dropped.out().dtype, DataType::kFloat32);
  EXPECT_FALSE(dropped.out().shape.rank_known());
}

TEST(ReduceInferenceTest, SymbolicDimsSurviveOnKeptAxes) {
  TensorType in{DataType::kFloat32,
                Shape({Dim::Symbol("batch"), Dim::Known(3), Dim::Symbol("seq")})};
  OneNode kept("ReduceSumSquare", {in}, 1, /*opset=*/17);
  kept.node->set_attr("axes", std::vector<int64_t>{1});
  ASSERT_TRUE(kept.Infer().ok());
  EXPECT_EQ(kept.out().shape.ToString(), "[batch,1,seq]");
  OneNode dropped("ReduceSumSquare", {in}, 1, /*opset=*/17);
  dropped.node->set_attr("axes", std::vector<int64_t>{1});
  dropped.node->set_attr("keepdims", int64_t{0});
  ASSERT_TRUE(dropped.Infer().ok());
  EXPECT_EQ(dropped.out().shape.ToString(), "[batch,seq]");
}

TEST(ReduceInferenceTest, UnknownRankInputsStillReduceAllToAScalar) {
  OneNode all("ReduceLogSumExp", {{DataType::kFloat32, Shape()}}, 1, /*opset=*/17);
  all.node->set_attr("keepdims", int64_t{0});
  ASSERT_TRUE(all.Infer().ok());
  EXPECT_EQ(all.out().shape.ToString(), "[]");
  OneNode some("ReduceLogSumExp", {{DataType::kFloat32, Shape()}}, 1, /*opset=*/17);
  some.node->set_attr("axes", std::vector<int64_t>{0});
  ASSERT_TRUE(some.Infer().ok());
  EXPECT_FALSE(some.out().shape.rank_known());
}

TEST(ReduceInferenceTest, OutOfRangeAxisIsAnErrorNamingTheAxisAndRank) {
  OneNode n("ReduceMean", {F32({2, 3, 4})}, 1, /*opset=*/17);
  n.node->set_attr("axes", std::vector<int64_t>{3});
  Status s = n.Infer();
  EXPECT_EQ(s.code(), code::kInvalidParam);
  EXPECT_TRUE(Contains(s, "ReduceMean 'n' (opset 17)")) << s.message();
  EXPECT_TRUE(Contains(s, "axis 3")) << s.message();
  EXPECT_TRUE(Contains(s, "rank 3")) << s.message();
  OneNode low("ReduceMean", {F32({2, 3, 4})}, 1, /*opset=*/17);
  low.node->set_attr("axes", std::vector<int64_t>{-4});
  ExpectInvalid(low.Infer(), "axis -4");
}

TEST(ReduceInferenceTest, AxesNamingOneAxisTwiceAreAnError) {
  OneNode n("ReduceMean", {F32({2, 3, 4})}, 1, /*opset=*/17);
  n.node->set_attr("axes", std::vector<int64_t>{1, -2});
  Status s = n.Infer();
  EXPECT_EQ(s.code(), code::kInvalidParam);
  EXPECT_TRUE(Contains(s, "ReduceMean 'n' (opset")) << s.message();
  EXPECT_TRUE(Contains(s, "more than once")) << s.message();
}

TEST(ReduceInferenceTest, AxesInputMustBeOneDimensionalInt64) {
  Tensor i32 = Tensor::FromVector(DataType::kInt32, {1}, std::vector<int32_t>{0});
  OneNode wrong_type("ReduceMin", {F32({2, 3}), T(DataType::kInt32, {1})}, 1, /*opset=*/18,
                     {std::nullopt, i32});
  ExpectInvalid(wrong_type.Infer(), "int64 is required");
  OneNode wrong_rank("ReduceMin", {F32({2, 3}), I64({1, 1})}, 1, /*opset=*/18);
  ExpectInvalid(wrong_rank.Infer(), "must be 1-D");
}

TEST(ReduceInferenceTest, EveryReductionKeepsTheInputType) {
  for (const char* op :
       {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2",
        "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare"}) {
    OneNode n(op, {T(DataType::kFloat16, {5, 6})}, 1, /*opset=*/12);
    n.node->set_attr("axes", std::vector<int64_t>{-1});
    ASSERT_TRUE(n.Infer().ok()) << op;
    EXPECT_EQ(n.out().dtype, DataType::kFloat16) << op;
    EXPECT_EQ(n.out().shape.ToString(), "[5,1]") << op;
  }
}

TEST(ReduceInferenceTest, BoolInputsAreAcceptedOnlyByMaxAndMinFromOpset20) {
  OneNode sum("ReduceSum", {Bool({4})}, 1, /*opset=*/20);
  ExpectInvalid(sum.Infer(), "input is bool");
  OneNode old_max("ReduceMax", {Bool({4})}, 1, /*opset=*/18);
  ExpectInvalid(old_max.Infer(), "input is bool");
  OneNode max("ReduceMax", {Bool({4})}, 1, /*opset=*/20);
  ASSERT_TRUE(max.Infer().ok());
  EXPECT_EQ(max.out().dtype, DataType::kBool);
  EXPECT_EQ(max.out().shape.ToString(), "[1]");
}

// ---- Control flow -------------------------------------------------------------------------

TEST(ControlFlowInferenceTest, IfWithEqualBranchTypesUsesThem) {
  OneNode n("If", {Bool({})}, 2, /*opset=*/13);
  n.node->set_attr("then_branch", Body({}, {F32({2, 3}), I64({})}));
  n.node->set_attr("else_branch", Body({}, {F32({2, 3}), I64({})}));
  ASSERT_TRUE(n.Infer().ok());
  EXPECT_EQ(n.out(0).dtype, DataType::kFloat32);
  EXPECT_EQ(n.out(0).shape.ToString(), "[2,3]");
  EXPECT_EQ(n.out(1).dtype, DataType::kInt64);
  EXPECT_EQ(n.out(1).shape.ToString(), "[]");
}

TEST(ControlFlowInferenceTest, IfWithDifferentShapesForgetsTheDimsThatDiffer) {
  OneNode n("If", {Bool({1})}, 2, /*opset=*/13);
  n.node->set_attr("then_branch", Body({}, {F32({2, 3}), F32({2})}));
  n.node->set_attr("else_branch", Body({}, {F32({2, 5}), F32({2, 1})}));
  ASSERT_TRUE(n.Infer().ok());
  EXPECT_EQ(n.out(0).dtype, DataType::kFloat32);
  EXPECT_EQ(n.out(0).shape.ToString(), "[2,?]");
  // Different ranks: only the type is known.
  EXPECT_EQ(n.out(1).dtype, DataType::kFloat32);
  EXPECT_FALSE(n.out(1).shape.rank_known());
}

TEST(ControlFlowInferenceTest, IfTakesTheTypeFromTheOnlyBranchThatDeclaresIt) {
  OneNode one("If", {Bool({})}, 1, /*opset=*/13);
  one.node->set_attr("then_branch", Body({}, {TensorType{}}));
  one.node->set_attr("else_branch", Body({}, {I64({4})}));
  ASSERT_TRUE(one.Infer().ok());
  EXPECT_EQ(one.out().dtype, DataType::kInt64);
  EXPECT_FALSE(one.out().shape.rank_known());
  OneNode none("If", {Bool({})}, 1, /*opset=*/13);
  none.node->set_attr("then_branch", Body({}, {TensorType{}}));
  none.node->set_attr("else_branch", Body({}, {TensorType{}}));
  Status s = none.Infer();
  EXPECT_EQ(s.code(), code::kInvalidParam);
  EXPECT_TRUE(Contains(s, "declares")) << s.message();
}

TEST(ControlFlowInferenceTest, IfBranchesMustAgreeOnTypesAndOutputCount) {
  OneNode types("If", {Bool({})}, 1, /*opset=*/13);
  types.node->set_attr("then_branch", Body({}, {F32({2})}));
  types.node->set_attr("else_branch", Body({}, {I64({2})}));
  Status s = types.Infer();
  EXPECT_EQ(s.code(), code::kInvalidParam);
  EXPECT_TRUE(Contains(s, "If 'n' (opset 13)")) << s.message();
  OneNode count("If", {Bool({})}, 1, /*opset=*/13);
  count.node->set_attr("then_branch", Body({}, {F32({2})}));
  count.node->set_attr("else_branch", Body({}, {F32({2}), F32({2})}));
  ExpectInvalid(count.Infer(), "else_branch has 2");
}

TEST(ControlFlowInferenceTest, IfNeedsBothBranchGraphs) {
  OneNode missing("If", {Bool({})}, 1, /*opset=*/13);
  missing.node->set_attr("then_branch", Body({}, {F32({2})}));
  Status s = missing.Infer();
  EXPECT_EQ(s.code(), code::kInvalidParam);
  EXPECT_TRUE(Contains(s, "else_branch")) << s.message();
  OneNode not_a_graph("If", {Bool({})}, 1, /*opset=*/13);
  not_a_graph.node->set_attr("then_branch", Body({}, {F32({2})}));
  not_a_graph.node->set_attr("else_branch", int64_t{0});
  // The op's definition declares the branches' kind: the node is refused before inference.
  ExpectInvalid(not_a_graph.Infer(), "'else_branch' is a int; If takes a graph");
}

TEST(ControlFlowInferenceTest, IfConditionMustBeOneBool) {
  auto branch = Body({}, {F32({2})});
  OneNode not_bool("If", {F32({})}, 1, /*opset=*/13);
  not_bool.node->set_attr("then_branch", branch);
  not_bool.node->set_attr("else_branch", branch);
  ExpectInvalid(not_bool.Infer(), "cond is float32");
  OneNode two("If", {Bool({2})}, 1, /*opset=*/13);
  two.node->set_attr("then_branch", branch);
  two.node->set_attr("else_branch", branch);
  ExpectInvalid(two.Infer(), "one element");
}

TEST(ControlFlowInferenceTest, LoopCarriesOneValueAndStacksOneScanOutput) {
  OneNode n("Loop", {I64({}), Bool({}), F32({4})}, 2, /*opset=*/16);
  n.node->set_attr("body", Body({I64({}), Bool({}), F32({4})}, {Bool({}), F32({4}), F32({4, 2})}));
  ASSERT_TRUE(n.Infer().ok());
  EXPECT_EQ(n.out(0).dtype, DataType::kFloat32);
  EXPECT_EQ(n.out(0).shape.ToString(), "[4]");
  EXPECT_EQ(n.out(1).dtype, DataType::kFloat32);
  EXPECT_EQ(n.out(1).shape.ToString(), "[?,4,2]");
}

TEST(ControlFlowInferenceTest, LoopCarriedValuesLoseDimsTheBodyChanges) {
  // The body grows the first axis: the final value may have either shape.
  OneNode n("Loop", {I64({}), Bool({}), F32({1, 4})}, 1, /*opset=*/16);
  n.node->set_attr("body", Body({I64({}), Bool({}), F32({-1, 4})}, {Bool({}), F32({-1, 4})}));
  ASSERT_TRUE(n.Infer().ok());
  EXPECT_EQ(n.out().shape.ToString(), "[?,4]");
}

TEST(ControlFlowInferenceTest, LoopWithoutATripCountRunsOnItsCondition) {
  OneNode n("Loop", {I64({}), Bool({}), I64({})}, 1, /*opset=*/16);
  n.node->set_input(0, nullptr);
  n.node->set_attr("body", Body({I64({}), Bool({}), I64({})}, {Bool({}), I64({})}));
  ASSERT_TRUE(n.Infer().ok());
  EXPECT_EQ(n.out().dtype, DataType::kInt64);
  EXPECT_EQ(n.out().shape.ToString(), "[]");
}

TEST(ControlFlowInferenceTest, LoopRejectsBodiesThatDoNotMatchTheNode) {
  auto make = [] { return OneNode("Loop", {I64({}), Bool({}), F32({4})}, 2, /*opset=*/16); };
  OneNode count = make();
  count.node->set_attr("body", Body({I64({}), Bool({}), F32({4})}, {Bool({}), F32({4})}));
  ExpectInvalid(count.Infer(), "body has 2 output(s)");
  OneNode carried_type = make();
  carried_type.node->set_attr("body",
                              Body({I64({}), Bool({}), F32({4})}, {Bool({}), I64({4}), F32({2})}));
  ExpectInvalid(carried_type.Infer(), "loop-carried value 0 starts as float32");
  OneNode undeclared_scan = make();
  undeclared_scan.node->set_attr(
      "body", Body({I64({}), Bool({}), F32({4})}, {Bool({}), F32({4}), TensorType{}}));
  Status s = undeclared_scan.Infer();
  EXPECT_EQ(s.code(), code::kInvalidParam);
  EXPECT_TRUE(Contains(s, "scan output 0")) << s.message();
  OneNode trip_count = make();
  trip_count.node->set_input(0, trip_count.graph.FindValue("in2"));  // float, not int64
  trip_count.node->set_attr("body",
                            Body({I64({}), Bool({}), F32({4})}, {Bool({}), F32({4}), F32({2})}));
  ExpectInvalid(trip_count.Infer(), "M (the trip count) is float32");
}

TEST(ControlFlowInferenceTest, ScanInsertsTheSequenceLengthAtTheOutputAxis) {
  OneNode n("Scan", {F32({3}), F32({5, 3})}, 3, /*opset=*/16);
  n.node->set_attr("num_scan_inputs", int64_t{1});
  n.node->set_attr("scan_output_axes", std::vector<int64_t>{0, -1});
  n.node->set_attr("body", Body({F32({3}), F32({3})}, {F32({3}), F32({3}), I64({2})}));
  ASSERT_TRUE(n.Infer().ok());
  EXPECT_EQ(n.out(0).shape.ToString(), "[3]");
  EXPECT_EQ(n.out(1).shape.ToString(), "[5,3]");
  EXPECT_EQ(n.out(2).dtype, DataType::kInt64);
  EXPECT_EQ(n.out(2).shape.ToString(), "[2,5]");
}

TEST(ControlFlowInferenceTest, ScanInputsMustAgreeOnTheSequenceLength) {
  OneNode n("Scan", {F32({5, 3}), F32({3, 4})}, 1, /*opset=*/16);
  n.node->set_attr("num_scan_inputs", int64_t{2});
  n.node->set_attr("scan_input_axes", std::vector<int64_t>{0, 1});
  n.node->set_attr("body", Body({F32({3}), F32({3})}, {F32({2})}));
  ExpectInvalid(n.Infer(), "same length");
}

TEST(ControlFlowInferenceTest, ScanDirectionsHaveOneZeroOrOnePerScanValue) {
  auto make = [](const char* attr, std::vector<int64_t> v) {
    auto n = std::make_unique<OneNode>("Scan", std::vector<TensorType>{F32({3}), F32({5, 3})}, 2,
                                       /*opset=*/16);
    n->node->set_attr("num_scan_inputs", int64_t{1});
    n->node->set_attr("body", Body({F32({3}), F32({3})}, {F32({3}), F32({3})}));
    n->node->set_attr(attr, std::move(v));
    return n;
  };
  EXPECT_TRUE(make("scan_input_directions", {1})->Infer().ok());
  ExpectInvalid(make("scan_input_directions", {2})->Infer(), "directions are 0 or 1");
  ExpectInvalid(make("scan_output_directions", {0, 1})->Infer(),
                "'scan_output_directions' has 2 entries for 1 scan output(s)");
  // num_scan_inputs is declared required.
  OneNode none("Scan", {F32({3}), F32({5, 3})}, 2, /*opset=*/16);
  none.node->set_attr("body", Body({F32({3}), F32({3})}, {F32({3}), F32({3})}));
  ExpectInvalid(none.Infer(), "attribute 'num_scan_inputs' is required");
}

}  // namespace

TEST(ControlFlowInferenceTest, UntypedBodyInputsTakeTheTypesTheNodeFeedsThem) {
  // Loop: iteration int64, cond bool, the carried value's element type (shape may change).
  OneNode loop("Loop", {I64({}), Bool({}), F32({2, 3})}, 1, /*opset=*/16);
  auto body = Body({TensorType{}, TensorType{}, TensorType{}}, {});
  Value* sum = *body->AddValue("sum", {});
  ASSERT_TRUE(
      body->AddNode("Add", "", "add", 16, {body->inputs()[2], body->inputs()[2]}, {sum}).ok());
  body->outputs() = {body->inputs()[1], sum};
  loop.node->set_attr("body", body);
  ASSERT_TRUE(InferGraph(OpRegistry::Global(), loop.graph).ok());
  EXPECT_EQ(body->inputs()[0]->dtype(), DataType::kInt64);
  EXPECT_EQ(body->inputs()[1]->dtype(), DataType::kBool);
  EXPECT_EQ(body->inputs()[2]->dtype(), DataType::kFloat32);
  EXPECT_FALSE(body->inputs()[2]->shape().rank_known());
  EXPECT_EQ(loop.out().dtype, DataType::kFloat32);
  // Scan: the state as given, a scan input as one slice along its axis.
  OneNode scan("Scan", {F32({3}), F32({3, 5})}, 1, /*opset=*/16);
  scan.node->set_attr("num_scan_inputs", int64_t{1});
  scan.node->set_attr("scan_input_axes", std::vector<int64_t>{1});
  auto sbody = Body({TensorType{}, TensorType{}}, {});
  Value* next = *sbody->AddValue("next", {});
  ASSERT_TRUE(
      sbody->AddNode("Add", "", "add", 16, {sbody->inputs()[0], sbody->inputs()[1]}, {next}).ok());
  sbody->outputs() = {next};
  scan.node->set_attr("body", sbody);
  ASSERT_TRUE(InferGraph(OpRegistry::Global(), scan.graph).ok());
  EXPECT_EQ(sbody->inputs()[1]->shape().ToString(), "[3]");
  EXPECT_EQ(scan.out().shape.ToString(), "[3]");
}

}  // namespace kiln::ir
