// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// layer_norm_fusion: the decomposed layer normalisation that exporters emit
//   mean = ReduceMean(X, axes)          d = Sub(X, mean)
//   var  = ReduceMean(Pow(d, 2) | Mul(d, d), axes)
//   Y    = Add(Mul(Div(d, Sqrt(Add(var, eps))), gamma), beta)
// becomes LayerNormalization(X, gamma, beta) with axis = -(number of reduced trailing axes),
// epsilon = eps, at opset 17 whatever the model's opset. The Add of beta may be absent. Add and
// Mul accept their operands in either order.
#include <algorithm>
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

constexpr int kLayerNormOpset = 17;

// The axes a ReduceMean with keepdims=1 reduces, as the negative count k of trailing axes they
// cover ({-k, ..., -1}); nullopt for anything else.
std::optional<int64_t> TrailingAxesOf(const ir::Node& rm, const ir::Shape& x) {
  if (rm.attr_int("keepdims") != 1) return std::nullopt;
  std::vector<int64_t> axes;
  if (rm.opset() >= 18) {
    const ir::Value* a = rm.input(1);
    if (a == nullptr || a->constant() == nullptr) return std::nullopt;
    axes = a->constant()->AsInt64s();
  } else {
    axes = rm.attr_ints("axes");
  }
  if (axes.empty()) return std::nullopt;  // all axes, or none with noop_with_empty_axes
  for (int64_t& a : axes) {
    if (a >= 0) {
      if (!x.rank_known() || a >= static_cast<int64_t>(x.rank())) return std::nullopt;
      a -= static_cast<int64_t>(x.rank());
    }
  }
  std::sort(axes.begin(), axes.end());
  int64_t k = static_cast<int64_t>(axes.size());
  for (int64_t i = 0; i < k; ++i) {
    if (axes[i] != i - k) return std::nullopt;
  }
  if (x.rank_known() && k > static_cast<int64_t>(x.rank())) return std::nullopt;
  return -k;
}

// True when the constant `p` (gamma or beta) broadcasts onto X without growing it.
bool FitsX(const ir::Value* p, const ir::Value* x, int64_t axis, ir::DataType dtype) {
  if (p == nullptr || p->constant() == nullptr) return false;
  const ir::Tensor& t = *p->constant();
  if (!ir::IsFloat(t.dtype()) || (dtype != ir::DataType::kUndefined && t.dtype() != dtype)) {
    return false;
  }
  const ir::Shape& xs = x->shape();
  if (!xs.rank_known()) return static_cast<int64_t>(t.dims().size()) <= -axis;
  if (t.dims().size() > xs.rank()) return false;
  size_t offset = xs.rank() - t.dims().size();
  for (size_t i = 0; i < t.dims().size(); ++i) {
    const ir::Dim& d = xs[offset + i];
    int64_t s = t.dims()[i];
    if (s != 1 && d.known() && d.value != s) return false;
  }
  return true;
}

// The constant operand of a two-input node whose other operand is `v`.
ir::Value* ConstantOperand(const ir::Node* n, const ir::Value* v) {
  ir::Value* other = n == nullptr ? nullptr : pattern::OtherInput(*n, v);
  return other != nullptr && other->constant() != nullptr ? other : nullptr;
}

