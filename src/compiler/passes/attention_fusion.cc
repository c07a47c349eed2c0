// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// attention_fusion: a transformer's scaled dot-product attention as exporters write it
//   scores = MatMul(Q, Kt) [* scale: a FusedMatMul's post_scale]   Q [B, H, Sq, D], Kt [B, H, D,
//   Sk] probs  = Softmax(scores [+ mask], axis = -1)                   the mask broadcasts to
//   scores out    = MatMul(probs, V)                                      V [B, H, Sk, Dv]
// becomes one ONNX Attention (opset 23) with `scale`, whose kernel keeps each head's scores in
// cache instead of writing, re-reading and rewriting them between four nodes.
// With the heads split and merged around it as BERT-style exports do —
//   Q = Transpose(Reshape(q, [B, Sq, H, D]), perm 0,2,1,3)   (V likewise)
//   Kt = Transpose(Reshape(k, [B, Sk, H, D]), perm 0,2,3,1)
//   y = Reshape(Transpose(out, perm 0,2,1,3), [B, Sq, H * Dv])
// — Attention takes the 3-D q, k, v and writes y (q_num_heads, kv_num_heads = H), so the four
// transposes go too. Otherwise, with Kt = Transpose(K, perm 0,1,3,2), it takes the 4-D Q, K, V.
// Every intermediate must have the fused node as its only reader; float32 only.
#include <optional>
#include <string>
#include <vector>

#include "compiler/passes/passes.h"
#include "compiler/passes/pattern_util.h"

