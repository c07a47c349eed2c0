// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The host side of nn.cu: Softmax and LogSoftmax along their axis (flattened at it before
// opset 13), MaxPool and AveragePool over 2-D windows, GlobalAveragePool and GlobalMaxPool;
// float32, NCHW. Declined (so refused at load on the GPU): other types, other window ranks,
// MaxPool's Indices output.
#include <memory>

#include "backends/cuda/kernels/nn_launch.h"
#include "backends/cuda/kernels/register.h"
#include "hal/execution.h"
#include "kernels/attrs.h"
#include "kernels/util.h"

namespace kiln::cuda {
namespace {

using kernels::Dims;
using kernels::Kernel;
using kernels::KernelContext;
using kernels::NodeDef;
using kernels::TensorView;

class SoftmaxKernel final : public Kernel {
 public:
  // Enqueues its launches only (kernels/kernel.h).
  bool Replayable() const override { return true; }
  SoftmaxKernel(int64_t axis, bool flatten, bool log) : axis_(axis), flatten_(flatten), log_(log) {}
  Status Run(KernelContext& ctx) const override {
    const TensorView* x = ctx.input(0);
    TensorView* y = ctx.output(0);
    const size_t rank = x->dims.size();
    const size_t a = static_cast<size_t>(axis_ < 0 ? axis_ + static_cast<int64_t>(rank) : axis_);
    const int64_t outer = kernels::Product(x->dims, 0, a);
    const int64_t n = flatten_ ? kernels::Product(x->dims, a, rank) : x->dims[a];
    const int64_t inner = flatten_ ? 1 : kernels::Product(x->dims, a + 1, rank);
    return Launched(LaunchSoftmax(static_cast<const float*>(x->data), static_cast<float*>(y->data),
                                  outer, n, inner, log_, StreamOf(ctx)),
                    "launching a softmax kernel");
  }

 private:
  int64_t axis_;
  bool flatten_, log_;
};

class Pool2dKernel final : public Kernel {
 public:
  // Enqueues its launches only (kernels/kernel.h).
  bool Replayable() const override { return true; }
  explicit Pool2dKernel(kernels::PoolAttrs attrs) : attrs_(std::move(attrs)) {}
  Status Run(KernelContext& ctx) const override {
    const TensorView* x = ctx.input(0);
    TensorView* y = ctx.output(0);
    const Dims spatial(x->dims.begin() + 2, x->dims.end());
    auto w = ir::ResolveWindow(attrs_.window, spatial, attrs_.window.kernel_shape);
    if (!w.ok()) return w.status();
    Pool2d p;
    p.planes = x->dims[0] * x->dims[1];
    p.in_h = w->in[0];
    p.in_w = w->in[1];
    p.out_h = w->out[0];
    p.out_w = w->out[1];
    p.kernel_h = w->kernel[0];
    p.kernel_w = w->kernel[1];
    p.stride_h = w->stride[0];
    p.stride_w = w->stride[1];
    p.dilation_h = w->dilation[0];
    p.dilation_w = w->dilation[1];
    p.pad_top = w->pad_begin[0];
    p.pad_left = w->pad_begin[1];
    p.pad_bottom = w->pad_end[0];
    p.pad_right = w->pad_end[1];
    p.max = attrs_.kind == kernels::PoolKind::kMax;
    p.count_include_pad = attrs_.count_include_pad;
    return Launched(LaunchPool2d(p, static_cast<const float*>(x->data),
                                 static_cast<float*>(y->data), StreamOf(ctx)),
                    "launching a pooling kernel");
  }

 private:
  kernels::PoolAttrs attrs_;
};

class GlobalPoolKernel final : public Kernel {
 public:
  // Enqueues its launches only (kernels/kernel.h).
  bool Replayable() const override { return true; }
  explicit GlobalPoolKernel(bool max) : max_(max) {}
  Status Run(KernelContext& ctx) const override {
    const TensorView* x = ctx.input(0);
    TensorView* y = ctx.output(0);
    const int64_t planes = x->dims[0] * x->dims[1];
    const int64_t size = kernels::Product(x->dims, 2, x->dims.size());
    return Launched(
        LaunchGlobalPool(static_cast<const float*>(x->data), static_cast<float*>(y->data), planes,
                         size, max_, StreamOf(ctx)),
        "launching a global pooling kernel");
  }

 private:
  bool max_;
};

Result<std::unique_ptr<Kernel>> MakePool(const NodeDef& def, kernels::PoolKind kind) {
  KILN_RETURN_IF_ERROR(RequireFloat32(def), "");
  if (def.input_dims[0].size() != 4) {
    return def.Fail(code::kFeatureUnsupported, "the CUDA pooling kernel takes NCHW (4-D) input");
  }
  if (def.output_used(1)) {
    return def.Fail(code::kFeatureUnsupported, "the CUDA pooling kernel gives no Indices");
  }
  return std::unique_ptr<Kernel>(std::make_unique<Pool2dKernel>(ReadPoolAttrs(def, kind)));
}

}  // namespace

void RegisterCudaNnKernels(kernels::KernelRegistry& registry) {
  for (const char* name : {"Softmax", "LogSoftmax"}) {
    const bool log = name[0] == 'L';
    registry.Register(
        kCudaBackend, "", name, [log](const NodeDef& def) -> Result<std::unique_ptr<Kernel>> {
          KILN_RETURN_IF_ERROR(RequireFloat32(def), "");
          return std::unique_ptr<Kernel>(
              std::make_unique<SoftmaxKernel>(def.attr_int("axis"), def.opset < 13, log));
        });
  }
  registry.Register(kCudaBackend, "", "MaxPool",
                    [](const NodeDef& def) { return MakePool(def, kernels::PoolKind::kMax); });
  registry.Register(kCudaBackend, "", "AveragePool",
                    [](const NodeDef& def) { return MakePool(def, kernels::PoolKind::kAverage); });
  for (const char* name : {"GlobalAveragePool", "GlobalMaxPool"}) {
    const bool max = name[6] == 'M';
    registry.Register(kCudaBackend, "", name,
                      [max](const NodeDef& def) -> Result<std::unique_ptr<Kernel>> {
                        KILN_RETURN_IF_ERROR(RequireFloat32(def), "");
                        if (def.input_dims[0].size() < 3) {
                          return def.Fail(code::kFeatureUnsupported,
                                          "the CUDA global pooling kernel takes N, C and spatial "
                                          "dims");
                        }
                        return std::unique_ptr<Kernel>(std::make_unique<GlobalPoolKernel>(max));
                      });
  }
}

}  // namespace kiln::cuda
