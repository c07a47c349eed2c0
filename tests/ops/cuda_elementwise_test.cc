// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The CUDA element-wise kernels against the reference kernels (label gpu; skipped where the
// machine has no GPU). Inputs go to the GPU through the device's allocator, the CUDA kernel runs
// on an execution slot's stream, and its output comes back to be compared with the reference
// kernel's on the host: exactly for the arithmetic, within a few ulp for the functions CUDA's
// math library computes (expf, tanhf, erff, powf: within 2 ulp of the exact value).
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "backends/cuda/kernels/register.h"
#include "tests/hal/cuda_test_device.h"
#include "tests/unit/kernels/kernel_test_util.h"

namespace kiln::cuda {
namespace {

using kernels::DataType;
using kernels::Dims;
using kernels::HostTensor;
using kernels::NodeDef;
using kernels::TensorView;
using kernels::testing::Def;
using kernels::testing::F32;
using kernels::testing::TestContext;
using kernels::testing::Values;

class CudaElementwiseTest : public testing::CudaDeviceFixture {
 protected:
  void SetUp() override {
    CudaDeviceFixture::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    static bool registered = [] {
      RegisterCudaKernels(kernels::KernelRegistry::Global());
      return true;
    }();
    (void)registered;
  }

  // Runs `op` on the reference kernel (host) and on the CUDA kernel (GPU); returns both outputs.
  std::pair<std::vector<float>, std::vector<float>> Run(const std::string& op,
                                                        const std::vector<HostTensor>& ins) {
    std::vector<const HostTensor*> ptrs;
    for (const HostTensor& t : ins) ptrs.push_back(&t);
    NodeDef def = Def(op, ptrs, {DataType::kFloat32});
    auto reference = kernels::KernelRegistry::Global().Create(kernels::kReferenceBackend, def);
    EXPECT_TRUE(reference.ok()) << reference.status().message();
    if (!reference.ok()) return {};
    TestContext host(ptrs, {DataType::kFloat32}, &def);
    EXPECT_TRUE((*reference)->Run(host).ok());
    const HostTensor& expected = host.outputs()[0];

    def.device = device_.get();
    auto gpu = kernels::KernelRegistry::Global().Create(kCudaBackend, def);
    EXPECT_TRUE(gpu.ok()) << gpu.status().message();
    if (!gpu.ok()) return {};
    hal::Allocator& a = device_->allocator();
    std::vector<void*> blocks;
    auto upload = [&](const HostTensor& t) {
      void* p = *a.Allocate(std::max<size_t>(t.bytes.size(), 4), 64, false);
      a.Copy(p, t.bytes.data(), t.bytes.size());
      blocks.push_back(p);
      return TensorView{t.dtype, t.dims, p};
    };
    DeviceContext ctx(device_->CreateExecution());
    for (const HostTensor& t : ins) ctx.inputs.push_back(upload(t));
    ctx.out = upload(expected);  // overwritten by the kernel
    a.Fill(ctx.out.data, 0xff, expected.bytes.size());
    ctx.exec_->Begin();
    Status status = (*gpu)->Run(ctx);
    ctx.exec_->End();
    EXPECT_TRUE(status.ok()) << status.message();
    HostTensor actual(expected.dtype, expected.dims);
    a.Copy(actual.bytes.data(), ctx.out.data, actual.bytes.size());
    for (void* p : blocks) a.Free(p, 0);
    return {Values<float>(expected), Values<float>(actual)};
  }

