// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Reference kernels of the nn family: the normalisations, the softmax family and the losses.
// The matrix products and Flatten are in nn_matmul.cc, the recurrent ops in nn_recurrent.cc,
// convolutions and pools in nn_conv.cc. These ops are floating point only; each kernel reads
// its inputs as doubles, computes in double and rounds once when it stores the result.
#include <algorithm>
#include <cmath>
#include <limits>
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

// Prepare check: every given input in `inputs` has a floating-point type.
Status CheckFloatInputs(const NodeDef& def, std::initializer_list<size_t> inputs) {
  for (size_t i : inputs) {
    if (!def.input_given(i) || i >= def.input_types.size()) continue;
    DataType t = def.input_types[i];
    if (!ir::IsFloat(t)) {
      return def.Fail(code::kFeatureUnsupported, "input ", i, " is ", ir::Name(t),
                      "; only floating-point types are supported");
    }
  }
  for (size_t i = 0; i < def.output_types.size(); ++i) {
    DataType t = def.output_types[i];
    if (t != DataType::kUndefined && !ir::IsFloat(t)) {
      return def.Fail(code::kFeatureUnsupported, "output ", i, " is ", ir::Name(t),
                      "; only floating-point types are supported");
    }
  }
  return Status::Ok();
}

// The flat index into `param` for each element of x, where `param` must broadcast
// unidirectionally to `x`.
Result<std::vector<int64_t>> UnidirectionalIndex(const NodeDef& def, const char* name,
                                                 const Dims& param, const Dims& x) {
  bool ok = param.size() <= x.size();
  for (size_t i = 0; ok && i < param.size(); ++i) {
    int64_t p = param[param.size() - 1 - i], d = x[x.size() - 1 - i];
    ok = p == 1 || p == d;
  }
  if (!ok) {
    return def.Fail(code::kInvalidParam, name, " has shape ", DimsString(param),
                    ", which does not broadcast to X ", DimsString(x));
  }
  return BroadcastIndex(param, x);
}

// A per-channel parameter: rank 1 with `c` values.
Status CheckPerChannel(const NodeDef& def, const char* name, const TensorView& p, int64_t c,
                       const Dims& x) {
  if (p.rank() == 1 && p.dims[0] == c) return Status::Ok();
  return def.Fail(code::kInvalidParam, name, " has shape ", DimsString(p.dims), "; [", c,
                  "] is required for X ", DimsString(x));
}

