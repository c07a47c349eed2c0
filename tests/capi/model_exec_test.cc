// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Contract tests of model execution (acl_mdl.h; ascendcl-reference.md §1.11, §8): results
// against the ONNX test data, synchronous and on a stream, dataset checks, model ids after
// unload and aclFinalize, device memory across executions, concurrent executions, dynamic batch
// gears and fully dynamic inputs.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "acl/acl.h"
#include "tests/capi/model_test_util.h"
#include "tests/capi/wait_helpers.h"

namespace {

using kiln::model_test::CompileOm;
using kiln::model_test::Contains;
using kiln::model_test::DeviceBuffer;
using kiln::model_test::FreeDeviceMemory;
using kiln::model_test::IoDatasets;
using kiln::model_test::kMnistInput;
using kiln::model_test::kMnistInputBytes;
using kiln::model_test::kMnistInputFloats;
using kiln::model_test::kMnistOutput;
using kiln::model_test::kMnistOutputBytes;
using kiln::model_test::kMnistOutputFloats;
using kiln::model_test::LoadedModel;
using kiln::model_test::LoadMnistCase;
using kiln::model_test::MatchesOnnx;
using kiln::model_test::MnistCase;
using kiln::model_test::MnistOm;
using kiln::model_test::ModelApiTest;
using kiln::model_test::PoolExhauster;
using kiln::model_test::ReadBytes;
using kiln::model_test::RecentErrMsg;
using kiln::model_test::WriteBatchableMnist;
using kiln::model_test::WriteGatherModel;

// mnist-8 made batch-agnostic, compiled with --input_shape=Input3:-1,1,28,28
// --dynamic_batch_size=1,2,4.
const std::string& GearOm() {
  static const std::string path =
      CompileOm("mnist_gears", WriteBatchableMnist(), "Input3:-1,1,28,28", "1,2,4");
  return path;
}

// The same with the batch left dynamic (no gears): the real dims come with each execution.
const std::string& DynamicOm() {
  static const std::string path =
      CompileOm("mnist_dynamic", WriteBatchableMnist(), "Input3:-1,1,28,28");
  return path;
}

std::vector<int64_t> DimsOf(const aclmdlIODims& d) {
  return std::vector<int64_t>(d.dims, d.dims + d.dimCount);
}

// The dims of a tensor desc (empty for none).
std::vector<int64_t> DimsOf(const aclTensorDesc* desc) {
  std::vector<int64_t> dims;
  if (desc == nullptr) return dims;
  for (size_t i = 0; i < aclGetTensorDescNumDims(desc); ++i) {
    int64_t d = 0;
    EXPECT_EQ(aclGetTensorDescDimV2(desc, i, &d), ACL_SUCCESS);
    dims.push_back(d);
  }
  return dims;
}

// Sets the real dims of input `index` of `dataset`.
void SetInputDims(aclmdlDataset* dataset, size_t index, const std::vector<int64_t>& dims) {
  aclTensorDesc* desc =
      aclCreateTensorDesc(ACL_FLOAT, static_cast<int>(dims.size()), dims.data(), ACL_FORMAT_NCHW);
  ASSERT_NE(desc, nullptr);
  EXPECT_EQ(aclmdlSetDatasetTensorDesc(dataset, desc, index), ACL_SUCCESS) << RecentErrMsg();
  aclDestroyTensorDesc(desc);
}

// Samples concatenated into one batch.
std::vector<float> Batch(const std::vector<const MnistCase*>& cases) {
  std::vector<float> out;
  for (const MnistCase* c : cases) out.insert(out.end(), c->input.begin(), c->input.end());
  return out;
}

// Sample `sample` of a batched output equals `single` (the same sample run at batch 1) up to
// float rounding (1e-4 of the sample's largest logit): a kernel that mixed samples or read the
// wrong rows is off by far more.
::testing::AssertionResult SameSample(const std::vector<float>& batched, size_t sample,
                                      const std::vector<float>& single) {
  float scale = 1.0f;
  for (float e : single) scale = std::max(scale, std::fabs(e));
  for (size_t k = 0; k < single.size(); ++k) {
    const float a = batched.at(sample * single.size() + k), e = single[k];
    if (!(std::fabs(a - e) <= 1e-4f * scale)) {
      return ::testing::AssertionFailure()
             << "sample " << sample << " element " << k << ": " << a << " at batch size "
             << batched.size() / single.size() << ", " << e << " at batch 1";
    }
  }
  return ::testing::AssertionSuccess();
}

// ---- Static model ------------------------------------------------------------------------

TEST_F(ModelApiTest, MnistOutputsEqualTheOnnxTestData) {
  KILN_REQUIRE_MNIST();
  LoadedModel m(MnistOm());
  IoDatasets io({kMnistInputBytes}, {kMnistOutputBytes});
  for (int i = 0; i < 3; ++i) {
    const MnistCase c = LoadMnistCase(i);
    io.input(0).Write(c.input);
    ASSERT_EQ(aclmdlExecute(m.id(), io.in(), io.out()), ACL_SUCCESS) << RecentErrMsg();
    EXPECT_TRUE(MatchesOnnx(io.output(0).ReadFloats(kMnistOutputFloats), c.expected, {1, 10}))
        << "test_data_set_" << i;
    EXPECT_EQ(DimsOf(aclmdlGetDatasetTensorDesc(io.out(), 0)), (std::vector<int64_t>{1, 10}));
  }
}

TEST_F(ModelApiTest, LoadFromMemKeepsItsOwnCopyOfTheModel) {
  KILN_REQUIRE_MNIST();
  std::vector<uint8_t> bytes = ReadBytes(MnistOm());
  ASSERT_FALSE(bytes.empty());
  uint32_t id = 0;
  ASSERT_EQ(aclmdlLoadFromMem(bytes.data(), bytes.size(), &id), ACL_SUCCESS) << RecentErrMsg();
  std::fill(bytes.begin(), bytes.end(), uint8_t{0xCD});
  bytes.clear();
  bytes.shrink_to_fit();
  const MnistCase c = LoadMnistCase(1);
  IoDatasets io({kMnistInputBytes}, {kMnistOutputBytes});
  io.input(0).Write(c.input);
  ASSERT_EQ(aclmdlExecute(id, io.in(), io.out()), ACL_SUCCESS) << RecentErrMsg();
  EXPECT_TRUE(MatchesOnnx(io.output(0).ReadFloats(kMnistOutputFloats), c.expected, {1, 10}));
  EXPECT_EQ(aclmdlUnload(id), ACL_SUCCESS);
}

TEST_F(ModelApiTest, ExecuteAsyncOnAStreamGivesTheSynchronousResult) {
  KILN_REQUIRE_MNIST();
  LoadedModel m(MnistOm());
  std::vector<std::vector<float>> sync(3);
  {
    IoDatasets io({kMnistInputBytes}, {kMnistOutputBytes});
    for (int i = 0; i < 3; ++i) {
      io.input(0).Write(LoadMnistCase(i).input);
      ASSERT_EQ(aclmdlExecute(m.id(), io.in(), io.out()), ACL_SUCCESS) << RecentErrMsg();
      sync[i] = io.output(0).ReadFloats(kMnistOutputFloats);
    }
  }
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  {
    // Three executions queued back to back, each with its own datasets, then one wait.
    std::vector<std::unique_ptr<IoDatasets>> ios;
    for (int i = 0; i < 3; ++i) {
      ios.push_back(std::make_unique<IoDatasets>(std::vector<size_t>{kMnistInputBytes},
                                                 std::vector<size_t>{kMnistOutputBytes}));
      ios.back()->input(0).Write(LoadMnistCase(i).input);
      ASSERT_EQ(aclmdlExecuteAsync(m.id(), ios.back()->in(), ios.back()->out(), stream),
                ACL_SUCCESS)
          << RecentErrMsg();
    }
    ASSERT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS) << RecentErrMsg();
    for (int i = 0; i < 3; ++i) {
      EXPECT_EQ(ios[i]->output(0).ReadFloats(kMnistOutputFloats), sync[i]) << i;
    }
    // The default stream (NULL) as well.
    ios[0]->input(0).Write(LoadMnistCase(2).input);
    ASSERT_EQ(aclmdlExecuteAsync(m.id(), ios[0]->in(), ios[0]->out(), nullptr), ACL_SUCCESS)
        << RecentErrMsg();
    ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS) << RecentErrMsg();
    EXPECT_EQ(ios[0]->output(0).ReadFloats(kMnistOutputFloats), sync[2]);
  }
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
}

