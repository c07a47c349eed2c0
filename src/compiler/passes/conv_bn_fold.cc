// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// conv_bn_fold: Conv (or ConvTranspose) followed by an inference BatchNormalization becomes one
// Conv whose weights and bias absorb the normalisation:
//   f[m] = scale[m] / sqrt(var[m] + epsilon)
//   W'[m, ...] = W[m, ...] * f[m]
//   B'[m] = (B[m] - mean[m]) * f[m] + bias[m]        (B = 0 when the Conv has none)
// Only float32 constants are folded; the arithmetic is done in double.
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

// The float32 values of a constant `v` holding exactly `n` elements; nullopt otherwise.
std::optional<std::vector<float>> FloatConstant(const ir::Value* v, int64_t n) {
  if (v == nullptr || v->constant() == nullptr) return std::nullopt;
  const ir::Tensor& t = *v->constant();
  if (t.dtype() != ir::DataType::kFloat32 || t.num_elements() != n ||
      t.bytes() < static_cast<size_t>(n) * sizeof(float)) {
    return std::nullopt;
  }
  return std::vector<float>(t.data<float>(), t.data<float>() + n);
}

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

// Folds the BatchNormalization that is the only reader of `conv`'s output into it.
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
  ir::Node* bn = pattern::SoleUser(graph, conv.output(0));
  if (!pattern::IsOp(bn, "BatchNormalization") || bn->input(0) != conv.output(0) ||
      bn->output(0) == nullptr) {
    return false;
  }
  // spatial exists before opset 9 only.
  if (bn->attr_int("training_mode") != 0 || (bn->opset() < 9 && bn->attr_int("spatial") != 1)) {
    return false;
  }
  // The running statistics (training outputs) must not be needed.
  for (size_t i = 1; i < bn->outputs().size(); ++i) {
    ir::Value* extra = bn->output(i);
    if (extra != nullptr && (!graph.Uses(extra).empty() || pattern::IsGraphOutput(graph, extra))) {
      return false;
    }
  }

  const ir::Tensor& w_data = *w->constant();
  int64_t m = 0;
  std::vector<int64_t> channel_of = OutputChannelOfEachWeight(conv, w_data, &m);
  if (channel_of.empty() || m <= 0) return false;
  auto scale = FloatConstant(bn->input(1), m);
  auto bias = FloatConstant(bn->input(2), m);
  auto mean = FloatConstant(bn->input(3), m);
  auto var = FloatConstant(bn->input(4), m);
  if (!scale || !bias || !mean || !var) return false;
  std::vector<float> old_b(static_cast<size_t>(m), 0.0f);
  if (b != nullptr) {
    auto given = FloatConstant(b, m);
    if (!given) return false;
    old_b = *given;
  }
  double eps = bn->attr_float("epsilon");

  std::vector<double> factor(static_cast<size_t>(m));
  for (int64_t c = 0; c < m; ++c) {
    double denom = static_cast<double>((*var)[c]) + eps;
    if (!(denom > 0)) return false;  // the BN would produce NaN or inf; leave it visible
    factor[c] = (*scale)[c] / std::sqrt(denom);
  }
  std::vector<float> new_w(channel_of.size());
  const float* old_w = w_data.data<float>();
  for (size_t i = 0; i < new_w.size(); ++i) {
    new_w[i] = static_cast<float>(old_w[i] * factor[channel_of[i]]);
  }
  std::vector<float> new_b(static_cast<size_t>(m));
  for (int64_t c = 0; c < m; ++c) {
    new_b[c] =
        static_cast<float>((static_cast<double>(old_b[c]) - (*mean)[c]) * factor[c] + (*bias)[c]);
  }

  std::string stem = conv.name().empty() ? std::string("conv") : conv.name();
  ir::Value* w_folded = graph.AddUniqueValue(stem + "_bn_folded_W", {});
  w_folded->set_constant(ir::Tensor::FromVector(ir::DataType::kFloat32, w_data.dims(), new_w));
  ir::Value* b_folded = graph.AddUniqueValue(stem + "_bn_folded_B", {});
  b_folded->set_constant(ir::Tensor::FromVector(ir::DataType::kFloat32, {m}, new_b));

  ctx.log.push_back(StrCat("conv_bn_fold: folded ", bn->Label(), " into ", conv.Label()));
  NewNode spec{conv.op_type(),  "",          conv.name(), conv.opset(), {x, w_folded, b_folded},
               {bn->output(0)}, conv.attrs()};
  KILN_RETURN_IF_ERROR(rw.Replace({&conv, bn}, std::move(spec)).status(), "in conv_bn_fold");
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
