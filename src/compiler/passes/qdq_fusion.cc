// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// qdq_fusion: a QDQ model (onnxruntime.quantization's QuantFormat.QDQ, TensorRT's and
// OpenVINO's NNCF exports) writes every int8 op as DequantizeLinear -> float op -> QuantizeLinear.
// Run as written, each op computes in float32 between an element-wise dequantize and quantize.
// This pass turns the groups it recognises into integer ops, as onnxruntime's QDQ selectors do:
//
//   DQ(x) -> Conv(., DQ(w), [DQ(b) | b]) -> [Relu] -> Q                 => FusedQLinearConv
//   ... then -> DQ -> Add(., DQ(z)) -> [Relu] -> Q                       => the same node with Z
//   DQ(a) -> MatMul(., DQ(B)) -> Q, B constant and 2-D                  => QLinearMatMul
//   DQ(a) -> Gemm(., DQ(W), [C]) -> Q, W constant, alpha = beta = 1      => FusedQLinearMatMul
//   DQ(x) -> MaxPool / Reshape / Transpose / ... -> Q of x's own parameters => the op on x
//
// Conditions (anything else is left as written, which stays correct): the scales and zero
// points are constants, one value each except the weights' per-output-channel ones (a
// convolution's axis 0, a matmul's column axis 1); the weights are constant int8 with zero points
// 0 (symmetric, onnxruntime's default: what int8 kernels take; other weights would leave the
// integer op to a slow reference kernel, so their group stays in float); the bias is a float32
// constant or the DequantizeLinear of an int32 constant, requantized to x_scale * w_scale when its
// own scale differs; every intermediate value has only the fused reader. The DequantizeLinear
// nodes stay for their other readers and go with dead code elimination otherwise. It runs first,
// before constant folding would turn the weights' DequantizeLinear into float32 constants.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "compiler/passes/passes.h"
#include "compiler/passes/pattern_util.h"