Result<bool> TryFuse(ir::Node& rm1, Rewriter& rw, PassContext& ctx) {
  if (!pattern::IsOp(&rm1, "ReduceMean") || rm1.outputs().size() != 1) return false;
  ir::Graph& graph = rw.graph();
  ir::Value* x = rm1.input(0);
  if (x == nullptr) return false;
  std::optional<int64_t> axis = TrailingAxesOf(rm1, x->shape());
  if (!axis) return false;

  // d = X - mean
  ir::Value* mean = rm1.output(0);
  ir::Node* sub = pattern::SoleUser(graph, mean);
  if (!pattern::IsOp(sub, "Sub") || sub->input(0) != x || sub->input(1) != mean) return false;
  ir::Value* d = sub->output(0);
  if (pattern::IsGraphOutput(graph, d) || pattern::IsCapturedBySubgraph(graph, d)) return false;

  // d feeds the square and the division, and nothing else.
  ir::Node* square = nullptr;
  ir::Node* div = nullptr;
  std::vector<ir::Node*> d_users = graph.Uses(d);
  for (ir::Node* u : d_users) {
    if (pattern::IsOp(u, "Pow") && u->input(0) == d && pattern::IsScalarNear(u->input(1), 2.0, x)) {
      square = u;
    } else if (pattern::IsOp(u, "Mul") && u->input(0) == d && u->input(1) == d) {
      square = u;
    } else if (pattern::IsOp(u, "Div") && u->input(0) == d && u->input(1) != d) {
      div = u;
    } else {
      return false;
    }
  }
  if (square == nullptr || div == nullptr) return false;
  size_t expected_uses = square->op_type() == "Mul" ? 3 : 2;
  if (d_users.size() != expected_uses) return false;

  // var = ReduceMean(square) over the same axes; std = Sqrt(var + eps)
  ir::Node* rm2 = pattern::SoleUser(graph, square->output(0));
  if (!pattern::IsOp(rm2, "ReduceMean") || rm2->input(0) != square->output(0) ||
      TrailingAxesOf(*rm2, x->shape()) != axis) {
    return false;
  }
  ir::Node* add_eps = pattern::SoleUser(graph, rm2->output(0));
  if (!pattern::IsOp(add_eps, "Add")) return false;
  ir::Value* eps_value = ConstantOperand(add_eps, rm2->output(0));
  std::optional<double> eps = pattern::ScalarConstant(eps_value);
  if (!eps || *eps < 0 || !pattern::IsScalarFor(eps_value, x)) return false;
  ir::Node* sqrt = pattern::SoleUser(graph, add_eps->output(0));
  if (!pattern::IsOp(sqrt, "Sqrt")) return false;
  if (pattern::SoleUser(graph, sqrt->output(0)) != div || div->input(1) != sqrt->output(0)) {
    return false;
  }

  // Y = normalised * gamma [+ beta]
  ir::Node* mul = pattern::SoleUser(graph, div->output(0));
  if (!pattern::IsOp(mul, "Mul")) return false;
  ir::Value* gamma = ConstantOperand(mul, div->output(0));
  ir::DataType dtype = x->dtype();
  if (!FitsX(gamma, x, *axis, dtype)) return false;
  std::vector<ir::Node*> fused = {&rm1, sub, square, rm2, add_eps, sqrt, div, mul};
  std::vector<ir::Value*> inputs = {x, gamma};
  ir::Value* out = mul->output(0);
  ir::Node* add_beta = pattern::SoleUser(graph, out);
  if (pattern::IsOp(add_beta, "Add")) {
    ir::Value* beta = ConstantOperand(add_beta, out);
    if (FitsX(beta, x, *axis, gamma->constant()->dtype())) {
      fused.push_back(add_beta);
      inputs.push_back(beta);
      out = add_beta->output(0);
    }
  }

  NewNode spec{"LayerNormalization", "", rm1.name(), kLayerNormOpset, std::move(inputs), {out}, {}};
  spec.attrs["axis"] = *axis;
  spec.attrs["epsilon"] = static_cast<float>(*eps);
  ctx.log.push_back(StrCat("layer_norm_fusion: fused ", fused.size(), " nodes from ", rm1.Label(),
                           " into LayerNormalization"));
  KILN_RETURN_IF_ERROR(rw.Replace(fused, std::move(spec)).status(), "in layer_norm_fusion");
  return true;
}

class LayerNormFusionPass : public Pass {
 public:
  const char* name() const override { return "layer_norm_fusion"; }
  Result<bool> Run(ir::Graph& graph, PassContext& ctx) override {
    return pattern::RewriteEachNode(graph,
                                    [&](ir::Node& n, Rewriter& rw) { return TryFuse(n, rw, ctx); });
  }
};

}  // namespace

std::unique_ptr<Pass> CreateLayerNormFusionPass() {
  return std::make_unique<LayerNormFusionPass>();
}

}  // namespace kiln::compiler
