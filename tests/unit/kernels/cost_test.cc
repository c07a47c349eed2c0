// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// kernels/cost.h: Flops counts a transcendental as one operation (as profiles do), EstimateWork
// weighs it as kTranscendentalWork (a kernel's time, by which a device decides its threads) and
// counts the bytes a kernel moves apart.
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
  // The work also counts the bytes read and written: here X's and Y's.
  EXPECT_EQ(EstimateWork(softmax, {&x}, {&y})->ops, static_cast<uint64_t>(5 * n + 15 * n));
  EXPECT_EQ(EstimateWork(softmax, {&x}, {&y})->bytes, static_cast<uint64_t>(2 * bytes));
  const NodeCost sigmoid = PrepareCost(Def("Sigmoid"));
  EXPECT_EQ(EstimateWork(sigmoid, {&x}, {&y})->ops, static_cast<uint64_t>(n + 15 * n));
  // An op without one: its Flops, and the bytes of its inputs and output.
  const NodeCost add = PrepareCost(Def("Add"));
  EXPECT_EQ(add.transcendentals, 0);
  EXPECT_EQ(EstimateWork(add, {&x, &x}, {&y})->ops, *Flops(add, {&x, &x}, {&y}));
  EXPECT_EQ(EstimateWork(add, {&x, &x}, {&y})->bytes, static_cast<uint64_t>(3 * bytes));
}

TEST(CostTest, WorkCountsTheWeightsAProductReadsButNotWhatAGatherLeavesUnread) {
  // A classifier's last layer at batch 1: 2.56 MFLOP, but 5 MB of weights streamed from memory
  // (which one thread reads at half the speed of two).
  const TensorView a{DataType::kFloat32, {1, 1280}, nullptr};
  const TensorView b{DataType::kFloat32, {1000, 1280}, nullptr};
  const TensorView c{DataType::kFloat32, {1000}, nullptr};
  const TensorView y{DataType::kFloat32, {1, 1000}, nullptr};
  NodeDef gemm = Def("Gemm");
  const NodeCost cost = PrepareCost(gemm);
  const uint64_t flops = *Flops(cost, {&a, &b, &c}, {&y});
  EXPECT_EQ(flops, 2u * 1280 * 1000);
  EXPECT_EQ(EstimateWork(cost, {&a, &b, &c}, {&y})->ops, flops);
  EXPECT_EQ(EstimateWork(cost, {&a, &b, &c}, {&y})->bytes,
            (1280 + 1000 * 1280 + 1000 + 1000) * sizeof(float));
  // Gather reads a few rows of its table: only the rows it writes count, read once and written
  // once.
  const TensorView table{DataType::kFloat32, {30522, 384}, nullptr};
  const TensorView ids{DataType::kInt64, {1, 128}, nullptr};
  const TensorView rows{DataType::kFloat32, {1, 128, 384}, nullptr};
  const auto gather = EstimateWork(PrepareCost(Def("Gather")), {&table, &ids}, {&rows});
  EXPECT_EQ(gather->ops, 0u);
  EXPECT_EQ(gather->bytes, 2 * rows.bytes());
}

}  // namespace
}  // namespace kiln::kernels
