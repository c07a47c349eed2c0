// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// dead_code_elimination: bypasses Identity and inference-mode Dropout, removes nodes none of
// whose outputs reach a graph output, then drops values nothing uses. Graph inputs stay (the
// caller still passes them), and graph outputs keep their names.
#include <algorithm>
#include <iterator>
#include <memory>
#include <set>
#include <string>
#include <unordered_set>
#include <variant>
#include <vector>

#include "compiler/passes/passes.h"

namespace kiln::compiler {
namespace {

bool Contains(const std::vector<ir::Value*>& values, const ir::Value* v) {
  return std::find(values.begin(), values.end(), v) != values.end();
}

class DeadCodeElimination : public Pass {
 public:
  const char* name() const override { return "dead_code_elimination"; }

  Result<bool> Run(ir::Graph& graph, PassContext& ctx) override {
    captured_ = ir::CapturedNames(graph);
    const size_t values_before = graph.values().size();
    KILN_ASSIGN_OR_RETURN(size_t bypassed, BypassPassThroughs(graph));
    const size_t dead = RemoveDeadNodes(graph);
    // Graph::Prune() does not see reads by subgraphs: list the values the surviving subgraphs
    // read as outputs meanwhile.
    const size_t n_outputs = graph.outputs().size();
    for (const auto& node : graph.nodes()) {
      for (const std::string& name : ir::CapturedNames(*node)) {
        if (ir::Value* v = graph.FindValue(name)) graph.outputs().push_back(v);
      }
    }
    graph.Prune();
    graph.outputs().resize(n_outputs);
    const size_t values_dropped = values_before - graph.values().size();
    if (bypassed == 0 && dead == 0 && values_dropped == 0) return false;
    ctx.log.push_back(StrCat(name(), ": bypassed ", bypassed, " Identity/Dropout node(s), removed ",
                             dead, " dead node(s) and ", values_dropped, " unused value(s)"));
    return true;
  }

 private:
  // Identity, or a Dropout that does nothing at inference (its mask unread).
  bool IsPassThrough(const ir::Graph& graph, const ir::Node& node) const {
    if (!node.domain().empty() || node.input(0) == nullptr || node.output(0) == nullptr) {
      return false;
    }
    if (node.op_type() == "Identity") return node.outputs().size() == 1;
    if (node.op_type() != "Dropout") return false;
    if (const ir::Value* mask = node.output(1)) {
      if (!graph.Uses(mask).empty() || Contains(graph.outputs(), mask) ||
          captured_.count(mask->name())) {
        return false;
      }
    }
    if (node.opset() < 7) return node.attr_int("is_test") != 0;
    if (node.opset() >= 12 && node.input(2) != nullptr) {
      // training_mode must be a known false.
      const ir::Tensor* mode = node.input(2)->constant();
      if (mode == nullptr) return false;
      std::vector<int64_t> v = mode->AsInt64s();
      return v.size() == 1 && v[0] == 0;
    }
    return true;
  }

  // Removes pass-through nodes x -> y: readers of y read x instead. When y is a graph output
  // (a name the caller relies on), x's producer is rebuilt to produce y instead; when that is
  // not possible either (x is a graph input, a constant or another graph output) the node
  // stays. Returns how many were removed.
  Result<size_t> BypassPassThroughs(ir::Graph& graph) {
    std::vector<ir::Node*> candidates;
    for (auto& node : graph.nodes()) {
      if (IsPassThrough(graph, *node)) candidates.push_back(node.get());
    }
    std::unordered_set<const ir::Node*> gone;  // removed or rebuilt
    size_t bypassed = 0;
    for (ir::Node* node : candidates) {
      if (gone.count(node)) continue;
      ir::Value* x = node->input(0);
      ir::Value* y = node->output(0);
      if (captured_.count(y->name())) continue;  // a subgraph reads y by name
      if (!Contains(graph.outputs(), y)) {
        gone.insert(node);
        graph.RemoveNode(node);
        graph.ReplaceAllUses(y, x);
        ++bypassed;
        continue;
      }
      ir::Node* producer = x->producer();
      if (producer == nullptr || x->constant() != nullptr || Contains(graph.outputs(), x) ||
          captured_.count(x->name())) {
        continue;
      }
      std::vector<std::string> origins = node->origins();
      gone.insert(node);
      gone.insert(producer);
      graph.RemoveNode(node);
      graph.ReplaceAllUses(x, y);
      KILN_RETURN_IF_ERROR(RebuildWithOutput(graph, producer, x, y, origins),
                           StrCat("while bypassing '", y->name(), "'"));
      ++bypassed;
    }
    return bypassed;
  }

  // Makes `node` produce `to` instead of `from`, and records `more_origins` on it.
  static Status RebuildWithOutput(ir::Graph& graph, ir::Node* node, ir::Value* from, ir::Value* to,
                                  const std::vector<std::string>& more_origins) {
    KILN_RETURN_IF_ERROR(graph.ReplaceOutput(node, from, to), "");
    node->add_origins(more_origins);
    return Status::Ok();
  }

  // Removes nodes none of whose outputs reach a graph output (directly, through other nodes'
  // inputs, or through names a live node's subgraphs read). Returns how many.
  size_t RemoveDeadNodes(ir::Graph& graph) const {
    std::unordered_set<const ir::Value*> seen;
    std::unordered_set<const ir::Node*> live;
    std::vector<const ir::Value*> work;
    auto use = [&](const ir::Value* v) {
      if (v != nullptr && seen.insert(v).second) work.push_back(v);
    };
    for (const ir::Value* out : graph.outputs()) use(out);
    while (!work.empty()) {
      const ir::Value* v = work.back();
      work.pop_back();
      const ir::Node* producer = v->producer();
      if (producer == nullptr || !live.insert(producer).second) continue;
      for (const ir::Value* in : producer->inputs()) use(in);
      for (const std::string& name : ir::CapturedNames(*producer)) use(graph.FindValue(name));
    }
    std::vector<ir::Node*> dead;
    for (auto& node : graph.nodes()) {
      if (!live.count(node.get())) dead.push_back(node.get());
    }
    for (ir::Node* node : dead) graph.RemoveNode(node);
    return dead.size();
  }

  std::set<std::string> captured_;  // names subgraphs read from this graph (during Run)
};

}  // namespace

std::unique_ptr<Pass> CreateDeadCodeEliminationPass() {
  return std::make_unique<DeadCodeElimination>();
}

}  // namespace kiln::compiler
