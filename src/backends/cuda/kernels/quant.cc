// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The host side of quant.cu: DequantizeLinear of int8 / uint8 to float32 (one scale, or one per
// element of an axis; not the blocked form), DynamicQuantizeLinear, and MatMulInteger of 8-bit
// operands (A's zero point one value, B's one value or one per column). The dynamically
// quantized transformers onnxruntime's quantizer writes use these three.
#include <memory>

#include "backends/cuda/kernels/matmul_shape.h"
#include "backends/cuda/kernels/quant_launch.h"
#include "backends/cuda/kernels/register.h"
#include "kernels/util.h"

namespace kiln::cuda {
namespace {

using kernels::DataType;
using kernels::Kernel;
using kernels::KernelContext;
using kernels::NodeDef;
using kernels::TensorView;

bool Is8Bit(DataType t) { return t == DataType::kInt8 || t == DataType::kUint8; }

Status RunDequantize(const NodeDef& def, KernelContext& ctx) {
  const TensorView* x = ctx.input(0);
  const TensorView* scale = ctx.input(1);
  const TensorView* zp = ctx.num_inputs() > 2 ? ctx.input(2) : nullptr;
  TensorView* y = ctx.output(0);
  int64_t inner = 1, axis_len = 1;
  if (scale->num_elements() != 1) {
    const size_t a = AxisOf(def.attr_int("axis"), x->rank());
    axis_len = x->dims[a];
    for (size_t d = a + 1; d < x->rank(); ++d) inner *= x->dims[d];
    if (scale->num_elements() != axis_len) {
      return def.Fail(code::kFeatureUnsupported, "the CUDA DequantizeLinear takes one scale or ",
                      "one per element of the axis, not ", kernels::DimsString(scale->dims));
    }
  }
  return Launched(
      LaunchDequantize(x->data, x->dtype == DataType::kInt8, static_cast<const float*>(scale->data),
                       zp != nullptr && zp->num_elements() != 0 ? zp->data : nullptr,
                       static_cast<float*>(y->data), x->num_elements(), inner, axis_len,
                       StreamOf(ctx)),
      "launching a dequantize");
}

Status RunDynamicQuantize(const NodeDef&, KernelContext& ctx) {
  const TensorView* x = ctx.input(0);
  RunScratch range(ctx, 2 * sizeof(float));
  if (!range.ok()) return Error(code::kRtMemoryAllocation, "no device memory for the range");
  return Launched(LaunchDynamicQuantize(static_cast<const float*>(x->data), x->num_elements(),
                                        static_cast<uint8_t*>(ctx.output(0)->data),
                                        static_cast<float*>(ctx.output(1)->data),
                                        static_cast<uint8_t*>(ctx.output(2)->data),
                                        static_cast<float*>(range.data()), StreamOf(ctx)),
                  "launching a dynamic quantize");
}

Status RunMatMulInteger(const NodeDef& def, KernelContext& ctx) {
  const TensorView* a = ctx.input(0);
  const TensorView* b = ctx.input(1);
  const TensorView* azp = ctx.num_inputs() > 2 ? ctx.input(2) : nullptr;
  const TensorView* bzp = ctx.num_inputs() > 3 ? ctx.input(3) : nullptr;
  KILN_ASSIGN_OR_RETURN(MatmulShape s, MatMulShapeOf(a->dims, b->dims));
  if (azp != nullptr && azp->num_elements() > 1) {
    return def.Fail(code::kFeatureUnsupported, "the CUDA MatMulInteger takes one A zero point");
  }
  const bool per_column = bzp != nullptr && bzp->num_elements() > 1;
  if (per_column && bzp->num_elements() != s.n) {
    return def.Fail(code::kFeatureUnsupported, "the CUDA MatMulInteger takes one B zero point ",
                    "or one per column");
  }
  return Launched(LaunchMatMulInteger(
                      a->data, a->dtype == DataType::kInt8, b->data, b->dtype == DataType::kInt8,
                      azp != nullptr && azp->num_elements() != 0 ? azp->data : nullptr,
                      bzp != nullptr && bzp->num_elements() != 0 ? bzp->data : nullptr, per_column,
                      static_cast<int32_t*>(ctx.output(0)->data), s, StreamOf(ctx)),
                  "launching an integer matmul");
}

Result<std::unique_ptr<Kernel>> PrepareDequantize(const NodeDef& def) {
  if (!Is8Bit(def.input_types[0]) || def.output_types[0] != DataType::kFloat32 ||
      (def.num_inputs() > 1 && def.input_types[1] != DataType::kFloat32)) {
    return def.Fail(code::kFeatureUnsupported, "the CUDA DequantizeLinear turns int8 or uint8 ",
                    "into float32 with a float32 scale");
  }
  if (def.opset >= 21 && def.attr_int("block_size") > 0) {
    return def.Fail(code::kFeatureUnsupported, "the CUDA DequantizeLinear has no blocked form");
  }
  return kernels::MakeFunctionKernel(def, RunDequantize, /*replayable=*/true);
}

Result<std::unique_ptr<Kernel>> PrepareMatMulInteger(const NodeDef& def) {
  if (!Is8Bit(def.input_types[0]) || !Is8Bit(def.input_types[1])) {
    return def.Fail(code::kFeatureUnsupported, "the CUDA MatMulInteger takes 8-bit A and B");
  }
  return kernels::MakeFunctionKernel(def, RunMatMulInteger, /*replayable=*/true);
}

}  // namespace

void RegisterCudaQuantKernels(kernels::KernelRegistry& registry) {
  registry.Register(kCudaBackend, "", "DequantizeLinear", PrepareDequantize);
  registry.Register(kCudaBackend, "", "DynamicQuantizeLinear",
                    [](const NodeDef& def) -> Result<std::unique_ptr<Kernel>> {
                      if (def.input_types[0] != DataType::kFloat32) {
                        return def.Fail(code::kFeatureUnsupported,
                                        "the CUDA DynamicQuantizeLinear takes float32");
                      }
                      return kernels::MakeFunctionKernel(def, RunDynamicQuantize,
                                                         /*replayable=*/true);
                    });
  registry.Register(kCudaBackend, "", "MatMulInteger", PrepareMatMulInteger);
}

}  // namespace kiln::cuda
