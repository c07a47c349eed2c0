// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstddef>

#include "backends/cuda/kernels/epilogue_launch.h"
#include "kernels/registry.h"

namespace kiln::cuda {

inline constexpr const char* kCudaBackend = "cuda";

// Registers the CUDA device's kernels for backend "cuda". A node with none is refused at load
// (the device's memory is not the host's: no reference fallback, kernels/registry.h).
void RegisterCudaKernels(kernels::KernelRegistry& registry);

// One family each (elementwise.cc, activation.cc, matmul.cc, conv.cc, nn.cc, norm.cc,
// resize.cc, tensor.cc, movement.cc).
void RegisterCudaElementwiseKernels(kernels::KernelRegistry& registry);
void RegisterCudaActivationKernels(kernels::KernelRegistry& registry);
void RegisterCudaMatmulKernels(kernels::KernelRegistry& registry);
void RegisterCudaConvKernels(kernels::KernelRegistry& registry);
void RegisterCudaNnKernels(kernels::KernelRegistry& registry);
void RegisterCudaNormKernels(kernels::KernelRegistry& registry);
void RegisterCudaResizeKernels(kernels::KernelRegistry& registry);
void RegisterCudaTensorKernels(kernels::KernelRegistry& registry);
void RegisterCudaMovementKernels(kernels::KernelRegistry& registry);

// Shared by the families: float32 inputs and outputs, or a decline (kFeatureUnsupported)
// naming what the kernel does not take.
Status RequireFloat32(const kernels::NodeDef& def);
// The run's CUDA stream (null: the legacy default stream, outside an execution).
void* StreamOf(const kernels::KernelContext& ctx);
// The matrix kernels compute float32 only for now: a model compiled for bf16 matrices is
// declined (kFeatureUnsupported) rather than run at another precision than asked.
Status RequireFp32Matrices(const kernels::NodeDef& def);
// A fused op's activation and post_scale / post_shift (kernels/attrs.h) as epilogue
// parameters (activation.cc); no bias or residual yet.
Result<EpilogueParams> ReadEpilogue(const kernels::NodeDef& def);
// Whether the epilogue would change its input (an activation, post affine step, bias or
// residual).
bool EpilogueDoesWork(const EpilogueParams& p);

// A run's context whose inputs after the first are the node's host constants (the copies the
// model keeps for preparing kernels; null for omitted inputs): for the values that steer a
// kernel (Slice's starts, Resize's scales), which the host reads. The factory has checked that
// those inputs are constants.
class HostConstantsContext final : public kernels::ForwardingContext {
 public:
  HostConstantsContext(kernels::KernelContext& base, const kernels::NodeDef& def)
      : ForwardingContext(base), def_(def) {}
  const kernels::TensorView* input(size_t i) const override {
    return i == 0 ? base_.input(0) : def_.constant(i);
  }

 private:
  const kernels::NodeDef& def_;
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

// A launcher's result (a cudaError_t as an int, from the *_launch.h headers) as a Status.
Status Launched(int error, const char* what);

}  // namespace kiln::cuda