TEST_F(ModelApiTest, ExecuteWithTheWrongNumberOfBuffersIsInvalidParam) {
  KILN_REQUIRE_MNIST();
  LoadedModel m(MnistOm());
  {
    IoDatasets io({}, {kMnistOutputBytes});
    EXPECT_EQ(aclmdlExecute(m.id(), io.in(), io.out()), ACL_ERROR_INVALID_PARAM);
    EXPECT_TRUE(Contains(RecentErrMsg(), "input"));
  }
  {
    IoDatasets io({kMnistInputBytes, kMnistInputBytes}, {kMnistOutputBytes});
    EXPECT_EQ(aclmdlExecute(m.id(), io.in(), io.out()), ACL_ERROR_INVALID_PARAM);
    EXPECT_TRUE(Contains(RecentErrMsg(), "input"));
  }
  {
    IoDatasets io({kMnistInputBytes}, {});
    EXPECT_EQ(aclmdlExecute(m.id(), io.in(), io.out()), ACL_ERROR_INVALID_PARAM);
    EXPECT_TRUE(Contains(RecentErrMsg(), "output"));
    EXPECT_EQ(aclmdlExecute(m.id(), nullptr, io.out()), ACL_ERROR_INVALID_PARAM);
    EXPECT_EQ(aclmdlExecute(m.id(), io.in(), nullptr), ACL_ERROR_INVALID_PARAM);
  }
}

TEST_F(ModelApiTest, ExecuteWithTooSmallBuffersIsInvalidParamNamingTheTensor) {
  KILN_REQUIRE_MNIST();
  LoadedModel m(MnistOm());
  {
    IoDatasets io({kMnistInputBytes - 1}, {kMnistOutputBytes});
    EXPECT_EQ(aclmdlExecute(m.id(), io.in(), io.out()), ACL_ERROR_INVALID_PARAM);
    const std::string msg = RecentErrMsg();
    EXPECT_TRUE(Contains(msg, kMnistInput));
    EXPECT_TRUE(Contains(msg, std::to_string(kMnistInputBytes)));
  }
  {
    IoDatasets io({kMnistInputBytes}, {kMnistOutputBytes - 4});
    io.input(0).Write(LoadMnistCase(0).input);
    EXPECT_EQ(aclmdlExecute(m.id(), io.in(), io.out()), ACL_ERROR_INVALID_PARAM);
    EXPECT_TRUE(Contains(RecentErrMsg(), kMnistOutput));
  }
}

// Buffers execute must not touch (docs/capi.md, "Buffers given to execute"): a wild address, a
// size claimed past the end of an aclrtMalloc allocation, freed device memory, a data buffer
// destroyed after it was added. Each is 100000 naming the buffer; the model stays usable.
TEST_F(ModelApiTest, ExecuteRefusesBuffersItMustNotTouch) {
  KILN_REQUIRE_MNIST();
  LoadedModel m(MnistOm());
  IoDatasets good({kMnistInputBytes}, {kMnistOutputBytes});
  good.input(0).Write(LoadMnistCase(0).input);
  auto run_with_input = [&](void* data, size_t size) {
    aclmdlDataset* in = aclmdlCreateDataset();
    aclDataBuffer* b = aclCreateDataBuffer(data, size);
    EXPECT_EQ(aclmdlAddDatasetBuffer(in, b), ACL_SUCCESS);
    const aclError ret = aclmdlExecute(m.id(), in, good.out());
    const std::string msg = RecentErrMsg();
    EXPECT_EQ(aclDestroyDataBuffer(b), ACL_SUCCESS);
    EXPECT_EQ(aclmdlDestroyDataset(in), ACL_SUCCESS);
    return std::make_pair(ret, msg);
  };
  for (uintptr_t wild : {uintptr_t{0x10}, uintptr_t{0x1234}}) {
    auto [ret, msg] = run_with_input(reinterpret_cast<void*>(wild), kMnistInputBytes);
    EXPECT_EQ(ret, ACL_ERROR_INVALID_PARAM);
    EXPECT_TRUE(Contains(msg, "is not memory of this process"));
  }
  void* small = nullptr;
  ASSERT_EQ(aclrtMalloc(&small, 64, ACL_MEM_MALLOC_NORMAL_ONLY), ACL_SUCCESS);
  {
    auto [ret, msg] = run_with_input(small, kMnistInputBytes);  // 3136 bytes claimed over 64
    EXPECT_EQ(ret, ACL_ERROR_INVALID_PARAM);
    EXPECT_TRUE(Contains(msg, "its allocation has"));
  }
  ASSERT_EQ(aclrtFree(small), ACL_SUCCESS);
  {
    auto [ret, msg] = run_with_input(small, 64);
    EXPECT_EQ(ret, ACL_ERROR_INVALID_PARAM);
    EXPECT_TRUE(Contains(msg, "freed"));
  }
  {  // destroyed after it was added: the dataset still holds the handle
    aclmdlDataset* in = aclmdlCreateDataset();
    aclDataBuffer* b = aclCreateDataBuffer(good.input(0).ptr(), kMnistInputBytes);
    ASSERT_EQ(aclmdlAddDatasetBuffer(in, b), ACL_SUCCESS);
    ASSERT_EQ(aclDestroyDataBuffer(b), ACL_SUCCESS);
    EXPECT_EQ(aclmdlExecute(m.id(), in, good.out()), ACL_ERROR_INVALID_PARAM);
    EXPECT_TRUE(Contains(RecentErrMsg(), "not a live aclDataBuffer"));
    EXPECT_EQ(aclmdlAddDatasetBuffer(in, b), ACL_ERROR_INVALID_PARAM);  // nor can it be added
    EXPECT_EQ(aclmdlDestroyDataset(in), ACL_SUCCESS);
  }
  // Host memory the application owns is taken on the CPU device, as the policy says.
  std::vector<float> host = LoadMnistCase(0).input;
  auto [ret, msg] = run_with_input(host.data(), kMnistInputBytes);
  EXPECT_EQ(ret, ACL_SUCCESS) << msg;
  ASSERT_EQ(aclmdlExecute(m.id(), good.in(), good.out()), ACL_SUCCESS) << RecentErrMsg();
}

TEST_F(ModelApiTest, ExecuteAsyncFailureIsReportedBySynchronizeAndTheStreamGoesOn) {
  KILN_REQUIRE_MNIST();
  LoadedModel m(MnistOm());
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  {
    IoDatasets bad({kMnistInputBytes - 4}, {kMnistOutputBytes});
    const aclError call = aclmdlExecuteAsync(m.id(), bad.in(), bad.out(), stream);
    const aclError sync = aclrtSynchronizeStream(stream);
    // Refused either at the call or when the stream runs it, naming the input.
    EXPECT_TRUE(call == ACL_ERROR_INVALID_PARAM || sync == ACL_ERROR_INVALID_PARAM)
        << "call " << call << ", synchronize " << sync;
    EXPECT_TRUE(Contains(RecentErrMsg(), kMnistInput));
  }
  const MnistCase c = LoadMnistCase(0);
  IoDatasets io({kMnistInputBytes}, {kMnistOutputBytes});
  io.input(0).Write(c.input);
  ASSERT_EQ(aclmdlExecuteAsync(m.id(), io.in(), io.out(), stream), ACL_SUCCESS) << RecentErrMsg();
  ASSERT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS) << RecentErrMsg();
  EXPECT_TRUE(MatchesOnnx(io.output(0).ReadFloats(kMnistOutputFloats), c.expected, {1, 10}));
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
}

// Runs the Gather model of WriteGatherModel on `indices`; returns the execution's code.
aclError RunGather(uint32_t id, const std::vector<int64_t>& indices, std::vector<float>* out) {
  IoDatasets io({2 * sizeof(int64_t)}, {6 * sizeof(float)});
  io.input(0).Write(indices.data(), indices.size() * sizeof(int64_t));
  const aclError ret = aclmdlExecute(id, io.in(), io.out());
  if (ret == ACL_SUCCESS) *out = io.output(0).ReadFloats(6);
  return ret;
}

