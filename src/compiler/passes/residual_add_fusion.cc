// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// residual_add_fusion: a Conv (or a FusedConv with no activation and no residual yet) whose
// output is added to another tensor Z of the same shape, optionally followed by Relu, becomes
// one FusedConv(X, W, B, Z) with activation "Relu" or "". This is the ResNet block tail.
#include <string>
#include <vector>

#include "compiler/passes/passes.h"
#include "compiler/passes/pattern_util.h"

namespace kiln::compiler {
namespace {

using pattern::NewNode;
using pattern::Rewriter;

Result<bool> TryFuse(ir::Node& conv, Rewriter& rw, PassContext& ctx) {
  bool is_conv = pattern::IsOp(&conv, "Conv");
  bool is_fused = pattern::IsOp(&conv, "FusedConv", pattern::kKilnDomain);
  if (!is_conv && !is_fused) return false;
  // An activation already in the FusedConv applies before any residual would; a residual
  // already there leaves no slot.
  if (is_fused && (!conv.attr_string("activation").empty() || conv.input(3) != nullptr)) {
    return false;
  }
  if (conv.outputs().size() != 1 || conv.input(0) == nullptr || conv.input(1) == nullptr) {
    return false;
  }
  ir::Graph& graph = rw.graph();
  ir::Value* y = conv.output(0);
  ir::Node* add = pattern::SoleUser(graph, y);
  if (!pattern::IsOp(add, "Add")) return false;
  ir::Value* z = pattern::OtherInput(*add, y);
  if (z == nullptr || z == y) return false;
  if (y->dtype() == ir::DataType::kUndefined || y->dtype() != z->dtype() ||
      !pattern::SameKnownShape(y->shape(), z->shape())) {
    return false;
  }
  // The fused node reads Z, so Z must not be computed from the Conv's output.
  if (pattern::DependsOn(z, &conv)) return false;

  std::vector<ir::Node*> fused = {&conv, add};
  ir::Value* out = add->output(0);
  std::string activation;
  ir::Node* relu = pattern::SoleUser(graph, out);
  if (pattern::IsOp(relu, "Relu") && relu->input(0) == out && relu->outputs().size() == 1) {
    fused.push_back(relu);
    out = relu->output(0);
    activation = "Relu";
  }

  graph.opsets().emplace(pattern::kKilnDomain, pattern::kKilnOpset);
  NewNode spec{"FusedConv",
               pattern::kKilnDomain,
               conv.name(),
               pattern::kKilnOpset,
               {conv.input(0), conv.input(1), conv.input(2), z},
               {out},
               conv.attrs()};
  spec.attrs["activation"] = activation;
  spec.attrs.erase("activation_alpha");
  spec.attrs.erase("activation_beta");
  ctx.log.push_back(StrCat("residual_add_fusion: fused ", add->Label(),
                           activation.empty() ? "" : " and " + relu->Label(), " into ",
                           conv.Label()));
  KILN_RETURN_IF_ERROR(rw.Replace(fused, std::move(spec)).status(), "in residual_add_fusion");
  return true;
}

class ResidualAddFusionPass : public Pass {
 public:
  const char* name() const override { return "residual_add_fusion"; }
  Result<bool> Run(ir::Graph& graph, PassContext& ctx) override {
    return pattern::RewriteEachNode(graph,
                                    [&](ir::Node& n, Rewriter& rw) { return TryFuse(n, rw, ctx); });
  }
};

}  // namespace

std::unique_ptr<Pass> CreateResidualAddFusionPass() {
  return std::make_unique<ResidualAddFusionPass>();
}

}  // namespace kiln::compiler
