// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "kernel_test_util.h"

namespace kiln::kernels {
namespace {

using testing::Def;
using testing::F32;
using testing::I64;
using testing::Make;
using testing::RunReference;
using testing::Values;

constexpr float kInf = std::numeric_limits<float>::infinity();

// data[3,2,2] = 1..12, the ONNX node tests' example.
HostTensor Example() { return F32({3, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}); }

// Runs `op` on x (and optional axes input) and returns output 0; fails the test on error.
HostTensor Reduce(const std::string& op, const HostTensor& x, const HostTensor* axes, int opset,
                  int64_t keepdims = 1, int64_t noop = 0) {
  std::vector<const HostTensor*> inputs{&x};
  if (axes != nullptr) inputs.push_back(axes);
  NodeDef def = Def(op, inputs, {x.dtype}, opset);
  def.attrs["keepdims"] = keepdims;
  if (noop) def.attrs["noop_with_empty_axes"] = noop;
  auto out = RunReference(def, inputs);
  EXPECT_TRUE(out.ok()) << out.status().message();
  return out.ok() ? (*out)[0] : HostTensor();
}

// The same with the axes as an attribute (the opsets before the axes input).
HostTensor ReduceAttr(const std::string& op, const HostTensor& x, std::vector<int64_t> axes,
                      int opset, int64_t keepdims = 1) {
  NodeDef def = Def(op, {&x}, {x.dtype}, opset);
  if (!axes.empty()) def.attrs["axes"] = axes;
  def.attrs["keepdims"] = keepdims;
  auto out = RunReference(def, {&x});
  EXPECT_TRUE(out.ok()) << out.status().message();
  return out.ok() ? (*out)[0] : HostTensor();
}

TEST(ReduceKernelTest, SumOverAxisInputKeepsDims) {
  HostTensor x = Example();
  HostTensor axes = I64({1}, {1});
  HostTensor y = Reduce("ReduceSum", x, &axes, 13);
  EXPECT_EQ(y.dims, (Dims{3, 1, 2}));
  EXPECT_EQ(Values<float>(y), (std::vector<float>{4, 6, 12, 14, 20, 22}));
}

TEST(ReduceKernelTest, SumWithNegativeAxesDropsDims) {
  HostTensor x = Example();
  HostTensor axes = I64({2}, {-1, 0});
  HostTensor y = Reduce("ReduceSum", x, &axes, 13, /*keepdims=*/0);
  EXPECT_EQ(y.dims, (Dims{2}));
  // Rows (1+2)+(5+6)+(9+10) and (3+4)+(7+8)+(11+12).
  EXPECT_EQ(Values<float>(y), (std::vector<float>{33, 45}));
}

TEST(ReduceKernelTest, SumWithoutAxesReducesEverything) {
  HostTensor x = Example();
  HostTensor kept = Reduce("ReduceSum", x, nullptr, 13);
  EXPECT_EQ(kept.dims, (Dims{1, 1, 1}));
  EXPECT_EQ(Values<float>(kept), (std::vector<float>{78}));
  HostTensor empty_axes = I64({0}, {});
  HostTensor dropped = Reduce("ReduceSum", x, &empty_axes, 13, /*keepdims=*/0);
  EXPECT_EQ(dropped.dims, (Dims{}));
  EXPECT_EQ(Values<float>(dropped), (std::vector<float>{78}));
}

TEST(ReduceKernelTest, SumWithEmptyAxesAndNoopIsIdentity) {
  HostTensor x = Example();
  HostTensor axes = I64({0}, {});
  HostTensor y = Reduce("ReduceSum", x, &axes, 13, 1, /*noop=*/1);
  EXPECT_EQ(y.dims, x.dims);
  EXPECT_EQ(Values<float>(y), Values<float>(x));
}

TEST(ReduceKernelTest, NoopStillAppliesTheElementwiseSteps) {
  HostTensor x = F32({3}, {1, -2, 4});
  HostTensor sq = Reduce("ReduceSumSquare", x, nullptr, 18, 1, /*noop=*/1);
  EXPECT_EQ(Values<float>(sq), (std::vector<float>{1, 4, 16}));
  HostTensor l1 = Reduce("ReduceL1", x, nullptr, 18, 1, /*noop=*/1);
  EXPECT_EQ(Values<float>(l1), (std::vector<float>{1, 2, 4}));
  HostTensor pos = F32({2}, {1, 4});
  HostTensor log = Reduce("ReduceLogSum", pos, nullptr, 18, 1, /*noop=*/1);
  EXPECT_FLOAT_EQ(Values<float>(log)[0], 0.f);
  EXPECT_FLOAT_EQ(Values<float>(log)[1], std::log(4.f));
}

TEST(ReduceKernelTest, MeanTakesAxesAttributeBeforeOpset18) {
  HostTensor x = Example();
  HostTensor y = ReduceAttr("ReduceMean", x, {1}, 17);
  EXPECT_EQ(y.dims, (Dims{3, 1, 2}));
  EXPECT_EQ(Values<float>(y), (std::vector<float>{2, 3, 6, 7, 10, 11}));
  HostTensor all = ReduceAttr("ReduceMean", x, {}, 11, /*keepdims=*/0);
  EXPECT_EQ(all.dims, (Dims{}));
  EXPECT_EQ(Values<float>(all), (std::vector<float>{6.5f}));
}

TEST(ReduceKernelTest, MeanTakesAxesInputFromOpset18) {
  HostTensor x = Example();
  HostTensor axes = I64({1}, {2});
  HostTensor y = Reduce("ReduceMean", x, &axes, 18, /*keepdims=*/0);
  EXPECT_EQ(y.dims, (Dims{3, 2}));
  EXPECT_EQ(Values<float>(y), (std::vector<float>{1.5f, 3.5f, 5.5f, 7.5f, 9.5f, 11.5f}));
}

TEST(ReduceKernelTest, MaxMinAndProdOverAnAxis) {
  HostTensor x = F32({2, 3}, {3, -1, 7, 2, 5, -4});
  EXPECT_EQ(Values<float>(ReduceAttr("ReduceMax", x, {1}, 13, 0)), (std::vector<float>{7, 5}));
  EXPECT_EQ(Values<float>(ReduceAttr("ReduceMin", x, {1}, 13, 0)), (std::vector<float>{-1, -4}));
  EXPECT_EQ(Values<float>(ReduceAttr("ReduceProd", x, {0}, 13, 0)),
            (std::vector<float>{6, -5, -28}));
}

TEST(ReduceKernelTest, NormsAndLogs) {
  HostTensor x = F32({2, 2}, {3, -4, 1, 2});
  HostTensor axes = I64({1}, {1});
  EXPECT_EQ(Values<float>(Reduce("ReduceL1", x, &axes, 18, 0)), (std::vector<float>{7, 3}));
  std::vector<float> l2 = Values<float>(Reduce("ReduceL2", x, &axes, 18, 0));
  EXPECT_FLOAT_EQ(l2[0], 5.f);
  EXPECT_FLOAT_EQ(l2[1], std::sqrt(5.f));
  EXPECT_EQ(Values<float>(Reduce("ReduceSumSquare", x, &axes, 18, 0)), (std::vector<float>{25, 5}));
  HostTensor pos = F32({2, 2}, {1, 2, 3, 4});
  std::vector<float> ls = Values<float>(Reduce("ReduceLogSum", pos, &axes, 18, 0));
  EXPECT_FLOAT_EQ(ls[0], std::log(3.f));
  EXPECT_FLOAT_EQ(ls[1], std::log(7.f));
}

TEST(ReduceKernelTest, LogSumExpIsStableAndHandlesInfinities) {
  HostTensor x = F32({4, 2}, {0, 0, 1000, 1000, -kInf, -kInf, 1, kInf});
  HostTensor axes = I64({1}, {1});
  std::vector<float> y = Values<float>(Reduce("ReduceLogSumExp", x, &axes, 18, 0));
  EXPECT_FLOAT_EQ(y[0], std::log(2.f));
  EXPECT_FLOAT_EQ(y[1], 1000.f + std::log(2.f));
  EXPECT_EQ(y[2], -kInf);
  EXPECT_EQ(y[3], kInf);
}

TEST(ReduceKernelTest, EmptySetGivesTheIdentityOfEachReduction) {
  HostTensor x = F32({2, 0, 4}, {});
  HostTensor axes = I64({1}, {1});
  auto all_equal = [](const HostTensor& t, float v) {
    EXPECT_EQ(t.dims, (Dims{2, 1, 4}));
    for (float f : Values<float>(t)) {
      if (std::isnan(v)) {
        EXPECT_TRUE(std::isnan(f));
      } else {
        EXPECT_EQ(f, v);
      }
    }
  };
  all_equal(Reduce("ReduceSum", x, &axes, 13), 0.f);
  all_equal(Reduce("ReduceSumSquare", x, &axes, 18), 0.f);
  all_equal(Reduce("ReduceL1", x, &axes, 18), 0.f);
  all_equal(Reduce("ReduceL2", x, &axes, 18), 0.f);
  all_equal(Reduce("ReduceProd", x, &axes, 18), 1.f);
  all_equal(Reduce("ReduceMax", x, &axes, 20), -kInf);
  all_equal(Reduce("ReduceMin", x, &axes, 20), kInf);
  all_equal(Reduce("ReduceLogSum", x, &axes, 18), -kInf);
  all_equal(Reduce("ReduceLogSumExp", x, &axes, 18), -kInf);
  all_equal(Reduce("ReduceMean", x, &axes, 18), std::nanf(""));
}

TEST(ReduceKernelTest, EmptySetOfIntegersUsesTheTypeRange) {
  HostTensor x = Make<int32_t>(DataType::kInt32, {0, 2}, {});
  HostTensor axes = I64({1}, {0});
  EXPECT_EQ(Values<int32_t>(Reduce("ReduceMax", x, &axes, 20, 0)),
            (std::vector<int32_t>{INT32_MIN, INT32_MIN}));
  EXPECT_EQ(Values<int32_t>(Reduce("ReduceMin", x, &axes, 20, 0)),
            (std::vector<int32_t>{INT32_MAX, INT32_MAX}));
  EXPECT_EQ(Values<int32_t>(Reduce("ReduceProd", x, &axes, 18, 0)), (std::vector<int32_t>{1, 1}));
}

TEST(ReduceKernelTest, EmptyNonReducedAxisGivesEmptyOutput) {
  HostTensor x = F32({2, 0, 4}, {});
  HostTensor axes = I64({1}, {2});
  HostTensor y = Reduce("ReduceSum", x, &axes, 13);
  EXPECT_EQ(y.dims, (Dims{2, 0, 1}));
  EXPECT_TRUE(y.bytes.empty());
}

TEST(ReduceKernelTest, MaxAndMinOfBoolAreOrAndAnd) {
  // bool is stored one byte per element.
  HostTensor x = Make<uint8_t>(DataType::kBool, {4, 2}, {1, 1, 1, 0, 0, 1, 0, 0});
  HostTensor axes = I64({1}, {1});
  EXPECT_EQ(Values<uint8_t>(Reduce("ReduceMax", x, &axes, 20)), (std::vector<uint8_t>{1, 1, 1, 0}));
  EXPECT_EQ(Values<uint8_t>(Reduce("ReduceMin", x, &axes, 20)), (std::vector<uint8_t>{1, 0, 0, 0}));
}

TEST(ReduceKernelTest, MaxPropagatesNan) {
  HostTensor x = F32({2, 2}, {1, std::nanf(""), std::nanf(""), 2});
  HostTensor y = ReduceAttr("ReduceMax", x, {1}, 13, 0);
  std::vector<float> v = Values<float>(y);
  EXPECT_TRUE(std::isnan(v[0]));
  EXPECT_TRUE(std::isnan(v[1]));
}

TEST(ReduceKernelTest, IntegerSumsWrapAndMeansTruncate) {
  HostTensor x8 = Make<int8_t>(DataType::kInt8, {2}, {100, 100});
  EXPECT_EQ(Values<int8_t>(ReduceAttr("ReduceSum", x8, {}, 11, 0)), (std::vector<int8_t>{-56}));
  HostTensor x32 = Make<int32_t>(DataType::kInt32, {2, 2}, {1, 2, -1, -2});
  EXPECT_EQ(Values<int32_t>(ReduceAttr("ReduceMean", x32, {1}, 13, 0)),
            (std::vector<int32_t>{1, -1}));
  EXPECT_EQ(Values<int32_t>(ReduceAttr("ReduceL1", x32, {1}, 13, 0)), (std::vector<int32_t>{3, 3}));
  HostTensor u8 = Make<uint8_t>(DataType::kUint8, {3}, {3, 4, 12});
  // sqrt(9 + 16 + 144) = 13.
  EXPECT_EQ(Values<uint8_t>(ReduceAttr("ReduceL2", u8, {}, 13, 0)), (std::vector<uint8_t>{13}));
  HostTensor i64 = Make<int64_t>(DataType::kInt64, {3}, {int64_t{1} << 40, 3, -2});
  EXPECT_EQ(Values<int64_t>(ReduceAttr("ReduceProd", i64, {}, 13, 0)),
            (std::vector<int64_t>{-(int64_t{6} << 40)}));
  EXPECT_EQ(Values<int64_t>(ReduceAttr("ReduceMax", i64, {}, 13, 0)),
            (std::vector<int64_t>{int64_t{1} << 40}));
}

TEST(ReduceKernelTest, Float16AndDoubleInputs) {
  std::vector<Half> h;
  for (float f : {1.5f, 2.f, -0.5f, 4.f}) h.push_back(Half{FloatToHalf(f)});
  HostTensor x = Make<Half>(DataType::kFloat16, {2, 2}, h);
  std::vector<Half> y = Values<Half>(ReduceAttr("ReduceSum", x, {1}, 11, 0));
  ASSERT_EQ(y.size(), 2u);
  EXPECT_EQ(HalfToFloat(y[0].bits), 3.5f);
  EXPECT_EQ(HalfToFloat(y[1].bits), 3.5f);
  HostTensor d = Make<double>(DataType::kFloat64, {3}, {0.1, 0.2, 0.3});
  EXPECT_DOUBLE_EQ(Values<double>(ReduceAttr("ReduceSum", d, {}, 11, 0))[0], 0.6);
}

TEST(ReduceKernelTest, ScalarInputReducesToItself) {
  HostTensor x = F32({}, {5});
  HostTensor y = Reduce("ReduceSumSquare", x, nullptr, 18);
  EXPECT_EQ(y.dims, (Dims{}));
  EXPECT_EQ(Values<float>(y), (std::vector<float>{25}));
}

TEST(ReduceKernelTest, BadAxesAreInvalidParam) {
  HostTensor x = Example();
  // Constant axes: the op's definition refuses the node at Prepare.
  HostTensor out_of_range = I64({1}, {3});
  TensorView out_of_range_view = out_of_range.view();
  NodeDef constant = Def("ReduceSum", {&x, &out_of_range}, {DataType::kFloat32}, 13);
  constant.constants[1] = &out_of_range_view;
  auto k = KernelRegistry::Global().Create(kReferenceBackend, constant);
  ASSERT_FALSE(k.ok());
  EXPECT_EQ(k.status().code(), code::kInvalidParam);
  EXPECT_NE(k.status().message().find("ReduceSum 'n'"), std::string::npos);

  NodeDef attr_def = Def("ReduceMax", {&x}, {DataType::kFloat32}, 13);
  attr_def.attrs["axes"] = std::vector<int64_t>{-4};
  auto r = RunReference(attr_def, {&x});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), code::kInvalidParam);

