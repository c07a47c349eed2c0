// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Reference kernels of the elementwise family. Expected values are hand-worked (closed forms
// evaluated independently) or taken from the ONNX node test data.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "base/fp16.h"
#include "kernel_test_util.h"

namespace kiln::kernels {
namespace {

using testing::Def;
using testing::F32;
using testing::I64;
using testing::Make;
using testing::RunReference;
using testing::Values;

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

HostTensor I32(Dims dims, const std::vector<int32_t>& v) {
  return Make(DataType::kInt32, std::move(dims), v);
}
HostTensor U8(Dims dims, const std::vector<uint8_t>& v) {
  return Make(DataType::kUint8, std::move(dims), v);
}
HostTensor Bool(Dims dims, const std::vector<uint8_t>& v) {
  return Make(DataType::kBool, std::move(dims), v);
}
HostTensor F16(Dims dims, const std::vector<float>& v) {
  std::vector<uint16_t> bits;
  for (float f : v) bits.push_back(FloatToHalf(f));
  return Make(DataType::kFloat16, std::move(dims), bits);
}
std::vector<float> F16Values(const HostTensor& t) {
  std::vector<float> out;
  for (uint16_t b : Values<uint16_t>(t)) out.push_back(HalfToFloat(b));
  return out;
}

// Runs the node and returns its outputs (empty tensors when it fails, with a test failure).
std::vector<HostTensor> RunAll(const NodeDef& def, const std::vector<const HostTensor*>& inputs) {
  auto r = RunReference(def, inputs);
  EXPECT_TRUE(r.ok()) << r.status().message();
  if (!r.ok()) return std::vector<HostTensor>(def.num_outputs());
  return std::move(*r);
}
// Runs a one-output node.
HostTensor RunOne(const NodeDef& def, const std::vector<const HostTensor*>& inputs) {
  return RunAll(def, inputs)[0];
}
// The status of preparing and running the node.
Status RunStatus(const NodeDef& def, const std::vector<const HostTensor*>& inputs) {
  auto r = RunReference(def, inputs);
  return r.ok() ? Status::Ok() : r.status();
}

void ExpectNear(const std::vector<float>& got, const std::vector<float>& want, float tol = 1e-5f) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << "element " << i << " is " << got[i];
    } else {
      EXPECT_NEAR(got[i], want[i], tol * std::max(1.f, std::fabs(want[i]))) << "element " << i;
    }
  }
}

// Runs unary float op `op` on `x` (shape [n]) with attributes and checks it against `want`.
void ExpectUnary(const std::string& op, const std::vector<float>& x, const std::vector<float>& want,
                 std::map<std::string, ir::Attribute> attrs = {}, int opset = 17) {
  SCOPED_TRACE(op);
  HostTensor in = F32({static_cast<int64_t>(x.size())}, x);
  NodeDef def = Def(op, {&in}, {DataType::kFloat32}, opset);
  def.attrs = std::move(attrs);
  HostTensor out = RunOne(def, {&in});
  EXPECT_EQ(out.dims, in.dims);
  ExpectNear(Values<float>(out), want);
}

TEST(ElementwiseKernelTest, UnaryMathMatchesClosedForms) {
  const float pi = 3.14159265f;
  ExpectUnary("Exp", {0, 1}, {1, 2.7182818f});
  ExpectUnary("Log", {1, 2.7182818f}, {0, 1});
  ExpectUnary("Sqrt", {4, 0.25f}, {2, 0.5f});
  ExpectUnary("Reciprocal", {4, -0.5f}, {0.25f, -2});
  ExpectUnary("Floor", {-1.5f, 1.5f}, {-2, 1});
  ExpectUnary("Ceil", {-1.5f, 1.5f}, {-1, 2});
  ExpectUnary("Sin", {0, pi / 2}, {0, 1});
  ExpectUnary("Cos", {0, pi}, {1, -1});
  ExpectUnary("Tan", {0, pi / 4}, {0, 1});
  ExpectUnary("Asin", {0, 1}, {0, pi / 2});
  ExpectUnary("Acos", {1, 0}, {0, pi / 2});
  ExpectUnary("Atan", {0, 1}, {0, pi / 4});
  ExpectUnary("Sinh", {0, 1}, {0, 1.1752012f});
  ExpectUnary("Cosh", {0, 1}, {1, 1.5430806f});
  ExpectUnary("Asinh", {0, 1.1752012f}, {0, 1});
  ExpectUnary("Acosh", {1, 1.5430806f}, {0, 1});
  ExpectUnary("Atanh", {0, 0.7615942f}, {0, 1});
  ExpectUnary("Erf", {0, 1, -1}, {0, 0.8427008f, -0.8427008f});
  ExpectUnary("Tanh", {0, 1}, {0, 0.7615942f});
  ExpectUnary("Sqrt", {-1}, {kNaN});
  ExpectUnary("Abs", {-2.5f, 3}, {2.5f, 3});
  ExpectUnary("Neg", {-2.5f, 3}, {2.5f, -3});
  ExpectUnary("Sign", {-2.5f, 0, 3, kNaN}, {-1, 0, 1, kNaN});
}

