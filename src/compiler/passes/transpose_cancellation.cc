// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// transpose_cancellation: Transpose(p2) after Transpose(p1) becomes one Transpose with the
// composed perm, or nothing when that is the identity; a lone identity Transpose goes too.
#include <algorithm>
#include <iterator>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_set>
#include <variant>
#include <vector>

#include "compiler/passes/passes.h"

namespace kiln::compiler {
namespace {

using Perm = std::vector<int64_t>;

bool IsTranspose(const ir::Node* node) {
  return node != nullptr && node->domain().empty() && node->op_type() == "Transpose" &&
         node->input(0) != nullptr && node->output(0) != nullptr;
}

// The node's perm: its attribute, or the reversal of `rank` dims (ONNX's default) when it has
// none; nullopt when neither is known or the attribute is not a permutation.
std::optional<Perm> PermOf(const ir::Node& node, std::optional<size_t> rank) {
  Perm perm;
  if (node.has_attr("perm")) {
    perm = node.attr_ints("perm");
  } else if (rank) {
    for (size_t i = *rank; i-- > 0;) perm.push_back(static_cast<int64_t>(i));
  } else {
    return std::nullopt;
  }
  std::vector<bool> seen(perm.size(), false);
  for (int64_t p : perm) {
    if (p < 0 || p >= static_cast<int64_t>(perm.size()) || seen[static_cast<size_t>(p)]) {
      return std::nullopt;
    }
    seen[static_cast<size_t>(p)] = true;
  }
  return perm;
}

bool IsIdentity(const Perm& perm) {
  for (size_t i = 0; i < perm.size(); ++i) {
    if (perm[i] != static_cast<int64_t>(i)) return false;
  }
  return true;
}

std::optional<size_t> RankOf(const ir::Value* v) {
  if (!v->shape().rank_known()) return std::nullopt;
  return v->shape().rank();
}

class TransposeCancellation : public Pass {
 public:
  const char* name() const override { return "transpose_cancellation"; }

  Result<bool> Run(ir::Graph& graph, PassContext& ctx) override {
    captured_ = ir::CapturedNames(graph);
    std::vector<ir::Node*> transposes;
    for (auto& node : graph.nodes()) {
      if (IsTranspose(node.get())) transposes.push_back(node.get());
    }
    std::unordered_set<const ir::Node*> gone;
    size_t merged = 0, removed = 0;
    for (ir::Node* second : transposes) {
      if (gone.count(second)) continue;
      ir::Value* mid = second->input(0);
      ir::Node* first = mid->producer();
      if (IsTranspose(first) && graph.Uses(mid).size() == 1 &&
          std::find(graph.outputs().begin(), graph.outputs().end(), mid) == graph.outputs().end() &&
          !captured_.count(mid->name())) {
        auto p1 = PermOf(*first, RankOf(first->input(0)));
        auto p2 = p1 ? PermOf(*second, p1->size()) : std::nullopt;
        if (p1 && p2 && p1->size() == p2->size()) {
          // y[j] = mid[p2[j]] = x[p1[p2[j]]].
          Perm composed(p2->size());
          for (size_t j = 0; j < composed.size(); ++j) {
            composed[j] = (*p1)[static_cast<size_t>((*p2)[j])];
          }
          KILN_ASSIGN_OR_RETURN(ir::Node * replacement, Replace(graph, first, second, composed));
          gone.insert(first);
          gone.insert(second);
          if (replacement != nullptr && IsIdentity(composed)) {
            ++removed;  // became an Identity kept for a graph output's name
          } else if (replacement != nullptr) {
            ++merged;
          } else {
            removed += 2;
          }
          continue;
        }
      }
      auto perm = PermOf(*second, RankOf(mid));
      if (perm && IsIdentity(*perm)) {
        KILN_ASSIGN_OR_RETURN(ir::Node * replacement, Replace(graph, nullptr, second, *perm));
        (void)replacement;
        gone.insert(second);
        ++removed;
      }
    }
    if (merged == 0 && removed == 0) return false;
    ctx.log.push_back(StrCat(name(), ": merged ", merged, " Transpose pair(s), removed ", removed,
                             " identity Transpose(s)"));
    return true;
  }

 private:
  // Replaces `second` (and `first` before it, when given) by what `perm` applied to the chain's
  // input x amounts to: a Transpose, or for the identity nothing (readers of y read x) unless
  // y is a graph output or a subgraph reads it by name; then an Identity keeps y's name (and
  // dead_code_elimination bypasses it where it can). The new node takes second's place and
  // name, and the origins of both. Returns it, or null when there is none.
  Result<ir::Node*> Replace(ir::Graph& graph, ir::Node* first, ir::Node* second, const Perm& perm) {
    ir::Value* x = first != nullptr ? first->input(0) : second->input(0);
    ir::Value* y = second->output(0);
    const bool keep_y =
        std::find(graph.outputs().begin(), graph.outputs().end(), y) != graph.outputs().end() ||
        captured_.count(y->name()) != 0;
    auto& nodes = graph.nodes();
    auto it = std::find_if(nodes.begin(), nodes.end(),
                           [&](const std::unique_ptr<ir::Node>& n) { return n.get() == second; });
    auto next = std::next(it);
    if (next != nodes.end() && next->get() == first) ++next;
    std::vector<std::string> origins;
    if (first != nullptr) origins = first->origins();
    origins.insert(origins.end(), second->origins().begin(), second->origins().end());
    const std::string name = second->name();
    const int opset = second->opset();
    if (first != nullptr) graph.RemoveNode(first);
    graph.RemoveNode(second);
    if (IsIdentity(perm) && !keep_y) {
      graph.ReplaceAllUses(y, x);
      return static_cast<ir::Node*>(nullptr);
    }
    const char* op_type = IsIdentity(perm) ? "Identity" : "Transpose";
    KILN_ASSIGN_OR_RETURN(ir::Node * node, graph.AddNode(op_type, "", name, opset, {x}, {y}));
    if (!IsIdentity(perm)) node->set_attr("perm", perm);
    node->add_origins(origins);
    nodes.splice(next, nodes, std::prev(nodes.end()));
    return node;
  }

  std::set<std::string> captured_;  // names subgraphs read from this graph (during Run)
};

}  // namespace

std::unique_ptr<Pass> CreateTransposeCancellationPass() {
  return std::make_unique<TransposeCancellation>();
}

}  // namespace kiln::compiler