  // Computed axes: the executor's shape function on the run's inputs reports them before the
  // kernel runs ...
  NodeDef def = Def("ReduceSum", {&x, &out_of_range}, {DataType::kFloat32}, 13);
  ASSERT_TRUE(ApplyDefinition(def).ok());
  const TensorView xv = x.view();
  std::vector<Dims> dims;
  std::vector<bool> known;
  Status s = InferOutputDims(def, {&xv, &out_of_range_view}, &dims, &known);
  EXPECT_EQ(s.code(), code::kInvalidParam);
  EXPECT_NE(s.message().find("ReduceSum 'n'"), std::string::npos) << s.message();

  // ... and the kernel checks their values itself when its output was bound at load (dims that
  // do not depend on the axes), out of range or repeated.
  class BoundAtLoad final : public testing::TestContext {
   public:
    BoundAtLoad(std::vector<const HostTensor*> in, HostTensor* y)
        : TestContext(std::move(in), {y->dtype}), view_(y->view()) {}
    TensorView* output(size_t i) override { return i == 0 ? &view_ : nullptr; }

   private:
    TensorView view_;
  };
  auto kernel = KernelRegistry::Global().Create(kReferenceBackend, def);
  ASSERT_TRUE(kernel.ok()) << kernel.status().message();
  HostTensor twice = I64({2}, {1, -2});
  for (const HostTensor* axes : {&out_of_range, &twice}) {
    HostTensor y(DataType::kFloat32, {3, 1, 2});
    BoundAtLoad ctx({&x, axes}, &y);
    s = (*kernel)->Run(ctx);
    EXPECT_EQ(s.code(), code::kInvalidParam) << s.message();
    EXPECT_NE(s.message().find("ReduceSum 'n'"), std::string::npos) << s.message();
  }
}

