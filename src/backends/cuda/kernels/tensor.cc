// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The CUDA device's data-movement kernels that copy bytes as they are: Reshape, Flatten,
// Squeeze, Unsqueeze and Identity, any element type (a device-to-device copy on the slot's
// stream; none when the executor gave the output the input's memory); Shape and Size, whose
// values the host knows: each value is written by a one-element fill whose argument holds it,
// so the run enqueues launches only (a recording keeps the values); Constant (left in a control
// flow body: the compiler folds the main graph's), whose value goes to the device at load.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <utility>
#include <vector>

#include "backends/cuda/cuda_status.h"
#include "backends/cuda/kernels/device_bytes.h"
#include "backends/cuda/kernels/movement_launch.h"
#include "backends/cuda/kernels/register.h"
#include "kernels/attrs.h"
#include "kernels/util.h"

namespace kiln::cuda {
namespace {

class CopyKernel final : public kernels::Kernel {
 public:
  // Enqueues its launches only (kernels/kernel.h).
  bool Replayable() const override { return true; }
  Status Run(kernels::KernelContext& ctx) const override {
    const kernels::TensorView* x = ctx.input(0);
    kernels::TensorView* y = ctx.output(0);
    if (y->bytes() != x->bytes()) {
      return Error(code::kInternalError, "the output is bound with ", y->bytes(),
                   " bytes for an input of ", x->bytes());
    }
    if (y->data == x->data || x->bytes() == 0) return Status::Ok();
    return CudaStatus(cudaMemcpyAsync(y->data, x->data, x->bytes(), cudaMemcpyDeviceToDevice,
                                      static_cast<cudaStream_t>(StreamOf(ctx))),
                      "cudaMemcpyAsync");
  }
};

// Shape (its start / end from opset 15) and Size: the input's dims, known on the host, copied
// into the int64 output through the execution.
class ShapeKernel final : public kernels::Kernel {
 public:
  // Enqueues its launches only (kernels/kernel.h).
  bool Replayable() const override { return true; }
  ShapeKernel(bool size, int64_t start) : size_(size), start_(start) {}
  Status Run(kernels::KernelContext& ctx) const override {
    const kernels::TensorView* x = ctx.input(0);
    kernels::TensorView* y = ctx.output(0);
    std::vector<int64_t> values;
    if (size_) {
      values.push_back(x->num_elements());
    } else {
      const int64_t rank = static_cast<int64_t>(x->rank());
      int64_t start = start_ < 0 ? start_ + rank : start_;
      start = std::clamp<int64_t>(start, 0, rank);
      for (int64_t i = 0; i < y->num_elements() && start + i < rank; ++i) {
        values.push_back(x->dims[static_cast<size_t>(start + i)]);
      }
    }
    if (static_cast<int64_t>(values.size()) != y->num_elements()) {
      return Error(code::kInternalError, "the output is bound for ", y->num_elements(),
                   " dims, the input gives ", values.size());
    }
    auto* out = static_cast<int64_t*>(y->data);
    for (size_t i = 0; i < values.size(); ++i) {
      uint64_t pattern = 0;
      std::memcpy(&pattern, &values[i], sizeof(pattern));
      KILN_RETURN_IF_ERROR(
          Launched(LaunchFill(out + i, 1, sizeof(int64_t), pattern, StreamOf(ctx)), "a fill"), "");
    }
    return Status::Ok();
  }

 private:
  bool size_;
  int64_t start_;
};

// The value was uploaded at Prepare; a run copies it into the output on the device.
class ConstantKernel final : public kernels::Kernel {
 public:
  explicit ConstantKernel(DeviceBytes value) : value_(std::move(value)) {}
  bool Replayable() const override { return true; }
  Status Run(kernels::KernelContext& ctx) const override {
    kernels::TensorView* y = ctx.output(0);
    if (y->bytes() != value_.size()) {
      return Error(code::kInternalError, "the output is bound for ", y->bytes(),
                   " bytes, the value has ", value_.size());
    }
    if (value_.size() == 0) return Status::Ok();
    return CudaStatus(
        cudaMemcpyAsync(y->data, value_.data(), value_.size(), cudaMemcpyDeviceToDevice,
                        static_cast<cudaStream_t>(StreamOf(ctx))),
        "cudaMemcpyAsync");
  }

 private:
  DeviceBytes value_;
};

Result<std::unique_ptr<kernels::Kernel>> PrepareConstant(const kernels::NodeDef& def) {
  KILN_RETURN_IF_ERROR(RequireWholeBytes(def, def.output_types[0]), "");
  const std::vector<uint8_t> bytes = kernels::ConstantBytes(def);
  KILN_ASSIGN_OR_RETURN(DeviceBytes value,
                        DeviceBytes::Upload(def, bytes.data(), bytes.size(), "the value"));
  if (!bytes.empty() && def.device != nullptr && value.data() == nullptr) {
    return def.Fail(code::kInternalError, "the value was not uploaded");
  }
  return std::unique_ptr<kernels::Kernel>(std::make_unique<ConstantKernel>(std::move(value)));
}

}  // namespace

void RegisterCudaTensorKernels(kernels::KernelRegistry& registry) {
  registry.Register(kCudaBackend, "", "Constant", PrepareConstant);
  for (const char* name : {"Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity"}) {
    registry.Register(kCudaBackend, "", name,
                      [](const kernels::NodeDef&) -> Result<std::unique_ptr<kernels::Kernel>> {
                        return std::unique_ptr<kernels::Kernel>(std::make_unique<CopyKernel>());
                      });
  }
  for (const char* name : {"Shape", "Size"}) {
    const bool size = name[1] == 'i';
    registry.Register(
        kCudaBackend, "", name,
        [size](const kernels::NodeDef& def) -> Result<std::unique_ptr<kernels::Kernel>> {
          return std::unique_ptr<kernels::Kernel>(
              std::make_unique<ShapeKernel>(size, def.attr_int("start")));
        });
  }
}

}  // namespace kiln::cuda
