// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// qkv_packing: an Attention whose Q, K and V are three projections of one input, as a
// transformer's self-attention has them after attention_fusion —
//   q = FusedMatMul(x, Wq [, bq])   k = FusedMatMul(x, Wk [, bk])   v = FusedMatMul(x, Wv [, bv])
//   y = Attention(q, k, v [, attn_mask])                 (3-D, opset 23, only Y used)
// — becomes one product into a packed value and Kiln's PackedQkvAttention on it:
//   qkv = FusedMatMul(x, [Wq | Wk | Wv], [bq | bk | bv])   y = PackedQkvAttention(qkv [, mask])
// In a model whose matrix ops compute in bf16 (PassContext::matrix_bf16) only: there x is
// converted to bf16 once instead of three times and one wide product runs nearer the CPU's peak
// than three narrow ones — the BERT encoder 0.915x its time (Zen 4 VM, AVX512_BF16, interleaved
// A/B of the .om with and without the pass, 16 blocks). In float32 the three products already
// run as fast as the one (3 x ~200 us against ~620 us at 128 x 384 x 384) and the attention
// reading rows three times as wide took 5 % longer: the model 1.015x, so a float32 model keeps
// its three projections. The attention kernel reads each head from its slice of a packed row,
// so nothing is copied. The projections must have constant float32
// weights [K, n] (and biases of n values, or none), no activation, post_scale or post_shift, and
// Attention as their only reader; the head sizes of Q, K and V must agree (the packed op's
// layout). CPU target (the CUDA backend has no PackedQkvAttention kernel).
#include <string>
#include <vector>

#include "base/str_cat.h"
#include "compiler/passes/passes.h"
#include "compiler/passes/pattern_util.h"

