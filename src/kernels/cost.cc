// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "kernels/cost.h"

#include <set>
#include <string>
#include <unordered_map>

namespace kiln::kernels {
namespace {

using Kind = NodeCost::Kind;

struct Rule {
  Kind kind;
  double per_element;
};

// One entry per op type (fused ops included). Element-wise ops count one operation per output
// element unless they compose several (Gelu's erf form: 8; Swish: exp, add, div, mul).
const std::unordered_map<std::string, Rule>& Rules() {
  static const auto* rules = new std::unordered_map<std::string, Rule>{
      // Data movement, shapes, control flow (a body's nodes are counted by themselves).
      {"Reshape", {Kind::kNone, 0}},
      {"Transpose", {Kind::kNone, 0}},
      {"Concat", {Kind::kNone, 0}},
      {"Split", {Kind::kNone, 0}},
      {"Slice", {Kind::kNone, 0}},
      {"Gather", {Kind::kNone, 0}},
      {"GatherElements", {Kind::kNone, 0}},
      {"GatherND", {Kind::kNone, 0}},
      {"ScatterElements", {Kind::kNone, 0}},
      {"ScatterND", {Kind::kNone, 0}},
      {"Expand", {Kind::kNone, 0}},
      {"Tile", {Kind::kNone, 0}},
      {"Pad", {Kind::kNone, 0}},
      {"Squeeze", {Kind::kNone, 0}},
      {"Unsqueeze", {Kind::kNone, 0}},
      {"Flatten", {Kind::kNone, 0}},
      {"Identity", {Kind::kNone, 0}},
      {"Dropout", {Kind::kNone, 0}},
      {"Cast", {Kind::kNone, 0}},
      {"CastLike", {Kind::kNone, 0}},
      {"BitCast", {Kind::kNone, 0}},
      {"Shape", {Kind::kNone, 0}},
      {"Size", {Kind::kNone, 0}},
      {"DepthToSpace", {Kind::kNone, 0}},
      {"SpaceToDepth", {Kind::kNone, 0}},
      {"Constant", {Kind::kNone, 0}},
      {"ConstantOfShape", {Kind::kNone, 0}},
      {"Range", {Kind::kNone, 0}},
      {"NonZero", {Kind::kNone, 0}},
      {"Compress", {Kind::kNone, 0}},
      {"OneHot", {Kind::kNone, 0}},
      {"EyeLike", {Kind::kNone, 0}},
      {"Trilu", {Kind::kNone, 0}},
      {"ReverseSequence", {Kind::kNone, 0}},
      {"CenterCropPad", {Kind::kNone, 0}},
      {"Col2Im", {Kind::kNone, 0}},
      {"If", {Kind::kNone, 0}},
      {"Loop", {Kind::kNone, 0}},
      {"Scan", {Kind::kNone, 0}},
      // Element-wise.
      {"Add", {Kind::kPerOutput, 1}},
      {"Sub", {Kind::kPerOutput, 1}},
      {"Mul", {Kind::kPerOutput, 1}},
      {"Div", {Kind::kPerOutput, 1}},
      {"Pow", {Kind::kPerOutput, 1}},
      {"Mod", {Kind::kPerOutput, 1}},
      {"Max", {Kind::kPerOutput, 1}},
      {"Min", {Kind::kPerOutput, 1}},
      {"Sum", {Kind::kPerOutput, 1}},
      {"Mean", {Kind::kPerOutput, 1}},
      {"PRelu", {Kind::kPerOutput, 1}},
      {"Relu", {Kind::kPerOutput, 1}},
      {"LeakyRelu", {Kind::kPerOutput, 1}},
      {"Clip", {Kind::kPerOutput, 1}},
      {"Abs", {Kind::kPerOutput, 1}},
      {"Neg", {Kind::kPerOutput, 1}},
      {"Floor", {Kind::kPerOutput, 1}},
      {"Ceil", {Kind::kPerOutput, 1}},
      {"Round", {Kind::kPerOutput, 1}},
      {"Sign", {Kind::kPerOutput, 1}},
      {"Reciprocal", {Kind::kPerOutput, 1}},
      {"Sqrt", {Kind::kPerOutput, 1}},
      {"Exp", {Kind::kPerOutput, 1}},
      {"Log", {Kind::kPerOutput, 1}},
      {"Sigmoid", {Kind::kPerOutput, 1}},
      {"Tanh", {Kind::kPerOutput, 1}},
      {"Erf", {Kind::kPerOutput, 1}},
      {"Sin", {Kind::kPerOutput, 1}},
      {"Cos", {Kind::kPerOutput, 1}},
      {"Tan", {Kind::kPerOutput, 1}},
      {"Asin", {Kind::kPerOutput, 1}},
      {"Acos", {Kind::kPerOutput, 1}},
      {"Atan", {Kind::kPerOutput, 1}},
      {"Sinh", {Kind::kPerOutput, 1}},
      {"Cosh", {Kind::kPerOutput, 1}},
      {"Asinh", {Kind::kPerOutput, 1}},
      {"Acosh", {Kind::kPerOutput, 1}},
      {"Atanh", {Kind::kPerOutput, 1}},
      {"Equal", {Kind::kPerOutput, 1}},
      {"Greater", {Kind::kPerOutput, 1}},
      {"GreaterOrEqual", {Kind::kPerOutput, 1}},
      {"Less", {Kind::kPerOutput, 1}},
      {"LessOrEqual", {Kind::kPerOutput, 1}},
      {"And", {Kind::kPerOutput, 1}},
      {"Or", {Kind::kPerOutput, 1}},
      {"Xor", {Kind::kPerOutput, 1}},
      {"Not", {Kind::kPerOutput, 1}},
      {"Where", {Kind::kPerOutput, 1}},
      {"BitShift", {Kind::kPerOutput, 1}},
      {"BitwiseAnd", {Kind::kPerOutput, 1}},
      {"BitwiseOr", {Kind::kPerOutput, 1}},
      {"BitwiseXor", {Kind::kPerOutput, 1}},
      {"BitwiseNot", {Kind::kPerOutput, 1}},
      {"IsNaN", {Kind::kPerOutput, 1}},
      {"IsInf", {Kind::kPerOutput, 1}},
      {"ThresholdedRelu", {Kind::kPerOutput, 1}},
      {"Shrink", {Kind::kPerOutput, 2}},
      {"HardSigmoid", {Kind::kPerOutput, 3}},
      {"HardSwish", {Kind::kPerOutput, 4}},
      {"Elu", {Kind::kPerOutput, 3}},
      {"Selu", {Kind::kPerOutput, 4}},
      {"Celu", {Kind::kPerOutput, 4}},
      {"Softplus", {Kind::kPerOutput, 2}},
      {"Softsign", {Kind::kPerOutput, 2}},
      {"Swish", {Kind::kPerOutput, 4}},
      {"Mish", {Kind::kPerOutput, 5}},
      {"Gelu", {Kind::kPerOutput, 8}},
      {"RotaryEmbedding", {Kind::kPerOutput, 3}},
      {"QuantizeLinear", {Kind::kPerOutput, 2}},
      {"DequantizeLinear", {Kind::kPerOutput, 2}},
      {"DynamicQuantizeLinear", {Kind::kPerInput, 4}},
      // Reductions, scans, normalisations (per input element).
      {"ReduceSum", {Kind::kPerInput, 1}},
      {"ReduceMean", {Kind::kPerInput, 1}},
      {"ReduceMax", {Kind::kPerInput, 1}},
      {"ReduceMin", {Kind::kPerInput, 1}},
      {"ReduceProd", {Kind::kPerInput, 1}},
      {"ReduceL1", {Kind::kPerInput, 2}},
      {"ReduceL2", {Kind::kPerInput, 2}},
      {"ReduceSumSquare", {Kind::kPerInput, 2}},
      {"ReduceLogSum", {Kind::kPerInput, 1}},
      {"ReduceLogSumExp", {Kind::kPerInput, 3}},
      {"ArgMax", {Kind::kPerInput, 1}},
      {"ArgMin", {Kind::kPerInput, 1}},
      {"CumSum", {Kind::kPerInput, 1}},
      {"CumProd", {Kind::kPerInput, 1}},
      {"TopK", {Kind::kPerInput, 1}},
      {"Hardmax", {Kind::kPerInput, 1}},
      {"Softmax", {Kind::kPerInput, 5}},
      {"LogSoftmax", {Kind::kPerInput, 5}},
      {"GlobalAveragePool", {Kind::kPerInput, 1}},
      {"GlobalMaxPool", {Kind::kPerInput, 1}},
      {"GlobalLpPool", {Kind::kPerInput, 2}},
      {"BatchNormalization", {Kind::kPerInput, 2}},
      {"InstanceNormalization", {Kind::kPerInput, 8}},
      {"GroupNormalization", {Kind::kPerInput, 8}},
      {"LayerNormalization", {Kind::kPerInput, 8}},
      {"RMSNormalization", {Kind::kPerInput, 5}},
      {"LpNormalization", {Kind::kPerInput, 3}},
      {"MeanVarianceNormalization", {Kind::kPerInput, 8}},
      // Windows, products.
      {"MaxPool", {Kind::kWindow, 0}},
      {"AveragePool", {Kind::kWindow, 0}},
      {"LpPool", {Kind::kWindow, 0}},
      {"LRN", {Kind::kWindow, 0}},
      {"Conv", {Kind::kConv, 0}},
      {"FusedConv", {Kind::kConv, 0}},
      {"QLinearConv", {Kind::kConv, 0}},
      {"FusedQLinearConv", {Kind::kConv, 0}},
      {"ConvInteger", {Kind::kConv, 0}},
      {"ConvTranspose", {Kind::kConvTranspose, 0}},
      {"FusedConvTranspose", {Kind::kConvTranspose, 0}},
      {"MatMul", {Kind::kMatMul, 0}},
      {"FusedMatMul", {Kind::kMatMul, 0}},
      {"QLinearMatMul", {Kind::kMatMul, 0}},
      {"MatMulInteger", {Kind::kMatMul, 0}},
      {"Gemm", {Kind::kGemm, 0}},
      {"FusedGemm", {Kind::kGemm, 0}},
      {"LSTM", {Kind::kRecurrent, 0}},
      {"GRU", {Kind::kRecurrent, 0}},
      {"RNN", {Kind::kRecurrent, 0}},
      {"Attention", {Kind::kAttention, 0}},
      {"PackedQkvAttention", {Kind::kAttention, 0}},
  };
  return *rules;
}

int64_t Elements(const TensorView* t) { return t != nullptr ? t->num_elements() : 0; }

const TensorView* At(const std::vector<const TensorView*>& v, size_t i) {
  return i < v.size() ? v[i] : nullptr;
}

}  // namespace

// Ops that compute one transcendental function per element of their cost basis.
bool Transcendental(const std::string& op) {
  static const std::set<std::string> kOps = {"Exp",  "Log",   "Sigmoid", "Tanh",      "Erf",
                                             "Gelu", "Swish", "Mish",    "Softplus",  "Elu",
                                             "Selu", "Celu",  "Softmax", "LogSoftmax"};
  return kOps.count(op) != 0;
}

NodeCost PrepareCost(const NodeDef& def) {
  NodeCost cost;
  auto it = Rules().find(def.op_type);
  if (it == Rules().end()) return cost;
  cost.kind = it->second.kind;
  cost.per_element = it->second.per_element;
  if (Transcendental(def.op_type)) cost.transcendentals = 1;
  switch (cost.kind) {
    case Kind::kWindow:
      if (def.op_type == "LRN") {
        cost.window = def.attr_int("size") + 2;  // the window's squares plus scale and pow
      } else {
        for (int64_t k : def.attr_ints("kernel_shape")) cost.window *= k;
      }
      break;
    case Kind::kConv:
    case Kind::kGemm:
    case Kind::kMatMul:
      if (def.op_type == "QLinearConv" || def.op_type == "FusedQLinearConv") {
        // W is input 3; the epilogue requantizes (bias at 8, residual at 9, activation).
        cost.weight_input = 3;
        cost.per_element = 2 + (def.input_given(8) ? 1 : 0) + (def.input_given(9) ? 3 : 0) +
                           (def.attr_string("activation").empty() ? 0 : 1);
        break;
      }
      if (def.op_type == "QLinearMatMul") {
        cost.per_element = 2;  // the requantization
        break;
      }
      // Inputs 2 and 3 are zero points: no epilogue.
      if (def.op_type == "ConvInteger" || def.op_type == "MatMulInteger") break;
      // The epilogue: bias (input 2), residual (input 3) and a fused activation.
      cost.per_element = (def.input_given(2) ? 1 : 0) + (def.input_given(3) ? 1 : 0) +
                         (def.attr_string("activation").empty() ? 0 : 1);
      if (def.op_type == "Gemm" && def.input_given(2)) cost.per_element = 1;
      break;
    case Kind::kAttention:
      cost.heads = def.attr_int("q_num_heads");
      cost.packed_qkv = def.op_type == "PackedQkvAttention";
      break;
    default:
      break;
  }
  return cost;
}

std::optional<uint64_t> Flops(const NodeCost& cost, const std::vector<const TensorView*>& inputs,
                              const std::vector<const TensorView*>& outputs) {
  const TensorView* x = At(inputs, 0);
  const TensorView* w = At(inputs, cost.weight_input);
  const TensorView* y = At(outputs, 0);
  const double out = static_cast<double>(Elements(y));
  double flops = 0;
  switch (cost.kind) {
    case Kind::kUnknown:
      return std::nullopt;
    case Kind::kNone:
      return 0;
    case Kind::kPerOutput:
      flops = cost.per_element * out;
      // A variadic Sum/Max/Min/Mean of n inputs does n-1 operations per element.
      if (inputs.size() > 2) flops *= static_cast<double>(inputs.size() - 1);
      break;
    case Kind::kPerInput:
      flops = cost.per_element * static_cast<double>(Elements(x));
      break;
    case Kind::kWindow:
      flops = out * static_cast<double>(cost.window);
      break;
    case Kind::kConv:
    case Kind::kConvTranspose: {
      if (w == nullptr || w->rank() < 2 || w->dims[0] <= 0 || y == nullptr) return std::nullopt;
      const double per_filter = static_cast<double>(Elements(w) / w->dims[0]);
      const double base = cost.kind == Kind::kConv ? out : static_cast<double>(Elements(x));
      flops = 2 * base * per_filter + cost.per_element * out;
      break;
    }
    case Kind::kMatMul:
    case Kind::kGemm: {
      if (x == nullptr || x->rank() == 0 || y == nullptr) return std::nullopt;
      double k = static_cast<double>(x->dims.back());
      if (cost.kind == Kind::kGemm) {
        if (y->rank() != 2 || y->dims[0] <= 0) return std::nullopt;
        k = static_cast<double>(Elements(x)) / static_cast<double>(y->dims[0]);
      }
      flops = 2 * out * k + cost.per_element * out;
      break;
    }
    case Kind::kRecurrent: {
      const TensorView* r = At(inputs, 2);
      if (x == nullptr || w == nullptr || r == nullptr || w->rank() != 3 || w->dims[2] <= 0) {
        return std::nullopt;
      }
      const double steps_times_batch =
          static_cast<double>(Elements(x)) / static_cast<double>(w->dims[2]);
      flops = 2 * steps_times_batch * static_cast<double>(Elements(w) + Elements(r));
      break;
    }
    case Kind::kAttention: {
      if (cost.packed_qkv) {  // Q [B, S, Hq * D] and K [B, S, Hkv * D] are slices of input 0
        if (x == nullptr || y == nullptr || x->rank() != 3 || cost.heads <= 0 || y->rank() != 3 ||
            y->dims[2] < cost.heads) {
          return std::nullopt;
        }
        const double kv_len = static_cast<double>(x->dims[1]);
        const double rows = out / static_cast<double>(y->dims[2] / cost.heads);
        flops = 4 * out * kv_len + 5 * rows * kv_len;  // Q has Y's elements (D = Dv)
        break;
      }
      const TensorView* k = w;
      if (x == nullptr || k == nullptr || y == nullptr || x->rank() != k->rank() ||
          (x->rank() != 3 && x->rank() != 4)) {
        return std::nullopt;
      }
      const int64_t head_dim = x->rank() == 4   ? x->dims[3]
                               : cost.heads > 0 ? x->dims[2] / cost.heads
                                                : 0;
      if (head_dim <= 0) return std::nullopt;
      const double kv_len = static_cast<double>(k->dims[k->rank() - 2]);
      const double rows = static_cast<double>(Elements(x) / head_dim);  // batch × heads × q_len
      flops = 2 * static_cast<double>(Elements(x)) * kv_len + 2 * out * kv_len + 5 * rows * kv_len;
      break;
    }
  }
  return static_cast<uint64_t>(flops);
}

std::optional<WorkEstimate> EstimateWork(const NodeCost& cost,
                                         const std::vector<const TensorView*>& inputs,
                                         const std::vector<const TensorView*>& outputs) {
  const std::optional<uint64_t> flops = Flops(cost, inputs, outputs);
  if (!flops) return std::nullopt;
  // Bytes written, and bytes read by an op that computes on all of its inputs (a matrix
  // product's weights, an element-wise op's operands); an op that only moves data may read a
  // small part of an input (Gather's table, Slice's source): it reads what it writes.
  uint64_t bytes = 0;
  for (const TensorView* t : outputs) {
    if (t != nullptr) bytes += t->bytes();
  }
  if (cost.kind != Kind::kNone) {
    for (const TensorView* t : inputs) {
      if (t != nullptr) bytes += t->bytes();
    }
  } else {
    bytes *= 2;
  }
  double extra = 0;
  if (cost.transcendentals > 0) {
    const TensorView* basis = cost.kind == Kind::kPerInput ? At(inputs, 0) : At(outputs, 0);
    extra = cost.transcendentals * (kTranscendentalWork - 1) * static_cast<double>(Elements(basis));
  }
  return WorkEstimate{*flops + static_cast<uint64_t>(extra), bytes};
}

}  // namespace kiln::kernels
