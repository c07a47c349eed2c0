// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Reference kernels of the nn family: the normalisations, the softmax family and the losses.
// The matrix products and Flatten are in nn_matmul.cc, the recurrent ops in nn_recurrent.cc,
// convolutions and pools in nn_conv.cc. These ops are floating point only; each kernel reads
// its inputs as doubles, computes in double and rounds once when it stores the result.
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "kernels/attrs.h"
#include "kernels/reference/common.h"
#include "kernels/reference/families.h"
#include "kernels/util.h"

namespace kiln::kernels {

void RegisterNnMatmulKernels(KernelRegistry& r);     // nn_matmul.cc
void RegisterNnRecurrentKernels(KernelRegistry& r);  // nn_recurrent.cc

namespace {

using Doubles = std::vector<double>;

// Writes `v` into output 0, bound by the executor.
Status EmitY(const NodeDef& def, KernelContext& ctx, const Doubles& v) {
  KILN_ASSIGN_OR_RETURN(TensorView * y, BoundOutput(def, ctx, 0));
  return WriteDoubles(def, *y, v);
}

// Writes `v` into optional output i, unless the graph leaves it out.
Status EmitOptional(const NodeDef& def, KernelContext& ctx, size_t i, const Doubles& v) {
  TensorView* out = i < ctx.num_outputs() ? ctx.output(i) : nullptr;
  return out == nullptr ? Status::Ok() : WriteDoubles(def, *out, v);
}

// ---------------------------------------------------------------------------------------------
// Normalisations.

// Mean and (population) variance of v[begin + k * stride], k < n.
struct Moments {
  double mean = 0, var = 0;
};
Moments MomentsOf(const Doubles& v, const std::vector<int64_t>& positions) {
  Moments m;
  if (positions.empty()) return m;
  double n = static_cast<double>(positions.size());
  for (int64_t p : positions) m.mean += v[static_cast<size_t>(p)];
  m.mean /= n;
  for (int64_t p : positions) {
    double d = v[static_cast<size_t>(p)] - m.mean;
    m.var += d * d;
  }
  m.var /= n;
  return m;
}

// Positions [begin, begin + n) as a list.
std::vector<int64_t> Range(int64_t begin, int64_t n) {
  std::vector<int64_t> p(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) p[static_cast<size_t>(i)] = begin + i;
  return p;
}

// BatchNormalization. Inference mode normalises with the given running statistics; training
// mode (opset 14+, training_mode=1) with the batch's own mean and (population) variance, and
// outputs 1 and 2 are the updated running statistics: running * momentum + batch * (1 - momentum).
Status RunBatchNormalization(const NodeDef& def, KernelContext& ctx) {
  const TensorView* in[5];
  for (size_t i = 0; i < 5; ++i) in[i] = ctx.input(i);
  const TensorView& x = *in[0];
  const int64_t n = x.dims[0], c = x.dims[1], inner = Product(x.dims, 2, x.rank());
  const double eps = def.attr_float("epsilon");
  const bool training = def.attr_int("training_mode") != 0;
  Doubles v = ReadDoubles(x), scale = ReadDoubles(*in[1]), bias = ReadDoubles(*in[2]),
          mean = ReadDoubles(*in[3]), var = ReadDoubles(*in[4]);
  Doubles running_mean = mean, running_var = var;
  if (training) {
    const double momentum = def.attr_float("momentum");
    for (int64_t ch = 0; ch < c; ++ch) {
      std::vector<int64_t> positions;
      for (int64_t b = 0; b < n; ++b) {
        for (int64_t i = 0; i < inner; ++i) positions.push_back((b * c + ch) * inner + i);
      }
      Moments m = MomentsOf(v, positions);
      size_t k = static_cast<size_t>(ch);
      running_mean[k] = mean[k] * momentum + m.mean * (1 - momentum);
      running_var[k] = var[k] * momentum + m.var * (1 - momentum);
      mean[k] = m.mean;
      var[k] = m.var;
    }
  }
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t ch = 0; ch < c; ++ch) {
      size_t k = static_cast<size_t>(ch);
      double mul = scale[k] / std::sqrt(var[k] + eps);
      double* p = v.data() + (b * c + ch) * inner;
      for (int64_t i = 0; i < inner; ++i) p[i] = (p[i] - mean[k]) * mul + bias[k];
    }
  }
  KILN_RETURN_IF_ERROR(EmitY(def, ctx, v), "");
  if (!training) return Status::Ok();
  KILN_RETURN_IF_ERROR(EmitOptional(def, ctx, 1, running_mean), "");
  return EmitOptional(def, ctx, 2, running_var);
}