namespace kiln::compiler {
namespace {

using pattern::NewNode;
using pattern::Rewriter;

bool Is8Bit(ir::DataType t) { return t == ir::DataType::kUint8 || t == ir::DataType::kInt8; }

bool IsConstant(const ir::Value* v) { return v != nullptr && v->constant() != nullptr; }

// A quantize or dequantize node's scale and zero point.
struct QParams {
  ir::Value* scale = nullptr;
  ir::Value* zero = nullptr;
};

// Constant float32 scale of one value with a constant 8-bit zero point of one value (`q` is the
// quantized tensor, whose type the zero point has).
bool IsPerTensor(const QParams& p, ir::DataType q) {
  if (!IsConstant(p.scale) || !IsConstant(p.zero)) return false;
  const ir::Tensor &s = *p.scale->constant(), &z = *p.zero->constant();
  return s.dtype() == ir::DataType::kFloat32 && s.num_elements() == 1 && z.dtype() == q &&
         z.num_elements() == 1;
}

// The same per-tensor parameters (equal constants).
bool SameParams(const QParams& a, const QParams& b) {
  if (a.scale == b.scale && a.zero == b.zero) return true;
  auto sa = pattern::ScalarConstant(a.scale), sb = pattern::ScalarConstant(b.scale);
  auto za = pattern::ScalarConstant(a.zero), zb = pattern::ScalarConstant(b.zero);
  return sa && sb && za && zb && *sa == *sb && *za == *zb &&
         a.zero->constant()->dtype() == b.zero->constant()->dtype();
}

// The DequantizeLinear (axis `axis` when per-axis; no blocks) that produces `v`; null otherwise.
ir::Node* DequantizeOf(const ir::Value* v) {
  ir::Node* n = v == nullptr ? nullptr : v->producer();
  if (!pattern::IsOp(n, "DequantizeLinear") || n->input(0) == nullptr || n->input(1) == nullptr) {
    return nullptr;
  }
  if (n->has_attr("block_size") && n->attr_int("block_size") != 0) return nullptr;
  return n;
}

QParams ParamsOf(const ir::Node& qdq) { return {qdq.input(1), qdq.input(2)}; }

// A per-tensor DequantizeLinear of an 8-bit x feeding `v`: its node, else null.
ir::Node* PerTensorDequantize(const ir::Value* v) {
  ir::Node* dq = DequantizeOf(v);
  if (dq == nullptr || !Is8Bit(dq->input(0)->dtype()) || dq->input(2) == nullptr) return nullptr;
  return IsPerTensor(ParamsOf(*dq), dq->input(0)->dtype()) ? dq : nullptr;
}

// The QuantizeLinear that is the sole reader of `v`, per tensor and to an 8-bit type.
ir::Node* SoleQuantize(const ir::Graph& graph, const ir::Value* v) {
  ir::Node* q = pattern::SoleUser(graph, v);
  if (!pattern::IsOp(q, "QuantizeLinear") || q->input(0) != v || q->input(2) == nullptr ||
      q->outputs().size() != 1) {
    return nullptr;
  }
  const ir::DataType t = q->input(2)->dtype();
  if (!Is8Bit(t) || q->output(0)->dtype() != t || !IsPerTensor(ParamsOf(*q), t)) return nullptr;
  return q;
}

// The sole reader of `v` when it is a Relu of `v`, else null.
ir::Node* SoleRelu(const ir::Graph& graph, const ir::Value* v) {
  ir::Node* relu = pattern::SoleUser(graph, v);
  return pattern::IsOp(relu, "Relu") && relu->outputs().size() == 1 ? relu : nullptr;
}

std::vector<float> FloatValues(const ir::Tensor& t) {
  return std::vector<float>(t.data<float>(), t.data<float>() + t.num_elements());
}

// The weights' DequantizeLinear: constant int8 W with constant float32 scales (one, or `m`
// along `axis` of W) and zero points of the same shape that are all 0 (or none).
ir::Node* WeightDequantize(const ir::Value* w, int64_t m, int64_t axis) {
  ir::Node* dq = DequantizeOf(w);
  if (dq == nullptr || !IsConstant(dq->input(0)) || dq->input(0)->dtype() != ir::DataType::kInt8) {
    return nullptr;
  }
  const ir::Value* s = dq->input(1);
  const ir::Value* z = dq->input(2);
  if (!IsConstant(s) || s->constant()->dtype() != ir::DataType::kFloat32) return nullptr;
  const int64_t n = s->constant()->num_elements();
  if (n != 1 && (n != m || s->constant()->dims().size() != 1)) return nullptr;
  const int64_t rank = static_cast<int64_t>(dq->input(0)->constant()->dims().size());
  const int64_t a = dq->attr_int("axis");
  if (n != 1 && a != axis && a != axis - rank) return nullptr;
  if (z != nullptr) {
    if (!IsConstant(z) || z->constant()->dtype() != ir::DataType::kInt8 ||
        z->constant()->num_elements() != n) {
      return nullptr;
    }
    const int8_t* zd = z->constant()->data<int8_t>();
    for (int64_t i = 0; i < n; ++i) {
      if (zd[i] != 0) return nullptr;
    }
  }
  return dq;
}

// W's zero points: the DequantizeLinear's, else zeros of W's type (one per scale).
ir::Value* WeightZeroPoint(ir::Graph& graph, const ir::Node& dqw, size_t scales,
                           const std::string& stem) {
  if (dqw.input(2) != nullptr) return dqw.input(2);
  ir::Value* wz = graph.AddUniqueValue(stem + "_w_zero_point", {});
  const std::vector<int8_t> zeros(scales, 0);
  std::vector<int64_t> dims;
  if (scales != 1) dims.push_back(static_cast<int64_t>(scales));
  wz->set_constant(ir::Tensor::FromVector(dqw.input(0)->dtype(), dims, zeros));
  return wz;
}

// The bias as int32 in units of x_scale * w_scale[c] (QLinearConv's B): the int32 constant of
// a DequantizeLinear whose scale is already that product (zero point 0), else the float bias
// requantized. Null when the bias is neither.
ir::Value* Int32Bias(ir::Graph& graph, ir::Value* b, float x_scale, const std::vector<float>& ws,
                     int64_t m, const std::string& stem) {
  std::vector<double> real(static_cast<size_t>(m));
  ir::Node* dq = DequantizeOf(b);
  if (dq != nullptr) {
    const ir::Value *q = dq->input(0), *s = dq->input(1), *z = dq->input(2);
    if (!IsConstant(q) || q->constant()->dtype() != ir::DataType::kInt32 ||
        q->constant()->num_elements() != m || !IsConstant(s) ||
        s->constant()->dtype() != ir::DataType::kFloat32) {
      return nullptr;
    }
    const int64_t ns = s->constant()->num_elements();
    if (ns != 1 && ns != m) return nullptr;
    if (z != nullptr && (!IsConstant(z) || z->constant()->dtype() != ir::DataType::kInt32 ||
                         z->constant()->num_elements() != ns)) {
      return nullptr;
    }
    const int32_t* qd = q->constant()->data<int32_t>();
    const float* sd = s->constant()->data<float>();
    const int32_t* zd = z ? z->constant()->data<int32_t>() : nullptr;
    bool same = true;
    for (int64_t c = 0; c < m; ++c) {
      const int64_t j = ns == 1 ? 0 : c;
      const int32_t zc = zd ? zd[j] : 0;
      same = same && zc == 0 && sd[j] == x_scale * ws[static_cast<size_t>(ws.size() == 1 ? 0 : c)];
      // As DequantizeLinear computes it, in float32.
      real[static_cast<size_t>(c)] =
          static_cast<float>(static_cast<float>(int64_t{qd[c]} - zc) * sd[j]);
    }
    // Reused as it is only when it is already the 1-D [m] tensor the integer ops take.
    if (same && q->constant()->dims().size() == 1) return dq->input(0);
  } else if (IsConstant(b) && b->constant()->dtype() == ir::DataType::kFloat32 &&
             b->constant()->num_elements() == m) {
    const float* bd = b->constant()->data<float>();
    for (int64_t c = 0; c < m; ++c) real[static_cast<size_t>(c)] = bd[c];
  } else {
    return nullptr;
  }
  std::vector<int32_t> q(static_cast<size_t>(m));
  for (int64_t c = 0; c < m; ++c) {
    const double unit = double{x_scale} * ws[static_cast<size_t>(ws.size() == 1 ? 0 : c)];
    const double v = unit > 0 ? std::nearbyint(real[static_cast<size_t>(c)] / unit) : 0.0;
    if (!(std::fabs(v) < 2147483647.0)) return nullptr;  // not representable (or NaN)
    q[static_cast<size_t>(c)] = static_cast<int32_t>(v);
  }
  ir::Value* out = graph.AddUniqueValue(stem + "_bias_int32", {});
  out->set_constant(ir::Tensor::FromVector(ir::DataType::kInt32, {m}, q));
  return out;
}

Result<bool> TryConv(ir::Node& conv, Rewriter& rw, PassContext& ctx) {
  if (!pattern::IsOp(&conv, "Conv") || conv.outputs().size() != 1) return false;
  ir::Graph& graph = rw.graph();
  ir::Node* dqx = PerTensorDequantize(conv.input(0));
  if (dqx == nullptr || conv.input(1) == nullptr || !conv.input(1)->shape().rank_known()) {
    return false;
  }
  const ir::Shape& wshape = conv.input(1)->shape();
  if (wshape.rank() < 3 || !wshape[0].known()) return false;
  const int64_t m = wshape[0].value;
  ir::Node* dqw = WeightDequantize(conv.input(1), m, 0);
  if (dqw == nullptr) return false;

  // Y = Q([Relu](Conv)).
  std::vector<ir::Node*> fused = {&conv};
  ir::Value* y = conv.output(0);
  std::string activation;
  if (ir::Node* relu = SoleRelu(graph, y)) {
    fused.push_back(relu);
    y = relu->output(0);
    activation = "Relu";
  }
  ir::Node* qy = SoleQuantize(graph, y);
  if (qy == nullptr) return false;
  fused.push_back(qy);
  ir::Value* out = qy->output(0);

  const float xs = pattern::ScalarConstant(dqx->input(1)).value();
  const std::vector<float> ws = FloatValues(*dqw->input(1)->constant());
  const std::string stem = conv.name().empty() ? std::string("conv") : conv.name();
  ir::Value* bias = nullptr;
  if (conv.input(2) != nullptr) {
    bias = Int32Bias(graph, conv.input(2), xs, ws, m, stem);
    if (bias == nullptr) return false;
  }
  ir::Value* wz = WeightZeroPoint(graph, *dqw, ws.size(), stem);
  std::vector<ir::Value*> inputs = {dqx->input(0), dqx->input(1), dqx->input(2),
                                    dqw->input(0), dqw->input(1), wz,
                                    qy->input(1),  qy->input(2),  bias};

  // The residual: Q's output read only by a DequantizeLinear (of Q's own parameters) read only by
  // an Add with a per-tensor DequantizeLinear of the same type, then [Relu], then Q.
  std::string residual;
  if (activation.empty()) {
    ir::Node* dqy = pattern::SoleUser(graph, out);
    ir::Node* add = dqy && pattern::IsOp(dqy, "DequantizeLinear") && dqy->input(0) == out &&
                            dqy->input(2) != nullptr && SameParams(ParamsOf(*dqy), ParamsOf(*qy))
                        ? pattern::SoleUser(graph, dqy->output(0))
                        : nullptr;
    ir::Node* dqz = nullptr;
    if (pattern::IsOp(add, "Add") && add->outputs().size() == 1) {
      ir::Value* other = pattern::OtherInput(*add, dqy->output(0));
      dqz = other == dqy->output(0) ? nullptr : PerTensorDequantize(other);
    }
    if (dqz != nullptr && dqz->input(0)->dtype() == out->dtype() &&
        dqz->output(0)->shape().rank_known() && dqz->output(0)->shape() == y->shape() &&
        !pattern::DependsOn(dqz->input(0), &conv)) {
      ir::Value* sum = add->output(0);
      std::vector<ir::Node*> tail = {dqy, add};
      std::string act;
      if (ir::Node* relu = SoleRelu(graph, sum)) {
        tail.push_back(relu);
        sum = relu->output(0);
        act = "Relu";
      }
      ir::Node* qo = SoleQuantize(graph, sum);
      if (qo != nullptr && qo->output(0)->dtype() == out->dtype()) {
        tail.push_back(qo);
        fused.insert(fused.end(), tail.begin(), tail.end());
        inputs.insert(inputs.end(),
                      {dqz->input(0), dqz->input(1), dqz->input(2), qo->input(1), qo->input(2)});
        out = qo->output(0);
        activation = act;
        residual = StrCat(" and the residual ", add->Label());
      }
    }
  }

  graph.opsets().emplace(pattern::kKilnDomain, pattern::kKilnOpset);
  NewNode spec{
      "FusedQLinearConv", pattern::kKilnDomain, conv.name(), pattern::kKilnOpset, inputs, {out},
      conv.attrs()};
  spec.attrs["activation"] = activation;
  ctx.log.push_back(StrCat("qdq_fusion: ", conv.Label(), residual,
                           " with their quantize/dequantize became FusedQLinearConv"));
  KILN_RETURN_IF_ERROR(rw.Replace(fused, std::move(spec)).status(), "in qdq_fusion");
  return true;
}

// DQ(a) -> MatMul(., DQ(B)) -> Q with a constant 2-D B: QLinearMatMul.
Result<bool> TryMatMul(ir::Node& matmul, Rewriter& rw, PassContext& ctx) {
  if (!pattern::IsOp(&matmul, "MatMul") || matmul.outputs().size() != 1) return false;
  ir::Graph& graph = rw.graph();
  ir::Node* dqa = PerTensorDequantize(matmul.input(0));
  const ir::Value* b = matmul.input(1);
  if (dqa == nullptr || b == nullptr || !b->shape().rank_known() || b->shape().rank() != 2 ||
      !b->shape()[1].known()) {
    return false;
  }
  ir::Node* dqb = WeightDequantize(b, b->shape()[1].value, 1);
  ir::Node* q = SoleQuantize(graph, matmul.output(0));
  if (dqb == nullptr || q == nullptr) return false;
  const std::string stem = matmul.name().empty() ? std::string("matmul") : matmul.name();
  const size_t scales = static_cast<size_t>(dqb->input(1)->constant()->num_elements());
  NewNode spec{"QLinearMatMul",
               "",
               matmul.name(),
               std::max(matmul.opset(), 10),
               {dqa->input(0), dqa->input(1), dqa->input(2), dqb->input(0), dqb->input(1),
                WeightZeroPoint(graph, *dqb, scales, stem), q->input(1), q->input(2)},
               {q->output(0)},
               {}};
  ctx.log.push_back(
      StrCat("qdq_fusion: ", matmul.Label(), " with its quantize/dequantize became QLinearMatMul"));
  KILN_RETURN_IF_ERROR(rw.Replace({&matmul, q}, std::move(spec)).status(), "in qdq_fusion");
  return true;
}

// DQ(a) -> Gemm(., DQ(W), [C]) -> Q with transA 0, alpha 1 and beta 1, constant 2-D W and a
// per-column C: FusedQLinearMatMul over W as [K, N] (transposed here when transB) with C as its
// int32 bias.
Result<bool> TryGemm(ir::Node& gemm, Rewriter& rw, PassContext& ctx) {
  if (!pattern::IsOp(&gemm, "Gemm") || gemm.outputs().size() != 1) return false;
  if (gemm.attr_int("transA") != 0 || gemm.attr_float("alpha") != 1.0f ||
      (gemm.input(2) != nullptr && gemm.attr_float("beta") != 1.0f)) {
    return false;
  }
  ir::Graph& graph = rw.graph();
  ir::Node* dqa = PerTensorDequantize(gemm.input(0));
  const ir::Value* w = gemm.input(1);
  if (dqa == nullptr || w == nullptr || !w->shape().rank_known() || w->shape().rank() != 2 ||
      !w->shape()[0].known() || !w->shape()[1].known()) {
    return false;
  }
  const bool trans_b = gemm.attr_int("transB") != 0;
  const int64_t n = w->shape()[trans_b ? 0 : 1].value, k = w->shape()[trans_b ? 1 : 0].value;
  ir::Node* dqw = WeightDequantize(w, n, trans_b ? 0 : 1);
  ir::Node* q = SoleQuantize(graph, gemm.output(0));
  if (dqw == nullptr || q == nullptr) return false;
  const std::string stem = gemm.name().empty() ? std::string("gemm") : gemm.name();
  const float as = pattern::ScalarConstant(dqa->input(1)).value();
  const std::vector<float> ws = FloatValues(*dqw->input(1)->constant());
  ir::Value* bias = nullptr;
  if (gemm.input(2) != nullptr) {
    // C of one value per column: [N] or [1, N] (not [M, 1] of as many values).
    const ir::Shape& c = gemm.input(2)->shape();
    if (!c.rank_known() || c.rank() < 1 || c.rank() > 2 || !c[c.rank() - 1].known() ||
        c[c.rank() - 1].value != n || (c.rank() == 2 && !(c[0].known() && c[0].value == 1))) {
      return false;
    }
    bias = Int32Bias(graph, gemm.input(2), as, ws, n, stem);
    if (bias == nullptr) return false;
  }
  ir::Value* b = dqw->input(0);
  if (trans_b) {  // [N, K] -> [K, N]
    const int8_t* src = b->constant()->data<int8_t>();
    std::vector<int8_t> t(static_cast<size_t>(n * k));
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < k; ++j) t[static_cast<size_t>(j * n + i)] = src[i * k + j];
    }
    b = graph.AddUniqueValue(stem + "_weights_kn", {});
    b->set_constant(ir::Tensor::FromVector(ir::DataType::kInt8, {k, n}, t));
  }
  std::vector<ir::Value*> inputs = {dqa->input(0), dqa->input(1),
                                    dqa->input(2), b,
                                    dqw->input(1), WeightZeroPoint(graph, *dqw, ws.size(), stem),
                                    q->input(1),   q->input(2)};
  if (bias != nullptr) inputs.push_back(bias);
  graph.opsets().emplace(pattern::kKilnDomain, pattern::kKilnOpset);
  NewNode spec{"FusedQLinearMatMul",
               pattern::kKilnDomain,
               gemm.name(),
               pattern::kKilnOpset,
               inputs,
               {q->output(0)},
               {}};
  spec.attrs["activation"] = std::string();
  ctx.log.push_back(StrCat("qdq_fusion: ", gemm.Label(),
                           " with its quantize/dequantize became FusedQLinearMatMul"));
  KILN_RETURN_IF_ERROR(rw.Replace({&gemm, q}, std::move(spec)).status(), "in qdq_fusion");
  return true;
}

