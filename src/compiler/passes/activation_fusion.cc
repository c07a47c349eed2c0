// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// activation_fusion: activations that exporters spell out in elementwise nodes become one node,
// so they run in one pass over memory (and bias_activation_fusion can then fold them into the
// producing Conv/Gemm):
//   SiLU:      Mul(x, Sigmoid(x))                          -> Swish(x) (opset 24, alpha 1)
//   HardSwish: Div(Mul(x, Clip(Add(x, 3), 0, 6)), 6)      -> HardSwish(x) (opset 14)
//              with Mul(.., 1/6) for the Div, or the scale applied to the Clip first:
//              Mul(x, Div(Clip(Add(x, 3), 0, 6), 6)); Add and Mul operands in either order,
//              Clip bounds as inputs (opset 11+) or attributes; constants match within 1e-4.
// Every intermediate value must have the matched node as its only user.
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

constexpr int kSwishOpset = 24;
constexpr int kHardSwishOpset = 14;
constexpr double kTol = 1e-4;

// Mul(x, Sigmoid(x)) from the Sigmoid.
Result<bool> TrySiLU(ir::Node& sigmoid, Rewriter& rw, PassContext& ctx) {
  if (sigmoid.inputs().size() != 1 || sigmoid.outputs().size() != 1) return false;
  ir::Value* x = sigmoid.input(0);
  ir::Node* mul = pattern::SoleUser(rw.graph(), sigmoid.output(0));
  if (x == nullptr || !pattern::IsOp(mul, "Mul") || mul->inputs().size() != 2 ||
      pattern::OtherInput(*mul, sigmoid.output(0)) != x) {
    return false;
  }
  NewNode spec{"Swish", "", mul->name(), kSwishOpset, {x}, {mul->output(0)}, {}};
  spec.attrs["alpha"] = 1.0f;
  ctx.log.push_back(StrCat("activation_fusion: ", sigmoid.Label(), " and ", mul->Label(),
                           " (x * sigmoid(x)) into Swish"));
  KILN_RETURN_IF_ERROR(rw.Replace({&sigmoid, mul}, std::move(spec)).status(),
                       "in activation_fusion");
  return true;
}

// Whether Clip `clip` bounds its input to [0, 6].
bool ClipsToZeroSix(const ir::Node& clip) {
  std::optional<double> lo;
  std::optional<double> hi;
  if (clip.opset() < 11) {
    if (!clip.has_attr("min") || !clip.has_attr("max")) return false;
    lo = clip.attr_float("min");
    hi = clip.attr_float("max");
  } else {
    if (clip.inputs().size() != 3 || clip.input(1) == nullptr || clip.input(2) == nullptr) {
      return false;
    }
    lo = pattern::ScalarConstant(clip.input(1));
    hi = pattern::ScalarConstant(clip.input(2));
  }
  return lo && hi && std::abs(*lo) <= kTol && std::abs(*hi - 6.0) <= kTol;
}

// `n` divides `v` by 6 (Div(v, 6)) or multiplies it by 1/6, with a scalar that cannot
// broadcast `like` to a larger shape.
bool ScalesBySixth(const ir::Node* n, const ir::Value* v, const ir::Value* like) {
  if (n == nullptr || n->inputs().size() != 2) return false;
  if (pattern::IsOp(n, "Div")) {
    return n->input(0) == v && pattern::IsScalarNear(n->input(1), 6.0, like, kTol);
  }
  if (!pattern::IsOp(n, "Mul")) return false;
  ir::Value* other = pattern::OtherInput(*n, v);
  return other != v && pattern::IsScalarNear(other, 1.0 / 6.0, like, kTol);
}

// x * clip(x + 3, 0, 6) / 6 from the Clip.
Result<bool> TryHardSwish(ir::Node& clip, Rewriter& rw, PassContext& ctx) {
  const ir::Graph& graph = rw.graph();
  if (clip.outputs().size() != 1 || clip.input(0) == nullptr || !ClipsToZeroSix(clip)) {
    return false;
  }
  ir::Node* add = clip.input(0)->producer();
  if (!pattern::IsOp(add, "Add") || add->inputs().size() != 2 ||
      pattern::SoleUser(graph, clip.input(0)) != &clip) {
    return false;
  }
  ir::Value* x = nullptr;
  for (size_t i = 0; i < 2 && x == nullptr; ++i) {
    ir::Value* v = add->input(i);
    if (v != nullptr && v->constant() == nullptr &&
        pattern::IsScalarNear(add->input(1 - i), 3.0, v, kTol)) {
      x = v;
    }
  }
  if (x == nullptr) return false;
  std::vector<ir::Node*> nodes{add, &clip};
  ir::Value* c = clip.output(0);
  ir::Node* next = pattern::SoleUser(graph, c);
  ir::Value* y = nullptr;
  if (pattern::IsOp(next, "Mul") && next->inputs().size() == 2 &&
      pattern::OtherInput(*next, c) == x) {
    // (x * clip) / 6
    ir::Node* scale = pattern::SoleUser(graph, next->output(0));
    if (!ScalesBySixth(scale, next->output(0), x)) return false;
    nodes.push_back(next);
    nodes.push_back(scale);
    y = scale->output(0);
  } else if (ScalesBySixth(next, c, x)) {
    // x * (clip / 6)
    ir::Node* mul = pattern::SoleUser(graph, next->output(0));
    if (!pattern::IsOp(mul, "Mul") || mul->inputs().size() != 2 ||
        pattern::OtherInput(*mul, next->output(0)) != x) {
      return false;
    }
    nodes.push_back(next);
    nodes.push_back(mul);
    y = mul->output(0);
  } else {
    return false;
  }
  NewNode spec{"HardSwish", "", nodes.back()->name(), kHardSwishOpset, {x}, {y}, {}};
  ctx.log.push_back(StrCat("activation_fusion: fused ", nodes.size(), " nodes around ",
                           clip.Label(), " (x * clip(x + 3, 0, 6) / 6) into HardSwish"));
  KILN_RETURN_IF_ERROR(rw.Replace(nodes, std::move(spec)).status(), "in activation_fusion");
  return true;
}

class ActivationFusionPass : public Pass {
 public:
  const char* name() const override { return "activation_fusion"; }
  Result<bool> Run(ir::Graph& graph, PassContext& ctx) override {
    return pattern::RewriteEachNode(graph, [&](ir::Node& n, Rewriter& rw) -> Result<bool> {
      if (pattern::IsOp(&n, "Sigmoid")) return TrySiLU(n, rw, ctx);
      if (pattern::IsOp(&n, "Clip")) return TryHardSwish(n, rw, ctx);
      return false;
    });
  }
};

}  // namespace

std::unique_ptr<Pass> CreateActivationFusionPass() {
  return std::make_unique<ActivationFusionPass>();
}

}  // namespace kiln::compiler