Status RunInstanceNormalization(const NodeDef& def, KernelContext& ctx) {
  const TensorView* in[3] = {ctx.input(0), ctx.input(1), ctx.input(2)};
  const TensorView& x = *in[0];
  const int64_t n = x.dims[0], c = x.dims[1], inner = Product(x.dims, 2, x.rank());
  const double eps = def.attr_float("epsilon");
  Doubles v = ReadDoubles(x), scale = ReadDoubles(*in[1]), bias = ReadDoubles(*in[2]);
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t ch = 0; ch < c; ++ch) {
      int64_t begin = (b * c + ch) * inner;
      Moments m = MomentsOf(v, Range(begin, inner));
      double mul = scale[static_cast<size_t>(ch)] / std::sqrt(m.var + eps);
      for (int64_t i = 0; i < inner; ++i) {
        double& e = v[static_cast<size_t>(begin + i)];
        e = (e - m.mean) * mul + bias[static_cast<size_t>(ch)];
      }
    }
  }
  return EmitY(def, ctx, v);
}

// GroupNormalization: statistics per (instance, group); scale and bias per group before opset
// 21 and per channel from 21.
Status RunGroupNormalization(const NodeDef& def, KernelContext& ctx) {
  const TensorView* in[3] = {ctx.input(0), ctx.input(1), ctx.input(2)};
  const TensorView& x = *in[0];
  const GroupNormAttrs attrs = ReadGroupNormAttrs(def);
  const int64_t groups = attrs.groups;
  const int64_t n = x.dims[0], c = x.dims[1], inner = Product(x.dims, 2, x.rank());
  const bool per_channel = attrs.per_channel;
  const double eps = attrs.epsilon;
  Doubles v = ReadDoubles(x), scale = ReadDoubles(*in[1]), bias = ReadDoubles(*in[2]);
  const int64_t per_group = c / groups;
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t g = 0; g < groups; ++g) {
      int64_t begin = (b * c + g * per_group) * inner;
      Moments m = MomentsOf(v, Range(begin, per_group * inner));
      double inv_std = 1.0 / std::sqrt(m.var + eps);
      for (int64_t ch = 0; ch < per_group; ++ch) {
        size_t k = static_cast<size_t>(per_channel ? g * per_group + ch : g);
        for (int64_t i = 0; i < inner; ++i) {
          double& e = v[static_cast<size_t>(begin + ch * inner + i)];
          e = (e - m.mean) * inv_std * scale[k] + bias[k];
        }
      }
    }
  }
  return EmitY(def, ctx, v);
}

// `axis` of `def` made non-negative for `x` (the definition has checked its range).
size_t AxisOf(const NodeDef& def, const TensorView& x) {
  return static_cast<size_t>(
      NormalizeAxis(def.attr_int("axis"), static_cast<int64_t>(x.rank())).value_or(0));
}

// RMSNormalization: X / sqrt(mean(X^2) + epsilon) * scale over the dims from `axis` on.
Status RunRmsNormalization(const NodeDef& def, KernelContext& ctx) {
  const TensorView* x = ctx.input(0);
  const TensorView* scale = ctx.input(1);
  const size_t axis = AxisOf(def, *x);
  const std::vector<int64_t> si = BroadcastIndex(scale->dims, x->dims);
  const double eps = def.attr_float("epsilon");
  const int64_t rows = Product(x->dims, 0, axis), cols = Product(x->dims, axis, x->rank());
  Doubles v = ReadDoubles(*x), s = ReadDoubles(*scale);
  for (int64_t r = 0; r < rows; ++r) {
    double* p = v.data() + r * cols;
    double sq = 0;
    for (int64_t i = 0; i < cols; ++i) sq += p[i] * p[i];
    double inv = 1.0 / std::sqrt(sq / static_cast<double>(cols) + eps);
    for (int64_t i = 0; i < cols; ++i) {
      p[i] = p[i] * inv * s[static_cast<size_t>(si[static_cast<size_t>(r * cols + i)])];
    }
  }
  return EmitY(def, ctx, v);
}

