// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The CPU backend's oneDNN LSTM and GRU against the reference kernels (the oracle): every
// direction, with and without bias and initial states, LSTM's peepholes, GRU's
// linear_before_reset, batch > 1, every output; sequence_lens equal to the sequence runs on
// oneDNN and shorter ones on the reference kernel; layout 1, clip, other activations and
// computed weights are declined at Prepare. Tolerance as cpu_vs_reference_test.cc's, with the
// reduction length I + H (each step's gates sum over the input and the previous state).
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

// LSTM (gates 4) or GRU (gates 3) over X [T, B, I] with constant W, R (and B, P when asked).
Node Recurrent(const std::string& op, Sizes s, const std::string& direction, bool bias,
               bool initial, uint32_t seed, bool peephole = false) {
  const int64_t g = op == "LSTM" ? 4 : 3, d = direction == "bidirectional" ? 2 : 1;
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

// sequence_lens at the sequence's length is the plain run; shorter rows (padding) need the
// reference kernel's per-row lengths.
TEST(CpuRecurrentTest, SequenceLensFullRunOnOneDnnShorterOnTheReference) {
  // Built directly: sequence_lens is the fifth input.
  for (const char* op : {"LSTM", "GRU"}) {
    SCOPED_TRACE(op);
    const int64_t g = std::string(op) == "LSTM" ? 4 : 3;
    for (bool full : {true, false}) {
      Node n(op, 14);
      n.In(Random({kSmall.t, kSmall.b, kSmall.i}, 80))
          .Const(Random({1, g * kSmall.h, kSmall.i}, 81))
          .Const(Random({1, g * kSmall.h, kSmall.h}, 82))
          .Const(Random({1, 2 * g * kSmall.h}, 83))
          .In(Lens(full ? std::vector<int32_t>{5, 5, 5} : std::vector<int32_t>{5, 2, 4}));
      n.Int("hidden_size", kSmall.h);
      n.Outputs(std::vector<DataType>(g == 4 ? 3 : 2, DataType::kFloat32));
      n.Check(13, full ? Expect::kOneDnn : Expect::kReference);
    }
  }
}

TEST(CpuRecurrentTest, DeclinesWhatOneDnnDoesNotExpress) {
  Recurrent("LSTM", kSmall, "forward", true, false, 90)
      .Int("layout", 1)
      .Check(13, Expect::kDeclined);
  Recurrent("LSTM", kSmall, "forward", true, false, 91)
      .Float("clip", 0.5f)
      .Check(13, Expect::kDeclined);
  Recurrent("LSTM", kSmall, "forward", true, false, 92)
      .Int("input_forget", 1)
      .Check(13, Expect::kDeclined);
  Recurrent("GRU", kSmall, "forward", true, false, 93)
      .Attr("activations", std::vector<std::string>{"relu", "tanh"})
      .Check(13, Expect::kDeclined);
  // Computed weights.
  Node computed("LSTM", 14);
  computed.In(Random({kSmall.t, kSmall.b, kSmall.i}, 94))
      .In(Random({1, 4 * kSmall.h, kSmall.i}, 95))
      .Const(Random({1, 4 * kSmall.h, kSmall.h}, 96))
      .Int("hidden_size", kSmall.h)
      .Outputs(std::vector<DataType>(3, DataType::kFloat32));
  computed.Check(13, Expect::kDeclined);
}

}  // namespace
}  // namespace kiln::cpu
