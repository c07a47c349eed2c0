// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The runtime's device-memory paths on a device the host cannot touch (guarded_memory.h): what
// a GPU needs of the runtime, proved on the CPU. Every block of the guarded device is PROT_NONE
// outside its own copies and its kernels' runs, so any host memcpy, memset or read of device
// memory elsewhere (the loader's weights, the C API's copies and fills, the executor's output
// copies, a gear value written into a device buffer) crashes the test instead of passing.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

#include "acl/acl.h"
#include "acl/acl_prof.h"
#include "tests/capi/model_test_util.h"
#include "tests/hal/guarded_memory.h"
#include "tests/hal/null_driver.h"

namespace kiln::hal::testing {
namespace {

using model_test::IoDatasets;
using model_test::LoadedModel;
using model_test::MnistCase;
using model_test::RecentErrMsg;

class GuardedDeviceTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    // Before the runtime lists devices: the guarded device takes physical id 0, the CPU id 1.
    RegisterDriver(CreateGuardedDriver());
  }
  void SetUp() override {
    ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS) << RecentErrMsg();
    ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS) << RecentErrMsg();
  }
  void TearDown() override {
    EXPECT_EQ(aclrtResetDevice(0), ACL_SUCCESS) << RecentErrMsg();
    EXPECT_EQ(aclFinalize(), ACL_SUCCESS) << RecentErrMsg();
  }
};

using GuardedDeviceDeathTest = GuardedDeviceTest;

TEST_F(GuardedDeviceDeathTest, TheHostCannotTouchItsMemory) {
  // The guard the other cases rely on: a plain host write into device memory crashes.
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  void* p = nullptr;
  ASSERT_EQ(aclrtMalloc(&p, 4096, ACL_MEM_MALLOC_NORMAL_ONLY), ACL_SUCCESS) << RecentErrMsg();
  EXPECT_DEATH(std::memset(p, 1, 16), "");
  EXPECT_EQ(aclrtFree(p), ACL_SUCCESS);
}