// Ops that move or select elements without computing new values (and MaxPool, a selection):
// their quantized form, when a DequantizeLinear feeds their data input (input 0) and a
// QuantizeLinear of the same constants reads their output, is the op on the 8-bit tensor itself,
// since the quantization of a dequantized value of the same parameters is that value. The
// opset from which each takes 8-bit tensors.
int EightBitSince(const ir::Node& n) {
  static const std::map<std::string, int> kOps = {
      {"MaxPool", 12},     {"Reshape", 5},   {"Flatten", 1},      {"Squeeze", 1},
      {"Unsqueeze", 1},    {"Transpose", 1}, {"Slice", 1},        {"Gather", 1},
      {"Identity", 1},     {"Expand", 8},    {"DepthToSpace", 1}, {"SpaceToDepth", 1},
      {"GlobalMaxPool", 1}};
  if (!n.domain().empty()) return INT32_MAX;
  auto it = kOps.find(n.op_type());
  return it == kOps.end() ? INT32_MAX : it->second;
}

Result<bool> TryDataMovement(ir::Node& op, Rewriter& rw, PassContext& ctx) {
  if (op.opset() < EightBitSince(op) || op.outputs().empty()) return false;
  ir::Graph& graph = rw.graph();
  for (size_t i = 1; i < op.outputs().size(); ++i) {  // MaxPool's Indices: unread
    const ir::Value* extra = op.output(i);
    if (extra != nullptr && (!graph.Uses(extra).empty() || pattern::IsGraphOutput(graph, extra))) {
      return false;
    }
  }
  ir::Node* dqx = PerTensorDequantize(op.input(0));
  if (dqx == nullptr) return false;
  for (size_t i = 1; i < op.inputs().size(); ++i) {
    if (op.input(i) == op.input(0)) return false;  // the dequantized value as an index or shape
  }
  ir::Node* q = SoleQuantize(graph, op.output(0));
  if (q == nullptr || !SameParams(ParamsOf(*q), ParamsOf(*dqx)) ||
      q->output(0)->dtype() != dqx->input(0)->dtype()) {
    return false;
  }
  std::vector<ir::Value*> inputs = op.inputs();
  inputs[0] = dqx->input(0);
  NewNode spec{op.op_type(), "", op.name(), op.opset(), inputs, {q->output(0)}, op.attrs()};
  ctx.log.push_back(
      StrCat("qdq_fusion: ", op.Label(), " runs on the quantized ", dqx->input(0)->name()));
  KILN_RETURN_IF_ERROR(rw.Replace({&op, q}, std::move(spec)).status(), "in qdq_fusion");
  return true;
}

class QdqFusionPass : public Pass {
 public:
  const char* name() const override { return "qdq_fusion"; }
  Result<bool> Run(ir::Graph& graph, PassContext& ctx) override {
    return pattern::RewriteEachNode(graph, [&](ir::Node& n, Rewriter& rw) -> Result<bool> {
      KILN_ASSIGN_OR_RETURN(bool done, TryConv(n, rw, ctx));
      if (done) return true;
      KILN_ASSIGN_OR_RETURN(done, TryMatMul(n, rw, ctx));
      if (done) return true;
      KILN_ASSIGN_OR_RETURN(done, TryGemm(n, rw, ctx));
      if (done) return true;
      return TryDataMovement(n, rw, ctx);
    });
  }
};

}  // namespace

std::unique_ptr<Pass> CreateQdqFusionPass() { return std::make_unique<QdqFusionPass>(); }

}  // namespace kiln::compiler