TEST(ElementwiseKernelTest, RoundIsHalfToEven) {
  ExpectUnary("Round", {0.5f, 1.5f, 2.5f, -0.5f, -1.5f, 2.4f, 2.6f, -2.6f},
              {0, 2, 2, 0, -2, 2, 3, -3});
}

TEST(ElementwiseKernelTest, ActivationsMatchClosedForms) {
  ExpectUnary("Relu", {-1, 0, 2, kNaN}, {0, 0, 2, kNaN});
  ExpectUnary("Sigmoid", {0, 2, -2, -100}, {0.5f, 0.8807971f, 0.1192029f, 0});
  ExpectUnary("Softplus", {0, 100, -100}, {0.6931472f, 100, 0});
  ExpectUnary("Softsign", {1, -3}, {0.5f, -0.75f});
  ExpectUnary("Elu", {-1, 2}, {-0.6321206f, 2});
  ExpectUnary("Elu", {-1}, {-1.2642411f}, {{"alpha", 2.f}});
  ExpectUnary("Selu", {-1, 1}, {-1.1113307f, 1.0507010f});
  ExpectUnary("LeakyRelu", {-2, 3}, {-0.02f, 3});
  ExpectUnary("LeakyRelu", {-2, 3}, {-0.2f, 3}, {{"alpha", 0.1f}});
  ExpectUnary("HardSigmoid", {1, -3, 3}, {0.7f, 0, 1});
  ExpectUnary("HardSigmoid", {1}, {0.6f}, {{"alpha", 0.5f}, {"beta", 0.1f}});
  ExpectUnary("HardSwish", {1, 3, -3}, {0.6666667f, 3, 0});
  ExpectUnary("Mish", {0, 1}, {0, 0.8650984f});
  ExpectUnary("Celu", {-1, 2}, {-0.6321206f, 2});
  ExpectUnary("Celu", {-1}, {-0.7869387f}, {{"alpha", 2.f}});
  ExpectUnary("ThresholdedRelu", {0.5f, 1, 2}, {0, 0, 2});
  ExpectUnary("ThresholdedRelu", {0.5f, 1, 2}, {0, 1, 2}, {{"alpha", 0.9f}});
  ExpectUnary("Gelu", {1, -1, 0}, {0.8413447f, -0.1586553f, 0}, {}, 20);
  ExpectUnary("Gelu", {1}, {0.8411920f}, {{"approximate", std::string("tanh")}}, 20);
  ExpectUnary("Swish", {1, 0}, {0.7310586f, 0}, {}, 24);
  ExpectUnary("Swish", {1}, {0.8807971f}, {{"alpha", 2.f}}, 24);
}

TEST(ElementwiseKernelTest, ShrinkIsHardOrSoftAndTakesIntegers) {
  ExpectUnary("Shrink", {-2, -1, 0, 1, 2}, {-2, 0, 0, 0, 2}, {{"lambd", 1.5f}}, 9);
  ExpectUnary("Shrink", {-2, -1, 0, 1, 2}, {-0.5f, 0, 0, 0, 0.5f},
              {{"lambd", 1.5f}, {"bias", 1.5f}}, 9);
  HostTensor x = Make<int8_t>(DataType::kInt8, {4}, {-5, -1, 1, 5});
  NodeDef def = Def("Shrink", {&x}, {DataType::kInt8}, 9);
  def.attrs["lambd"] = 2.f;
  def.attrs["bias"] = 1.f;
  EXPECT_EQ(Values<int8_t>(RunOne(def, {&x})), (std::vector<int8_t>{-4, 0, 0, 4}));
}

TEST(ElementwiseKernelTest, GeluRejectsAnUnknownApproximation) {
  HostTensor x = F32({1}, {1});
  NodeDef def = Def("Gelu", {&x}, {DataType::kFloat32}, 20);
  def.attrs["approximate"] = std::string("fast");
  Status s = RunStatus(def, {&x});
  EXPECT_EQ(s.code(), code::kInvalidParam);
  EXPECT_NE(s.message().find("Gelu 'n'"), std::string::npos);
}

TEST(ElementwiseKernelTest, IntegerUnaryOpsWrapInsteadOfOverflowing) {
  HostTensor x = Make<int8_t>(DataType::kInt8, {4}, {-128, -3, 0, 5});
  auto run = [&](const char* op) { return Values<int8_t>(RunOne(Def(op, {&x}, {x.dtype}), {&x})); };
  EXPECT_EQ(run("Abs"), (std::vector<int8_t>{-128, 3, 0, 5}));
  EXPECT_EQ(run("Neg"), (std::vector<int8_t>{-128, 3, 0, -5}));
  EXPECT_EQ(run("Sign"), (std::vector<int8_t>{-1, -1, 0, 1}));
  EXPECT_EQ(run("Relu"), (std::vector<int8_t>{0, 0, 0, 5}));
  HostTensor u = U8({3}, {0, 7, 255});
  EXPECT_EQ(Values<uint8_t>(RunOne(Def("Sign", {&u}, {u.dtype}), {&u})),
            (std::vector<uint8_t>{0, 1, 1}));
  EXPECT_EQ(Values<uint8_t>(RunOne(Def("BitwiseNot", {&u}, {u.dtype}, 18), {&u})),
            (std::vector<uint8_t>{255, 248, 0}));
  HostTensor i = I32({2}, {0, 5});
  EXPECT_EQ(Values<int32_t>(RunOne(Def("BitwiseNot", {&i}, {i.dtype}, 18), {&i})),
            (std::vector<int32_t>{-1, -6}));
}

