// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The IR: a Graph owns Values (tensors flowing between nodes, including constants) and Nodes
// (operations) kept in topological order. Nodes remember the ONNX node names they came from, so
// errors and profiles point at what the user knows.
#pragma once

#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/status.h"
#include "ir/attribute.h"
#include "ir/data_type.h"
#include "ir/shape.h"
#include "ir/tensor.h"

namespace kiln::ir {

class Node;

struct TensorType {
  DataType dtype = DataType::kUndefined;
  Shape shape;
  bool operator==(const TensorType& o) const { return dtype == o.dtype && shape == o.shape; }
};

class Value {
 public:
  Value(std::string name, TensorType type) : name_(std::move(name)), type_(std::move(type)) {}
  const std::string& name() const { return name_; }
  void set_name(std::string n) { name_ = std::move(n); }
  const TensorType& type() const { return type_; }
  TensorType& type() { return type_; }
  DataType dtype() const { return type_.dtype; }
  const Shape& shape() const { return type_.shape; }
  Node* producer() const { return producer_; }
  // Constant data (an initializer or a folded result); null for computed values.
  const Tensor* constant() const { return constant_ ? &*constant_ : nullptr; }
  void set_constant(Tensor t) {
    type_.dtype = t.dtype();
    type_.shape = t.shape();
    constant_ = std::move(t);
  }
  void clear_constant() { constant_.reset(); }

 private:
  friend class Graph;
  std::string name_;
  TensorType type_;
  Node* producer_ = nullptr;
  std::optional<Tensor> constant_;
};

class Node : public AttrGetters<Node> {
 public:
  const std::string& op_type() const { return op_type_; }
  const std::string& domain() const { return domain_; }  // "" is the ONNX domain
  const std::string& name() const { return name_; }
  void set_name(std::string n) { name_ = std::move(n); }
  int opset() const { return opset_; }
  // Inputs; an omitted optional input is nullptr.
  const std::vector<Value*>& inputs() const { return inputs_; }
  const std::vector<Value*>& outputs() const { return outputs_; }
  Value* input(size_t i) const { return i < inputs_.size() ? inputs_[i] : nullptr; }
  Value* output(size_t i) const { return i < outputs_.size() ? outputs_[i] : nullptr; }
  void set_input(size_t i, Value* v);
  void set_inputs(std::vector<Value*> v) { inputs_ = std::move(v); }

  // Attributes (typed readers: AttrGetters).
  const AttrMap& attrs() const { return attrs_; }
  const AttrMap& attr_map() const { return attrs_; }
  AttrMap& mutable_attrs() { return attrs_; }
  void set_attr(const std::string& n, Attribute a) { attrs_[n] = std::move(a); }
  void erase_attr(const std::string& n) { attrs_.erase(n); }

  // ONNX node names this node came from (itself, or every node fused into it).
  const std::vector<std::string>& origins() const { return origins_; }
  void add_origins(const std::vector<std::string>& more);
  // "Conv 'conv1'" (op type and name) for messages.
  std::string Label() const;

 private:
  friend class Graph;
  std::string op_type_, domain_, name_;
  int opset_ = 0;
  std::vector<Value*> inputs_, outputs_;
  AttrMap attrs_;
  std::vector<std::string> origins_;
};

class Graph {
 public:
  Graph() = default;
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  // Creates a value; names must be unique within the graph (kInvalidParam otherwise).
  Result<Value*> AddValue(const std::string& name, TensorType type);
  // A fresh value named `hint` or `hint_N`.
  Value* AddUniqueValue(const std::string& hint, TensorType type);
  Value* FindValue(const std::string& name) const;
  // Appends a node producing `outputs` (which must have no producer yet).
  Result<Node*> AddNode(const std::string& op_type, const std::string& domain,
                        const std::string& name, int opset, std::vector<Value*> inputs,
                        std::vector<Value*> outputs);
  // Makes `node` produce `to` where it produced `from`, in place (position, name, attributes
  // and origins kept). kInvalidParam when `to` already has a producer or `from` is not an
  // output of `node`.
  Status ReplaceOutput(Node* node, Value* from, Value* to);
  // Removes `node` (its outputs lose their producer; values are removed by Prune()).
  void RemoveNode(Node* node);
  // Points every use of `from` (node inputs and graph outputs) at `to`.
  void ReplaceAllUses(Value* from, Value* to);
  // Nodes reading `v` (one entry per use).
  std::vector<Node*> Uses(const Value* v) const;
  // Drops values that nothing produces, reads (here or, by name, in a node's body), or lists
  // as a graph input or output.
  void Prune();
  // Re-establishes topological order; fails when the graph has a cycle or reads a value that
  // is neither produced, constant, nor a graph input.
  Status TopologicalSort();

  std::list<std::unique_ptr<Node>>& nodes() { return nodes_; }
  const std::list<std::unique_ptr<Node>>& nodes() const { return nodes_; }
  std::vector<Value*>& inputs() { return inputs_; }
  const std::vector<Value*>& inputs() const { return inputs_; }
  std::vector<Value*>& outputs() { return outputs_; }
  const std::vector<Value*>& outputs() const { return outputs_; }
  const std::vector<std::unique_ptr<Value>>& values() const { return values_; }
  // domain -> opset version ("" is ONNX).
  std::map<std::string, int>& opsets() { return opsets_; }
  const std::map<std::string, int>& opsets() const { return opsets_; }
  const std::string& name() const { return name_; }
  void set_name(std::string n) { name_ = std::move(n); }

 private:
  std::string name_;
  std::list<std::unique_ptr<Node>> nodes_;
  std::vector<std::unique_ptr<Value>> values_;
  std::unordered_map<std::string, Value*> by_name_;
  std::vector<Value*> inputs_, outputs_;
  std::map<std::string, int> opsets_;
  uint64_t unique_counter_ = 0;
};

// Names that the If/Loop/Scan bodies of `node` (at any depth) read from the graph around the
// node without defining them: values captured from the enclosing scope.
std::set<std::string> CapturedNames(const Node& node);
// The same for every node of `graph`.
std::set<std::string> CapturedNames(const Graph& graph);

}  // namespace kiln::ir
