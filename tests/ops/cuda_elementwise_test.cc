// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The CUDA element-wise kernels against the reference kernels (label gpu; skipped where the
// machine has no GPU): exactly for the arithmetic, within a few ulp for the functions CUDA's
// math library computes (expf, tanhf, erff, powf: within 2 ulp of the exact value).
#include <cmath>
#include <cstdint>
#include <string>

#include "tests/ops/cuda_vs_reference.h"

namespace kiln::cuda::testing {
namespace {

using kernels::testing::Def;
using CudaElementwiseTest = CudaVsReference;

TEST_F(CudaElementwiseTest, UnaryOpsMatchTheReference) {
  struct Case {
    const char* op;
    float lo, hi, rtol;
  };
  const Case cases[] = {
      {"Relu", -4, 4, 0},        {"Neg", -4, 4, 0},
      {"Abs", -4, 4, 0},         {"Floor", -4, 4, 0},
      {"Ceil", -4, 4, 0},        {"Identity", -4, 4, 0},
      {"Sqrt", 0, 100, 1e-6f},   {"Reciprocal", 0.1f, 9, 1e-6f},
      {"Sigmoid", -9, 9, 1e-5f}, {"Tanh", -5, 5, 1e-5f},
      {"Exp", -9, 9, 1e-5f},     {"Log", 0.01f, 100, 1e-5f},
      {"Erf", -3, 3, 1e-5f},     {"Softplus", -9, 30, 1e-5f},
  };
  unsigned seed = 1;
  for (const Case& c : cases) {
    HostTensor x = Random({3, 1000}, c.lo, c.hi, seed++);
    ExpectClose(Run(Def(c.op, {&x}, {DataType::kFloat32}), {x}), c.rtol, c.op);
  }
}

TEST_F(CudaElementwiseTest, BinaryOpsBroadcastLikeTheReference) {
  const std::vector<std::pair<Dims, Dims>> shapes = {
      {{4, 5, 6}, {4, 5, 6}},        // same shape
      {{4, 1, 6}, {5, 1}},           // both broadcast
      {{}, {3, 7}},                  // a scalar
      {{2, 3, 4, 5}, {5}},           // a row
      {{1, 8, 1, 1}, {2, 8, 3, 3}},  // per channel
  };
  const std::pair<const char*, float> ops[] = {{"Add", 0}, {"Sub", 0}, {"Mul", 0},    {"Div", 0},
                                               {"Max", 0}, {"Min", 0}, {"Pow", 1e-5f}};
  unsigned seed = 100;
  for (const auto& [op, rtol] : ops) {
    for (const auto& [da, db] : shapes) {
      const bool pow = std::string(op) == "Pow";
      HostTensor a = Random(da, pow ? 0.5f : -3, 3, seed++);
      HostTensor b = Random(db, pow ? -2.f : 0.5f, 3, seed++);
      ExpectClose(
          Run(Def(op, {&a, &b}, {DataType::kFloat32}), {a, b}), rtol,
          std::string(op) + " " + kernels::DimsString(da) + " x " + kernels::DimsString(db));
    }
  }
}

TEST_F(CudaElementwiseTest, VariadicOpsFoldTheirInputsLikeTheReference) {
  HostTensor a = Random({2, 3, 4}, -3, 3, 300), b = Random({3, 1}, -3, 3, 301);
  HostTensor c = Random({4}, -3, 3, 302);
  for (const char* op : {"Sum", "Max", "Min"}) {
    ExpectClose(Run(Def(op, {&a, &b, &c}, {DataType::kFloat32}, 13), {a, b, c}), 1e-6f,
                std::string(op) + " of three");
    ExpectClose(Run(Def(op, {&a}, {DataType::kFloat32}, 13), {a}), 0, std::string(op) + " of one");
  }
}

TEST_F(CudaElementwiseTest, IntegerArithmeticFollowsTheReferenceRules) {
  using kernels::testing::I64;
  const HostTensor a = I64({2, 4}, {7, -7, INT64_MAX, INT64_MIN, 0, 5, -9, 3});
  const HostTensor b = I64({4}, {2, -2, 1, -1});
  const HostTensor zero = I64({1}, {0});
  for (const char* op : {"Add", "Sub", "Mul", "Div", "Max", "Min"}) {
    ExpectSameBytes(Run(Def(op, {&a, &b}, {DataType::kInt64}, 14), {a, b}), op);
  }
  ExpectSameBytes(Run(Def("Div", {&a, &zero}, {DataType::kInt64}, 14), {a, zero}), "Div by zero");
  const HostTensor i32 = kernels::testing::Make<int32_t>(DataType::kInt32, {3}, {5, -6, 7});
  ExpectSameBytes(Run(Def("Mul", {&i32, &i32}, {DataType::kInt32}, 14), {i32, i32}), "Mul int32");
}

TEST_F(CudaElementwiseTest, CastsFollowTheReferenceRules) {
  const HostTensor f =
      kernels::testing::F32({8}, {1.5f, -1.5f, 0.0f, -0.0f, 3e9f, -3e9f, std::nanf(""), 65504.0f});
  for (DataType to : {DataType::kFloat16, DataType::kBFloat16, DataType::kFloat64, DataType::kInt64,
                      DataType::kInt32, DataType::kInt8, DataType::kUint8, DataType::kBool}) {
    NodeDef def = Def("Cast", {&f}, {to}, 13);
    def.attrs["to"] = static_cast<int64_t>(to);
    ExpectSameBytes(Run(def, {f}), std::string("Cast float32 to ") + ir::Name(to));
  }
  const HostTensor ints = kernels::testing::I64({4}, {-3, 0, 300, 1LL << 40});
  for (DataType to : {DataType::kFloat32, DataType::kFloat16, DataType::kInt8, DataType::kBool}) {
    NodeDef def = Def("Cast", {&ints}, {to}, 13);
    def.attrs["to"] = static_cast<int64_t>(to);
    ExpectSameBytes(Run(def, {ints}), std::string("Cast int64 to ") + ir::Name(to));
  }
}

}  // namespace
}  // namespace kiln::cuda::testing
