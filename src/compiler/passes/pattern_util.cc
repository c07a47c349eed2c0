// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "compiler/passes/pattern_util.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <memory>
#include <variant>

namespace kiln::compiler::pattern {

bool IsOp(const ir::Node* n, std::string_view op_type, std::string_view domain) {
  return n != nullptr && n->op_type() == op_type && n->domain() == domain;
}

bool IsGraphOutput(const ir::Graph& graph, const ir::Value* v) {
  return std::find(graph.outputs().begin(), graph.outputs().end(), v) != graph.outputs().end();
}

bool IsCapturedBySubgraph(const ir::Graph& graph, const ir::Value* v) {
  return !v->name().empty() && ir::CapturedNames(graph).count(v->name()) != 0;
}

ir::Node* SoleUser(const ir::Graph& graph, const ir::Value* v) {
  if (v == nullptr || IsGraphOutput(graph, v)) return nullptr;
  std::vector<ir::Node*> uses = graph.Uses(v);
  if (uses.size() != 1) return nullptr;
  if (IsCapturedBySubgraph(graph, v)) return nullptr;
  return uses[0];
}

std::optional<double> ScalarConstant(const ir::Value* v) {
  if (v == nullptr || v->constant() == nullptr) return std::nullopt;
  const ir::Tensor& t = *v->constant();
  if (t.num_elements() != 1) return std::nullopt;
  std::vector<double> values = t.AsDoubles();
  if (values.size() != 1) return std::nullopt;
  return values[0];
}

bool IsScalarFor(const ir::Value* c, const ir::Value* like) {
  if (!ScalarConstant(c)) return false;
  size_t rank = c->constant()->dims().size();
  if (like == nullptr || !like->shape().rank_known()) return rank == 0;
  return rank <= like->shape().rank();
}

bool IsScalarNear(const ir::Value* c, double expected, const ir::Value* like, double tol) {
  std::optional<double> value = ScalarConstant(c);
  return value && std::abs(*value - expected) <= tol && IsScalarFor(c, like);
}

ir::Value* OtherInput(const ir::Node& n, const ir::Value* v) {
  if (n.inputs().size() != 2) return nullptr;
  if (n.input(0) == v) return n.input(1);
  if (n.input(1) == v) return n.input(0);
  return nullptr;
}

std::optional<AffineStep> MatchAffineStep(const ir::Node* n, const ir::Value* v) {
  if (n == nullptr || n->inputs().size() != 2 || n->outputs().size() != 1) return std::nullopt;
  std::optional<AffineStep::Kind> kind;
  if (IsOp(n, "Add")) kind = AffineStep::kAdd;
  if (IsOp(n, "Sub")) kind = AffineStep::kSub;
  if (IsOp(n, "Mul")) kind = AffineStep::kMul;
  if (IsOp(n, "Div")) kind = AffineStep::kDiv;
  if (!kind) return std::nullopt;
  const bool commutes = *kind == AffineStep::kAdd || *kind == AffineStep::kMul;
  const ir::Value* c = nullptr;
  if (n->input(0) == v) c = n->input(1);
  if (n->input(1) == v && commutes) c = n->input(0);
  if (c == nullptr || c == v) return std::nullopt;
  return AffineStep{*kind, c};
}

void ComposeAffine(AffineStep::Kind kind, double c, double& scale, double& shift) {
  switch (kind) {
    case AffineStep::kAdd:
      shift += c;
      break;
    case AffineStep::kSub:
      shift -= c;
      break;
    case AffineStep::kMul:
      scale *= c;
      shift *= c;
      break;
    case AffineStep::kDiv:
      scale /= c;
      shift /= c;
      break;
  }
}

bool SameKnownDim(const ir::Dim& a, const ir::Dim& b) {
  return a.known() ? b.known() && a.value == b.value : !a.symbol.empty() && a == b;
}

bool SameKnownShape(const ir::Shape& a, const ir::Shape& b) {
  if (!a.rank_known() || !(a == b)) return false;
  for (const ir::Dim& d : a.dims()) {
    if (!d.known() && d.symbol.empty()) return false;
  }
  return true;
}

bool DependsOn(const ir::Value* v, const ir::Node* node) {
  std::vector<const ir::Node*> stack;
  std::unordered_set<const ir::Node*> seen;
  if (v != nullptr && v->producer() != nullptr) stack.push_back(v->producer());
  while (!stack.empty()) {
    const ir::Node* n = stack.back();
    stack.pop_back();
    if (n == node) return true;
    if (!seen.insert(n).second) continue;
    for (const ir::Value* in : n->inputs()) {
      if (in != nullptr && in->producer() != nullptr) stack.push_back(in->producer());
    }
  }
  return false;
}

Result<ir::Node*> Rewriter::Replace(const std::vector<ir::Node*>& old_nodes, NewNode spec) {
  auto& nodes = graph_.nodes();
  // The position just after the last old node: the new node goes there. It is not an old node,
  // so the iterator stays valid while they are removed.
  auto insert_at = nodes.end();
  for (auto it = nodes.begin(); it != nodes.end(); ++it) {
    if (std::find(old_nodes.begin(), old_nodes.end(), it->get()) != old_nodes.end()) {
      insert_at = std::next(it);
    }
  }
  std::vector<std::string> origins;
  for (const ir::Node* n : old_nodes) {
    origins.insert(origins.end(), n->origins().begin(), n->origins().end());
  }
  for (ir::Node* n : old_nodes) {
    graph_.RemoveNode(n);
    removed_.insert(n);
  }
  KILN_ASSIGN_OR_RETURN(ir::Node * added,
                        graph_.AddNode(spec.op_type, spec.domain, spec.name, spec.opset,
                                       std::move(spec.inputs), std::move(spec.outputs)));
  added->add_origins(origins);
  for (auto& [name, attr] : spec.attrs) added->set_attr(name, std::move(attr));
  nodes.splice(insert_at, nodes, std::prev(nodes.end()));
  return added;
}

Result<bool> RewriteEachNode(ir::Graph& graph,
                             const std::function<Result<bool>(ir::Node&, Rewriter&)>& try_rewrite) {
  bool changed = false;
  for (bool again = true; again;) {
    again = false;
    std::vector<ir::Node*> snapshot;
    for (const auto& n : graph.nodes()) snapshot.push_back(n.get());
    Rewriter rewriter(graph);
    for (ir::Node* n : snapshot) {
      if (rewriter.removed(n)) continue;
      KILN_ASSIGN_OR_RETURN(bool rewrote, try_rewrite(*n, rewriter));
      again = again || rewrote;
    }
    changed = changed || again;
  }
  if (changed) graph.Prune();
  return changed;
}

std::optional<std::vector<float>> FloatConstant(const ir::Value* v, int64_t n) {
  if (v == nullptr || v->constant() == nullptr) return std::nullopt;
  const ir::Tensor& t = *v->constant();
  if (t.dtype() != ir::DataType::kFloat32 || t.num_elements() != n ||
      t.bytes() < static_cast<size_t>(n) * sizeof(float)) {
    return std::nullopt;
  }
  return std::vector<float>(t.data<float>(), t.data<float>() + n);
}

std::optional<std::vector<float>> PerChannelConstant(const ir::Value* v, size_t rank, int64_t m) {
  if (v == nullptr || v->constant() == nullptr) return std::nullopt;
  const ir::Tensor& t = *v->constant();
  const std::vector<int64_t>& dims = t.dims();
  if (t.dtype() != ir::DataType::kFloat32 || dims.size() > rank) return std::nullopt;
  for (size_t i = 0; i < dims.size(); ++i) {
    const size_t axis = rank - dims.size() + i;
    if (dims[i] != 1 && !(axis == 1 && dims[i] == m)) return std::nullopt;
  }
  const int64_t n = t.num_elements();
  if (n != 1 && n != m) return std::nullopt;
  auto values = FloatConstant(v, n);
  if (!values) return std::nullopt;
  if (n == 1) values->assign(static_cast<size_t>(m), (*values)[0]);
  return values;
}

std::optional<ChannelAffine> InferenceBatchNormAffine(const ir::Graph& graph, const ir::Node* bn,
                                                      const ir::Value* x, int64_t channels) {
  if (!IsOp(bn, "BatchNormalization") || bn->input(0) != x || bn->output(0) == nullptr) {
    return std::nullopt;
  }
  // spatial exists before opset 9 only.
  if (bn->attr_int("training_mode") != 0 || (bn->opset() < 9 && bn->attr_int("spatial") != 1)) {
    return std::nullopt;
  }
  for (size_t i = 1; i < bn->outputs().size(); ++i) {
    const ir::Value* extra = bn->output(i);
    if (extra != nullptr && (!graph.Uses(extra).empty() || IsGraphOutput(graph, extra))) {
      return std::nullopt;
    }
  }
  auto scale = FloatConstant(bn->input(1), channels);
  auto bias = FloatConstant(bn->input(2), channels);
  auto mean = FloatConstant(bn->input(3), channels);
  auto var = FloatConstant(bn->input(4), channels);
  if (!scale || !bias || !mean || !var) return std::nullopt;
  const double eps = bn->attr_float("epsilon");
  ChannelAffine affine;
  for (int64_t c = 0; c < channels; ++c) {
    const double v = double{(*var)[c]} + eps;
    if (!(v > 0)) return std::nullopt;
    const double k = (*scale)[c] / std::sqrt(v);
    affine.scale.push_back(k);
    affine.shift.push_back((*bias)[c] - (*mean)[c] * k);
  }
  return affine;
}

}  // namespace kiln::compiler::pattern
