// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The CPU backend's recurrent kernels (LSTM, GRU, RNN: Kiln's own recurrence, nn_recurrent.cc)
// against the reference kernels (the oracle). Every direction, with and without bias and initial
// states, LSTM's peepholes and input_forget, GRU's linear_before_reset (both of its step
// shapes), clip, both layouts, sequence_lens with padded and empty rows, batches that are not a
// multiple of the kernel's row groups, hidden sizes that are not a multiple of its column
// blocks, X dims known only at run time, unused outputs; other activations and computed weights
// are declined (the reference kernel runs them).
// Tolerance as cpu_vs_reference_test.cc's, with the reduction length I + H (each step's gates
// sum over the input and the previous state).
#include "tests/ops/cpu_vs_reference_util.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

namespace kiln::cpu {
namespace {

using namespace vs_reference;  // NOLINT(build/namespaces): the test helpers
using kernels::DataType;
using kernels::HostTensor;

struct Sizes {
  int64_t t, b, i, h;
};

HostTensor Lens(std::vector<int32_t> v) {
  HostTensor t(DataType::kInt32, {static_cast<int64_t>(v.size())});
  std::memcpy(t.bytes.data(), v.data(), v.size() * sizeof(int32_t));
  return t;
}

int64_t Gates(const std::string& op) { return op == "LSTM" ? 4 : op == "GRU" ? 3 : 1; }

// LSTM (gates 4), GRU (3) or RNN (1) over X [T, B, I] with constant W, R (and B, P when asked).
Node Recurrent(const std::string& op, Sizes s, const std::string& direction, bool bias,
               bool initial, uint32_t seed, bool peephole = false) {
  const int64_t g = Gates(op), d = direction == "bidirectional" ? 2 : 1;
  Node n(op, 14);
  n.In(Random({s.t, s.b, s.i}, seed))
      .Const(Random({d, g * s.h, s.i}, seed + 1))
      .Const(Random({d, g * s.h, s.h}, seed + 2));
  bias ? n.Const(Random({d, 2 * g * s.h}, seed + 3)) : n.None();
  n.None();  // sequence_lens
  if (initial) {
    n.In(Random({d, s.b, s.h}, seed + 4));
    if (op == "LSTM") n.In(Random({d, s.b, s.h}, seed + 5));
  } else {
    n.None();
    if (op == "LSTM") n.None();
  }
  if (peephole) n.Const(Random({d, 3 * s.h}, seed + 6));
  n.Int("hidden_size", s.h).Str("direction", direction);
  n.Outputs(op == "LSTM" ? std::vector<DataType>(3, DataType::kFloat32)
                         : std::vector<DataType>(2, DataType::kFloat32));
  return n;
}

constexpr Sizes kSmall{5, 3, 7, 6};

TEST(CpuLstmTest, EveryDirectionWithBiasAndInitialStates) {
  for (const char* dir : {"forward", "reverse", "bidirectional"}) {
    SCOPED_TRACE(dir);
    Recurrent("LSTM", kSmall, dir, true, true, 10).Check(kSmall.i + kSmall.h);
  }
}

TEST(CpuLstmTest, WithoutBiasOrInitialStates) {
  Recurrent("LSTM", {4, 2, 16, 32}, "forward", false, false, 20).Check(48);
  Recurrent("LSTM", {4, 2, 16, 32}, "bidirectional", false, false, 21).Check(48);
}

TEST(CpuLstmTest, Peepholes) {
  Recurrent("LSTM", kSmall, "forward", true, true, 30, true).Check(13);
  Recurrent("LSTM", {3, 2, 5, 8}, "bidirectional", true, false, 31, true).Check(13);
}

TEST(CpuLstmTest, LongSequenceBatchOne) {
  Recurrent("LSTM", {64, 1, 32, 64}, "bidirectional", true, false, 40).Check(96);
}

TEST(CpuGruTest, EveryDirectionBothResetOrders) {
  for (int lbr : {0, 1}) {
    for (const char* dir : {"forward", "reverse", "bidirectional"}) {
      SCOPED_TRACE(std::string(dir) + " linear_before_reset=" + std::to_string(lbr));
      Recurrent("GRU", kSmall, dir, true, true, 50).Int("linear_before_reset", lbr).Check(13);
    }
  }
}

TEST(CpuGruTest, WithoutBiasOrInitialState) {
  Recurrent("GRU", {6, 2, 9, 16}, "forward", false, false, 60).Check(25);
  Recurrent("GRU", {6, 2, 9, 16}, "reverse", false, false, 61)
      .Int("linear_before_reset", 1)
      .Check(25);
}

// An LSTM or RNN with sequence_lens, X [T, B, I] or (layout 1) [B, T, I].
Node WithLens(const std::string& op, Sizes s, const std::string& direction,
              std::vector<int32_t> lens, int64_t layout, bool initial, uint32_t seed) {
  const int64_t g = Gates(op), d = direction == "bidirectional" ? 2 : 1;
  const Dims x = layout ? Dims{s.b, s.t, s.i} : Dims{s.t, s.b, s.i};
  const Dims state = layout ? Dims{s.b, d, s.h} : Dims{d, s.b, s.h};
  Node n(op, 14);
  n.In(Random(x, seed))
      .Const(Random({d, g * s.h, s.i}, seed + 1))
      .Const(Random({d, g * s.h, s.h}, seed + 2))
      .Const(Random({d, 2 * g * s.h}, seed + 3))
      .In(Lens(std::move(lens)));
  if (initial) {
    n.In(Random(state, seed + 4));
    if (op == "LSTM") n.In(Random(state, seed + 5));
  }
  n.Int("hidden_size", s.h).Str("direction", direction).Int("layout", layout);
  n.Outputs(std::vector<DataType>(op == "LSTM" ? 3 : 2, DataType::kFloat32));
  return n;
}

// Rows shorter than the sequence (padding: zeros in Y past a row's length) and empty rows (zero
// final states), six rows (a group of four and a remainder), both layouts.
TEST(CpuRecurrentTest, SequenceLensPaddedAndEmptyRowsBothLayouts) {
  for (const char* op : {"LSTM", "GRU", "RNN"}) {
    for (int64_t layout : {0, 1}) {
      for (const char* dir : {"forward", "reverse", "bidirectional"}) {
        SCOPED_TRACE(std::string(op) + " " + dir + " layout " + std::to_string(layout));
        WithLens(op, {5, 6, 7, 6}, dir, {5, 2, 0, 5, 3, 1}, layout, true, 70).Check(13);
        WithLens(op, {5, 6, 7, 6}, dir, {5, 5, 5, 5, 5, 5}, layout, false, 71).Check(13);
      }
    }
  }
}

TEST(CpuLstmTest, ClipAndInputForget) {
  // Gate sums of random weights reach beyond 0.5: the clip binds.
  Recurrent("LSTM", kSmall, "bidirectional", true, true, 90).Float("clip", 0.5f).Check(13);
  Recurrent("LSTM", kSmall, "forward", true, true, 91, true).Int("input_forget", 1).Check(13);
  Recurrent("LSTM", kSmall, "reverse", true, false, 92, true)
      .Int("input_forget", 1)
      .Float("clip", 0.3f)
      .Check(13);
}

// 4H = 160 columns: two full column blocks and a padded one; nine rows: two groups and one.
TEST(CpuLstmTest, HiddenAndBatchOffTheKernelsBlocks) {
  Recurrent("LSTM", {7, 9, 24, 40}, "bidirectional", true, true, 93, true).Check(64);
  Recurrent("RNN", {7, 9, 24, 40}, "forward", true, true, 94).Check(64);
  // GRU: z and r's 80 columns in two blocks (one padded), h's 40 in one.
  for (int lbr : {0, 1}) {
    Recurrent("GRU", {7, 9, 24, 40}, "bidirectional", true, true, 97)
        .Int("linear_before_reset", lbr)
        .Check(64);
  }
}

// Steps big enough that the threads share each one (nn_recurrent.cc kShareStepMinFlops: 2 x
// rows x gates x H^2 >= 2^20 with fewer items than threads; these run on two threads or more),
// GRU's four-barrier step included, with a padded row and a hidden size that splits unevenly.
TEST(CpuRecurrentTest, StepsSharedByTheThreads) {
  Recurrent("LSTM", {4, 1, 8, 363}, "forward", true, true, 140, true).Check(371);
  Recurrent("LSTM", {3, 2, 8, 363}, "reverse", true, false, 141).Int("layout", 0).Check(371);
  for (int lbr : {0, 1}) {
    SCOPED_TRACE(lbr);
    Recurrent("GRU", {3, 1, 8, 420}, "forward", true, true, 142)
        .Int("linear_before_reset", lbr)
        .Check(428);
    WithLens("GRU", {3, 3, 8, 420}, "forward", {3, 1, 2}, 0, true, 143)
        .Int("linear_before_reset", lbr)
        .Check(428);
  }
  Recurrent("RNN", {3, 1, 8, 730}, "forward", true, true, 144).Check(738);
}

// X's sequence and batch known only at run time: the plan is built for the run's dims.
TEST(CpuLstmTest, DimsKnownAtRunTime) {
  Recurrent("LSTM", {6, 3, 8, 16}, "bidirectional", true, true, 95)
      .Planned(0, {-1, -1, 8})
      .Check(24);
}

// Y alone, or Y_h alone, as a graph may use them.
TEST(CpuLstmTest, UnusedOutputs) {
  for (std::vector<bool> used :
       {std::vector<bool>{true, false, false}, {false, true, false}, {false, false, true}}) {
    Node n = Recurrent("LSTM", kSmall, "bidirectional", true, true, 96);
    n.def().has_output = used;
    n.Check(13);
  }
}

TEST(CpuRnnTest, EveryDirectionWithAndWithoutBiasAndInitialState) {
  for (const char* dir : {"forward", "reverse", "bidirectional"}) {
    SCOPED_TRACE(dir);
    Recurrent("RNN", kSmall, dir, true, true, 100).Check(13);
    Recurrent("RNN", {4, 2, 16, 32}, dir, false, false, 101).Check(48);
  }
  Recurrent("RNN", kSmall, "forward", true, true, 102).Float("clip", 0.5f).Check(13);
}

TEST(CpuGruTest, ClipLayoutOneAndPaddedSequences) {
  for (int lbr : {0, 1}) {
    SCOPED_TRACE(lbr);
    Recurrent("GRU", kSmall, "bidirectional", true, true, 120)
        .Int("linear_before_reset", lbr)
        .Float("clip", 0.4f)
        .Check(13);
    WithLens("GRU", {5, 6, 7, 6}, "reverse", {5, 2, 0, 5, 3, 1}, 1, true, 121)
        .Int("linear_before_reset", lbr)
        .Check(13);
  }
}

TEST(CpuRecurrentTest, DeclinesWhatTheKernelsDoNotExpress) {
  Recurrent("GRU", kSmall, "forward", true, false, 112)
      .Attr("activations", std::vector<std::string>{"relu", "tanh"})
      .Check(13, Expect::kDeclined);
  Recurrent("LSTM", kSmall, "forward", true, false, 113)
      .Attr("activations", std::vector<std::string>{"sigmoid", "relu", "tanh"})
      .Check(13, Expect::kDeclined);
  Recurrent("RNN", kSmall, "forward", true, false, 114)
      .Attr("activations", std::vector<std::string>{"relu"})
      .Check(13, Expect::kDeclined);
  Recurrent("RNN", kSmall, "forward", true, false, 115)
      .Attr("activations", std::vector<std::string>{"tanh"})
      .Attr("activation_alpha", std::vector<float>{2.0f})
      .Check(13, Expect::kDeclined);
  // Computed weights.
  for (const char* op : {"LSTM", "GRU", "RNN"}) {
    const int64_t g = Gates(op);
    Node computed(op, 14);
    computed.In(Random({kSmall.t, kSmall.b, kSmall.i}, 116))
        .In(Random({1, g * kSmall.h, kSmall.i}, 117))
        .Const(Random({1, g * kSmall.h, kSmall.h}, 118))
        .Int("hidden_size", kSmall.h)
        .Outputs(std::vector<DataType>(g == 4 ? 3 : 2, DataType::kFloat32));
    computed.Check(13, Expect::kDeclined);
  }
}

}  // namespace
}  // namespace kiln::cpu
