// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// sum_to_add: a Sum of two inputs becomes the Add it is, so that the passes after it, which
// match Add, see it: residual_add_fusion (the Caffe2-exported ResNets of the ONNX model zoo end
// every block with Sum), bias_activation_fusion, channels_last and arithmetic_chain. From opset 8
// on Sum broadcasts as Add does; before, it takes only tensors of one shape, which it is then
// rewritten for only when that is provable. Sums of one input or of three and more stay.
#include <string>
#include <utility>

#include "compiler/passes/passes.h"
#include "compiler/passes/pattern_util.h"

namespace kiln::compiler {
namespace {

using pattern::NewNode;
using pattern::Rewriter;

Result<bool> TryRewrite(ir::Node& sum, Rewriter& rw, PassContext& ctx) {
  if (!pattern::IsOp(&sum, "Sum") || sum.inputs().size() != 2 || sum.outputs().size() != 1) {
    return false;
  }
  ir::Value* a = sum.input(0);
  ir::Value* b = sum.input(1);
  if (a == nullptr || b == nullptr) return false;
  // The Add of the same opset: from 7 on it broadcasts as Sum-8 does; before 7 it needs the
  // same shapes (or a broadcast attribute), as Sum-6 does.
  const int opset = sum.opset();
  if (opset < 8 && !pattern::SameKnownShape(a->shape(), b->shape())) return false;
  NewNode spec{"Add", "", sum.name(), opset, {a, b}, {sum.output(0)}, {}};
  ctx.log.push_back(StrCat("sum_to_add: ", sum.Label(), " is an Add"));
  KILN_RETURN_IF_ERROR(rw.Replace({&sum}, std::move(spec)).status(), "in sum_to_add");
  return true;
}

class SumToAddPass : public Pass {
 public:
  const char* name() const override { return "sum_to_add"; }
  Result<bool> Run(ir::Graph& graph, PassContext& ctx) override {
    return pattern::RewriteEachNode(
        graph, [&](ir::Node& n, Rewriter& rw) { return TryRewrite(n, rw, ctx); });
  }
};

}  // namespace

std::unique_ptr<Pass> CreateSumToAddPass() { return std::make_unique<SumToAddPass>(); }

}  // namespace kiln::compiler
