// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "ir/graph.h"

#include <algorithm>
#include <unordered_set>

namespace kiln::ir {

const char* AttrKindName(AttrKind k) {
  static const char* const kNames[] = {"int",    "float",   "string", "ints",
                                       "floats", "strings", "tensor", "graph"};
  return kNames[static_cast<size_t>(k)];
}

const char* AttributeKind(const Attribute& a) {
  return AttrKindName(static_cast<AttrKind>(a.index()));
}

void Node::set_input(size_t i, Value* v) {
  if (i >= inputs_.size()) inputs_.resize(i + 1, nullptr);
  inputs_[i] = v;
}

void Node::add_origins(const std::vector<std::string>& more) {
  for (const auto& o : more) {
    if (std::find(origins_.begin(), origins_.end(), o) == origins_.end()) origins_.push_back(o);
  }
}

std::string Node::Label() const {
  return op_type_ + " '" + (name_.empty() ? std::string("<unnamed>") : name_) + "'";
}

Result<Value*> Graph::AddValue(const std::string& name, TensorType type) {
  if (!name.empty() && by_name_.count(name)) {
    return Error(code::kInvalidParam, "value '", name, "' is defined twice");
  }
  values_.push_back(std::make_unique<Value>(name, std::move(type)));
  Value* v = values_.back().get();
  if (!name.empty()) by_name_[name] = v;
  return v;
}

Value* Graph::AddUniqueValue(const std::string& hint, TensorType type) {
  std::string name = hint;
  while (name.empty() || by_name_.count(name))
    name = hint + "_" + std::to_string(++unique_counter_);
  return *AddValue(name, std::move(type));
}

Value* Graph::FindValue(const std::string& name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : it->second;
}

Result<Node*> Graph::AddNode(const std::string& op_type, const std::string& domain,
                             const std::string& name, int opset, std::vector<Value*> inputs,
                             std::vector<Value*> outputs) {
  for (Value* out : outputs) {
    if (out != nullptr && out->producer_ != nullptr) {
      return Error(code::kInvalidParam, "value '", out->name(), "' is produced by both ",
                   out->producer_->Label(), " and ", op_type, " '", name, "'");
    }
  }
  auto node = std::make_unique<Node>();
  node->op_type_ = op_type;
  node->domain_ = domain;
  node->name_ = name;
  node->opset_ = opset;
  node->inputs_ = std::move(inputs);
  node->outputs_ = std::move(outputs);
  if (!name.empty()) node->origins_.push_back(name);
  for (Value* out : node->outputs_) {
    if (out) out->producer_ = node.get();
  }
  nodes_.push_back(std::move(node));
  return nodes_.back().get();
}

Status Graph::ReplaceOutput(Node* node, Value* from, Value* to) {
  if (to->producer_ != nullptr && to->producer_ != node) {
    return Error(code::kInvalidParam, "value '", to->name(), "' is already produced by ",
                 to->producer_->Label());
  }
  auto it = std::find(node->outputs_.begin(), node->outputs_.end(), from);
  if (it == node->outputs_.end()) {
    return Error(code::kInvalidParam, "'", from->name(), "' is not an output of ", node->Label());
  }
  *it = to;
  from->producer_ = nullptr;
  to->producer_ = node;
  return Status::Ok();
}

void Graph::RemoveNode(Node* node) {
  for (Value* out : node->outputs_) {
    if (out && out->producer_ == node) out->producer_ = nullptr;
  }
  nodes_.remove_if([node](const std::unique_ptr<Node>& n) { return n.get() == node; });
}

void Graph::ReplaceAllUses(Value* from, Value* to) {
  for (auto& n : nodes_) {
    for (auto& in : n->inputs_) {
      if (in == from) in = to;
    }
  }
  for (auto& out : outputs_) {
    if (out == from) out = to;
  }
}

std::vector<Node*> Graph::Uses(const Value* v) const {
  std::vector<Node*> uses;
  for (auto& n : nodes_) {
    for (Value* in : n->inputs_) {
      if (in == v) uses.push_back(n.get());
    }
  }
  return uses;
}

namespace {

// Adds to `names` what `graph`'s nodes (and their nested bodies) read without `graph` defining it.
void CollectOuterReads(const Graph& graph, std::set<std::string>* names) {
  std::unordered_set<const Value*> inputs(graph.inputs().begin(), graph.inputs().end());
  auto defined = [&](const Value* v) {
    return v->producer() != nullptr || v->constant() != nullptr || inputs.count(v) != 0;
  };
  for (const auto& node : graph.nodes()) {
    for (const std::string& name : CapturedNames(*node)) {
      const Value* v = graph.FindValue(name);
      if (v == nullptr || !defined(v)) names->insert(name);
    }
    for (const Value* v : node->inputs()) {
      if (v != nullptr && !defined(v)) names->insert(v->name());
    }
  }
}

}  // namespace

std::set<std::string> CapturedNames(const Node& node) {
  std::set<std::string> names;
  for (const auto& [attr_name, attr] : node.attrs()) {
    if (const auto* body = std::get_if<std::shared_ptr<Graph>>(&attr); body && *body) {
      CollectOuterReads(**body, &names);
    }
  }
  return names;
}

std::set<std::string> CapturedNames(const Graph& graph) {
  std::set<std::string> names;
  for (const auto& node : graph.nodes()) {
    std::set<std::string> reads = CapturedNames(*node);
    names.insert(reads.begin(), reads.end());
  }
  return names;
}

void Graph::Prune() {
  std::unordered_set<const Value*> live(inputs_.begin(), inputs_.end());
  for (const std::string& name : CapturedNames(*this)) {
    if (Value* v = FindValue(name)) live.insert(v);
  }
  live.insert(outputs_.begin(), outputs_.end());
  for (auto& n : nodes_) {
    live.insert(n->inputs_.begin(), n->inputs_.end());
    live.insert(n->outputs_.begin(), n->outputs_.end());
  }
  std::vector<std::unique_ptr<Value>> kept;
  for (auto& v : values_) {
    if (live.count(v.get())) {
      kept.push_back(std::move(v));
    } else if (!v->name().empty()) {
      by_name_.erase(v->name());
    }
  }
  values_ = std::move(kept);
}

Status Graph::TopologicalSort() {
  std::unordered_set<const Value*> ready;
  for (Value* v : inputs_) ready.insert(v);
  for (auto& v : values_) {
    if (v->constant()) ready.insert(v.get());
  }
  std::list<std::unique_ptr<Node>> sorted;
  std::list<std::unique_ptr<Node>> pending = std::move(nodes_);
  bool progress = true;
  while (!pending.empty() && progress) {
    progress = false;
    for (auto it = pending.begin(); it != pending.end();) {
      bool ok = std::all_of((*it)->inputs_.begin(), (*it)->inputs_.end(),
                            [&](Value* v) { return v == nullptr || ready.count(v); });
      if (ok) {
        for (Value* out : (*it)->outputs_) ready.insert(out);
        sorted.push_back(std::move(*it));
        it = pending.erase(it);
        progress = true;
      } else {
        ++it;
      }
    }
  }
  if (!pending.empty()) {
    const Node& stuck = *pending.front();
    std::string missing;
    for (Value* v : stuck.inputs_) {
      if (v && !ready.count(v)) missing = v->name();
    }
    for (auto& n : pending) sorted.push_back(std::move(n));
    nodes_ = std::move(sorted);
    return Error(code::kInvalidParam, stuck.Label(), " reads '", missing,
                 "', which no node produces and is neither an initializer nor a graph input "
                 "(or the graph has a cycle)");
  }
  nodes_ = std::move(sorted);
  return Status::Ok();
}

}  // namespace kiln::ir
