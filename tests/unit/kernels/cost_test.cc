// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// kernels/cost.h: Flops counts a transcendental as one operation (as profiles do), Work weighs it
// as kTranscendentalWork (a kernel's time, by which a device decides its threads).
#include "kernels/cost.h"

#include <gtest/gtest.h>

#include "kernels/kernel.h"

namespace kiln::kernels {
namespace {

NodeDef Def(const std::string& op) {
  NodeDef def;
  def.op_type = op;
  return def;
}

TEST(CostTest, ATranscendentalIsOneOperationInFlopsAndSixteenInWork) {
  const TensorView x{DataType::kFloat32, {12, 128, 128}, nullptr};
  const TensorView y = x;
  const double n = 12 * 128 * 128, bytes = n * 4;
  const NodeCost softmax = PrepareCost(Def("Softmax"));
  EXPECT_EQ(softmax.transcendentals, 1);
  EXPECT_EQ(*Flops(softmax, {&x}, {&y}), static_cast<uint64_t>(5 * n));
  EXPECT_EQ(*Work(softmax, {&x}, {&y}), static_cast<uint64_t>(5 * n + 15 * n + bytes));
  const NodeCost sigmoid = PrepareCost(Def("Sigmoid"));
  EXPECT_EQ(*Work(sigmoid, {&x}, {&y}), static_cast<uint64_t>(n + 15 * n + bytes));
  // An op without one: its Flops plus its output bytes.
  const NodeCost add = PrepareCost(Def("Add"));
  EXPECT_EQ(add.transcendentals, 0);
  EXPECT_EQ(*Work(add, {&x, &x}, {&y}), *Flops(add, {&x, &x}, {&y}) + static_cast<uint64_t>(bytes));
}

}  // namespace
}  // namespace kiln::kernels
