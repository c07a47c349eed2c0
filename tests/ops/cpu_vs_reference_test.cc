// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The CPU backend's oneDNN kernels against the reference kernels (the oracle) on awkward shapes:
// odd channels, groups and depthwise, strides, dilations, asymmetric and automatic pads, 1-D to
// 3-D, batch > 1, with and without bias, every fused activation and the residual, Gemm's
// transposes, alpha, beta and C broadcasts, batched MatMul with broadcasting, the softmax axes
// of every opset and the normalisations; ConvTranspose with groups, strides, dilations, every
// auto_pad, output_padding and output_shape; InstanceNormalization and GroupNormalization (whose
// cpu kernels are Kiln's own loops split with ParallelFor, not oneDNN).
//
// Tolerance: inputs are uniform in [-1, 1] and both kernels compute in float32 (the reference
// accumulates in double and rounds once), so they differ by the rounding of oneDNN's float
// accumulation: at most about K * 2^-24 * sum|x * w| for a reduction of length K, in practice
// close to sqrt(K) * 2^-24 * sqrt(K). atol = 1e-6 * K (+ 1e-6) with rtol = 1e-5 covers that with
// margin for K up to a few thousand and for oneDNN's polynomial activations (a few ulp), yet
// catches any indexing, padding or layout mistake, which moves results by O(1e-2) or more.
#include "tests/ops/cpu_vs_reference_util.h"

