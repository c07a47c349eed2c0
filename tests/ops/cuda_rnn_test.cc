// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The CUDA LSTM against the reference kernel (label gpu; skipped where the machine has no GPU):
// every direction, with and without B and the initial states, sequence_lens with unequal and
// empty rows, peepholes, input_forget, clip, both layouts, opsets 7, 14 and 22, unused outputs,
// Silero VAD's shape (one step, batch 1, 128 inputs and units) and longer runs of it, sizes that
// are not a multiple of the warp; every used output compared within 1e-5 relative. Without a GPU
// the CUDA kernel is still prepared for each case. Declines (other activations, a constant
// sequence_lens out of range) are checked at Prepare and run everywhere.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "tests/ops/cuda_vs_reference.h"

namespace kiln::cuda::testing {
namespace {

using kernels::testing::Def;

struct Sizes {
  int64_t seq, batch, input, hidden;
};

struct Options {
  std::string direction = "forward";
  bool bias = true, initial_h = true, initial_c = true, peepholes = false;
  bool batch_first = false;
  std::vector<int32_t> lens;  // empty: no sequence_lens
  bool input_forget = false;
  float clip = 0;  // 0: no clip attribute
  std::vector<std::string> activations;
  bool used[3] = {true, true, true};  // Y, Y_h, Y_c
  int opset = 14;
  unsigned seed = 1;
};

HostTensor Lens(const std::vector<int32_t>& v) {
  HostTensor t(DataType::kInt32, {static_cast<int64_t>(v.size())});
  if (!v.empty()) std::memcpy(t.bytes.data(), v.data(), v.size() * sizeof(int32_t));
  return t;
}

// The inputs of one LSTM node, made in place (ptrs points into it); null for the omitted ones.
struct Inputs {
  Inputs(const Sizes& s, const Options& o);
  Inputs(const Inputs&) = delete;
  Inputs& operator=(const Inputs&) = delete;
  HostTensor x, w, r, b, lens, h0, c0, p;
  std::vector<const HostTensor*> ptrs;
};

Inputs::Inputs(const Sizes& s, const Options& o) {
  const int64_t d = o.direction == "bidirectional" ? 2 : 1, g = 4 * s.hidden;
  // Weights scaled to the row length, so gates sit in the activations' curved range.
  const float wa = 1.5f / std::sqrt(static_cast<float>(s.input));
  const float ra = 1.5f / std::sqrt(static_cast<float>(s.hidden));
  const Dims state = o.batch_first ? Dims{s.batch, d, s.hidden} : Dims{d, s.batch, s.hidden};
  x = Random(o.batch_first ? Dims{s.batch, s.seq, s.input} : Dims{s.seq, s.batch, s.input}, -1, 1,
             o.seed);
  w = Random({d, g, s.input}, -wa, wa, o.seed + 1);
  r = Random({d, g, s.hidden}, -ra, ra, o.seed + 2);
  b = Random({d, 2 * g}, -0.5f, 0.5f, o.seed + 3);
  lens = Lens(o.lens);
  h0 = Random(state, -1, 1, o.seed + 4);
  c0 = Random(state, -1, 1, o.seed + 5);
  p = Random({d, 3 * s.hidden}, -0.5f, 0.5f, o.seed + 6);
  ptrs = {&x,
          &w,
          &r,
          o.bias ? &b : nullptr,
          o.lens.empty() ? nullptr : &lens,
          o.initial_h ? &h0 : nullptr,
          o.initial_c ? &c0 : nullptr,
          o.peepholes ? &p : nullptr};
  // Trailing omitted inputs are left off, as a model leaves them.
  while (ptrs.back() == nullptr) ptrs.pop_back();
}

NodeDef LstmDef(const Sizes& s, const Options& o, const Inputs& in) {
  std::vector<DataType> outs;
  for (bool used : o.used) outs.push_back(used ? DataType::kFloat32 : DataType::kUndefined);
  NodeDef def = Def("LSTM", in.ptrs, outs, o.opset);
  def.attrs["hidden_size"] = s.hidden;
  def.attrs["direction"] = o.direction;
  if (o.opset >= 14) def.attrs["layout"] = static_cast<int64_t>(o.batch_first ? 1 : 0);
  if (o.input_forget) def.attrs["input_forget"] = static_cast<int64_t>(1);
  if (o.clip > 0) def.attrs["clip"] = o.clip;
  if (!o.activations.empty()) def.attrs["activations"] = o.activations;
  return def;
}

class CudaRnnTest : public CudaVsReference {
 protected:
  // Runs the case on both kernels and compares every used output.
  void Check(const Sizes& s, const Options& o, const std::string& what) {
    SCOPED_TRACE(what);
    const Inputs in(s, o);
    auto all = RunAll(LstmDef(s, o, in), in.ptrs);
    if (!all) return;
    ASSERT_EQ(all->size(), 3u);
    static const char* const kNames[] = {"Y", "Y_h", "Y_c"};
    for (size_t i = 0; i < 3; ++i) {
      if (o.used[i]) ExpectClose(Ran(std::move((*all)[i])), 1e-5f, what + " " + kNames[i]);
    }
  }
};

// Prepare-time checks, which need no GPU: these pass here as on a GPU.
class CudaRnnPrepareTest : public CudaRnnTest {
 protected:
  void TearDown() override {}
  Status PrepareCuda(NodeDef def) {
    hal::testing::ApartDevice no_gpu(kCudaBackend);
    def.device = &no_gpu;
    auto kernel = kernels::KernelRegistry::Global().Create(kCudaBackend, def);
    return kernel.ok() ? Status::Ok() : kernel.status();
  }
};

constexpr Sizes kSmall{5, 3, 7, 6};
const char* const kDirections[] = {"forward", "reverse", "bidirectional"};

TEST_F(CudaRnnTest, EveryDirectionWithBiasAndInitialStates) {
  for (const char* dir : kDirections) {
    Options o;
    o.direction = dir;
    o.seed = 10;
    Check(kSmall, o, dir);
  }
}

TEST_F(CudaRnnTest, WithoutBiasOrInitialStates) {
  for (const char* dir : kDirections) {
    Options o;
    o.direction = dir;
    o.bias = o.initial_h = o.initial_c = false;
    o.seed = 20;
    Check({4, 2, 16, 32}, o, std::string(dir) + " bare");
    // One initial state without the other.
    o.initial_h = true;
    Check(kSmall, o, std::string(dir) + " initial_h only");
    o.initial_h = false;
    o.initial_c = true;
    Check(kSmall, o, std::string(dir) + " initial_c only");
  }
}

TEST_F(CudaRnnTest, UnequalSequenceLengths) {
  for (const char* dir : kDirections) {
    for (bool batch_first : {false, true}) {
      Options o;
      o.direction = dir;
      o.batch_first = batch_first;
      o.lens = {5, 3, 0, 1};
      o.seed = 30;
      Check({5, 4, 7, 6}, o, std::string(dir) + (batch_first ? " layout 1" : " layout 0"));
    }
  }
  // Every row full length, given explicitly.
  Options o;
  o.direction = "bidirectional";
  o.lens = {4, 4};
  Check({4, 2, 5, 3}, o, "full lengths");
}

TEST_F(CudaRnnTest, Peepholes) {
  for (const char* dir : kDirections) {
    Options o;
    o.direction = dir;
    o.peepholes = true;
    o.seed = 40;
    Check(kSmall, o, dir);
  }
  Options o;
  o.direction = "bidirectional";
  o.peepholes = true;
  o.initial_h = o.initial_c = false;
  o.lens = {3, 1};
  Check({3, 2, 5, 8}, o, "peepholes, lengths, no initial states");
}

TEST_F(CudaRnnTest, InputForgetAndClip) {
  for (const char* dir : kDirections) {
    Options o;
    o.direction = dir;
    o.input_forget = true;
    o.seed = 50;
    Check(kSmall, o, std::string(dir) + " input_forget");
    o.input_forget = false;
    o.clip = 0.5f;  // small enough to bind on most gates
    Check(kSmall, o, std::string(dir) + " clip");
    o.input_forget = true;
    o.peepholes = true;
    Check(kSmall, o, std::string(dir) + " input_forget, clip, peepholes");
  }
}

TEST_F(CudaRnnTest, BatchFirstLayout) {
  for (const char* dir : kDirections) {
    Options o;
    o.direction = dir;
    o.batch_first = true;
    o.peepholes = true;
    o.seed = 60;
    Check(kSmall, o, dir);
    o.opset = 22;
    Check(kSmall, o, std::string(dir) + " opset 22");
  }
}

TEST_F(CudaRnnTest, Opset7) {
  for (const char* dir : kDirections) {
    Options o;
    o.direction = dir;
    o.opset = 7;
    o.seed = 70;
    Check(kSmall, o, dir);
  }
}

TEST_F(CudaRnnTest, UnusedOutputs) {
  const bool used[][3] = {
      {false, true, false}, {false, false, true}, {true, false, false}, {false, true, true}};
  for (const char* dir : {"forward", "bidirectional"}) {
    for (const auto& u : used) {
      Options o;
      o.direction = dir;
      o.lens = {5, 2, 4};
      std::copy(u, u + 3, o.used);
      o.seed = 80;
      Check(kSmall, o,
            std::string(dir) + " used " + std::to_string(u[0]) + std::to_string(u[1]) +
                std::to_string(u[2]));
    }
  }
}

// Silero VAD's LSTM: one step of batch 1 with 128 inputs and units, its states carried in.
TEST_F(CudaRnnTest, SileroShape) {
  Options o;
  o.seed = 90;
  Check({1, 1, 128, 128}, o, "silero");
  o.initial_h = o.initial_c = false;
  Check({1, 1, 128, 128}, o, "silero, first chunk");
  // Longer runs at that width (the scratch states between steps), more rows, both directions.
  o.initial_h = o.initial_c = true;
  Check({8, 1, 128, 128}, o, "8 steps");
  o.direction = "bidirectional";
  o.lens = {6, 8, 1};
  Check({8, 3, 128, 128}, o, "bidirectional, 3 rows");
}

// Row lengths that are not a multiple of the warp, and wider than it.
TEST_F(CudaRnnTest, OddSizes) {
  for (const char* dir : kDirections) {
    Options o;
    o.direction = dir;
    o.peepholes = true;
    o.seed = 100;
    Check({3, 2, 37, 45}, o, std::string(dir) + " 37 x 45");
    Check({2, 5, 1, 1}, o, std::string(dir) + " 1 x 1");
  }
}

TEST_F(CudaRnnTest, ExplicitDefaultActivations) {
  Options o;
  o.activations = {"Sigmoid", "Tanh", "Tanh"};
  Check(kSmall, o, "forward, one list");
  o.direction = "bidirectional";
  Check(kSmall, o, "bidirectional, one list for both");
  o.activations = {"sigmoid", "TANH", "tanh", "Sigmoid", "Tanh", "Tanh"};
  Check(kSmall, o, "bidirectional, two lists");
  // With one direction the second list is unused (the reference reads the first only).
  o.direction = "forward";
  o.activations = {"Sigmoid", "Tanh", "Tanh", "Relu", "Relu", "Relu"};
  Check(kSmall, o, "forward, an unused second list");
}

TEST_F(CudaRnnPrepareTest, DeclinesOtherActivations) {
  struct Case {
    const char* direction;
    std::vector<std::string> names;
    const char* named;  // in the message
  };
  const Case cases[] = {
      {"forward", {"Relu", "Tanh", "Tanh"}, "Relu"},
      {"forward", {"Sigmoid", "HardSigmoid", "Tanh"}, "HardSigmoid"},
      {"reverse", {"Sigmoid", "Tanh", "Softsign"}, "Softsign"},
      {"bidirectional", {"Sigmoid", "Tanh", "Tanh", "HardSigmoid", "Tanh", "Tanh"}, "HardSigmoid"},
  };
  for (const Case& c : cases) {
    Options o;
    o.direction = c.direction;
    o.activations = c.names;
    const Inputs in(kSmall, o);
    Status s = PrepareCuda(LstmDef(kSmall, o, in));
    EXPECT_EQ(s.code(), code::kFeatureUnsupported) << c.direction << ": " << s.message();
    EXPECT_NE(s.message().find("activations"), std::string::npos) << s.message();
    EXPECT_NE(s.message().find(c.named), std::string::npos) << s.message();
  }
}

TEST_F(CudaRnnPrepareTest, DeclinesOtherTypes) {
  Options o;
  const Inputs in(kSmall, o);
  NodeDef def = LstmDef(kSmall, o, in);
  for (DataType& t : def.input_types) t = DataType::kFloat64;  // X, W, R, B, initial states
  def.output_types.assign(3, DataType::kFloat64);
  Status s = PrepareCuda(def);
  EXPECT_EQ(s.code(), code::kFeatureUnsupported) << s.message();
}

TEST_F(CudaRnnPrepareTest, ChecksAConstantSequenceLensAtLoad) {
  Options o;
  o.lens = {5, 6, 2};  // seq is 5
  const Inputs in(kSmall, o);
  NodeDef def = LstmDef(kSmall, o, in);
  const TensorView lens = in.lens.view();
  def.constants[4] = &lens;
  Status s = PrepareCuda(def);
  EXPECT_EQ(s.code(), code::kInvalidParam) << s.message();
  EXPECT_NE(s.message().find("sequence_lens[1] = 6"), std::string::npos) << s.message();
  // In range, it is taken.
  HostTensor good = Lens({5, 0, 2});
  const TensorView good_view = good.view();
  def.constants[4] = &good_view;
  EXPECT_TRUE(PrepareCuda(def).ok());
}

}  // namespace
}  // namespace kiln::cuda::testing
