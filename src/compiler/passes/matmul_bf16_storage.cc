// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// matmul_bf16_storage: in a model whose matrix ops compute in bf16 (PassContext::matrix_bf16), a
// float32 value that one FusedMatMul with constant weights writes and only FusedMatMuls with
// constant weights read, as their A, is stored as bfloat16: kiln_y_bf16 = 1 on the producer,
// kiln_a_bf16 = 1 on each reader (the value's dtype stays float32 in the graph; its bytes are
// bf16, as channels_last's bf16 marks). Such a reader converts its A to bf16 before the product
// anyway; stored bf16, the producer writes half the bytes and the reader converts nothing. A
// transformer's feed-forward block is the case (the first projection, GELU fused, feeds the
// second only): on the Zen 4 VM (AVX512_BF16, oneDNN 2.6) a BERT-small block's two products took
// 795 us with the 128 x 1536 hidden value stored bf16 against 1010 us stored float32 and
// converted. Values read by anything else (attention, an Add, a graph output, a subgraph) stay
// float32.
#include <string>
#include <vector>

#include "base/str_cat.h"
#include "compiler/passes/passes.h"
#include "compiler/passes/pattern_util.h"

namespace kiln::compiler {
namespace {

constexpr char kA[] = "kiln_a_bf16";
constexpr char kY[] = "kiln_y_bf16";

// A FusedMatMul whose B (input 1) is a constant: the products that compute in bf16.
bool IsConstantProduct(const ir::Node* n) {
  return pattern::IsOp(n, "FusedMatMul", pattern::kKilnDomain) && n->inputs().size() >= 2 &&
         n->input(0) != nullptr && n->input(1) != nullptr && n->input(1)->constant() != nullptr &&
         n->input(0)->dtype() == ir::DataType::kFloat32;
}

// The readers of `y` when each reads it as the A (only) of a constant-weights FusedMatMul and
// nothing else reads it; empty otherwise.
std::vector<ir::Node*> ProductReaders(const ir::Graph& graph, const ir::Value* y) {
  if (pattern::IsGraphOutput(graph, y) || pattern::IsCapturedBySubgraph(graph, y)) return {};
  std::vector<ir::Node*> users = graph.Uses(y);
  for (ir::Node* u : users) {
    if (!IsConstantProduct(u) || u->input(0) != y) return {};
    for (size_t i = 1; i < u->inputs().size(); ++i) {
      if (u->input(i) == y) return {};
    }
  }
  return users;
}

class MatMulBf16StoragePass : public Pass {
 public:
  const char* name() const override { return "matmul_bf16_storage"; }

  Result<bool> Run(ir::Graph& graph, PassContext& ctx) override {
    bool changed = false;
    if (!ctx.matrix_bf16) {  // a float32 model: no bf16 storage (marks of an earlier compile go)
      for (const auto& n : graph.nodes()) {
        for (const char* mark : {kA, kY}) {
          if (n->attrs().count(mark) == 0) continue;
          n->erase_attr(mark);
          changed = true;
        }
      }
      return changed;
    }
    for (const auto& n : graph.nodes()) {
      if (!IsConstantProduct(n.get()) || n->outputs().empty() || n->output(0) == nullptr ||
          n->output(0)->dtype() != ir::DataType::kFloat32 || n->attr_int(kY) == 1) {
        continue;
      }
      const std::vector<ir::Node*> readers = ProductReaders(graph, n->output(0));
      if (readers.empty()) continue;
      n->set_attr(kY, int64_t{1});
      for (ir::Node* r : readers) r->set_attr(kA, int64_t{1});
      ctx.log.push_back(StrCat("matmul_bf16_storage: ", n->Label(),
                               " writes its output as bf16 for ", readers.size(),
                               " FusedMatMul reader(s), first ", readers.front()->Label()));
      changed = true;
    }
    return changed;
  }
};

}  // namespace

std::unique_ptr<Pass> CreateMatMulBf16StoragePass() {
  return std::make_unique<MatMulBf16StoragePass>();
}

}  // namespace kiln::compiler