TEST(ReduceKernelTest, AxesInTheWrongFormForTheOpsetAreRejected) {
  HostTensor x = Example();
  HostTensor axes = I64({1}, {1});
  // ReduceMean takes axes as an input only from opset 18.
  NodeDef early = Def("ReduceMean", {&x, &axes}, {DataType::kFloat32}, 17);
  auto r = RunReference(early, {&x, &axes});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), code::kInvalidParam);
  // ReduceSum-13 no longer has the attribute.
  NodeDef late = Def("ReduceSum", {&x}, {DataType::kFloat32}, 13);
  late.attrs["axes"] = std::vector<int64_t>{1};
  r = RunReference(late, {&x});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), code::kInvalidParam);
  // int32 axes.
  HostTensor axes32 = Make<int32_t>(DataType::kInt32, {1}, {1});
  NodeDef wrong_type = Def("ReduceSum", {&x, &axes32}, {DataType::kFloat32}, 13);
  r = RunReference(wrong_type, {&x, &axes32});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), code::kInvalidParam);
}

TEST(ReduceKernelTest, BoolSumIsInvalid) {
  HostTensor x = Make<uint8_t>(DataType::kBool, {2}, {1, 0});
  NodeDef def = Def("ReduceSum", {&x}, {DataType::kBool}, 13);
  auto r = RunReference(def, {&x});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), code::kInvalidParam);  // ONNX's ReduceSum takes numbers
}

