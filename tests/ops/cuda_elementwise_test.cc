// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The CUDA element-wise kernels against the reference kernels (label gpu; skipped where the
// machine has no GPU): exactly for the arithmetic, within a few ulp for the functions CUDA's
// math library computes (expf, tanhf, erff, powf: within 2 ulp of the exact value).
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

}  // namespace
}  // namespace kiln::cuda::testing