TEST_F(ModelApiTest, AKernelFailureNamesTheNodeAndLeavesTheModelUsable) {
  const std::string om = CompileOm("gather", WriteGatherModel());
  ASSERT_FALSE(om.empty());
  LoadedModel m(om);
  std::vector<float> out;
  ASSERT_EQ(RunGather(m.id(), {4, 1}, &out), ACL_SUCCESS) << RecentErrMsg();
  EXPECT_EQ(out, (std::vector<float>{40, 41, 42, 10, 11, 12}));
  // Index 7 is outside the 5 rows of data.
  EXPECT_NE(RunGather(m.id(), {0, 7}, &out), ACL_SUCCESS);
  const std::string msg = RecentErrMsg();
  EXPECT_TRUE(Contains(msg, "pick_rows"));
  EXPECT_TRUE(Contains(msg, "7"));
  // Negative indices count from the end; the model still runs.
  ASSERT_EQ(RunGather(m.id(), {-1, 0}, &out), ACL_SUCCESS) << RecentErrMsg();
  EXPECT_EQ(out, (std::vector<float>{40, 41, 42, 0, 1, 2}));
}

TEST_F(ModelApiTest, AKernelFailureIsModelExecuteError) {
  const std::string om = CompileOm("gather", WriteGatherModel());
  ASSERT_FALSE(om.empty());
  LoadedModel m(om);
  std::vector<float> out;
  EXPECT_EQ(RunGather(m.id(), {0, 7}, &out), ACL_ERROR_RT_MODEL_EXECUTE) << RecentErrMsg();
}

TEST_F(ModelApiTest, ExecuteOrUnloadOfAModelThatIsNotLoadedIsInvalidModelId) {
  KILN_REQUIRE_MNIST();
  IoDatasets io({kMnistInputBytes}, {kMnistOutputBytes});
  EXPECT_EQ(aclmdlExecute(4242, io.in(), io.out()), ACL_ERROR_INVALID_MODEL_ID);
  EXPECT_TRUE(Contains(RecentErrMsg(), "4242"));
  uint32_t id = 0;
  ASSERT_EQ(aclmdlLoadFromFile(MnistOm().c_str(), &id), ACL_SUCCESS) << RecentErrMsg();
  io.input(0).Write(LoadMnistCase(0).input);
  ASSERT_EQ(aclmdlExecute(id, io.in(), io.out()), ACL_SUCCESS) << RecentErrMsg();
  EXPECT_EQ(aclmdlUnload(id), ACL_SUCCESS);
  EXPECT_EQ(aclmdlExecute(id, io.in(), io.out()), ACL_ERROR_INVALID_MODEL_ID);
  EXPECT_EQ(aclmdlExecuteAsync(id, io.in(), io.out(), nullptr), ACL_ERROR_INVALID_MODEL_ID);
  EXPECT_EQ(aclmdlUnload(id), ACL_ERROR_INVALID_MODEL_ID);
  EXPECT_EQ(aclmdlUnload(4242), ACL_ERROR_INVALID_MODEL_ID);
  // A new load gets a new id: the old one stays unknown.
  uint32_t again = 0;
  ASSERT_EQ(aclmdlLoadFromFile(MnistOm().c_str(), &again), ACL_SUCCESS);
  EXPECT_NE(again, id);
  EXPECT_EQ(aclmdlExecute(id, io.in(), io.out()), ACL_ERROR_INVALID_MODEL_ID);
  EXPECT_EQ(aclmdlUnload(again), ACL_SUCCESS);
}

// aclrtResetDevice releases the device's models with its memory: their ids are unknown after
// it (100011), and a device set again loads and runs them afresh.
TEST_F(ModelApiTest, ResetDeviceReleasesItsModels) {
  KILN_REQUIRE_MNIST();
  uint32_t id = 0;
  ASSERT_EQ(aclmdlLoadFromFile(MnistOm().c_str(), &id), ACL_SUCCESS) << RecentErrMsg();
  ASSERT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  IoDatasets io({kMnistInputBytes}, {kMnistOutputBytes});
  io.input(0).Write(LoadMnistCase(0).input);
  EXPECT_EQ(aclmdlExecute(id, io.in(), io.out()), ACL_ERROR_INVALID_MODEL_ID);
  EXPECT_EQ(aclmdlUnload(id), ACL_ERROR_INVALID_MODEL_ID);
  LoadedModel again(MnistOm());
  EXPECT_EQ(aclmdlExecute(again.id(), io.in(), io.out()), ACL_SUCCESS) << RecentErrMsg();
}

TEST_F(ModelApiTest, UnloadDuringAQueuedExecutionLetsItFinish) {
  KILN_REQUIRE_MNIST();
  kiln::testing::Gate gate;  // declared first: it outlives the stream that waits on it
  uint32_t id = 0;
  ASSERT_EQ(aclmdlLoadFromFile(MnistOm().c_str(), &id), ACL_SUCCESS) << RecentErrMsg();
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  const MnistCase c = LoadMnistCase(2);
  {
    IoDatasets io({kMnistInputBytes}, {kMnistOutputBytes});
    io.input(0).Write(c.input);
    // The stream is held by a host function, so the execution queued behind it cannot start.
    ASSERT_EQ(aclrtLaunchHostFunc(stream, kiln::testing::Gate::Pass, &gate), ACL_SUCCESS);
    ASSERT_TRUE(gate.WaitUntilEntered());
    ASSERT_EQ(aclmdlExecuteAsync(id, io.in(), io.out(), stream), ACL_SUCCESS) << RecentErrMsg();
    const auto unload =
        kiln::testing::CallWithin(kiln::testing::kWaitLimit / 2, [id] { return aclmdlUnload(id); });
    gate.Open();
    ASSERT_TRUE(unload.has_value()) << "aclmdlUnload did not return while an execution waited";
    EXPECT_EQ(*unload, ACL_SUCCESS);
    EXPECT_EQ(aclrtSynchronizeStreamWithTimeout(stream, kiln::testing::kSyncTimeoutMs), ACL_SUCCESS)
        << RecentErrMsg();
    EXPECT_TRUE(MatchesOnnx(io.output(0).ReadFloats(kMnistOutputFloats), c.expected, {1, 10}));
    EXPECT_EQ(aclmdlExecute(id, io.in(), io.out()), ACL_ERROR_INVALID_MODEL_ID);
  }
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
}

// A queued run uses the buffers its datasets had when aclmdlExecuteAsync was called: the
// application may change or destroy the datasets afterwards. The output descs the run writes
// go to its own output dataset only while that handle is live, never to a dataset created
// since (which the allocator may well have placed at the destroyed one's address).
TEST_F(ModelApiTest, AQueuedRunUsesTheDatasetsAsTheyWereWhenItWasQueued) {
  KILN_REQUIRE_MNIST();
  LoadedModel m(MnistOm());
  kiln::testing::Gate gate;  // declared first: it outlives the stream that waits on it
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  const MnistCase c = LoadMnistCase(1);
  {
    DeviceBuffer input(kMnistInputBytes), output(kMnistOutputBytes), other(kMnistOutputBytes);
    input.Write(c.input);
    aclmdlDataset* in = aclmdlCreateDataset();
    aclmdlDataset* out = aclmdlCreateDataset();
    ASSERT_EQ(aclmdlAddDatasetBuffer(in, input.buffer()), ACL_SUCCESS);
    ASSERT_EQ(aclmdlAddDatasetBuffer(out, output.buffer()), ACL_SUCCESS);
    ASSERT_EQ(aclrtLaunchHostFunc(stream, kiln::testing::Gate::Pass, &gate), ACL_SUCCESS);
    ASSERT_TRUE(gate.WaitUntilEntered());
    ASSERT_EQ(aclmdlExecuteAsync(m.id(), in, out, stream), ACL_SUCCESS) << RecentErrMsg();
    // While the run waits: its output data buffer is pointed elsewhere, its datasets destroyed,
    // and a new dataset made.
    ASSERT_EQ(aclUpdateDataBuffer(output.buffer(), other.ptr(), other.size()), ACL_SUCCESS);
    ASSERT_EQ(aclmdlDestroyDataset(in), ACL_SUCCESS);
    ASSERT_EQ(aclmdlDestroyDataset(out), ACL_SUCCESS);
    aclmdlDataset* later = aclmdlCreateDataset();
    ASSERT_EQ(aclmdlAddDatasetBuffer(later, other.buffer()), ACL_SUCCESS);
    gate.Open();
    ASSERT_EQ(aclrtSynchronizeStreamWithTimeout(stream, kiln::testing::kSyncTimeoutMs), ACL_SUCCESS)
        << RecentErrMsg();
    // The run wrote where the buffer pointed when it was queued.
    std::vector<float> got(kMnistOutputFloats);
    ASSERT_EQ(aclrtMemcpy(got.data(), kMnistOutputBytes, output.ptr(), kMnistOutputBytes,
                          ACL_MEMCPY_DEVICE_TO_HOST),
              ACL_SUCCESS);
    EXPECT_TRUE(MatchesOnnx(got, c.expected, {1, 10}));
    EXPECT_EQ(aclmdlGetDatasetTensorDesc(later, 0), nullptr)
        << "the run wrote its output desc into a dataset created after its own was destroyed";
    ASSERT_EQ(aclUpdateDataBuffer(output.buffer(), output.ptr(), output.size()), ACL_SUCCESS);
    EXPECT_EQ(aclmdlDestroyDataset(later), ACL_SUCCESS);
  }
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
}