#include "backends/cpu/cpu_compute.h"
#include "backends/cpu/kernels/dnnl_common.h"
#include "kernels/util.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace kiln::cpu {
namespace {

using namespace vs_reference;  // NOLINT(build/namespaces): the test helpers
using kernels::DataType;
using kernels::Dims;
using kernels::HostTensor;
using kernels::NodeDef;
using Ints = std::vector<int64_t>;

// ---------------------------------------------------------------------------------------------
// Conv.

// Conv of X [n, c, spatial...] with constant W [m, c / group, kernel...] (+ bias).
Node ConvNode(Dims x, Dims w, bool bias, uint32_t seed) {
  const int64_t m = w[0];
  Node node("Conv", 11);
  node.In(Random(std::move(x), seed)).Const(Random(std::move(w), seed + 1));
  if (bias) node.In(Random({m}, seed + 2));
  return node;
}

TEST(CpuConvTest, PlainConvWithBiasAndPads) {
  ConvNode({1, 3, 7, 9}, {4, 3, 3, 3}, true, 1).Ints("pads", {1, 1, 1, 1}).Check(27);
}

TEST(CpuConvTest, OddChannelsStrideTwoAsymmetricPadsBatchTwo) {
  ConvNode({2, 5, 11, 8}, {7, 5, 3, 2}, false, 2)
      .Ints("strides", {2, 2})
      .Ints("pads", {0, 1, 2, 1})
      .Check(30);
}

TEST(CpuConvTest, DilationsWithUnequalStrides) {
  ConvNode({1, 6, 13, 13}, {6, 6, 3, 3}, true, 3)
      .Ints("dilations", {2, 2})
      .Ints("strides", {2, 1})
      .Ints("kernel_shape", {3, 3})
      .Check(54);
}

TEST(CpuConvTest, GroupedConv) {
  ConvNode({2, 6, 9, 9}, {9, 2, 3, 3}, true, 4)
      .Int("group", 3)
      .Ints("pads", {1, 0, 1, 0})
      .Check(18);
}

TEST(CpuConvTest, DepthwiseConvStrideTwo) {
  ConvNode({1, 8, 10, 10}, {8, 1, 3, 3}, true, 5)
      .Int("group", 8)
      .Ints("strides", {2, 2})
      .Ints("pads", {1, 1, 1, 1})
      .Check(9);
}

TEST(CpuConvTest, DepthwiseWithChannelMultiplier) {
  ConvNode({2, 4, 7, 6}, {8, 1, 3, 3}, false, 6).Int("group", 4).Check(9);
}

TEST(CpuConvTest, PointwiseConvBatchThree) {
  ConvNode({3, 16, 5, 5}, {8, 16, 1, 1}, true, 7).Check(16);
}

TEST(CpuConvTest, AutoPadSameUpperAndLowerAndValid) {
  for (const char* pad : {"SAME_UPPER", "SAME_LOWER", "VALID"}) {
    SCOPED_TRACE(pad);
    ConvNode({1, 3, 10, 7}, {5, 3, 4, 3}, true, 8)
        .Str("auto_pad", pad)
        .Ints("strides", {2, 2})
        .Check(36);
  }
}

TEST(CpuConvTest, OneDimensionalConv) {
  ConvNode({2, 4, 17}, {6, 4, 5}, true, 9).Ints("strides", {2}).Ints("pads", {2, 1}).Check(20);
}

TEST(CpuConvTest, ThreeDimensionalConv) {
  ConvNode({1, 3, 6, 7, 5}, {4, 3, 3, 3, 2}, true, 10).Ints("pads", {1, 1, 0, 1, 0, 1}).Check(54);
}

TEST(CpuConvTest, WideChannelsUseBlockedLayouts) {
  ConvNode({2, 32, 14, 14}, {64, 32, 3, 3}, true, 11).Ints("pads", {1, 1, 1, 1}).Check(288);
  ConvNode({1, 64, 8, 8}, {32, 64, 1, 1}, false, 12).Ints("strides", {2, 2}).Check(64);
}

TEST(CpuConvTest, ResNetStemShape) {
  ConvNode({1, 3, 32, 32}, {64, 3, 7, 7}, true, 13)
      .Ints("strides", {2, 2})
      .Ints("pads", {3, 3, 3, 3})
      .Check(147);
}

TEST(CpuConvTest, DynamicBatchBuildsAPlanPerShape) {
  Node node = ConvNode({2, 5, 6, 6}, {4, 5, 3, 3}, true, 14);
  node.Planned(0, {-1, 5, 6, 6});
  auto kernel = node.PrepareCpu();
  ASSERT_TRUE(kernel.ok()) << kernel.status().message();
  const HostTensor& w = *node.inputs()[1];
  const HostTensor& b = *node.inputs()[2];
  for (int64_t batch : {1, 3, 1}) {
    HostTensor x = Random({batch, 5, 6, 6}, 100 + static_cast<uint32_t>(batch));
    const int64_t before = ReferenceRunCount();
    TestContext ctx({&x, &w, &b}, {DataType::kFloat32}, &node.def());
    ASSERT_TRUE((*kernel)->Run(ctx).ok());
    EXPECT_EQ(ReferenceRunCount(), before);
    auto want = kernels::testing::RunReference(node.def(), {&x, &w, &b});
    ASSERT_TRUE(want.ok()) << want.status().message();
    Node::Compare(ctx.outputs(), *want, 45);
  }
}

TEST(CpuConvTest, BadInputChannelsAreRefusedNotACrash) {
  Node node = ConvNode({1, 4, 5, 5}, {2, 4, 3, 3}, false, 15);
  node.Planned(0, {-1, -1, -1, -1});
  auto kernel = node.PrepareCpu();
  ASSERT_TRUE(kernel.ok()) << kernel.status().message();
  HostTensor x = Random({1, 3, 5, 5}, 16);
  ExpectRefusedAtRun(node.def(), **kernel, {&x, node.inputs()[1]});
}

TEST(CpuConvTest, ConcurrentRunsShareOneKernel) {
  Node node = ConvNode({2, 24, 12, 12}, {32, 24, 3, 3}, true, 17);
  node.Ints("pads", {1, 1, 1, 1});
  auto kernel = node.PrepareCpu();
  ASSERT_TRUE(kernel.ok()) << kernel.status().message();
  auto want = kernels::testing::RunReference(node.def(), node.inputs());
  ASSERT_TRUE(want.ok());
  std::atomic<int> mismatches{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 8; ++i) {
        TestContext ctx(node.inputs(), {DataType::kFloat32}, &node.def());
        if (!(*kernel)->Run(ctx).ok()) {
          ++mismatches;
          continue;
        }
        const auto g = Values<float>(ctx.outputs()[0]);
        const auto w = Values<float>((*want)[0]);
        for (size_t j = 0; j < g.size(); ++j) {
          if (std::fabs(g[j] - w[j]) > 1e-3f) {
            ++mismatches;
            break;
          }
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(mismatches.load(), 0);
}

// A run on a team of one (a small kernel while idle workers sleep, or concurrent executions)
// gets a plan whose primitives are made for one thread, built once beside the team's; its
// results are the same.
TEST(CpuConvTest, ARunOnOneThreadGetsAPlanMadeForOneThread) {
  if (ComputeThreads() < 2) GTEST_SKIP() << "one compute thread: every plan is made for one";
  Node node = ConvNode({1, 32, 56, 56}, {64, 32, 3, 3}, true, 7);  // 115 MFLOP: the team's
  node.Ints("pads", {1, 1, 1, 1});
  auto want = node.Run(Registry().Create(kernels::kReferenceBackend, node.def()));
  ASSERT_TRUE(want.ok()) << want.status().message();
  auto cpu = node.PrepareCpu();
  ASSERT_TRUE(cpu.ok()) << cpu.status().message();
  const auto* dnnl = dynamic_cast<const DnnlKernel*>(cpu->get());
  ASSERT_NE(dnnl, nullptr);
  auto run = [&] {
    kernels::testing::TestContext ctx(node.inputs(), node.def().output_types, &node.def());
    EXPECT_TRUE((*cpu)->Run(ctx).ok());
    return ctx.outputs();
  };
  Node::Compare(run(), *want, 288);
  EXPECT_EQ(dnnl->cached_plans(), 0u);  // the full team: the plan made at Prepare
  for (int i = 0; i < 2; ++i) {
    TeamScope one(1);
    Node::Compare(run(), *want, 288);
    EXPECT_EQ(dnnl->cached_plans(), 1u);  // one plan for one thread, then reused
  }
  Node::Compare(run(), *want, 288);
  EXPECT_EQ(dnnl->cached_plans(), 1u);
}

TEST(CpuConvTest, DeclinesWhatItDoesNotTake) {
  // float64.
  Node f64("Conv", 11);
  HostTensor x(DataType::kFloat64, {1, 1, 3, 3}), w(DataType::kFloat64, {1, 1, 2, 2});
  f64.In(std::move(x)).Const(std::move(w)).Outputs({DataType::kFloat64});
  f64.Check(4, Expect::kDeclined);
  // 4 spatial dims.
  ConvNode({1, 2, 3, 3, 3, 3}, {2, 2, 2, 2, 2, 2}, false, 18).Check(32, Expect::kDeclined);
}

// Pads far beyond the input (a dilation of 10^7 under SAME pads, from a crafted .om: oneDNN's
// primitive would take minutes to make, its time growing with the pads) go to the reference
// kernel, and so do a pool's; pads up to 64 + 4x the input stay on oneDNN.
TEST(CpuConvTest, PadsOutOfProportionToTheInputRunOnTheReferenceKernel) {
  ConvNode({1, 1, 6, 28}, {2, 1, 5, 5}, true, 70)
      .Str("auto_pad", "SAME_UPPER")
      .Ints("dilations", {1, 9961473})
      .Check(25, Expect::kReference);
  ConvNode({1, 1, 6, 8}, {2, 1, 3, 3}, true, 71)
      .Ints("dilations", {1, 40})
      .Ints("pads", {1, 40, 1, 40})
      .Check(9);
  Node("MaxPool", 12)
      .In(Random({1, 2, 5, 5}, 72))
      .Ints("kernel_shape", {3, 300})
      .Ints("pads", {1, 150, 1, 149})
      .Check(1, Expect::kReference);
}

TEST(CpuConvTest, ComputedWeightsAreReorderedOnEveryRun) {
  Node("Conv", 11).In(Random({1, 3, 5, 5}, 19)).In(Random({2, 3, 3, 3}, 20)).Check(27);
  Node("Conv", 11)
      .In(Random({2, 32, 9, 9}, 21))
      .In(Random({48, 16, 3, 3}, 22))
      .In(Random({48}, 23))
      .Int("group", 2)
      .Ints("pads", {1, 1, 1, 1})
      .Check(144);
}

// ---------------------------------------------------------------------------------------------
// FusedConv.

Node FusedConvNode(Dims x, Dims w, bool bias, bool residual, const std::string& act,
                   uint32_t seed) {
  Node node = Node::Fused("FusedConv");
  const int64_t m = w[0];
  Dims y = {x[0], m, x[2], x[3]};  // pads 1 with a 3x3 kernel keep the spatial size
  node.In(Random(std::move(x), seed)).Const(Random(std::move(w), seed + 1));
  if (bias) {
    node.In(Random({m}, seed + 2));
  } else if (residual) {
    node.None();
  }
  if (residual) node.In(Random(std::move(y), seed + 3));
  node.Ints("pads", {1, 1, 1, 1});
  if (!act.empty()) node.Str("activation", act);
  return node;
}

// Every activation a fused op takes ("" for none).
constexpr const char* kActivations[] = {"",     "Relu",        "LeakyRelu", "Clip", "Sigmoid",
                                        "Tanh", "HardSigmoid", "HardSwish", "Gelu", "Swish"};

// Sets `act`'s parameters on `node` to values off their defaults (Swish's alpha only when
// `swish_alpha`, so that its default is also tested).
Node& WithActivationParams(Node& node, const std::string& act, bool swish_alpha = true) {
  if (act == "LeakyRelu") node.Float("activation_alpha", 0.2f);
  if (act == "Clip") node.Float("activation_alpha", -0.5f).Float("activation_beta", 0.7f);
  if (act == "HardSigmoid") node.Float("activation_alpha", 0.3f).Float("activation_beta", 0.4f);
  if (act == "Swish" && swish_alpha) node.Float("activation_alpha", 1.7f);
  return node;
}

// One FusedConv shape (3x3, pads 1) for CheckEveryActivation.
struct ActivationCase {
  const char* name;
  Dims x, w;
  uint32_t seed;
  int64_t k;                // the reduction length, for the tolerance
  bool swish_alpha = true;  // WithActivationParams' swish_alpha
};

// Every activation on each case's FusedConv, with bias and residual, against the reference.
void CheckEveryActivation(std::initializer_list<ActivationCase> cases) {
  for (const char* act : kActivations) {
    for (const ActivationCase& c : cases) {
      SCOPED_TRACE(std::string(act) + " " + c.name);
      Node node = FusedConvNode(c.x, c.w, true, true, act, c.seed);
      WithActivationParams(node, act, c.swish_alpha).Check(c.k);
    }
  }
}

TEST(CpuFusedConvTest, EveryActivationWithBiasAndResidual) {
  CheckEveryActivation({{"small", {1, 3, 6, 5}, {5, 3, 3, 3}, 21, 27, false},
                        {"blocked", {2, 32, 7, 7}, {48, 32, 3, 3}, 20, 288}});
}

// post_scale / post_shift (post_affine_fusion) after every activation, HardSigmoid's own linear
// step included, with and without a residual.
TEST(CpuFusedConvTest, AffineAfterEveryActivation) {
  for (const char* act : kActivations) {
    for (bool blocked : {false, true}) {
      SCOPED_TRACE(std::string(act) + (blocked ? " blocked" : " small"));
      Node node = blocked ? FusedConvNode({1, 32, 7, 7}, {48, 32, 3, 3}, true, true, act, 26)
                          : FusedConvNode({1, 3, 6, 5}, {5, 3, 3, 3}, true, false, act, 27);
      if (std::string(act) == "HardSigmoid") {
        node.Float("activation_alpha", 0.3f).Float("activation_beta", 0.4f);
      }
      node.Float("post_scale", -0.7f).Float("post_shift", 0.25f);
      node.Check(blocked ? 288 : 27);
    }
  }
  FusedConvNode({1, 4, 5, 5}, {4, 4, 3, 3}, true, false, "HardSwish", 28)
      .Float("post_shift", 1.5f)
      .Check(36);
}

TEST(CpuFusedConvTest, ActivationWithoutResidualAndResidualWithoutBias) {
  FusedConvNode({2, 16, 5, 5}, {16, 16, 3, 3}, true, false, "Relu", 22).Check(144);
  FusedConvNode({2, 16, 5, 5}, {16, 16, 3, 3}, false, true, "Relu", 23).Check(144);
  FusedConvNode({1, 5, 5, 5}, {3, 5, 3, 3}, false, true, "", 24).Check(45);
}

TEST(CpuFusedConvTest, ClipWithDefaultBounds) {
  FusedConvNode({1, 4, 5, 5}, {4, 4, 3, 3}, true, false, "Clip", 25).Check(36);
}

// A run whose residual Z (input `z`) shares output 0's memory, as the planner's in-place reuse
// arranges when Z dies at the node (OpSchema::InPlace): Z's values are in the output's buffer
// when the kernel starts.
class ResidualInOutputContext final : public kernels::ForwardingContext {
 public:
  ResidualInOutputContext(kernels::KernelContext& base, size_t z)
      : ForwardingContext(base), z_(z), z_view_(*base.input(z)) {
    kernels::TensorView* y = base.output(0);
    std::memcpy(y->data, z_view_.data, z_view_.bytes());
    z_view_.data = y->data;
  }
  const kernels::TensorView* input(size_t i) const override {
    return i == z_ ? &z_view_ : base_.input(i);
  }

 private:
  size_t z_;
  kernels::TensorView z_view_;
};

TEST(CpuFusedConvTest, ResidualSharingTheOutputsMemory) {
  const Node node = FusedConvNode({1, 8, 6, 6}, {8, 8, 3, 3}, true, true, "Relu", 50);
  auto want = node.Run(Registry().Create(kernels::kReferenceBackend, node.def()));
  ASSERT_TRUE(want.ok());
  for (const char* backend : {kernels::kReferenceBackend, "cpu"}) {
    SCOPED_TRACE(backend);
    auto kernel = Registry().Create(backend, node.def());
    ASSERT_TRUE(kernel.ok()) << kernel.status().message();
    TestContext ctx(node.inputs(), node.def().output_types, &node.def());
    ResidualInOutputContext aliased(ctx, 3);
    ASSERT_TRUE((*kernel)->Run(aliased).ok());
    Node::Compare(ctx.outputs(), *want, 72);
  }
}

TEST(CpuFusedConvTest, BroadcastResidualRunsOnTheReferenceKernel) {
  Node node = Node::Fused("FusedConv");
  node.In(Random({2, 4, 5, 5}, 26)).Const(Random({6, 4, 3, 3}, 27)).In(Random({6}, 28));
  node.In(Random({1, 6, 1, 5}, 29)).Ints("pads", {1, 1, 1, 1}).Str("activation", "Relu");
  node.Check(36, Expect::kReference);
}

TEST(CpuFusedConvTest, ActivationParametersAreNotSharedBetweenKernels) {
  // Same shapes, different post-op parameters: oneDNN caches primitives and jit kernels, and a
  // parameter left out of a cache key would show here.
  for (float alpha : {0.1f, 0.3f, 2.0f}) {
    SCOPED_TRACE(alpha);
    FusedConvNode({1, 16, 6, 6}, {16, 16, 3, 3}, true, true, "LeakyRelu", 26)
        .Float("activation_alpha", alpha)
        .Check(144);
    FusedConvNode({1, 16, 6, 6}, {16, 16, 3, 3}, true, false, "Clip", 27)
        .Float("activation_alpha", -alpha)
        .Float("activation_beta", alpha)
        .Check(144);
  }
}

// The rank-4 tensor `t` (dims N, C, H, W) with its elements reordered NCHW -> NHWC (`to_nhwc`)
// or NHWC -> NCHW; the dims stay N, C, H, W. Written independently of the kernels' transpose.
HostTensor Relayout(const HostTensor& t, bool to_nhwc) { return ChannelBlocks(t, 0, to_nhwc); }

// FusedConv with the channels_last flags (kiln_x_nhwc, kiln_y_nhwc, kiln_z_nhwc) against the
// reference kernel of the same node without them on NCHW data: the flagged node gets X and Z
// transposed to NHWC (per flag) and its Y is transposed back before comparing. Both the cpu
// kernel (which must run it on oneDNN) and the reference kernel (the fallback) are checked.
void CheckLayouts(Dims x_dims, Dims w_dims, int64_t group, const std::string& act, uint32_t seed,
                  int64_t k) {
  const int64_t m = w_dims[0];
  const Dims y_dims = {x_dims[0], m, x_dims[2], x_dims[3]};  // 3x3, pads 1
  const HostTensor x = Random(x_dims, seed), w = Random(w_dims, seed + 1);
  const HostTensor b = Random({m}, seed + 2), z = Random(y_dims, seed + 3);
  auto make = [&](bool fx, bool fy, bool fz) {
    Node node = Node::Fused("FusedConv");
    node.In(fx ? Relayout(x, true) : x).Const(w).In(b).In(fz ? Relayout(z, true) : z);
    node.Ints("pads", {1, 1, 1, 1}).Int("group", group).Str("activation", act);
    if (fx) node.Int("kiln_x_nhwc", 1);
    if (fy) node.Int("kiln_y_nhwc", 1);
    if (fz) node.Int("kiln_z_nhwc", 1);
    if (!fx && !fy && !fz) node.Int("kiln_y_nhwc", 0);  // an explicit 0 is the default
    return node;
  };
  Node plain = make(false, false, false);
  auto want = plain.Run(Registry().Create(kernels::kReferenceBackend, plain.def()));
  ASSERT_TRUE(want.ok()) << want.status().message();
  ASSERT_EQ(want->size(), 1u);
  for (int flags = 0; flags < 8; ++flags) {
    const bool fx = flags & 1, fy = flags & 2, fz = flags & 4;
    SCOPED_TRACE(std::string("x_nhwc ") + (fx ? "1" : "0") + " y_nhwc " + (fy ? "1" : "0") +
                 " z_nhwc " + (fz ? "1" : "0"));
    Node node = make(fx, fy, fz);
    auto back = [&](std::vector<HostTensor> out) {
      if (fy && out.size() == 1) out[0] = Relayout(out[0], false);
      return out;
    };
    auto ref = node.Run(Registry().Create(kernels::kReferenceBackend, node.def()));
    ASSERT_TRUE(ref.ok()) << "reference: " << ref.status().message();
    Node::Compare(back(std::move(*ref)), *want, k);
    std::vector<HostTensor> got;
    ASSERT_NO_FATAL_FAILURE(RunOnCpu(node, &got));
    Node::Compare(back(std::move(got)), *want, k);
  }
}

TEST(CpuFusedConvTest, ChannelsLastFlagsInEveryCombination) {
  {
    SCOPED_TRACE("blocked");
    CheckLayouts({2, 32, 7, 7}, {48, 32, 3, 3}, 1, "Relu", 40, 288);
  }
  {
    SCOPED_TRACE("odd channels");
    CheckLayouts({1, 3, 6, 5}, {5, 3, 3, 3}, 1, "", 44, 27);
  }
  {
    SCOPED_TRACE("depthwise");
    CheckLayouts({2, 16, 5, 6}, {16, 1, 3, 3}, 16, "Clip", 48, 9);
  }
}

// 3x3 stride-1 convolutions with 48 channels or more in and out and 8x8 outputs or more, which
// the cpu kernel runs on oneDNN's Winograd algorithm where the CPU has it (AVX-512; nn_conv.cc
// WinogradChoice): bias, residual and activation post-ops, batch 2, channel counts off the
// 16-channel blocks, every channels_last combination (the algorithm's blocked layout reordered
// to and from NHWC), and a stride-2, a grouped and a 7x7 one beside them that stay direct.
// Winograd's transforms round more than the direct sums, but far below the tolerance's 1e-6 * K (K
// = 9 C).
TEST(CpuFusedConvTest, WinogradShapesMatchTheReference) {
  FusedConvNode({2, 64, 9, 11}, {64, 64, 3, 3}, true, true, "Relu", 60).Check(576);
  FusedConvNode({1, 50, 8, 8}, {72, 50, 3, 3}, true, false, "", 61).Check(450);
  FusedConvNode({1, 128, 8, 8}, {128, 128, 3, 3}, false, true, "Clip", 62)
      .Float("activation_alpha", -0.5f)
      .Float("activation_beta", 0.7f)
      .Float("post_scale", -0.7f)
      .Float("post_shift", 0.25f)
      .Check(1152);
  FusedConvNode({1, 64, 9, 9}, {64, 64, 3, 3}, true, false, "Relu", 63)
      .Ints("strides", {2, 2})
      .Check(576);
  ConvNode({1, 64, 6, 6}, {64, 32, 3, 3}, true, 64)
      .Int("group", 2)
      .Ints("pads", {1, 1, 1, 1})
      .Check(288);
  FusedConvNode({1, 64, 7, 7}, {64, 64, 3, 3}, true, true, "Relu", 66).Check(576);
  {
    SCOPED_TRACE("channels-last");
    CheckLayouts({1, 64, 10, 10}, {64, 64, 3, 3}, 1, "Relu", 65, 576);
  }
}

// Winograd with every activation. oneDNN 2.6's Winograd kernels take Relu only; with F(4x4, 3x3)
// (28x28 outputs and more) the cpu kernel runs the others (one oneDNN eltwise step each) on Y
// after the convolution, and HardSigmoid (two steps), an activation with a post affine, or any
// but Relu on a smaller output on the direct algorithm. Shapes: 48 channels at 8x8 (F(2x2) or
// direct), and 32 channels at 28x28 (only F(4x4)), with bias and residual, NCHW and
// channels-last.
TEST(CpuFusedConvTest, WinogradShapesWithEveryActivation) {
  CheckEveryActivation({{"48 channels at 8x8", {1, 48, 8, 8}, {48, 48, 3, 3}, 71, 432},
                        {"32 channels at 28x28", {1, 32, 28, 28}, {32, 32, 3, 3}, 70, 288}});
  for (const char* act : {"Swish", "Sigmoid"}) {
    SCOPED_TRACE(std::string("channels-last ") + act);
    CheckLayouts({1, 32, 28, 28}, {32, 32, 3, 3}, 1, act, 72, 288);
  }
  {
    SCOPED_TRACE("96 -> 24 channels at 28x28");  // PP-OCR's neck: F(4x4, 3x3) only
    FusedConvNode({1, 96, 28, 28}, {24, 96, 3, 3}, true, true, "HardSwish", 73).Check(864);
    CheckLayouts({1, 96, 28, 28}, {24, 96, 3, 3}, 1, "Relu", 74, 864);
  }
}

// A float32 tensor as bf16 storage (kiln_*_bf16): each element rounded to bf16, in order, in the
// first half of a float32-sized buffer (dtype and dims unchanged); and back.
HostTensor ToPlainBf16(const HostTensor& t) {
  HostTensor out(t.dtype, t.dims);
  const auto* src = reinterpret_cast<const float*>(t.bytes.data());
  auto* dst = reinterpret_cast<uint16_t*>(out.bytes.data());
  for (int64_t i = 0; i < t.view().num_elements(); ++i) dst[i] = kernels::FloatToBFloat16(src[i]);
  return out;
}
HostTensor FromPlainBf16(const HostTensor& t) {
  HostTensor out(t.dtype, t.dims);
  const auto* src = reinterpret_cast<const uint16_t*>(t.bytes.data());
  auto* dst = reinterpret_cast<float*>(out.bytes.data());
  for (int64_t i = 0; i < t.view().num_elements(); ++i) dst[i] = kernels::BFloat16ToFloat(src[i]);
  return out;
}

// A float32 NCHW tensor as channels_last's bf16 storage: NHWC order, then as ToPlainBf16.
HostTensor ToBf16Storage(const HostTensor& t) { return ToPlainBf16(Relayout(t, true)); }

// The float32 NCHW values of a tensor in bf16 storage.
HostTensor FromBf16Storage(const HostTensor& t) { return Relayout(FromPlainBf16(t), false); }

// Every element rounded to bf16 (what a tensor stored as bf16 holds), NCHW float32.
HostTensor RoundedToBf16(const HostTensor& t) { return FromBf16Storage(ToBf16Storage(t)); }

// |got - want| <= rel * |want| + abs_of_max * max|want| for every element.
void ExpectClose(const HostTensor& got, const HostTensor& want, double rel, double abs_of_max) {
  const auto g = Values<float>(got), w = Values<float>(want);
  ASSERT_EQ(g.size(), w.size());
  double top = 0;
  for (float v : w) top = std::max(top, std::fabs(static_cast<double>(v)));
  size_t bad = 0, worst = 0;
  double worst_err = -1;
  for (size_t i = 0; i < g.size(); ++i) {
    const double err = std::fabs(static_cast<double>(g[i]) - w[i]);
    if (!(err <= rel * std::fabs(w[i]) + abs_of_max * top + 1e-6)) ++bad;
    if (err > worst_err) worst_err = err, worst = i;
  }
  EXPECT_EQ(bad, 0u) << bad << " of " << g.size() << " off; worst at " << worst << ": " << g[worst]
                     << " vs " << w[worst] << " (max |want| " << top << ")";
}

// FusedConv with X, Y and Z kept NHWC and each combination of them stored as bf16
// (kiln_*_bf16, a bf16 model's channels_last storage), against the reference kernel of the
// plain NCHW node on the bf16-rounded X and Z: the reference kernel and the cpu kernel in f32
// differ from it only by Y's rounding to bf16; the cpu kernel computing in bf16 (on a CPU with
// bf16 arithmetic; f32 elsewhere) within 1 % of the output's range.
TEST(CpuFusedConvTest, Bf16StorageOfChannelsLastTensors) {
  const Dims x_dims = {1, 32, 6, 7}, y_dims = {1, 48, 6, 7};
  const HostTensor x = Random(x_dims, 70), w = Random({48, 32, 3, 3}, 71), b = Random({48}, 72);
  const HostTensor z = Random(y_dims, 73);
  Node plain = Node::Fused("FusedConv");
  plain.In(RoundedToBf16(x)).Const(w).In(b).In(RoundedToBf16(z));
  plain.Ints("pads", {1, 1, 1, 1}).Str("activation", "Relu");
  auto want = plain.Run(Registry().Create(kernels::kReferenceBackend, plain.def()));
  ASSERT_TRUE(want.ok()) << want.status().message();
  for (int flags = 1; flags < 8; ++flags) {
    const bool bx = flags & 1, by = flags & 2, bz = flags & 4;
    for (auto precision : {kernels::MatrixPrecision::kFp32, kernels::MatrixPrecision::kBf16}) {
      SCOPED_TRACE(std::string("x_bf16 ") + (bx ? "1" : "0") + " y_bf16 " + (by ? "1" : "0") +
                   " z_bf16 " + (bz ? "1" : "0") + " " + kernels::Name(precision));
      Node node = Node::Fused("FusedConv");
      node.In(bx ? ToBf16Storage(x) : Relayout(RoundedToBf16(x), true)).Const(w).In(b);
      node.In(bz ? ToBf16Storage(z) : Relayout(RoundedToBf16(z), true));
      node.Ints("pads", {1, 1, 1, 1}).Str("activation", "Relu").Precision(precision);
      node.Int("kiln_x_nhwc", 1).Int("kiln_y_nhwc", 1).Int("kiln_z_nhwc", 1);
      if (bx) node.Int("kiln_x_bf16", 1);
      if (by) node.Int("kiln_y_bf16", 1);
      if (bz) node.Int("kiln_z_bf16", 1);
      auto back = [&](std::vector<HostTensor> out) {
        return by ? FromBf16Storage(out.at(0)) : Relayout(out.at(0), false);
      };
      const double y_rounding = by ? 1.0 / 256 : 1e-5;  // bf16 keeps 8 significant bits
      if (precision == kernels::MatrixPrecision::kFp32) {
        auto ref = node.Run(Registry().Create(kernels::kReferenceBackend, node.def()));
        ASSERT_TRUE(ref.ok()) << "reference: " << ref.status().message();
        ExpectClose(back(std::move(*ref)), want->at(0), y_rounding, 1e-5);
      }
      std::vector<HostTensor> got;
      ASSERT_NO_FATAL_FAILURE(RunOnCpu(node, &got));
      const bool bf16_products = precision == kernels::MatrixPrecision::kBf16 && CpuHasBf16();
      ExpectClose(back(std::move(got)), want->at(0), y_rounding, bf16_products ? 1e-2 : 1e-5);
    }
  }
}

// FusedMatMul with A and / or Y stored as bf16 (kiln_a_bf16 / kiln_y_bf16: matmul_bf16_storage,
// a transformer's feed-forward value), a 3-D A as a transformer's, GELU fused, against the
// reference kernel of the plain node on the bf16-rounded A: the reference kernel and the cpu kernel
// in f32 differ from it only by Y's rounding to bf16; the cpu kernel computing in bf16 (on a CPU
// with bf16 arithmetic; f32 elsewhere) within 1 % of the output's range.
TEST(CpuMatMulTest, Bf16StorageOfAAndY) {
  const HostTensor a = Random({2, 7, 64}, 75), w = Random({64, 48}, 76), b = Random({48}, 77);
  const HostTensor a_rounded = FromPlainBf16(ToPlainBf16(a));
  Node plain = Node::Fused("FusedMatMul");
  plain.In(a_rounded).Const(w).In(b).Str("activation", "Gelu");
  auto want = plain.Run(Registry().Create(kernels::kReferenceBackend, plain.def()));
  ASSERT_TRUE(want.ok()) << want.status().message();
  for (int flags = 1; flags < 4; ++flags) {
    const bool ba = flags & 1, by = flags & 2;
    for (auto precision : {kernels::MatrixPrecision::kFp32, kernels::MatrixPrecision::kBf16}) {
      SCOPED_TRACE(std::string("a_bf16 ") + (ba ? "1" : "0") + " y_bf16 " + (by ? "1" : "0") + " " +
                   kernels::Name(precision));
      Node node = Node::Fused("FusedMatMul");
      node.In(ba ? ToPlainBf16(a) : a_rounded).Const(w).In(b).Str("activation", "Gelu");
      node.Precision(precision);
      if (ba) node.Int("kiln_a_bf16", 1);
      if (by) node.Int("kiln_y_bf16", 1);
      auto back = [&](std::vector<HostTensor> out) {
        return by ? FromPlainBf16(out.at(0)) : out.at(0);
      };
      const double y_rounding = by ? 1.0 / 256 : 1e-5;  // bf16 keeps 8 significant bits
      auto ref = node.Run(Registry().Create(kernels::kReferenceBackend, node.def()));
      ASSERT_TRUE(ref.ok()) << "reference: " << ref.status().message();
      ExpectClose(back(std::move(*ref)), want->at(0), y_rounding, 1e-5);
      std::vector<HostTensor> got;
      ASSERT_NO_FATAL_FAILURE(RunOnCpu(node, &got));
      const bool bf16_products = precision == kernels::MatrixPrecision::kBf16 && CpuHasBf16();
      ExpectClose(back(std::move(got)), want->at(0), y_rounding, bf16_products ? 1e-2 : 1e-5);
    }
  }
}

// com.kiln MaxPool / AveragePool (channels_last's pools) with X and Y kept NHWC, each maybe
// stored as bf16, against the reference kernel of the ONNX pool on plain NCHW data (X rounded to
// bf16 where it is stored so; Y's bf16 rounding allowed where it is): the reference kernel (the
// fallback) and the cpu kernel, which must run it on oneDNN.
TEST(CpuPoolTest, ChannelsLastPoolsWithBf16Storage) {
  const HostTensor x = Random({2, 24, 9, 8}, 80);
  for (const char* op : {"MaxPool", "AveragePool"}) {
    for (int flags = 0; flags < 16; ++flags) {
      const bool fx = flags & 1, fy = flags & 2, bx = (flags & 4) && fx, by = (flags & 8) && fy;
      if ((flags & 4 && !fx) || (flags & 8 && !fy)) continue;  // bf16 only beside NHWC
      SCOPED_TRACE(std::string(op) + " x_nhwc " + (fx ? "1" : "0") + " y_nhwc " + (fy ? "1" : "0") +
                   " x_bf16 " + (bx ? "1" : "0") + " y_bf16 " + (by ? "1" : "0"));
      auto window = [&](Node& n) {
        n.Ints("kernel_shape", {3, 3}).Ints("strides", {2, 2}).Ints("pads", {1, 1, 1, 1});
        if (std::string(op) == "MaxPool") n.Int("ceil_mode", 1);  // newest-opset attribute
      };
      Node plain(op, 22);
      plain.In(bx ? RoundedToBf16(x) : x);
      window(plain);
      auto want = plain.Run(Registry().Create(kernels::kReferenceBackend, plain.def()));
      ASSERT_TRUE(want.ok()) << want.status().message();
      Node node(op, 1, "com.kiln");
      node.In(bx ? ToBf16Storage(x) : fx ? Relayout(x, true) : x);
      window(node);
      if (fx) node.Int("kiln_x_nhwc", 1);
      if (fy) node.Int("kiln_y_nhwc", 1);
      if (bx) node.Int("kiln_x_bf16", 1);
      if (by) node.Int("kiln_y_bf16", 1);
      auto back = [&](std::vector<HostTensor> out) {
        return by ? FromBf16Storage(out.at(0)) : fy ? Relayout(out.at(0), false) : out.at(0);
      };
      const double y_rounding = by ? 1.0 / 256 : 1e-6;
      auto ref = node.Run(Registry().Create(kernels::kReferenceBackend, node.def()));
      ASSERT_TRUE(ref.ok()) << "reference: " << ref.status().message();
      ExpectClose(back(std::move(*ref)), want->at(0), y_rounding, 1e-6);
      std::vector<HostTensor> got;
      ASSERT_NO_FATAL_FAILURE(RunOnCpu(node, &got));
      ExpectClose(back(std::move(got)), want->at(0), y_rounding, 1e-6);
    }
  }
}

// Left to choose, oneDNN 2.6 computes some grouped convolutions (ShuffleNet's, 6 channels in per
// group) as gemm over im2col on NCHW, reordering X and Y stored NHWC in and out; the kernel then
// asks for the stored order, where oneDNN has a jit kernel (a third of the time). The values are
// the reference's in every combination of flags, and with X and Y stored NHWC the convolution
// made is not a gemm one (oneDNN's verbose log names it; on a CPU with AVX2 or more).
TEST(CpuFusedConvTest, AGroupedConvolutionStoredNhwcIsNotComputedAsGemm) {
  CheckLayouts({1, 24, 9, 9}, {112, 6, 3, 3}, 4, "Relu", 90, 54);
  const auto isa = static_cast<unsigned>(dnnl::get_effective_cpu_isa());
  const auto avx2 = static_cast<unsigned>(dnnl::cpu_isa::avx2);
  if ((isa & avx2) != avx2) GTEST_SKIP() << "no AVX2: oneDNN's jit kernels may not exist here";
  const HostTensor x = Random({1, 24, 14, 14}, 94), w = Random({112, 6, 1, 1}, 95);
  Node node = Node::Fused("FusedConv");
  node.In(Relayout(x, true)).Const(w).Int("group", 4).Str("activation", "Relu");
  node.Int("kiln_x_nhwc", 1).Int("kiln_y_nhwc", 1);
  dnnl::set_verbose(2);
  ::testing::internal::CaptureStdout();
  auto cpu = node.PrepareCpu();
  std::fflush(stdout);
  const std::string log = ::testing::internal::GetCapturedStdout();
  dnnl::set_verbose(0);
  ASSERT_TRUE(cpu.ok()) << cpu.status().message();
  std::string conv;
  for (size_t at = log.find(",convolution,"); at != std::string::npos;
       at = log.find(",convolution,", at + 1)) {
    conv = log.substr(at, log.find('\n', at) - at);  // the last convolution made
  }
  ASSERT_FALSE(conv.empty()) << log;
  EXPECT_EQ(conv.find("gemm"), std::string::npos) << conv;
  EXPECT_NE(conv.find("acdb"), std::string::npos) << conv;  // X and Y as stored
  Node plain = Node::Fused("FusedConv");
  plain.In(x).Const(w).Int("group", 4).Str("activation", "Relu");
  auto want = plain.Run(Registry().Create(kernels::kReferenceBackend, plain.def()));
  ASSERT_TRUE(want.ok()) << want.status().message();
  auto got = node.Run(std::move(cpu));
  ASSERT_TRUE(got.ok()) << got.status().message();
  ASSERT_EQ(got->size(), 1u);
  Node::Compare({Relayout((*got)[0], false)}, *want, 6);
}

TEST(CpuFusedConvTest, ChannelsLastRunThatOneDnnDoesNotTakeFallsBackCorrectly) {
  // A broadcast residual sends the run to the reference kernel, which must honour X and Y in
  // NHWC as well.
  const HostTensor x = Random({2, 4, 5, 5}, 60), w = Random({6, 4, 3, 3}, 61);
  const HostTensor b = Random({6}, 62), z = Random({1, 6, 1, 5}, 63);
  auto make = [&](bool nhwc) {
    Node node = Node::Fused("FusedConv");
    node.In(nhwc ? Relayout(x, true) : x).Const(w).In(b).In(z);
    node.Ints("pads", {1, 1, 1, 1}).Str("activation", "Relu");
    if (nhwc) node.Int("kiln_x_nhwc", 1).Int("kiln_y_nhwc", 1);
    return node;
  };
  Node plain = make(false), node = make(true);
  auto want = plain.Run(Registry().Create(kernels::kReferenceBackend, plain.def()));
  ASSERT_TRUE(want.ok()) << want.status().message();
  auto cpu = node.PrepareCpu();
  ASSERT_TRUE(cpu.ok()) << cpu.status().message();
  const int64_t before = ReferenceRunCount();
  auto got = node.Run(std::move(cpu));
  ASSERT_TRUE(got.ok()) << got.status().message();
  EXPECT_GE(ReferenceRunCount() - before, 1) << "expected the reference kernel to run it";
  ASSERT_EQ(got->size(), 1u);
  (*got)[0] = Relayout((*got)[0], false);
  Node::Compare(*got, *want, 36);
}

TEST(CpuFusedConvTest, ChannelsLastFlagOnARankThreeConvIsAnError) {
  Node node = Node::Fused("FusedConv");
  node.In(Random({1, 4, 9}, 52)).Const(Random({4, 4, 3}, 53)).Int("kiln_x_nhwc", 1);
  auto ref = Registry().Create(kernels::kReferenceBackend, node.def());
  ASSERT_FALSE(ref.ok());
  EXPECT_EQ(ref.status().code(), code::kInvalidParam) << ref.status().message();
  EXPECT_NE(ref.status().message().find("kiln_x_nhwc"), std::string::npos);
  auto cpu = node.PrepareCpu();
  ASSERT_FALSE(cpu.ok());
  EXPECT_EQ(cpu.status().code(), code::kInvalidParam) << cpu.status().message();
}

TEST(CpuFusedConvTest, ChannelsLastFlagOtherThanZeroOrOneIsAnError) {
  Node node = Node::Fused("FusedConv");
  node.In(Random({1, 4, 5, 5}, 54)).Const(Random({4, 4, 3, 3}, 55)).Int("kiln_y_nhwc", 2);
  auto ref = Registry().Create(kernels::kReferenceBackend, node.def());
  ASSERT_FALSE(ref.ok());
  EXPECT_EQ(ref.status().code(), code::kInvalidParam) << ref.status().message();
  Node absent = Node::Fused("FusedConv");
  absent.In(Random({1, 4, 5, 5}, 56)).Const(Random({4, 4, 3, 3}, 57)).Int("kiln_z_nhwc", 1);
  auto no_z = Registry().Create(kernels::kReferenceBackend, absent.def());
  ASSERT_FALSE(no_z.ok());
  EXPECT_NE(no_z.status().message().find("absent"), std::string::npos);
}

// ---------------------------------------------------------------------------------------------
// ConvTranspose.

// ConvTranspose of X [n, c, spatial...] with W [c, m / group, kernel...] (constant unless
// `computed_w`) and optionally a bias [m]. The tolerance's K: c / group * taps bounds the terms
// of one output.
Node DeconvNode(Dims x, Dims w, int64_t group, bool bias, uint32_t seed, bool computed_w = false) {
  const int64_t m = w[1] * group;
  Node node("ConvTranspose", 11);
  node.In(Random(std::move(x), seed)).In(Random(std::move(w), seed + 1), !computed_w);
  if (bias) node.In(Random({m}, seed + 2));
  if (group != 1) node.Int("group", group);
  return node;
}

TEST(CpuConvTransposeTest, PlainWithAndWithoutBias) {
  DeconvNode({1, 3, 5, 6}, {3, 4, 3, 3}, 1, true, 200).Check(27);
  DeconvNode({2, 5, 4, 7}, {5, 3, 2, 3}, 1, false, 203).Ints("pads", {1, 0, 0, 2}).Check(30);
}

TEST(CpuConvTransposeTest, StridesOneToThreeWithAsymmetricPads) {
  for (int64_t s : {1, 2, 3}) {
    SCOPED_TRACE(s);
    DeconvNode({2, 5, 7, 6}, {5, 3, 3, 2}, 1, true, 206)
        .Ints("strides", {s, 4 - s})
        .Ints("pads", {1, 0, 0, 1})
        .Check(30);
  }
}

TEST(CpuConvTransposeTest, Dilations) {
  DeconvNode({1, 4, 5, 5}, {4, 2, 3, 3}, 1, true, 209)
      .Ints("strides", {3, 2})
      .Ints("dilations", {2, 1})
      .Ints("pads", {1, 2, 2, 0})
      .Check(36);
  DeconvNode({2, 3, 6, 4}, {3, 5, 2, 3}, 1, false, 212).Ints("dilations", {3, 2}).Check(18);
}

TEST(CpuConvTransposeTest, Groups) {
  DeconvNode({2, 6, 5, 4}, {6, 2, 3, 3}, 3, true, 215).Ints("strides", {2, 2}).Check(18);
  DeconvNode({2, 4, 5, 3}, {4, 3, 3, 2}, 2, false, 221)
      .Ints("strides", {1, 2})
      .Ints("dilations", {2, 1})
      .Check(18);
  // One input channel per group, several outputs; 16-channel groups (blocked layouts).
  DeconvNode({1, 4, 6, 5}, {4, 3, 3, 3}, 4, true, 216).Ints("strides", {2, 2}).Check(9);
  DeconvNode({1, 32, 5, 6}, {32, 16, 3, 3}, 2, true, 217)
      .Ints("strides", {2, 2})
      .Ints("pads", {1, 1, 1, 1})
      .Check(144);
}

// Kernel equal to the stride without padding: the matmul-and-spread path (nn_deconv.cc), with
// 2-wide taps (the paired spread) and others, a batch, one output channel; and the cases next
// to it that take the deconvolution primitive (output_padding, groups).
TEST(CpuConvTransposeTest, KernelEqualToStrideRunsAsOneMatmul) {
  DeconvNode({2, 24, 5, 7}, {24, 24, 2, 2}, 1, true, 230).Ints("strides", {2, 2}).Check(96);
  DeconvNode({1, 24, 6, 5}, {24, 1, 2, 2}, 1, true, 231).Ints("strides", {2, 2}).Check(96);
  DeconvNode({2, 5, 4, 3}, {5, 3, 3, 2}, 1, false, 232).Ints("strides", {3, 2}).Check(30);
  DeconvNode({1, 4, 3, 3}, {4, 6, 1, 3}, 1, true, 233).Ints("strides", {1, 3}).Check(12);
  DeconvNode({1, 4, 3, 3}, {4, 3, 2, 2}, 1, true, 234)
      .Ints("strides", {2, 2})
      .Ints("output_padding", {1, 1})
      .Check(16);
  DeconvNode({1, 4, 3, 3}, {4, 3, 2, 2}, 2, true, 235).Ints("strides", {2, 2}).Check(16);
}

// Kiln's FusedConvTranspose (bias_activation_fusion: ConvTranspose + activation): the matmul path
// (the bias and activation in the matmul) and the deconvolution primitive's (an eltwise post-op).
Node FusedDeconvNode(Dims x, Dims w, bool bias, uint32_t seed, const char* act) {
  Node node = Node::Fused("FusedConvTranspose");
  node.In(Random(std::move(x), seed)).Const(Random(std::move(w), seed + 1));
  if (bias) node.In(Random({node.inputs()[1]->dims[1]}, seed + 2));
  node.Str("activation", act);
  return node;
}

TEST(CpuConvTransposeTest, FusedActivations) {
  for (const char* act : {"Relu", "Sigmoid", "LeakyRelu"}) {
    SCOPED_TRACE(act);
    for (bool bias : {true, false}) {
      FusedDeconvNode({2, 24, 5, 7}, {24, 24, 2, 2}, bias, 240, act)
          .Ints("strides", {2, 2})
          .Check(96);
      FusedDeconvNode({1, 24, 6, 5}, {24, 1, 2, 2}, bias, 241, act)
          .Ints("strides", {2, 2})
          .Check(96);
      FusedDeconvNode({1, 5, 4, 3}, {5, 3, 3, 3}, bias, 242, act)
          .Ints("strides", {2, 2})
          .Ints("pads", {1, 1, 0, 0})
          .Check(45);
    }
  }
}

// The reference FusedConvTranspose is ONNX's ConvTranspose followed by the activation's node.
TEST(CpuConvTransposeTest, FusedReferenceIsTheUnfusedPair) {
  for (const char* act : {"Relu", "Sigmoid"}) {
    Node fused = FusedDeconvNode({1, 4, 3, 5}, {4, 3, 3, 3}, true, 250, act);
    fused.Ints("strides", {2, 1});
    Node deconv("ConvTranspose", 11);
    for (const HostTensor* t : fused.inputs()) deconv.In(*t);
    deconv.Ints("strides", {2, 1});
    auto conv_out = deconv.Run(Registry().Create(kernels::kReferenceBackend, deconv.def()));
    ASSERT_TRUE(conv_out.ok()) << conv_out.status().message();
    Node activation(act, 14);
    activation.In((*conv_out)[0]);
    auto want = activation.Run(Registry().Create(kernels::kReferenceBackend, activation.def()));
    auto got = fused.Run(Registry().Create(kernels::kReferenceBackend, fused.def()));
    ASSERT_TRUE(want.ok() && got.ok());
    Node::Compare(*got, *want, 1);
  }
}

TEST(CpuConvTransposeTest, DepthwiseIsLeftToTheReferenceKernel) {
  DeconvNode({1, 8, 6, 6}, {8, 1, 4, 4}, 8, true, 218)
      .Ints("strides", {2, 2})
      .Ints("pads", {1, 1, 1, 1})
      .Check(16, Expect::kDeclined);
  // A computed W whose dims are known at run time only: the run goes to the reference kernel.
  DeconvNode({1, 8, 6, 6}, {8, 1, 4, 4}, 8, true, 219, true)
      .Ints("strides", {2, 2})
      .Planned(1, {-1, -1, 4, 4})
      .Check(16, Expect::kReference);
}

TEST(CpuConvTransposeTest, EveryAutoPad) {
  for (const char* pad : {"NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"}) {
    for (int64_t s : {1, 2, 3}) {
      SCOPED_TRACE(::testing::Message() << pad << " stride " << s);
      DeconvNode({1, 3, 5, 4}, {3, 5, 3, 4}, 1, true, 224)
          .Str("auto_pad", pad)
          .Ints("strides", {s, s + 1})
          .Check(36);
    }
  }
}

TEST(CpuConvTransposeTest, OutputPadding) {
  DeconvNode({1, 3, 5, 4}, {3, 2, 3, 3}, 1, true, 227)
      .Ints("strides", {2, 3})
      .Ints("output_padding", {1, 2})
      .Check(27);
  DeconvNode({2, 4, 4, 5}, {4, 3, 3, 2}, 2, true, 230)
      .Ints("strides", {3, 2})
      .Ints("pads", {1, 1, 0, 1})
      .Ints("dilations", {1, 2})
      .Ints("output_padding", {2, 1})
      .Check(12);
}

TEST(CpuConvTransposeTest, OutputShape) {
  // The full result is 11 x 11. A smaller output_shape pads; a larger one leaves positions that
  // get the bias only: at the end (a negative padding_r, which oneDNN takes) or, when the split
  // puts some at the beginning (a negative padding_l, which oneDNN declines), the run goes to
  // the reference kernel. NOTSET splits as SAME_LOWER (the larger half first).
  struct Case {
    Ints shape;
    const char* pad;
    Expect expect;
  };
  const Case cases[] = {
      {{10, 9}, "NOTSET", Expect::kOneDnn},
      {{10, 9}, "SAME_UPPER", Expect::kOneDnn},
      {{10, 9}, "SAME_LOWER", Expect::kOneDnn},
      {{11, 11}, "SAME_UPPER", Expect::kOneDnn},
      {{1, 2, 10, 12}, "NOTSET", Expect::kOneDnn},         // 12: pads 0 and -1
      {{1, 2, 10, 12}, "SAME_LOWER", Expect::kOneDnn},     // 12: pads 0 and -1
      {{1, 2, 10, 12}, "SAME_UPPER", Expect::kReference},  // 12: pads -1 and 0
      {{12, 13}, "SAME_LOWER", Expect::kReference},        // 13: pads -1 and -1
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(::testing::Message() << kernels::DimsString(c.shape) << " " << c.pad);
    DeconvNode({1, 3, 5, 5}, {3, 2, 3, 3}, 1, true, 233)
        .Ints("strides", {2, 2})
        .Ints("output_shape", c.shape)
        .Str("auto_pad", c.pad)
        .Check(27, c.expect);
  }
  // output_padding next to output_shape only sizes the full result.
  DeconvNode({2, 4, 4, 5}, {4, 3, 3, 2}, 1, false, 234)
      .Ints("strides", {3, 2})
      .Ints("output_padding", {1, 1})
      .Ints("output_shape", {11, 9})
      .Check(24);
}

TEST(CpuConvTransposeTest, OneAndThreeSpatialDims) {
  DeconvNode({2, 4, 9}, {4, 3, 5}, 1, true, 236)
      .Ints("strides", {3})
      .Ints("pads", {2, 1})
      .Ints("output_padding", {1})
      .Check(20);
  DeconvNode({3, 6, 7}, {6, 1, 3}, 3, false, 239).Ints("dilations", {2}).Check(6);
  DeconvNode({1, 3, 4, 5, 3}, {3, 2, 3, 2, 3}, 1, true, 242)
      .Ints("strides", {2, 1, 2})
      .Ints("pads", {1, 0, 1, 0, 1, 0})
      .Check(54);
  DeconvNode({2, 4, 3, 3, 4}, {4, 2, 2, 2, 2}, 2, true, 245)
      .Ints("strides", {2, 2, 2})
      .Str("auto_pad", "SAME_LOWER")
      .Check(16);
}

TEST(CpuConvTransposeTest, UpsamplingByTwoAsInPpOcrDet) {
  // PP-OCRv4 det's head: k 2, stride 2 (and k 4, stride 2, pad 1 elsewhere), wide channels.
  DeconvNode({1, 24, 20, 20}, {24, 24, 2, 2}, 1, true, 248).Ints("strides", {2, 2}).Check(96);
  DeconvNode({2, 64, 9, 11}, {64, 32, 2, 2}, 1, true, 251).Ints("strides", {2, 2}).Check(256);
  DeconvNode({1, 32, 8, 8}, {32, 16, 4, 4}, 1, false, 254)
      .Ints("strides", {2, 2})
      .Ints("pads", {1, 1, 1, 1})
      .Check(512);
}

TEST(CpuConvTransposeTest, WideChannelsUseBlockedLayoutsWithEveryWindowOption) {
  // Channels per group in whole 16-lane blocks take oneDNN's blocked kernels (the rest run on
  // plain NCHW); the window options must hold there as well.
  DeconvNode({2, 16, 5, 6}, {16, 32, 3, 3}, 1, true, 275)
      .Ints("strides", {2, 3})
      .Ints("pads", {1, 0, 2, 1})
      .Ints("dilations", {2, 1})
      .Ints("output_padding", {1, 2})
      .Check(144);
  for (const char* pad : {"SAME_UPPER", "SAME_LOWER", "VALID"}) {
    SCOPED_TRACE(pad);
    DeconvNode({1, 32, 5, 4}, {32, 16, 3, 4}, 1, false, 278)
        .Str("auto_pad", pad)
        .Ints("strides", {2, 3})
        .Check(384);
  }
  DeconvNode({1, 16, 5, 5}, {16, 16, 3, 3}, 1, true, 281)
      .Ints("strides", {2, 2})
      .Ints("output_shape", {10, 12})
      .Check(144);
  DeconvNode({2, 16, 9}, {16, 16, 4}, 1, true, 284).Ints("strides", {2}).Check(64);
  DeconvNode({1, 32, 3, 4, 3}, {32, 16, 2, 3, 2}, 2, true, 287)
      .Ints("strides", {2, 1, 2})
      .Ints("pads", {0, 1, 1, 1, 0, 0})
      .Check(192);
  DeconvNode({1, 32, 6, 6}, {32, 16, 3, 3}, 1, true, 290, true).Ints("strides", {2, 2}).Check(288);
}

TEST(CpuConvTransposeTest, ComputedWeightsAreReorderedOnEveryRun) {
  DeconvNode({1, 3, 5, 5}, {3, 2, 3, 3}, 1, true, 257, true).Ints("strides", {2, 2}).Check(27);
  DeconvNode({2, 16, 6, 6}, {16, 12, 3, 3}, 4, true, 260, true)
      .Ints("strides", {2, 1})
      .Ints("pads", {1, 1, 1, 1})
      .Check(36);
}

TEST(CpuConvTransposeTest, DynamicBatchBuildsAPlanPerShape) {
  Node node = DeconvNode({2, 5, 4, 4}, {5, 3, 3, 3}, 1, true, 263);
  node.Ints("strides", {2, 2}).Planned(0, {-1, 5, -1, -1});
  auto kernel = node.PrepareCpu();
  ASSERT_TRUE(kernel.ok()) << kernel.status().message();
  const HostTensor& w = *node.inputs()[1];
  const HostTensor& b = *node.inputs()[2];
  for (Dims xd : {Dims{1, 5, 4, 4}, Dims{3, 5, 6, 5}, Dims{1, 5, 4, 4}}) {
    SCOPED_TRACE(kernels::DimsString(xd));
    HostTensor x = Random(xd, 266 + static_cast<uint32_t>(xd[0]));
    const int64_t before = ReferenceRunCount();
    TestContext ctx({&x, &w, &b}, {DataType::kFloat32}, &node.def());
    ASSERT_TRUE((*kernel)->Run(ctx).ok());
    EXPECT_EQ(ReferenceRunCount(), before);
    auto want = kernels::testing::RunReference(node.def(), {&x, &w, &b});
    ASSERT_TRUE(want.ok()) << want.status().message();
    Node::Compare(ctx.outputs(), *want, 45);
  }
}

TEST(CpuConvTransposeTest, BadInputsAreRefusedNotACrash) {
  Node node = DeconvNode({1, 4, 5, 5}, {4, 2, 3, 3}, 1, true, 269);
  node.Planned(0, {-1, -1, -1, -1}).Planned(2, {-1});
  auto kernel = node.PrepareCpu();
  ASSERT_TRUE(kernel.ok()) << kernel.status().message();
  HostTensor x = Random({1, 3, 5, 5}, 270);  // 3 channels, W wants 4
  ExpectRefusedAtRun(node.def(), **kernel, {&x, node.inputs()[1], node.inputs()[2]});
  HostTensor bad_bias = Random({3}, 271);  // 2 output channels
  ExpectRefusedAtRun(node.def(), **kernel, {node.inputs()[0], node.inputs()[1], &bad_bias});
}

TEST(CpuConvTransposeTest, DeclinesWhatItDoesNotTake) {
  Node f64("ConvTranspose", 11);
  HostTensor x(DataType::kFloat64, {1, 1, 3, 3}), w(DataType::kFloat64, {1, 1, 2, 2});
  f64.In(std::move(x)).Const(std::move(w)).Outputs({DataType::kFloat64});
  f64.Check(4, Expect::kDeclined);
  DeconvNode({1, 2, 3, 3, 3, 3}, {2, 2, 2, 2, 2, 2}, 1, false, 272).Check(32, Expect::kDeclined);
}

// ---------------------------------------------------------------------------------------------
// Pools.

Node PoolNode(const char* op, Dims x, Ints kernel, uint32_t seed, int opset = 12) {
  Node node(op, opset);
  node.In(Random(std::move(x), seed)).Ints("kernel_shape", kernel);
  return node;
}

TEST(CpuPoolTest, MaxPoolStridesAndPads) {
  PoolNode("MaxPool", {2, 5, 11, 11}, {3, 3}, 30)
      .Ints("strides", {2, 2})
      .Ints("pads", {1, 1, 1, 1})
      .Check(1);
  PoolNode("MaxPool", {1, 3, 9, 8}, {2, 3}, 31).Ints("pads", {0, 1, 1, 2}).Check(1);
}

TEST(CpuPoolTest, MaxPoolCeilModeAndAutoPad) {
  PoolNode("MaxPool", {1, 3, 8, 8}, {3, 3}, 32)
      .Ints("strides", {2, 2})
      .Int("ceil_mode", 1)
      .Check(1);
  PoolNode("MaxPool", {1, 3, 7, 10}, {3, 2}, 33)
      .Ints("strides", {2, 3})
      .Str("auto_pad", "SAME_UPPER")
      .Check(1);
  PoolNode("MaxPool", {1, 3, 7, 10}, {3, 2}, 34)
      .Ints("strides", {2, 3})
      .Str("auto_pad", "SAME_LOWER")
      .Check(1);
}

TEST(CpuPoolTest, MaxPoolOneAndThreeSpatialDims) {
  PoolNode("MaxPool", {2, 3, 15}, {4}, 35).Ints("strides", {3}).Ints("pads", {1, 2}).Check(1);
  PoolNode("MaxPool", {1, 2, 5, 6, 7}, {2, 3, 2}, 36).Ints("strides", {1, 2, 2}).Check(1);
}

TEST(CpuPoolTest, AveragePoolExcludeAndIncludePads) {
  PoolNode("AveragePool", {2, 5, 10, 9}, {3, 3}, 37)
      .Ints("strides", {2, 2})
      .Ints("pads", {1, 1, 1, 1})
      .Check(9);
  PoolNode("AveragePool", {2, 5, 10, 9}, {3, 3}, 38)
      .Ints("strides", {2, 2})
      .Ints("pads", {1, 0, 2, 1})
      .Int("count_include_pad", 1)
      .Check(9);
  PoolNode("AveragePool", {1, 4, 9, 9}, {3, 3}, 39)
      .Ints("strides", {2, 2})
      .Int("ceil_mode", 1)
      .Check(9);
  PoolNode("AveragePool", {1, 4, 9, 7}, {2, 2}, 40).Str("auto_pad", "SAME_UPPER").Check(4);
}

TEST(CpuPoolTest, AveragePoolCeilModeCountingPadsRunsOnTheReferenceKernel) {
  PoolNode("AveragePool", {1, 4, 8, 8}, {3, 3}, 41)
      .Ints("strides", {2, 2})
      .Ints("pads", {1, 1, 1, 1})
      .Int("ceil_mode", 1)
      .Int("count_include_pad", 1)
      .Check(9, Expect::kReference);
}

TEST(CpuPoolTest, GlobalPools) {
  for (Dims x : {Dims{2, 7, 5, 3}, Dims{1, 9, 11}, Dims{2, 3, 3, 4, 5}}) {
    Node avg("GlobalAveragePool", 1), max("GlobalMaxPool", 1);
    avg.In(Random(x, 42));
    max.In(Random(x, 43));
    avg.Check(60);
    max.Check(1);
  }
}

TEST(CpuPoolTest, DeclinesIndicesAndDilations) {
  PoolNode("MaxPool", {1, 2, 6, 6}, {2, 2}, 44)
      .Outputs({DataType::kFloat32, DataType::kInt64})
      .Check(1, Expect::kDeclined);
  PoolNode("MaxPool", {1, 2, 8, 8}, {2, 2}, 45)
      .Ints("dilations", {2, 2})
      .Check(1, Expect::kDeclined);
}

// ---------------------------------------------------------------------------------------------
// MatMul, Gemm, FusedMatMul, FusedGemm.

TEST(CpuMatMulTest, MatricesWithConstantAndComputedB) {
  Node("MatMul", 13).In(Random({5, 7}, 50)).Const(Random({7, 3}, 51)).Check(7);
  Node("MatMul", 13).In(Random({5, 7}, 52)).In(Random({7, 3}, 53)).Check(7);
  Node("MatMul", 13).In(Random({33, 256}, 54)).Const(Random({256, 130}, 55)).Check(256);
}

TEST(CpuMatMulTest, BatchedWithBroadcasting) {
  Node("MatMul", 13).In(Random({2, 1, 5, 7}, 56)).In(Random({3, 7, 4}, 57)).Check(7);
  Node("MatMul", 13).In(Random({4, 5, 7}, 58)).Const(Random({7, 6}, 59)).Check(7);
  Node("MatMul", 13).In(Random({5, 7}, 60)).In(Random({2, 3, 7, 4}, 61)).Check(7);
  Node("MatMul", 13).In(Random({3, 1, 2, 5, 7}, 62)).Const(Random({4, 1, 7, 2}, 63)).Check(7);
}

TEST(CpuMatMulTest, VectorOperands) {
  Node("MatMul", 13).In(Random({7}, 64)).In(Random({2, 7, 3}, 65)).Check(7);
  Node("MatMul", 13).In(Random({2, 5, 7}, 66)).Const(Random({7}, 67)).Check(7);
  Node("MatMul", 13).In(Random({7}, 68)).In(Random({7}, 69)).Check(7);
}

Node GemmNode(bool ta, bool tb, int64_t m, int64_t k, int64_t n, const Dims* c, uint32_t seed,
              const char* op = "Gemm") {
  Node node = std::string(op) == "Gemm" ? Node("Gemm", 13) : Node::Fused(op);
  node.In(Random(ta ? Dims{k, m} : Dims{m, k}, seed))
      .Const(Random(tb ? Dims{n, k} : Dims{k, n}, seed + 1));
  if (c) node.In(Random(*c, seed + 2));
  node.Int("transA", ta).Int("transB", tb);
  return node;
}

TEST(CpuGemmTest, TransposesAndCBroadcasts) {
  const int64_t m = 6, k = 9, n = 5;
  const Dims cs[] = {{n}, {1, n}, {m, 1}, {m, n}, {}, {1, 1}};
  uint32_t seed = 70;
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      for (const Dims& c : cs) {
        SCOPED_TRACE(::testing::Message()
                     << "transA " << ta << " transB " << tb << " C " << kernels::DimsString(c));
        GemmNode(ta, tb, m, k, n, &c, seed += 3).Check(k);
      }
      GemmNode(ta, tb, m, k, n, nullptr, seed += 3).Check(k);
    }
  }
}

TEST(CpuGemmTest, AlphaAndBeta) {
  const Dims c = {1, 5};
  GemmNode(false, true, 4, 8, 5, &c, 100).Float("alpha", 0.5f).Float("beta", 2.0f).Check(8);
  GemmNode(true, false, 4, 8, 5, &c, 103).Float("alpha", -1.5f).Float("beta", 0.0f).Check(8);
  GemmNode(false, false, 4, 8, 5, nullptr, 106).Float("alpha", 3.0f).Check(8);
  GemmNode(false, false, 4, 8, 5, &c, 109).Float("alpha", 0.0f).Float("beta", 0.25f).Check(8);
  const Dims full = {64, 300};
  GemmNode(false, true, 64, 512, 300, &full, 112).Float("alpha", 0.7f).Check(512);
}

TEST(CpuGemmTest, FusedGemmActivations) {
  const Dims c = {7};
  for (const char* act : {"Relu", "Sigmoid", "Tanh", "Gelu", "HardSwish", "Swish"}) {
    SCOPED_TRACE(act);
    GemmNode(false, true, 3, 16, 7, &c, 120, "FusedGemm").Str("activation", act).Check(16);
  }
  GemmNode(true, false, 3, 16, 7, &c, 123, "FusedGemm")
      .Str("activation", "LeakyRelu")
      .Float("activation_alpha", 0.1f)
      .Float("alpha", 2.0f)
      .Float("beta", 0.5f)
      .Check(16);
  // HardSigmoid's linear step absorbs beta's (one linear post-op per chain).
  GemmNode(false, false, 3, 16, 7, &c, 126, "FusedGemm")
      .Str("activation", "HardSigmoid")
      .Float("activation_alpha", 0.3f)
      .Float("activation_beta", 0.4f)
      .Float("alpha", 0.5f)
      .Float("beta", 3.0f)
      .Check(16);
}

TEST(CpuGemmTest, ScalesAreNotSharedBetweenKernels) {
  const Dims c = {1, 5};
  for (float alpha : {0.5f, -1.5f, 4.0f}) {
    for (float beta : {2.0f, 0.0f, 1.0f}) {
      SCOPED_TRACE(::testing::Message() << "alpha " << alpha << " beta " << beta);
      GemmNode(false, true, 4, 8, 5, &c, 140, "FusedGemm")
          .Float("alpha", alpha)
          .Float("beta", beta)
          .Str("activation", "LeakyRelu")
          .Float("activation_alpha", alpha / 10)
          .Check(8);
    }
  }
}

TEST(CpuMatMulTest, FusedMatMulBiasAndActivation) {
  Node::Fused("FusedMatMul")
      .In(Random({2, 4, 8}, 130))
      .Const(Random({8, 6}, 131))
      .In(Random({6}, 132))
      .Str("activation", "Relu")
      .Check(8);
  Node::Fused("FusedMatMul")
      .In(Random({3, 8}, 133))
      .In(Random({2, 8, 6}, 134))
      .In(Random({1}, 135))
      .Str("activation", "Clip")
      .Float("activation_alpha", -0.2f)
      .Float("activation_beta", 0.3f)
      .Check(8);
  Node::Fused("FusedMatMul").In(Random({5, 8}, 136)).Const(Random({8, 3}, 137)).Check(8);
  // post_scale / post_shift (post_affine_fusion): attention's scaled scores, and after a bias
  // and an activation.
  Node::Fused("FusedMatMul")
      .In(Random({2, 3, 4, 8}, 147))
      .In(Random({2, 3, 8, 5}, 148))
      .Str("activation", "")
      .Float("post_scale", 0.125f)
      .Float("post_shift", -0.5f)
      .Check(8);
  Node::Fused("FusedMatMul")
      .In(Random({6, 8}, 149))
      .Const(Random({8, 5}, 150))
      .In(Random({5}, 151))
      .Str("activation", "Relu")
      .Float("post_scale", 2.0f)
      .Check(8);
  // A batch of rows times one constant B (run as one 2-D product over A's rows).
  Node::Fused("FusedMatMul")
      .In(Random({2, 3, 5, 8}, 144))
      .Const(Random({8, 6}, 145))
      .In(Random({6}, 146))
      .Str("activation", "Gelu")
      .Check(8);
}

TEST(CpuMatMulTest, BiasAlongAVectorProductsRowsRunsOnTheReferenceKernel) {
  // A 1-D B drops N: the bias then runs along M, which the bias post-op does not express.
  Node::Fused("FusedMatMul")
      .In(Random({4, 8}, 138))
      .In(Random({8}, 139))
      .In(Random({4}, 140))
      .Check(8, Expect::kReference);
  Node::Fused("FusedMatMul")
      .In(Random({4, 8}, 141))
      .In(Random({8}, 142))
      .In(Random({1}, 143))
      .Check(8);
}

TEST(CpuMatMulTest, EmptyInputsRunOnTheReferenceKernel) {
  HostTensor a(DataType::kFloat32, {3, 0}), b(DataType::kFloat32, {0, 4});
  Node("MatMul", 13).In(std::move(a)).In(std::move(b)).Check(1, Expect::kReference);
}

// ---------------------------------------------------------------------------------------------
// Softmax, LogSoftmax, BatchNormalization, LayerNormalization.

TEST(CpuSoftmaxTest, EveryAxisFromOpset13) {
  for (int64_t axis : {-1, 0, 1, 2, 3}) {
    SCOPED_TRACE(axis);
    Node("Softmax", 13).In(Random({2, 3, 4, 5}, 140, -4, 4)).Int("axis", axis).Check(5);
    Node("LogSoftmax", 13).In(Random({2, 3, 4, 5}, 141, -4, 4)).Int("axis", axis).Check(5);
  }
}

TEST(CpuSoftmaxTest, FlattenedBeforeOpset13) {
  for (int64_t axis : {0, 1, 2, -1}) {
    SCOPED_TRACE(axis);
    Node("Softmax", 11).In(Random({2, 3, 4, 5}, 142, -4, 4)).Int("axis", axis).Check(60);
    Node("LogSoftmax", 11).In(Random({2, 3, 4, 5}, 143, -4, 4)).Int("axis", axis).Check(60);
  }
  Node("Softmax", 11).In(Random({3, 1000}, 144, -8, 8)).Check(1000);
}

Node BatchNormNode(Dims x, uint32_t seed) {
  const int64_t c = x[1];
  Node node("BatchNormalization", 15);
  node.In(Random(std::move(x), seed))
      .Const(Random({c}, seed + 1))
      .Const(Random({c}, seed + 2))
      .Const(Random({c}, seed + 3))
      .Const(Random({c}, seed + 4, 0.1f, 2.0f));
  return node;
}

TEST(CpuNormTest, BatchNormalizationInference) {
  BatchNormNode({2, 5, 4, 3}, 150).Check(1);
  BatchNormNode({3, 7}, 155).Float("epsilon", 1e-3f).Check(1);
  BatchNormNode({1, 3, 2, 3, 4}, 160).Check(1);
  BatchNormNode({2, 4, 9}, 165).Check(1);
}

TEST(CpuNormTest, BatchNormalizationTrainingIsDeclined) {
  BatchNormNode({2, 3, 4, 4}, 170)
      .Int("training_mode", 1)
      .Outputs({DataType::kFloat32, DataType::kFloat32, DataType::kFloat32})
      .Check(1, Expect::kDeclined);
}

TEST(CpuNormTest, LayerNormalizationAxesScaleAndBias) {
  Node("LayerNormalization", 17)
      .In(Random({2, 3, 8}, 180))
      .Const(Random({8}, 181))
      .Const(Random({8}, 182))
      .Check(8);
  Node("LayerNormalization", 17)
      .In(Random({2, 3, 8}, 183))
      .Const(Random({3, 8}, 184))
      .In(Random({1, 3, 8}, 185))
      .Int("axis", 1)
      .Check(24);
  Node("LayerNormalization", 17).In(Random({4, 768}, 186)).Const(Random({768}, 187)).Check(768);
  Node("LayerNormalization", 17)
      .In(Random({5, 6}, 188))
      .Const(Random({1, 6}, 189))
      .Float("epsilon", 1e-2f)
      .Check(6);
}

// AlexNet's and GoogLeNet's LRN (size 5) on oneDNN; a window wider than the channels, rank 3
// and 5 (the spatial dims flattened). An even window (ONNX's has one more channel after than
// before, oneDNN's does not) is left to the reference kernel.
TEST(CpuNormTest, LrnAcrossChannels) {
  Node("LRN", 13).In(Random({2, 16, 7, 9}, 190)).Int("size", 5).Check(5);
  Node("LRN", 13)
      .In(Random({1, 6, 5, 5}, 191))
      .Int("size", 3)
      .Float("alpha", 0.02f)
      .Float("beta", 0.5f)
      .Float("bias", 2.0f)
      .Check(3);
  Node("LRN", 13).In(Random({1, 6, 5, 5}, 191)).Int("size", 4).Check(4, Expect::kDeclined);
  Node("LRN", 13).In(Random({1, 3, 4, 4}, 192)).Int("size", 7).Float("alpha", 0.5f).Check(7);
  Node("LRN", 13).In(Random({2, 5, 11}, 193)).Int("size", 3).Check(3);
  Node("LRN", 13).In(Random({1, 4, 3, 2, 3}, 194)).Int("size", 3).Float("beta", 1.5f).Check(3);
}

TEST(CpuNormTest, LayerNormalizationStatisticsOutputsRunOnTheReferenceKernel) {
  Node("LayerNormalization", 17)
      .In(Random({2, 3, 8}, 190))
      .Const(Random({8}, 191))
      .Const(Random({8}, 192))
      .Outputs({DataType::kFloat32, DataType::kFloat32, DataType::kFloat32})
      .Check(8, Expect::kReference);
  // A scale that varies along a dim before the axis is not per normalised element.
  Node("LayerNormalization", 17)
      .In(Random({2, 3, 8}, 193))
      .Const(Random({3, 1}, 194))
      .Int("axis", 2)
      .Check(8, Expect::kReference);
}

// ---------------------------------------------------------------------------------------------
// InstanceNormalization and GroupNormalization (Kiln's own loops: the run must not go to the
// reference kernel, and large inputs must be split into several ParallelFor chunks).

Node InstanceNormNode(Dims x, uint32_t seed, float lo = -1.0f, float hi = 1.0f) {
  const int64_t c = x[1];
  Node node("InstanceNormalization", 6);
  node.In(Random(std::move(x), seed, lo, hi))
      .Const(Random({c}, seed + 1))
      .Const(Random({c}, seed + 2));
  return node;
}

Node GroupNormNode(Dims x, int64_t groups, int opset, uint32_t seed, float lo = -1.0f,
                   float hi = 1.0f) {
  const int64_t params = opset >= 21 ? x[1] : groups;
  Node node("GroupNormalization", opset);
  node.In(Random(std::move(x), seed, lo, hi))
      .Const(Random({params}, seed + 1))
      .In(Random({params}, seed + 2))
      .Int("num_groups", groups);
  return node;
}

// Runs the cpu kernel of `node` through ParallelFor (which TestContext splits into grain-sized
// chunks run out of order on two threads) and not on the reference kernel; compares with the
// reference.
void CheckSplitRun(Node& node, int64_t k) {
  auto kernel = node.PrepareCpu();
  ASSERT_TRUE(kernel.ok()) << kernel.status().message();
  const int64_t before = ReferenceRunCount();
  TestContext ctx(node.inputs(), {DataType::kFloat32}, &node.def());
  ASSERT_TRUE((*kernel)->Run(ctx).ok());
  EXPECT_EQ(ReferenceRunCount(), before);
  EXPECT_GE(ctx.parallel_calls(), 1);
  auto want = kernels::testing::RunReference(node.def(), node.inputs());
  ASSERT_TRUE(want.ok()) << want.status().message();
  Node::Compare(ctx.outputs(), *want, k);
}

TEST(CpuInstanceNormTest, OddChannelsBatchAndRanks) {
  InstanceNormNode({2, 5, 7, 3}, 300).Check(1);
  InstanceNormNode({3, 7, 11}, 303).Float("epsilon", 1e-2f).Check(1);
  InstanceNormNode({1, 4, 3, 5, 6}, 306).Check(1);
  InstanceNormNode({2, 3, 1, 1}, 309).Check(1);  // one element per plane: variance 0
}

TEST(CpuInstanceNormTest, LargeSpatialIsSplitAcrossChunks) {
  // 19500 elements per plane: two stats chunks each; an offset mean tests the shifted sums.
  Node node = InstanceNormNode({2, 3, 150, 130}, 312, 3.0f, 5.0f);
  CheckSplitRun(node, 1);
  Node wide = InstanceNormNode({1, 33, 64, 64}, 315);
  CheckSplitRun(wide, 1);
}

TEST(CpuInstanceNormTest, DynamicDimsBuildAPlanPerShape) {
  Node node = InstanceNormNode({2, 5, 4, 4}, 318);
  node.Planned(0, {-1, 5, -1, -1});
  auto kernel = node.PrepareCpu();
  ASSERT_TRUE(kernel.ok()) << kernel.status().message();
  for (Dims xd : {Dims{1, 5, 9, 7}, Dims{3, 5, 2, 40}, Dims{1, 5, 9, 7}}) {
    SCOPED_TRACE(kernels::DimsString(xd));
    HostTensor x = Random(xd, 319 + static_cast<uint32_t>(xd[0]));
    const std::vector<const HostTensor*> in = {&x, node.inputs()[1], node.inputs()[2]};
    const int64_t before = ReferenceRunCount();
    TestContext ctx(in, {DataType::kFloat32}, &node.def());
    ASSERT_TRUE((*kernel)->Run(ctx).ok());
    EXPECT_EQ(ReferenceRunCount(), before);
    auto want = kernels::testing::RunReference(node.def(), in);
    ASSERT_TRUE(want.ok()) << want.status().message();
    Node::Compare(ctx.outputs(), *want, 1);
  }
}

TEST(CpuInstanceNormTest, BadScaleIsRefusedNotACrash) {
  Node node = InstanceNormNode({2, 5, 4, 4}, 322);
  node.Planned(1, {-1});
  auto kernel = node.PrepareCpu();
  ASSERT_TRUE(kernel.ok()) << kernel.status().message();
  HostTensor scale = Random({4}, 323);
  ExpectRefusedAtRun(node.def(), **kernel, {node.inputs()[0], &scale, node.inputs()[2]});
}

TEST(CpuInstanceNormTest, DeclinesFloat64) {
  Node node("InstanceNormalization", 6);
  node.In(HostTensor(DataType::kFloat64, {1, 2, 3}))
      .In(HostTensor(DataType::kFloat64, {2}))
      .In(HostTensor(DataType::kFloat64, {2}))
      .Outputs({DataType::kFloat64});
  node.Check(1, Expect::kDeclined);
}

TEST(CpuGroupNormTest, ScaleAndBiasPerGroupBeforeOpset21) {
  GroupNormNode({2, 6, 5, 5}, 3, 18, 330).Check(1);
  GroupNormNode({3, 9, 7}, 3, 18, 333).Float("epsilon", 1e-3f).Check(1);
  GroupNormNode({1, 5, 4, 3, 2}, 5, 18, 336).Check(1);
}

TEST(CpuGroupNormTest, ScaleAndBiasPerChannelFromOpset21) {
  GroupNormNode({2, 6, 5, 5}, 2, 21, 340).Check(1);
  GroupNormNode({3, 9, 7}, 3, 21, 343).Check(1);
  GroupNormNode({2, 7, 3, 4}, 7, 21, 346).Check(1);
}

TEST(CpuGroupNormTest, OneGroupAndRankTwo) {
  GroupNormNode({2, 9, 4, 4}, 1, 21, 350).Check(1);
  GroupNormNode({4, 6}, 3, 18, 353).Check(1);
  GroupNormNode({4, 6}, 2, 21, 356).Check(1);
}

TEST(CpuGroupNormTest, LargeSpatialIsSplitAcrossChunks) {
  Node node = GroupNormNode({1, 4, 128, 160}, 2, 21, 360, -2.0f, 6.0f);
  CheckSplitRun(node, 1);
  Node odd = GroupNormNode({2, 15, 37, 41}, 5, 18, 363);
  CheckSplitRun(odd, 1);
}

TEST(CpuGroupNormTest, ParametersOfTheWrongOpsetAreAnErrorNotACrash) {
  // Opset 21 wants one scale per channel: per-group parameters break the op's definition,
  // which refuses them before any kernel is made.
  Node node("GroupNormalization", 21);
  node.In(Random({2, 6, 3, 3}, 370)).In(Random({3}, 371)).In(Random({3}, 372)).Int("num_groups", 3);
  auto kernel = node.PrepareCpu();
  ASSERT_FALSE(kernel.ok());
  EXPECT_EQ(kernel.status().code(), code::kInvalidParam) << kernel.status().message();
  // Channels that do not split into the groups.
  Node uneven = GroupNormNode({1, 6, 3, 3}, 4, 18, 373);
  auto k2 = uneven.PrepareCpu();
  ASSERT_FALSE(k2.ok());
  EXPECT_EQ(k2.status().code(), code::kInvalidParam) << k2.status().message();
}

TEST(CpuGroupNormTest, MissingNumGroupsIsRejectedAtPrepare) {
  Node node("GroupNormalization", 18);
  node.In(Random({1, 4, 3}, 380)).In(Random({2}, 381)).In(Random({2}, 382));
  auto kernel = node.PrepareCpu();
  ASSERT_FALSE(kernel.ok());
  EXPECT_EQ(kernel.status().code(), code::kInvalidParam) << kernel.status().message();
}

}  // namespace
}  // namespace kiln::cpu
