// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// channel_shuffle_fusion: the channel shuffle of ShuffleNet v1 and v2 as their exports spell it,
// Reshape X [N, C, S...] to [N, g, C / g, S...] -> Transpose swapping axes 1 and 2 -> Reshape
// back to X's shape, becomes one com.kiln ChannelShuffle (group g) over X's channels (OpenVINO's
// ShuffleChannels fusion does the same). The three nodes move the data once instead of through a
// rank-5 Transpose, and channels_last can keep the shuffle NHWC (a transposition of each pixel's
// channels) between the grouped and depthwise convolutions around it, where the Transpose kept
// them NCHW (oneDNN's NCHW grouped convolutions are its gemm ones: ShuffleNet's took 2-4x the
// NHWC time). Matched when the shapes are known (named symbols allowed for N and the spatial dims;
// C and g known), and the two intermediate values are read by the next node only.
#include <string>
#include <utility>
#include <vector>

#include "compiler/passes/passes.h"
#include "compiler/passes/pattern_util.h"

namespace kiln::compiler {
namespace {

using pattern::NewNode;
using pattern::Rewriter;

// The group g when `split` ([N, g, C / g, S...]) splits the channels of `x` ([N, C, S...]) in g
// rows; 0 otherwise.
int64_t SplitGroups(const ir::Shape& x, const ir::Shape& split) {
  if (!x.rank_known() || !split.rank_known() || x.rank() < 2 || split.rank() != x.rank() + 1) {
    return 0;
  }
  const std::vector<ir::Dim>& a = x.dims();
  const std::vector<ir::Dim>& b = split.dims();
  if (!a[1].known() || !b[1].known() || !b[2].known() || b[1].value * b[2].value != a[1].value ||
      b[1].value < 1) {
    return 0;
  }
  for (size_t i = 0; i < a.size(); ++i) {
    if (i == 1) continue;
    const ir::Dim& other = b[i == 0 ? 0 : i + 1];
    if (!pattern::SameKnownDim(a[i], other)) return 0;
  }
  return b[1].value;
}

// True when `t` swaps axes 1 and 2 of a tensor of `rank` and keeps the others.
bool SwapsAxes1And2(const ir::Node& t, size_t rank) {
  if (!t.has_attr("perm")) return false;
  const std::vector<int64_t> perm = t.attr_ints("perm");
  if (perm.size() != rank || rank < 3) return false;
  for (size_t i = 0; i < rank; ++i) {
    const int64_t want = i == 1 ? 2 : i == 2 ? 1 : static_cast<int64_t>(i);
    if (perm[i] != want) return false;
  }
  return true;
}

Result<bool> TryRewrite(ir::Node& transpose, Rewriter& rw, PassContext& ctx) {
  ir::Graph& graph = rw.graph();
  if (!pattern::IsOp(&transpose, "Transpose") || transpose.input(0) == nullptr) return false;
  ir::Value* split = transpose.input(0);
  ir::Node* first = split->producer();
  if (!pattern::IsOp(first, "Reshape") || first->input(0) == nullptr ||
      pattern::SoleUser(graph, split) != &transpose) {
    return false;
  }
  ir::Value* x = first->input(0);
  const int64_t group = SplitGroups(x->shape(), split->shape());
  if (group == 0 || !SwapsAxes1And2(transpose, x->shape().rank() + 1)) return false;
  ir::Node* second = pattern::SoleUser(graph, transpose.output(0));
  if (!pattern::IsOp(second, "Reshape") || second->output(0) == nullptr ||
      !pattern::SameKnownShape(second->output(0)->shape(), x->shape()) ||
      second->output(0)->dtype() != x->dtype()) {
    return false;
  }
  graph.opsets().emplace(pattern::kKilnDomain, pattern::kKilnOpset);
  NewNode spec{
      "ChannelShuffle",    pattern::kKilnDomain, transpose.name(), pattern::kKilnOpset, {x},
      {second->output(0)}, {{"group", group}}};
  ctx.log.push_back(StrCat("channel_shuffle_fusion: ", first->Label(), " -> ", transpose.Label(),
                           " -> ", second->Label(), " became ChannelShuffle of ", group,
                           " groups"));
  KILN_RETURN_IF_ERROR(rw.Replace({first, &transpose, second}, std::move(spec)).status(),
                       "in channel_shuffle_fusion");
  return true;
}

class ChannelShuffleFusionPass : public Pass {
 public:
  const char* name() const override { return "channel_shuffle_fusion"; }
  Result<bool> Run(ir::Graph& graph, PassContext& ctx) override {
    return pattern::RewriteEachNode(
        graph, [&](ir::Node& n, Rewriter& rw) { return TryRewrite(n, rw, ctx); });
  }
};

}  // namespace

std::unique_ptr<Pass> CreateChannelShuffleFusionPass() {
  return std::make_unique<ChannelShuffleFusionPass>();
}

}  // namespace kiln::compiler