TEST_F(ModelApiTest, ModelsExecutedOneAfterAnotherMayShareWorkMemory) {
  KILN_REQUIRE_MNIST();
  ASSERT_FALSE(GearOm().empty());
  size_t work_a = 0, weight_a = 0, work_b = 0, weight_b = 0;
  ASSERT_EQ(aclmdlQuerySize(MnistOm().c_str(), &work_a, &weight_a), ACL_SUCCESS);
  ASSERT_EQ(aclmdlQuerySize(GearOm().c_str(), &work_b, &weight_b), ACL_SUCCESS);
  DeviceBuffer work(std::max(work_a, work_b)), weights_a(weight_a), weights_b(weight_b);
  uint32_t a = 0, b = 0;
  ASSERT_EQ(aclmdlLoadFromFileWithMem(MnistOm().c_str(), &a, work.ptr(), work.size(),
                                      weights_a.ptr(), weight_a),
            ACL_SUCCESS)
      << RecentErrMsg();
  ASSERT_EQ(aclmdlLoadFromFileWithMem(GearOm().c_str(), &b, work.ptr(), work.size(),
                                      weights_b.ptr(), weight_b),
            ACL_SUCCESS)
      << RecentErrMsg();
  const MnistCase c[3] = {LoadMnistCase(0), LoadMnistCase(1), LoadMnistCase(2)};
  IoDatasets io_a({kMnistInputBytes}, {kMnistOutputBytes});
  IoDatasets io_b({4 * kMnistInputBytes, sizeof(int64_t)}, {4 * kMnistOutputBytes});
  for (int round = 0; round < 3; ++round) {
    const MnistCase& x = c[round];
    const MnistCase& y = c[(round + 1) % 3];
    io_a.input(0).Write(x.input);
    ASSERT_EQ(aclmdlExecute(a, io_a.in(), io_a.out()), ACL_SUCCESS) << RecentErrMsg();
    io_b.input(0).Write(Batch({&y, &y, &x, &y}));
    ASSERT_EQ(aclmdlSetDynamicBatchSize(b, io_b.in(), 1, 4), ACL_SUCCESS) << RecentErrMsg();
    ASSERT_EQ(aclmdlExecute(b, io_b.in(), io_b.out()), ACL_SUCCESS) << RecentErrMsg();
    EXPECT_TRUE(MatchesOnnx(io_a.output(0).ReadFloats(kMnistOutputFloats), x.expected, {1, 10}));
    const std::vector<float> out = io_b.output(0).ReadFloats(4 * kMnistOutputFloats);
    EXPECT_TRUE(
        MatchesOnnx(std::vector<float>(out.begin() + 20, out.begin() + 30), x.expected, {1, 10}));
    EXPECT_TRUE(MatchesOnnx(std::vector<float>(out.begin() + 30, out.end()), y.expected, {1, 10}));
  }
  EXPECT_EQ(aclmdlUnload(a), ACL_SUCCESS);
  EXPECT_EQ(aclmdlUnload(b), ACL_SUCCESS);
}

