// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// bias_activation_fusion: folds a following bias add and activation into the producing
// matrix op (see README.md for the fused ops):
//   Conv [+ Add(constant per-channel bias), when the Conv has no B] [+ activation] -> FusedConv
//   ConvTranspose + activation                               -> FusedConvTranspose
//   Gemm + activation                                        -> FusedGemm
//   MatMul + Add(constant 1-D bias of size N) [+ activation] -> FusedMatMul
//   FusedConv without an activation + activation             -> FusedConv
// Every value that disappears must have exactly one use and must not be a graph output. The
// last case is for the FusedConv residual_add_fusion makes (the conv's sum with a residual Z,
// which the activation follows): the pass runs once more after residual_add_fusion.
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "compiler/passes/passes.h"
#include "compiler/passes/pattern_util.h"

namespace kiln::compiler {
namespace {

using pattern::NewNode;
using pattern::Rewriter;

// An activation as the fused ops' attributes spell it.
struct Activation {
  std::string name;
  std::optional<float> alpha, beta;
};

// The activation `n` computes, when it is one the fused ops can carry.
std::optional<Activation> MatchActivation(const ir::Node& n) {
  if (!n.domain().empty() || n.inputs().empty() || n.input(0) == nullptr ||
      n.outputs().size() != 1) {
    return std::nullopt;
  }
  const ir::OpSchema* schema = ir::OpRegistry::Global().Find(n.domain(), n.op_type());
  if (schema == nullptr || !schema->has(ir::kTraitFusableActivation)) return std::nullopt;
  // The fused ops' activation attributes, from each activation's own.
  const std::string& op = n.op_type();
  if (op == "Relu" || op == "Sigmoid" || op == "Tanh" || op == "HardSwish") {
    return Activation{op, std::nullopt, std::nullopt};
  }
  if (op == "LeakyRelu") return Activation{op, n.attr_float("alpha"), std::nullopt};
  if (op == "Swish") return Activation{op, n.attr_float("alpha"), std::nullopt};
  if (op == "HardSigmoid") {
    return Activation{op, n.attr_float("alpha"), n.attr_float("beta")};
  }
  if (op == "Gelu") {
    // The fused ops have no attribute for the tanh approximation.
    if (n.attr_string("approximate") != "none") return std::nullopt;
    return Activation{op, std::nullopt, std::nullopt};
  }
  if (op == "Clip") {
    float lo = std::numeric_limits<float>::lowest();
    float hi = std::numeric_limits<float>::max();
    if (n.opset() < 11) {
      lo = n.attr_float("min");
      hi = n.attr_float("max");
    } else {
      // min and max are optional inputs; given ones must be known now.
      for (size_t i = 1; i < 3; ++i) {
        if (n.input(i) == nullptr) continue;
        std::optional<double> bound = pattern::ScalarConstant(n.input(i));
        if (!bound) return std::nullopt;
        (i == 1 ? lo : hi) = static_cast<float>(*bound);
      }
    }
    return Activation{op, lo, hi};
  }
  return std::nullopt;
}

void SetActivation(const std::optional<Activation>& act, NewNode& spec) {
  spec.attrs["activation"] = act ? act->name : std::string();
  spec.attrs.erase("activation_alpha");
  spec.attrs.erase("activation_beta");
  if (act && act->alpha) spec.attrs["activation_alpha"] = *act->alpha;
  if (act && act->beta) spec.attrs["activation_beta"] = *act->beta;
}

// A constant `bias` added to a Conv output of `channels` channels and rank `out_rank`, as a
// [channels] tensor, when it varies only along the channel axis (shapes like [C,1,1],
// [1,C,1,1], [1] or []); nullopt otherwise.
std::optional<ir::Tensor> ChannelBias(const ir::Value* bias, int64_t channels, size_t out_rank,
                                      ir::DataType dtype) {
  if (bias == nullptr || bias->constant() == nullptr) return std::nullopt;
  const ir::Tensor& t = *bias->constant();
  if (t.dtype() != dtype || t.dims().size() > out_rank || out_rank < 2) return std::nullopt;
  std::vector<int64_t> dims(out_rank - t.dims().size(), 1);
  dims.insert(dims.end(), t.dims().begin(), t.dims().end());
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i != 1 && dims[i] != 1) return std::nullopt;
  }
  if (dims[1] != channels && dims[1] != 1) return std::nullopt;
  size_t elem = ir::SizeOf(dtype);
  if (elem == 0 || t.bytes() < static_cast<size_t>(dims[1]) * elem) return std::nullopt;
  if (dims[1] == channels) {
    return ir::Tensor::Copy(dtype, {channels}, t.raw(), static_cast<size_t>(channels) * elem);
  }
  std::vector<uint8_t> bytes(static_cast<size_t>(channels) * elem);
  for (int64_t c = 0; c < channels; ++c) std::copy(t.raw(), t.raw() + elem, &bytes[c * elem]);
  return ir::Tensor::Copy(dtype, {channels}, bytes.data(), bytes.size());
}