Status CheckRankAtLeast(const NodeDef& def, const TensorView& x, size_t rank, const char* what) {
  if (x.rank() >= rank) return Status::Ok();
  return def.Fail(code::kInvalidParam, "X has shape ", DimsString(x.dims), "; rank >= ", rank, " (",
                  what, ") is required");
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
  for (size_t i = 0; i < 5; ++i) {
    KILN_ASSIGN_OR_RETURN(in[i], RequiredInput(def, ctx, i));
  }
  const TensorView& x = *in[0];
  KILN_RETURN_IF_ERROR(CheckRankAtLeast(def, x, 2, "N x C x ..."), "");
  const int64_t n = x.dims[0], c = x.dims[1], inner = Product(x.dims, 2, x.rank());
  const char* names[] = {"X", "scale", "B", "input_mean", "input_var"};
  for (size_t i = 1; i < 5; ++i) {
    KILN_RETURN_IF_ERROR(CheckPerChannel(def, names[i], *in[i], c, x.dims), "");
  }
  const double eps = def.attr_float("epsilon", 1e-5f);
  const bool training = def.opset >= 14 && def.attr_int("training_mode", 0) != 0;
  Doubles v = ReadDoubles(x), scale = ReadDoubles(*in[1]), bias = ReadDoubles(*in[2]),
          mean = ReadDoubles(*in[3]), var = ReadDoubles(*in[4]);
  Doubles running_mean = mean, running_var = var;
  if (training) {
    const double momentum = def.attr_float("momentum", 0.9f);
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
  KILN_RETURN_IF_ERROR(EmitOutput(def, ctx, 0, x.dims, v), "");
  if (!training) return Status::Ok();
  KILN_RETURN_IF_ERROR(EmitOutput(def, ctx, 1, {c}, running_mean), "");
  return EmitOutput(def, ctx, 2, {c}, running_var);
}

Result<std::unique_ptr<Kernel>> PrepareBatchNormalization(const NodeDef& def) {
  KILN_RETURN_IF_ERROR(CheckFloatInputs(def, {0, 1, 2, 3, 4}), "");
  size_t outputs = 0;
  for (DataType t : def.output_types) outputs += t != DataType::kUndefined;
  const int64_t training = def.opset >= 14 ? def.attr_int("training_mode", 0) : 0;
  if (training != 0 && training != 1) {
    return def.Fail(code::kInvalidParam, "attribute 'training_mode' must be 0 or 1, got ",
                    training);
  }
  if (outputs > 1 && def.opset < 14) {
    return def.Fail(code::kFeatureUnsupported,
                    "the mean/var outputs select the opset < 14 training mode, which Kiln does "
                    "not support; keep only output Y");
  }
  if (outputs > 1 && training == 0) {
    return def.Fail(code::kInvalidParam,
                    "outputs running_mean and running_var need training_mode=1");
  }
  if (def.opset < 9 && def.attr_int("spatial", 1) == 0) {
    return def.Fail(code::kFeatureUnsupported,
                    "spatial=0 (per-activation statistics) is not supported");
  }
  return MakeFunctionKernel(def, RunBatchNormalization);
}

Status RunInstanceNormalization(const NodeDef& def, KernelContext& ctx) {
  const TensorView* in[3];
  for (size_t i = 0; i < 3; ++i) {
    KILN_ASSIGN_OR_RETURN(in[i], RequiredInput(def, ctx, i));
  }
  const TensorView& x = *in[0];
  KILN_RETURN_IF_ERROR(CheckRankAtLeast(def, x, 3, "N x C x spatial dims"), "");
  const int64_t n = x.dims[0], c = x.dims[1], inner = Product(x.dims, 2, x.rank());
  KILN_RETURN_IF_ERROR(CheckPerChannel(def, "scale", *in[1], c, x.dims), "");
  KILN_RETURN_IF_ERROR(CheckPerChannel(def, "B", *in[2], c, x.dims), "");
  const double eps = def.attr_float("epsilon", 1e-5f);
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
  return EmitOutput(def, ctx, 0, x.dims, v);
}

// GroupNormalization: statistics per (instance, group); scale and bias per group before opset
// 21 and per channel from 21.
Status RunGroupNormalization(const NodeDef& def, KernelContext& ctx) {
  const TensorView* in[3];
  for (size_t i = 0; i < 3; ++i) {
    KILN_ASSIGN_OR_RETURN(in[i], RequiredInput(def, ctx, i));
  }
  const TensorView& x = *in[0];
  KILN_RETURN_IF_ERROR(CheckRankAtLeast(def, x, 2, "N x C x ..."), "");
  KILN_ASSIGN_OR_RETURN(GroupNormAttrs attrs, ReadGroupNormAttrs(def));
  const int64_t groups = attrs.groups;
  const int64_t n = x.dims[0], c = x.dims[1], inner = Product(x.dims, 2, x.rank());
  if (c % groups != 0) {
    return def.Fail(code::kInvalidParam, "X ", DimsString(x.dims), " has ", c,
                    " channels, not a multiple of num_groups ", groups);
  }
  const bool per_channel = attrs.per_channel;
  const int64_t params = per_channel ? c : groups;
  KILN_RETURN_IF_ERROR(CheckPerChannel(def, "scale", *in[1], params, x.dims), "");
  KILN_RETURN_IF_ERROR(CheckPerChannel(def, "bias", *in[2], params, x.dims), "");
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
  return EmitOutput(def, ctx, 0, x.dims, v);
}

Result<std::unique_ptr<Kernel>> PrepareGroupNormalization(const NodeDef& def) {
  KILN_RETURN_IF_ERROR(CheckFloatInputs(def, {0, 1, 2}), "");
  KILN_RETURN_IF_ERROR(ReadGroupNormAttrs(def).status(), "");
  return MakeFunctionKernel(def, RunGroupNormalization);
}

// The first normalised dim of LayerNormalization and RMSNormalization.
Result<size_t> NormAxis(const NodeDef& def, const TensorView& x) {
  std::optional<int64_t> axis =
      NormalizeAxis(def.attr_int("axis", -1), static_cast<int64_t>(x.rank()));
  if (!axis) {
    return def.Fail(code::kInvalidParam, "attribute 'axis' = ", def.attr_int("axis", -1),
                    " is out of range for X ", DimsString(x.dims));
  }
  return static_cast<size_t>(*axis);
}

// RMSNormalization: X / sqrt(mean(X^2) + epsilon) * scale over the dims from `axis` on.
Status RunRmsNormalization(const NodeDef& def, KernelContext& ctx) {
  KILN_ASSIGN_OR_RETURN(const TensorView* x, RequiredInput(def, ctx, 0));
  KILN_ASSIGN_OR_RETURN(const TensorView* scale, RequiredInput(def, ctx, 1));
  KILN_ASSIGN_OR_RETURN(size_t axis, NormAxis(def, *x));
  KILN_ASSIGN_OR_RETURN(std::vector<int64_t> si,
                        UnidirectionalIndex(def, "scale", scale->dims, x->dims));
  const double eps = def.attr_float("epsilon", 1e-5f);
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
  return EmitOutput(def, ctx, 0, x->dims, v);
}

// LayerNormalization: (X - mean) / sqrt(variance + epsilon) * Scale + B over the dims from
// `axis` on; outputs 1 and 2 (optional) are the mean and 1 / sqrt(variance + epsilon).
Status RunLayerNormalization(const NodeDef& def, KernelContext& ctx) {
  KILN_ASSIGN_OR_RETURN(const TensorView* x, RequiredInput(def, ctx, 0));
  KILN_ASSIGN_OR_RETURN(const TensorView* scale, RequiredInput(def, ctx, 1));
  const TensorView* bias = ctx.input(2);
  KILN_ASSIGN_OR_RETURN(size_t axis, NormAxis(def, *x));
  KILN_ASSIGN_OR_RETURN(std::vector<int64_t> si,
                        UnidirectionalIndex(def, "Scale", scale->dims, x->dims));
  std::vector<int64_t> bi;
  Doubles b;
  if (bias) {
    KILN_ASSIGN_OR_RETURN(bi, UnidirectionalIndex(def, "B", bias->dims, x->dims));
    b = ReadDoubles(*bias);
  }
  const double eps = def.attr_float("epsilon", 1e-5f);
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
  Dims stats = x->dims;
  for (size_t d = axis; d < stats.size(); ++d) stats[d] = 1;
  KILN_RETURN_IF_ERROR(EmitOutput(def, ctx, 0, x->dims, v), "");
  KILN_RETURN_IF_ERROR(EmitOutput(def, ctx, 1, stats, means), "");
  return EmitOutput(def, ctx, 2, stats, inv_stds);
}

Result<std::unique_ptr<Kernel>> PrepareAxisNormalization(const NodeDef& def) {
  KILN_RETURN_IF_ERROR(CheckFloatInputs(def, {0, 1, 2}), "");
  int64_t stash = def.attr_int("stash_type", 1);
  if (!ir::IsFloat(ir::FromOnnx(static_cast<int32_t>(stash)))) {
    return def.Fail(code::kInvalidParam, "attribute 'stash_type' = ", stash,
                    " is not a floating-point type");
  }
  bool rms = def.op_type == "RMSNormalization";
  return MakeFunctionKernel(def, rms ? RunRmsNormalization : RunLayerNormalization);
}

Result<std::unique_ptr<Kernel>> PrepareLrn(const NodeDef& def) {
  KILN_RETURN_IF_ERROR(CheckFloatInputs(def, {0}), "");
  if (def.attr_int("size", 0) < 1) {
    return def.Fail(code::kInvalidParam, "attribute 'size' must be given and >= 1, got ",
                    def.attr_int("size", 0));
  }
  return MakeFunctionKernel(def, [](const NodeDef& def, KernelContext& ctx) -> Status {
    KILN_ASSIGN_OR_RETURN(const TensorView* x, RequiredInput(def, ctx, 0));
    KILN_RETURN_IF_ERROR(CheckRankAtLeast(def, *x, 3, "N x C x spatial dims"), "");
    const int64_t size = def.attr_int("size", 1);
    const double alpha = def.attr_float("alpha", 1e-4f), beta = def.attr_float("beta", 0.75f),
                 bias = def.attr_float("bias", 1.0f);
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
    return EmitOutput(def, ctx, 0, x->dims, y);
  });
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
  KILN_ASSIGN_OR_RETURN(const TensorView* x, RequiredInput(def, ctx, 0));
  const std::vector<int64_t> axes = def.attr_ints("axes", {0, 2, 3});
  std::vector<bool> reduced(x->rank(), false);
  for (int64_t a : axes) {
    std::optional<int64_t> axis = NormalizeAxis(a, static_cast<int64_t>(x->rank()));
    if (!axis) {
      return def.Fail(code::kInvalidParam, "attribute 'axes' has ", a,
                      ", which is out of range for X ", DimsString(x->dims));
    }
    reduced[static_cast<size_t>(*axis)] = true;
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
  return EmitOutput(def, ctx, 0, x->dims, v);
}

// LpNormalization: x / ||x||_p along `axis` (p = 1 or 2); 0 where the norm is 0.
Result<std::unique_ptr<Kernel>> PrepareLpNormalization(const NodeDef& def) {
  KILN_RETURN_IF_ERROR(CheckFloatInputs(def, {0}), "");
  int64_t p = def.attr_int("p", 2);
  if (p != 1 && p != 2) {
    return def.Fail(code::kInvalidParam, "attribute 'p' must be 1 or 2, got ", p);
  }
  return MakeFunctionKernel(def, [](const NodeDef& def, KernelContext& ctx) -> Status {
    KILN_ASSIGN_OR_RETURN(const TensorView* x, RequiredInput(def, ctx, 0));
    std::optional<int64_t> axis =
        NormalizeAxis(def.attr_int("axis", -1), static_cast<int64_t>(x->rank()));
    if (!axis) {
      return def.Fail(code::kInvalidParam, "attribute 'axis' = ", def.attr_int("axis", -1),
                      " is out of range for input ", DimsString(x->dims));
    }
    const bool l1 = def.attr_int("p", 2) == 1;
    const size_t a = static_cast<size_t>(*axis);
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
    return EmitOutput(def, ctx, 0, x->dims, v);
  });
}

// ---------------------------------------------------------------------------------------------
// Softmax, LogSoftmax, Hardmax.

// The rows a softmax-family op normalises: `outer` x `inner` rows of `n` values `inner` apart.
// Before opset 13 the input is flattened to 2-D at `axis`; from 13 only `axis` is normalised.
struct Rows {
  int64_t outer = 1, n = 1, inner = 1;
};
Result<Rows> SoftmaxRows(const NodeDef& def, const TensorView& x) {
  const bool flatten = def.opset < 13;
  int64_t axis_attr = def.attr_int("axis", flatten ? 1 : -1);
  std::optional<int64_t> axis = NormalizeAxis(axis_attr, static_cast<int64_t>(x.rank()));
  if (!axis) {
    return def.Fail(code::kInvalidParam, "attribute 'axis' = ", axis_attr,
                    " is out of range for input ", DimsString(x.dims));
  }
  const size_t a = static_cast<size_t>(*axis);
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
  KILN_ASSIGN_OR_RETURN(const TensorView* x, RequiredInput(def, ctx, 0));
  KILN_ASSIGN_OR_RETURN(Rows r, SoftmaxRows(def, *x));
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
  return EmitOutput(def, ctx, 0, x->dims, v);
}

template <int kOp>
Result<std::unique_ptr<Kernel>> PrepareSoftmaxFamily(const NodeDef& def) {
  KILN_RETURN_IF_ERROR(CheckFloatInputs(def, {0}), "");
  return MakeFunctionKernel(def, RunSoftmaxFamily<kOp>);
}

// ---------------------------------------------------------------------------------------------
// Losses: NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss.

Result<std::unique_ptr<Kernel>> PrepareLoss(const NodeDef& def, RunFn run) {
  KILN_RETURN_IF_ERROR(CheckFloatInputs(def, {0, 2}), "");
  if (def.input_given(1) && def.input_types.size() > 1 && def.input_types[1] != DataType::kInt32 &&
      def.input_types[1] != DataType::kInt64) {
    return def.Fail(code::kInvalidParam, "input 1 (the class labels) is ",
                    ir::Name(def.input_types[1]), "; int32 or int64 is required");
  }
  std::string reduction = def.attr_string("reduction", "mean");
  if (reduction != "none" && reduction != "sum" && reduction != "mean") {
    return def.Fail(code::kInvalidParam, "attribute 'reduction' must be none, sum or mean, got \"",
                    reduction, "\"");
  }
  return MakeFunctionKernel(def, run);
}

// The loss of log-probabilities `logp` [N, C, d...] against `target` [N, d...] with optional
// class weights; output 0 is the per-sample loss (reduction none) or its sum or weighted mean.
Status EmitNllLoss(const NodeDef& def, KernelContext& ctx, const Dims& dims, const Doubles& logp,
                   const TensorView& target, const TensorView* weight) {
  if (dims.size() < 2) {
    return def.Fail(code::kInvalidParam, "input 0 has shape ", DimsString(dims),
                    "; rank >= 2 (N x C x ...) is required");
  }
  Dims want = dims;
  want.erase(want.begin() + 1);
  if (target.dims != want) {
    return def.Fail(code::kInvalidParam, "the labels have shape ", DimsString(target.dims),
                    " but input 0 has shape ", DimsString(dims), "; ", DimsString(want),
                    " is required");
  }
  const int64_t n = dims[0], c = dims[1], inner = Product(dims, 2, dims.size());
  Doubles w;
  if (weight) {
    if (weight->dims != Dims{c}) {
      return def.Fail(code::kInvalidParam, "the weights have shape ", DimsString(weight->dims),
                      "; [", c, "] is required for input ", DimsString(dims));
    }
    w = ReadDoubles(*weight);
  }
  const bool has_ignore = def.has_attr("ignore_index");
  const int64_t ignore = def.attr_int("ignore_index", 0);
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
  const std::string reduction = def.attr_string("reduction", "mean");
  if (reduction == "none") return EmitOutput(def, ctx, 0, target.dims, loss);
  double total = reduction == "sum" ? loss_sum : loss_sum / weight_sum;
  return EmitOutput(def, ctx, 0, {}, {total});
}

Status RunNegativeLogLikelihoodLoss(const NodeDef& def, KernelContext& ctx) {
  KILN_ASSIGN_OR_RETURN(const TensorView* x, RequiredInput(def, ctx, 0));
  KILN_ASSIGN_OR_RETURN(const TensorView* target, RequiredInput(def, ctx, 1));
  return EmitNllLoss(def, ctx, x->dims, ReadDoubles(*x), *target, ctx.input(2));
}

// SoftmaxCrossEntropyLoss: the NLL loss of LogSoftmax(scores) over the class axis 1; output 1
// (optional) is that log-probability tensor.
Status RunSoftmaxCrossEntropyLoss(const NodeDef& def, KernelContext& ctx) {
  KILN_ASSIGN_OR_RETURN(const TensorView* x, RequiredInput(def, ctx, 0));
  KILN_ASSIGN_OR_RETURN(const TensorView* target, RequiredInput(def, ctx, 1));
  if (x->rank() < 2) {
    return def.Fail(code::kInvalidParam, "the scores have shape ", DimsString(x->dims),
                    "; rank >= 2 (N x C x ...) is required");
  }
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
  KILN_RETURN_IF_ERROR(EmitNllLoss(def, ctx, x->dims, v, *target, ctx.input(2)), "");
  return EmitOutput(def, ctx, 1, x->dims, v);
}

}  // namespace

void RegisterNnKernels(KernelRegistry& r) {
  // A kernel whose only Prepare check is that its inputs and outputs are floating point.
  auto floats = [&r](const char* op, RunFn run) {
    r.Register(kReferenceBackend, "", op,
               [run](const NodeDef& def) -> Result<std::unique_ptr<Kernel>> {
                 KILN_RETURN_IF_ERROR(CheckFloatInputs(def, {0, 1, 2}), "");
                 return MakeFunctionKernel(def, run);
               });
  };
  r.Register(kReferenceBackend, "", "BatchNormalization", PrepareBatchNormalization);
  floats("InstanceNormalization", RunInstanceNormalization);
  r.Register(kReferenceBackend, "", "GroupNormalization", PrepareGroupNormalization);
  r.Register(kReferenceBackend, "", "LayerNormalization", PrepareAxisNormalization);
  r.Register(kReferenceBackend, "", "RMSNormalization", PrepareAxisNormalization);
  r.Register(kReferenceBackend, "", "LRN", PrepareLrn);
  floats("MeanVarianceNormalization", RunMeanVarianceNormalization);
  r.Register(kReferenceBackend, "", "LpNormalization", PrepareLpNormalization);
  r.Register(kReferenceBackend, "", "Softmax", PrepareSoftmaxFamily<0>);
  r.Register(kReferenceBackend, "", "LogSoftmax", PrepareSoftmaxFamily<1>);
  r.Register(kReferenceBackend, "", "Hardmax", PrepareSoftmaxFamily<2>);
  r.Register(kReferenceBackend, "", "NegativeLogLikelihoodLoss",
             [](const NodeDef& def) { return PrepareLoss(def, RunNegativeLogLikelihoodLoss); });
  r.Register(kReferenceBackend, "", "SoftmaxCrossEntropyLoss",
             [](const NodeDef& def) { return PrepareLoss(def, RunSoftmaxCrossEntropyLoss); });
  RegisterNnMatmulKernels(r);
  RegisterNnRecurrentKernels(r);
}

}  // namespace kiln::kernels
