// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The host side of norm.cu: BatchNormalization at inference (training_mode and the running
// statistics outputs declined), LayerNormalization with one scale (and bias) value per
// normalised element (its Mean and InvStdDev outputs declined), LRN; float32.
#include <memory>

#include "backends/cuda/kernels/norm_launch.h"
#include "backends/cuda/kernels/register.h"
#include "kernels/util.h"

namespace kiln::cuda {
namespace {

using kernels::KernelContext;
using kernels::NodeDef;
using kernels::TensorView;

const float* F(const TensorView* t) { return static_cast<const float*>(t->data); }
float* F(TensorView* t) { return static_cast<float*>(t->data); }

Status RunBatchNorm(const NodeDef& def, KernelContext& ctx) {
  const TensorView* x = ctx.input(0);
  TensorView* y = ctx.output(0);
  const int64_t inner = kernels::Product(x->dims, 2, x->rank());
  return Launched(LaunchBatchNorm(F(x), F(ctx.input(1)), F(ctx.input(2)), F(ctx.input(3)),
                                  F(ctx.input(4)), F(y), x->dims[0], x->dims[1], inner,
                                  def.attr_float("epsilon"), StreamOf(ctx)),
                  "launching a batch normalisation");
}

Status RunLayerNorm(const NodeDef& def, KernelContext& ctx) {
  const TensorView* x = ctx.input(0);
  const TensorView* scale = ctx.input(1);
  const TensorView* bias = ctx.num_inputs() > 2 ? ctx.input(2) : nullptr;
  TensorView* y = ctx.output(0);
  const size_t axis = AxisOf(def.attr_int("axis"), x->rank());
  const int64_t rows = kernels::Product(x->dims, 0, axis),
                cols = kernels::Product(x->dims, axis, x->rank());
  if (scale->num_elements() != cols || (bias != nullptr && bias->num_elements() != cols)) {
    return def.Fail(code::kFeatureUnsupported, "the CUDA LayerNormalization takes one scale and ",
                    "bias value per normalised element (", cols, ")");
  }
  return Launched(LaunchLayerNorm(F(x), F(scale), bias != nullptr ? F(bias) : nullptr, F(y), rows,
                                  cols, def.attr_float("epsilon"), StreamOf(ctx)),
                  "launching a layer normalisation");
}

Status RunLrn(const NodeDef& def, KernelContext& ctx) {
  const TensorView* x = ctx.input(0);
  return Launched(LaunchLrn(F(x), F(ctx.output(0)), x->dims[0], x->dims[1],
                            kernels::Product(x->dims, 2, x->rank()), def.attr_int("size"),
                            def.attr_float("alpha"), def.attr_float("beta"), def.attr_float("bias"),
                            StreamOf(ctx)),
                  "launching a local response normalisation");
}

// Float32, and only output 0 used.
Status RequireFloatY(const NodeDef& def) {
  KILN_RETURN_IF_ERROR(RequireFloat32(def), "");
  for (size_t i = 1; i < def.num_outputs(); ++i) {
    if (def.output_used(i)) {
      return def.Fail(code::kFeatureUnsupported, "the CUDA ", def.op_type,
                      " kernel gives output 0 only");
    }
  }
  return Status::Ok();
}

Status RequireInference(const NodeDef& def) {
  if (def.attr_int("training_mode") == 0 && def.opset >= 7) return Status::Ok();
  return def.Fail(code::kFeatureUnsupported,
                  "the CUDA BatchNormalization computes inference (opset 7 on, no training_mode)");
}

// Scale and bias hold one value per normalised element where the dims are known at load (else
// the run checks).
Status RequirePerElementAffine(const NodeDef& def) {
  if (!def.input_ranked(0) || !def.input_ranked(1)) return Status::Ok();
  const size_t axis = AxisOf(def.attr_int("axis"), def.input_dims[0].size());
  const kernels::Dims& x = def.input_dims[0];
  for (size_t d = axis; d < x.size(); ++d) {
    if (x[d] < 0) return Status::Ok();
  }
  const int64_t cols = kernels::Product(x, axis, x.size());
  for (size_t i = 1; i < 3; ++i) {
    if (!def.input_given(i) || !def.input_ranked(i)) continue;
    const int64_t n = kernels::NumElements(def.input_dims[i]);
    if (n >= 0 && n != cols) {
      return def.Fail(code::kFeatureUnsupported, "the CUDA LayerNormalization takes one ",
                      i == 1 ? "scale" : "bias", " value per normalised element (", cols, "), got ",
                      kernels::DimsString(def.input_dims[i]));
    }
  }
  return Status::Ok();
}

}  // namespace

void RegisterCudaNormKernels(kernels::KernelRegistry& registry) {
  RegisterFunction(registry, "BatchNormalization", RunBatchNorm, {RequireFloatY, RequireInference});
  RegisterFunction(registry, "LayerNormalization", RunLayerNorm,
                   {RequireFloatY, RequirePerElementAffine});
  RegisterFunction(registry, "LRN", RunLrn, {RequireFloatY});
}

}  // namespace kiln::cuda
