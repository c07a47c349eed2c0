// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The host side of the CUDA matrix and data-movement kernels, which runs without a GPU: how a
// MatMul or Gemm maps onto one strided-batched cuBLASLt call, pointer alignment for cuDNN, the
// libraries opened at run time, and the nodes the kernels decline at load with the reason.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "backends/cuda/cuda_libraries.h"
#include "backends/cuda/kernels/cudnn_graph.h"
#include "backends/cuda/kernels/matmul_shape.h"
#include "backends/cuda/kernels/register.h"
#include "base/fp16.h"
#include "hal/execution.h"
#include "tests/hal/apart_device.h"
#include "tests/unit/kernels/kernel_test_util.h"

namespace kiln::cuda {
namespace {

using kernels::DataType;
using kernels::HostTensor;
using kernels::NodeDef;
using kernels::testing::Def;
using kernels::testing::F32;
using kernels::testing::I64;

TEST(CudaMatmulShapeTest, MapsMatMulOntoOneStridedCall) {
  auto folded = MatMulShapeOf({2, 3, 7, 16}, {16, 9});
  ASSERT_TRUE(folded.ok());
  EXPECT_EQ(folded->batch, 1);
  EXPECT_EQ(folded->m, 42);  // A's batch folds into its rows
  EXPECT_EQ(folded->n, 9);
  EXPECT_EQ(folded->k, 16);

  auto batched = MatMulShapeOf({4, 7, 8}, {4, 8, 6});
  ASSERT_TRUE(batched.ok());
  EXPECT_EQ(batched->batch, 4);
  EXPECT_EQ(batched->a_stride, 56);
  EXPECT_EQ(batched->b_stride, 48);

  auto shared_a = MatMulShapeOf({1, 7, 8}, {2, 3, 8, 6});
  ASSERT_TRUE(shared_a.ok());
  EXPECT_EQ(shared_a->batch, 6);
  EXPECT_EQ(shared_a->a_stride, 0);
  EXPECT_EQ(shared_a->m, 7);

  auto vec_a = MatMulShapeOf({8}, {8, 6});
  ASSERT_TRUE(vec_a.ok());
  EXPECT_EQ(vec_a->m, 1);
  auto vec_b = MatMulShapeOf({3, 5, 8}, {8});
  ASSERT_TRUE(vec_b.ok());
  EXPECT_EQ(vec_b->m, 15);
  EXPECT_EQ(vec_b->n, 1);

  EXPECT_EQ(MatMulShapeOf({2, 3, 7, 8}, {3, 8, 6}).status().code(), code::kFeatureUnsupported);
  EXPECT_EQ(MatMulShapeOf({2, 7, 8}, {2, 9, 6}).status().code(), code::kInvalidParam);

  auto gemm = GemmShapeOf({7, 5}, {3, 7}, true, true);
  ASSERT_TRUE(gemm.ok());
  EXPECT_EQ(gemm->m, 5);
  EXPECT_EQ(gemm->n, 3);
  EXPECT_EQ(gemm->k, 7);
  EXPECT_EQ(GemmShapeOf({7, 5}, {3, 7}, false, true).status().code(), code::kInvalidParam);
}

TEST(CudaLibrariesTest, OpenAtRunTimeOrNameWhatIsMissing) {
  for (const auto& [status, soname] :
       {std::make_pair(CublasLt().status(), std::string("libcublasLt.so.")),
        std::make_pair(Cudnn().status(), std::string("libcudnn.so.9"))}) {
    if (!status.ok()) {
      EXPECT_EQ(status.code(), code::kFeatureUnsupported);
      EXPECT_NE(status.message().find(soname), std::string::npos) << status.message();
    }
  }
  EXPECT_EQ(CommonAlignment({reinterpret_cast<const void*>(0x1000)}, 16), 16u);
  EXPECT_EQ(CommonAlignment(
                {reinterpret_cast<const void*>(0x1000), reinterpret_cast<const void*>(0x1008)}, 16),
            8u);
  EXPECT_EQ(CommonAlignment({reinterpret_cast<const void*>(0x1004)}, 16), 4u);
}

class CudaKernelChoiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    static bool once = (RegisterCudaKernels(kernels::KernelRegistry::Global()), true);
    (void)once;
  }
  // The CUDA kernel for `def` on a device the host cannot address.
  Status Prepare(NodeDef def) {
    def.device = &gpu_;
    return kernels::KernelRegistry::Global().Create(kCudaBackend, def).status();
  }
  // Whether the CUDA kernel for `def` may be recorded into a CUDA graph (kernels/kernel.h).
  bool Replayable(NodeDef def) {
    def.device = &gpu_;
    auto kernel = kernels::KernelRegistry::Global().Create(kCudaBackend, def);
    EXPECT_TRUE(kernel.ok()) << kernel.status().message();
    return kernel.ok() && (*kernel)->Replayable();
  }
  void ExpectDeclined(const NodeDef& def, int code, const std::string& why) {
    Status st = Prepare(def);
    EXPECT_EQ(st.code(), code) << st.message();
    EXPECT_NE(st.message().find(def.op_type + " 'n'"), std::string::npos) << st.message();
    EXPECT_NE(st.message().find(why), std::string::npos) << st.message();
  }
  hal::testing::ApartDevice gpu_{kCudaBackend};
};