TEST(ElementwiseKernelTest, HalfPrecisionIsComputedInFloat) {
  HostTensor x = F16({3}, {-1.5f, 0.5f, 4.f});
  EXPECT_EQ(F16Values(RunOne(Def("Relu", {&x}, {x.dtype}), {&x})),
            (std::vector<float>{0, 0.5f, 4}));
  EXPECT_EQ(F16Values(RunOne(Def("Sqrt", {&x}, {x.dtype}), {&x}))[2], 2.f);
  HostTensor b = Make<uint16_t>(DataType::kBFloat16, {2}, {0x3fc0, 0xc000});  // 1.5, -2
  EXPECT_EQ(Values<uint16_t>(RunOne(Def("Neg", {&b}, {b.dtype}), {&b})),
            (std::vector<uint16_t>{0xbfc0, 0x4000}));
}

TEST(ElementwiseKernelTest, NotIsNaNAndIsInf) {
  HostTensor b = Bool({3}, {1, 0, 1});
  EXPECT_EQ(Values<uint8_t>(RunOne(Def("Not", {&b}, {DataType::kBool}), {&b})),
            (std::vector<uint8_t>{0, 1, 0}));
  HostTensor x = F32({4}, {kInf, -kInf, kNaN, 1});
  EXPECT_EQ(Values<uint8_t>(RunOne(Def("IsNaN", {&x}, {DataType::kBool}), {&x})),
            (std::vector<uint8_t>{0, 0, 1, 0}));
  NodeDef inf = Def("IsInf", {&x}, {DataType::kBool});
  EXPECT_EQ(Values<uint8_t>(RunOne(inf, {&x})), (std::vector<uint8_t>{1, 1, 0, 0}));
  inf.attrs["detect_negative"] = int64_t{0};
  EXPECT_EQ(Values<uint8_t>(RunOne(inf, {&x})), (std::vector<uint8_t>{1, 0, 0, 0}));
  inf.attrs["detect_negative"] = int64_t{1};
  inf.attrs["detect_positive"] = int64_t{0};
  EXPECT_EQ(Values<uint8_t>(RunOne(inf, {&x})), (std::vector<uint8_t>{0, 1, 0, 0}));
}

TEST(ElementwiseKernelTest, UnaryOpsRefuseTypesTheyDoNotTake) {
  HostTensor i = I64({2}, {1, 2});
  Status s = RunStatus(Def("Sqrt", {&i}, {DataType::kInt64}), {&i});
  EXPECT_EQ(s.code(), code::kInvalidParam);
  EXPECT_NE(s.message().find("Sqrt 'n'"), std::string::npos);
  EXPECT_EQ(RunStatus(Def("Not", {&i}, {DataType::kInt64}), {&i}).code(), code::kInvalidParam);
  HostTensor f = F32({1}, {1});
  EXPECT_EQ(RunStatus(Def("BitwiseNot", {&f}, {DataType::kFloat32}, 18), {&f}).code(),
            code::kInvalidParam);
  HostTensor str(DataType::kString, {1});
  EXPECT_EQ(RunStatus(Def("Identity", {&str}, {DataType::kString}), {&str}).code(),
            code::kFeatureUnsupported);
}

TEST(ElementwiseKernelTest, AddBroadcastsBothWays) {
  HostTensor a = F32({2, 1}, {1, 2});
  HostTensor b = F32({3}, {10, 20, 30});
  HostTensor y = RunOne(Def("Add", {&a, &b}, {DataType::kFloat32}), {&a, &b});
  EXPECT_EQ(y.dims, (Dims{2, 3}));
  EXPECT_EQ(Values<float>(y), (std::vector<float>{11, 21, 31, 12, 22, 32}));
  HostTensor s = F32({}, {100});
  HostTensor z = RunOne(Def("Sub", {&s, &b}, {DataType::kFloat32}), {&s, &b});
  EXPECT_EQ(z.dims, (Dims{3}));
  EXPECT_EQ(Values<float>(z), (std::vector<float>{90, 80, 70}));
}