// The node that applies the activation to `v`, when it is `v`'s only reader.
ir::Node* ActivationOf(const ir::Graph& graph, const ir::Value* v, std::optional<Activation>* act) {
  ir::Node* user = pattern::SoleUser(graph, v);
  if (user == nullptr || user->input(0) != v) return nullptr;
  *act = MatchActivation(*user);
  return act->has_value() ? user : nullptr;
}

void EnsureKilnOpset(ir::Graph& graph) {
  graph.opsets().emplace(pattern::kKilnDomain, pattern::kKilnOpset);
}

Result<bool> Emit(Rewriter& rw, PassContext& ctx, const std::vector<ir::Node*>& fused,
                  NewNode spec) {
  EnsureKilnOpset(rw.graph());
  std::string what;
  for (size_t i = 1; i < fused.size(); ++i) what += (i > 1 ? ", " : "") + fused[i]->Label();
  ctx.log.push_back(StrCat("bias_activation_fusion: fused ", what, " into ", fused[0]->Label(),
                           " as ", spec.op_type));
  KILN_RETURN_IF_ERROR(rw.Replace(fused, std::move(spec)).status(), "in bias_activation_fusion");
  return true;
}

Result<bool> TryConv(ir::Node& conv, Rewriter& rw, PassContext& ctx) {
  ir::Graph& graph = rw.graph();
  if (conv.outputs().size() != 1 || conv.input(0) == nullptr || conv.input(1) == nullptr) {
    return false;
  }
  std::vector<ir::Node*> fused = {&conv};
  std::vector<ir::Value*> inputs = {conv.input(0), conv.input(1), conv.input(2)};
  ir::Value* out = conv.output(0);

  // A constant per-channel bias added after a Conv that has none.
  ir::Node* user = pattern::SoleUser(graph, out);
  const ir::Value* w = conv.input(1);
  if (conv.input(2) == nullptr && pattern::IsOp(user, "Add") && w->shape().rank_known() &&
      w->shape().rank() >= 3 && w->shape()[0].known()) {
    int64_t channels = w->shape()[0].value;
    auto bias =
        ChannelBias(pattern::OtherInput(*user, out), channels, w->shape().rank(), w->dtype());
    if (bias) {
      ir::Value* b = graph.AddUniqueValue(
          (conv.name().empty() ? std::string("conv") : conv.name()) + "_bias", {});
      b->set_constant(std::move(*bias));
      inputs[2] = b;
      fused.push_back(user);
      out = user->output(0);
    }
  }
  std::optional<Activation> act;
  if (ir::Node* a = ActivationOf(graph, out, &act)) {
    fused.push_back(a);
    out = a->output(0);
  }
  if (fused.size() == 1) return false;
  if (inputs[2] == nullptr) inputs.pop_back();
  NewNode spec{"FusedConv",         pattern::kKilnDomain, conv.name(),
               pattern::kKilnOpset, std::move(inputs),    {out},
               conv.attrs()};
  SetActivation(act, spec);
  return Emit(rw, ctx, fused, std::move(spec));
}

