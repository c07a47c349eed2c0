// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// constant_folding: replaces nodes whose inputs are all constants by constants, and Shape /
// Size of values whose shape is static, so that static shape sub-graphs
// (Shape -> Gather -> Unsqueeze -> Concat -> Reshape) fold away. Results of any size up to
// kMaxFoldedBytes fold, as onnxruntime's, OpenVINO's and ATC's folding do: a value left computed
// is computed again by every execution, and weights computed from constants (a ConstantOfShape,
// a Cast of float16 weights, a Transpose) must be constants for the kernels to pack them once at
// load. Measured on the ONNX model zoo's light models, whose weights are ConstantOfShape nodes,
// before this folded results were capped at 1 MiB: AlexNet 200 ms per run against onnxruntime's
// 19 (filling 240 MB of weights and reordering them every run), VGG-19 772 against 186.
#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <unordered_set>
#include <variant>
#include <vector>

#include "compiler/evaluate.h"
#include "compiler/passes/passes.h"

namespace kiln::compiler {
namespace {

// Results above this stay computed (the compiler would have to hold them, and the .om too): more
// than any single weight of the models in use (VGG-19's largest, 25088 x 4096 floats, is 411 MB);
// an ONNX file holds at most 2 GB.
constexpr size_t kMaxFoldedBytes = size_t{1} << 30;

// Values of `graph` that subgraphs of its nodes read by name.
std::vector<ir::Value*> ReadBySubgraphs(const ir::Graph& graph) {
  std::vector<ir::Value*> values;
  for (const std::string& name : ir::CapturedNames(graph)) {
    if (ir::Value* v = graph.FindValue(name)) values.push_back(v);
  }
  return values;
}

class ConstantFolding : public Pass {
 public:
  const char* name() const override { return "constant_folding"; }

  Result<bool> Run(ir::Graph& graph, PassContext& ctx) override {
    // Values that became constant, or got a new type, in this run: their readers are
    // re-inferred so that a Shape further down can fold in the same run.
    std::unordered_set<const ir::Value*> refreshed;
    std::vector<ir::Node*> order;
    for (auto& node : graph.nodes()) order.push_back(node.get());
    size_t folded = 0;
    for (ir::Node* node : order) {
      // A Constant's value is in the model already; turning it into an initializer adds nothing.
      const size_t budget = node->op_type() == "Constant" ? SIZE_MAX : kMaxFoldedBytes;
      auto results = EvaluateNode(*node, budget);
      if (results) {
        for (size_t i = 0; i < node->outputs().size(); ++i) {
          ir::Value* out = node->output(i);
          if (out == nullptr) continue;
          out->set_constant(std::move((*results)[i]));
          refreshed.insert(out);
        }
        graph.RemoveNode(node);
        ++folded;
        continue;
      }
      bool stale = false;
      for (const ir::Value* in : node->inputs()) stale = stale || refreshed.count(in) != 0;
      if (!stale) continue;
      std::vector<ir::TensorType> before;
      for (const ir::Value* out : node->outputs()) {
        before.push_back(out ? out->type() : ir::TensorType{});
      }
      // A failure leaves the types as they were; the pass manager's inference reports it.
      if (!ir::InferNode(*ctx.registry, *node).ok()) continue;
      for (size_t i = 0; i < node->outputs().size(); ++i) {
        ir::Value* out = node->output(i);
        if (out != nullptr && !(out->type() == before[i])) refreshed.insert(out);
      }
    }
    if (folded == 0) return false;
    // Drop the constants only the folded nodes read. Graph::Prune() does not see reads by
    // subgraphs, so those values are listed as outputs while it runs.
    std::vector<ir::Value*> keep = ReadBySubgraphs(graph);
    const size_t n_outputs = graph.outputs().size();
    graph.outputs().insert(graph.outputs().end(), keep.begin(), keep.end());
    graph.Prune();
    graph.outputs().resize(n_outputs);
    ctx.log.push_back(StrCat(name(), ": folded ", folded, " node(s) into constants"));
    return true;
  }
};

}  // namespace

std::unique_ptr<Pass> CreateConstantFoldingPass() { return std::make_unique<ConstantFolding>(); }

}  // namespace kiln::compiler
