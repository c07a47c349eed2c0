// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Op schemas: for every op the compiler accepts, its input/output counts, the opsets it
// supports, and a type-and-shape inference function. Registration is explicit, one function
// per op family (ir/ops/<family>.cc), called from RegisterAllOps (ir/ops/registry.cc).
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"
#include "ir/graph.h"

namespace kiln::ir {

// What an inference function sees: the node, its input types, the inputs whose values are
// known at compile time, and the output types it must fill in.
class InferenceContext {
 public:
  explicit InferenceContext(const Node& node);

  const Node& node() const { return node_; }
  int opset() const { return node_.opset(); }
  size_t num_inputs() const { return node_.inputs().size(); }
  // True when input i is given (not omitted).
  bool has_input(size_t i) const { return node_.input(i) != nullptr; }
  const TensorType& input_type(size_t i) const { return node_.input(i)->type(); }
  DataType input_dtype(size_t i) const { return node_.input(i)->dtype(); }
  const Shape& input_shape(size_t i) const { return node_.input(i)->shape(); }
  // The value of input i when it is a compile-time constant; null otherwise.
  const Tensor* input_constant(size_t i) const {
    return has_input(i) ? node_.input(i)->constant() : nullptr;
  }
  // A constant integer input (shape, axes, pads ...) as int64s; nullopt when not constant.
  std::optional<std::vector<int64_t>> input_ints(size_t i) const;

  size_t num_outputs() const { return outputs_.size(); }
  void set_output(size_t i, DataType dtype, Shape shape);
  void set_output(size_t i, TensorType type) { set_output(i, type.dtype, std::move(type.shape)); }
  const std::vector<TensorType>& outputs() const { return outputs_; }

  // An error about this node: "Conv 'conv1' (opset 13): <text>" with kInvalidParam.
  template <typename... Args>
  Status Fail(Args&&... args) const {
    return Error(code::kInvalidParam, Prefix(), std::forward<Args>(args)...);
  }
  // The node is valid ONNX that Kiln does not support (kFeatureUnsupported).
  template <typename... Args>
  Status Unsupported(Args&&... args) const {
    return Error(code::kFeatureUnsupported, Prefix(), std::forward<Args>(args)...);
  }

 private:
  std::string Prefix() const;
  const Node& node_;
  std::vector<TensorType> outputs_;
};

using InferFn = Status (*)(InferenceContext& ctx);

struct OpSchema {
  std::string op_type;
  std::string domain;     // "" is the default ONNX domain
  int since_version = 1;  // lowest opset Kiln accepts for this op
  int min_inputs = 1;
  int max_inputs = 1;  // -1: variadic
  int min_outputs = 1;
  int max_outputs = 1;  // -1: variadic
  std::string family;   // the ir/ops/<family>.cc that registers it
  InferFn infer = nullptr;
};

class OpRegistry {
 public:
  // The registry with every built-in op (RegisterAllOps), built once.
  static const OpRegistry& Global();

  void Register(OpSchema schema);
  const OpSchema* Find(const std::string& domain, const std::string& op_type) const;
  std::vector<const OpSchema*> All() const;
  size_t size() const { return schemas_.size(); }

 private:
  std::map<std::pair<std::string, std::string>, OpSchema> schemas_;
};

// Registers every built-in op family.
void RegisterAllOps(OpRegistry& registry);

// Gives the values `graph` (a node's body) captures from its enclosing graphs — `outer`,
// innermost last — the types of those enclosing values.
void TypeCaptures(Graph& graph, const std::vector<const Graph*>& outer);

// Checks `node` against its schema (known op, opset, input/output counts) and sets the types
// of its outputs. kFeatureUnsupported for unknown ops or opsets; kInvalidParam for a node that
// breaks its op's rules. Messages name the op type, node name and opset.
Status InferNode(const OpRegistry& registry, Node& node);
// InferNode over every node in order, and over the If/Loop/Scan bodies first (their captured
// values typed from the enclosing graphs); stops at the first failure.
Status InferGraph(const OpRegistry& registry, Graph& graph);

}  // namespace kiln::ir
