// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "kernel_test_util.h"

namespace kiln::kernels {
namespace {

using testing::Def;
using testing::F32;
using testing::I64;
using testing::Make;
using testing::Values;

// What a body does: graph index and inputs in, outputs out.
using Body = std::function<Result<std::vector<HostTensor>>(int, const std::vector<TensorView>&)>;

// A TestContext whose RunGraph runs a C++ lambda instead of a graph; it records the calls.
class BodyContext : public testing::TestContext {
 public:
  BodyContext(std::vector<const HostTensor*> inputs, std::vector<DataType> out_types, Body body)
      : TestContext(std::move(inputs), std::move(out_types)), body_(std::move(body)) {}
  Result<std::vector<HostTensor>> RunGraph(int graph,
                                           const std::vector<TensorView>& inputs) override {
    graphs_run.push_back(graph);
    return body_(graph, inputs);
  }
  std::vector<int> graphs_run;

 private:
  Body body_;
};

struct Ran {
  Status status;
  std::vector<HostTensor> outputs;
  std::vector<int> graphs_run;
};

Ran RunWithBody(const NodeDef& def, const std::vector<const HostTensor*>& inputs, Body body) {
  auto kernel = KernelRegistry::Global().Create(kReferenceBackend, def);
  if (!kernel.ok()) return {kernel.status(), {}, {}};
  BodyContext ctx(inputs, def.output_types, std::move(body));
  Status s = (*kernel)->Run(ctx);
  return {s, ctx.outputs(), ctx.graphs_run};
}

HostTensor Bool(bool v) { return Make<uint8_t>(DataType::kBool, {}, {uint8_t{v}}); }
HostTensor Scalar64(int64_t v) { return I64({}, {v}); }

template <typename T>
T Get(const TensorView& v, int64_t i = 0) {
  return v.as<const T>()[i];
}

// ---- If ------------------------------------------------------------------------------------

NodeDef IfDef(const HostTensor& cond, std::vector<DataType> outs = {DataType::kFloat32}) {
  NodeDef def = Def("If", {&cond}, std::move(outs), 13);
  def.graphs["then_branch"] = 1;
  def.graphs["else_branch"] = 2;
  return def;
}

// Branch g returns [g, g] so the test sees which one ran.
Result<std::vector<HostTensor>> WhichBranch(int g, const std::vector<TensorView>& in) {
  EXPECT_TRUE(in.empty());
  return std::vector<HostTensor>{F32({2}, {float(g), float(g)})};
}

TEST(ControlFlowKernelTest, IfRunsThenBranchWhenTrue) {
  HostTensor cond = Bool(true);
  Ran r = RunWithBody(IfDef(cond), {&cond}, WhichBranch);
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  EXPECT_EQ(r.graphs_run, (std::vector<int>{1}));
  EXPECT_EQ(r.outputs[0].dims, (Dims{2}));
  EXPECT_EQ(Values<float>(r.outputs[0]), (std::vector<float>{1, 1}));
}

TEST(ControlFlowKernelTest, IfRunsElseBranchWhenFalse) {
  HostTensor cond = Make<uint8_t>(DataType::kBool, {1}, {0});  // a one-element 1-D cond
  Ran r = RunWithBody(IfDef(cond), {&cond}, WhichBranch);
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  EXPECT_EQ(r.graphs_run, (std::vector<int>{2}));
  EXPECT_EQ(Values<float>(r.outputs[0]), (std::vector<float>{2, 2}));
}

TEST(ControlFlowKernelTest, IfRejectsBadCondAndBadBranchResults) {
  HostTensor two = Make<uint8_t>(DataType::kBool, {2}, {1, 1});
  Ran r = RunWithBody(IfDef(two), {&two}, WhichBranch);
  EXPECT_EQ(r.status.code(), code::kInvalidParam);
  EXPECT_TRUE(r.graphs_run.empty());
  HostTensor f = F32({}, {1});
  r = RunWithBody(IfDef(f), {&f}, WhichBranch);
  EXPECT_EQ(r.status.code(), code::kInvalidParam);

  HostTensor cond = Bool(true);
  r = RunWithBody(IfDef(cond, {DataType::kFloat32, DataType::kFloat32}), {&cond}, WhichBranch);
  EXPECT_EQ(r.status.code(), code::kInvalidParam);  // one output for two
  r = RunWithBody(IfDef(cond, {DataType::kInt64}), {&cond}, WhichBranch);
  EXPECT_EQ(r.status.code(), code::kInvalidParam);  // float for int64

  NodeDef no_else = IfDef(cond);
  no_else.graphs.erase("else_branch");
  r = RunWithBody(no_else, {&cond}, WhichBranch);
  EXPECT_EQ(r.status.code(), code::kInvalidParam);
}

TEST(ControlFlowKernelTest, IfPassesOnBodyErrors) {
  HostTensor cond = Bool(false);
  Ran r = RunWithBody(IfDef(cond), {&cond}, [](int, const std::vector<TensorView>&) {
    return Result<std::vector<HostTensor>>(Error(code::kRtModelExecute, "body failed"));
  });
  EXPECT_EQ(r.status.code(), code::kRtModelExecute);
  EXPECT_NE(r.status.message().find("body failed"), std::string::npos);
}

// ---- Loop ----------------------------------------------------------------------------------

NodeDef LoopDef(const std::vector<const HostTensor*>& inputs, std::vector<DataType> outs,
                std::vector<Dims> out_dims = {}) {
  NodeDef def = Def("Loop", inputs, std::move(outs), 13);
  def.graphs["body"] = 1;
  if (!out_dims.empty()) def.output_dims = std::move(out_dims);
  return def;
}

TEST(ControlFlowKernelTest, LoopCarriesValuesAndStacksScanOutputs) {
  // ONNX test_loop11: y += x[iter] for iter in [0, 5) with x = [1, 2, 3, 4, 5].
  HostTensor m = Scalar64(5);
  HostTensor cond = Bool(true);
  HostTensor y = F32({1}, {-2});
  NodeDef def = LoopDef({&m, &cond, &y}, {DataType::kFloat32, DataType::kFloat32});
  std::vector<int64_t> iters;
  Ran r = RunWithBody(def, {&m, &cond, &y}, [&](int g, const std::vector<TensorView>& in) {
    EXPECT_EQ(g, 1);
    EXPECT_EQ(in.size(), 3u);
    EXPECT_EQ(in[0].dtype, DataType::kInt64);
    EXPECT_EQ(in[0].dims, Dims{});
    EXPECT_EQ(in[1].dtype, DataType::kBool);
    const int64_t iter = Get<int64_t>(in[0]);
    iters.push_back(iter);
    const float next = Get<float>(in[2]) + static_cast<float>(iter + 1);
    return Result<std::vector<HostTensor>>(std::vector<HostTensor>{
        Bool(Get<uint8_t>(in[1]) != 0), F32({1}, {next}), F32({1}, {next})});
  });
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  EXPECT_EQ(iters, (std::vector<int64_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(r.outputs[0].dims, (Dims{1}));
  EXPECT_EQ(Values<float>(r.outputs[0]), (std::vector<float>{13}));
  EXPECT_EQ(r.outputs[1].dims, (Dims{5, 1}));
  EXPECT_EQ(Values<float>(r.outputs[1]), (std::vector<float>{-1, 1, 4, 8, 13}));
}

// Body: v -> v + 1, condition v + 1 < limit.
Body CountTo(int64_t limit, bool cond_value_matters = true) {
  return [=](int, const std::vector<TensorView>& in) {
    const int64_t v = Get<int64_t>(in[2]) + 1;
    return Result<std::vector<HostTensor>>(
        std::vector<HostTensor>{Bool(cond_value_matters && v < limit), I64({}, {v})});
  };
}

TEST(ControlFlowKernelTest, LoopWithCondOnlyIsAWhileLoop) {
  HostTensor cond = Bool(true);
  HostTensor v = Scalar64(0);
  NodeDef def = LoopDef({nullptr, &cond, &v}, {DataType::kInt64});
  Ran r = RunWithBody(def, {nullptr, &cond, &v}, CountTo(3));
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  EXPECT_EQ(r.graphs_run.size(), 3u);
  EXPECT_EQ(Values<int64_t>(r.outputs[0]), (std::vector<int64_t>{3}));
}

TEST(ControlFlowKernelTest, LoopWithTripCountOnlyIgnoresTheBodyCondition) {
  HostTensor m = Scalar64(4);
  HostTensor v = Scalar64(10);
  NodeDef def = LoopDef({&m, nullptr, &v}, {DataType::kInt64});
  Ran r = RunWithBody(def, {&m, nullptr, &v}, CountTo(0, /*cond_value_matters=*/false));
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  EXPECT_EQ(r.graphs_run.size(), 4u);
  EXPECT_EQ(Values<int64_t>(r.outputs[0]), (std::vector<int64_t>{14}));
}

TEST(ControlFlowKernelTest, LoopStopsAtTripCountOrConditionWhicheverComesFirst) {
  HostTensor m = Scalar64(2);
  HostTensor cond = Bool(true);
  HostTensor v = Scalar64(0);
  NodeDef def = LoopDef({&m, &cond, &v}, {DataType::kInt64});
  Ran r = RunWithBody(def, {&m, &cond, &v}, CountTo(100));
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  EXPECT_EQ(Values<int64_t>(r.outputs[0]), (std::vector<int64_t>{2}));
  HostTensor m9 = Scalar64(9);
  r = RunWithBody(def, {&m9, &cond, &v}, CountTo(5));
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  EXPECT_EQ(Values<int64_t>(r.outputs[0]), (std::vector<int64_t>{5}));
}

TEST(ControlFlowKernelTest, LoopWithNeitherTripCountNorCondEndsOnTheBodyCondition) {
  HostTensor v = Scalar64(0);
  NodeDef def = LoopDef({nullptr, nullptr, &v}, {DataType::kInt64});
  Ran r = RunWithBody(def, {nullptr, nullptr, &v}, CountTo(7));
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  EXPECT_EQ(Values<int64_t>(r.outputs[0]), (std::vector<int64_t>{7}));
}

TEST(ControlFlowKernelTest, LoopWithNoIterationsReturnsInitialValuesAndEmptyScans) {
  HostTensor m = Scalar64(0);
  HostTensor cond = Bool(true);
  HostTensor v = F32({2}, {1, 2});
  NodeDef def = LoopDef({&m, &cond, &v}, {DataType::kFloat32, DataType::kFloat32}, {{2}, {-1, 3}});
  auto never = [](int, const std::vector<TensorView>&) {
    ADD_FAILURE() << "the body must not run";
    return Result<std::vector<HostTensor>>(std::vector<HostTensor>{});
  };
  Ran r = RunWithBody(def, {&m, &cond, &v}, never);
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  EXPECT_EQ(Values<float>(r.outputs[0]), (std::vector<float>{1, 2}));
  EXPECT_EQ(r.outputs[1].dims, (Dims{0, 3}));
  HostTensor m5 = Scalar64(5);
  HostTensor no = Bool(false);
  r = RunWithBody(def, {&m5, &no, &v}, never);
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  EXPECT_EQ(Values<float>(r.outputs[0]), (std::vector<float>{1, 2}));
}

TEST(ControlFlowKernelTest, LoopRejectsInconsistentBodyResults) {
  HostTensor m = Scalar64(3);
  HostTensor v = Scalar64(0);
  NodeDef def = LoopDef({&m, nullptr, &v}, {DataType::kInt64, DataType::kInt64});
  // The scan element grows each iteration.
  Ran r = RunWithBody(def, {&m, nullptr, &v}, [](int, const std::vector<TensorView>& in) {
    const int64_t i = Get<int64_t>(in[0]);
    HostTensor elem(DataType::kInt64, {i + 1});
    return Result<std::vector<HostTensor>>(
        std::vector<HostTensor>{Bool(true), I64({}, {i}), std::move(elem)});
  });
  EXPECT_EQ(r.status.code(), code::kInvalidParam);
  // A carried value changes type.
  NodeDef one = LoopDef({&m, nullptr, &v}, {DataType::kInt64});
  r = RunWithBody(one, {&m, nullptr, &v}, [](int, const std::vector<TensorView>&) {
    return Result<std::vector<HostTensor>>(std::vector<HostTensor>{Bool(true), F32({}, {1})});
  });
  EXPECT_EQ(r.status.code(), code::kInvalidParam);
  // Too few body outputs.
  r = RunWithBody(one, {&m, nullptr, &v}, [](int, const std::vector<TensorView>&) {
    return Result<std::vector<HostTensor>>(std::vector<HostTensor>{Bool(true)});
  });
  EXPECT_EQ(r.status.code(), code::kInvalidParam);
  // A trip count that is not int64.
  HostTensor m32 = Make<int32_t>(DataType::kInt32, {}, {3});
  r = RunWithBody(one, {&m32, nullptr, &v}, CountTo(5));
  EXPECT_EQ(r.status.code(), code::kInvalidParam);
}

// ---- Scan ----------------------------------------------------------------------------------

NodeDef ScanDef(const std::vector<const HostTensor*>& inputs, size_t n_out, int64_t n_scan_in) {
  NodeDef def = Def("Scan", inputs, std::vector<DataType>(n_out, DataType::kFloat32), 11);
  def.graphs["body"] = 1;
  def.attrs["num_scan_inputs"] = n_scan_in;
  return def;
}

// Body (sum, next) -> (sum + next, sum + next) over float vectors.
Result<std::vector<HostTensor>> Accumulate(int, const std::vector<TensorView>& in) {
  EXPECT_EQ(in.size(), 2u);
  EXPECT_EQ(in[0].dims, in[1].dims);
  HostTensor sum(DataType::kFloat32, in[0].dims);
  for (int64_t i = 0; i < in[0].num_elements(); ++i) {
    reinterpret_cast<float*>(sum.bytes.data())[i] = Get<float>(in[0], i) + Get<float>(in[1], i);
  }
  HostTensor copy = sum;
  return std::vector<HostTensor>{std::move(sum), std::move(copy)};
}

TEST(ControlFlowKernelTest, ScanSumsRowsAndStacksRunningSums) {
  // ONNX test_scan9_sum.
  HostTensor init = F32({2}, {0, 0});
  HostTensor x = F32({3, 2}, {1, 2, 3, 4, 5, 6});
  Ran r = RunWithBody(ScanDef({&init, &x}, 2, 1), {&init, &x}, Accumulate);
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  EXPECT_EQ(Values<float>(r.outputs[0]), (std::vector<float>{9, 12}));
  EXPECT_EQ(r.outputs[1].dims, (Dims{3, 2}));
  EXPECT_EQ(Values<float>(r.outputs[1]), (std::vector<float>{1, 2, 4, 6, 9, 12}));
}

TEST(ControlFlowKernelTest, ScanDirectionsReverseInputsAndOutputs) {
  HostTensor init = F32({2}, {0, 0});
  HostTensor x = F32({3, 2}, {1, 2, 3, 4, 5, 6});
  NodeDef rin = ScanDef({&init, &x}, 2, 1);
  rin.attrs["scan_input_directions"] = std::vector<int64_t>{1};
  Ran r = RunWithBody(rin, {&init, &x}, Accumulate);
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  EXPECT_EQ(Values<float>(r.outputs[1]), (std::vector<float>{5, 6, 8, 10, 9, 12}));
  NodeDef rout = ScanDef({&init, &x}, 2, 1);
  rout.attrs["scan_output_directions"] = std::vector<int64_t>{1};
  r = RunWithBody(rout, {&init, &x}, Accumulate);
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  EXPECT_EQ(Values<float>(r.outputs[1]), (std::vector<float>{9, 12, 4, 6, 1, 2}));
}

TEST(ControlFlowKernelTest, ScanAlongOtherAxes) {
  HostTensor init = F32({2}, {0, 0});
  HostTensor x = F32({2, 3}, {1, 2, 3, 4, 5, 6});  // slices along axis 1: [1,4] [2,5] [3,6]
  NodeDef def = ScanDef({&init, &x}, 2, 1);
  def.attrs["scan_input_axes"] = std::vector<int64_t>{1};
  def.attrs["scan_output_axes"] = std::vector<int64_t>{-1};
  Ran r = RunWithBody(def, {&init, &x}, Accumulate);
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  EXPECT_EQ(Values<float>(r.outputs[0]), (std::vector<float>{6, 15}));
  EXPECT_EQ(r.outputs[1].dims, (Dims{2, 3}));
  EXPECT_EQ(Values<float>(r.outputs[1]), (std::vector<float>{1, 3, 6, 4, 9, 15}));
}

TEST(ControlFlowKernelTest, ScanOfLengthZeroReturnsInitialState) {
  HostTensor init = F32({2}, {7, 8});
  HostTensor x = F32({0, 2}, {});
  NodeDef def = ScanDef({&init, &x}, 2, 1);
  def.output_dims = {{2}, {-1, 2}};
  Ran r = RunWithBody(def, {&init, &x}, Accumulate);
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  EXPECT_TRUE(r.graphs_run.empty());
  EXPECT_EQ(Values<float>(r.outputs[0]), (std::vector<float>{7, 8}));
  EXPECT_EQ(r.outputs[1].dims, (Dims{0, 2}));
}

TEST(ControlFlowKernelTest, ScanRejectsBadAttributesAndMismatchedLengths) {
  HostTensor init = F32({2}, {0, 0});
  HostTensor x = F32({3, 2}, {1, 2, 3, 4, 5, 6});
  HostTensor x4 = F32({4, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  // Two scan inputs of lengths 3 and 4 (and no state).
  NodeDef two = ScanDef({&x, &x4}, 0, 2);
  Ran r = RunWithBody(two, {&x, &x4}, Accumulate);
  EXPECT_EQ(r.status.code(), code::kInvalidParam);
  NodeDef no_count = ScanDef({&init, &x}, 2, 1);
  no_count.attrs.erase("num_scan_inputs");
  r = RunWithBody(no_count, {&init, &x}, Accumulate);
  EXPECT_EQ(r.status.code(), code::kInvalidParam);
  NodeDef bad_dir = ScanDef({&init, &x}, 2, 1);
  bad_dir.attrs["scan_input_directions"] = std::vector<int64_t>{2};
  r = RunWithBody(bad_dir, {&init, &x}, Accumulate);
  EXPECT_EQ(r.status.code(), code::kInvalidParam);
  NodeDef bad_axis = ScanDef({&init, &x}, 2, 1);
  bad_axis.attrs["scan_input_axes"] = std::vector<int64_t>{2};
  r = RunWithBody(bad_axis, {&init, &x}, Accumulate);
  EXPECT_EQ(r.status.code(), code::kInvalidParam);
  NodeDef wrong_count = ScanDef({&init, &x}, 2, 1);
  wrong_count.attrs["scan_output_axes"] = std::vector<int64_t>{0, 0};
  r = RunWithBody(wrong_count, {&init, &x}, Accumulate);
  EXPECT_EQ(r.status.code(), code::kInvalidParam);
}

}  // namespace
}  // namespace kiln::kernels