// LayerNormalization: (X - mean) / sqrt(variance + epsilon) * Scale + B over the dims from
// `axis` on; outputs 1 and 2 (optional) are the mean and 1 / sqrt(variance + epsilon).
Status RunLayerNormalization(const NodeDef& def, KernelContext& ctx) {
  const TensorView* x = ctx.input(0);
  const TensorView* scale = ctx.input(1);
  const TensorView* bias = ctx.num_inputs() > 2 ? ctx.input(2) : nullptr;
  const size_t axis = AxisOf(def, *x);
  // Scale and B broadcast to X (the definition's rule).
  const std::vector<int64_t> si = BroadcastIndex(scale->dims, x->dims);
  std::vector<int64_t> bi;
  Doubles b;
  if (bias) {
    bi = BroadcastIndex(bias->dims, x->dims);
    b = ReadDoubles(*bias);
  }
  const double eps = def.attr_float("epsilon");
  const int64_t rows = Product(x->dims, 0, axis), cols = Product(x->dims, axis, x->rank());
  Doubles v = ReadDoubles(*x), s = ReadDoubles(*scale);
  Doubles means(static_cast<size_t>(rows)), inv_stds(static_cast<size_t>(rows));
  for (int64_t r = 0; r < rows; ++r) {
    Moments m = MomentsOf(v, Range(r * cols, cols));
    double inv = 1.0 / std::sqrt(m.var + eps);
    means[static_cast<size_t>(r)] = m.mean;
    inv_stds[static_cast<size_t>(r)] = inv;
    for (int64_t i = 0; i < cols; ++i) {
      size_t k = static_cast<size_t>(r * cols + i);
      v[k] = (v[k] - m.mean) * inv * s[static_cast<size_t>(si[k])];
      if (bias) v[k] += b[static_cast<size_t>(bi[k])];
    }
  }
  // Mean and InvStdDev (optional) have X's dims with those from `axis` on set to 1.
  KILN_RETURN_IF_ERROR(EmitY(def, ctx, v), "");
  KILN_RETURN_IF_ERROR(EmitOptional(def, ctx, 1, means), "");
  return EmitOptional(def, ctx, 2, inv_stds);
}

// LRN: each element over the sum of squares of a window of `size` channels around it.
Status RunLrn(const NodeDef& def, KernelContext& ctx) {
  const TensorView* x = ctx.input(0);
  const int64_t size = def.attr_int("size");
  const double alpha = def.attr_float("alpha"), beta = def.attr_float("beta"),
               bias = def.attr_float("bias");
  const int64_t n = x->dims[0], c = x->dims[1], inner = Product(x->dims, 2, x->rank());
  // The window of channel ch is [ch - floor((size-1)/2), ch + ceil((size-1)/2)].
  const int64_t before = (size - 1) / 2, after = size - 1 - before;
  Doubles v = ReadDoubles(*x), y(v.size());
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t ch = 0; ch < c; ++ch) {
      int64_t lo = std::max<int64_t>(0, ch - before), hi = std::min(c - 1, ch + after);
      for (int64_t i = 0; i < inner; ++i) {
        double sum = 0;
        for (int64_t k = lo; k <= hi; ++k) {
          double e = v[static_cast<size_t>((b * c + k) * inner + i)];
          sum += e * e;
        }
        size_t at = static_cast<size_t>((b * c + ch) * inner + i);
        y[at] = v[at] / std::pow(bias + alpha / static_cast<double>(size) * sum, beta);
      }
    }
  }
  return EmitY(def, ctx, y);
}

// For each element of a tensor of `dims`, the index of its group when the `axes` are reduced.
std::vector<int64_t> ReducedGroups(const Dims& dims, const std::vector<bool>& reduced,
                                   int64_t* num_groups) {
  Dims kept;
  for (size_t d = 0; d < dims.size(); ++d) kept.push_back(reduced[d] ? 1 : dims[d]);
  *num_groups = NumElements(kept);
  return BroadcastIndex(kept, dims);
}

