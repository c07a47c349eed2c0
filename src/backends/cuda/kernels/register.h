// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "backends/cuda/kernels/epilogue_launch.h"
#include "kernels/registry.h"

namespace kiln::cuda {

inline constexpr const char* kCudaBackend = "cuda";

// Registers the CUDA device's kernels for backend "cuda". A node with none is refused at load
// (the device's memory is not the host's: no reference fallback, kernels/registry.h).
void RegisterCudaKernels(kernels::KernelRegistry& registry);

// One family each (elementwise.cc, activation.cc, cast.cc, matmul.cc, conv.cc, nn.cc, norm.cc,
// quant.cc, resize.cc, tensor.cc, movement.cc).
void RegisterCudaElementwiseKernels(kernels::KernelRegistry& registry);
void RegisterCudaActivationKernels(kernels::KernelRegistry& registry);
void RegisterCudaCastKernels(kernels::KernelRegistry& registry);
void RegisterCudaMatmulKernels(kernels::KernelRegistry& registry);
void RegisterCudaConvKernels(kernels::KernelRegistry& registry);
void RegisterCudaNnKernels(kernels::KernelRegistry& registry);
void RegisterCudaNormKernels(kernels::KernelRegistry& registry);
void RegisterCudaQuantKernels(kernels::KernelRegistry& registry);
void RegisterCudaResizeKernels(kernels::KernelRegistry& registry);
void RegisterCudaTensorKernels(kernels::KernelRegistry& registry);
void RegisterCudaMovementKernels(kernels::KernelRegistry& registry);

// Shared by the families: float32 inputs and outputs, or a decline (kFeatureUnsupported)
// naming what the kernel does not take.
Status RequireFloat32(const kernels::NodeDef& def);
// The run's CUDA stream (null: the legacy default stream, outside an execution).
void* StreamOf(const kernels::KernelContext& ctx);
// The type the model's matrix kernels (convolutions, matrix products) take their inputs and
// weights in (kernels/precision.h): float32, or float16 / bfloat16 (an .om compiled with an fp16
// or bf16 precision mode) with float32 accumulation and float32 results.
enum class MatrixInput { kFloat32, kFloat16, kBfloat16 };
MatrixInput MatrixInputOf(const kernels::NodeDef& def);
// Converts `n` float32 values at `src` into `type` (float16 or bfloat16) at `dst` on the run's
// stream.
Status ToMatrixInput(kernels::KernelContext& ctx, MatrixInput type, const float* src, void* dst,
                     int64_t n);
// A fused op's activation and post_scale / post_shift (kernels/attrs.h) as epilogue
// parameters (activation.cc); no bias or residual yet.
Result<EpilogueParams> ReadEpilogue(const kernels::NodeDef& def);
// Whether the epilogue would change its input (an activation, post affine step, bias or
// residual).
bool EpilogueDoesWork(const EpilogueParams& p);

// A run's context whose inputs after the first are read on the host: for the values that steer a
// kernel (Slice's starts, Split's sizes, Resize's scales), not its data. A constant input is the
// model's host copy (kept for preparing kernels); a computed one is copied from the device
// through the run's execution when first asked for (a synchronising copy of a few bytes); an
// omitted one is null. Input 0 is the run's own.
class HostSteeringContext final : public kernels::ForwardingContext {
 public:
  HostSteeringContext(kernels::KernelContext& base, const kernels::NodeDef& def)
      : ForwardingContext(base), def_(def), staged_(def.num_inputs()), views_(def.num_inputs()) {}
  const kernels::TensorView* input(size_t i) const override;

 private:
  const kernels::NodeDef& def_;
  // Per input (sized once: views handed out stay valid for the run).
  mutable std::vector<std::unique_ptr<kernels::HostTensor>> staged_;
  mutable std::vector<kernels::TensorView> views_;
};

// Device scratch memory for one run (a library's workspace), from the execution's stream-ordered
// allocator and given back when the run's work is enqueued (the stream orders the free after
// it). Null for 0 bytes.
class RunScratch {
 public:
  RunScratch(const kernels::KernelContext& ctx, size_t bytes);
  ~RunScratch();
  RunScratch(const RunScratch&) = delete;
  RunScratch& operator=(const RunScratch&) = delete;
  void* data() const { return data_; }
  // False when `bytes` were asked for and none were given.
  bool ok() const { return bytes_ == 0 || data_ != nullptr; }

 private:
  hal::Execution* exec_;
  size_t bytes_;
  void* data_ = nullptr;
};

// An axis attribute of a tensor of `rank` dims, negative ones counted from the end (the op's
// definition checked the range).
inline size_t AxisOf(int64_t axis, size_t rank) {
  return static_cast<size_t>(axis < 0 ? axis + static_cast<int64_t>(rank) : axis);
}

// A launcher's result (a cudaError_t as an int, from the *_launch.h headers) as a Status.
Status Launched(int error, const char* what);

}  // namespace kiln::cuda
