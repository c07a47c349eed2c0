// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// conv_bn_fold: Conv (or ConvTranspose), then a chain of per-channel affine steps — an Add, Sub,
// Mul or Div of a constant per-channel tensor (or scalar) and inference BatchNormalizations, in
// any order, each the only reader of what precedes it — becomes one Conv (ConvTranspose) whose
// weights and bias absorb them. Exporters write a ConvTranspose's bias as such an Add (PP-OCR's
// detector head), and PP-LCNet-style blocks scale and shift each convolution's output by
// learned scalars (a Mul and an Add: PP-OCRv4's "learnable affine blocks"). The chain keeps
// y = conv(x) * f[m] + g[m] per output channel m, starting from f = 1, g = B (0 without B):
//   Add a: g += a        Sub a (y - a): g -= a
//   Mul s: f *= s, g *= s        Div s (y / s, s != 0): f /= s, g /= s
//   BatchNormalization: k = scale[m] / sqrt(var[m] + epsilon); f *= k, g = (g - mean) * k + bias
// and the result is W'[m, ...] = W[m, ...] * f[m], B'[m] = g[m]. A constant must broadcast
// along the channel axis only (dims of 1 elsewhere, or a scalar). Only float32 constants are
// folded; the arithmetic is done in double. A Conv's bias Add alone is left to
// bias_activation_fusion (which makes it the FusedConv's bias).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "compiler/passes/passes.h"
#include "compiler/passes/pattern_util.h"