TEST_F(CudaKernelChoiceTest, MatrixKernelsPrepareAndDeclineWhatTheyCannotRun) {
  if (!CublasLt().ok() || !Cudnn().ok()) GTEST_SKIP() << "cuBLASLt or cuDNN is not installed";
  HostTensor a = F32({2, 3, 4}, std::vector<float>(24, 1)),
             b = F32({4, 5}, std::vector<float>(20, 1));
  EXPECT_TRUE(Prepare(Def("MatMul", {&a, &b}, {DataType::kFloat32}, 13)).ok());
  HostTensor wide = F32({2, 3, 5, 4}, std::vector<float>(120, 1));
  HostTensor b3 = F32({3, 4, 5}, std::vector<float>(60, 1));
  ExpectDeclined(Def("MatMul", {&wide, &b3}, {DataType::kFloat32}, 13), code::kFeatureUnsupported,
                 "one strided cuBLASLt call");
  for (auto precision : {kernels::MatrixPrecision::kFp16, kernels::MatrixPrecision::kBf16}) {
    NodeDef half = Def("MatMul", {&a, &b}, {DataType::kFloat32}, 13);
    half.matrix_precision = precision;  // an fp16 / bf16 model: half inputs, float32 results
    EXPECT_TRUE(Prepare(half).ok()) << kernels::Name(precision);
  }

  HostTensor x = F32({1, 2, 5, 5}, std::vector<float>(50, 1));
  HostTensor w = F32({3, 2, 3, 3}, std::vector<float>(54, 1));
  EXPECT_TRUE(Prepare(Def("Conv", {&x, &w}, {DataType::kFloat32}, 11)).ok());
  EXPECT_TRUE(gpu_.uploads().blocks.empty());  // float32, computed weights: nothing kept
  NodeDef nhwc = Def("FusedConv", {&x, &w}, {DataType::kFloat32}, 1);
  nhwc.domain = "com.kiln";
  nhwc.attrs["kiln_x_nhwc"] = int64_t{1};
  ExpectDeclined(nhwc, code::kFeatureUnsupported, "kiln_x_nhwc");
}

// A FusedMatMul whose A or Y a CPU bf16 model stores as bf16 (matmul_bf16_storage) is declined
// before any library is needed: its bytes are not the float32 cuBLASLt would read.
TEST_F(CudaKernelChoiceTest, MatrixProductsDeclineTheCpusBf16Storage) {
  HostTensor a = F32({2, 4}, std::vector<float>(8, 1)), b = F32({4, 5}, std::vector<float>(20, 1));
  for (const char* flag : {"kiln_a_bf16", "kiln_y_bf16"}) {
    NodeDef def = Def("FusedMatMul", {&a, &b}, {DataType::kFloat32}, 1);
    def.domain = "com.kiln";
    def.attrs[flag] = int64_t{1};
    ExpectDeclined(def, code::kFeatureUnsupported, flag);
  }
}

