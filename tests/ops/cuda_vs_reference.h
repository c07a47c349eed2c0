// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// CUDA kernels against the reference kernels (label gpu; skipped without a GPU): a node's
// inputs go to GPU 0 through the device's allocator, the CUDA kernel runs on an execution
// slot's stream, and its output comes back beside the reference kernel's host output.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "backends/cuda/cuda_driver.h"
#include "backends/cuda/kernels/register.h"
#include "tests/hal/apart_device.h"
#include "tests/unit/kernels/kernel_test_util.h"

namespace kiln::cuda::testing {

using kernels::DataType;
using kernels::Dims;
using kernels::HostTensor;
using kernels::NodeDef;
using kernels::TensorView;

// Without a GPU the cases still run the reference kernel and prepare the CUDA kernel (for a
// device the host cannot address), so a node the CUDA kernels would refuse shows here; Run
// then returns nothing to compare and TearDown reports the test skipped.
class CudaVsReference : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("KILN_ENABLE_CUDA", "1", 1);
    driver_ = CreateCudaDriver();
    if (driver_->DeviceCount() > 0) {
      auto device = driver_->OpenDevice(0);
      ASSERT_TRUE(device.ok()) << device.status().message();
      device_ = std::move(*device);
    }
    static bool registered = [] {
      RegisterCudaKernels(kernels::KernelRegistry::Global());
      return true;
    }();
    (void)registered;
  }
  void TearDown() override {
    if (device_ == nullptr && !HasFailure()) {
      GTEST_SKIP() << "the CUDA kernels were prepared; no GPU here to run them";
    }
  }

  // Runs `def` (its inputs `ins`) on the reference kernel and on the CUDA kernel; returns
  // {reference output, CUDA output} for each output, or nothing without a GPU.
  std::optional<std::vector<std::pair<HostTensor, HostTensor>>> RunAll(
      NodeDef def, const std::vector<HostTensor>& ins) {
    std::vector<const HostTensor*> ptrs;
    for (const HostTensor& t : ins) ptrs.push_back(&t);
    return RunAll(std::move(def), ptrs);
  }
  // The same with inputs by pointer: a null one is an omitted optional input.
  std::optional<std::vector<std::pair<HostTensor, HostTensor>>> RunAll(
      NodeDef def, const std::vector<const HostTensor*>& ptrs) {
    auto reference = kernels::KernelRegistry::Global().Create(kernels::kReferenceBackend, def);
    EXPECT_TRUE(reference.ok()) << reference.status().message();
    if (!reference.ok()) return std::nullopt;
    kernels::testing::TestContext host(ptrs, def.output_types, &def);
    Status ran = (*reference)->Run(host);
    EXPECT_TRUE(ran.ok()) << ran.message();

    hal::testing::ApartDevice no_gpu(kCudaBackend);
    def.device = device_ ? device_.get() : &no_gpu;
    auto gpu = kernels::KernelRegistry::Global().Create(kCudaBackend, def);
    EXPECT_TRUE(gpu.ok()) << gpu.status().message();
    if (!gpu.ok() || device_ == nullptr) return std::nullopt;
    hal::Allocator& a = device_->allocator();
    std::vector<void*> blocks;
    auto upload = [&](const HostTensor& t) {
      void* p = *a.Allocate(std::max<size_t>(t.bytes.size(), 4), 64, false);
      a.Copy(p, t.bytes.data(), t.bytes.size());
      blocks.push_back(p);
      return TensorView{t.dtype, t.dims, p};
    };
    DeviceContext ctx(device_->CreateExecution());
    for (const HostTensor* t : ptrs) {
      ctx.inputs.push_back(t != nullptr ? upload(*t) : TensorView{});
      ctx.given.push_back(t != nullptr);
    }
    for (const HostTensor& expected : host.outputs()) {
      ctx.outs.push_back(upload(expected));  // overwritten by the kernel
      a.Fill(ctx.outs.back().data, 0xff, expected.bytes.size());
    }
    // Twice with a slot's state, as the executor runs it: the second run takes what the first
    // kept (a resize's tables, a library's plan) and must write the same bytes.
    std::unique_ptr<kernels::KernelState> state = (*gpu)->CreateState();
    ctx.state_ = state.get();
    std::vector<std::pair<HostTensor, HostTensor>> result;
    for (int run = 0; run < 2; ++run) {
      ctx.exec_->Begin();
      Status status = (*gpu)->Run(ctx);
      ctx.exec_->End();
      EXPECT_TRUE(status.ok()) << "run " << run << ": " << status.message();
      for (size_t i = 0; i < ctx.outs.size(); ++i) {
        const HostTensor& expected = host.outputs()[i];
        HostTensor actual(expected.dtype, expected.dims);
        a.Copy(actual.bytes.data(), ctx.outs[i].data, actual.bytes.size());
        if (run == 0) {
          result.emplace_back(expected, std::move(actual));
        } else {
          EXPECT_EQ(actual.bytes, result[i].second.bytes) << "output " << i << " of the second run";
        }
      }
    }
    for (void* p : blocks) a.Free(p, 0);
    return result;
  }

  // RunAll's first output.
  std::optional<std::pair<HostTensor, HostTensor>> Run(NodeDef def,
                                                       const std::vector<HostTensor>& ins) {
    return First(RunAll(std::move(def), ins));
  }
  std::optional<std::pair<HostTensor, HostTensor>> Run(NodeDef def,
                                                       const std::vector<const HostTensor*>& ins) {
    return First(RunAll(std::move(def), ins));
  }
  static std::optional<std::pair<HostTensor, HostTensor>> First(
      std::optional<std::vector<std::pair<HostTensor, HostTensor>>> all) {
    if (!all || all->empty()) return std::nullopt;
    return std::move((*all)[0]);
  }

  // The executor's part for one CUDA kernel run over device tensors.
  struct DeviceContext final : kernels::KernelContext {
    explicit DeviceContext(std::unique_ptr<hal::Execution> e) : exec_(std::move(e)) {}
    size_t num_inputs() const override { return inputs.size(); }
    const TensorView* input(size_t i) const override { return given[i] ? &inputs[i] : nullptr; }
    size_t num_outputs() const override { return outs.size(); }
    TensorView* output(size_t i) override { return &outs[i]; }
    Result<TensorView*> DynamicOutput(size_t, const Dims&) override {
      return Error(code::kFeatureUnsupported, "no dynamic outputs here");
    }
    Result<std::vector<HostTensor>> RunGraph(int, const std::vector<TensorView>&) override {
      return Error(code::kFeatureUnsupported, "no graphs here");
    }
    hal::Execution* exec() const override { return exec_.get(); }
    kernels::KernelState* state() const override { return state_; }
    std::vector<TensorView> inputs;
    std::vector<bool> given;  // per input: false for an omitted one
    std::vector<TensorView> outs;
    std::unique_ptr<hal::Execution> exec_;
    kernels::KernelState* state_ = nullptr;
  };

  std::unique_ptr<hal::Driver> driver_;
  std::unique_ptr<hal::Device> device_;  // null without a GPU
};

// Random float32 values in [lo, hi).
HostTensor Random(Dims dims, float lo, float hi, unsigned seed);

// A run's {reference, CUDA} outputs (nothing: not run, no GPU).
using Ran = std::optional<std::pair<HostTensor, HostTensor>>;

// float32 outputs: each element within rtol * |reference| (+ 1e-6 when rtol > 0; exact when
// rtol is 0); NaN where the reference has NaN.
void ExpectClose(const Ran& ran, float rtol, const std::string& what);
// float32 outputs of sums (matmuls, convolutions): each element within atol + rtol *
// |reference| (float32 sums in another order differ in the last bits of large terms).
void ExpectNear(const Ran& ran, float atol, float rtol, const std::string& what);
// Outputs of the same dims and bytes.
void ExpectSameBytes(const Ran& ran, const std::string& what);

}  // namespace kiln::cuda::testing
