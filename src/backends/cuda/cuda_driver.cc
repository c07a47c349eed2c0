// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "backends/cuda/cuda_driver.h"

#include <cuda_runtime_api.h>

#include <atomic>
#include <string>

#include "backends/cuda/cuda_allocator.h"
#include "backends/cuda/cuda_execution.h"
#include "backends/cuda/cuda_queue.h"
#include "backends/cuda/cuda_status.h"
#include "base/env.h"
#include "base/log.h"
#include "hal/host_event.h"

namespace kiln::cuda {
namespace {

class CudaDevice final : public hal::Device {
 public:
  CudaDevice(int ordinal, const cudaDeviceProp& props) : ordinal_(ordinal), allocator_(ordinal) {
    info_.backend = "cuda";
    info_.name = "sm_" + std::to_string(props.major * 10 + props.minor);
    info_.memory_bytes = props.totalGlobalMem;
    info_.compute_units = props.multiProcessorCount;
    info_.l2_cache_bytes = props.l2CacheSize;
    info_.host_addressable = false;
  }
  const hal::DeviceInfo& info() const override { return info_; }
  hal::Allocator& allocator() override { return allocator_; }
  std::shared_ptr<hal::Queue> CreateQueue() override {
    return std::make_shared<CudaQueue>(ordinal_);
  }
  std::shared_ptr<hal::Event> CreateEvent() override { return std::make_shared<hal::HostEvent>(); }
  uint64_t busy_ns() const override { return busy_ns_.load(std::memory_order_relaxed); }
  std::unique_ptr<hal::Execution> CreateExecution() override {
    // CUDA graphs for repeated runs unless KILN_CUDA_GRAPHS=0 (docs/configuration.md).
    return std::make_unique<CudaExecution>(ordinal_, &busy_ns_,
                                           env::Get("KILN_CUDA_GRAPHS") != "0");
  }
  Status RunPreparation(FunctionRef<Status()> prepare) override {
    KILN_RETURN_IF_ERROR(CudaStatus(cudaSetDevice(ordinal_), "cudaSetDevice"), "");
    return prepare();
  }
  // Page-locked, so copies from and to it run at the bus's speed and can be asynchronous.
  Result<void*> AllocateHost(size_t bytes) override {
    KILN_RETURN_IF_ERROR(CudaStatus(cudaSetDevice(ordinal_), "cudaSetDevice"), "");
    void* ptr = nullptr;
    cudaError_t error = cudaHostAlloc(&ptr, bytes, cudaHostAllocPortable);
    if (error != cudaSuccess) {
      return CudaStatus(error, "cudaHostAlloc").Annotate(StrCat(bytes, " bytes"));
    }
    return ptr;
  }
  void FreeHost(void* ptr) override {
    Status status = CudaStatus(cudaFreeHost(ptr), "cudaFreeHost");
    if (!status.ok()) KILN_LOG(kRuntime, kError, status.message());
  }

 private:
  int ordinal_;
  hal::DeviceInfo info_;
  CudaAllocator allocator_;
  std::atomic<uint64_t> busy_ns_{0};
};

class CudaDriver final : public hal::Driver {
 public:
  std::string name() const override { return "cuda"; }
  // GPUs are listed only with KILN_ENABLE_CUDA=1 while the CUDA device lacks kernels and the
  // runtime still copies weights and I/O with host memcpy (docs/cuda.md, "Status"): listed by
  // default, a GPU would become device 0 and every model would fail on it.
  int DeviceCount() override {
    if (env::Get("KILN_ENABLE_CUDA") != "1") return 0;
    int count = 0;
    cudaError_t error = cudaGetDeviceCount(&count);
    if (error != cudaSuccess) {
      // No GPU, no driver, or only the toolkit's stub library: the CPU device is all there is.
      Status why = CudaStatus(error, "cudaGetDeviceCount");
      KILN_LOG(kRuntime, kInfo, "no CUDA device: ", why.message());
      return 0;
    }
    return count;
  }
  Result<std::unique_ptr<hal::Device>> OpenDevice(int index) override {
    if (index < 0 || index >= DeviceCount()) {
      return Error(code::kRtInvalidDeviceId, "CUDA device ", index, " does not exist");
    }
    cudaDeviceProp props{};
    KILN_RETURN_IF_ERROR(
        CudaStatus(cudaGetDeviceProperties(&props, index), "cudaGetDeviceProperties"),
        StrCat("CUDA device ", index));
    // Creates the device's primary context now, so a broken GPU fails here, not in a kernel.
    KILN_RETURN_IF_ERROR(CudaStatus(cudaSetDevice(index), "cudaSetDevice"),
                         StrCat("CUDA device ", index));
    KILN_RETURN_IF_ERROR(CudaStatus(cudaFree(nullptr), "creating the CUDA context"),
                         StrCat("CUDA device ", index));
    return std::unique_ptr<hal::Device>(std::make_unique<CudaDevice>(index, props));
  }
};

}  // namespace

std::unique_ptr<hal::Driver> CreateCudaDriver() { return std::make_unique<CudaDriver>(); }

}  // namespace kiln::cuda