// An execution whose memory is the host's, counting the copies the kernels ask of it.
class CountingExecution final : public hal::Execution {
 public:
  void Copy(void* dst, const void* src, size_t bytes) override {
    ++copies;
    hal::Execution::Copy(dst, src, bytes);
  }
  int copies = 0;
};

TEST(HostSteeringContextTest, ReadsConstantsFromTheModelAndStagesComputedInputsOnce) {
  HostTensor x = F32({4}, {1, 2, 3, 4});
  HostTensor constant = I64({1}, {7}), computed = I64({2}, {5, 6});
  NodeDef def = Def("Slice", {&x, &constant, &computed, nullptr}, {DataType::kFloat32}, 13);
  HostTensor host_copy = I64({1}, {7});
  auto host_view = host_copy.view();
  def.constants = {nullptr, &host_view, nullptr, nullptr};
  CountingExecution exec;
  struct Run final : kernels::testing::TestContext {
    using TestContext::TestContext;
    hal::Execution* exec() const override { return e; }
    hal::Execution* e = nullptr;
  } run({&x, &constant, &computed, nullptr}, {DataType::kFloat32});
  run.e = &exec;
  HostSteeringContext steer(run, def);
  EXPECT_EQ(steer.input(0), run.input(0));                  // the data stays the run's
  EXPECT_EQ(steer.input(1)->data, host_copy.bytes.data());  // the model's host copy
  const kernels::TensorView* staged = steer.input(2);
  ASSERT_NE(staged, nullptr);
  EXPECT_NE(staged->data, computed.bytes.data());  // copied through the execution
  EXPECT_EQ(kernels::ReadInts(*staged), (std::vector<int64_t>{5, 6}));
  EXPECT_EQ(steer.input(2), staged);  // once per run
  EXPECT_EQ(exec.copies, 1);
  EXPECT_EQ(steer.input(3), nullptr);  // omitted
}

TEST_F(CudaKernelChoiceTest, ConstantIndicesAreCheckedAndHostOnlyFormsDeclined) {
  HostTensor x = F32({4, 6}, std::vector<float>(24, 1));
  HostTensor starts = I64({1}, {1}), ends = I64({1}, {3});
  NodeDef slice = Def("Slice", {&x, &starts, &ends}, {DataType::kFloat32}, 13);
  EXPECT_TRUE(Prepare(slice).ok());  // computed starts: read through the execution at run time

  HostTensor idx = I64({2}, {0, 4});
  NodeDef gather = Def("Gather", {&x, &idx}, {DataType::kFloat32}, 13);
  EXPECT_TRUE(Prepare(gather).ok());  // computed indices: checked by nobody at load
  auto iv = idx.view();
  gather.constants = {nullptr, &iv};
  ExpectDeclined(gather, code::kInvalidParam, "index 4 is out of range");

  HostTensor lo = F32({}, {0.0f});
  NodeDef clip = Def("Clip", {&x, &lo}, {DataType::kFloat32}, 13);
  ExpectDeclined(clip, code::kFeatureUnsupported, "constant bounds");
  NodeDef gelu = Def("Gelu", {&x}, {DataType::kFloat32}, 20);
  gelu.attrs["approximate"] = std::string("tanh");
  ExpectDeclined(gelu, code::kFeatureUnsupported, "exact form");
}