TEST(ElementwiseKernelTest, BroadcastsAnInnerAxis) {
  HostTensor a = I64({2, 3, 2}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  HostTensor b = I64({3, 1}, {100, 200, 300});
  HostTensor y = RunOne(Def("Mul", {&a, &b}, {DataType::kInt64}), {&a, &b});
  EXPECT_EQ(y.dims, (Dims{2, 3, 2}));
  EXPECT_EQ(Values<int64_t>(y), (std::vector<int64_t>{100, 200, 600, 800, 1500, 1800, 700, 800,
                                                      1800, 2000, 3300, 3600}));
}

TEST(ElementwiseKernelTest, EmptyTensorsBroadcastToEmpty) {
  HostTensor a = F32({0, 3}, {});
  HostTensor b = F32({3}, {1, 2, 3});
  HostTensor y = RunOne(Def("Add", {&a, &b}, {DataType::kFloat32}), {&a, &b});
  EXPECT_EQ(y.dims, (Dims{0, 3}));
  EXPECT_TRUE(y.bytes.empty());
}

TEST(ElementwiseKernelTest, IncompatibleShapesAreAnErrorNamingTheShapes) {
  HostTensor a = F32({3}, {1, 2, 3});
  HostTensor b = F32({4}, {1, 2, 3, 4});
  Status s = RunStatus(Def("Add", {&a, &b}, {DataType::kFloat32}), {&a, &b});
  EXPECT_EQ(s.code(), code::kInvalidParam);
  EXPECT_NE(s.message().find("Add 'n'"), std::string::npos);
  EXPECT_NE(s.message().find("[3] and [4]"), std::string::npos);
  EXPECT_EQ(RunStatus(Def("Less", {&a, &b}, {DataType::kBool}), {&a, &b}).code(),
            code::kInvalidParam);
  HostTensor c = Bool({2}, {1, 0});
  EXPECT_EQ(RunStatus(Def("Where", {&c, &a, &a}, {DataType::kFloat32}), {&c, &a, &a}).code(),
            code::kInvalidParam);
}

TEST(ElementwiseKernelTest, MixedTypesAndBoolArithmeticAreRefused) {
  HostTensor f = F32({1}, {1});
  HostTensor i = I64({1}, {1});
  EXPECT_EQ(RunStatus(Def("Add", {&f, &i}, {DataType::kFloat32}), {&f, &i}).code(),
            code::kInvalidParam);
  HostTensor b = Bool({1}, {1});
  EXPECT_EQ(RunStatus(Def("Add", {&b, &b}, {DataType::kBool}), {&b, &b}).code(),
            code::kInvalidParam);
  EXPECT_EQ(RunStatus(Def("And", {&i, &i}, {DataType::kBool}), {&i, &i}).code(),
            code::kInvalidParam);
}

TEST(ElementwiseKernelTest, IntegerArithmeticWrapsAndDivisionTruncates) {
  HostTensor a = I32({4}, {2147483647, -7, 7, -7});
  HostTensor b = I32({4}, {1, 2, -2, -2});
  auto run = [&](const char* op) {
    return Values<int32_t>(RunOne(Def(op, {&a, &b}, {DataType::kInt32}), {&a, &b}));
  };
  EXPECT_EQ(run("Add"), (std::vector<int32_t>{-2147483647 - 1, -5, 5, -9}));
  EXPECT_EQ(run("Div"), (std::vector<int32_t>{2147483647, -3, -3, 3}));
  EXPECT_EQ(run("Mul")[0], 2147483647);
  HostTensor m = I32({2}, {-2147483647 - 1, 5});
  HostTensor z = I32({2}, {-1, 0});
  EXPECT_EQ(Values<int32_t>(RunOne(Def("Div", {&m, &z}, {DataType::kInt32}), {&m, &z})),
            (std::vector<int32_t>{-2147483647 - 1, 0}));
  HostTensor u = U8({2}, {200, 3});
  HostTensor v = U8({2}, {100, 5});
  EXPECT_EQ(Values<uint8_t>(RunOne(Def("Add", {&u, &v}, {DataType::kUint8}), {&u, &v})),
            (std::vector<uint8_t>{44, 8}));
  EXPECT_EQ(Values<uint8_t>(RunOne(Def("Sub", {&u, &v}, {DataType::kUint8}), {&u, &v})),
            (std::vector<uint8_t>{100, 254}));
}

TEST(ElementwiseKernelTest, ModFollowsTheDivisorSignUnlessFmod) {
  HostTensor a = I64({4}, {-7, 7, -7, 5});
  HostTensor b = I64({4}, {3, -3, -3, 0});
  NodeDef def = Def("Mod", {&a, &b}, {DataType::kInt64}, 13);
  EXPECT_EQ(Values<int64_t>(RunOne(def, {&a, &b})), (std::vector<int64_t>{2, -2, -1, 0}));
  def.attrs["fmod"] = int64_t{1};
  EXPECT_EQ(Values<int64_t>(RunOne(def, {&a, &b})), (std::vector<int64_t>{-1, 1, -1, 0}));
  HostTensor x = F32({2}, {-4.5f, 4.5f});
  HostTensor y = F32({2}, {2.f, -2.f});
  NodeDef f = Def("Mod", {&x, &y}, {DataType::kFloat32}, 13);
  f.attrs["fmod"] = int64_t{1};
  EXPECT_EQ(Values<float>(RunOne(f, {&x, &y})), (std::vector<float>{-0.5f, 0.5f}));
  def.attrs["fmod"] = int64_t{2};
  EXPECT_EQ(RunStatus(def, {&a, &b}).code(), code::kInvalidParam);
}

TEST(ElementwiseKernelTest, VariadicOpsBroadcastAllInputs) {
  HostTensor a = F32({2, 1}, {1, 6});
  HostTensor b = F32({3}, {5, 2, kNaN});
  HostTensor c = F32({}, {3});
  auto run = [&](const char* op) {
    HostTensor y = RunOne(Def(op, {&a, &b, &c}, {DataType::kFloat32}, 13), {&a, &b, &c});
    EXPECT_EQ(y.dims, (Dims{2, 3})) << op;
    return Values<float>(y);
  };
  ExpectNear(run("Max"), {5, 3, kNaN, 6, 6, kNaN});
  ExpectNear(run("Min"), {1, 1, kNaN, 3, 2, kNaN});
  ExpectNear(run("Sum"), {9, 6, kNaN, 14, 11, kNaN});
  ExpectNear(run("Mean"), {3, 2, kNaN, 14.f / 3, 11.f / 3, kNaN});
  HostTensor one = I32({2}, {4, -1});
  EXPECT_EQ(Values<int32_t>(RunOne(Def("Max", {&one}, {DataType::kInt32}), {&one})),
            (std::vector<int32_t>{4, -1}));
  HostTensor two = I32({2}, {1, 2});
  EXPECT_EQ(Values<int32_t>(RunOne(Def("Min", {&one, &two}, {DataType::kInt32}), {&one, &two})),
            (std::vector<int32_t>{1, -1}));
}

TEST(ElementwiseKernelTest, LogicalOpsBroadcastBools) {
  HostTensor a = Bool({2, 1}, {1, 0});
  HostTensor b = Bool({2}, {1, 0});
  auto run = [&](const char* op) {
    return Values<uint8_t>(RunOne(Def(op, {&a, &b}, {DataType::kBool}), {&a, &b}));
  };
  EXPECT_EQ(run("And"), (std::vector<uint8_t>{1, 0, 0, 0}));
  EXPECT_EQ(run("Or"), (std::vector<uint8_t>{1, 1, 1, 0}));
  EXPECT_EQ(run("Xor"), (std::vector<uint8_t>{0, 1, 1, 0}));
}

TEST(ElementwiseKernelTest, BitwiseOpsAndBitShift) {
  HostTensor a = U8({2}, {0b1100, 0xff});
  HostTensor b = U8({1}, {0b1010});
  auto run = [&](const char* op, int opset) {
    return Values<uint8_t>(RunOne(Def(op, {&a, &b}, {DataType::kUint8}, opset), {&a, &b}));
  };
  EXPECT_EQ(run("BitwiseAnd", 18), (std::vector<uint8_t>{0b1000, 0b1010}));
  EXPECT_EQ(run("BitwiseOr", 18), (std::vector<uint8_t>{0b1110, 0xff}));
  EXPECT_EQ(run("BitwiseXor", 18), (std::vector<uint8_t>{0b0110, 0xf5}));
  HostTensor s = Make<int16_t>(DataType::kInt16, {2}, {-1, 6});
  HostTensor t = Make<int16_t>(DataType::kInt16, {2}, {3, -4});
  EXPECT_EQ(Values<int16_t>(RunOne(Def("BitwiseAnd", {&s, &t}, {s.dtype}, 18), {&s, &t})),
            (std::vector<int16_t>{3, 4}));

  HostTensor x = U8({4}, {1, 0x81, 16, 16});
  HostTensor n = U8({4}, {3, 1, 8, 4});
  NodeDef shift = Def("BitShift", {&x, &n}, {DataType::kUint8}, 11);
  shift.attrs["direction"] = std::string("LEFT");
  EXPECT_EQ(Values<uint8_t>(RunOne(shift, {&x, &n})), (std::vector<uint8_t>{8, 2, 0, 0}));
  shift.attrs["direction"] = std::string("RIGHT");
  EXPECT_EQ(Values<uint8_t>(RunOne(shift, {&x, &n})), (std::vector<uint8_t>{0, 0x40, 0, 1}));
  shift.attrs["direction"] = std::string("UP");
  EXPECT_EQ(RunStatus(shift, {&x, &n}).code(), code::kInvalidParam);
  HostTensor i = I32({1}, {1});
  NodeDef signed_shift = Def("BitShift", {&i, &i}, {DataType::kInt32}, 11);
  signed_shift.attrs["direction"] = std::string("LEFT");
  EXPECT_EQ(RunStatus(signed_shift, {&i, &i}).code(), code::kInvalidParam);
}

TEST(ElementwiseKernelTest, ComparisonsProduceBoolAndNaNComparesFalse) {
  HostTensor a = F32({4}, {1, 2, 3, kNaN});
  HostTensor b = F32({}, {2});
  auto run = [&](const char* op) {
    return Values<uint8_t>(RunOne(Def(op, {&a, &b}, {DataType::kBool}), {&a, &b}));
  };
  EXPECT_EQ(run("Equal"), (std::vector<uint8_t>{0, 1, 0, 0}));
  EXPECT_EQ(run("Less"), (std::vector<uint8_t>{1, 0, 0, 0}));
  EXPECT_EQ(run("Greater"), (std::vector<uint8_t>{0, 0, 1, 0}));
  EXPECT_EQ(run("LessOrEqual"), (std::vector<uint8_t>{1, 1, 0, 0}));
  EXPECT_EQ(run("GreaterOrEqual"), (std::vector<uint8_t>{0, 1, 1, 0}));
  HostTensor p = Bool({3}, {1, 0, 1});
  HostTensor q = Bool({1}, {1});
  EXPECT_EQ(Values<uint8_t>(RunOne(Def("Equal", {&p, &q}, {DataType::kBool}), {&p, &q})),
            (std::vector<uint8_t>{1, 0, 1}));
  EXPECT_EQ(RunStatus(Def("Less", {&p, &q}, {DataType::kBool}), {&p, &q}).code(),
            code::kInvalidParam);
  HostTensor u = Make<uint64_t>(DataType::kUint64, {2}, {1ull << 63, 1});
  HostTensor v = Make<uint64_t>(DataType::kUint64, {1}, {2});
  EXPECT_EQ(Values<uint8_t>(RunOne(Def("Greater", {&u, &v}, {DataType::kBool}), {&u, &v})),
            (std::vector<uint8_t>{1, 0}));
}

TEST(ElementwiseKernelTest, PowMixesBaseAndExponentTypes) {
  HostTensor x = F32({3}, {2, 3, 1.5f});
  HostTensor e = F32({3}, {0.5f, -2, 3});
  ExpectNear(Values<float>(RunOne(Def("Pow", {&x, &e}, {DataType::kFloat32}, 15), {&x, &e})),
             {1.4142136f, 0.1111111f, 3.375f});
  HostTensor ei = I64({1}, {3});
  ExpectNear(Values<float>(RunOne(Def("Pow", {&x, &ei}, {DataType::kFloat32}, 15), {&x, &ei})),
             {8, 27, 3.375f});
  HostTensor b = I32({4}, {2, -3, 2, 1});
  HostTensor n = I32({4}, {10, 3, -1, -5});
  EXPECT_EQ(Values<int32_t>(RunOne(Def("Pow", {&b, &n}, {DataType::kInt32}, 15), {&b, &n})),
            (std::vector<int32_t>{1024, -27, 0, 1}));
  HostTensor f = F32({1}, {0.5f});
  EXPECT_EQ(Values<int32_t>(RunOne(Def("Pow", {&b, &f}, {DataType::kInt32}, 15), {&b, &f})),
            (std::vector<int32_t>{1, 0, 1, 1}));  // sqrt truncated; sqrt(-3) is NaN -> 0
}

TEST(ElementwiseKernelTest, PReluBroadcastsTheSlopeToX) {
  HostTensor x = F32({2, 3}, {-1, 2, -3, 4, -5, 0});
  HostTensor s = F32({3}, {0.1f, 0.2f, 0.3f});
  HostTensor y = RunOne(Def("PRelu", {&x, &s}, {DataType::kFloat32}), {&x, &s});
  EXPECT_EQ(y.dims, (Dims{2, 3}));
  ExpectNear(Values<float>(y), {-0.1f, 2, -0.9f, 4, -1.f, 0});
  HostTensor wide = F32({2, 2, 3}, std::vector<float>(12, 1.f));
  EXPECT_EQ(RunStatus(Def("PRelu", {&x, &wide}, {DataType::kFloat32}), {&x, &wide}).code(),
            code::kInvalidParam);
  HostTensor xi = I32({2}, {-4, 4});
  HostTensor si = I32({1}, {3});
  EXPECT_EQ(Values<int32_t>(RunOne(Def("PRelu", {&xi, &si}, {DataType::kInt32}), {&xi, &si})),
            (std::vector<int32_t>{-12, 4}));
}

TEST(ElementwiseKernelTest, WhereBroadcastsThreeWays) {
  HostTensor c = Bool({2, 1}, {1, 0});
  HostTensor x = I64({1, 3}, {1, 2, 3});
  HostTensor y = I64({}, {-1});
  HostTensor out = RunOne(Def("Where", {&c, &x, &y}, {DataType::kInt64}), {&c, &x, &y});
  EXPECT_EQ(out.dims, (Dims{2, 3}));
  EXPECT_EQ(Values<int64_t>(out), (std::vector<int64_t>{1, 2, 3, -1, -1, -1}));
  HostTensor hx = F16({2}, {1.5f, 2.5f});
  HostTensor hy = F16({2}, {-1.f, -2.f});
  HostTensor hc = Bool({2}, {0, 1});
  EXPECT_EQ(F16Values(RunOne(Def("Where", {&hc, &hx, &hy}, {DataType::kFloat16}), {&hc, &hx, &hy})),
            (std::vector<float>{-1.f, 2.5f}));
  HostTensor notbool = I64({2}, {1, 0});
  EXPECT_EQ(
      RunStatus(Def("Where", {&notbool, &x, &y}, {DataType::kInt64}), {&notbool, &x, &y}).code(),
      code::kInvalidParam);
}

TEST(ElementwiseKernelTest, ClipTakesOptionalBoundInputs) {
  HostTensor x = F32({5}, {-3, -1, 0, 2, kNaN});
  HostTensor lo = F32({}, {-2});
  HostTensor hi = F32({}, {1});
  auto clip = [&](const HostTensor* a, const HostTensor* b) {
    return Values<float>(RunOne(Def("Clip", {&x, a, b}, {DataType::kFloat32}, 13), {&x, a, b}));
  };
  ExpectNear(clip(&lo, &hi), {-2, -1, 0, 1, kNaN});
  ExpectNear(clip(nullptr, &hi), {-3, -1, 0, 1, kNaN});
  ExpectNear(clip(&lo, nullptr), {-2, -1, 0, 2, kNaN});
  ExpectNear(Values<float>(RunOne(Def("Clip", {&x}, {DataType::kFloat32}, 13), {&x})),
             {-3, -1, 0, 2, kNaN});
  ExpectNear(clip(&hi, &lo), {-2, -2, -2, -2, kNaN});  // min > max: everything is max

  HostTensor xi = I32({3}, {-100, 5, 100});
  HostTensor loi = I32({}, {0});
  HostTensor hii = I32({}, {10});
  EXPECT_EQ(Values<int32_t>(
                RunOne(Def("Clip", {&xi, &loi, &hii}, {DataType::kInt32}, 13), {&xi, &loi, &hii})),
            (std::vector<int32_t>{0, 5, 10}));

  HostTensor vec = F32({2}, {0, 1});
  EXPECT_EQ(
      RunStatus(Def("Clip", {&x, &vec, nullptr}, {DataType::kFloat32}, 13), {&x, &vec, nullptr})
          .code(),
      code::kInvalidParam);
}

TEST(ElementwiseKernelTest, ClipBeforeOpset11ReadsAttributes) {
  HostTensor x = F32({3}, {-3, 0, 3});
  NodeDef def = Def("Clip", {&x}, {DataType::kFloat32}, 6);
  def.attrs["min"] = -1.f;
  def.attrs["max"] = 2.f;
  EXPECT_EQ(Values<float>(RunOne(def, {&x})), (std::vector<float>{-1, 0, 2}));
}

TEST(ElementwiseKernelTest, CastConvertsBetweenAllNumericTypes) {
  HostTensor x = F32({6}, {-1.7f, 2.9f, 0, kNaN, 300, 65504});
  auto cast = [&](const HostTensor& in, DataType to) {
    NodeDef def = Def("Cast", {&in}, {to}, 19);
    def.attrs["to"] = static_cast<int64_t>(to);
    return RunOne(def, {&in});
  };
  EXPECT_EQ(Values<int32_t>(cast(x, DataType::kInt32)),
            (std::vector<int32_t>{-1, 2, 0, 0, 300, 65504}));
  EXPECT_EQ(Values<uint8_t>(cast(x, DataType::kUint8)),
            (std::vector<uint8_t>{255, 2, 0, 0, 44, 224}));  // out of range wraps
  EXPECT_EQ(Values<uint8_t>(cast(x, DataType::kBool)), (std::vector<uint8_t>{1, 1, 0, 1, 1, 1}));
  EXPECT_EQ(Values<uint16_t>(cast(x, DataType::kFloat16)),
            (std::vector<uint16_t>{0xbecd, 0x41cd, 0, 0x7e00, 0x5cb0, 0x7bff}));
  std::vector<double> d = Values<double>(cast(x, DataType::kFloat64));
  EXPECT_DOUBLE_EQ(d[0], static_cast<double>(-1.7f));
  EXPECT_TRUE(std::isnan(d[3]));

  HostTensor h = Make<uint16_t>(DataType::kFloat16, {2}, {0x3c00, 0xc100});  // 1, -2.5
  EXPECT_EQ(Values<float>(cast(h, DataType::kFloat32)), (std::vector<float>{1, -2.5f}));
  EXPECT_EQ(Values<uint16_t>(cast(h, DataType::kBFloat16)),
            (std::vector<uint16_t>{0x3f80, 0xc020}));
  HostTensor b = Bool({2}, {1, 0});
  EXPECT_EQ(Values<int64_t>(cast(b, DataType::kInt64)), (std::vector<int64_t>{1, 0}));
  HostTensor big = I64({2}, {300, -1});
  EXPECT_EQ(Values<int8_t>(cast(big, DataType::kInt8)), (std::vector<int8_t>{44, -1}));
  EXPECT_EQ(Values<uint64_t>(cast(big, DataType::kUint64)),
            (std::vector<uint64_t>{300, 18446744073709551615ull}));
}

TEST(ElementwiseKernelTest, CastToStringIsUnsupported) {
  HostTensor x = F32({1}, {1});
  NodeDef def = Def("Cast", {&x}, {DataType::kString}, 13);
  def.attrs["to"] = int64_t{8};
  Status s = RunStatus(def, {&x});
  EXPECT_EQ(s.code(), code::kFeatureUnsupported);
  EXPECT_NE(s.message().find("Cast 'n'"), std::string::npos);
  HostTensor str(DataType::kString, {1});
  NodeDef from = Def("Cast", {&str}, {DataType::kFloat32}, 13);
  from.attrs["to"] = int64_t{1};
  EXPECT_EQ(RunStatus(from, {&str}).code(), code::kFeatureUnsupported);
  NodeDef no_to = Def("Cast", {&x}, {DataType::kFloat32}, 13);
  EXPECT_EQ(RunStatus(no_to, {&x}).code(), code::kInvalidParam);
}

TEST(ElementwiseKernelTest, CastLikeTakesTheSecondInputsType) {
  HostTensor x = F32({2}, {1.5f, -2.5f});
  HostTensor like = I64({0}, {});
  HostTensor y = RunOne(Def("CastLike", {&x, &like}, {DataType::kInt64}, 15), {&x, &like});
  EXPECT_EQ(y.dims, (Dims{2}));
  EXPECT_EQ(Values<int64_t>(y), (std::vector<int64_t>{1, -2}));
}

TEST(ElementwiseKernelTest, BitCastReinterpretsBits) {
  HostTensor x = F32({2}, {1.f, -2.f});
  NodeDef def = Def("BitCast", {&x}, {DataType::kInt32}, 26);
  def.attrs["to"] = int64_t{6};
  EXPECT_EQ(Values<uint32_t>(RunOne(def, {&x})), (std::vector<uint32_t>{0x3f800000, 0xc0000000}));
  NodeDef wide = Def("BitCast", {&x}, {DataType::kInt64}, 26);
  wide.attrs["to"] = int64_t{7};
  EXPECT_EQ(RunStatus(wide, {&x}).code(), code::kInvalidParam);
  HostTensor u = U8({3}, {0, 1, 2});
  NodeDef to_bool = Def("BitCast", {&u}, {DataType::kBool}, 26);
  to_bool.attrs["to"] = int64_t{9};
  EXPECT_EQ(Values<uint8_t>(RunOne(to_bool, {&u})), (std::vector<uint8_t>{0, 1, 1}));
}

TEST(ElementwiseKernelTest, IdentityCopiesAnyType) {
  HostTensor x = I64({2, 2}, {1, -2, 3, -4});
  HostTensor y = RunOne(Def("Identity", {&x}, {DataType::kInt64}), {&x});
  EXPECT_EQ(y.dims, x.dims);
  EXPECT_EQ(Values<int64_t>(y), Values<int64_t>(x));
}

TEST(ElementwiseKernelTest, DropoutPassesInputThroughWithATrueMask) {
  HostTensor x = F32({2, 2}, {1, 2, 3, 4});
  HostTensor ratio = F32({}, {0.7f});
  auto outs =
      RunAll(Def("Dropout", {&x, &ratio}, {DataType::kFloat32, DataType::kBool}, 13), {&x, &ratio});
  EXPECT_EQ(Values<float>(outs[0]), (std::vector<float>{1, 2, 3, 4}));
  EXPECT_EQ(outs[1].dims, (Dims{2, 2}));
  EXPECT_EQ(Values<uint8_t>(outs[1]), (std::vector<uint8_t>{1, 1, 1, 1}));

  NodeDef old = Def("Dropout", {&x}, {DataType::kFloat32}, 7);
  old.attrs["ratio"] = 0.3f;
  EXPECT_EQ(Values<float>(RunOne(old, {&x})), (std::vector<float>{1, 2, 3, 4}));

  HostTensor train = Bool({}, {1});
  NodeDef training = Def("Dropout", {&x, &ratio, &train}, {DataType::kFloat32}, 13);
  EXPECT_EQ(RunStatus(training, {&x, &ratio, &train}).code(), code::kFeatureUnsupported);
  HostTensor zero = F32({}, {0});
  EXPECT_EQ(Values<float>(RunOne(Def("Dropout", {&x, &zero, &train}, {DataType::kFloat32}, 13),
                                 {&x, &zero, &train})),
            (std::vector<float>{1, 2, 3, 4}));
}

TEST(ElementwiseKernelTest, DropoutWritesTheMaskOnlyWhenTheGraphUsesIt) {
  HostTensor x = F32({3}, {1, 2, 3});
  // The mask left out: output 1 is not bound and the kernel skips it.
  auto outs = RunAll(Def("Dropout", {&x}, {DataType::kFloat32, DataType::kUndefined}, 13), {&x});
  ASSERT_EQ(outs.size(), 2u);
  EXPECT_EQ(Values<float>(outs[0]), (std::vector<float>{1, 2, 3}));
  EXPECT_TRUE(outs[1].bytes.empty());
  // Dropout-7 types the mask like the input.
  auto old = RunAll(Def("Dropout", {&x}, {DataType::kFloat32, DataType::kFloat32}, 7), {&x});
  EXPECT_EQ(Values<float>(old[1]), (std::vector<float>{1, 1, 1}));
}

TEST(ElementwiseKernelTest, DropoutRefusesAConstantTrainingModeAtPrepare) {
  HostTensor x = F32({1}, {1});
  HostTensor train = Bool({}, {1});
  TensorView train_view = train.view();
  NodeDef def = Def("Dropout", {&x, nullptr, &train}, {DataType::kFloat32}, 13);
  def.constants[2] = &train_view;
  auto k = KernelRegistry::Global().Create(kReferenceBackend, def);
  ASSERT_FALSE(k.ok());
  EXPECT_EQ(k.status().code(), code::kFeatureUnsupported);
  EXPECT_NE(k.status().message().find("Dropout 'n'"), std::string::npos);
}

}  // namespace
}  // namespace kiln::kernels
