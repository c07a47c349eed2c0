// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Builds one-node graphs for op inference tests.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ir/op_schema.h"

namespace kiln::ir::testing {

// A graph with one node of `op_type` at `opset`; each input is a graph input of the given
// type, or a constant when `constants[i]` is set; outputs start untyped.
class OneNode {
 public:
  OneNode(const std::string& op_type, std::vector<TensorType> inputs, size_t outputs,
          int opset = 17, std::vector<std::optional<Tensor>> constants = {}) {
    std::vector<Value*> ins;
    for (size_t i = 0; i < inputs.size(); ++i) {
      Value* v = *graph.AddValue("in" + std::to_string(i), inputs[i]);
      if (i < constants.size() && constants[i]) {
        v->set_constant(*constants[i]);
      } else {
        graph.inputs().push_back(v);
      }
      ins.push_back(v);
    }
    std::vector<Value*> outs;
    for (size_t i = 0; i < outputs; ++i)
      outs.push_back(*graph.AddValue("out" + std::to_string(i), {}));
    node = *graph.AddNode(op_type, "", "n", opset, ins, outs);
  }
  // Runs inference with the global registry.
  Status Infer() { return InferNode(OpRegistry::Global(), *node); }
  const TensorType& out(size_t i = 0) const { return node->output(i)->type(); }

  Graph graph;
  Node* node = nullptr;
};

inline TensorType T(DataType dt, std::vector<int64_t> dims) { return {dt, Shape::Of(dims)}; }
inline TensorType F32(std::vector<int64_t> dims) { return T(DataType::kFloat32, std::move(dims)); }
inline TensorType I64(std::vector<int64_t> dims) { return T(DataType::kInt64, std::move(dims)); }
inline Tensor Ints(std::vector<int64_t> v) {
  return Tensor::FromVector(DataType::kInt64, {static_cast<int64_t>(v.size())}, v);
}

}  // namespace kiln::ir::testing