  // The executor's part for one CUDA kernel run over device tensors.
  struct DeviceContext final : kernels::KernelContext {
    explicit DeviceContext(std::unique_ptr<hal::Execution> e) : exec_(std::move(e)) {}
    size_t num_inputs() const override { return inputs.size(); }
    const TensorView* input(size_t i) const override { return &inputs[i]; }
    size_t num_outputs() const override { return 1; }
    TensorView* output(size_t) override { return &out; }
    Result<TensorView*> DynamicOutput(size_t, const Dims&) override {
      return Error(code::kFeatureUnsupported, "no dynamic outputs here");
    }
    Result<std::vector<HostTensor>> RunGraph(int, const std::vector<TensorView>&) override {
      return Error(code::kFeatureUnsupported, "no graphs here");
    }
    hal::Execution* exec() const override { return exec_.get(); }
    std::vector<TensorView> inputs;
    TensorView out;
    std::unique_ptr<hal::Execution> exec_;
  };
};

HostTensor Random(Dims dims, float lo, float hi, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(static_cast<size_t>(kernels::NumElements(dims)));
  for (float& x : v) x = dist(gen);
  return F32(std::move(dims), v);
}

void ExpectClose(const std::vector<float>& expected, const std::vector<float>& actual, float rtol,
                 const std::string& what) {
  ASSERT_EQ(expected.size(), actual.size()) << what;
  for (size_t i = 0; i < expected.size(); ++i) {
    const float e = expected[i], a = actual[i];
    if (std::isnan(e)) {
      EXPECT_TRUE(std::isnan(a)) << what << " [" << i << "]";
      continue;
    }
    EXPECT_LE(std::fabs(e - a), rtol * std::fabs(e) + (rtol > 0 ? 1e-6f : 0.f))
        << what << " [" << i << "]: reference " << e << ", CUDA " << a;
  }
}

TEST_F(CudaElementwiseTest, UnaryOpsMatchTheReference) {
  struct Case {
    const char* op;
    float lo, hi, rtol;
  };
  const Case cases[] = {
      {"Relu", -4, 4, 0},        {"Neg", -4, 4, 0},
      {"Abs", -4, 4, 0},         {"Floor", -4, 4, 0},
      {"Ceil", -4, 4, 0},        {"Identity", -4, 4, 0},
      {"Sqrt", 0, 100, 1e-6f},   {"Reciprocal", 0.1f, 9, 1e-6f},
      {"Sigmoid", -9, 9, 1e-5f}, {"Tanh", -5, 5, 1e-5f},
      {"Exp", -9, 9, 1e-5f},     {"Log", 0.01f, 100, 1e-5f},
      {"Erf", -3, 3, 1e-5f},     {"Softplus", -9, 30, 1e-5f},
  };
  unsigned seed = 1;
  for (const Case& c : cases) {
    auto [expected, actual] = Run(c.op, {Random({3, 1000}, c.lo, c.hi, seed++)});
    ExpectClose(expected, actual, c.rtol, c.op);
  }
}

TEST_F(CudaElementwiseTest, BinaryOpsBroadcastLikeTheReference) {
  const std::vector<std::pair<Dims, Dims>> shapes = {
      {{4, 5, 6}, {4, 5, 6}},        // same shape
      {{4, 1, 6}, {5, 1}},           // both broadcast
      {{}, {3, 7}},                  // a scalar
      {{2, 3, 4, 5}, {5}},           // a row
      {{1, 8, 1, 1}, {2, 8, 3, 3}},  // per channel
  };
  const std::pair<const char*, float> ops[] = {{"Add", 0}, {"Sub", 0}, {"Mul", 0},    {"Div", 0},
                                               {"Max", 0}, {"Min", 0}, {"Pow", 1e-5f}};
  unsigned seed = 100;
  for (const auto& [op, rtol] : ops) {
    for (const auto& [da, db] : shapes) {
      const bool pow = std::string(op) == "Pow";
      HostTensor a = Random(da, pow ? 0.5f : -3, 3, seed++);
      HostTensor b = Random(db, pow ? -2.f : 0.5f, 3, seed++);
      auto [expected, actual] = Run(op, {a, b});
      ExpectClose(
          expected, actual, rtol,
          std::string(op) + " " + kernels::DimsString(da) + " x " + kernels::DimsString(db));
    }
  }
}

}  // namespace
}  // namespace kiln::cuda