namespace kiln::compiler {
namespace {

using pattern::NewNode;
using pattern::Rewriter;

constexpr int kAttentionOpset = 23;

bool IsFloat32Rank(const ir::Value* v, size_t rank) {
  return v != nullptr && v->dtype() == ir::DataType::kFloat32 && v->shape().rank_known() &&
         v->shape().rank() == rank;
}

// The producer of `v` when it is a `op_type` node whose output `v` is read by `user` only.
ir::Node* SoleProducer(const ir::Graph& graph, const ir::Value* v, const char* op_type,
                       const ir::Node* user) {
  ir::Node* n = v == nullptr ? nullptr : v->producer();
  if (!pattern::IsOp(n, op_type) || pattern::SoleUser(graph, v) != user) return nullptr;
  return n;
}

bool HasPerm(const ir::Node* transpose, const std::vector<int64_t>& perm) {
  return transpose->attr_ints("perm") == perm;
}

// A head split read by `user`: v = Transpose(Reshape(x, [B, S, H, D]), perm) with x [B, S, H * D].
// Returns x and appends both nodes; H in `heads`.
ir::Value* MatchHeadSplit(const ir::Graph& graph, const ir::Value* v, const ir::Node* user,
                          const std::vector<int64_t>& perm, int64_t& heads,
                          std::vector<ir::Node*>& nodes) {
  ir::Node* t = SoleProducer(graph, v, "Transpose", user);
  if (t == nullptr || !HasPerm(t, perm)) return nullptr;
  ir::Node* r = SoleProducer(graph, t->input(0), "Reshape", t);
  if (r == nullptr) return nullptr;
  ir::Value* x = r->input(0);
  const ir::Value* split = r->output(0);
  if (!IsFloat32Rank(x, 3) || !IsFloat32Rank(split, 4)) return nullptr;
  const ir::Shape& xs = x->shape();
  const ir::Shape& ss = split->shape();
  if (!ss[2].known() || !ss[3].known() || !xs[2].known() ||
      xs[2].value != ss[2].value * ss[3].value || !pattern::SameKnownDim(xs[0], ss[0]) ||
      !pattern::SameKnownDim(xs[1], ss[1])) {
    return nullptr;
  }
  heads = ss[2].value;
  nodes.push_back(r);
  nodes.push_back(t);
  return x;
}

// The head merge after `out` [B, H, Sq, Dv]: y = Reshape(Transpose(out, perm 0,2,1,3),
// [B, Sq, H * Dv]). Returns y and appends both nodes.
ir::Value* MatchHeadMerge(const ir::Graph& graph, const ir::Value* out,
                          std::vector<ir::Node*>& nodes) {
  ir::Node* t = pattern::SoleUser(graph, out);
  if (!pattern::IsOp(t, "Transpose") || !HasPerm(t, {0, 2, 1, 3})) return nullptr;
  ir::Node* r = pattern::SoleUser(graph, t->output(0));
  if (!pattern::IsOp(r, "Reshape") || r->input(0) != t->output(0)) return nullptr;
  ir::Value* y = r->output(0);
  const ir::Shape& os = out->shape();
  if (!IsFloat32Rank(y, 3)) return nullptr;
  const ir::Shape& ys = y->shape();
  if (!os[1].known() || !os[3].known() || !ys[2].known() ||
      ys[2].value != os[1].value * os[3].value || !pattern::SameKnownDim(ys[0], os[0]) ||
      !pattern::SameKnownDim(ys[1], os[2])) {
    return nullptr;
  }
  nodes.push_back(t);
  nodes.push_back(r);
  return y;
}

// The scores' product: MatMul(Q, Kt), or a FusedMatMul without bias, activation or shift whose
// post_scale is the attention's scale.
std::optional<float> ScoresScale(const ir::Node* mm) {
  if (pattern::IsOp(mm, "MatMul") && mm->inputs().size() == 2) return 1.0f;
  if (!pattern::IsOp(mm, "FusedMatMul", pattern::kKilnDomain) || mm->input(2) != nullptr ||
      !mm->attr_string("activation").empty() ||
      (mm->has_attr("post_shift") && mm->attr_float("post_shift") != 0.0f)) {
    return std::nullopt;
  }
  return mm->has_attr("post_scale") ? mm->attr_float("post_scale") : 1.0f;
}

// A mask that broadcasts to `scores` without growing it.
bool FitsScores(const ir::Value* mask, const ir::Value* scores) {
  if (mask == nullptr || mask->dtype() != ir::DataType::kFloat32 || !mask->shape().rank_known() ||
      mask->shape().rank() > 4) {
    return false;
  }
  const ir::Shape& ms = mask->shape();
  const ir::Shape& ss = scores->shape();
  const size_t offset = 4 - ms.rank();
  for (size_t i = 0; i < ms.rank(); ++i) {
    if (!(ms[i].known() && ms[i].value == 1) && !pattern::SameKnownDim(ms[i], ss[offset + i]))
      return false;
  }
  return true;
}

// Q [B, Hq, Sq, D], Kt [B, Hk, D, Sk] and V [B, Hk, Sk, Dv] of one batch, with K's and V's heads
// Q's or one (shared by every query head, as MatMul's broadcast and Attention's groups agree).
bool SameHeads(const ir::Value* q4, const ir::Value* kt4, const ir::Value* v4) {
  const ir::Shape &q = q4->shape(), &k = kt4->shape(), &v = v4->shape();
  const bool one = k[1].known() && k[1].value == 1;
  return pattern::SameKnownDim(q[0], k[0]) && pattern::SameKnownDim(q[0], v[0]) &&
         pattern::SameKnownDim(k[1], v[1]) && (one || pattern::SameKnownDim(q[1], k[1]));
}

Result<bool> TryFuse(ir::Node& softmax, Rewriter& rw, PassContext& ctx) {
  if (!pattern::IsOp(&softmax, "Softmax") || softmax.outputs().size() != 1) return false;
  const ir::Graph& graph = rw.graph();
  ir::Value* x = softmax.input(0);
  if (!IsFloat32Rank(x, 4)) return false;
  // Over the keys, the last axis (before opset 13 the default axis is 1).
  const int64_t axis = softmax.has_attr("axis") ? softmax.attr_int("axis")
                       : softmax.opset() >= 13  ? -1
                                                : 1;
  if (axis != -1 && axis != 3) return false;
  std::vector<ir::Node*> nodes;
  // [Add(scores, mask)] -> Softmax
  ir::Value* scores = x;
  ir::Value* mask = nullptr;
  if (ir::Node* add = SoleProducer(graph, x, "Add", &softmax)) {
    for (size_t i = 0; i < 2 && mask == nullptr; ++i) {
      ir::Value* s = add->input(i);
      ir::Value* m = add->input(1 - i);
      if (s != nullptr && s != m && s->producer() != nullptr && IsFloat32Rank(s, 4) &&
          FitsScores(m, s) && ScoresScale(s->producer())) {
        scores = s;
        mask = m;
      }
    }
    if (mask == nullptr) return false;
    nodes.push_back(add);
  }
  ir::Node* consumer = nodes.empty() ? &softmax : nodes.back();
  ir::Node* qk = scores->producer();
  const std::optional<float> scale = ScoresScale(qk);
  if (!scale || pattern::SoleUser(graph, scores) != consumer) return false;
  ir::Value* q4 = qk->input(0);
  ir::Value* kt4 = qk->input(1);
  // Softmax -> MatMul(probs, V)
  ir::Node* pv = pattern::SoleUser(graph, softmax.output(0));
  if (!pattern::IsOp(pv, "MatMul") || pv->input(0) != softmax.output(0)) return false;
  ir::Value* v4 = pv->input(1);
  ir::Value* out = pv->output(0);
  if (!IsFloat32Rank(q4, 4) || !IsFloat32Rank(kt4, 4) || !IsFloat32Rank(v4, 4) ||
      !IsFloat32Rank(out, 4) || !SameHeads(q4, kt4, v4)) {
    return false;
  }
  nodes.push_back(qk);
  nodes.push_back(&softmax);
  nodes.push_back(pv);

  // The 3-D form: every head split and the merge absorbed.
  std::vector<ir::Node*> heads_nodes;
  int64_t hq = 0, hk = 0, hv = 0;
  ir::Value* q = MatchHeadSplit(graph, q4, qk, {0, 2, 1, 3}, hq, heads_nodes);
  ir::Value* k = q ? MatchHeadSplit(graph, kt4, qk, {0, 2, 3, 1}, hk, heads_nodes) : nullptr;
  ir::Value* v = k ? MatchHeadSplit(graph, v4, pv, {0, 2, 1, 3}, hv, heads_nodes) : nullptr;
  ir::Value* y = v && hk == hv ? MatchHeadMerge(graph, out, heads_nodes) : nullptr;
  NewNode spec{"Attention", "", softmax.name(), kAttentionOpset, {}, {}, {}};
  if (y != nullptr) {
    spec.inputs = {q, k, v};
    spec.outputs = {y};
    spec.attrs["q_num_heads"] = hq;
    spec.attrs["kv_num_heads"] = hk;
    nodes.insert(nodes.begin(), heads_nodes.begin(), heads_nodes.end());
  } else {
    // The 4-D form: Kt must be K's last two dims swapped by a Transpose of its own.
    ir::Node* kt = SoleProducer(graph, kt4, "Transpose", qk);
    if (kt == nullptr || !HasPerm(kt, {0, 1, 3, 2}) || !IsFloat32Rank(kt->input(0), 4)) {
      return false;
    }
    nodes.insert(nodes.begin(), kt);
    spec.inputs = {q4, kt->input(0), v4};
    spec.outputs = {out};
  }
  if (mask != nullptr) spec.inputs.push_back(mask);
  spec.attrs["scale"] = *scale;
  ctx.log.push_back(StrCat("attention_fusion: fused ", nodes.size(), " nodes around ",
                           softmax.Label(), " into Attention (",
                           y != nullptr ? "3-D, heads split in place" : "4-D", ")"));
  KILN_RETURN_IF_ERROR(rw.Replace(nodes, std::move(spec)).status(), "in attention_fusion");
  return true;
}

class AttentionFusionPass : public Pass {
 public:
  const char* name() const override { return "attention_fusion"; }
  Result<bool> Run(ir::Graph& graph, PassContext& ctx) override {
    return pattern::RewriteEachNode(graph,
                                    [&](ir::Node& n, Rewriter& rw) { return TryFuse(n, rw, ctx); });
  }
};

}  // namespace

std::unique_ptr<Pass> CreateAttentionFusionPass() {
  return std::make_unique<AttentionFusionPass>();
}

}  // namespace kiln::compiler