// ---- ArgMax / ArgMin ---------------------------------------------------------------------

HostTensor Arg(const std::string& op, const HostTensor& x, int64_t axis, int64_t keepdims,
               int64_t last = 0) {
  NodeDef def = Def(op, {&x}, {DataType::kInt64}, 13);
  def.attrs["axis"] = axis;
  def.attrs["keepdims"] = keepdims;
  def.attrs["select_last_index"] = last;
  auto out = RunReference(def, {&x});
  EXPECT_TRUE(out.ok()) << out.status().message();
  return out.ok() ? (*out)[0] : HostTensor();
}

TEST(ReduceKernelTest, ArgMaxAndArgMinPickFirstOrLastIndex) {
  HostTensor x = F32({2, 2}, {2, 2, 3, 10});
  HostTensor first = Arg("ArgMax", x, 0, 1);
  EXPECT_EQ(first.dims, (Dims{1, 2}));
  EXPECT_EQ(Values<int64_t>(first), (std::vector<int64_t>{1, 1}));
  HostTensor row = Arg("ArgMax", x, 1, 0);
  EXPECT_EQ(row.dims, (Dims{2}));
  EXPECT_EQ(Values<int64_t>(row), (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(Values<int64_t>(Arg("ArgMax", x, 1, 0, /*last=*/1)), (std::vector<int64_t>{1, 1}));
  HostTensor y = F32({2, 2}, {2, 1, 3, 10});
  EXPECT_EQ(Values<int64_t>(Arg("ArgMin", y, 1, 0)), (std::vector<int64_t>{1, 0}));
  HostTensor z = F32({1, 3}, {1, 1, 1});
  EXPECT_EQ(Values<int64_t>(Arg("ArgMin", z, -1, 1)), (std::vector<int64_t>{0}));
  EXPECT_EQ(Values<int64_t>(Arg("ArgMin", z, -1, 1, 1)), (std::vector<int64_t>{2}));
}

TEST(ReduceKernelTest, ArgMaxOfIntegersAndNan) {
  HostTensor x = Make<int64_t>(DataType::kInt64, {3}, {INT64_MIN, INT64_MAX, INT64_MAX - 1});
  EXPECT_EQ(Values<int64_t>(Arg("ArgMax", x, 0, 0)), (std::vector<int64_t>{1}));
  EXPECT_EQ(Values<int64_t>(Arg("ArgMin", x, 0, 0)), (std::vector<int64_t>{0}));
  HostTensor n = F32({4}, {1, std::nanf(""), 5, std::nanf("")});
  EXPECT_EQ(Values<int64_t>(Arg("ArgMax", n, 0, 0)), (std::vector<int64_t>{1}));
  EXPECT_EQ(Values<int64_t>(Arg("ArgMin", n, 0, 0, 1)), (std::vector<int64_t>{3}));
}

TEST(ReduceKernelTest, ArgMaxRejectsBadAxisAndEmptyAxis) {
  HostTensor x = F32({2, 2}, {1, 2, 3, 4});
  NodeDef def = Def("ArgMax", {&x}, {DataType::kInt64}, 13);
  def.attrs["axis"] = int64_t{2};
  auto r = RunReference(def, {&x});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), code::kInvalidParam);
  HostTensor empty = F32({2, 0}, {});
  NodeDef def2 = Def("ArgMin", {&empty}, {DataType::kInt64}, 13);
  def2.attrs["axis"] = int64_t{1};
  r = RunReference(def2, {&empty});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), code::kInvalidParam);
}

}  // namespace
}  // namespace kiln::kernels