// MeanVarianceNormalization: (X - mean) / (sqrt(variance) + 1e-9) over `axes`.
Status RunMeanVarianceNormalization(const NodeDef& def, KernelContext& ctx) {
  const TensorView* x = ctx.input(0);
  std::vector<bool> reduced(x->rank(), false);
  for (int64_t a : def.attr_ints("axes")) {  // in range (the definition's rule)
    reduced[static_cast<size_t>(NormalizeAxis(a, static_cast<int64_t>(x->rank())).value_or(0))] =
        true;
  }
  int64_t groups = 0;
  std::vector<int64_t> group = ReducedGroups(x->dims, reduced, &groups);
  Doubles v = ReadDoubles(*x);
  Doubles sum(static_cast<size_t>(groups)), sq(static_cast<size_t>(groups));
  Doubles count(static_cast<size_t>(groups));
  for (size_t i = 0; i < v.size(); ++i) {
    sum[static_cast<size_t>(group[i])] += v[i];
    count[static_cast<size_t>(group[i])] += 1;
  }
  for (size_t g = 0; g < sum.size(); ++g) sum[g] /= count[g];  // now the means
  for (size_t i = 0; i < v.size(); ++i) {
    double d = v[i] - sum[static_cast<size_t>(group[i])];
    sq[static_cast<size_t>(group[i])] += d * d;
  }
  for (size_t i = 0; i < v.size(); ++i) {
    size_t g = static_cast<size_t>(group[i]);
    v[i] = (v[i] - sum[g]) / (std::sqrt(sq[g] / count[g]) + 1e-9);
  }
  return EmitY(def, ctx, v);
}

// LpNormalization: x / ||x||_p along `axis` (p = 1 or 2); 0 where the norm is 0.
Status RunLpNormalization(const NodeDef& def, KernelContext& ctx) {
  const TensorView* x = ctx.input(0);
  const bool l1 = def.attr_int("p") == 1;
  const size_t a = AxisOf(def, *x);
  const int64_t outer = Product(x->dims, 0, a), n = x->dims[a];
  const int64_t inner = Product(x->dims, a + 1, x->rank());
  Doubles v = ReadDoubles(*x);
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      double* p = v.data() + o * n * inner + i;
      double norm = 0;
      for (int64_t k = 0; k < n; ++k)
        norm += l1 ? std::fabs(p[k * inner]) : p[k * inner] * p[k * inner];
      if (!l1) norm = std::sqrt(norm);
      for (int64_t k = 0; k < n; ++k) p[k * inner] = norm == 0 ? 0 : p[k * inner] / norm;
    }
  }
  return EmitY(def, ctx, v);
}

// ---------------------------------------------------------------------------------------------
// Softmax, LogSoftmax, Hardmax.

// The rows a softmax-family op normalises: `outer` x `inner` rows of `n` values `inner` apart.
// Before opset 13 the input is flattened to 2-D at `axis`; from 13 only `axis` is normalised.
struct Rows {
  int64_t outer = 1, n = 1, inner = 1;
};
Rows SoftmaxRows(const NodeDef& def, const TensorView& x) {
  const bool flatten = def.opset < 13;
  const size_t a = AxisOf(def, x);
  Rows r;
  r.outer = Product(x.dims, 0, a);
  if (flatten) {
    r.n = Product(x.dims, a, x.rank());
  } else {
    r.n = x.dims[a];
    r.inner = Product(x.dims, a + 1, x.rank());
  }
  return r;
}

template <int kOp>  // 0: Softmax, 1: LogSoftmax, 2: Hardmax
Status RunSoftmaxFamily(const NodeDef& def, KernelContext& ctx) {
  const TensorView* x = ctx.input(0);
  const Rows r = SoftmaxRows(def, *x);
  Doubles v = ReadDoubles(*x);
  for (int64_t o = 0; o < r.outer && r.n > 0; ++o) {
    for (int64_t i = 0; i < r.inner; ++i) {
      double* p = v.data() + o * r.n * r.inner + i;
      const int64_t s = r.inner;
      // The first maximum (a NaN counts as the maximum, as numpy.argmax has it).
      int64_t arg = 0;
      for (int64_t k = 1; k < r.n; ++k) {
        double e = p[k * s], best = p[arg * s];
        if (e > best || (std::isnan(e) && !std::isnan(best))) arg = k;
      }
      if constexpr (kOp == 2) {
        for (int64_t k = 0; k < r.n; ++k) p[k * s] = k == arg ? 1 : 0;
      } else {
        const double max = p[arg * s];
        double sum = 0;
        for (int64_t k = 0; k < r.n; ++k) sum += std::exp(p[k * s] - max);
        for (int64_t k = 0; k < r.n; ++k) {
          p[k * s] = kOp == 0 ? std::exp(p[k * s] - max) / sum : p[k * s] - max - std::log(sum);
        }
      }
    }
  }
  return EmitY(def, ctx, v);
}

// ---------------------------------------------------------------------------------------------
// Losses: NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss.

