// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Small graph builders for pass tests.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "compiler/pass.h"
#include "ir/op_schema.h"

namespace kiln::compiler::testing {

// Builds graphs node by node: In() adds a graph input, Const() an initializer, Op() a node
// whose outputs are fresh values (its op's declared attribute defaults filled in, as the
// compiler's inference does before any pass); Infer() runs shape inference.
class GraphBuilder {
 public:
  ir::Value* In(const std::string& name, ir::DataType dt, std::vector<int64_t> dims) {
    ir::Value* v = *graph.AddValue(name, {dt, ir::Shape::Of(dims)});
    graph.inputs().push_back(v);
    return v;
  }
  ir::Value* Const(const std::string& name, ir::Tensor t) {
    ir::Value* v = *graph.AddValue(name, {});
    v->set_constant(std::move(t));
    return v;
  }
  ir::Value* ConstF(const std::string& name, std::vector<int64_t> dims, std::vector<float> data) {
    return Const(name, ir::Tensor::FromVector(ir::DataType::kFloat32, std::move(dims), data));
  }
  ir::Value* ConstI(const std::string& name, std::vector<int64_t> data) {
    std::vector<int64_t> dims = {static_cast<int64_t>(data.size())};
    return Const(name, ir::Tensor::FromVector(ir::DataType::kInt64, dims, data));
  }
  // One-output node; returns its output.
  ir::Value* Op(const std::string& op, const std::string& name, std::vector<ir::Value*> inputs,
                std::map<std::string, ir::Attribute> attrs = {}, int opset = 17) {
    return OpN(op, name, std::move(inputs), 1, std::move(attrs), opset)[0];
  }
  std::vector<ir::Value*> OpN(const std::string& op, const std::string& name,
                              std::vector<ir::Value*> inputs, size_t n_out,
                              std::map<std::string, ir::Attribute> attrs = {}, int opset = 17) {
    std::vector<ir::Value*> outs;
    for (size_t i = 0; i < n_out; ++i) {
      outs.push_back(graph.AddUniqueValue(name + "_out" + std::to_string(i), {}));
    }
    ir::Node* n = *graph.AddNode(op, "", name, opset, std::move(inputs), outs);
    for (auto& [k, v] : attrs) n->set_attr(k, std::move(v));
    // The declared defaults, as the compiler's inference gives every node before its passes.
    if (const ir::OpSchema* schema = ir::OpRegistry::Global().Find("", op)) {
      (void)ir::ApplyAttrDefaults(*schema, opset, name, n->mutable_attrs());
    }
    return outs;
  }
  void Out(ir::Value* v) { graph.outputs().push_back(v); }
  Status Infer() { return ir::InferGraph(ir::OpRegistry::Global(), graph); }
  // Op types in node order, e.g. "Conv,Relu".
  std::string OpTypes() const {
    std::string s;
    for (const auto& n : graph.nodes()) s += (s.empty() ? "" : ",") + n->op_type();
    return s;
  }
  const ir::Node* FindNode(const std::string& op_type) const {
    for (const auto& n : graph.nodes()) {
      if (n->op_type() == op_type) return n.get();
    }
    return nullptr;
  }

  ir::Graph graph;
};

}  // namespace kiln::compiler::testing
