// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// output_selection: --out_nodes makes the named node outputs or tensors the graph's outputs.
#include "compiler/passes/output_selection.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

namespace kiln::compiler {
namespace {

// Lists at most this many names in a message; the rest are counted.
constexpr size_t kMaxListed = 20;

std::string JoinNames(const std::vector<std::string>& names) {
  if (names.empty()) return "(none)";
  std::string s;
  for (size_t i = 0; i < names.size() && i < kMaxListed; ++i) {
    if (i) s += ", ";
    s += "'" + names[i] + "'";
  }
  if (names.size() > kMaxListed) s += StrCat(" and ", names.size() - kMaxListed, " more");
  return s;
}

std::vector<std::string> NodeNames(const ir::Graph& graph) {
  std::vector<std::string> names;
  for (const auto& n : graph.nodes()) {
    if (!n->name().empty()) names.push_back(n->name());
  }
  return names;
}

// Graph inputs, then node outputs in node order: what an entry may name as a tensor.
std::vector<std::string> ComputedTensorNames(const ir::Graph& graph) {
  std::vector<std::string> names;
  for (const ir::Value* v : graph.inputs()) names.push_back(v->name());
  for (const auto& n : graph.nodes()) {
    for (const ir::Value* v : n->outputs()) {
      if (v != nullptr && !v->name().empty()) names.push_back(v->name());
    }
  }
  return names;
}

// A value that a graph input, a node or constant data defines (not one left behind by a
// removed node).
bool IsDefined(const ir::Graph& graph, const ir::Value* v) {
  return v->producer() != nullptr || v->constant() != nullptr ||
         std::find(graph.inputs().begin(), graph.inputs().end(), v) != graph.inputs().end();
}

// "name:index" split at the last colon when what follows it is a plain decimal index.
std::optional<std::pair<std::string, size_t>> SplitNodeIndex(const std::string& entry) {
  const size_t colon = entry.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == entry.size()) return std::nullopt;
  const std::string digits = entry.substr(colon + 1);
  if (!std::all_of(digits.begin(), digits.end(),
                   [](unsigned char c) { return std::isdigit(c) != 0; })) {
    return std::nullopt;
  }
  // Anything longer is out of range for every node; keep it from overflowing.
  const size_t index = digits.size() > 9 ? SIZE_MAX : std::stoul(digits);
  return std::make_pair(entry.substr(0, colon), index);
}

// Nodes named `name`; when there are none, the nodes whose origins include it (a node fused
// into another).
std::vector<const ir::Node*> FindNodes(const ir::Graph& graph, const std::string& name) {
  std::vector<const ir::Node*> found;
  for (const auto& n : graph.nodes()) {
    if (n->name() == name) found.push_back(n.get());
  }
  if (!found.empty()) return found;
  for (const auto& n : graph.nodes()) {
    const auto& o = n->origins();
    if (std::find(o.begin(), o.end(), name) != o.end()) found.push_back(n.get());
  }
  return found;
}

std::string OutputList(const ir::Node& node) {
  std::string s;
  for (size_t i = 0; i < node.outputs().size(); ++i) {
    if (i) s += ", ";
    const ir::Value* v = node.output(i);
    s += StrCat(i, " '", v != nullptr ? v->name() : std::string("<omitted>"), "'");
  }
  return s;
}

class OutputSelection : public Pass {
 public:
  explicit OutputSelection(std::vector<std::string> out_nodes) : out_nodes_(std::move(out_nodes)) {}

  const char* name() const override { return "output_selection"; }

  Result<bool> Run(ir::Graph& graph, PassContext& ctx) override {
    if (out_nodes_.empty()) return false;
    // Resolve every entry before changing anything, so an error leaves the graph untouched.
    std::vector<ir::Value*> selected;
    for (size_t i = 0; i < out_nodes_.size(); ++i) {
      const std::string& entry = out_nodes_[i];
      KILN_ASSIGN_OR_RETURN(ir::Value * v, ResolveOutputEntry(graph, entry, "--out_nodes"));
      if (v->constant() != nullptr) {
        return Error(code::kInvalidParam, "--out_nodes entry '", entry, "' names '", v->name(),
                     "', a constant (an initializer or a value computed at compile time), which "
                     "cannot be a model output; computed tensors are: ",
                     JoinNames(ComputedTensorNames(graph)));
      }
      auto dup = std::find(selected.begin(), selected.end(), v);
      if (dup != selected.end()) {
        const std::string& first = out_nodes_[static_cast<size_t>(dup - selected.begin())];
        return Error(code::kInvalidParam, "--out_nodes entries '", first, "' and '", entry,
                     "' both name tensor '", v->name(), "'; list each output once");
      }
      selected.push_back(v);
    }
    if (selected == graph.outputs()) return false;
    std::vector<std::string> before, after;
    for (const ir::Value* v : graph.outputs()) before.push_back(v->name());
    for (const ir::Value* v : selected) after.push_back(v->name());
    ctx.log.push_back(StrCat(name(), ": outputs ", JoinNames(before), " -> ", JoinNames(after)));
    graph.outputs() = std::move(selected);
    return true;
  }

 private:
  std::vector<std::string> out_nodes_;
};

}  // namespace

Result<ir::Value*> ResolveOutputEntry(const ir::Graph& graph, const std::string& entry,
                                      const std::string& flag) {
  if (entry.empty()) {
    return Error(code::kInvalidParam, flag,
                 " has an empty entry; entries are \"node:index\" or tensor names separated by "
                 "';'");
  }
  auto named_tensor = [&]() -> ir::Value* {
    ir::Value* v = graph.FindValue(entry);
    return v != nullptr && IsDefined(graph, v) ? v : nullptr;
  };
  const auto node_index = SplitNodeIndex(entry);
  if (node_index) {
    const auto& [node_name, index] = *node_index;
    std::vector<const ir::Node*> nodes = FindNodes(graph, node_name);
    if (nodes.size() > 1) {
      std::string labels;
      for (const ir::Node* n : nodes) labels += (labels.empty() ? "" : ", ") + n->Label();
      return Error(code::kInvalidParam, flag, " entry '", entry, "': ", nodes.size(),
                   " nodes carry the name '", node_name, "' (", labels,
                   "); name the tensor instead");
    }
    if (nodes.size() == 1) {
      const ir::Node& node = *nodes.front();
      if (index < node.outputs().size() && node.output(index) != nullptr) {
        return node.output(index);
      }
      if (ir::Value* v = named_tensor()) return v;
      const std::string fused =
          node.name() == node_name ? "" : StrCat(" ('", node_name, "' was fused into it)");
      return Error(code::kInvalidParam, flag, " entry '", entry, "': ", node.Label(), fused,
                   " has ", node.outputs().size(), " output(s) (", OutputList(node), "); index ",
                   entry.substr(node_name.size() + 1), " is out of range");
    }
  }
  if (ir::Value* v = named_tensor()) return v;
  if (node_index) {
    return Error(code::kInvalidParam, flag, " entry '", entry, "': no node is named '",
                 node_index->first, "' and no tensor '", entry,
                 "'; nodes are: ", JoinNames(NodeNames(graph)));
  }
  return Error(code::kInvalidParam, flag, " entry '", entry,
               "': no tensor has this name (give a tensor name or \"node:index\"); tensors are: ",
               JoinNames(ComputedTensorNames(graph)));
}

std::unique_ptr<Pass> CreateOutputSelectionPass(std::vector<std::string> out_nodes) {
  return std::make_unique<OutputSelection>(std::move(out_nodes));
}

}  // namespace kiln::compiler