TEST_F(ModelApiTest, RepeatedExecutionsOfAStaticModelAllocateNoDeviceMemory) {
  KILN_REQUIRE_MNIST();
  LoadedModel m(MnistOm());
  const MnistCase c = LoadMnistCase(2);
  IoDatasets io({kMnistInputBytes}, {kMnistOutputBytes});
  io.input(0).Write(c.input);
  ASSERT_EQ(aclmdlExecute(m.id(), io.in(), io.out()), ACL_SUCCESS) << RecentErrMsg();
  const size_t free_after_first = FreeDeviceMemory();
  for (int i = 0; i < 20; ++i) {
    ASSERT_EQ(aclmdlExecute(m.id(), io.in(), io.out()), ACL_SUCCESS) << RecentErrMsg();
    EXPECT_EQ(FreeDeviceMemory(), free_after_first) << "after execution " << i + 2;
  }
  {
    // Not even a transient allocation: with the pool empty, executions still run.
    PoolExhauster exhaust;
    void* probe = nullptr;
    ASSERT_NE(aclrtMalloc(&probe, 1, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    for (int i = 0; i < 10; ++i) {
      ASSERT_EQ(aclmdlExecute(m.id(), io.in(), io.out()), ACL_SUCCESS) << RecentErrMsg();
    }
  }
  EXPECT_TRUE(MatchesOnnx(io.output(0).ReadFloats(kMnistOutputFloats), c.expected, {1, 10}));
}

TEST_F(ModelApiTest, ConcurrentExecutionsOfOneModelMatchSequentialRuns) {
  KILN_REQUIRE_MNIST();
  LoadedModel m(MnistOm());
  std::vector<std::vector<float>> inputs;
  for (int i = 0; i < 3; ++i) inputs.push_back(LoadMnistCase(i).input);
  std::vector<float> mixed(kMnistInputFloats);
  for (size_t k = 0; k < mixed.size(); ++k) mixed[k] = 0.5f * (inputs[0][k] + inputs[2][k]);
  inputs.push_back(mixed);

  std::vector<std::vector<float>> expected;
  {
    IoDatasets io({kMnistInputBytes}, {kMnistOutputBytes});
    for (const auto& in : inputs) {
      io.input(0).Write(in);
      ASSERT_EQ(aclmdlExecute(m.id(), io.in(), io.out()), ACL_SUCCESS) << RecentErrMsg();
      expected.push_back(io.output(0).ReadFloats(kMnistOutputFloats));
    }
  }

  aclrtContext ctx = nullptr;
  ASSERT_EQ(aclrtGetCurrentContext(&ctx), ACL_SUCCESS);
  constexpr int kThreads = 4;
  constexpr int kRuns = 80;
  std::atomic<int> failures{0}, mismatches{0}, done{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      if (aclrtSetCurrentContext(ctx) != ACL_SUCCESS) {
        ++failures;
        return;
      }
      IoDatasets io({kMnistInputBytes}, {kMnistOutputBytes});
      for (int r = 0; r < kRuns; ++r) {
        const size_t which = static_cast<size_t>(t + r) % inputs.size();
        io.input(0).Write(inputs[which]);
        if (aclmdlExecute(m.id(), io.in(), io.out()) != ACL_SUCCESS) {
          ++failures;
          continue;
        }
        if (io.output(0).ReadFloats(kMnistOutputFloats) != expected[which]) ++mismatches;
        ++done;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(mismatches.load(), 0);
  EXPECT_EQ(done.load(), kThreads * kRuns);
}

TEST(ModelApiFinalizeTest, FinalizeWithAModelStillLoadedReclaimsIt) {
  KILN_REQUIRE_MNIST();
  const std::string om = MnistOm();
  ASSERT_FALSE(om.empty());
  ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  uint32_t id = 0;
  ASSERT_EQ(aclmdlLoadFromFile(om.c_str(), &id), ACL_SUCCESS) << RecentErrMsg();
  uint32_t second = 0;
  ASSERT_EQ(aclmdlLoadFromFile(om.c_str(), &second), ACL_SUCCESS) << RecentErrMsg();
  // No unload, no device reset: aclFinalize reclaims both.
  EXPECT_EQ(aclFinalize(), ACL_SUCCESS) << RecentErrMsg();

  ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  {
    IoDatasets io({kMnistInputBytes}, {kMnistOutputBytes});
    EXPECT_EQ(aclmdlExecute(id, io.in(), io.out()), ACL_ERROR_INVALID_MODEL_ID);
    EXPECT_EQ(aclmdlUnload(second), ACL_ERROR_INVALID_MODEL_ID);
    // The new session loads and runs the model as usual.
    uint32_t fresh = 0;
    ASSERT_EQ(aclmdlLoadFromFile(om.c_str(), &fresh), ACL_SUCCESS) << RecentErrMsg();
    const MnistCase c = LoadMnistCase(0);
    io.input(0).Write(c.input);
    ASSERT_EQ(aclmdlExecute(fresh, io.in(), io.out()), ACL_SUCCESS) << RecentErrMsg();
    EXPECT_TRUE(MatchesOnnx(io.output(0).ReadFloats(kMnistOutputFloats), c.expected, {1, 10}));
  }
  // This time reset the device first, with the model still loaded.
  EXPECT_EQ(aclrtResetDevice(0), ACL_SUCCESS) << RecentErrMsg();
  EXPECT_EQ(aclFinalize(), ACL_SUCCESS) << RecentErrMsg();
}

// ---- Dynamic batch gears ---------------------------------------------------------------------

TEST_F(ModelApiTest, DynamicBatchModelDescribesItsGears) {
  KILN_REQUIRE_MNIST();
  ASSERT_FALSE(GearOm().empty());
  LoadedModel m(GearOm());
  aclmdlDesc* d = m.desc();
  aclmdlBatch batch;
  std::memset(&batch, 0xff, sizeof batch);
  ASSERT_EQ(aclmdlGetDynamicBatch(d, &batch), ACL_SUCCESS);
  ASSERT_EQ(batch.batchCount, 3u);
  EXPECT_EQ(batch.batch[0], 1u);
  EXPECT_EQ(batch.batch[1], 2u);
  EXPECT_EQ(batch.batch[2], 4u);

  ASSERT_EQ(aclmdlGetNumInputs(d), 2u);
  EXPECT_EQ(aclmdlGetNumOutputs(d), 1u);
  size_t sel = 99;
  ASSERT_EQ(aclmdlGetInputIndexByName(d, ACL_DYNAMIC_TENSOR_NAME, &sel), ACL_SUCCESS);
  EXPECT_EQ(sel, 1u);  // the extra input comes last
  EXPECT_STREQ(aclmdlGetInputNameByIndex(d, sel), ACL_DYNAMIC_TENSOR_NAME);
  EXPECT_GE(aclmdlGetInputSizeByIndex(d, sel), sizeof(uint64_t));
  // Sizes are the largest gear's.
  EXPECT_EQ(aclmdlGetInputSizeByIndex(d, 0), 4 * kMnistInputBytes);
  EXPECT_EQ(aclmdlGetOutputSizeByIndex(d, 0), 4 * kMnistOutputBytes);
  aclmdlIODims dims;
  ASSERT_EQ(aclmdlGetInputDims(d, 0, &dims), ACL_SUCCESS);
  EXPECT_STREQ(dims.name, kMnistInput);
  EXPECT_EQ(DimsOf(dims), (std::vector<int64_t>{-1, 1, 28, 28}));
  ASSERT_EQ(aclmdlGetOutputDims(d, 0, &dims), ACL_SUCCESS);
  EXPECT_EQ(DimsOf(dims), (std::vector<int64_t>{-1, 10}));
  // Before any gear is chosen the current output dims are the largest gear's.
  ASSERT_EQ(aclmdlGetCurOutputDims(d, 0, &dims), ACL_SUCCESS);
  EXPECT_EQ(DimsOf(dims), (std::vector<int64_t>{4, 10}));

  // A static model has no batch gears.
  LoadedModel fixed(MnistOm());
  ASSERT_EQ(aclmdlGetDynamicBatch(fixed.desc(), &batch), ACL_SUCCESS);
  EXPECT_EQ(batch.batchCount, 0u);
  EXPECT_EQ(aclmdlGetInputIndexByName(fixed.desc(), ACL_DYNAMIC_TENSOR_NAME, &sel),
            ACL_ERROR_INVALID_PARAM);
}

TEST_F(ModelApiTest, SelectedBatchSizeRunsAndMatchesBatchOneRuns) {
  KILN_REQUIRE_MNIST();
  ASSERT_FALSE(GearOm().empty());
  LoadedModel m(GearOm());
  size_t sel = 0;
  ASSERT_EQ(aclmdlGetInputIndexByName(m.desc(), ACL_DYNAMIC_TENSOR_NAME, &sel), ACL_SUCCESS);
  const size_t sel_bytes = aclmdlGetInputSizeByIndex(m.desc(), sel);
  const MnistCase c[3] = {LoadMnistCase(0), LoadMnistCase(1), LoadMnistCase(2)};
  IoDatasets io({4 * kMnistInputBytes, sel_bytes}, {4 * kMnistOutputBytes});
  aclmdlIODims dims;

  // Batch 1: each sample gives the ONNX test data's output.
  std::vector<std::vector<float>> single(3);
  for (int i = 0; i < 3; ++i) {
    io.input(0).Write(c[i].input);
    ASSERT_EQ(aclmdlSetDynamicBatchSize(m.id(), io.in(), sel, 1), ACL_SUCCESS) << RecentErrMsg();
    ASSERT_EQ(aclmdlExecute(m.id(), io.in(), io.out()), ACL_SUCCESS) << RecentErrMsg();
    single[i] = io.output(0).ReadFloats(kMnistOutputFloats);
    EXPECT_TRUE(MatchesOnnx(single[i], c[i].expected, {1, 10})) << "test_data_set_" << i;
    EXPECT_EQ(DimsOf(aclmdlGetDatasetTensorDesc(io.out(), 0)), (std::vector<int64_t>{1, 10}));
  }
  ASSERT_EQ(aclmdlGetCurOutputDims(m.desc(), 0, &dims), ACL_SUCCESS);
  EXPECT_EQ(DimsOf(dims), (std::vector<int64_t>{1, 10}));

  // Batch 2 and 4: every sample as at batch 1.
  for (const auto& samples : {std::vector<const MnistCase*>{&c[1], &c[0]},
                              std::vector<const MnistCase*>{&c[2], &c[0], &c[1], &c[2]}}) {
    const size_t n = samples.size();
    io.input(0).Write(Batch(samples));
    ASSERT_EQ(aclmdlSetDynamicBatchSize(m.id(), io.in(), sel, n), ACL_SUCCESS) << RecentErrMsg();
    ASSERT_EQ(aclmdlExecute(m.id(), io.in(), io.out()), ACL_SUCCESS) << RecentErrMsg();
    const std::vector<float> out = io.output(0).ReadFloats(n * kMnistOutputFloats);
    for (size_t s = 0; s < n; ++s) {
      const size_t which = static_cast<size_t>(samples[s] - c);
      EXPECT_TRUE(SameSample(out, s, single[which]));
    }
    EXPECT_EQ(DimsOf(aclmdlGetDatasetTensorDesc(io.out(), 0)),
              (std::vector<int64_t>{static_cast<int64_t>(n), 10}));
    ASSERT_EQ(aclmdlGetCurOutputDims(m.desc(), 0, &dims), ACL_SUCCESS);
    EXPECT_EQ(DimsOf(dims), (std::vector<int64_t>{static_cast<int64_t>(n), 10}));
  }
}

TEST_F(ModelApiTest, SetDynamicBatchSizeRefusesBadArguments) {
  KILN_REQUIRE_MNIST();
  ASSERT_FALSE(GearOm().empty());
  LoadedModel m(GearOm());
  size_t sel = 0;
  ASSERT_EQ(aclmdlGetInputIndexByName(m.desc(), ACL_DYNAMIC_TENSOR_NAME, &sel), ACL_SUCCESS);
  IoDatasets io({4 * kMnistInputBytes, sizeof(uint64_t)}, {4 * kMnistOutputBytes});
  EXPECT_EQ(aclmdlSetDynamicBatchSize(m.id(), io.in(), sel, 3),
            ACL_ERROR_GE_DYNAMIC_BATCH_SIZE_INVALID);
  EXPECT_EQ(aclmdlSetDynamicBatchSize(m.id(), io.in(), sel, 8),
            ACL_ERROR_GE_DYNAMIC_BATCH_SIZE_INVALID);
  EXPECT_EQ(aclmdlSetDynamicBatchSize(m.id(), io.in(), sel, 0), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclmdlSetDynamicBatchSize(m.id(), io.in(), 2, 2), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclmdlSetDynamicBatchSize(m.id(), nullptr, sel, 2), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclmdlSetDynamicBatchSize(m.id() + 1000, io.in(), sel, 2), ACL_ERROR_INVALID_MODEL_ID);
  {
    IoDatasets small({4 * kMnistInputBytes, sizeof(uint32_t)}, {4 * kMnistOutputBytes});
    EXPECT_EQ(aclmdlSetDynamicBatchSize(m.id(), small.in(), sel, 2),
              ACL_ERROR_GE_DYNAMIC_INPUT_LENGTH_INVALID);
  }
  {
    // A selector buffer without an address.
    aclmdlDataset* ds = aclmdlCreateDataset();
    aclDataBuffer* data = aclCreateDataBuffer(io.input(0).ptr(), io.input(0).size());
    aclDataBuffer* none = aclCreateDataBuffer(nullptr, 0);
    ASSERT_NE(none, nullptr);
    ASSERT_EQ(aclmdlAddDatasetBuffer(ds, data), ACL_SUCCESS);
    ASSERT_EQ(aclmdlAddDatasetBuffer(ds, none), ACL_SUCCESS);
    EXPECT_EQ(aclmdlSetDynamicBatchSize(m.id(), ds, sel, 2), ACL_ERROR_INVALID_PARAM);
    EXPECT_EQ(aclmdlDestroyDataset(ds), ACL_SUCCESS);
    EXPECT_EQ(aclDestroyDataBuffer(data), ACL_SUCCESS);
    EXPECT_EQ(aclDestroyDataBuffer(none), ACL_SUCCESS);
  }
  // A model compiled without gears.
  LoadedModel fixed(MnistOm());
  IoDatasets fixed_io({kMnistInputBytes, sizeof(uint64_t)}, {kMnistOutputBytes});
  EXPECT_EQ(aclmdlSetDynamicBatchSize(fixed.id(), fixed_io.in(), 1, 1),
            ACL_ERROR_MODEL_NOT_DYNAMIC);
}

TEST_F(ModelApiTest, ConcurrentExecutionsWithDifferentBatchSizesMatchSequentialRuns) {
  KILN_REQUIRE_MNIST();
  ASSERT_FALSE(GearOm().empty());
  LoadedModel m(GearOm());
  const MnistCase c[3] = {LoadMnistCase(0), LoadMnistCase(1), LoadMnistCase(2)};
  const std::vector<float> batch[3] = {Batch({&c[1]}), Batch({&c[2], &c[0]}),
                                       Batch({&c[0], &c[1], &c[2], &c[1]})};
  const size_t sizes[3] = {1, 2, 4};
  std::vector<std::vector<float>> expected(3);
  {
    IoDatasets io({4 * kMnistInputBytes, sizeof(int64_t)}, {4 * kMnistOutputBytes});
    for (int g = 0; g < 3; ++g) {
      io.input(0).Write(batch[g]);
      ASSERT_EQ(aclmdlSetDynamicBatchSize(m.id(), io.in(), 1, sizes[g]), ACL_SUCCESS);
      ASSERT_EQ(aclmdlExecute(m.id(), io.in(), io.out()), ACL_SUCCESS) << RecentErrMsg();
      expected[g] = io.output(0).ReadFloats(sizes[g] * kMnistOutputFloats);
    }
  }
  aclrtContext ctx = nullptr;
  ASSERT_EQ(aclrtGetCurrentContext(&ctx), ACL_SUCCESS);
  std::atomic<int> failures{0}, mismatches{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      if (aclrtSetCurrentContext(ctx) != ACL_SUCCESS) {
        ++failures;
        return;
      }
      IoDatasets io({4 * kMnistInputBytes, sizeof(int64_t)}, {4 * kMnistOutputBytes});
      for (int r = 0; r < 40; ++r) {
        const int g = (t + r) % 3;
        io.input(0).Write(batch[g]);
        if (aclmdlSetDynamicBatchSize(m.id(), io.in(), 1, sizes[g]) != ACL_SUCCESS ||
            aclmdlExecute(m.id(), io.in(), io.out()) != ACL_SUCCESS) {
          ++failures;
          continue;
        }
        if (io.output(0).ReadFloats(sizes[g] * kMnistOutputFloats) != expected[g]) ++mismatches;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(mismatches.load(), 0);
}

TEST_F(ModelApiTest, CurOutputDimsFollowTheSelectedBatchBeforeAnyExecution) {
  KILN_REQUIRE_MNIST();
  ASSERT_FALSE(GearOm().empty());
  LoadedModel m(GearOm());
  size_t sel = 0;
  ASSERT_EQ(aclmdlGetInputIndexByName(m.desc(), ACL_DYNAMIC_TENSOR_NAME, &sel), ACL_SUCCESS);
  IoDatasets io({4 * kMnistInputBytes, sizeof(uint64_t)}, {4 * kMnistOutputBytes});
  aclmdlIODims dims;
  ASSERT_EQ(aclmdlSetDynamicBatchSize(m.id(), io.in(), sel, 2), ACL_SUCCESS) << RecentErrMsg();
  ASSERT_EQ(aclmdlGetCurOutputDims(m.desc(), 0, &dims), ACL_SUCCESS);
  EXPECT_EQ(DimsOf(dims), (std::vector<int64_t>{2, 10}));
  ASSERT_EQ(aclmdlSetDynamicBatchSize(m.id(), io.in(), sel, 1), ACL_SUCCESS) << RecentErrMsg();
  ASSERT_EQ(aclmdlGetCurOutputDims(m.desc(), 0, &dims), ACL_SUCCESS);
  EXPECT_EQ(DimsOf(dims), (std::vector<int64_t>{1, 10}));
}

// ---- Fully dynamic input --------------------------------------------------------------------

TEST_F(ModelApiTest, DynamicInputRunsWithTheDimsOfTheDatasetDesc) {
  KILN_REQUIRE_MNIST();
  ASSERT_FALSE(DynamicOm().empty());
  LoadedModel m(DynamicOm());
  ASSERT_EQ(aclmdlGetNumInputs(m.desc()), 1u);  // no gear input
  aclmdlIODims dims;
  ASSERT_EQ(aclmdlGetInputDims(m.desc(), 0, &dims), ACL_SUCCESS);
  EXPECT_EQ(DimsOf(dims), (std::vector<int64_t>{-1, 1, 28, 28}));
  ASSERT_EQ(aclmdlGetOutputDims(m.desc(), 0, &dims), ACL_SUCCESS);
  EXPECT_EQ(DimsOf(dims), (std::vector<int64_t>{-1, 10}));

  const MnistCase c[3] = {LoadMnistCase(0), LoadMnistCase(1), LoadMnistCase(2)};
  IoDatasets io({3 * kMnistInputBytes}, {8 * kMnistOutputBytes});
  io.input(0).Write(Batch({&c[0], &c[1], &c[2]}));
  SetInputDims(io.in(), 0, {3, 1, 28, 28});
  ASSERT_EQ(aclmdlExecute(m.id(), io.in(), io.out()), ACL_SUCCESS) << RecentErrMsg();
  EXPECT_EQ(DimsOf(aclmdlGetDatasetTensorDesc(io.out(), 0)), (std::vector<int64_t>{3, 10}));
  const std::vector<float> out = io.output(0).ReadFloats(3 * kMnistOutputFloats);
  for (size_t s = 0; s < 3; ++s) {
    std::vector<float> one(out.begin() + static_cast<std::ptrdiff_t>(s * kMnistOutputFloats),
                           out.begin() + static_cast<std::ptrdiff_t>((s + 1) * kMnistOutputFloats));
    EXPECT_TRUE(MatchesOnnx(one, c[s].expected, {1, 10})) << "sample " << s;
  }

  // The same datasets at batch 1: the output desc follows.
  io.input(0).Write(c[2].input);
  SetInputDims(io.in(), 0, {1, 1, 28, 28});
  ASSERT_EQ(aclmdlExecute(m.id(), io.in(), io.out()), ACL_SUCCESS) << RecentErrMsg();
  EXPECT_EQ(DimsOf(aclmdlGetDatasetTensorDesc(io.out(), 0)), (std::vector<int64_t>{1, 10}));
  EXPECT_TRUE(MatchesOnnx(io.output(0).ReadFloats(kMnistOutputFloats), c[2].expected, {1, 10}));
}

TEST_F(ModelApiTest, DynamicInputWithoutItsDescIsInvalidParamSayingToSetIt) {
  KILN_REQUIRE_MNIST();
  ASSERT_FALSE(DynamicOm().empty());
  LoadedModel m(DynamicOm());
  IoDatasets io({2 * kMnistInputBytes}, {2 * kMnistOutputBytes});
  EXPECT_EQ(aclmdlExecute(m.id(), io.in(), io.out()), ACL_ERROR_INVALID_PARAM);
  std::string msg = RecentErrMsg();
  EXPECT_TRUE(Contains(msg, "aclmdlSetDatasetTensorDesc"));
  EXPECT_TRUE(Contains(msg, kMnistInput));
  // Dims that contradict the model's fixed dims.
  SetInputDims(io.in(), 0, {2, 1, 28, 29});
  EXPECT_EQ(aclmdlExecute(m.id(), io.in(), io.out()), ACL_ERROR_INVALID_PARAM);
  EXPECT_TRUE(Contains(RecentErrMsg(), kMnistInput));
  // More samples than the buffer holds.
  SetInputDims(io.in(), 0, {3, 1, 28, 28});
  EXPECT_EQ(aclmdlExecute(m.id(), io.in(), io.out()), ACL_ERROR_INVALID_PARAM);
  EXPECT_TRUE(Contains(RecentErrMsg(), kMnistInput));
  // An output buffer too small for the real output.
  IoDatasets small_out({2 * kMnistInputBytes}, {kMnistOutputBytes});
  SetInputDims(small_out.in(), 0, {2, 1, 28, 28});
  EXPECT_EQ(aclmdlExecute(m.id(), small_out.in(), small_out.out()), ACL_ERROR_INVALID_PARAM);
  EXPECT_TRUE(Contains(RecentErrMsg(), kMnistOutput));
}

}  // namespace

namespace {

using kiln::model_test::ScratchDir;

// x:[n,8] (dynamic, so its intermediates are allocated at run time), cond: bool.
// c = x*x; d = c + x; t = If(cond){(x + c) + k}{x - c} with k an initializer only the then
// branch reads; y = t + d. The branches read c and k by name from the main graph.
std::string WriteIfCaptureModel() {
  onnx::ModelProto model;
  model.set_ir_version(8);
  auto* opset = model.add_opset_import();
  opset->set_domain("");
  opset->set_version(17);
  onnx::GraphProto* g = model.mutable_graph();
  g->set_name("if_capture");
  auto node = [](onnx::GraphProto* graph, const char* op, std::vector<std::string> in,
                 const char* out) {
    onnx::NodeProto* n = graph->add_node();
    n->set_op_type(op);
    n->set_name(std::string(op) + "_" + out);
    for (auto& i : in) n->add_input(i);
    n->add_output(out);
    return n;
  };
  auto value = [](onnx::ValueInfoProto* v, const char* name, int type, bool dynamic_rows) {
    v->set_name(name);
    auto* t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(type);
    if (type == onnx::TensorProto::BOOL) return;  // scalar
    auto* rows = t->mutable_shape()->add_dim();
    if (dynamic_rows) rows->set_dim_param("n");
    t->mutable_shape()->add_dim()->set_dim_value(8);
  };
  onnx::TensorProto* k = g->add_initializer();
  k->set_name("k");
  k->set_data_type(onnx::TensorProto::FLOAT);
  k->add_float_data(2.0f);
  node(g, "Mul", {"x", "x"}, "c");
  node(g, "Add", {"c", "x"}, "d");
  onnx::NodeProto* branch = node(g, "If", {"cond"}, "t");
  for (const char* which : {"then_branch", "else_branch"}) {
    auto* attr = branch->add_attribute();
    attr->set_name(which);
    attr->set_type(onnx::AttributeProto::GRAPH);
    onnx::GraphProto* body = attr->mutable_g();
    body->set_name(which);
    if (std::string(which) == "then_branch") {
      node(body, "Add", {"x", "c"}, "s");
      node(body, "Add", {"s", "k"}, "o");
    } else {
      node(body, "Sub", {"x", "c"}, "o");
    }
    value(body->add_output(), "o", onnx::TensorProto::FLOAT, true);
  }
  node(g, "Add", {"t", "d"}, "y");
  value(g->add_input(), "x", onnx::TensorProto::FLOAT, true);
  value(g->add_input(), "cond", onnx::TensorProto::BOOL, false);
  value(g->add_output(), "y", onnx::TensorProto::FLOAT, true);
  std::string path = ScratchDir() + "/if_capture.onnx";
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  EXPECT_TRUE(model.SerializeToOstream(&out));
  return path;
}

TEST_F(ModelApiTest, IfBranchesReadMainGraphValuesAndConstantsByName) {
  const std::string om = CompileOm("if_capture", WriteIfCaptureModel());
  ASSERT_FALSE(om.empty());
  LoadedModel m(om);
  constexpr int kRows = 64;  // large enough that freed memory would be reused
  std::vector<float> x(kRows * 8);
  for (size_t i = 0; i < x.size(); ++i) x[i] = 0.01f * static_cast<float>(i % 97) - 0.3f;
  for (bool cond : {true, false}) {
    IoDatasets io({x.size() * sizeof(float), 1}, {x.size() * sizeof(float)});
    SetInputDims(io.in(), 0, {kRows, 8});
    io.input(0).Write(x);
    io.input(1).Write(&cond, 1);
    ASSERT_EQ(aclmdlExecute(m.id(), io.in(), io.out()), ACL_SUCCESS) << RecentErrMsg();
    std::vector<float> y = io.output(0).ReadFloats(x.size());
    for (size_t i = 0; i < x.size(); ++i) {
      const float c = x[i] * x[i], d = c + x[i];
      const float t = cond ? (x[i] + c) + 2.0f : x[i] - c;
      ASSERT_NEAR(y[i], t + d, 1e-6f) << "element " << i << ", cond " << cond;
    }
  }
}

}  // namespace

namespace {

// y = -x, x and y float [1,4]: a model whose output dataset can be its next run's input.
std::string WriteNegModel() {
  onnx::ModelProto model;
  model.set_ir_version(8);
  auto* opset = model.add_opset_import();
  opset->set_domain("");
  opset->set_version(13);
  onnx::GraphProto* g = model.mutable_graph();
  g->set_name("neg");
  onnx::NodeProto* n = g->add_node();
  n->set_op_type("Neg");
  n->set_name("negate");
  n->add_input("x");
  n->add_output("y");
  for (auto [v, name] : {std::pair{g->add_input(), "x"}, std::pair{g->add_output(), "y"}}) {
    v->set_name(name);
    auto* t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(onnx::TensorProto::FLOAT);
    t->mutable_shape()->add_dim()->set_dim_value(1);
    t->mutable_shape()->add_dim()->set_dim_value(4);
  }
  std::string path = ScratchDir() + "/neg.onnx";
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  EXPECT_TRUE(model.SerializeToOstream(&out));
  return path;
}

// One run's output dataset is the next run's input, both queued on a stream with no wait in
// between: the first run writes the dataset's descs (on the stream's worker) while the second
// call reads them (on this thread). TSan checks that the two never race; the values check the
// stream's order: out = -(-x) = x.
TEST_F(ModelApiTest, AnAsyncRunsOutputDatasetIsTheNextRunsInput) {
  const std::string om = CompileOm("neg", WriteNegModel());
  ASSERT_FALSE(om.empty());
  LoadedModel m(om);
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  {
    IoDatasets first({16}, {16}), second({16}, {16});
    aclmdlDataset* in = first.in();
    aclmdlDataset* mid = first.out();
    aclmdlDataset* out = second.out();
    for (int round = 0; round < 20; ++round) {
      const float v = static_cast<float>(round);
      first.input(0).Write(std::vector<float>{v, -v, 0.5f * v, 1.0f});
      ASSERT_EQ(aclmdlExecuteAsync(m.id(), in, mid, stream), ACL_SUCCESS) << RecentErrMsg();
      ASSERT_EQ(aclmdlExecuteAsync(m.id(), mid, out, stream), ACL_SUCCESS) << RecentErrMsg();
      ASSERT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS) << RecentErrMsg();
      EXPECT_EQ(second.output(0).ReadFloats(4), (std::vector<float>{v, -v, 0.5f * v, 1.0f}));
    }
  }
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
}

}  // namespace

namespace {

using kiln::model_test::CompileOm;
using kiln::model_test::IoDatasets;
using kiln::model_test::LoadedModel;
using kiln::model_test::ModelApiTest;
using kiln::model_test::RecentErrMsg;
using kiln::model_test::ScratchDir;

// x [n, 4] (n dynamic) -> Expand to the constant [2, 4] -> Relu -> y [2, 4]: y's dims are
// known at load though x's are not, and only n = 1 or 2 broadcasts.
std::string WriteFixedExpandOfDynamicInput() {
  onnx::ModelProto model;
  model.set_ir_version(8);
  model.add_opset_import()->set_version(17);
  onnx::GraphProto* g = model.mutable_graph();
  g->set_name("fixed_expand");
  onnx::TensorProto* shape = g->add_initializer();
  shape->set_name("shape");
  shape->set_data_type(onnx::TensorProto::INT64);
  shape->add_dims(2);
  shape->add_int64_data(2);
  shape->add_int64_data(4);
  onnx::NodeProto* expand = g->add_node();
  expand->set_op_type("Expand");
  expand->set_name("to_2x4");
  expand->add_input("x");
  expand->add_input("shape");
  expand->add_output("r");
  onnx::NodeProto* relu = g->add_node();
  relu->set_op_type("Relu");
  relu->add_input("r");
  relu->add_output("y");
  auto* x = g->add_input();
  x->set_name("x");
  auto* xt = x->mutable_type()->mutable_tensor_type();
  xt->set_elem_type(onnx::TensorProto::FLOAT);
  xt->mutable_shape()->add_dim()->set_dim_param("n");
  xt->mutable_shape()->add_dim()->set_dim_value(4);
  auto* y = g->add_output();
  y->set_name("y");
  y->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  std::string path = ScratchDir() + "/fixed_expand.onnx";
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  EXPECT_TRUE(model.SerializeToOstream(&out));
  return path;
}

// A node whose output dims the plan fixed still checks the inputs a run brings: the executor
// runs its shape function when an input's dims are known only at run time.
TEST_F(ModelApiTest, AFixedOutputOfADynamicInputIsCheckedPerRun) {
  const std::string om = CompileOm("fixed_expand", WriteFixedExpandOfDynamicInput());
  ASSERT_FALSE(om.empty());
  LoadedModel m(om);
  IoDatasets io({3 * 4 * sizeof(float)}, {2 * 4 * sizeof(float)});
  io.input(0).Write(std::vector<float>{-1, 2, -3, 4, 5, -6, 7, -8, 9, 10, 11, 12});
  SetInputDims(io.in(), 0, {3, 4});  // [3, 4] does not broadcast to [2, 4]
  EXPECT_EQ(aclmdlExecute(m.id(), io.in(), io.out()), ACL_ERROR_RT_MODEL_EXECUTE);
  EXPECT_NE(std::string(RecentErrMsg()).find("to_2x4"), std::string::npos) << RecentErrMsg();
  SetInputDims(io.in(), 0, {2, 4});  // the model stays usable, and a fitting run computes
  ASSERT_EQ(aclmdlExecute(m.id(), io.in(), io.out()), ACL_SUCCESS) << RecentErrMsg();
  EXPECT_EQ(io.output(0).ReadFloats(8), (std::vector<float>{0, 2, 0, 4, 5, 0, 7, 0}));
}

// x[6] → NonZero → [1, n]: an output whose dims only the run decides.
std::string WriteNonZeroModel() {
  onnx::ModelProto model;
  model.set_ir_version(8);
  model.set_producer_name("kiln model tests");
  auto* opset = model.add_opset_import();
  opset->set_domain("");
  opset->set_version(13);
  onnx::GraphProto* g = model.mutable_graph();
  g->set_name("nonzero");
  onnx::NodeProto* node = g->add_node();
  node->set_op_type("NonZero");
  node->set_name("where");
  node->add_input("x");
  node->add_output("idx");
  auto* x = g->add_input();
  x->set_name("x");
  x->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  x->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(6);
  auto* y = g->add_output();
  y->set_name("idx");
  y->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::INT64);
  std::string path = kiln::model_test::ScratchDir() + "/nonzero.onnx";
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  model.SerializeToOstream(&out);
  return path;
}

TEST_F(ModelApiTest, ExecuteGivesAnOutputWithoutABufferMemoryTheCallerFrees) {
  const std::string om = CompileOm("nonzero", WriteNonZeroModel());
  ASSERT_FALSE(om.empty());
  uint32_t id = 0;
  ASSERT_EQ(aclmdlLoadFromFile(om.c_str(), &id), ACL_SUCCESS) << RecentErrMsg();
  const std::vector<float> x = {0, 3, 0, -1, 0, 2};
  void* in = nullptr;
  ASSERT_EQ(aclrtMalloc(&in, 24, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  ASSERT_EQ(aclrtMemcpy(in, 24, x.data(), 24, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
  aclmdlDataset* ins = aclmdlCreateDataset();
  aclmdlDataset* outs = aclmdlCreateDataset();
  ASSERT_EQ(aclmdlAddDatasetBuffer(ins, aclCreateDataBuffer(in, 24)), ACL_SUCCESS);
  aclDataBuffer* none = aclCreateDataBuffer(nullptr, 0);  // CANN: the runtime allocates it
  ASSERT_EQ(aclmdlAddDatasetBuffer(outs, none), ACL_SUCCESS);
  // Asynchronous execution needs its buffers (CANN allocates only in aclmdlExecute).
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  ASSERT_EQ(aclmdlExecuteAsync(id, ins, outs, stream), ACL_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeStream(stream), ACL_ERROR_INVALID_PARAM);
  EXPECT_TRUE(Contains(RecentErrMsg(), "output 'idx' needs 24 bytes"));
  ASSERT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
  ASSERT_EQ(aclmdlExecute(id, ins, outs), ACL_SUCCESS) << RecentErrMsg();
  void* got = aclGetDataBufferAddr(none);
  ASSERT_NE(got, nullptr);
  EXPECT_EQ(aclGetDataBufferSizeV2(none), 24u);
  EXPECT_EQ(DimsOf(aclmdlGetDatasetTensorDesc(outs, 0)), (std::vector<int64_t>{1, 3}));
  std::vector<int64_t> idx(3);
  ASSERT_EQ(aclrtMemcpy(idx.data(), 24, got, 24, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
  EXPECT_EQ(idx, (std::vector<int64_t>{1, 3, 5}));
  // The application owns it: aclrtFree takes it, and the buffer is reset as CANN says to.
  EXPECT_EQ(aclrtFree(got), ACL_SUCCESS);
  ASSERT_EQ(aclUpdateDataBuffer(none, nullptr, 0), ACL_SUCCESS);
  aclDestroyDataBuffer(aclmdlGetDatasetBuffer(ins, 0));
  aclDestroyDataBuffer(none);
  aclmdlDestroyDataset(ins);
  aclmdlDestroyDataset(outs);
  aclrtFree(in);
  EXPECT_EQ(aclmdlUnload(id), ACL_SUCCESS);
}

}  // namespace
