// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
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
// quant.cc, resize.cc, tensor.cc, movement.cc, rnn.cc, compare.cc, reduce.cc, control_flow.cc).
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
void RegisterCudaRnnKernels(kernels::KernelRegistry& registry);
void RegisterCudaCompareKernels(kernels::KernelRegistry& registry);
void RegisterCudaReduceKernels(kernels::KernelRegistry& registry);
void RegisterCudaControlFlowKernels(kernels::KernelRegistry& registry);
void RegisterCudaPadKernels(kernels::KernelRegistry& registry);

// Shared by the families: float32 inputs and outputs, or a decline (kFeatureUnsupported)
// naming what the kernel does not take.
Status RequireFloat32(const kernels::NodeDef& def);
// The run's CUDA stream (null: the legacy default stream, outside an execution).
void* StreamOf(const kernels::KernelContext& ctx);
// Elements of `type` have 1, 2, 4 or 8 bytes (not the packed sub-byte types), or a decline
// naming the type.
Status RequireWholeBytes(const kernels::NodeDef& def, kernels::DataType type);

// A check a factory makes of its node before making the kernel.
using PrepareCheck = Status (*)(const kernels::NodeDef& def);
// Whether the node's kernel is Replayable (kernels/kernel.h); null: always.
using ReplayCheck = bool (*)(const kernels::NodeDef& def);
// Registers `run` for the ONNX op `op` as a function kernel, made once every check passes.
void RegisterFunction(kernels::KernelRegistry& registry, const char* op, kernels::RunFn run,
                      std::initializer_list<PrepareCheck> checks, ReplayCheck replayable = nullptr);

// An fp16 / bf16 model (kernels/precision.h, `def.matrix_precision`): its matrix kernels
// (convolutions, matrix products) take float16 / bfloat16 inputs and weights, accumulate in
// float32 and give float32 results. These convert float32 values into the model's half type
// and back on the run's stream (kFp32 is not a half type).
Status ToHalf(kernels::KernelContext& ctx, kernels::MatrixPrecision precision, const float* src,
              void* dst, int64_t n);
Status FromHalf(kernels::KernelContext& ctx, kernels::MatrixPrecision precision, const void* src,
                float* dst, int64_t n);
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

// Whether every input after the first is a constant or omitted: a kernel steered by a computed
// one copies it back each run and is not Replayable (kernels/kernel.h).
bool SteeringIsConstant(const kernels::NodeDef& def);

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

// Device memory for one run's half-type copies: part i holds `elements[i]` 2-byte values and
// starts 256-byte aligned (the alignment the libraries' fastest algorithms take).
class HalfScratch {
 public:
  HalfScratch(const kernels::KernelContext& ctx, std::initializer_list<int64_t> elements);
  bool ok() const { return scratch_.ok(); }
  uint8_t* part(size_t i) const { return static_cast<uint8_t*>(scratch_.data()) + offsets_[i]; }

 private:
  static std::vector<size_t> Offsets(std::initializer_list<int64_t> elements);
  std::vector<size_t> offsets_;  // one per part, then the total
  RunScratch scratch_;
};

// The largest power of two, at most `cap`, that divides every pointer's address (what a
// library may assume of their alignment when it picks an algorithm).
uint32_t CommonAlignment(std::initializer_list<const void*> pointers, uint32_t cap);

// Adds `scale` · z, broadcast to y's dims (numpy rules), to the epilogue: a fused convolution's
// residual, Gemm's C. kInvalidParam naming `what` when z does not broadcast.
Status AddBroadcastTerm(EpilogueParams& p, const kernels::TensorView& z, float scale,
                        const kernels::TensorView& y, const char* what);

// An axis attribute of a tensor of `rank` dims, negative ones counted from the end (the op's
// definition checked the range).
inline size_t AxisOf(int64_t axis, size_t rank) {
  return static_cast<size_t>(axis < 0 ? axis + static_cast<int64_t>(rank) : axis);
}

// A launcher's result (a cudaError_t as an int, from the *_launch.h headers) as a Status.
Status Launched(int error, const char* what);

}  // namespace kiln::cuda
