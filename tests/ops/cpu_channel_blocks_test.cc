// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Convolutions and pools on tensors channels_last stores in channel blocks (kiln_x_cblock,
// kiln_y_cblock, kiln_z_cblock: N, C/b, H, W, b beside the NHWC mark) against the reference
// kernel of the same node without any layout flag on plain NCHW data: the flagged node gets its
// inputs in their stored order and its output is brought back before comparing. Both the cpu
// kernel (which must run it on oneDNN) and the reference kernel (the fallback) are checked, with
// X, Y and Z each plain, NHWC, or in blocks of 8 or 16 — the mixes a model's edges give.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "tests/ops/cpu_vs_reference_util.h"

namespace kiln::cpu::vs_reference {
namespace {

// A tensor's storage: -1 plain NCHW, 0 NHWC, 8 or 16 channel blocks.
using Storage = int64_t;
constexpr Storage kPlain = -1;

HostTensor Stored(const HostTensor& t, Storage s) {
  return s == kPlain ? t : ChannelBlocks(t, s, true);
}
HostTensor Logical(const HostTensor& t, Storage s) {
  return s == kPlain ? t : ChannelBlocks(t, s, false);
}

// Puts tensor `t`'s ("x", "y", "z") flags for storage `s` on `node`.
void Flag(Node& node, const char* t, Storage s) {
  if (s == kPlain) return;
  node.Int(std::string("kiln_") + t + "_nhwc", 1);
  if (s > 0) node.Int(std::string("kiln_") + t + "_cblock", s);
}

std::string Name(Storage s) { return s == kPlain ? "plain" : s == 0 ? "nhwc" : std::to_string(s); }

// FusedConv of X by W (pads `pad`, `group`, activation `act`), bias and residual, in the given
// storages of X, Y and Z, against the plain node on the reference kernel.
void CheckConv(const Dims& x_dims, const Dims& w_dims, int64_t pad, int64_t group,
               const std::string& act, uint32_t seed, const std::vector<Storage>& storages) {
  const int64_t k = w_dims[1] * w_dims[2] * w_dims[3];
  const Dims y_dims = {x_dims[0], w_dims[0], x_dims[2] + 2 * pad - w_dims[2] + 1,
                       x_dims[3] + 2 * pad - w_dims[3] + 1};
  const HostTensor x = Random(x_dims, seed), w = Random(w_dims, seed + 1);
  const HostTensor b = Random({w_dims[0]}, seed + 2), z = Random(y_dims, seed + 3);
  auto make = [&](Storage sx, Storage sy, Storage sz) {
    Node node = Node::Fused("FusedConv");
    node.In(Stored(x, sx)).Const(w).In(b).In(Stored(z, sz));
    node.Ints("pads", {pad, pad, pad, pad}).Int("group", group).Str("activation", act);
    Flag(node, "x", sx);
    Flag(node, "y", sy);
    Flag(node, "z", sz);
    return node;
  };
  Node plain = make(kPlain, kPlain, kPlain);
  auto want = plain.Run(Registry().Create(kernels::kReferenceBackend, plain.def()));
  ASSERT_TRUE(want.ok()) << want.status().message();
  for (Storage sx : storages) {
    for (Storage sy : storages) {
      for (Storage sz : storages) {
        if (sx == kPlain && sy == kPlain && sz == kPlain) continue;
        SCOPED_TRACE("x " + Name(sx) + " y " + Name(sy) + " z " + Name(sz));
        Node node = make(sx, sy, sz);
        auto ref = node.Run(Registry().Create(kernels::kReferenceBackend, node.def()));
        ASSERT_TRUE(ref.ok()) << "reference: " << ref.status().message();
        (*ref)[0] = Logical((*ref)[0], sy);
        Node::Compare(*ref, *want, k);
        std::vector<HostTensor> got;
        ASSERT_NO_FATAL_FAILURE(RunOnCpu(node, &got));
        got[0] = Logical(got[0], sy);
        Node::Compare(got, *want, k);
      }
    }
  }
}

TEST(CpuChannelBlocksTest, ConvolutionsInEveryMixOfStorages) {
  {
    SCOPED_TRACE("3x3, 32 -> 48 channels, batch 2");
    CheckConv({2, 32, 7, 7}, {48, 32, 3, 3}, 1, 1, "Relu", 10, {kPlain, 0, 8, 16});
  }
  {
    SCOPED_TRACE("1x1, 24 -> 16 channels, batch 3 (blocks of 8 only)");
    CheckConv({3, 24, 5, 6}, {16, 24, 1, 1}, 0, 1, "Clip", 20, {kPlain, 0, 8});
  }
  {
    SCOPED_TRACE("depthwise 3x3, 16 channels");
    CheckConv({2, 16, 6, 5}, {16, 1, 3, 3}, 1, 16, "Swish", 30, {0, 8, 16});
  }
  {
    SCOPED_TRACE("depthwise 5x5, 24 channels");
    CheckConv({2, 24, 9, 9}, {24, 1, 5, 5}, 2, 24, "HardSwish", 35, {0, 8});
  }
  {
    // 12 channels per group in blocks of 8: oneDNN has only its reference kernel for that, so
    // the kernel leaves both layouts to oneDNN's choice (and reorders).
    SCOPED_TRACE("2 groups of 12 channels");
    CheckConv({2, 24, 6, 6}, {24, 12, 3, 3}, 1, 2, "", 38, {8});
  }
  {
    SCOPED_TRACE("3x3, 64 channels, 8x8: Winograd's shape");
    CheckConv({2, 64, 8, 8}, {64, 64, 3, 3}, 1, 1, "Sigmoid", 40, {16});
  }
}

// com.kiln MaxPool / AveragePool with X and Y each plain, NHWC or in blocks of 8 or 16 (a window
// of 3x3 stride 2, and a global one as channels_last makes of GlobalAveragePool).
TEST(CpuChannelBlocksTest, PoolsInEveryMixOfStorages) {
  const HostTensor x = Random({2, 16, 9, 8}, 50);
  for (const char* op : {"MaxPool", "AveragePool"}) {
    for (const bool global : {false, true}) {
      auto window = [&](Node& n) {
        if (global) {
          n.Ints("kernel_shape", {9, 8});
        } else {
          n.Ints("kernel_shape", {3, 3}).Ints("strides", {2, 2}).Ints("pads", {1, 1, 1, 1});
        }
      };
      Node plain(op, 22);
      plain.In(x);
      window(plain);
      auto want = plain.Run(Registry().Create(kernels::kReferenceBackend, plain.def()));
      ASSERT_TRUE(want.ok()) << want.status().message();
      for (Storage sx : {kPlain, Storage{0}, Storage{8}, Storage{16}}) {
        for (Storage sy : {kPlain, Storage{0}, Storage{8}, Storage{16}}) {
          if (sx == kPlain && sy == kPlain) continue;
          SCOPED_TRACE(std::string(op) + (global ? " global" : " 3x3") + " x " + Name(sx) + " y " +
                       Name(sy));
          Node node(op, 1, "com.kiln");
          node.In(Stored(x, sx));
          window(node);
          Flag(node, "x", sx);
          Flag(node, "y", sy);
          auto ref = node.Run(Registry().Create(kernels::kReferenceBackend, node.def()));
          ASSERT_TRUE(ref.ok()) << "reference: " << ref.status().message();
          (*ref)[0] = Logical((*ref)[0], sy);
          Node::Compare(*ref, *want, 9);
          std::vector<HostTensor> got;
          ASSERT_NO_FATAL_FAILURE(RunOnCpu(node, &got));
          got[0] = Logical(got[0], sy);
          Node::Compare(got, *want, 9);
        }
      }
    }
  }
}

// channels_last's transparent ops (com.kiln Concat, Split, Add, Mul, Relu, ArithmeticChain with
// kiln_nhwc) with every rank-4 tensor NHWC or in blocks of 8 or 16 (kiln_cblock), against the
// plain op on the reference kernel: a layout-neutral operand (height and width 1, one channel or
// all) keeps its bytes, the others are given in their stored order and the outputs brought back.
struct Operand {
  HostTensor t;
  bool constant = false;
  bool absent = false;  // an optional input left out (a Resize's roi)
};
void CheckTransparent(const std::string& op, const std::vector<Operand>& in, size_t outputs,
                      const std::function<void(Node&)>& attrs) {
  const bool fused = op == "ArithmeticChain";
  auto make = [&](Storage s) {
    Node node = s == kPlain && !fused ? Node(op) : Node::Fused(op);
    for (const Operand& o : in) {
      if (o.absent) {
        node.None();
        continue;
      }
      const bool data = o.t.dims.size() == 4 && (o.t.dims[2] != 1 || o.t.dims[3] != 1);
      node.In(data && s != kPlain ? Stored(o.t, s) : o.t, o.constant);
    }
    node.Outputs(std::vector<DataType>(outputs, DataType::kFloat32));
    attrs(node);
    if (s != kPlain) node.Int("kiln_nhwc", 1);
    if (s > 0) node.Int("kiln_cblock", s);
    return node;
  };
  Node plain = make(kPlain);
  auto want = plain.Run(Registry().Create(kernels::kReferenceBackend, plain.def()));
  ASSERT_TRUE(want.ok()) << want.status().message();
  for (Storage s : {Storage{0}, Storage{8}, Storage{16}}) {
    SCOPED_TRACE(op + " " + Name(s));
    Node node = make(s);
    for (const char* backend : {kernels::kReferenceBackend, "cpu"}) {
      SCOPED_TRACE(backend);
      std::vector<HostTensor> got = RunOn(backend, node);
      ASSERT_EQ(got.size(), outputs);
      for (HostTensor& t : got) t = Logical(t, s);
      Node::Compare(got, *want, 1);
    }
  }
}

TEST(CpuChannelBlocksTest, TransparentOpsInEveryStorage) {
  const HostTensor a = Random({2, 16, 5, 4}, 60), b = Random({2, 32, 5, 4}, 61);
  const HostTensor c = Random({2, 16, 5, 4}, 62), x = Random({2, 48, 5, 4}, 63);
  const HostTensor scale = Random({1, 32, 1, 1}, 64), shift = Random({1, 32, 1, 1}, 65);
  const HostTensor per_image = Random({2, 1, 1, 1}, 66), b2 = Random({2, 32, 5, 4}, 67);
  const HostTensor sizes = kernels::testing::I64({2}, {16, 32});
  auto none = [](Node&) {};
  auto axis = [](Node& n) { n.Int("axis", 1); };
  CheckTransparent("Concat", {{a}, {b}, {c}}, 1, axis);
  CheckTransparent("Split", {{x}, {sizes, true}}, 2, axis);
  CheckTransparent("Split", {{x}, {sizes}}, 2, axis);  // sizes given at run time
  CheckTransparent("Add", {{b}, {b2}}, 1, none);
  CheckTransparent("Mul", {{b}, {scale, true}}, 1, none);
  CheckTransparent("Sub", {{b}, {per_image}}, 1, none);
  CheckTransparent("Relu", {{b}}, 1, none);
  // A nearest Resize of the height and width, by constant scales and by sizes.
  auto nearest = [](Node& n) { n.Str("mode", "nearest"); };
  const HostTensor scales = kernels::testing::F32({4}, {1, 1, 2, 1.5f});
  const HostTensor sizes_hw = kernels::testing::I64({4}, {2, 32, 9, 7});
  CheckTransparent("Resize", {{b}, {HostTensor(), false, true}, {scales, true}}, 1, nearest);
  CheckTransparent("Resize", {{b}, {HostTensor(), false, true}, {scales}}, 1, nearest);
  CheckTransparent(
      "Resize", {{b}, {HostTensor(), false, true}, {HostTensor(), false, true}, {sizes_hw, true}},
      1, nearest);
  CheckTransparent("ArithmeticChain", {{b}, {scale, true}, {shift, true}, {per_image}}, 1,
                   [](Node& n) {
                     n.Attr("ops", std::vector<std::string>{"Mul", "Add", "Div"});
                     n.Str("activation", "Relu");
                   });
  // A batch-norm's chain over a large image: the cpu kernel's blocks span many runs of the
  // per-channel operands.
  const HostTensor big = Random({1, 64, 56, 56}, 68);
  const HostTensor s64 = Random({1, 64, 1, 1}, 69), t64 = Random({1, 64, 1, 1}, 70);
  CheckTransparent("ArithmeticChain", {{big}, {s64, true}, {t64, true}}, 1, [](Node& n) {
    n.Attr("ops", std::vector<std::string>{"Mul", "Add"});
    n.Str("activation", "Relu");
  });
}

// A Split whose sizes (computed, not constant) are not whole blocks: an error naming them, not a
// wrong split.
TEST(CpuChannelBlocksTest, SplitSizesThatAreNotWholeBlocksAreRefused) {
  const HostTensor sizes = kernels::testing::I64({2}, {8, 40});
  Node node = Node::Fused("Split");
  node.In(Stored(Random({1, 48, 2, 2}, 70), 16)).In(sizes);
  node.Outputs({DataType::kFloat32, DataType::kFloat32}).Int("axis", 1);
  node.Int("kiln_nhwc", 1).Int("kiln_cblock", 16);
  node.Planned(1, {2});
  for (const char* backend : {kernels::kReferenceBackend, "cpu"}) {
    auto kernel = Registry().Create(backend, node.def());
    if (!kernel.ok()) continue;  // refused at prepare (the sizes' values not known there): fine
    auto out = node.Run(std::move(kernel));
    EXPECT_FALSE(out.ok()) << backend;
    if (!out.ok()) EXPECT_NE(out.status().message().find("multiple"), std::string::npos);
  }
}

}  // namespace
}  // namespace kiln::cpu::vs_reference