namespace kiln::compiler {
namespace {

using pattern::NewNode;
using pattern::Rewriter;

// A projection of `x` read only by `user`: its weights [K, n] and its bias (n values, or empty).
struct Projection {
  ir::Node* node = nullptr;
  std::vector<float> weights, bias;
  int64_t k = 0, n = 0;
};

bool PlainEpilogue(const ir::Node* mm) {
  return mm->attr_string("activation").empty() &&
         (!mm->has_attr("post_scale") || mm->attr_float("post_scale") == 1.0f) &&
         (!mm->has_attr("post_shift") || mm->attr_float("post_shift") == 0.0f) &&
         mm->attr_int("kiln_a_bf16") == 0 && mm->attr_int("kiln_y_bf16") == 0;
}

bool MatchProjection(const ir::Graph& graph, const ir::Value* v, const ir::Node* user,
                     const ir::Value* x, Projection& p) {
  ir::Node* mm = v == nullptr ? nullptr : v->producer();
  const bool fused = pattern::IsOp(mm, "FusedMatMul", pattern::kKilnDomain);
  if (!(fused || pattern::IsOp(mm, "MatMul")) || pattern::SoleUser(graph, v) != user ||
      mm->input(0) != x || (fused && !PlainEpilogue(mm))) {
    return false;
  }
  const ir::Value* w = mm->input(1);
  if (w == nullptr || w->constant() == nullptr || w->dtype() != ir::DataType::kFloat32 ||
      w->shape().rank() != 2) {
    return false;
  }
  p.node = mm;
  p.k = w->shape()[0].value;
  p.n = w->shape()[1].value;
  auto weights = pattern::FloatConstant(w, p.k * p.n);
  if (!weights) return false;
  p.weights = std::move(*weights);
  const ir::Value* b = mm->inputs().size() > 2 ? mm->input(2) : nullptr;
  if (b != nullptr) {
    if (b->shape().rank() != 1) return false;
    auto bias = pattern::FloatConstant(b, p.n);
    if (!bias) return false;
    p.bias = std::move(*bias);
  }
  return true;
}

// Only Y of `attention` is read, and it has no past, nonpad lengths, softcap or narrow softmax.
bool PackableAttention(const ir::Graph& graph, const ir::Node& attention) {
  if (!pattern::IsOp(&attention, "Attention") || attention.opset() > 23 ||
      attention.inputs().size() < 3 || !attention.has_attr("q_num_heads") ||
      !attention.has_attr("kv_num_heads") || attention.attr_float("softcap") != 0.0f ||
      (attention.has_attr("softmax_precision") && attention.attr_int("softmax_precision") != 1)) {
    return false;
  }
  for (size_t i = 4; i < attention.inputs().size(); ++i) {
    if (attention.input(i) != nullptr) return false;
  }
  for (size_t i = 1; i < attention.outputs().size(); ++i) {
    const ir::Value* o = attention.output(i);
    if (o != nullptr && (!graph.Uses(o).empty() || pattern::IsGraphOutput(graph, o) ||
                         pattern::IsCapturedBySubgraph(graph, o))) {
      return false;
    }
  }
  return true;
}

Result<bool> TryPack(ir::Node& attention, Rewriter& rw, PassContext& ctx) {
  ir::Graph& graph = rw.graph();
  if (!ctx.matrix_bf16 || !PackableAttention(graph, attention)) return false;
  const ir::Value* q = attention.input(0);
  if (q == nullptr || q->producer() == nullptr || q->producer()->inputs().empty()) return false;
  ir::Value* x = q->producer()->input(0);
  if (x == nullptr || x->dtype() != ir::DataType::kFloat32 || !x->shape().rank_known() ||
      x->shape().rank() != 3) {
    return false;
  }
  Projection p[3];
  for (size_t i = 0; i < 3; ++i) {
    const ir::Value* v = attention.input(i);
    if (v == nullptr || v->shape().rank() != 3 || !MatchProjection(graph, v, &attention, x, p[i]))
      return false;
  }
  if (p[0].node == p[1].node || p[1].node == p[2].node || p[0].node == p[2].node) return false;
  const int64_t hq = attention.attr_int("q_num_heads"), hkv = attention.attr_int("kv_num_heads");
  if (hq < 1 || hkv < 1 || p[0].n % hq != 0 || p[1].n % hkv != 0 || p[1].n != p[2].n ||
      p[0].n / hq != p[1].n / hkv || p[1].k != p[0].k || p[2].k != p[0].k) {
    return false;
  }

  // [Wq | Wk | Wv], row by row, and the biases side by side (zeros for a projection without).
  const int64_t k = p[0].k, n = p[0].n + p[1].n + p[2].n;
  std::vector<float> weights;
  std::vector<float> bias;
  weights.reserve(static_cast<size_t>(k * n));
  for (int64_t r = 0; r < k; ++r) {
    for (const Projection& pi : p) {
      weights.insert(weights.end(), pi.weights.begin() + r * pi.n,
                     pi.weights.begin() + (r + 1) * pi.n);
    }
  }
  const bool biased = !p[0].bias.empty() || !p[1].bias.empty() || !p[2].bias.empty();
  for (const Projection& pi : p) {
    if (!biased) break;
    if (pi.bias.empty()) {
      bias.insert(bias.end(), static_cast<size_t>(pi.n), 0.0f);
    } else {
      bias.insert(bias.end(), pi.bias.begin(), pi.bias.end());
    }
  }
  const std::string stem = attention.name().empty() ? std::string("attention") : attention.name();
  ir::Value* w = graph.AddUniqueValue(stem + "_qkv_W", {});
  w->set_constant(ir::Tensor::FromVector(ir::DataType::kFloat32, {k, n}, weights));
  std::vector<ir::Value*> mm_inputs = {x, w};
  if (biased) {
    ir::Value* b = graph.AddUniqueValue(stem + "_qkv_B", {});
    b->set_constant(ir::Tensor::FromVector(ir::DataType::kFloat32, {n}, bias));
    mm_inputs.push_back(b);
  }
  const ir::Shape& xs = x->shape();
  ir::Value* packed = graph.AddUniqueValue(
      stem + "_qkv", {ir::DataType::kFloat32, ir::Shape({xs[0], xs[1], ir::Dim::Known(n)})});

  NewNode product{"FusedMatMul",
                  pattern::kKilnDomain,
                  stem + "_qkv",
                  pattern::kKilnOpset,
                  std::move(mm_inputs),
                  {packed},
                  {}};
  product.attrs["activation"] = std::string();
  ctx.log.push_back(StrCat("qkv_packing: ", p[0].node->Label(), ", ", p[1].node->Label(), " and ",
                           p[2].node->Label(), " into one product of ", n, " columns for ",
                           attention.Label()));
  KILN_RETURN_IF_ERROR(rw.Replace({p[0].node, p[1].node, p[2].node}, std::move(product)).status(),
                       "in qkv_packing");

  NewNode packed_attention{"PackedQkvAttention",
                           pattern::kKilnDomain,
                           attention.name(),
                           pattern::kKilnOpset,
                           {packed},
                           {attention.output(0)},
                           {}};
  if (attention.inputs().size() > 3 && attention.input(3) != nullptr) {
    packed_attention.inputs.push_back(attention.input(3));
  }
  packed_attention.attrs["q_num_heads"] = hq;
  packed_attention.attrs["kv_num_heads"] = hkv;
  packed_attention.attrs["is_causal"] = attention.attr_int("is_causal");
  if (attention.has_attr("scale")) packed_attention.attrs["scale"] = attention.attr_float("scale");
  KILN_RETURN_IF_ERROR(rw.Replace({&attention}, std::move(packed_attention)).status(),
                       "in qkv_packing");
  return true;
}

class QkvPackingPass : public Pass {
 public:
  const char* name() const override { return "qkv_packing"; }
  Result<bool> Run(ir::Graph& graph, PassContext& ctx) override {
    return pattern::RewriteEachNode(graph,
                                    [&](ir::Node& n, Rewriter& rw) { return TryPack(n, rw, ctx); });
  }
};

}  // namespace

std::unique_ptr<Pass> CreateQkvPackingPass() { return std::make_unique<QkvPackingPass>(); }

}  // namespace kiln::compiler
