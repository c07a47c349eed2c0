// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Reference kernels of the state_space family (LinearAttention, CausalConvWithState): small
// cases worked by hand in the comments, and longer sequences checked against the recurrences as
// the ONNX spec writes them, computed here in double.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "kernel_test_util.h"

namespace kiln::kernels {
namespace {

using testing::BFloats;
using testing::BFloatValues;
using testing::Def;
using testing::F32;
using testing::Halfs;
using testing::HalfValues;
using testing::Make;
using testing::RunReference;
using testing::Values;

constexpr int kOpset = 27;

std::vector<HostTensor> RunOk(const NodeDef& def, const std::vector<const HostTensor*>& inputs) {
  auto out = RunReference(def, inputs);
  EXPECT_TRUE(out.ok()) << out.status().message();
  return out.ok() ? *out : std::vector<HostTensor>(def.num_outputs());
}

void ExpectNear(const std::vector<float>& got, const std::vector<double>& want, double tol,
                const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_NEAR(got[i], want[i], tol * (1 + std::fabs(want[i]))) << what << " [" << i << "]";
  }
}

// Deterministic values in [lo, hi).
std::vector<float> Ramp(size_t n, float lo, float hi, unsigned seed) {
  std::vector<float> v(n);
  uint32_t x = seed * 2654435761u + 1;
  for (float& f : v) {
    x = x * 1664525u + 1013904223u;
    f = lo + (hi - lo) * static_cast<float>(x >> 8) / static_cast<float>(1u << 24);
  }
  return v;
}

// ---- LinearAttention ------------------------------------------------------------------------

// A LinearAttention node over `in` (null: omitted) with float32 outputs unless `types` says.
NodeDef AttentionDef(const std::vector<const HostTensor*>& in, int64_t hq, int64_t hkv,
                     const char* rule,
                     std::vector<DataType> types = {DataType::kFloat32, DataType::kFloat32}) {
  NodeDef def = Def("LinearAttention", in, std::move(types), kOpset);
  def.attrs["q_num_heads"] = hq;
  def.attrs["kv_num_heads"] = hkv;
  def.attrs["update_rule"] = std::string(rule);
  return def;
}

TEST(StateSpaceKernelTest, LinearRuleOneHeadOneStep) {
  // S = k ⊗ v = [[3*5, 3*6], [4*5, 4*6]] = [[15, 18], [20, 24]];
  // o = 0.5 * q^T S = 0.5 * [1*15 + 2*20, 1*18 + 2*24] = [27.5, 33].
  HostTensor q = F32({1, 1, 2}, {1, 2}), k = F32({1, 1, 2}, {3, 4}), v = F32({1, 1, 2}, {5, 6});
  NodeDef def = AttentionDef({&q, &k, &v}, 1, 1, "linear");
  def.attrs["scale"] = 0.5f;
  std::vector<HostTensor> out = RunOk(def, {&q, &k, &v});
  EXPECT_EQ(out[0].dims, (Dims{1, 1, 2}));
  EXPECT_EQ(Values<float>(out[0]), (std::vector<float>{27.5f, 33}));
  EXPECT_EQ(out[1].dims, (Dims{1, 1, 2, 2}));
  EXPECT_EQ(Values<float>(out[1]), (std::vector<float>{15, 18, 20, 24}));
}

TEST(StateSpaceKernelTest, GatedRuleDecaysThePastStatePerHead) {
  // S = exp(ln 2) * [[1, 2], [3, 4]] + [1, 0] ⊗ [1, 1] = [[3, 5], [6, 8]];
  // o = q^T S / sqrt(dk) (the default scale) = [3 + 6, 5 + 8] / sqrt(2).
  HostTensor q = F32({1, 1, 2}, {1, 1}), k = F32({1, 1, 2}, {1, 0}), v = F32({1, 1, 2}, {1, 1});
  HostTensor past = F32({1, 1, 2, 2}, {1, 2, 3, 4}), g = F32({1, 1, 1}, {std::log(2.0f)});
  std::vector<HostTensor> out =
      RunOk(AttentionDef({&q, &k, &v, &past, &g}, 1, 1, "gated"), {&q, &k, &v, &past, &g});
  ExpectNear(Values<float>(out[0]), {9 / std::sqrt(2.0), 13 / std::sqrt(2.0)}, 1e-6, "output");
  ExpectNear(Values<float>(out[1]), {3, 5, 6, 8}, 1e-6, "present_state");
}

TEST(StateSpaceKernelTest, DeltaRuleWritesTheCorrection) {
  // S^T k = [1, 2]; v' = 0.5 * ([10, 20] - [1, 2]) = [4.5, 9];
  // S = [[1, 2], [3, 4]] + [1, 0] ⊗ v' = [[5.5, 11], [3, 4]]; o = [0, 1]^T S = [3, 4].
  HostTensor q = F32({1, 1, 2}, {0, 1}), k = F32({1, 1, 2}, {1, 0}), v = F32({1, 1, 2}, {10, 20});
  HostTensor past = F32({1, 1, 2, 2}, {1, 2, 3, 4}), beta = F32({1, 1, 1}, {0.5f});
  NodeDef def = AttentionDef({&q, &k, &v, &past, nullptr, &beta}, 1, 1, "delta");
  def.attrs["scale"] = 1.0f;
  std::vector<HostTensor> out = RunOk(def, {&q, &k, &v, &past, nullptr, &beta});
  EXPECT_EQ(Values<float>(out[0]), (std::vector<float>{3, 4}));
  EXPECT_EQ(Values<float>(out[1]), (std::vector<float>{5.5f, 11, 3, 4}));
}

TEST(StateSpaceKernelTest, GatedDeltaRuleDecaysEachKeyRow) {
  // Per-element decay [ln 2, 0]: row 0 doubles, row 1 stays: [[2, 4], [3, 4]].
  // S^T k = row 1 = [3, 4]; v' = 1 * ([5, 5] - [3, 4]) = [2, 1]; S = [[2, 4], [5, 5]];
  // o = [1, 1]^T S = [7, 9].
  HostTensor q = F32({1, 1, 2}, {1, 1}), k = F32({1, 1, 2}, {0, 1}), v = F32({1, 1, 2}, {5, 5});
  HostTensor past = F32({1, 1, 2, 2}, {1, 2, 3, 4});
  HostTensor g = F32({1, 1, 2}, {std::log(2.0f), 0}), beta = F32({1, 1, 1}, {1});
  NodeDef def = AttentionDef({&q, &k, &v, &past, &g, &beta}, 1, 1, "gated_delta");
  def.attrs["scale"] = 1.0f;
  std::vector<HostTensor> out = RunOk(def, {&q, &k, &v, &past, &g, &beta});
  ExpectNear(Values<float>(out[0]), {7, 9}, 1e-6, "output");
  ExpectNear(Values<float>(out[1]), {2, 4, 5, 5}, 1e-6, "present_state");
}

TEST(StateSpaceKernelTest, QueryHeadsShareTheirGroupsKeyValueHead) {
  // Hq = 4, Hkv = 2, dk = dv = 1: the states are [1 * 10, 1 * 100]; query heads 0 and 1 read
  // the first, 2 and 3 the second: o = [1 * 10, 2 * 10, 3 * 100, 4 * 100].
  HostTensor q = F32({1, 1, 4}, {1, 2, 3, 4}), k = F32({1, 1, 2}, {1, 1});
  HostTensor v = F32({1, 1, 2}, {10, 100});
  NodeDef def = AttentionDef({&q, &k, &v}, 4, 2, "linear");
  def.attrs["scale"] = 1.0f;
  std::vector<HostTensor> out = RunOk(def, {&q, &k, &v});
  EXPECT_EQ(Values<float>(out[0]), (std::vector<float>{10, 20, 300, 400}));
  EXPECT_EQ(out[1].dims, (Dims{1, 2, 1, 1}));
  EXPECT_EQ(Values<float>(out[1]), (std::vector<float>{10, 100}));
}

TEST(StateSpaceKernelTest, PresentStateLeftOutIsSkipped) {
  HostTensor q = F32({1, 1, 2}, {1, 2}), k = F32({1, 1, 2}, {3, 4}), v = F32({1, 1, 2}, {5, 6});
  NodeDef def =
      AttentionDef({&q, &k, &v}, 1, 1, "linear", {DataType::kFloat32, DataType::kUndefined});
  def.attrs["scale"] = 0.5f;
  std::vector<HostTensor> out = RunOk(def, {&q, &k, &v});
  EXPECT_EQ(Values<float>(out[0]), (std::vector<float>{27.5f, 33}));
  EXPECT_TRUE(out[1].bytes.empty());
}

// The spec's recurrence, in double, for every rule: per batch and key/value head, per token,
//   gated:  S = exp(g) * S + k ⊗ v
//   delta:  S = S + beta * k ⊗ (v - S^T k)
//   gated_delta:  S = exp(g) * S + beta * k ⊗ (v - exp(g) * S^T k)
//   output = scale * q^T S for each query head of the group.
struct Recurrence {
  int64_t b, t, hq, hkv, dk, dv;
  std::string rule;
  bool decay_per_head = false, beta_shared = false;
  double scale;

