// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <vector>

#include "compiler/passes/passes.h"
#include "tests/unit/compiler/pass_test_util.h"

namespace kiln::compiler {
namespace {

using ir::DataType;
using testing::GraphBuilder;

ir::Tensor I64(std::vector<int64_t> dims, std::vector<int64_t> v) {
  return ir::Tensor::FromVector(DataType::kInt64, std::move(dims), v);
}
ir::Tensor I32(std::vector<int64_t> dims, std::vector<int32_t> v) {
  return ir::Tensor::FromVector(DataType::kInt32, std::move(dims), v);
}
ir::Tensor F32(std::vector<int64_t> dims, std::vector<float> v) {
  return ir::Tensor::FromVector(DataType::kFloat32, std::move(dims), v);
}
ir::Tensor F64(std::vector<int64_t> dims, std::vector<double> v) {
  return ir::Tensor::FromVector(DataType::kFloat64, std::move(dims), v);
}
ir::Tensor Bool(std::vector<int64_t> dims, std::vector<uint8_t> v) {
  return ir::Tensor::FromVector(DataType::kBool, std::move(dims), v);
}

// The constant's elements (of element type T).
template <typename T>
std::vector<T> Data(const ir::Value* v) {
  const ir::Tensor* t = v->constant();
  if (t == nullptr) {
    ADD_FAILURE() << "'" << v->name() << "' is not a constant";
    return {};
  }
  if (ir::SizeOf(t->dtype()) != sizeof(T)) {
    ADD_FAILURE() << "'" << v->name() << "' is " << ir::Name(t->dtype());
    return {};
  }
  std::vector<T> out(static_cast<size_t>(t->num_elements()));
  if (!out.empty()) std::memcpy(out.data(), t->raw(), out.size() * sizeof(T));
  return out;
}

std::vector<int64_t> Dims(const ir::Value* v) {
  return v->constant() ? v->constant()->dims() : std::vector<int64_t>{-99};
}

DataType Dtype(const ir::Value* v) {
  return v->constant() ? v->constant()->dtype() : DataType::kUndefined;
}

// Runs the pass; returns whether it reported a change (a failure fails the test).
bool Fold(GraphBuilder& g) {
  PassContext ctx;
  auto changed = CreateConstantFoldingPass()->Run(g.graph, ctx);
  EXPECT_TRUE(changed.ok()) << changed.status().message();
  return changed.ok() && *changed;
}

// One node of `op` over `inputs`, its output a graph output; folds and returns the output.
ir::Value* FoldOne(GraphBuilder& g, const std::string& op, std::vector<ir::Value*> inputs,
                   std::map<std::string, ir::Attribute> attrs = {}, int opset = 17) {
  ir::Value* out = g.Op(op, "n", std::move(inputs), std::move(attrs), opset);
  g.Out(out);
  EXPECT_TRUE(Fold(g));
  EXPECT_EQ(g.OpTypes(), "");
  return out;
}

TEST(ConstantFoldingPassTest, StaticShapeSubGraphFoldsIntoTheReshapeShape) {
  GraphBuilder g;
  ir::Value* x = g.In("x", DataType::kFloat32, {1, 3, 8, 8});
  ir::Value* shape = g.Op("Shape", "shape", {x});
  ir::Value* batch = g.Op("Gather", "gather", {shape, g.Const("idx", I64({}, {0}))});
  ir::Value* batch1 = g.Op("Unsqueeze", "unsq", {batch, g.ConstI("axes", {0})});
  ir::Value* target =
      g.Op("Concat", "concat", {batch1, g.ConstI("minus1", {-1})}, {{"axis", int64_t{0}}});
  ir::Value* y = g.Op("Reshape", "reshape", {x, target});
  g.Out(y);
  ASSERT_EQ(g.OpTypes(), "Shape,Gather,Unsqueeze,Concat,Reshape");

  EXPECT_TRUE(Fold(g));

  EXPECT_EQ(g.OpTypes(), "Reshape");
  const ir::Node* reshape = g.FindNode("Reshape");
  ASSERT_EQ(reshape->input(1), target);
  EXPECT_EQ(target->name(), "concat_out0");
  EXPECT_EQ(Dtype(target), DataType::kInt64);
  EXPECT_EQ(Dims(target), (std::vector<int64_t>{2}));
  EXPECT_EQ(Data<int64_t>(target), (std::vector<int64_t>{1, -1}));
  // The constants only the folded nodes read are gone.
  EXPECT_EQ(g.graph.FindValue("idx"), nullptr);
  EXPECT_EQ(g.graph.FindValue("minus1"), nullptr);
  EXPECT_EQ(g.graph.FindValue("shape_out0"), nullptr);
}

TEST(ConstantFoldingPassTest, ReadersOfFoldedValuesAreReinferredSoLaterShapesFoldToo) {
  // x:[2,3,4] -> Reshape(x, [dim0, -1]) -> Shape: the Reshape stays, but once its shape input
  // is constant its output is [2,12], so the Shape after it folds in the same run.
  GraphBuilder g;
  ir::Value* x = g.In("x", DataType::kFloat32, {2, 3, 4});
  ir::Value* shape = g.Op("Shape", "shape", {x});
  ir::Value* dim0 = g.Op("Slice", "slice", {shape, g.ConstI("s", {0}), g.ConstI("e", {1})});
  ir::Value* target =
      g.Op("Concat", "concat", {dim0, g.ConstI("minus1", {-1})}, {{"axis", int64_t{0}}});
  ir::Value* y = g.Op("Reshape", "reshape", {x, target});
  ir::Value* y_shape = g.Op("Shape", "shape2", {y});
  g.Out(y_shape);

  EXPECT_TRUE(Fold(g));

  EXPECT_EQ(g.OpTypes(), "Reshape");  // dead now; dead_code_elimination removes it
  EXPECT_EQ(Data<int64_t>(target), (std::vector<int64_t>{2, -1}));
  EXPECT_EQ(Data<int64_t>(y_shape), (std::vector<int64_t>{2, 12}));
}

TEST(ConstantFoldingPassTest, ShapeWithStartAndEndNeedsOnlyThoseDimsToBeStatic) {
  GraphBuilder g;
  ir::Value* x = g.In("x", DataType::kFloat32, {-1, 3, 8, 8});
  ir::Value* all = g.Op("Shape", "all", {x});
  ir::Value* middle =
      g.Op("Shape", "middle", {x}, {{"start", int64_t{1}}, {"end", int64_t{-1}}}, 15);
  ir::Value* tail = g.Op("Shape", "tail", {x}, {{"start", int64_t{-2}}}, 15);
  g.Out(all);
  g.Out(middle);
  g.Out(tail);

  EXPECT_TRUE(Fold(g));

  EXPECT_EQ(g.OpTypes(), "Shape");  // the full shape has a dynamic dim
  EXPECT_EQ(all->constant(), nullptr);
  EXPECT_EQ(Data<int64_t>(middle), (std::vector<int64_t>{3, 8}));
  EXPECT_EQ(Data<int64_t>(tail), (std::vector<int64_t>{8, 8}));
}

TEST(ConstantFoldingPassTest, SizeOfAStaticValueFoldsToAScalar) {
  GraphBuilder g;
  ir::Value* x = g.In("x", DataType::kFloat32, {2, 3, 4});
  ir::Value* size = FoldOne(g, "Size", {x});
  EXPECT_EQ(Dims(size), (std::vector<int64_t>{}));
  EXPECT_EQ(Data<int64_t>(size), (std::vector<int64_t>{24}));
}

TEST(ConstantFoldingPassTest, NothingFoldableReportsNoChange) {
  GraphBuilder g;
  ir::Value* x = g.In("x", DataType::kFloat32, {-1, 3});
  ir::Value* shape = g.Op("Shape", "shape", {x});  // dynamic dim 0
  ir::Value* sum = g.Op("Add", "add", {x, g.ConstF("c", {3}, {1, 2, 3})});
  g.Out(shape);
  g.Out(sum);

  EXPECT_FALSE(Fold(g));
  EXPECT_EQ(g.OpTypes(), "Shape,Add");
  EXPECT_NE(g.graph.FindValue("c"), nullptr);
}

TEST(ConstantFoldingPassTest, UnknownOpsAreLeftAloneWithoutAnError) {
  GraphBuilder g;
  ir::Value* c = g.ConstI("c", {0, 3, 0});
  ir::Value* nz = g.Op("NonZero", "nz", {c});
  ir::Value* custom = g.Op("Foo", "foo", {c});
  g.Out(nz);
  g.Out(custom);

  EXPECT_FALSE(Fold(g));
  EXPECT_EQ(g.OpTypes(), "NonZero,Foo");
}

TEST(ConstantFoldingPassTest, ChainOfConstantNodesFoldsInOneRunAndKeepsTheOutputName) {
  GraphBuilder g;
  ir::Value* a = g.Op("Constant", "a", {}, {{"value_ints", std::vector<int64_t>{1, 2, 3}}});
  ir::Value* b = g.Op("Constant", "b", {}, {{"value_int", int64_t{10}}});
  ir::Value* sum = g.Op("Add", "add", {a, b});
  ir::Value* prod = g.Op("Mul", "mul", {sum, g.ConstI("two", {2})});
  g.Out(prod);

  EXPECT_TRUE(Fold(g));

  EXPECT_EQ(g.OpTypes(), "");
  ASSERT_EQ(g.graph.outputs().size(), 1u);
  EXPECT_EQ(g.graph.outputs()[0], prod);
  EXPECT_EQ(prod->name(), "mul_out0");
  EXPECT_EQ(Data<int64_t>(prod), (std::vector<int64_t>{22, 24, 26}));
  EXPECT_EQ(g.graph.FindValue("a_out0"), nullptr);  // read only by the folded Add
}

TEST(ConstantFoldingPassTest, ConstantNodeFormsBecomeInitializers) {
  GraphBuilder g;
  ir::Value* f = g.Op("Constant", "f", {}, {{"value_float", 2.5f}});
  ir::Value* fs = g.Op("Constant", "fs", {}, {{"value_floats", std::vector<float>{1.5f, -2.0f}}});
  ir::Value* t = g.Op("Constant", "t", {}, {{"value", I32({2, 1}, {7, -8})}});
  for (ir::Value* v : {f, fs, t}) g.Out(v);

  EXPECT_TRUE(Fold(g));

  EXPECT_EQ(g.OpTypes(), "");
  EXPECT_EQ(Dims(f), (std::vector<int64_t>{}));
  EXPECT_EQ(Data<float>(f), (std::vector<float>{2.5f}));
  EXPECT_EQ(Data<float>(fs), (std::vector<float>{1.5f, -2.0f}));
  EXPECT_EQ(Dtype(t), DataType::kInt32);
  EXPECT_EQ(Dims(t), (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(Data<int32_t>(t), (std::vector<int32_t>{7, -8}));
}

TEST(ConstantFoldingPassTest, BigResultsFoldAndOnlyAbsurdOnesStayComputed) {
  GraphBuilder g;
  // 8 MiB of weights computed from a shape (the ONNX zoo's light models): folded, so that a
  // convolution or a matmul reading them packs constants once instead of every run.
  ir::Value* weights = g.Op("ConstantOfShape", "weights", {g.ConstI("s1", {2048, 1024})});
  // 4 TiB: refused before anything is allocated, left to the runtime to report.
  ir::Value* absurd =
      g.Op("ConstantOfShape", "absurd", {g.ConstI("s2", {int64_t{1} << 20, int64_t{1} << 20})});
  std::vector<float> values(300000, 0.5f);  // 1.2 MB, already in the model
  ir::Value* k = g.Op("Constant", "k", {}, {{"value", F32({300000}, values)}});
  for (ir::Value* v : {weights, absurd, k}) g.Out(v);

  EXPECT_TRUE(Fold(g));

  EXPECT_EQ(g.OpTypes(), "ConstantOfShape");
  EXPECT_EQ(g.FindNode("ConstantOfShape")->name(), "absurd");
  ASSERT_NE(weights->constant(), nullptr);
  EXPECT_EQ(Dims(weights), (std::vector<int64_t>{2048, 1024}));
  EXPECT_EQ(weights->constant()->bytes(), 8u << 20);
  EXPECT_EQ(Dims(k), (std::vector<int64_t>{300000}));
}

TEST(ConstantFoldingPassTest, NodeReadingAComputedValueIsNotFolded) {
  GraphBuilder g;
  ir::Value* x = g.In("x", DataType::kInt64, {3});
  ir::Value* c = g.Op("Add", "c", {g.ConstI("a", {1}), g.ConstI("b", {2})});
  ir::Value* y = g.Op("Add", "y", {x, c});
  g.Out(y);

  EXPECT_TRUE(Fold(g));

  EXPECT_EQ(g.OpTypes(), "Add");
  EXPECT_EQ(g.FindNode("Add")->name(), "y");
  EXPECT_EQ(g.FindNode("Add")->origins(), (std::vector<std::string>{"y"}));
  EXPECT_EQ(Data<int64_t>(c), (std::vector<int64_t>{3}));
}

TEST(ConstantFoldingPassTest, ValueReadByNameInsideAnIfBranchSurvivesPruning) {
  GraphBuilder g;
  ir::Value* cond = g.In("cond", DataType::kBool, {});
  ir::Value* k = g.Op("Add", "k", {g.ConstI("a", {1}), g.ConstI("b", {2})});  // "k_out0"
  auto branch = [&](const std::string& name) {
    auto sub = std::make_shared<ir::Graph>();
    ir::Value* captured = *sub->AddValue("k_out0", {});
    ir::Value* out = *sub->AddValue(name + "_y", {DataType::kInt64, ir::Shape::Of({1})});
    (void)sub->AddNode("Identity", "", name + "_id", 17, {captured}, {out});
    sub->outputs().push_back(out);
    return sub;
  };
  ir::Value* y =
      g.Op("If", "if", {cond}, {{"then_branch", branch("then")}, {"else_branch", branch("else")}});
  g.Out(y);

  EXPECT_TRUE(Fold(g));

  EXPECT_EQ(g.OpTypes(), "If");
  ASSERT_EQ(g.graph.FindValue("k_out0"), k);
  EXPECT_EQ(Data<int64_t>(k), (std::vector<int64_t>{3}));
  EXPECT_EQ(g.graph.FindValue("a"), nullptr);
}

// ---- the evaluator, op by op ----------------------------------------------------------------

TEST(ConstantFoldingPassTest, IntegerArithmeticBroadcastsAndDivisionTruncatesTowardZero) {
  GraphBuilder g;
  ir::Value* m = g.Const("m", I64({2, 3}, {1, 2, 3, 4, 5, 6}));
  ir::Value* row = g.ConstI("row", {10, 20, 30});
  ir::Value* sum = g.Op("Add", "add", {m, row});
  ir::Value* diff = g.Op("Sub", "sub", {row, m});
  ir::Value* q64 =
      g.Op("Div", "div64", {g.ConstI("n", {-7, 7, -7, 7}), g.ConstI("d", {2, 2, -2, -2})});
  ir::Value* q32 =
      g.Op("Div", "div32", {g.Const("n32", I32({3}, {-7, 9, 1})), g.Const("d32", I32({}, {-2}))});
  ir::Value* p32 =
      g.Op("Mul", "mul32", {g.Const("a32", I32({2}, {3, -4})), g.Const("b32", I32({1}, {5}))});
  for (ir::Value* v : {sum, diff, q64, q32, p32}) g.Out(v);

  EXPECT_TRUE(Fold(g));

  EXPECT_EQ(g.OpTypes(), "");
  EXPECT_EQ(Dims(sum), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(Data<int64_t>(sum), (std::vector<int64_t>{11, 22, 33, 14, 25, 36}));
  EXPECT_EQ(Data<int64_t>(diff), (std::vector<int64_t>{9, 18, 27, 6, 15, 24}));
  EXPECT_EQ(Data<int64_t>(q64), (std::vector<int64_t>{-3, 3, 3, -3}));
  EXPECT_EQ(Dtype(q32), DataType::kInt32);
  EXPECT_EQ(Data<int32_t>(q32), (std::vector<int32_t>{3, -4, 0}));
  EXPECT_EQ(Data<int32_t>(p32), (std::vector<int32_t>{15, -20}));
}

TEST(ConstantFoldingPassTest, FloatArithmeticFoldsInItsOwnType) {
  GraphBuilder g;
  ir::Value* q = g.Op("Div", "div", {g.ConstF("a", {2}, {1, 3}), g.ConstF("b", {1}, {2})});
  ir::Value* d =
      g.Op("Sub", "sub", {g.Const("c", F64({2}, {0.5, 1.0})), g.Const("e", F64({}, {0.25}))});
  ir::Value* n = g.Op("Neg", "neg", {g.ConstF("f", {2}, {1.5f, -2})});
  ir::Value* ni = g.Op("Neg", "negi", {g.ConstI("i", {3, -4})});
  for (ir::Value* v : {q, d, n, ni}) g.Out(v);

  EXPECT_TRUE(Fold(g));

  EXPECT_EQ(Data<float>(q), (std::vector<float>{0.5f, 1.5f}));
  EXPECT_EQ(Dtype(d), DataType::kFloat64);
  EXPECT_EQ(Data<double>(d), (std::vector<double>{0.25, 0.75}));
  EXPECT_EQ(Data<float>(n), (std::vector<float>{-1.5f, 2.0f}));
  EXPECT_EQ(Data<int64_t>(ni), (std::vector<int64_t>{-3, 4}));
}

// Folding runs the reference kernel, so a folded node gives what the runtime gives: integer
// division by zero is 0 there (kernels/reference/elementwise.cc).
TEST(ConstantFoldingPassTest, IntegerDivisionByZeroFoldsAsTheRuntimeComputesIt) {
  GraphBuilder g;
  ir::Value* q = g.Op("Div", "div", {g.ConstI("a", {1, 2}), g.ConstI("b", {1, 0})});
  g.Out(q);
  EXPECT_TRUE(Fold(g));
  EXPECT_EQ(g.OpTypes(), "");
  EXPECT_EQ(Data<int64_t>(q), (std::vector<int64_t>{1, 0}));
}

TEST(ConstantFoldingPassTest, CastConvertsBetweenTheSupportedTypes) {
  GraphBuilder g;
  auto cast = [&](const std::string& name, ir::Value* in, DataType to) {
    return g.Op("Cast", name, {in}, {{"to", static_cast<int64_t>(to)}});
  };
  ir::Value* f_to_i = cast("f2i", g.ConstF("f", {4}, {-1.7f, 2.5f, 0.0f, 3.9f}), DataType::kInt64);
  ir::Value* i_to_b = cast("i2b", g.ConstI("i", {0, 2, -1}), DataType::kBool);
  ir::Value* f_to_h = cast("f2h", g.ConstF("h", {2}, {1.5f, -2.0f}), DataType::kFloat16);
  ir::Value* wrap = cast("wrap", g.ConstI("w", {300, -1}), DataType::kUint8);
  ir::Value* narrow = cast("narrow", g.Const("n", I32({1}, {200})), DataType::kInt8);
  ir::Value* b_to_f = cast("b2f", g.Const("b", Bool({2}, {1, 0})), DataType::kFloat32);
  ir::Value* d_to_f = cast("d2f", g.Const("d", F64({1}, {0.25})), DataType::kFloat32);
  for (ir::Value* v : {f_to_i, i_to_b, f_to_h, wrap, narrow, b_to_f, d_to_f}) g.Out(v);

  EXPECT_TRUE(Fold(g));

  EXPECT_EQ(g.OpTypes(), "");
  EXPECT_EQ(Data<int64_t>(f_to_i), (std::vector<int64_t>{-1, 2, 0, 3}));
  EXPECT_EQ(Dtype(i_to_b), DataType::kBool);
  EXPECT_EQ(Data<uint8_t>(i_to_b), (std::vector<uint8_t>{0, 1, 1}));
  EXPECT_EQ(Dtype(f_to_h), DataType::kFloat16);
  EXPECT_EQ(Data<uint16_t>(f_to_h), (std::vector<uint16_t>{0x3E00, 0xC000}));
  EXPECT_EQ(Data<uint8_t>(wrap), (std::vector<uint8_t>{44, 255}));
  EXPECT_EQ(Data<int8_t>(narrow), (std::vector<int8_t>{-56}));
  EXPECT_EQ(Data<float>(b_to_f), (std::vector<float>{1.0f, 0.0f}));
  EXPECT_EQ(Data<float>(d_to_f), (std::vector<float>{0.25f}));
}

// NaN to an integer is 0 in the reference kernel, the runtime's definition; folding agrees.
TEST(ConstantFoldingPassTest, CastOfNanToAnIntegerFoldsAsTheRuntimeComputesIt) {
  GraphBuilder g;
  ir::Value* nan = g.ConstF("nan", {1}, {std::numeric_limits<float>::quiet_NaN()});
  ir::Value* c = g.Op("Cast", "c", {nan}, {{"to", static_cast<int64_t>(DataType::kInt32)}});
  g.Out(c);
  EXPECT_TRUE(Fold(g));
  EXPECT_EQ(Data<int32_t>(c), (std::vector<int32_t>{0}));
}

TEST(ConstantFoldingPassTest, GatherTakesAnyAxisAndNegativeIndices) {
  GraphBuilder g;
  ir::Value* m = g.Const("m", I64({2, 3}, {1, 2, 3, 4, 5, 6}));
  ir::Value* cols = g.Op("Gather", "cols", {m, g.ConstI("ci", {-1, 0})}, {{"axis", int64_t{1}}});
  ir::Value* row = g.Op("Gather", "row", {m, g.Const("ri", I64({}, {1}))});
  ir::Value* f =
      g.Op("Gather", "f",
           {g.ConstF("fv", {3}, {0.5f, 1.5f, 2.5f}), g.Const("fi", I32({2, 2}, {2, 0, 1, 1}))});
  for (ir::Value* v : {cols, row, f}) g.Out(v);

  EXPECT_TRUE(Fold(g));

  EXPECT_EQ(Dims(cols), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(Data<int64_t>(cols), (std::vector<int64_t>{3, 1, 6, 4}));
  EXPECT_EQ(Dims(row), (std::vector<int64_t>{3}));
  EXPECT_EQ(Data<int64_t>(row), (std::vector<int64_t>{4, 5, 6}));
  EXPECT_EQ(Dims(f), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(Data<float>(f), (std::vector<float>{2.5f, 0.5f, 1.5f, 1.5f}));
}

TEST(ConstantFoldingPassTest, GatherIndexOutOfRangeIsNotFolded) {
  GraphBuilder g;
  g.Out(g.Op("Gather", "g", {g.ConstI("d", {1, 2, 3}), g.ConstI("i", {3})}));
  EXPECT_FALSE(Fold(g));
}

TEST(ConstantFoldingPassTest, UnsqueezeAndSqueezeReadAxesFromAttributesBeforeOpset13) {
  GraphBuilder g;
  ir::Value* scalar = g.Const("s", I64({}, {5}));
  ir::Value* u11 = g.Op("Unsqueeze", "u11", {scalar}, {{"axes", std::vector<int64_t>{0}}}, 11);
  ir::Value* m = g.Const("m", I64({2, 3}, {1, 2, 3, 4, 5, 6}));
  ir::Value* u13 = g.Op("Unsqueeze", "u13", {m, g.ConstI("ax", {-1, 0})}, {}, 13);
  ir::Value* t = g.Const("t", I64({1, 2, 1}, {7, 8}));
  ir::Value* s11 = g.Op("Squeeze", "s11", {t}, {{"axes", std::vector<int64_t>{-1}}}, 11);
  ir::Value* s13 = g.Op("Squeeze", "s13", {t}, {}, 13);  // no axes: every 1 goes
  for (ir::Value* v : {u11, u13, s11, s13}) g.Out(v);

  EXPECT_TRUE(Fold(g));

  EXPECT_EQ(g.OpTypes(), "");
  EXPECT_EQ(Dims(u11), (std::vector<int64_t>{1}));
  EXPECT_EQ(Data<int64_t>(u11), (std::vector<int64_t>{5}));
  EXPECT_EQ(Dims(u13), (std::vector<int64_t>{1, 2, 3, 1}));
  EXPECT_EQ(Data<int64_t>(u13), (std::vector<int64_t>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(Dims(s11), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(Dims(s13), (std::vector<int64_t>{2}));
  EXPECT_EQ(Data<int64_t>(s13), (std::vector<int64_t>{7, 8}));
}

TEST(ConstantFoldingPassTest, ConcatJoinsAlongANegativeAxis) {
  GraphBuilder g;
  ir::Value* a = g.Const("a", I64({2, 1}, {1, 2}));
  ir::Value* b = g.Const("b", I64({2, 2}, {3, 4, 5, 6}));
  ir::Value* c = FoldOne(g, "Concat", {a, b}, {{"axis", int64_t{-1}}});
  EXPECT_EQ(Dims(c), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(Data<int64_t>(c), (std::vector<int64_t>{1, 3, 4, 2, 5, 6}));
}

TEST(ConstantFoldingPassTest, SliceClampsBoundsAndWalksNegativeSteps) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  GraphBuilder g;
  ir::Value* r = g.ConstI("r", {0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  ir::Value* back =
      g.Op("Slice", "back",
           {r, g.ConstI("s1", {8}), g.ConstI("e1", {1}), nullptr, g.ConstI("st1", {-3})});
  ir::Value* to_end = g.Op("Slice", "to_end", {r, g.ConstI("s2", {7}), g.ConstI("e2", {kMax})});
  ir::Value* reversed = g.Op("Slice", "rev",
                             {r, g.ConstI("s3", {-1}), g.ConstI("e3", {kMin}), g.ConstI("a3", {0}),
                              g.ConstI("st3", {-4})});
  ir::Value* whole = g.Op("Slice", "whole",
                          {r, g.ConstI("s5", {kMax}), g.ConstI("e5", {kMin}), g.ConstI("a5", {0}),
                           g.ConstI("st5", {-1})});
  ir::Value* m = g.Const("m", I64({2, 4}, {0, 1, 2, 3, 4, 5, 6, 7}));
  ir::Value* cols =
      g.Op("Slice", "cols", {m, g.ConstI("s4", {1}), g.ConstI("e4", {3}), g.ConstI("a4", {-1})});
  ir::Value* v9 =
      g.Op("Slice", "v9", {g.ConstI("t", {10, 20, 30})},
           {{"starts", std::vector<int64_t>{0}}, {"ends", std::vector<int64_t>{-1}}}, 9);
  for (ir::Value* v : {back, to_end, reversed, whole, cols, v9}) g.Out(v);

  EXPECT_TRUE(Fold(g));

  EXPECT_EQ(g.OpTypes(), "");
  EXPECT_EQ(Data<int64_t>(back), (std::vector<int64_t>{8, 5, 2}));
  EXPECT_EQ(Data<int64_t>(to_end), (std::vector<int64_t>{7, 8, 9}));
  EXPECT_EQ(Data<int64_t>(reversed), (std::vector<int64_t>{9, 5, 1}));
  EXPECT_EQ(Data<int64_t>(whole), (std::vector<int64_t>{9, 8, 7, 6, 5, 4, 3, 2, 1, 0}));
  EXPECT_EQ(Dims(cols), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(Data<int64_t>(cols), (std::vector<int64_t>{1, 2, 5, 6}));
  EXPECT_EQ(Data<int64_t>(v9), (std::vector<int64_t>{10, 20}));
}

TEST(ConstantFoldingPassTest, ReshapeCopiesZeroDimsAndInfersMinusOne) {
  GraphBuilder g;
  std::vector<int64_t> values(24);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<int64_t>(i);
  ir::Value* data = g.Const("data", I64({2, 3, 4}, values));
  ir::Value* r = FoldOne(g, "Reshape", {data, g.ConstI("shape", {0, -1})});
  EXPECT_EQ(Dims(r), (std::vector<int64_t>{2, 12}));
  EXPECT_EQ(Data<int64_t>(r), values);
}

TEST(ConstantFoldingPassTest, TransposeFollowsPermOrReversesByDefault) {
  GraphBuilder g;
  ir::Value* m = g.Const("m", I64({2, 3}, {1, 2, 3, 4, 5, 6}));
  ir::Value* t = g.Op("Transpose", "t", {m});
  ir::Value* c = g.Const("c", I64({2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7}));
  // out[i][j][k] = c[j][k][i] = 4j + 2k + i.
  ir::Value* p = g.Op("Transpose", "p", {c}, {{"perm", std::vector<int64_t>{2, 0, 1}}});
  g.Out(t);
  g.Out(p);

  EXPECT_TRUE(Fold(g));

  EXPECT_EQ(Dims(t), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(Data<int64_t>(t), (std::vector<int64_t>{1, 4, 2, 5, 3, 6}));
  EXPECT_EQ(Data<int64_t>(p), (std::vector<int64_t>{0, 2, 4, 6, 1, 3, 5, 7}));
}

TEST(ConstantFoldingPassTest, ExpandBroadcastsBothWays) {
  GraphBuilder g;
  ir::Value* col = g.Const("col", I64({2, 1}, {1, 2}));
  ir::Value* e1 = g.Op("Expand", "e1", {col, g.ConstI("s1", {2, 3})});
  ir::Value* e2 = g.Op("Expand", "e2", {g.ConstI("row", {1, 2, 3}), g.ConstI("s2", {2, 1})});
  g.Out(e1);
  g.Out(e2);

  EXPECT_TRUE(Fold(g));

  EXPECT_EQ(Dims(e1), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(Data<int64_t>(e1), (std::vector<int64_t>{1, 1, 1, 2, 2, 2}));
  EXPECT_EQ(Dims(e2), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(Data<int64_t>(e2), (std::vector<int64_t>{1, 2, 3, 1, 2, 3}));
}

TEST(ConstantFoldingPassTest, RangeCountsUpDownAndEmpty) {
  GraphBuilder g;
  auto i64 = [&](const std::string& n, int64_t v) { return g.Const(n, I64({}, {v})); };
  ir::Value* up = g.Op("Range", "up", {i64("a0", 0), i64("a1", 10), i64("a2", 3)});
  ir::Value* down = g.Op("Range", "down", {i64("b0", 10), i64("b1", 4), i64("b2", -2)});
  ir::Value* empty = g.Op("Range", "empty", {i64("c0", 5), i64("c1", 1), i64("c2", 1)});
  ir::Value* f = g.Op("Range", "f",
                      {g.Const("f0", F32({}, {1.0f})), g.Const("f1", F32({}, {2.0f})),
                       g.Const("f2", F32({}, {0.25f}))});
  for (ir::Value* v : {up, down, empty, f}) g.Out(v);

  EXPECT_TRUE(Fold(g));

  EXPECT_EQ(Data<int64_t>(up), (std::vector<int64_t>{0, 3, 6, 9}));
  EXPECT_EQ(Data<int64_t>(down), (std::vector<int64_t>{10, 8, 6}));
  EXPECT_EQ(Dims(empty), (std::vector<int64_t>{0}));
  EXPECT_EQ(Data<float>(f), (std::vector<float>{1.0f, 1.25f, 1.5f, 1.75f}));
}

TEST(ConstantFoldingPassTest, ConstantOfShapeFillsWithItsValueOrFloatZero) {
  GraphBuilder g;
  ir::Value* zeros = g.Op("ConstantOfShape", "z", {g.ConstI("s1", {2, 2})});
  ir::Value* sevens =
      g.Op("ConstantOfShape", "sev", {g.ConstI("s2", {3})}, {{"value", I64({1}, {7})}});
  ir::Value* scalar =
      g.Op("ConstantOfShape", "sc", {g.ConstI("s3", {})}, {{"value", I32({1}, {4})}});
  for (ir::Value* v : {zeros, sevens, scalar}) g.Out(v);

  EXPECT_TRUE(Fold(g));

  EXPECT_EQ(Dtype(zeros), DataType::kFloat32);
  EXPECT_EQ(Data<float>(zeros), (std::vector<float>{0, 0, 0, 0}));
  EXPECT_EQ(Data<int64_t>(sevens), (std::vector<int64_t>{7, 7, 7}));
  EXPECT_EQ(Dims(scalar), (std::vector<int64_t>{}));
  EXPECT_EQ(Data<int32_t>(scalar), (std::vector<int32_t>{4}));
}

TEST(ConstantFoldingPassTest, ComparisonsNotAndWhereProduceAndPickElements) {
  GraphBuilder g;
  ir::Value* eq = g.Op("Equal", "eq", {g.ConstI("a", {1, 2, 3}), g.ConstI("b", {1, 0, 3})});
  ir::Value* lt = g.Op("Less", "lt", {g.ConstF("f", {2}, {1, 5}), g.Const("three", F32({}, {3}))});
  ir::Value* gt = g.Op("Greater", "gt", {g.ConstI("c", {1, 5}), g.ConstI("d", {2})});
  ir::Value* no = g.Op("Not", "not", {g.Const("t", Bool({2}, {1, 0}))});
  ir::Value* pick = g.Op("Where", "where",
                         {g.Const("cond", Bool({3}, {1, 0, 1})), g.ConstI("x", {1, 2, 3}),
                          g.Const("y", I64({}, {0}))});
  for (ir::Value* v : {eq, lt, gt, no, pick}) g.Out(v);

  EXPECT_TRUE(Fold(g));

  EXPECT_EQ(g.OpTypes(), "");
  EXPECT_EQ(Dtype(eq), DataType::kBool);
  EXPECT_EQ(Data<uint8_t>(eq), (std::vector<uint8_t>{1, 0, 1}));
  EXPECT_EQ(Data<uint8_t>(lt), (std::vector<uint8_t>{1, 0}));
  EXPECT_EQ(Data<uint8_t>(gt), (std::vector<uint8_t>{0, 1}));
  EXPECT_EQ(Data<uint8_t>(no), (std::vector<uint8_t>{0, 1}));
  EXPECT_EQ(Data<int64_t>(pick), (std::vector<int64_t>{1, 0, 3}));
}

TEST(ConstantFoldingPassTest, MinAndMaxTakeAnyNumberOfBroadcastInputs) {
  GraphBuilder g;
  ir::Value* a = g.ConstI("a", {1, 5, 3});
  ir::Value* b = g.ConstI("b", {4, 2, 6});
  ir::Value* mx = g.Op("Max", "max", {a, b, g.ConstI("zero", {0})});
  ir::Value* mn = g.Op("Min", "min", {a, b, g.Const("two", I64({}, {2}))});
  ir::Value* one = g.Op("Max", "one", {g.ConstF("f", {2}, {-1, 1})});
  for (ir::Value* v : {mx, mn, one}) g.Out(v);

  EXPECT_TRUE(Fold(g));

  EXPECT_EQ(Data<int64_t>(mx), (std::vector<int64_t>{4, 5, 6}));
  EXPECT_EQ(Data<int64_t>(mn), (std::vector<int64_t>{1, 2, 2}));
  EXPECT_EQ(Data<float>(one), (std::vector<float>{-1, 1}));
}

TEST(ConstantFoldingPassTest, SqrtReciprocalAndPowFoldOnFloats) {
  GraphBuilder g;
  ir::Value* sq = g.Op("Sqrt", "sqrt", {g.ConstF("a", {3}, {4, 9, 0.25f})});
  ir::Value* rc = g.Op("Reciprocal", "rec", {g.Const("b", F64({2}, {4, -0.5}))});
  ir::Value* p1 = g.Op("Pow", "pow_int", {g.ConstF("c", {2}, {2, 4}), g.ConstI("three", {3})});
  ir::Value* p2 = g.Op("Pow", "pow_half", {g.ConstF("d", {2}, {4, 9}), g.ConstF("h", {}, {0.5f})});
  ir::Value* int_sqrt = g.Op("Sqrt", "int_sqrt", {g.ConstI("i", {4})});  // floats only
  for (ir::Value* v : {sq, rc, p1, p2, int_sqrt}) g.Out(v);

  EXPECT_TRUE(Fold(g));

  EXPECT_EQ(g.OpTypes(), "Sqrt");
  EXPECT_EQ(Data<float>(sq), (std::vector<float>{2, 3, 0.5f}));
  EXPECT_EQ(Data<double>(rc), (std::vector<double>{0.25, -2}));
  EXPECT_EQ(Dtype(p1), DataType::kFloat32);
  EXPECT_EQ(Data<float>(p1), (std::vector<float>{8, 64}));
  EXPECT_EQ(Data<float>(p2), (std::vector<float>{2, 3}));
}

TEST(ConstantFoldingPassTest, ReduceProdAndReduceSumFoldIntegerShapeMath) {
  GraphBuilder g;
  ir::Value* m = g.Const("m", I64({2, 3}, {1, 2, 3, 4, 5, 6}));
  ir::Value* rows = g.Op("ReduceProd", "rows", {m},
                         {{"axes", std::vector<int64_t>{1}}, {"keepdims", int64_t{0}}}, 13);
  ir::Value* all = g.Op("ReduceProd", "all", {m}, {}, 13);
  ir::Value* cols = g.Op("ReduceSum", "cols", {m, g.ConstI("ax", {0})}, {}, 13);
  ir::Value* noop = g.Op("ReduceSum", "noop", {m}, {{"noop_with_empty_axes", int64_t{1}}}, 13);
  ir::Value* all32 = g.Op("ReduceSum", "all32", {g.Const("m32", I32({2, 2}, {1, 2, 3, 4}))},
                          {{"keepdims", int64_t{0}}}, 13);
  for (ir::Value* v : {rows, all, cols, noop, all32}) g.Out(v);

  EXPECT_TRUE(Fold(g));

  EXPECT_EQ(g.OpTypes(), "");
  EXPECT_EQ(Dims(rows), (std::vector<int64_t>{2}));
  EXPECT_EQ(Data<int64_t>(rows), (std::vector<int64_t>{6, 120}));
  EXPECT_EQ(Dims(all), (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(Data<int64_t>(all), (std::vector<int64_t>{720}));
  EXPECT_EQ(Dims(cols), (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(Data<int64_t>(cols), (std::vector<int64_t>{5, 7, 9}));
  EXPECT_EQ(Dims(noop), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(Dims(all32), (std::vector<int64_t>{}));
  EXPECT_EQ(Data<int32_t>(all32), (std::vector<int32_t>{10}));
}

TEST(ConstantFoldingPassTest, IdentityOfAConstantFolds) {
  GraphBuilder g;
  ir::Value* id = FoldOne(g, "Identity", {g.ConstF("w", {2}, {1, 2})});
  EXPECT_EQ(id->name(), "n_out0");
  EXPECT_EQ(Data<float>(id), (std::vector<float>{1, 2}));
}

}  // namespace
}  // namespace kiln::compiler