TEST_F(CudaKernelChoiceTest, KernelsThatOnlyLaunchAreReplayableOnesSteeredByComputedValuesNot) {
  HostTensor x = F32({1, 2, 4, 4}, std::vector<float>(32, 1));
  HostTensor starts = I64({1}, {1}), ends = I64({1}, {3}), axes = I64({1}, {3});
  EXPECT_TRUE(Replayable(Def("Relu", {&x}, {DataType::kFloat32}, 14)));
  EXPECT_TRUE(Replayable(Def("Add", {&x, &x}, {DataType::kFloat32}, 14)));
  EXPECT_TRUE(Replayable(Def("Transpose", {&x}, {DataType::kFloat32}, 13)));
  EXPECT_TRUE(Replayable(Def("Shape", {&x}, {DataType::kInt64}, 15)));  // values in launch args
  NodeDef slice = Def("Slice", {&x, &starts, &ends, &axes}, {DataType::kFloat32}, 13);
  EXPECT_FALSE(Replayable(slice));  // computed starts: copied to the host each run
  auto sv = starts.view(), ev = ends.view(), av = axes.view();
  slice.constants = {nullptr, &sv, &ev, &av};
  EXPECT_TRUE(Replayable(slice));
  HostTensor scales = F32({4}, {1, 1, 2, 2});
  NodeDef resize = Def("Resize", {&x, nullptr, &scales}, {DataType::kFloat32}, 13);
  EXPECT_FALSE(Replayable(resize));  // computed scales: tables planned and copied each run
  auto scv = scales.view();
  resize.constants = {nullptr, nullptr, &scv};
  EXPECT_TRUE(Replayable(resize));  // a slot keeps its tables per dims
}

TEST_F(CudaKernelChoiceTest, HalfModelsConvertConstantWeightsOnceAtLoad) {
  if (!CublasLt().ok() || !Cudnn().ok()) GTEST_SKIP() << "cuBLASLt or cuDNN is not installed";
  // Values that round differently in float16 and bfloat16, and a NaN.
  const std::vector<float> values = {
      1.0f, -2.5f, 1.0f / 3, 65504.0f, 1e-5f, 3.14159f, std::numeric_limits<float>::quiet_NaN(),
      0.1f};
  HostTensor a = F32({2, 4}, std::vector<float>(8, 1)), b = F32({4, 2}, values);
  auto bv = b.view();
  for (auto precision : {kernels::MatrixPrecision::kFp16, kernels::MatrixPrecision::kBf16}) {
    NodeDef def = Def("MatMul", {&a, &b}, {DataType::kFloat32}, 13);
    def.matrix_precision = precision;
    def.constants = {nullptr, &bv};
    def.device = &gpu_;
    auto kernel = kernels::KernelRegistry::Global().Create(kCudaBackend, def);
    ASSERT_TRUE(kernel.ok()) << kernel.status().message();
    ASSERT_EQ(gpu_.uploads().blocks.size(), 1u) << "B, once";
    const auto& [block, bytes] = *gpu_.uploads().blocks.begin();
    ASSERT_EQ(bytes, values.size() * 2);
    const auto* half = static_cast<const uint16_t*>(block);
    for (size_t i = 0; i < values.size(); ++i) {
      const uint16_t want = precision == kernels::MatrixPrecision::kBf16
                                ? kernels::FloatToBFloat16(values[i])
                                : FloatToHalf(values[i]);
      EXPECT_EQ(half[i], want) << kernels::Name(precision) << " value " << i;
    }
    kernel->reset();  // the kernel gives its copy back
    EXPECT_TRUE(gpu_.uploads().blocks.empty());
  }
  HostTensor x = F32({1, 2, 5, 5}, std::vector<float>(50, 1));
  HostTensor w = F32({3, 2, 3, 3}, std::vector<float>(54, 0.5f));
  auto wv = w.view();
  NodeDef conv = Def("Conv", {&x, &w}, {DataType::kFloat32}, 11);
  conv.matrix_precision = kernels::MatrixPrecision::kFp16;
  conv.constants = {nullptr, &wv};
  conv.device = &gpu_;
  auto kernel = kernels::KernelRegistry::Global().Create(kCudaBackend, conv);
  ASSERT_TRUE(kernel.ok()) << kernel.status().message();
  ASSERT_EQ(gpu_.uploads().blocks.size(), 1u);
  EXPECT_EQ(static_cast<const uint16_t*>(gpu_.uploads().blocks.begin()->first)[53], 0x3800);
}

}  // namespace
}  // namespace kiln::cuda