  void Run(const std::vector<float>& q, const std::vector<float>& k, const std::vector<float>& v,
           const std::vector<float>& past, const std::vector<float>& g,
           const std::vector<float>& beta, std::vector<double>* out,
           std::vector<double>* state) const {
    const bool gated = rule == "gated" || rule == "gated_delta";
    const bool delta = rule == "delta" || rule == "gated_delta";
    out->assign(b * t * hq * dv, 0.0);
    state->assign(b * hkv * dk * dv, 0.0);
    for (size_t i = 0; i < past.size(); ++i) (*state)[i] = past[i];
    for (int64_t n = 0; n < b; ++n) {
      for (int64_t h = 0; h < hkv; ++h) {
        double* s = &(*state)[(n * hkv + h) * dk * dv];
        for (int64_t i = 0; i < t; ++i) {
          const int64_t row = (n * t + i) * hkv + h;
          auto decay = [&](int64_t d) {
            if (!gated) return 1.0;
            return std::exp(static_cast<double>(decay_per_head ? g[row] : g[row * dk + d]));
          };
          const double bt =
              delta ? beta[beta_shared ? n * t + i : row] : 1.0;  // the linear rules write v
          std::vector<double> next(dk * dv);
          for (int64_t m = 0; m < dv; ++m) {
            double retrieved = 0;  // (exp(g) * S)^T k
            for (int64_t d = 0; d < dk; ++d)
              retrieved += decay(d) * s[d * dv + m] * k[row * dk + d];
            const double write = delta ? v[row * dv + m] - retrieved : v[row * dv + m];
            for (int64_t d = 0; d < dk; ++d) {
              next[d * dv + m] = decay(d) * s[d * dv + m] + bt * k[row * dk + d] * write;
            }
          }
          for (int64_t e = 0; e < dk * dv; ++e) s[e] = next[e];
          for (int64_t j = 0; j < hq / hkv; ++j) {
            const int64_t qrow = (n * t + i) * hq + h * (hq / hkv) + j;
            for (int64_t m = 0; m < dv; ++m) {
              double o = 0;
              for (int64_t d = 0; d < dk; ++d) o += q[qrow * dk + d] * s[d * dv + m];
              (*out)[qrow * dv + m] = scale * o;
            }
          }
        }
      }
    }
  }
};

TEST(StateSpaceKernelTest, EveryRuleFollowsTheRecurrenceOverManySteps) {
  // B = 2, T = 5, Hq = 4 sharing Hkv = 2, dk = 3, dv = 2, with a past state; the default scale.
  const int64_t b = 2, t = 5, hq = 4, hkv = 2, dk = 3, dv = 2;
  const std::vector<float> qv = Ramp(b * t * hq * dk, -1, 1, 1),
                           kv = Ramp(b * t * hkv * dk, -1, 1, 2);
  const std::vector<float> vv = Ramp(b * t * hkv * dv, -1, 1, 3);
  const std::vector<float> pv = Ramp(b * hkv * dk * dv, -0.5f, 0.5f, 4);
  const std::vector<float> gv = Ramp(b * t * hkv * dk, -0.7f, 0, 5);
  const std::vector<float> gh = Ramp(b * t * hkv, -0.7f, 0, 6);
  const std::vector<float> bv = Ramp(b * t * hkv, 0, 1, 7), b1 = Ramp(b * t, 0, 1, 8);
  HostTensor q = F32({b, t, hq * dk}, qv), k = F32({b, t, hkv * dk}, kv);
  HostTensor v = F32({b, t, hkv * dv}, vv), past = F32({b, hkv, dk, dv}, pv);
  HostTensor g_elem = F32({b, t, hkv * dk}, gv), g_head = F32({b, t, hkv}, gh);
  HostTensor beta_head = F32({b, t, hkv}, bv), beta_one = F32({b, t, 1}, b1);
  struct Case {
    const char* rule;
    const HostTensor *decay, *beta;
  };
  for (const Case& c : {Case{"linear", nullptr, nullptr}, Case{"gated", &g_elem, nullptr},
                        Case{"gated", &g_head, nullptr}, Case{"delta", nullptr, &beta_head},
                        Case{"delta", nullptr, &beta_one}, Case{"gated_delta", &g_elem, &beta_one},
                        Case{"gated_delta", &g_head, &beta_head}}) {
    const std::string what = std::string(c.rule) + (c.decay == &g_head ? " per-head decay" : "") +
                             (c.beta == &beta_one ? " shared beta" : "");
    std::vector<const HostTensor*> in = {&q, &k, &v, &past, c.decay, c.beta};
    std::vector<HostTensor> out = RunOk(AttentionDef(in, hq, hkv, c.rule), in);
    Recurrence r{
        b, t, hq, hkv, dk, dv, c.rule, c.decay == &g_head, c.beta == &beta_one, 1 / std::sqrt(3.0)};
    std::vector<double> want_out, want_state;
    r.Run(qv, kv, vv, pv, c.decay ? Values<float>(*c.decay) : std::vector<float>{},
          c.beta ? Values<float>(*c.beta) : std::vector<float>{}, &want_out, &want_state);
    ExpectNear(Values<float>(out[0]), want_out, 1e-5, what + " output");
    ExpectNear(Values<float>(out[1]), want_state, 1e-5, what + " present_state");
  }
}

TEST(StateSpaceKernelTest, PrefillThenDecodeEqualsOnePass) {
  // Running tokens 0-2 and then 3-4 from the state the first call left is running all five.
  const int64_t t = 5, h = 2, dk = 2, dv = 3;
  const std::vector<float> qv = Ramp(t * h * dk, -1, 1, 11), kv = Ramp(t * h * dk, -1, 1, 12);
  const std::vector<float> vv = Ramp(t * h * dv, -1, 1, 13), gv = Ramp(t * h, -0.5f, 0, 14);
  const std::vector<float> bv = Ramp(t * h, 0, 1, 15);
  auto slice = [](const std::vector<float>& x, int64_t from, int64_t to, int64_t width) {
    return std::vector<float>(x.begin() + from * width, x.begin() + to * width);
  };
  auto run = [&](int64_t from, int64_t to, const HostTensor* past) {
    const int64_t n = to - from;
    HostTensor q = F32({1, n, h * dk}, slice(qv, from, to, h * dk));
    HostTensor k = F32({1, n, h * dk}, slice(kv, from, to, h * dk));
    HostTensor v = F32({1, n, h * dv}, slice(vv, from, to, h * dv));
    HostTensor g = F32({1, n, h}, slice(gv, from, to, h)),
               b = F32({1, n, h}, slice(bv, from, to, h));
    std::vector<const HostTensor*> in = {&q, &k, &v, past, &g, &b};
    return RunOk(AttentionDef(in, h, h, "gated_delta"), in);
  };
  std::vector<HostTensor> all = run(0, 5, nullptr);
  std::vector<HostTensor> first = run(0, 3, nullptr);
  std::vector<HostTensor> second = run(3, 5, &first[1]);
  std::vector<float> joined = Values<float>(first[0]);
  for (float f : Values<float>(second[0])) joined.push_back(f);
  const std::vector<float> one_pass = Values<float>(all[0]);
  ExpectNear(joined, std::vector<double>(one_pass.begin(), one_pass.end()), 1e-6, "output");
  const std::vector<float> state = Values<float>(all[1]);
  ExpectNear(Values<float>(second[1]), std::vector<double>(state.begin(), state.end()), 1e-6,
             "present_state");
}

TEST(StateSpaceKernelTest, HalfActivationsWithAFloatState) {
  // The one-step linear case in float16, with a float32 past state of zeros: the output is
  // float16, the state float32.
  HostTensor q = Halfs({1, 1, 2}, {1, 2}), k = Halfs({1, 1, 2}, {3, 4}),
             v = Halfs({1, 1, 2}, {5, 6});
  HostTensor past = F32({1, 1, 2, 2}, {0, 0, 0, 0});
  NodeDef def =
      AttentionDef({&q, &k, &v, &past}, 1, 1, "linear", {DataType::kFloat16, DataType::kFloat32});
  def.attrs["scale"] = 0.5f;
  std::vector<HostTensor> out = RunOk(def, {&q, &k, &v, &past});
  EXPECT_EQ(out[0].dtype, DataType::kFloat16);
  EXPECT_EQ(HalfValues(out[0]), (std::vector<float>{27.5f, 33}));
  EXPECT_EQ(Values<float>(out[1]), (std::vector<float>{15, 18, 20, 24}));
  // bfloat16 throughout, no past state: the state takes the activations' type.
  HostTensor qb = BFloats({1, 1, 2}, {1, 2}), kb = BFloats({1, 1, 2}, {3, 4});
  HostTensor vb = BFloats({1, 1, 2}, {5, 6});
  NodeDef defb =
      AttentionDef({&qb, &kb, &vb}, 1, 1, "linear", {DataType::kBFloat16, DataType::kBFloat16});
  defb.attrs["scale"] = 0.5f;
  std::vector<HostTensor> outb = RunOk(defb, {&qb, &kb, &vb});
  EXPECT_EQ(BFloatValues(outb[0]), (std::vector<float>{27.5f, 33}));
  EXPECT_EQ(BFloatValues(outb[1]), (std::vector<float>{15, 18, 20, 24}));
}

TEST(StateSpaceKernelTest, LinearAttentionRefusesABadNodeAtPrepare) {
  // kv_num_heads does not divide q_num_heads: the definition refuses it before the kernel runs.
  HostTensor q = F32({1, 1, 3}, {1, 2, 3}), k = F32({1, 1, 2}, {1, 1}), v = F32({1, 1, 2}, {1, 1});
  EXPECT_EQ(RunReference(AttentionDef({&q, &k, &v}, 3, 2, "linear"), {&q, &k, &v}).status().code(),
            code::kInvalidParam);
}

// ---- CausalConvWithState --------------------------------------------------------------------

NodeDef ConvDef(const std::vector<const HostTensor*>& in, const char* activation = "none",
                DataType type = DataType::kFloat32) {
  NodeDef def = Def("CausalConvWithState", in, {type, type}, kOpset);
  def.attrs["activation"] = std::string(activation);
  return def;
}

TEST(StateSpaceKernelTest, CausalConvPadsWithZerosWithoutPastState) {
  // x' = [0, 0, 1, 2, 3], w = [1, 2, 3]: [0 + 0 + 3, 0 + 2 + 6, 1 + 4 + 9] = [3, 8, 14];
  // present_state = the last k - 1 = 2 of x' = [2, 3].
  HostTensor x = F32({1, 1, 3}, {1, 2, 3}), w = F32({1, 1, 3}, {1, 2, 3});
  std::vector<HostTensor> out = RunOk(ConvDef({&x, &w}), {&x, &w});
  EXPECT_EQ(out[0].dims, (Dims{1, 1, 3}));
  EXPECT_EQ(Values<float>(out[0]), (std::vector<float>{3, 8, 14}));
  EXPECT_EQ(out[1].dims, (Dims{1, 1, 2}));
  EXPECT_EQ(Values<float>(out[1]), (std::vector<float>{2, 3}));
}

TEST(StateSpaceKernelTest, CausalConvContinuesFromPastStateWithBias) {
  // x' = [5, 6, 1, 2, 3], bias 1: [5 + 12 + 3, 6 + 2 + 6, 1 + 4 + 9] + 1 = [21, 15, 15].
  HostTensor x = F32({1, 1, 3}, {1, 2, 3}), w = F32({1, 1, 3}, {1, 2, 3});
  HostTensor bias = F32({1}, {1}), past = F32({1, 1, 2}, {5, 6});
  std::vector<HostTensor> out = RunOk(ConvDef({&x, &w, &bias, &past}), {&x, &w, &bias, &past});
  EXPECT_EQ(Values<float>(out[0]), (std::vector<float>{21, 15, 15}));
  EXPECT_EQ(Values<float>(out[1]), (std::vector<float>{2, 3}));
}

TEST(StateSpaceKernelTest, CausalConvShortInputKeepsPartOfThePastState) {
  // k = 4, one new position: x' = [1, 2, 3, 7]; present_state = [2, 3, 7];
  // output = 1*1 + 1*2 + 1*3 + 2*7 = 20.
  HostTensor x = F32({1, 1, 1}, {7}), w = F32({1, 1, 4}, {1, 1, 1, 2});
  HostTensor past = F32({1, 1, 3}, {1, 2, 3});
  std::vector<HostTensor> out = RunOk(ConvDef({&x, &w, nullptr, &past}), {&x, &w, nullptr, &past});
  EXPECT_EQ(Values<float>(out[0]), (std::vector<float>{20}));
  EXPECT_EQ(Values<float>(out[1]), (std::vector<float>{2, 3, 7}));
}

TEST(StateSpaceKernelTest, CausalConvIsDepthwisePerBatchAndChannel) {
  // B = 2, C = 2, k = 2: channel 0 takes x[l] - x[l - 1], channel 1 takes 10 * x[l] + bias 1,
  // the previous position of each (batch, channel) row from its own past_state.
  HostTensor x = F32({2, 2, 2}, {1, 3, 2, 4, 5, 6, 7, 8});
  HostTensor w = F32({2, 1, 2}, {-1, 1, 0, 10}), bias = F32({2}, {0, 1});
  HostTensor past = F32({2, 2, 1}, {1, 0, 2, 0});
  std::vector<HostTensor> out = RunOk(ConvDef({&x, &w, &bias, &past}), {&x, &w, &bias, &past});
  EXPECT_EQ(Values<float>(out[0]), (std::vector<float>{0, 2, 21, 41, 3, 1, 71, 81}));
  EXPECT_EQ(Values<float>(out[1]), (std::vector<float>{3, 4, 6, 8}));
}

TEST(StateSpaceKernelTest, CausalConvAppliesSiluUnderBothNames) {
  // k = 1, w = 1: output = silu(x) = x / (1 + exp(-x)); nothing is carried.
  HostTensor x = F32({1, 1, 3}, {-2, 0, 3}), w = F32({1, 1, 1}, {1});
  for (const char* name : {"silu", "swish"}) {
    std::vector<HostTensor> out = RunOk(ConvDef({&x, &w}, name), {&x, &w});
    ExpectNear(Values<float>(out[0]), {-2 / (1 + std::exp(2.0)), 0, 3 / (1 + std::exp(-3.0))}, 1e-6,
               name);
    EXPECT_EQ(out[1].dims, (Dims{1, 1, 0}));
  }
}

TEST(StateSpaceKernelTest, CausalConvInHalf) {
  // The first case in float16 (every value exact), and with SiLU: the sum is rounded to
  // float16 before the activation, as ONNX's reference does.
  HostTensor x = Halfs({1, 1, 3}, {1, 2, 3}), w = Halfs({1, 1, 3}, {1, 2, 3});
  std::vector<HostTensor> out = RunOk(ConvDef({&x, &w}, "none", DataType::kFloat16), {&x, &w});
  EXPECT_EQ(HalfValues(out[0]), (std::vector<float>{3, 8, 14}));
  EXPECT_EQ(HalfValues(out[1]), (std::vector<float>{2, 3}));
  out = RunOk(ConvDef({&x, &w}, "silu", DataType::kFloat16), {&x, &w});
  std::vector<float> want;
  for (float y : {3.0f, 8.0f, 14.0f})
    want.push_back(HalfToFloat(FloatToHalf(y / (1 + std::exp(-y)))));
  EXPECT_EQ(HalfValues(out[0]), want);
}

TEST(StateSpaceKernelTest, CausalConvFollowsItsDefinitionOverARandomSequence) {
  // B = 2, C = 3, L = 7, k = 4 with bias, past_state and SiLU, against the definition in double.
  const int64_t b = 2, c = 3, l = 7, kk = 4;
  const std::vector<float> xv = Ramp(b * c * l, -2, 2, 21), wv = Ramp(c * kk, -1, 1, 22);
  const std::vector<float> bv = Ramp(c, -0.5f, 0.5f, 23), pv = Ramp(b * c * (kk - 1), -2, 2, 24);
  HostTensor x = F32({b, c, l}, xv), w = F32({c, 1, kk}, wv), bias = F32({c}, bv);
  HostTensor past = F32({b, c, kk - 1}, pv);
  std::vector<HostTensor> out =
      RunOk(ConvDef({&x, &w, &bias, &past}, "silu"), {&x, &w, &bias, &past});
  std::vector<double> want, want_state;
  for (int64_t n = 0; n < b; ++n) {
    for (int64_t ch = 0; ch < c; ++ch) {
      std::vector<double> seq;
      for (int64_t j = 0; j < kk - 1; ++j) seq.push_back(pv[(n * c + ch) * (kk - 1) + j]);
      for (int64_t i = 0; i < l; ++i) seq.push_back(xv[(n * c + ch) * l + i]);
      for (int64_t i = 0; i < l; ++i) {
        double y = bv[ch];
        for (int64_t j = 0; j < kk; ++j) y += wv[ch * kk + j] * seq[i + j];
        want.push_back(y / (1 + std::exp(-y)));
      }
      want_state.insert(want_state.end(), seq.end() - (kk - 1), seq.end());
    }
  }
  ExpectNear(Values<float>(out[0]), want, 1e-5, "output");
  ExpectNear(Values<float>(out[1]), want_state, 0, "present_state");
}

}  // namespace
}  // namespace kiln::kernels
