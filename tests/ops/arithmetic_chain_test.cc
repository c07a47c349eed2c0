// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// com.kiln ArithmeticChain (the arithmetic_chain pass's op) on the reference and the cpu
// backend: it must write exactly what the ONNX Add / Sub / Mul / Div nodes it replaces write
// when run one after the other (the oracle: ONNX's reference kernels, step by step), for
// broadcast operands, swapped steps, tensors the cpu kernel cuts into chunks and blocks,
// channels-last storage (kiln_nhwc), and a Relu at the end (activation).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/ops/cpu_vs_reference_util.h"

namespace kiln::cpu {
namespace {

using namespace vs_reference;  // NOLINT(build/namespaces): the test helpers
using kernels::DataType;
using kernels::Dims;
using kernels::HostTensor;

struct Step {
  const char* op;
  bool swapped = false;
};

// The unfused nodes: v = x[0]; v = op(v, x[i]) (or op(x[i], v)) through ONNX's reference kernels.
HostTensor Unfused(const std::vector<HostTensor>& x, const std::vector<Step>& steps) {
  HostTensor v = x[0];
  for (size_t i = 0; i < steps.size(); ++i) {
    Node n(steps[i].op, 14);
    if (steps[i].swapped) {
      n.In(x[i + 1]).In(v);
    } else {
      n.In(v).In(x[i + 1]);
    }
    std::vector<HostTensor> out = RunOn(kernels::kReferenceBackend, n);
    EXPECT_EQ(out.size(), 1u);
    if (out.empty()) return v;
    v = out[0];
  }
  return v;
}

// Then a Relu node (ONNX's reference kernel), as the chain's activation "Relu" ends it.
HostTensor Relu(const HostTensor& v) {
  Node n("Relu", 14);
  n.In(v);
  std::vector<HostTensor> out = RunOn(kernels::kReferenceBackend, n);
  EXPECT_EQ(out.size(), 1u);
  return out.empty() ? v : out[0];
}

Node Chain(const std::vector<HostTensor>& x, const std::vector<Step>& steps, bool nhwc = false) {
  Node n("ArithmeticChain", 1, "com.kiln");
  for (const HostTensor& t : x) n.In(t);
  std::vector<std::string> ops;
  std::vector<int64_t> swapped;
  for (const Step& s : steps) {
    ops.emplace_back(s.op);
    swapped.push_back(s.swapped ? 1 : 0);
  }
  n.Attr("ops", ops).Ints("swapped", swapped);
  if (nhwc) n.Int("kiln_nhwc", 1);
  return n;
}

// The chain on both backends equals the unfused nodes bit for bit; the cpu kernel ran its own
// loop (no hand-off to the reference kernel).
void ExpectMatches(const std::vector<HostTensor>& x, const std::vector<Step>& steps,
                   bool relu = false) {
  const HostTensor want = relu ? Relu(Unfused(x, steps)) : Unfused(x, steps);
  Node chain = Chain(x, steps);
  if (relu) chain.Str("activation", "Relu");
  for (const std::string backend : {kernels::kReferenceBackend, "cpu"}) {
    const int64_t before = ReferenceRunCount();
    const std::vector<HostTensor> got = RunOn(backend, chain);
    ASSERT_EQ(got.size(), 1u) << backend;
    if (backend == "cpu") {
      EXPECT_EQ(ReferenceRunCount(), before) << "cpu handed the run over";
    }
    EXPECT_EQ(got[0].dims, want.dims) << backend;
    EXPECT_EQ(got[0].bytes, want.bytes) << backend;
  }
}

TEST(ArithmeticChainTest, ASqueezeExcitationTailAndAnUpsampledBranch) {
  // y = x * s + x + r: PP-OCR's residual squeeze-excitation and its feature pyramid's add.
  const HostTensor x = Random({1, 6, 5, 7}, 1);
  ExpectMatches({x, Random({1, 6, 1, 1}, 2), x, Random({1, 6, 5, 7}, 3)},
                {{"Mul"}, {"Add", true}, {"Add"}});
}

TEST(ArithmeticChainTest, SwappedSubtractionsAndDivisions) {
  const std::vector<HostTensor> x = {Random({2, 3, 4}, 4), Random({4}, 5, 0.5f, 2.0f),
                                     Random({}, 6, 0.5f, 2.0f), Random({2, 1, 4}, 7, 0.5f, 2.0f),
                                     Random({3, 1}, 8)};
  ExpectMatches(x, {{"Sub", true}, {"Div", true}, {"Div"}, {"Sub"}});
  ExpectMatches(x, {{"Div"}, {"Sub", true}, {"Mul", true}, {"Add", true}});
}

TEST(ArithmeticChainTest, TheRunningValueGrowsByBroadcasting) {
  // A per-channel scale times a scalar, then over the whole tensor: the first steps see a small
  // value that broadcasting grows.
  ExpectMatches({Random({1, 4, 1, 1}, 9), Random({}, 10), Random({1, 4, 3, 3}, 11)},
                {{"Mul"}, {"Add"}});
  ExpectMatches({Random({3}, 12), Random({1}, 13), Random({2, 3}, 14), Random({2, 1}, 15)},
                {{"Add"}, {"Mul", true}, {"Sub", true}});
}

TEST(ArithmeticChainTest, EightStepsOverALargeTensor) {
  // More elements than one ParallelFor chunk and one block, a run boundary inside each.
  const HostTensor x = Random({1, 96, 40, 41}, 16);
  std::vector<HostTensor> in = {x};
  std::vector<Step> steps;
  const char* ops[] = {"Mul", "Add", "Sub", "Div", "Add", "Mul", "Sub", "Add"};
  for (int i = 0; i < 8; ++i) {
    in.push_back(i % 2 == 0 ? Random({1, 96, 1, 1}, 20 + i, 0.5f, 2.0f)
                            : Random({1, 96, 40, 41}, 20 + i, 0.5f, 2.0f));
    steps.push_back({ops[i], i == 3 || i == 6});
  }
  ExpectMatches(in, steps);
}

TEST(ArithmeticChainTest, ChannelsLastStorage) {
  // kiln_nhwc: the full-shape tensors are stored NHWC, a [N, C, 1, 1] operand is the same bytes
  // either way; the chain writes the NHWC storage of the unfused NCHW result. The per-channel
  // operand repeats every C elements: a small tensor of batch 2 (short runs, gathered), and
  // tensors of several blocks and ParallelFor chunks.
  // Batch 1: each per-channel operand repeats with the period C (read from tiles of itself),
  // with 24 and 300 channels also chunks that start mid-period.
  for (const Dims& dims :
       {Dims{2, 6, 5, 7}, Dims{1, 32, 40, 41}, Dims{1, 24, 41, 43}, Dims{1, 300, 11, 13}}) {
    const HostTensor x = Random(dims, 30), r = Random(dims, 32),
                     s = Random({dims[0], dims[1], 1, 1}, 31, 0.5f, 2.0f);
    const std::vector<Step> steps = {{"Mul"}, {"Add", true}, {"Div", true}};
    const HostTensor want = ToNhwc(Unfused({x, s, x, r}, steps));
    const Node chain = Chain({ToNhwc(x), s, ToNhwc(x), ToNhwc(r)}, steps, true);
    for (const std::string backend : {kernels::kReferenceBackend, "cpu"}) {
      const std::vector<HostTensor> got = RunOn(backend, chain);
      ASSERT_EQ(got.size(), 1u) << backend;
      EXPECT_EQ(got[0].bytes, want.bytes) << backend << " " << kernels::DimsString(dims);
    }
  }
}

TEST(ArithmeticChainTest, AReluEndsTheChain) {
  // A pre-activation network's BatchNormalization (x * scale + shift) and Relu, the values around
  // zero, and a larger tensor of several blocks and chunks; stored NHWC too.
  ExpectMatches({Random({1, 6, 5, 7}, 50), Random({1, 6, 1, 1}, 51), Random({1, 6, 1, 1}, 52)},
                {{"Mul"}, {"Add"}}, true);
  ExpectMatches({Random({1, 64, 30, 31}, 53), Random({1, 64, 30, 31}, 54)}, {{"Sub"}}, true);
  const Dims dims = {1, 48, 20, 21};
  const HostTensor x = Random(dims, 55), s = Random({1, 48, 1, 1}, 56),
                   b = Random({1, 48, 1, 1}, 57);
  const HostTensor want = ToNhwc(Relu(Unfused({x, s, b}, {{"Mul"}, {"Add"}})));
  Node chain = Chain({ToNhwc(x), s, b}, {{"Mul"}, {"Add"}}, true);
  chain.Str("activation", "Relu");
  for (const std::string backend : {kernels::kReferenceBackend, "cpu"}) {
    const std::vector<HostTensor> got = RunOn(backend, chain);
    ASSERT_EQ(got.size(), 1u) << backend;
    EXPECT_EQ(got[0].bytes, want.bytes) << backend;
  }
}

TEST(ArithmeticChainTest, TheDefinitionRefusesBadChains) {
  auto refused = [](Node n, const char* what) {
    auto k = Registry().Create("cpu", n.def());
    ASSERT_FALSE(k.ok()) << what;
    EXPECT_NE(k.status().message().find(what), std::string::npos) << k.status().message();
  };
  const HostTensor a = Random({2, 3}, 40), b = Random({2, 3}, 41);
  refused(Chain({a, b, a}, {{"Add"}}), "one step per input");
  refused(Chain({a, b, a}, {{"Add"}, {"Pow"}}), "not Add, Sub, Mul or Div");
  Node bad_swap = Chain({a, b, a}, {{"Add"}, {"Sub"}});
  bad_swap.Ints("swapped", {0, 2});
  refused(std::move(bad_swap), "0 or 1");
  refused(Chain({a, Random({3, 2}, 42), a}, {{"Add"}, {"Mul"}}), "cannot be broadcast");
  Node sigmoid = Chain({a, b}, {{"Add"}});
  sigmoid.Str("activation", "Sigmoid");
  refused(std::move(sigmoid), "is not \"\" or Relu");
  refused(Chain({Random({1, 2, 3, 3}, 43), Random({1, 1, 3, 3}, 44), Random({1, 2, 3, 3}, 45)},
                {{"Add"}, {"Mul"}}, true),
          "height and width 1");
  Node ints("ArithmeticChain", 1, "com.kiln");
  HostTensor i(DataType::kInt64, {2});
  ints.In(i).In(i).In(i).Attr("ops", std::vector<std::string>{"Add", "Add"});
  refused(std::move(ints), "float32 is required");
}

}  // namespace
}  // namespace kiln::cpu
