// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// post_affine_fusion: a FusedConv's or a matrix product's output scaled and shifted by scalar
// constants — a chain of Mul, Add, Sub (y - c) and Div (y / c, c != 0) nodes, each the only reader
// of what precedes it — becomes the node's post_scale / post_shift: y = act(conv + B + Z) *
// post_scale + post_shift (one oneDNN eltwise_linear post-op, no pass over memory of its own).
// PP-LCNet's "learnable affine blocks" put such a Mul and Add after every activation (PP-OCRv4's
// detector: 34 of each), and between two convolutions they also kept channels_last from keeping
// the tensor NHWC; a transformer divides every attention's scores by sqrt(d) (a float32 MatMul
// becomes a FusedMatMul with activation "" for it). An affine step before the activation is
// conv_bn_fold's (into the weights); this pass takes what follows an activation or a residual.
// Runs after residual_add_fusion and the second bias_activation_fusion.
#include <optional>
#include <string>
#include <vector>

#include "compiler/passes/passes.h"
#include "compiler/passes/pattern_util.h"

namespace kiln::compiler {
namespace {

using pattern::NewNode;
using pattern::Rewriter;

// `node`: a FusedConv, FusedMatMul or float32 MatMul, and the affine chain after it.
Result<bool> TryFuse(ir::Node& node, Rewriter& rw, PassContext& ctx) {
  const bool matmul = pattern::IsOp(&node, "MatMul");
  const bool fused_matmul = pattern::IsOp(&node, "FusedMatMul", pattern::kKilnDomain);
  if ((!matmul && !fused_matmul && !pattern::IsOp(&node, "FusedConv", pattern::kKilnDomain)) ||
      node.outputs().size() != 1) {
    return false;
  }
  ir::Graph& graph = rw.graph();
  double scale = node.has_attr("post_scale") ? node.attr_float("post_scale") : 1.0;
  double shift = node.has_attr("post_shift") ? node.attr_float("post_shift") : 0.0;
  std::vector<ir::Node*> fused = {&node};
  ir::Value* out = node.output(0);
  if (out == nullptr || out->dtype() != ir::DataType::kFloat32) return false;
  for (;;) {
    ir::Node* next = pattern::SoleUser(graph, out);
    const std::optional<pattern::AffineStep> step = pattern::MatchAffineStep(next, out);
    if (!step || next->output(0) == nullptr) break;
    // The constant: one float32 value that cannot broadcast the output to a larger shape.
    const ir::Value* c = step->c;
    if (c->constant() == nullptr || c->constant()->dtype() != ir::DataType::kFloat32 ||
        !pattern::IsScalarFor(c, out)) {
      break;
    }
    const std::optional<double> v = pattern::ScalarConstant(c);
    if (!v || (step->kind == pattern::AffineStep::kDiv && *v == 0.0)) break;
    pattern::ComposeAffine(step->kind, *v, scale, shift);
    fused.push_back(next);
    out = next->output(0);
  }
  if (fused.size() == 1) return false;

  NewNode spec{matmul || fused_matmul ? "FusedMatMul" : "FusedConv",
               pattern::kKilnDomain,
               node.name(),
               matmul ? pattern::kKilnOpset : node.opset(),
               node.inputs(),
               {out},
               node.attrs()};
  if (matmul) {
    graph.opsets().emplace(pattern::kKilnDomain, pattern::kKilnOpset);
    spec.attrs["activation"] = std::string();
  }
  spec.attrs["post_scale"] = static_cast<float>(scale);
  spec.attrs["post_shift"] = static_cast<float>(shift);
  for (size_t i = 1; i < fused.size(); ++i) {
    ctx.log.push_back(
        StrCat("post_affine_fusion: fused ", fused[i]->Label(), " into ", node.Label()));
  }
  KILN_RETURN_IF_ERROR(rw.Replace(fused, std::move(spec)).status(), "in post_affine_fusion");
  return true;
}

class PostAffineFusionPass : public Pass {
 public:
  const char* name() const override { return "post_affine_fusion"; }
  Result<bool> Run(ir::Graph& graph, PassContext& ctx) override {
    return pattern::RewriteEachNode(graph,
                                    [&](ir::Node& n, Rewriter& rw) { return TryFuse(n, rw, ctx); });
  }
};

}  // namespace

std::unique_ptr<Pass> CreatePostAffineFusionPass() {
  return std::make_unique<PostAffineFusionPass>();
}

}  // namespace kiln::compiler