TEST_F(GuardedDeviceTest, MemcpyAndMemsetReachItsMemoryThroughTheDevice) {
  constexpr size_t kBytes = 1 << 16;
  void *a = nullptr, *b = nullptr;
  ASSERT_EQ(aclrtMalloc(&a, kBytes, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS) << RecentErrMsg();
  ASSERT_EQ(aclrtMalloc(&b, kBytes, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS) << RecentErrMsg();
  std::vector<unsigned char> host(kBytes), back(kBytes, 0);
  for (size_t i = 0; i < kBytes; ++i) host[i] = static_cast<unsigned char>(i * 13 + 1);
  ASSERT_EQ(aclrtMemcpy(a, kBytes, host.data(), kBytes, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
  ASSERT_EQ(aclrtMemcpy(b, kBytes, a, kBytes, ACL_MEMCPY_DEVICE_TO_DEVICE), ACL_SUCCESS);
  ASSERT_EQ(aclrtMemcpy(back.data(), kBytes, b, kBytes, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
  EXPECT_EQ(back, host);

  ASSERT_EQ(aclrtMemset(b, kBytes, 0x7f, 100), ACL_SUCCESS) << RecentErrMsg();
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  ASSERT_EQ(aclrtMemsetAsync(static_cast<char*>(b) + 100, 100, 0x11, 100, stream), ACL_SUCCESS);
  ASSERT_EQ(aclrtMemcpyAsync(back.data(), kBytes, b, kBytes, ACL_MEMCPY_DEVICE_TO_HOST, stream),
            ACL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS) << RecentErrMsg();
  EXPECT_EQ(back[0], 0x7f);
  EXPECT_EQ(back[99], 0x7f);
  EXPECT_EQ(back[100], 0x11);
  EXPECT_EQ(back[199], 0x11);
  EXPECT_EQ(back[200], host[200]);

  // 2-D: 8 rows of 16 bytes out of a pitch of 64.
  ASSERT_EQ(aclrtMemcpy2d(back.data(), 16, a, 64, 16, 8, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS)
      << RecentErrMsg();
  for (size_t row = 0; row < 8; ++row) {
    EXPECT_EQ(std::memcmp(back.data() + row * 16, host.data() + row * 64, 16), 0) << row;
  }
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
  EXPECT_EQ(aclrtFree(a), ACL_SUCCESS);
  EXPECT_EQ(aclrtFree(b), ACL_SUCCESS);
}

// mnist-8's three test data sets through `id`'s model and `io`; each must give ONNX's output.
void ExpectMnistCases(uint32_t id, IoDatasets& io) {
  for (int set = 0; set < 3; ++set) {
    MnistCase c = model_test::LoadMnistCase(set);
    io.input(0).Write(c.input);
    ASSERT_EQ(aclmdlExecute(id, io.in(), io.out()), ACL_SUCCESS) << RecentErrMsg();
    std::vector<float> out = io.output(0).ReadFloats(model_test::kMnistOutputFloats);
    EXPECT_TRUE(model_test::MatchesOnnx(out, c.expected, {1, 10})) << "data set " << set;
  }
}

TEST_F(GuardedDeviceTest, RunsAModelLoadedFromAFile) {
  KILN_REQUIRE_MNIST();
  LoadedModel m(model_test::MnistOm());
  IoDatasets io({model_test::kMnistInputBytes}, {model_test::kMnistOutputBytes});
  ExpectMnistCases(m.id(), io);
}

TEST_F(GuardedDeviceTest, RunsAModelLoadedFromMemoryAndWithTheCallersMemory) {
  KILN_REQUIRE_MNIST();
  std::ifstream in(model_test::MnistOm(), std::ios::binary);
  std::vector<char> om((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_FALSE(om.empty());
  uint32_t id = 0;
  ASSERT_EQ(aclmdlLoadFromMem(om.data(), om.size(), &id), ACL_SUCCESS) << RecentErrMsg();
  IoDatasets io({model_test::kMnistInputBytes}, {model_test::kMnistOutputBytes});
  ExpectMnistCases(id, io);
  EXPECT_EQ(aclmdlUnload(id), ACL_SUCCESS);

  size_t work = 0, weight = 0;
  ASSERT_EQ(aclmdlQuerySizeFromMem(om.data(), om.size(), &work, &weight), ACL_SUCCESS);
  void *work_mem = nullptr, *weight_mem = nullptr;
  ASSERT_EQ(aclrtMalloc(&work_mem, std::max<size_t>(work, 1), ACL_MEM_MALLOC_HUGE_FIRST),
            ACL_SUCCESS);
  ASSERT_EQ(aclrtMalloc(&weight_mem, std::max<size_t>(weight, 1), ACL_MEM_MALLOC_HUGE_FIRST),
            ACL_SUCCESS);
  ASSERT_EQ(aclmdlLoadFromMemWithMem(om.data(), om.size(), &id, work_mem, work, weight_mem, weight),
            ACL_SUCCESS)
      << RecentErrMsg();
  ExpectMnistCases(id, io);
  EXPECT_EQ(aclmdlUnload(id), ACL_SUCCESS);
  EXPECT_EQ(aclrtFree(work_mem), ACL_SUCCESS);
  EXPECT_EQ(aclrtFree(weight_mem), ACL_SUCCESS);
}

TEST_F(GuardedDeviceTest, RunsTheGearTheApplicationWroteIntoADeviceBuffer) {
  KILN_REQUIRE_MNIST();
  const std::string om = model_test::CompileOm(
      "mnist_gears_guarded", model_test::WriteBatchableMnist(), "Input3:-1,1,28,28", "1,2,4");
  ASSERT_FALSE(om.empty());
  LoadedModel m(om);
  size_t sel = 0;
  ASSERT_EQ(aclmdlGetInputIndexByName(m.desc(), ACL_DYNAMIC_TENSOR_NAME, &sel), ACL_SUCCESS);
  IoDatasets io({4 * model_test::kMnistInputBytes, aclmdlGetInputSizeByIndex(m.desc(), sel)},
                {4 * model_test::kMnistOutputBytes});
  const MnistCase c0 = model_test::LoadMnistCase(0), c2 = model_test::LoadMnistCase(2);
  std::vector<float> batch = c2.input;
  batch.insert(batch.end(), c0.input.begin(), c0.input.end());
  io.input(0).Write(batch);
  ASSERT_EQ(aclmdlSetDynamicBatchSize(m.id(), io.in(), sel, 2), ACL_SUCCESS) << RecentErrMsg();
  ASSERT_EQ(aclmdlExecute(m.id(), io.in(), io.out()), ACL_SUCCESS) << RecentErrMsg();
  std::vector<float> out = io.output(0).ReadFloats(2 * model_test::kMnistOutputFloats);
  std::vector<float> first(out.begin(), out.begin() + 10), second(out.begin() + 10, out.end());
  EXPECT_TRUE(model_test::MatchesOnnx(first, c2.expected, {1, 10}));
  EXPECT_TRUE(model_test::MatchesOnnx(second, c0.expected, {1, 10}));
}

TEST_F(GuardedDeviceTest, RunsADynamicShapeWithTensorsBoundAtRunTimeInDeviceMemory) {
  KILN_REQUIRE_MNIST();
  const std::string om = model_test::CompileOm(
      "mnist_dynamic_guarded", model_test::WriteBatchableMnist(), "Input3:-1,1,28,28");
  ASSERT_FALSE(om.empty());
  LoadedModel m(om);
  const MnistCase c1 = model_test::LoadMnistCase(1), c2 = model_test::LoadMnistCase(2);
  IoDatasets io({3 * model_test::kMnistInputBytes}, {3 * model_test::kMnistOutputBytes});
  std::vector<float> batch = c1.input;
  batch.insert(batch.end(), c2.input.begin(), c2.input.end());
  batch.insert(batch.end(), c1.input.begin(), c1.input.end());
  io.input(0).Write(batch);
  const int64_t dims[4] = {3, 1, 28, 28};
  aclTensorDesc* desc = aclCreateTensorDesc(ACL_FLOAT, 4, dims, ACL_FORMAT_NCHW);
  ASSERT_EQ(aclmdlSetDatasetTensorDesc(io.in(), desc, 0), ACL_SUCCESS) << RecentErrMsg();
  aclDestroyTensorDesc(desc);
  ASSERT_EQ(aclmdlExecute(m.id(), io.in(), io.out()), ACL_SUCCESS) << RecentErrMsg();
  std::vector<float> out = io.output(0).ReadFloats(3 * model_test::kMnistOutputFloats);
  const std::vector<float>* expected[3] = {&c1.expected, &c2.expected, &c1.expected};
  for (size_t s = 0; s < 3; ++s) {
    std::vector<float> one(out.begin() + static_cast<std::ptrdiff_t>(s * 10),
                           out.begin() + static_cast<std::ptrdiff_t>(s * 10 + 10));
    EXPECT_TRUE(model_test::MatchesOnnx(one, *expected[s], {1, 10})) << "sample " << s;
  }
}

// Starts the data dump of every node's outputs of the models named "mnist" into `dir` (emptied).
void StartMnistDump(const std::filesystem::path& dir) {
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::filesystem::path cfg = dir / "dump.json";
  std::ofstream(cfg) << R"({"dump": {"dump_path": ")" << dir.string()
                     << R"(", "dump_list": [{"model_name": "mnist"}], "dump_mode": "output"}})";
  ASSERT_EQ(aclmdlInitDump(), ACL_SUCCESS) << RecentErrMsg();
  ASSERT_EQ(aclmdlSetDump(cfg.c_str()), ACL_SUCCESS) << RecentErrMsg();
}

TEST_F(GuardedDeviceTest, TheDataDumpReadsTensorsThroughTheDevice) {
  KILN_REQUIRE_MNIST();
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(model_test::ScratchDir()) / "guarded_dump";
  ASSERT_NO_FATAL_FAILURE(StartMnistDump(dir));
  std::vector<float> out;
  {
    LoadedModel m(model_test::MnistOm());
    IoDatasets io({model_test::kMnistInputBytes}, {model_test::kMnistOutputBytes});
    io.input(0).Write(model_test::LoadMnistCase(1).input);
    ASSERT_EQ(aclmdlExecute(m.id(), io.in(), io.out()), ACL_SUCCESS) << RecentErrMsg();
    out = io.output(0).ReadFloats(model_test::kMnistOutputFloats);
  }
  ASSERT_EQ(aclmdlFinalizeDump(), ACL_SUCCESS) << RecentErrMsg();
  // The last node's output file holds the model's output (its .npy data ends the file).
  int npy = 0;
  bool found = false;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.path().extension() != ".npy") continue;
    ++npy;
    std::vector<uint8_t> bytes = model_test::ReadBytes(e.path().string());
    if (bytes.size() < sizeof(float) * out.size()) continue;
    found |= std::memcmp(bytes.data() + bytes.size() - sizeof(float) * out.size(), out.data(),
                         sizeof(float) * out.size()) == 0;
  }
  EXPECT_GT(npy, 1);
  EXPECT_TRUE(found) << "no dumped tensor holds the model's output";
}

// Record and replay (hal::Execution::BeginRecording, a CUDA graph on a GPU): the guarded
// device's recordings keep each kernel call with the addresses it was bound to and make it
// again at each launch, so a replay that the executor ran on a stale binding, or one whose
// kernels read host state, gives wrong outputs here.
struct RecordCounts {
  int64_t attempts, recordings, replays;
  static RecordCounts Now() {
    return {Counters().recording_attempts, Counters().recordings, Counters().replays};
  }
  RecordCounts Since(const RecordCounts& start) const {
    return {attempts - start.attempts, recordings - start.recordings, replays - start.replays};
  }
};

TEST_F(GuardedDeviceTest, RepeatedRunsAreRecordedOnceThenReplayedWhileTheirBuffersStay) {
  KILN_REQUIRE_MNIST();
  LoadedModel m(model_test::MnistOm());
  IoDatasets io({model_test::kMnistInputBytes}, {model_test::kMnistOutputBytes});
  const RecordCounts start = RecordCounts::Now();
  ExpectMnistCases(m.id(), io);  // plain, recorded, replayed
  ExpectMnistCases(m.id(), io);  // replayed three times, each with other input values
  RecordCounts n = RecordCounts::Now().Since(start);
  EXPECT_EQ(n.recordings, 1);
  EXPECT_EQ(n.replays, 4);

  // The same input buffer into another output buffer: the recording of the first binding no
  // longer fits; the new binding runs plainly, is recorded at its second run, then replayed.
  IoDatasets other({model_test::kMnistInputBytes}, {model_test::kMnistOutputBytes});
  for (int set = 0; set < 3; ++set) {
    MnistCase c = model_test::LoadMnistCase(set);
    io.input(0).Write(c.input);
    ASSERT_EQ(aclmdlExecute(m.id(), io.in(), other.out()), ACL_SUCCESS) << RecentErrMsg();
    std::vector<float> out = other.output(0).ReadFloats(model_test::kMnistOutputFloats);
    EXPECT_TRUE(model_test::MatchesOnnx(out, c.expected, {1, 10})) << "data set " << set;
  }
  n = RecordCounts::Now().Since(start);
  EXPECT_EQ(n.recordings, 2);
  EXPECT_EQ(n.replays, 5);
  // Another input buffer too.
  ExpectMnistCases(m.id(), other);
  n = RecordCounts::Now().Since(start);
  EXPECT_EQ(n.recordings, 3);
  EXPECT_EQ(n.replays, 6);
}

TEST_F(GuardedDeviceTest, RecordingsTheDeviceDiscardsOrDeclinesLeaveRunsPlainAndRight) {
  KILN_REQUIRE_MNIST();
  LoadedModel m(model_test::MnistOm());
  IoDatasets io({model_test::kMnistInputBytes}, {model_test::kMnistOutputBytes});
  RecordCounts start = RecordCounts::Now();
  Counters().keep = false;
  ExpectMnistCases(m.id(), io);
  ExpectMnistCases(m.id(), io);
  Counters().keep = true;
  RecordCounts n = RecordCounts::Now().Since(start);
  EXPECT_EQ(n.attempts, 1);  // the model's one gear is not recorded again
  EXPECT_EQ(n.recordings, 0);
  EXPECT_EQ(n.replays, 0);

  LoadedModel declined(model_test::MnistOm());
  start = RecordCounts::Now();
  Counters().record = false;
  ExpectMnistCases(declined.id(), io);
  Counters().record = true;
  n = RecordCounts::Now().Since(start);
  EXPECT_EQ(n.recordings, 0);
  EXPECT_EQ(n.replays, 0);
}

TEST_F(GuardedDeviceTest, RunsWithDimsBoundAtRunTimeOrObservedAreNeverRecorded) {
  KILN_REQUIRE_MNIST();
  const std::string om = model_test::CompileOm(
      "mnist_dynamic_replay", model_test::WriteBatchableMnist(), "Input3:-1,1,28,28");
  ASSERT_FALSE(om.empty());
  const RecordCounts start = RecordCounts::Now();
  {
    LoadedModel m(om);
    IoDatasets io({model_test::kMnistInputBytes}, {model_test::kMnistOutputBytes});
    const int64_t dims[4] = {1, 1, 28, 28};
    aclTensorDesc* desc = aclCreateTensorDesc(ACL_FLOAT, 4, dims, ACL_FORMAT_NCHW);
    ASSERT_EQ(aclmdlSetDatasetTensorDesc(io.in(), desc, 0), ACL_SUCCESS) << RecentErrMsg();
    aclDestroyTensorDesc(desc);
    ExpectMnistCases(m.id(), io);
  }
  // The data dump observes every node: its runs are plain.
  ASSERT_NO_FATAL_FAILURE(
      StartMnistDump(std::filesystem::path(model_test::ScratchDir()) / "guarded_replay_dump"));
  {
    LoadedModel m(model_test::MnistOm());
    IoDatasets io({model_test::kMnistInputBytes}, {model_test::kMnistOutputBytes});
    ExpectMnistCases(m.id(), io);
  }
  ASSERT_EQ(aclmdlFinalizeDump(), ACL_SUCCESS) << RecentErrMsg();
  const RecordCounts n = RecordCounts::Now().Since(start);
  EXPECT_EQ(n.attempts, 0);
  EXPECT_EQ(n.replays, 0);
}

TEST_F(GuardedDeviceTest, TheProfilerWaitsForTheDeviceAroundEachNode) {
  // A GPU's kernels run after their launch returns: a node's time is taken once the device's
  // queue is drained before and after it (hal::Execution::Synchronize), not around the launch.
  KILN_REQUIRE_MNIST();
  LoadedModel m(model_test::MnistOm());
  IoDatasets io({model_test::kMnistInputBytes}, {model_test::kMnistOutputBytes});
  io.input(0).Write(model_test::LoadMnistCase(0).input);
  int64_t before = Counters().synchronizes;
  ASSERT_EQ(aclmdlExecute(m.id(), io.in(), io.out()), ACL_SUCCESS) << RecentErrMsg();
  EXPECT_EQ(Counters().synchronizes, before) << "no waits without the profiler";

  const std::string dir = model_test::ScratchDir() + "/guarded_prof";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  ASSERT_EQ(aclprofInit(dir.c_str(), dir.size()), ACL_SUCCESS) << RecentErrMsg();
  uint32_t device = 0;
  aclprofConfig* config =
      aclprofCreateConfig(&device, 1, ACL_AICORE_NONE, nullptr, ACL_PROF_TASK_TIME);
  ASSERT_NE(config, nullptr) << RecentErrMsg();
  ASSERT_EQ(aclprofStart(config), ACL_SUCCESS) << RecentErrMsg();
  before = Counters().synchronizes;
  ASSERT_EQ(aclmdlExecute(m.id(), io.in(), io.out()), ACL_SUCCESS) << RecentErrMsg();
  const int64_t waits = Counters().synchronizes - before;
  EXPECT_EQ(aclprofStop(config), ACL_SUCCESS) << RecentErrMsg();
  EXPECT_EQ(aclprofDestroyConfig(config), ACL_SUCCESS);
  EXPECT_EQ(aclprofFinalize(), ACL_SUCCESS) << RecentErrMsg();
  EXPECT_GE(waits, 2 * 3) << "two waits per node (mnist-8 compiles to more than 3 nodes)";
  EXPECT_EQ(waits % 2, 0);
  EXPECT_TRUE(model_test::MatchesOnnx(io.output(0).ReadFloats(model_test::kMnistOutputFloats),
                                      model_test::LoadMnistCase(0).expected, {1, 10}));
}

TEST_F(GuardedDeviceTest, HostMemoryFromMallocHostIsHostMemory) {
  void* host = nullptr;
  ASSERT_EQ(aclrtMallocHost(&host, 256), ACL_SUCCESS) << RecentErrMsg();
  std::memset(host, 3, 256);  // the host may write it (no guard)
  void* dev = nullptr;
  ASSERT_EQ(aclrtMalloc(&dev, 256, ACL_MEM_MALLOC_NORMAL_ONLY), ACL_SUCCESS);
  ASSERT_EQ(aclrtMemcpy(dev, 256, host, 256, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
  std::vector<unsigned char> back(256);
  ASSERT_EQ(aclrtMemcpy(back.data(), 256, dev, 256, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
  EXPECT_EQ(back[255], 3);
  EXPECT_EQ(aclrtFree(dev), ACL_SUCCESS);
  EXPECT_EQ(aclrtFreeHost(host), ACL_SUCCESS);
}

// y = If(ReduceSum(x) > 0, then: x + x, else: x * k) with x float [2,3] and k = -3 a constant of
// the else branch: the condition is computed into device memory, the branches read a value of
// the enclosing graph and a constant of their own.
std::string WriteIfModel() {
  onnx::ModelProto model;
  model.set_ir_version(8);
  model.set_producer_name("kiln guarded device tests");
  auto* opset = model.add_opset_import();
  opset->set_domain("");
  opset->set_version(13);
  auto value = [](onnx::ValueInfoProto* v, const char* name, int type,
                  std::initializer_list<int64_t> dims) {
    v->set_name(name);
    auto* t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(type);
    t->mutable_shape();  // a scalar when no dims follow
    for (int64_t d : dims) t->mutable_shape()->add_dim()->set_dim_value(d);
  };
  auto node = [](onnx::GraphProto* g, const char* op, std::initializer_list<const char*> ins,
                 const char* out) {
    onnx::NodeProto* n = g->add_node();
    n->set_op_type(op);
    n->set_name(out);
    for (const char* in : ins) n->add_input(in);
    n->add_output(out);
    return n;
  };
  auto scalar = [](onnx::GraphProto* g, const char* name, float v) {
    onnx::TensorProto* t = g->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::FLOAT);
    t->add_float_data(v);
  };
  onnx::GraphProto* g = model.mutable_graph();
  g->set_name("if_on_device");
  value(g->add_input(), "x", onnx::TensorProto::FLOAT, {2, 3});
  value(g->add_output(), "y", onnx::TensorProto::FLOAT, {2, 3});
  scalar(g, "zero", 0.f);
  onnx::NodeProto* sum = node(g, "ReduceSum", {"x"}, "sum");
  onnx::AttributeProto* keepdims = sum->add_attribute();
  keepdims->set_name("keepdims");
  keepdims->set_type(onnx::AttributeProto::INT);
  keepdims->set_i(0);
  node(g, "Greater", {"sum", "zero"}, "positive");
  onnx::NodeProto* branch = node(g, "If", {"positive"}, "y");
  for (const char* name : {"then_branch", "else_branch"}) {
    onnx::AttributeProto* a = branch->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::GRAPH);
    onnx::GraphProto* body = a->mutable_g();
    body->set_name(name);
    if (std::string(name) == "then_branch") {
      node(body, "Add", {"x", "x"}, "doubled");
      value(body->add_output(), "doubled", onnx::TensorProto::FLOAT, {2, 3});
    } else {
      scalar(body, "k", -3.f);
      node(body, "Mul", {"x", "k"}, "scaled");
      value(body->add_output(), "scaled", onnx::TensorProto::FLOAT, {2, 3});
    }
  }
  const std::string path = model_test::ScratchDir() + "/if_on_device.onnx";
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!model.SerializeToOstream(&out)) ADD_FAILURE() << "cannot write " << path;
  return path;
}

TEST_F(GuardedDeviceTest, RunsAnIfWhoseConditionAndOutputsAreDeviceMemory) {
  // The guarded kernels open the device's memory for a whole kernel run, a control-flow
  // kernel's branches included, so an If reading its condition or writing its outputs on the
  // host would pass wrapped. The CUDA device runs the reference If unwrapped (its branches run
  // on the device's own kernels, which open the memory themselves): so does this device here.
  kernels::KernelRegistry& registry = kernels::KernelRegistry::Global();
  registry.Register(kGuardedBackend, "", "If",
                    *registry.Find(kernels::kReferenceBackend, "", "If"));
  const std::string onnx = WriteIfModel();
  const std::string om = model_test::CompileOm("if_on_device", onnx);
  ASSERT_FALSE(om.empty());
  LoadedModel m(om);
  IoDatasets io({6 * sizeof(float)}, {6 * sizeof(float)});
  const std::vector<float> positive = {1, -2, 3, 4, -5, 6}, negative = {-1, 2, -3, -4, 5, -6};
  for (const std::vector<float>* x : {&positive, &negative, &positive}) {
    io.input(0).Write(*x);
    ASSERT_EQ(aclmdlExecute(m.id(), io.in(), io.out()), ACL_SUCCESS) << RecentErrMsg();
    const std::vector<float> y = io.output(0).ReadFloats(6);
    const float factor = x == &positive ? 2.f : -3.f;  // then: x + x; else: x * -3
    for (size_t i = 0; i < 6; ++i) EXPECT_EQ(y[i], factor * (*x)[i]) << i;
  }
}

}  // namespace
}  // namespace kiln::hal::testing