Result<bool> TryFusedConv(ir::Node& conv, Rewriter& rw, PassContext& ctx) {
  if (conv.outputs().size() != 1 || !conv.attr_string("activation").empty() ||
      conv.has_attr("post_scale") || conv.has_attr("post_shift")) {
    return false;
  }
  std::optional<Activation> act;
  ir::Node* a = ActivationOf(rw.graph(), conv.output(0), &act);
  if (a == nullptr) return false;
  NewNode spec{"FusedConv",   pattern::kKilnDomain, conv.name(), pattern::kKilnOpset,
               conv.inputs(), {a->output(0)},       conv.attrs()};
  SetActivation(act, spec);
  return Emit(rw, ctx, {&conv, a}, std::move(spec));
}

// `op` (a Gemm or a ConvTranspose, whose bias conv_bn_fold has folded) + activation -> `fused`.
Result<bool> TryActivationOnly(ir::Node& op, const char* fused, Rewriter& rw, PassContext& ctx) {
  if (op.outputs().size() != 1) return false;
  std::optional<Activation> act;
  ir::Node* a = ActivationOf(rw.graph(), op.output(0), &act);
  if (a == nullptr) return false;
  NewNode spec{fused,       pattern::kKilnDomain, op.name(), pattern::kKilnOpset,
               op.inputs(), {a->output(0)},       op.attrs()};
  SetActivation(act, spec);
  return Emit(rw, ctx, {&op, a}, std::move(spec));
}

Result<bool> TryMatMul(ir::Node& mm, Rewriter& rw, PassContext& ctx) {
  ir::Graph& graph = rw.graph();
  ir::Value* out = mm.output(0);
  const ir::Value* b = mm.input(1);
  if (mm.outputs().size() != 1 || mm.input(0) == nullptr || b == nullptr) return false;
  // N is B's last dim; a 1-D B has no N (the product drops it).
  if (!b->shape().rank_known() || b->shape().rank() < 2 || !b->shape().dims().back().known()) {
    return false;
  }
  int64_t n = b->shape().dims().back().value;
  ir::Node* add = pattern::SoleUser(graph, out);
  if (!pattern::IsOp(add, "Add")) return false;
  ir::Value* bias = pattern::OtherInput(*add, out);
  if (bias == nullptr || bias->constant() == nullptr) return false;
  const ir::Tensor& t = *bias->constant();
  if (t.dims().size() != 1 || t.dims()[0] != n ||
      (b->dtype() != ir::DataType::kUndefined && t.dtype() != b->dtype())) {
    return false;
  }
  std::vector<ir::Node*> fused = {&mm, add};
  out = add->output(0);
  std::optional<Activation> act;
  if (ir::Node* a = ActivationOf(graph, out, &act)) {
    fused.push_back(a);
    out = a->output(0);
  }
  NewNode spec{"FusedMatMul",
               pattern::kKilnDomain,
               mm.name(),
               pattern::kKilnOpset,
               {mm.input(0), mm.input(1), bias},
               {out},
               {}};
  SetActivation(act, spec);
  return Emit(rw, ctx, fused, std::move(spec));
}

class BiasActivationFusionPass : public Pass {
 public:
  const char* name() const override { return "bias_activation_fusion"; }
  Result<bool> Run(ir::Graph& graph, PassContext& ctx) override {
    return pattern::RewriteEachNode(graph, [&](ir::Node& n, Rewriter& rw) -> Result<bool> {
      if (pattern::IsOp(&n, "Conv")) return TryConv(n, rw, ctx);
      if (pattern::IsOp(&n, "Gemm")) return TryActivationOnly(n, "FusedGemm", rw, ctx);
      if (pattern::IsOp(&n, "ConvTranspose")) {
        return TryActivationOnly(n, "FusedConvTranspose", rw, ctx);
      }
      if (pattern::IsOp(&n, "MatMul")) return TryMatMul(n, rw, ctx);
      if (pattern::IsOp(&n, "FusedConv", pattern::kKilnDomain)) return TryFusedConv(n, rw, ctx);
      return false;
    });
  }
};

}  // namespace

std::unique_ptr<Pass> CreateBiasActivationFusionPass() {
  return std::make_unique<BiasActivationFusionPass>();
}

}  // namespace kiln::compiler