namespace kiln::compiler {
namespace {

using pattern::NewNode;
using pattern::Rewriter;

using pattern::FloatConstant;

using pattern::PerChannelConstant;

// For every element of a weight tensor, the output channel it contributes to; empty when the
// weight layout is not one this pass understands.
//   Conv:          W is [M, C/group, k...]: element i belongs to channel i / (size / M).
//   ConvTranspose: W is [C, M/group, k...]: element (c, j, ...) belongs to channel
//                  (c / (C/group)) * (M/group) + j.
std::vector<int64_t> OutputChannelOfEachWeight(const ir::Node& conv, const ir::Tensor& w,
                                               int64_t* channels) {
  const std::vector<int64_t>& dims = w.dims();
  if (dims.size() < 3) return {};
  int64_t size = w.num_elements();
  if (size <= 0) return {};
  std::vector<int64_t> channel(static_cast<size_t>(size));
  if (conv.op_type() == "Conv") {
    int64_t m = dims[0];
    int64_t block = size / m;
    for (int64_t i = 0; i < size; ++i) channel[i] = i / block;
    *channels = m;
    return channel;
  }
  int64_t group = conv.attr_int("group");
  int64_t c = dims[0], m_per_group = dims[1];
  if (group <= 0 || c % group != 0) return {};
  int64_t c_per_group = c / group;
  int64_t k = size / (c * m_per_group);
  for (int64_t i = 0; i < size; ++i) {
    int64_t ci = i / (m_per_group * k);
    int64_t j = (i / k) % m_per_group;
    channel[i] = (ci / c_per_group) * m_per_group + j;
  }
  *channels = group * m_per_group;
  return channel;
}

// Folds the chain of per-channel affine steps that follows `conv` (each the only reader of
// what precedes it) into it.
Result<bool> TryFold(ir::Node& conv, Rewriter& rw, PassContext& ctx) {
  if (!pattern::IsOp(&conv, "Conv") && !pattern::IsOp(&conv, "ConvTranspose")) return false;
  ir::Graph& graph = rw.graph();
  ir::Value* x = conv.input(0);
  ir::Value* w = conv.input(1);
  ir::Value* b = conv.input(2);
  if (x == nullptr || w == nullptr || w->constant() == nullptr || conv.outputs().size() != 1) {
    return false;
  }
  if (w->constant()->dtype() != ir::DataType::kFloat32) return false;
  const ir::Tensor& w_data = *w->constant();
  int64_t m = 0;
  std::vector<int64_t> channel_of = OutputChannelOfEachWeight(conv, w_data, &m);
  if (channel_of.empty() || m <= 0) return false;
  const size_t rank = w_data.dims().size();  // the output's rank: N, C and the kernel's dims

  std::vector<float> old_b(static_cast<size_t>(m), 0.0f);
  if (b != nullptr) {
    auto given = FloatConstant(b, m);
    if (!given) return false;
    old_b = *given;
  }
  std::vector<ir::Node*> folded = {&conv};
  std::vector<double> f(static_cast<size_t>(m), 1.0), g(old_b.begin(), old_b.end());
  ir::Value* out = conv.output(0);
  while (!pattern::IsGraphOutput(graph, out)) {
    ir::Node* next = pattern::SoleUser(graph, out);
    if (next == nullptr || next->output(0) == nullptr) break;
    if (pattern::IsOp(next, "BatchNormalization")) {
      auto bn = pattern::InferenceBatchNormAffine(graph, next, out, m);
      if (!bn) break;
      for (int64_t c = 0; c < m; ++c) {
        f[c] *= bn->scale[c];
        g[c] = g[c] * bn->scale[c] + bn->shift[c];
      }
    } else {
      const std::optional<pattern::AffineStep> step = pattern::MatchAffineStep(next, out);
      if (!step) break;
      auto c_values = PerChannelConstant(step->c, rank, m);
      if (!c_values) break;
      const std::vector<float>& v = *c_values;
      if (step->kind == pattern::AffineStep::kDiv &&
          std::any_of(v.begin(), v.end(), [](float d) { return d == 0.0f; })) {
        break;
      }
      for (int64_t c = 0; c < m; ++c) pattern::ComposeAffine(step->kind, v[c], f[c], g[c]);
    }
    folded.push_back(next);
    out = next->output(0);
  }
  if (folded.size() == 1) return false;
  if (folded.size() == 2 && folded[1]->op_type() == "Add" && conv.op_type() == "Conv") {
    return false;  // a Conv's bias Add alone is bias_activation_fusion's (into FusedConv)
  }

  std::vector<float> new_w(channel_of.size());
  const float* old_w = w_data.data<float>();
  for (size_t i = 0; i < new_w.size(); ++i) {
    new_w[i] = static_cast<float>(old_w[i] * f[channel_of[i]]);
  }
  std::vector<float> new_b(g.begin(), g.end());

  std::string stem = conv.name().empty() ? std::string("conv") : conv.name();
  ir::Value* w_folded = graph.AddUniqueValue(stem + "_bn_folded_W", {});
  w_folded->set_constant(ir::Tensor::FromVector(ir::DataType::kFloat32, w_data.dims(), new_w));
  ir::Value* b_folded = graph.AddUniqueValue(stem + "_bn_folded_B", {});
  b_folded->set_constant(ir::Tensor::FromVector(ir::DataType::kFloat32, {m}, new_b));

  for (size_t i = 1; i < folded.size(); ++i) {
    ctx.log.push_back(StrCat("conv_bn_fold: folded ", folded[i]->Label(), " into ", conv.Label()));
  }
  NewNode spec{conv.op_type(),          "",    conv.name(), conv.opset(),
               {x, w_folded, b_folded}, {out}, conv.attrs()};
  KILN_RETURN_IF_ERROR(rw.Replace(folded, std::move(spec)).status(), "in conv_bn_fold");
  return true;
}

class ConvBnFoldPass : public Pass {
 public:
  const char* name() const override { return "conv_bn_fold"; }
  Result<bool> Run(ir::Graph& graph, PassContext& ctx) override {
    return pattern::RewriteEachNode(graph,
                                    [&](ir::Node& n, Rewriter& rw) { return TryFold(n, rw, ctx); });
  }
};

}  // namespace

std::unique_ptr<Pass> CreateConvBnFoldPass() { return std::make_unique<ConvBnFoldPass>(); }

}  // namespace kiln::compiler
