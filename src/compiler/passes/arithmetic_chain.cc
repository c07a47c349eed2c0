// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// arithmetic_chain: float32 Add / Sub / Mul / Div nodes that feed one another — each output read
// only by the next — become one com.kiln ArithmeticChain, which makes one pass over memory
// instead of one per node (a squeeze-excitation's x * s + x + the upsampled branch of a feature
// pyramid; (x - mean) / std). Runs after channels_last: ONNX nodes chain with ONNX nodes, com.kiln
// ones with kiln_nhwc (and kiln_cblock) with those of the same flags (the chain keeps them), and a
// Relu that alone reads a chain's output ends it. Each step computes what its node computed
// (src/compiler/passes/README.md). A chain that batch_norm_affine made from a
// BatchNormalization continues here like any other.
#include <string>
#include <vector>

#include "compiler/passes/passes.h"
#include "compiler/passes/pattern_util.h"
#include "ir/op_schema.h"

namespace kiln::compiler {
namespace {

using pattern::NewNode;
using pattern::Rewriter;

constexpr char kChain[] = "ArithmeticChain";

bool IsStep(const std::string& op) {
  return op == "Add" || op == "Sub" || op == "Mul" || op == "Div";
}

// channels_last's layout flags of a node: kiln_nhwc and its channel blocks, kiln_cblock (0 when
// absent).
struct Layout {
  int64_t nhwc = 0, block = 0;
  explicit Layout(const ir::Node& n)
      : nhwc(n.attr_int("kiln_nhwc")), block(n.attr_int("kiln_cblock")) {}
  Layout() = default;
  bool operator==(const Layout& o) const { return nhwc == o.nhwc && block == o.block; }
  bool operator!=(const Layout& o) const { return !(*this == o); }
};

// What a node contributes to a chain: its inputs in order, its steps, its final activation and
// its layout flags.
struct Links {
  std::vector<ir::Value*> inputs;
  std::vector<std::string> ops;
  std::vector<int64_t> swapped;
  std::string activation;
  Layout layout;
};

// `n` as a chain: an arithmetic node (ONNX, or com.kiln with nothing but the layout flags) of two
// float32 inputs, or an ArithmeticChain; false for anything else.
bool AsChain(const ir::Node& n, Links* out) {
  if (n.outputs().size() != 1 || n.output(0)->dtype() != ir::DataType::kFloat32) return false;
  for (const ir::Value* v : n.inputs()) {
    if (v == nullptr || v->dtype() != ir::DataType::kFloat32) return false;
  }
  if (pattern::IsOp(&n, kChain, pattern::kKilnDomain)) {
    out->inputs = n.inputs();
    out->ops = n.attr_strings("ops");
    out->swapped = n.attr_ints("swapped");
    out->activation = n.attr_string("activation");
    out->layout = Layout(n);
    return out->swapped.size() == out->ops.size();
  }
  if (!IsStep(n.op_type()) || n.inputs().size() != 2) return false;
  if (n.domain().empty()) {
    if (!n.attrs().empty()) return false;
  } else if (n.domain() == pattern::kKilnDomain) {
    for (const auto& [name, value] : n.attrs()) {
      if (name != "kiln_nhwc" && name != "kiln_cblock") return false;
    }
    out->layout = Layout(n);
  } else {
    return false;
  }
  out->inputs = n.inputs();
  out->ops = {n.op_type()};
  out->swapped = {0};
  return true;
}

// The most inputs a chain takes (its op's definition).
size_t MaxInputs() {
  const ir::OpSchema* schema = ir::OpRegistry::Global().Find(pattern::kKilnDomain, kChain);
  return schema == nullptr ? 0 : static_cast<size_t>(schema->max_inputs);
}

// A float32 Relu (ONNX's, or channels_last's com.kiln one) with layout flags `layout`.
bool IsRelu(const ir::Node* n, const Layout& layout) {
  if (n == nullptr || n->inputs().size() != 1 || n->outputs().size() != 1 ||
      n->output(0)->dtype() != ir::DataType::kFloat32) {
    return false;
  }
  if (pattern::IsOp(n, "Relu")) return layout == Layout();
  return pattern::IsOp(n, "Relu", pattern::kKilnDomain) && Layout(*n) == layout;
}

// Replaces `head` and `next` by one chain of `chain`'s steps and activation, writing next's output.
Result<bool> Replace(ir::Node& head, ir::Node& next, const Links& chain, Rewriter& rw,
                     PassContext& ctx) {
  NewNode spec{kChain,       pattern::kKilnDomain, next.name(), pattern::kKilnOpset,
               chain.inputs, {next.output(0)},     {}};
  spec.attrs["ops"] = chain.ops;
  spec.attrs["swapped"] = chain.swapped;
  if (!chain.activation.empty()) spec.attrs["activation"] = chain.activation;
  if (chain.layout.nhwc != 0) spec.attrs["kiln_nhwc"] = chain.layout.nhwc;
  if (chain.layout.block != 0) spec.attrs["kiln_cblock"] = chain.layout.block;
  ctx.log.push_back(StrCat("arithmetic_chain: ", head.Label(), " and ", next.Label(), " into ",
                           kChain, " of ", chain.ops.size(), " steps",
                           chain.activation.empty() ? "" : " and a ", chain.activation));
  KILN_RETURN_IF_ERROR(rw.Replace({&head, &next}, std::move(spec)).status(), "in arithmetic_chain");
  return true;
}

// `head` (a chain or an arithmetic node) and the arithmetic node or chain that alone reads its
// output: that node's step follows head's (a chain continues head's when it starts from head's
// output). A Relu that alone reads it ends the chain (a pre-activation network's normalisation
// and Relu: one pass over memory instead of two).
Result<bool> TryExtend(ir::Node& head, Rewriter& rw, PassContext& ctx) {
  Links chain;
  if (!AsChain(head, &chain) || !chain.activation.empty()) return false;
  ir::Value* v = head.output(0);
  ir::Node* next = pattern::SoleUser(rw.graph(), v);
  if (IsRelu(next, chain.layout)) {
    chain.activation = "Relu";
    return Replace(head, *next, chain, rw, ctx);
  }
  Links tail;
  if (next == nullptr || !AsChain(*next, &tail) || tail.layout != chain.layout) return false;
  if (pattern::IsOp(next, kChain, pattern::kKilnDomain)) {
    if (next->input(0) != v) return false;
  } else {
    ir::Value* other = pattern::OtherInput(*next, v);
    if (other == nullptr || other == v) return false;
    tail.inputs = {v, other};
    tail.swapped = {next->input(1) == v ? 1 : 0};
  }
  if (chain.inputs.size() + tail.inputs.size() - 1 > MaxInputs()) return false;
  chain.inputs.insert(chain.inputs.end(), tail.inputs.begin() + 1, tail.inputs.end());
  chain.ops.insert(chain.ops.end(), tail.ops.begin(), tail.ops.end());
  chain.swapped.insert(chain.swapped.end(), tail.swapped.begin(), tail.swapped.end());
  chain.activation = tail.activation;
  return Replace(head, *next, chain, rw, ctx);
}

class ArithmeticChainPass : public Pass {
 public:
  const char* name() const override { return "arithmetic_chain"; }
  Result<bool> Run(ir::Graph& graph, PassContext& ctx) override {
    return pattern::RewriteEachNode(
        graph, [&](ir::Node& n, Rewriter& rw) { return TryExtend(n, rw, ctx); });
  }
};

}  // namespace

std::unique_ptr<Pass> CreateArithmeticChainPass() {
  return std::make_unique<ArithmeticChainPass>();
}

}  // namespace kiln::compiler