// The loss of log-probabilities `logp` [N, C, d...] against `target` [N, d...] with optional
// class weights [C]; output 0 is the per-sample loss (reduction none) or its sum or weighted mean.
Status EmitNllLoss(const NodeDef& def, KernelContext& ctx, const Dims& dims, const Doubles& logp,
                   const TensorView& target, const TensorView* weight) {
  const int64_t n = dims[0], c = dims[1], inner = Product(dims, 2, dims.size());
  const Doubles w = weight ? ReadDoubles(*weight) : Doubles();
  const bool has_ignore = def.has_attr("ignore_index");
  const int64_t ignore = def.attr_int("ignore_index");
  const std::vector<int64_t> labels = ReadInts(target);
  Doubles loss(labels.size());
  double loss_sum = 0, weight_sum = 0;
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t i = 0; i < inner; ++i) {
      size_t at = static_cast<size_t>(b * inner + i);
      int64_t label = labels[at];
      if (has_ignore && label == ignore) continue;  // loss 0, weight 0
      if (label < 0 || label >= c) {
        return def.Fail(code::kInvalidParam, "label ", label, " at position ", at,
                        " is out of range for ", c, " classes");
      }
      double wt = weight ? w[static_cast<size_t>(label)] : 1.0;
      loss[at] = -logp[static_cast<size_t>((b * c + label) * inner + i)] * wt;
      loss_sum += loss[at];
      weight_sum += wt;
    }
  }
  const std::string reduction = def.attr_string("reduction");
  if (reduction == "none") return EmitY(def, ctx, loss);
  double total = reduction == "sum" ? loss_sum : loss_sum / weight_sum;
  return EmitY(def, ctx, {total});
}

const TensorView* WeightInput(KernelContext& ctx) {
  return ctx.num_inputs() > 2 ? ctx.input(2) : nullptr;
}

Status RunNegativeLogLikelihoodLoss(const NodeDef& def, KernelContext& ctx) {
  const TensorView* x = ctx.input(0);
  return EmitNllLoss(def, ctx, x->dims, ReadDoubles(*x), *ctx.input(1), WeightInput(ctx));
}

// SoftmaxCrossEntropyLoss: the NLL loss of LogSoftmax(scores) over the class axis 1; output 1
// (optional) is that log-probability tensor.
Status RunSoftmaxCrossEntropyLoss(const NodeDef& def, KernelContext& ctx) {
  const TensorView* x = ctx.input(0);
  const int64_t n = x->dims[0], c = x->dims[1], inner = Product(x->dims, 2, x->rank());
  Doubles v = ReadDoubles(*x);
  for (int64_t b = 0; b < n && c > 0; ++b) {
    for (int64_t i = 0; i < inner; ++i) {
      double* p = v.data() + b * c * inner + i;
      double max = p[0], sum = 0;
      for (int64_t k = 1; k < c; ++k) max = std::max(max, p[k * inner]);
      for (int64_t k = 0; k < c; ++k) sum += std::exp(p[k * inner] - max);
      for (int64_t k = 0; k < c; ++k) p[k * inner] = p[k * inner] - max - std::log(sum);
    }
  }
  KILN_RETURN_IF_ERROR(EmitNllLoss(def, ctx, x->dims, v, *ctx.input(1), WeightInput(ctx)), "");
  return EmitOptional(def, ctx, 1, v);
}

}  // namespace

void RegisterNnKernels(KernelRegistry& r) {
  // Every op here is floating point (its definition's rule), so Prepare has nothing to refuse.
  RegisterStateless(r, "BatchNormalization", RunBatchNormalization);
  RegisterStateless(r, "InstanceNormalization", RunInstanceNormalization);
  RegisterStateless(r, "GroupNormalization", RunGroupNormalization);
  RegisterStateless(r, "LayerNormalization", RunLayerNormalization);
  RegisterStateless(r, "RMSNormalization", RunRmsNormalization);
  RegisterStateless(r, "LRN", RunLrn);
  RegisterStateless(r, "MeanVarianceNormalization", RunMeanVarianceNormalization);
  RegisterStateless(r, "LpNormalization", RunLpNormalization);
  RegisterStateless(r, "Softmax", RunSoftmaxFamily<0>);
  RegisterStateless(r, "LogSoftmax", RunSoftmaxFamily<1>);
  RegisterStateless(r, "Hardmax", RunSoftmaxFamily<2>);
  RegisterStateless(r, "NegativeLogLikelihoodLoss", RunNegativeLogLikelihoodLoss);
  RegisterStateless(r, "SoftmaxCrossEntropyLoss", RunSoftmaxCrossEntropyLoss);
  RegisterNnMatmulKernels(r);
  RegisterNnRecurrentKernels(r);
}

}  // namespace kiln::kernels
