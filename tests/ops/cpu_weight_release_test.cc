// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Released weights (Kernel::ReleaseConstant, runtime/program.cc): a oneDNN kernel that keeps an
// exact packed copy of its constant weights agrees to let the original go, and from then on
// never reads it — the tests overwrite the original with NaN, as if its pages had been given
// back, and the results still equal the reference kernel's on the intact weights — except
// after writing it back from its copy, bit for bit, for a path that needs it (a run the
// reference kernel takes, RestoreConstants for the data dump). Kernels without such a copy
// (weights computed at run time, converted to bf16) refuse.
#include <cmath>
#include <cstring>
#include <limits>

#include "backends/cpu/cpu_compute.h"
#include "backends/cpu/kernels/dnnl_common.h"
#include "tests/ops/cpu_vs_reference_util.h"

namespace kiln::cpu {
namespace {

using namespace vs_reference;  // NOLINT

// The bytes of constant input i of `node`, and a way to poison them.
std::vector<uint8_t> BytesOf(const Node& node, size_t i) {
  const kernels::TensorView* t = node.def().constants[i];
  const auto* p = static_cast<const uint8_t*>(t->data);
  return std::vector<uint8_t>(p, p + t->bytes());
}
void Poison(const Node& node, size_t i) {
  const kernels::TensorView* t = node.def().constants[i];
  float* p = t->as<float>();
  for (int64_t k = 0; k < t->num_elements(); ++k) p[k] = std::numeric_limits<float>::quiet_NaN();
}

std::vector<HostTensor> RunOn(const kernels::Kernel& kernel, const Node& node,
                              std::vector<const HostTensor*> inputs) {
  TestContext ctx(std::move(inputs), node.def().output_types, &node.def());
  Status st = kernel.Run(ctx);
  EXPECT_TRUE(st.ok()) << st.message();
  return ctx.outputs();
}

// Prepares the cpu kernel, releases constant input `w`, poisons it and checks a run on the
// team and one on a single thread (a second plan, packed from the copy) against the reference
// results on the intact weights; the original stays poisoned: nothing wrote it back.
void CheckReleased(const Node& node, size_t w, int64_t k) {
  auto want = node.Run(Registry().Create(kernels::kReferenceBackend, node.def()));
  ASSERT_TRUE(want.ok()) << want.status().message();
  auto cpu = node.PrepareCpu();
  ASSERT_TRUE(cpu.ok()) << cpu.status().message();
  ASSERT_TRUE((*cpu)->ReleaseConstant(w)) << "the kernel kept no exact copy of its weights";
  Poison(node, w);
  const int64_t before = ReferenceRunCount();
  Node::Compare(RunOn(**cpu, node, node.inputs()), *want, k);
  {
    TeamScope one(1);
    Node::Compare(RunOn(**cpu, node, node.inputs()), *want, k);
  }
  EXPECT_EQ(ReferenceRunCount(), before) << "the runs were expected on oneDNN";
  EXPECT_TRUE(std::isnan(node.def().constants[w]->as<float>()[0]))
      << "the released original was written back although nothing needed it";
}

TEST(CpuWeightReleaseTest, AConvolutionRunsOnItsPackedCopyAlone) {
  Node node("Conv", 11);
  node.In(Random({1, 32, 6, 6}, 1)).Const(Random({64, 32, 1, 1}, 2)).In(Random({64}, 3));
  CheckReleased(node, 1, 32);
}

TEST(CpuWeightReleaseTest, AFusedConvolutionWithPadsRunsOnItsPackedCopyAlone) {
  Node node = Node::Fused("FusedConv");
  node.In(Random({1, 16, 7, 7}, 4)).Const(Random({24, 16, 3, 3}, 5)).In(Random({24}, 6));
  node.Ints("pads", {1, 1, 1, 1}).Str("activation", "Relu");
  CheckReleased(node, 1, 144);
}

TEST(CpuWeightReleaseTest, AGemmWithTransposedWeightsRunsOnItsPackedCopyAlone) {
  Node node("Gemm", 13);
  node.In(Random({3, 64}, 7)).Const(Random({48, 64}, 8)).In(Random({48}, 9));
  node.Int("transB", 1);
  CheckReleased(node, 1, 64);
}

TEST(CpuWeightReleaseTest, AConvTransposeAsOneMatmulRunsOnItsPackedCopyAlone) {
  // Kernel 2x2, stride 2: the matmul-and-spread path packs W^T.
  Node node("ConvTranspose", 11);
  node.In(Random({1, 16, 5, 5}, 10)).Const(Random({16, 8, 2, 2}, 11));
  node.Ints("strides", {2, 2});
  CheckReleased(node, 1, 16);
}

TEST(CpuWeightReleaseTest, RestoreConstantsWritesTheWeightsBackBitForBit) {
  Node node("Conv", 11);
  node.In(Random({1, 32, 6, 6}, 12)).Const(Random({64, 32, 1, 1}, 13));
  const std::vector<uint8_t> original = BytesOf(node, 1);
  auto cpu = node.PrepareCpu();
  ASSERT_TRUE(cpu.ok()) << cpu.status().message();
  (*cpu)->RestoreConstants();  // nothing released: a no-op
  EXPECT_EQ(BytesOf(node, 1), original);
  ASSERT_TRUE((*cpu)->ReleaseConstant(1));
  Poison(node, 1);
  (*cpu)->RestoreConstants();
  EXPECT_EQ(BytesOf(node, 1), original);
  Poison(node, 1);
  (*cpu)->RestoreConstants();  // back already: not written again
  EXPECT_TRUE(std::isnan(node.def().constants[1]->as<float>()[0]));
}

// A plan for other dims may want another layout: it is packed from the exact copy.
TEST(CpuWeightReleaseTest, ANewLayoutIsPackedFromTheExactCopy) {
  using tag = dnnl::memory::format_tag;
  const dnnl::memory::dims dims = {64, 32, 1, 1};
  const auto f32 = dnnl::memory::data_type::f32;
  const dnnl::memory::desc user(dims, f32, tag::oihw), first(dims, f32, tag::OIhw16i16o),
      second(dims, f32, tag::Ohwi16o);
  HostTensor w = Random({64, 32, 1, 1}, 26);
  const std::vector<uint8_t> original = w.bytes;
  PackedWeights packed;
  packed.Get(user, w.bytes.data(), first);
  ASSERT_TRUE(packed.Release());
  for (size_t k = 0; k < w.bytes.size(); k += sizeof(float)) {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    std::memcpy(&w.bytes[k], &nan, sizeof nan);
  }
  const void* in_second = packed.Get(user, w.bytes.data(), second);
  std::vector<uint8_t> back(original.size());
  ReorderOnce(second, in_second, user, back.data());
  EXPECT_EQ(back, original);
  EXPECT_TRUE(std::isnan(reinterpret_cast<const float*>(w.bytes.data())[0]));
  // Wanting the original layout itself writes the original back.
  EXPECT_EQ(packed.Get(user, w.bytes.data(), user), w.bytes.data());
  EXPECT_EQ(w.bytes, original);
  EXPECT_FALSE(packed.Release()) << "a plan reads the original in place now";
}

// A run the reference kernel takes (a residual that broadcasts, where the planned one did not)
// reads the original weights: the kernel writes them back first.
TEST(CpuWeightReleaseTest, ARunOnTheReferenceKernelGetsTheWeightsWrittenBackFirst) {
  Node node = Node::Fused("FusedConv");
  node.In(Random({2, 4, 5, 5}, 14)).Const(Random({6, 4, 3, 3}, 15)).In(Random({6}, 16));
  node.In(Random({2, 6, 5, 5}, 17)).Ints("pads", {1, 1, 1, 1}).Str("activation", "Relu");
  const HostTensor z = Random({1, 6, 1, 5}, 18);
  std::vector<const HostTensor*> inputs = node.inputs();
  inputs[3] = &z;
  const std::vector<uint8_t> original = BytesOf(node, 1);
  auto reference = Registry().Create(kernels::kReferenceBackend, node.def());
  ASSERT_TRUE(reference.ok());
  const std::vector<HostTensor> want = RunOn(**reference, node, inputs);
  auto cpu = node.PrepareCpu();
  ASSERT_TRUE(cpu.ok()) << cpu.status().message();
  ASSERT_TRUE((*cpu)->ReleaseConstant(1));
  Poison(node, 1);
  const int64_t before = ReferenceRunCount();
  Node::Compare(RunOn(**cpu, node, inputs), want, 36);
  EXPECT_EQ(ReferenceRunCount(), before + 1);
  EXPECT_EQ(BytesOf(node, 1), original);
}

TEST(CpuWeightReleaseTest, KernelsWithoutAnExactCopyKeepTheirWeights) {
  // Weights computed at run time: nothing to release.
  Node computed("Conv", 11);
  computed.In(Random({1, 8, 5, 5}, 19)).In(Random({8, 8, 3, 3}, 20));
  auto k1 = computed.PrepareCpu();
  ASSERT_TRUE(k1.ok()) << k1.status().message();
  EXPECT_FALSE((*k1)->ReleaseConstant(1));
  // Not an input the kernel packs (the bias).
  Node bias("Conv", 11);
  bias.In(Random({1, 8, 5, 5}, 21)).Const(Random({8, 8, 1, 1}, 22)).Const(Random({8}, 23));
  auto k2 = bias.PrepareCpu();
  ASSERT_TRUE(k2.ok()) << k2.status().message();
  EXPECT_FALSE((*k2)->ReleaseConstant(2));
  // bf16 products: the packed copy is rounded to bf16, not the weights themselves (on a CPU
  // without bf16 arithmetic the product stays f32, its copy exact).
  Node bf16("Conv", 11);
  bf16.In(Random({1, 32, 6, 6}, 24)).Const(Random({64, 32, 1, 1}, 25));
  bf16.Precision(kernels::MatrixPrecision::kBf16);
  auto k3 = bf16.PrepareCpu();
  ASSERT_TRUE(k3.ok()) << k3.status().message();
  EXPECT_EQ((*k3)->ReleaseConstant(1), !CpuHasBf16());
}

}  // namespace
}  // namespace kiln::cpu
