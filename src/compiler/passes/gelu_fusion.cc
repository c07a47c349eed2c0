// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// gelu_fusion: the decomposed GELU that exporters emit becomes one Gelu (opset 20).
//   exact:  0.5 * x * (1 + Erf(x / sqrt(2)))        inner = Erf(Div(x, 1.41421) | Mul(x, 0.70711))
//   tanh:   0.5 * x * (1 + Tanh(sqrt(2/pi) * (x + 0.044715 * x^3)))
//           x^3 = Pow(x, 3) | Mul(x, Mul(x, x)) | Mul(Mul(x, x), x)
// and for both, with a = 1 + inner, the outer product in any of
//   Mul(Mul(x, a), 0.5)   Mul(Mul(x, 0.5), a)   Mul(x, Mul(a, 0.5))
// with Add and Mul operands in either order. Constants match within 1e-4.
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "compiler/passes/passes.h"
#include "compiler/passes/pattern_util.h"

namespace kiln::compiler {
namespace {

using pattern::NewNode;
using pattern::Rewriter;

constexpr int kGeluOpset = 20;
constexpr double kTol = 1e-4;
constexpr double kSqrt2 = 1.4142135623730951;
constexpr double kSqrtHalf = 0.7071067811865476;
constexpr double kSqrt2OverPi = 0.7978845608028654;
constexpr double kCubicCoeff = 0.044715;

// A two-input node of `op_type` that reads `v` and a scalar constant near `c` (in either order
// when `commutative`; otherwise `v` must be input 0).
bool IsOpWithScalar(const ir::Node* n, const char* op_type, const ir::Value* v, double c,
                    const ir::Value* x, bool commutative = true) {
  if (!pattern::IsOp(n, op_type) || n->inputs().size() != 2) return false;
  if (!commutative && n->input(0) != v) return false;
  ir::Value* other = pattern::OtherInput(*n, v);
  return other != nullptr && other != v && pattern::IsScalarNear(other, c, x, kTol);
}

// The non-constant operand of a two-input node whose other operand is a scalar near `c`.
ir::Value* OperandBesideScalar(const ir::Node* n, const char* op_type, double c) {
  if (!pattern::IsOp(n, op_type) || n->inputs().size() != 2) return nullptr;
  for (size_t i = 0; i < 2; ++i) {
    ir::Value* v = n->input(i);
    ir::Value* other = n->input(1 - i);
    if (v != nullptr && v->constant() == nullptr && pattern::IsScalarNear(other, c, v, kTol)) {
      return v;
    }
  }
  return nullptr;
}

// Erf's input is x / sqrt(2): appends the node computing it and returns x.
ir::Value* MatchErfArgument(const ir::Graph& graph, const ir::Node& erf,
                            std::vector<ir::Node*>& nodes) {
  ir::Node* scale = erf.input(0) == nullptr ? nullptr : erf.input(0)->producer();
  if (scale == nullptr || pattern::SoleUser(graph, erf.input(0)) != &erf) return nullptr;
  ir::Value* x = nullptr;
  if (pattern::IsOp(scale, "Div")) {
    x = scale->input(0);
    if (!IsOpWithScalar(scale, "Div", x, kSqrt2, x, false)) x = nullptr;
  } else {
    x = OperandBesideScalar(scale, "Mul", kSqrtHalf);
  }
  if (x != nullptr) nodes.push_back(scale);
  return x;
}

// True when `v` is x^3 (appending the nodes computing it).
bool IsCube(const ir::Graph& graph, const ir::Value* v, const ir::Value* x,
            std::vector<ir::Node*>& nodes) {
  ir::Node* n = v == nullptr ? nullptr : v->producer();
  if (n == nullptr || pattern::SoleUser(graph, v) == nullptr) return false;
  if (pattern::IsOp(n, "Pow")) {
    if (n->input(0) != x || !pattern::IsScalarNear(n->input(1), 3.0, x, kTol)) return false;
    nodes.push_back(n);
    return true;
  }
  if (!pattern::IsOp(n, "Mul") || n->inputs().size() != 2) return false;
  ir::Value* square = pattern::OtherInput(*n, x);
  if (square == nullptr || square == x) return false;
  ir::Node* sq = square->producer();
  if (!pattern::IsOp(sq, "Mul") || sq->input(0) != x || sq->input(1) != x ||
      pattern::SoleUser(graph, square) != n) {
    return false;
  }
  nodes.push_back(sq);
  nodes.push_back(n);
  return true;
}

// Tanh's input is sqrt(2/pi) * (x + 0.044715 * x^3): appends the nodes and returns x.
ir::Value* MatchTanhArgument(const ir::Graph& graph, const ir::Node& tanh,
                             std::vector<ir::Node*>& nodes) {
  ir::Value* u = tanh.input(0);
  if (u == nullptr || pattern::SoleUser(graph, u) != &tanh) return nullptr;
  ir::Node* scale = u->producer();
  ir::Value* r = OperandBesideScalar(scale, "Mul", kSqrt2OverPi);
  if (r == nullptr || pattern::SoleUser(graph, r) != scale) return nullptr;
  ir::Node* add = r->producer();
  if (!pattern::IsOp(add, "Add") || add->inputs().size() != 2) return nullptr;
  // One operand is x, the other 0.044715 * x^3.
  for (size_t i = 0; i < 2; ++i) {
    ir::Value* x = add->input(i);
    ir::Value* q = add->input(1 - i);
    if (x == nullptr || q == nullptr || q == x || pattern::SoleUser(graph, q) != add) continue;
    ir::Node* coeff = q->producer();
    ir::Value* cube = OperandBesideScalar(coeff, "Mul", kCubicCoeff);
    if (cube == nullptr) continue;
    std::vector<ir::Node*> cube_nodes;
    if (!IsCube(graph, cube, x, cube_nodes)) continue;
    nodes.insert(nodes.end(), cube_nodes.begin(), cube_nodes.end());
    nodes.push_back(coeff);
    nodes.push_back(add);
    nodes.push_back(scale);
    return x;
  }
  return nullptr;
}

// Given a = 1 + inner(x), matches 0.5 * x * a in its three groupings; appends the nodes and
// returns the output.
ir::Value* MatchOuterProduct(const ir::Graph& graph, ir::Value* a, ir::Value* x,
                             std::vector<ir::Node*>& nodes) {
  ir::Node* m1 = pattern::SoleUser(graph, a);
  if (!pattern::IsOp(m1, "Mul") || m1->inputs().size() != 2) return nullptr;
  ir::Value* other = pattern::OtherInput(*m1, a);
  if (other == nullptr || other == a) return nullptr;
  if (other == x) {
    // Mul(Mul(x, a), 0.5)
    ir::Node* m2 = pattern::SoleUser(graph, m1->output(0));
    if (!IsOpWithScalar(m2, "Mul", m1->output(0), 0.5, x)) return nullptr;
    nodes.push_back(m1);
    nodes.push_back(m2);
    return m2->output(0);
  }
  if (pattern::IsScalarNear(other, 0.5, x, kTol)) {
    // Mul(x, Mul(a, 0.5))
    ir::Node* m2 = pattern::SoleUser(graph, m1->output(0));
    if (!pattern::IsOp(m2, "Mul") || pattern::OtherInput(*m2, m1->output(0)) != x) {
      return nullptr;
    }
    nodes.push_back(m1);
    nodes.push_back(m2);
    return m2->output(0);
  }
  // Mul(Mul(x, 0.5), a)
  ir::Node* half = other->producer();
  if (OperandBesideScalar(half, "Mul", 0.5) != x || pattern::SoleUser(graph, other) != m1) {
    return nullptr;
  }
  nodes.push_back(half);
  nodes.push_back(m1);
  return m1->output(0);
}

Result<bool> TryFuse(ir::Node& inner, Rewriter& rw, PassContext& ctx) {
  bool exact = pattern::IsOp(&inner, "Erf");
  if (!exact && !pattern::IsOp(&inner, "Tanh")) return false;
  if (inner.outputs().size() != 1) return false;
  const ir::Graph& graph = rw.graph();
  std::vector<ir::Node*> nodes;
  ir::Value* x =
      exact ? MatchErfArgument(graph, inner, nodes) : MatchTanhArgument(graph, inner, nodes);
  if (x == nullptr) return false;
  nodes.push_back(&inner);
  ir::Node* one = pattern::SoleUser(graph, inner.output(0));
  if (!IsOpWithScalar(one, "Add", inner.output(0), 1.0, x)) return false;
  nodes.push_back(one);
  ir::Value* y = MatchOuterProduct(rw.graph(), one->output(0), x, nodes);
  if (y == nullptr) return false;

  NewNode spec{"Gelu", "", inner.name(), kGeluOpset, {x}, {y}, {}};
  spec.attrs["approximate"] = std::string(exact ? "none" : "tanh");
  ctx.log.push_back(StrCat("gelu_fusion: fused ", nodes.size(), " nodes around ", inner.Label(),
                           " into Gelu (approximate=", exact ? "none" : "tanh", ")"));
  KILN_RETURN_IF_ERROR(rw.Replace(nodes, std::move(spec)).status(), "in gelu_fusion");
  return true;
}

class GeluFusionPass : public Pass {
 public:
  const char* name() const override { return "gelu_fusion"; }
  Result<bool> Run(ir::Graph& graph, PassContext& ctx) override {
    return pattern::RewriteEachNode(graph,
                                    [&](ir::Node& n, Rewriter& rw) { return TryFuse(n, rw, ctx); });
  }
};

}  // namespace

std::unique_ptr<Pass> CreateGeluFusionPass() { return std::make_unique<GeluFusionPass>(); }

}  // namespace kiln::compiler
