// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Shared pieces of the model API contract tests (model_test.cc, model_exec_test.cc): mnist-8 and
// its ONNX test data, models compiled at test time with the compiler facade, device buffers and
// datasets. The expected values always come from the ONNX test data or from the model file,
// never from the runtime under test.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "acl/acl.h"
#include "atc/atc.h"
#include "compiler/compile.h"
#include "onnx/onnx_pb.h"
#include "tests/onnx/test_data.h"

namespace kiln::model_test {

// mnist-8: one float input Input3 [1,1,28,28], one float output Plus214_Output_0 [1,10].
constexpr const char* kMnistInput = "Input3";
constexpr const char* kMnistOutput = "Plus214_Output_0";
constexpr size_t kMnistInputFloats = 28 * 28;
constexpr size_t kMnistOutputFloats = 10;
constexpr size_t kMnistInputBytes = kMnistInputFloats * sizeof(float);
constexpr size_t kMnistOutputBytes = kMnistOutputFloats * sizeof(float);

// The text of this thread's recent errors ("" if none); reading it clears them.
inline std::string RecentErrMsg() {
  const char* msg = aclGetRecentErrMsg();
  return msg ? msg : "";
}

// Passes when `text` contains `part` (a message read once: RecentErrMsg clears it).
inline ::testing::AssertionResult Contains(const std::string& text, const std::string& part) {
  if (text.find(part) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "\"" << text << "\" does not contain \"" << part << "\"";
}

// The source tree: KILN_SOURCE_DIR from the environment (a suite carried to another machine:
// scripts/cuda_device_check.sh), else the one it was built from.
inline std::string SourceDir() {
  const char* dir = std::getenv("KILN_SOURCE_DIR");
  return dir != nullptr && *dir != '\0' ? dir : KILN_SOURCE_DIR;
}
inline std::string MnistDir() { return SourceDir() + "/tests/data/models/mnist-8"; }
inline std::string MnistOnnx() { return MnistDir() + "/model.onnx"; }
inline bool HaveMnist() { return std::filesystem::exists(MnistOnnx()); }

// Skips the test when the model assets are not there (scripts/setup.sh fetches them).
#define KILN_REQUIRE_MNIST()                                                  \
  do {                                                                        \
    if (!::kiln::model_test::HaveMnist()) {                                   \
      GTEST_SKIP() << "no " << ::kiln::model_test::MnistOnnx() << " (setup)"; \
    }                                                                         \
  } while (0)

// This process's scratch directory, removed when the process ends.
inline const std::string& ScratchDir() {
  struct Dir {
    std::string path;
    Dir() {
      path = ::testing::TempDir() + "kiln_model_test_" + std::to_string(getpid());
      std::filesystem::create_directories(path);
    }
    ~Dir() {
      std::error_code ec;
      std::filesystem::remove_all(path, ec);
    }
  };
  static Dir dir;
  return dir.path;
}

inline std::string WriteScratchFile(const std::string& name, const std::vector<uint8_t>& bytes) {
  std::string path = ScratchDir() + "/" + name;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
  return path;
}

inline std::vector<uint8_t> ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(in)),
                              std::istreambuf_iterator<char>());
}

// Input and expected output of mnist-8's test_data_set_<index> (0, 1 or 2).
struct MnistCase {
  std::vector<float> input;
  std::vector<float> expected;
};

inline std::vector<float> FloatsOf(const conformance::HostTensor& t) {
  std::vector<float> out(t.bytes.size() / sizeof(float));
  if (!out.empty()) std::memcpy(out.data(), t.bytes.data(), out.size() * sizeof(float));
  return out;
}

inline MnistCase LoadMnistCase(int index) {
  MnistCase c;
  const std::string dir = MnistDir() + "/test_data_set_" + std::to_string(index);
  conformance::HostTensor in, out;
  std::string error;
  EXPECT_TRUE(conformance::LoadTensorFile(dir + "/input_0.pb", &in, &error)) << error;
  EXPECT_TRUE(conformance::LoadTensorFile(dir + "/output_0.pb", &out, &error)) << error;
  EXPECT_EQ(in.onnx_type, conformance::kOnnxFloat);
  EXPECT_EQ(in.dims, (std::vector<int64_t>{1, 1, 28, 28}));
  EXPECT_EQ(out.dims, (std::vector<int64_t>{1, 10}));
  c.input = FloatsOf(in);
  c.expected = FloatsOf(out);
  return c;
}

// The ONNX backend runner's comparison (rtol 1e-3, atol 1e-7) of a float output.
inline ::testing::AssertionResult MatchesOnnx(const std::vector<float>& actual,
                                              const std::vector<float>& expected,
                                              const std::vector<int64_t>& dims) {
  conformance::HostTensor a, e;
  a.onnx_type = e.onnx_type = conformance::kOnnxFloat;
  a.dims = e.dims = dims;
  a.bytes.resize(actual.size() * sizeof(float));
  e.bytes.resize(expected.size() * sizeof(float));
  if (!actual.empty()) std::memcpy(a.bytes.data(), actual.data(), a.bytes.size());
  if (!expected.empty()) std::memcpy(e.bytes.data(), expected.data(), e.bytes.size());
  auto cmp = conformance::CompareTensors(a, e, conformance::Tolerance{}, "output");
  if (cmp.ok) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << cmp.message;
}

// The target the suite's models are compiled for: KILN_TEST_TARGET (a suite's GPU variant sets
// "cuda": device_under_test.cc), else "" (this host's CPU).
inline std::string TestTarget() {
  const char* t = std::getenv("KILN_TEST_TARGET");
  return t != nullptr ? t : "";
}

// Compiles `onnx` into ScratchDir()/<name>.om for TestTarget(). `input_shape` and
// `dynamic_batch` are as `kiln atc --input_shape` and `--dynamic_batch_size` ("" = not given).
// Returns the .om path, or "" after recording a test failure.
inline std::string CompileOm(const std::string& name, const std::string& onnx,
                             const std::string& input_shape = "",
                             const std::string& dynamic_batch = "") {
  compiler::CompileOptions options;
  options.model = onnx;
  options.output = ScratchDir() + "/" + name + ".om";
  options.target = TestTarget();
  if (!input_shape.empty()) {
    auto shapes = compiler::ParseInputShape(input_shape);
    if (!shapes.ok()) {
      ADD_FAILURE() << "--input_shape " << input_shape << ": " << shapes.status().message();
      return "";
    }
    options.input_shapes = *shapes;
  }
  compiler::GearFlags flags;
  flags.input_shape = input_shape;
  flags.dynamic_batch_size = dynamic_batch;
  auto gears = compiler::ParseGears(flags);
  if (!gears.ok()) {
    ADD_FAILURE() << "--dynamic_batch_size " << dynamic_batch << ": " << gears.status().message();
    return "";
  }
  options.gears = *gears;
  auto report = atc::Compile(options);
  if (!report.ok()) {
    ADD_FAILURE() << "compiling " << onnx << ": " << report.status().message();
    return "";
  }
  return report->output_path.empty() ? options.output : report->output_path;
}

// mnist-8 compiled as it is (static, batch 1); compiled once per process.
inline const std::string& MnistOm() {
  static const std::string path = CompileOm("mnist", MnistOnnx());
  return path;
}

// mnist-8 with its flattening Reshape target [1,256] replaced by [-1,256], so that the same
// graph runs at any batch (the model itself hard-codes batch 1 there).
inline std::string WriteBatchableMnist() {
  static const std::string path = [] {
    onnx::ModelProto model;
    std::ifstream in(MnistOnnx(), std::ios::binary);
    if (!model.ParseFromIstream(&in)) {
      ADD_FAILURE() << "cannot parse " << MnistOnnx();
      return std::string();
    }
    bool patched = false;
    for (auto& init : *model.mutable_graph()->mutable_initializer()) {
      if (init.name() != "Pooling160_Output_0_reshape0_shape") continue;
      init.clear_raw_data();
      init.clear_int64_data();
      init.add_int64_data(-1);
      init.add_int64_data(256);
      patched = true;
    }
    if (!patched) {
      ADD_FAILURE() << "mnist-8 has no initializer Pooling160_Output_0_reshape0_shape";
      return std::string();
    }
    std::string path = ScratchDir() + "/mnist_batchable.onnx";
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (!model.SerializeToOstream(&out)) {
      ADD_FAILURE() << "cannot write " << path;
      return std::string();
    }
    return path;
  }();
  return path;
}

// A one-node ONNX model: out[2,3] = Gather(data, indices) with data a [5,3] float initializer
// (data[i][j] = 10 * i + j) and indices an int64 [2] input. The node is named "pick_rows".
inline std::string WriteGatherModel() {
  static const std::string path = [] {
    onnx::ModelProto model;
    model.set_ir_version(8);
    model.set_producer_name("kiln model tests");
    auto* opset = model.add_opset_import();
    opset->set_domain("");
    opset->set_version(13);
    onnx::GraphProto* g = model.mutable_graph();
    g->set_name("gather");
    onnx::NodeProto* node = g->add_node();
    node->set_op_type("Gather");
    node->set_name("pick_rows");
    node->add_input("data");
    node->add_input("indices");
    node->add_output("out");
    onnx::TensorProto* data = g->add_initializer();
    data->set_name("data");
    data->set_data_type(onnx::TensorProto::FLOAT);
    data->add_dims(5);
    data->add_dims(3);
    for (int i = 0; i < 5; ++i) {
      for (int j = 0; j < 3; ++j) data->add_float_data(static_cast<float>(10 * i + j));
    }
    auto value = [](onnx::ValueInfoProto* v, const char* name, int type,
                    std::initializer_list<int64_t> dims) {
      v->set_name(name);
      auto* t = v->mutable_type()->mutable_tensor_type();
      t->set_elem_type(type);
      for (int64_t d : dims) t->mutable_shape()->add_dim()->set_dim_value(d);
    };
    value(g->add_input(), "indices", onnx::TensorProto::INT64, {2});
    value(g->add_output(), "out", onnx::TensorProto::FLOAT, {2, 3});
    std::string path = ScratchDir() + "/gather.onnx";
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (!model.SerializeToOstream(&out)) {
      ADD_FAILURE() << "cannot write " << path;
      return std::string();
    }
    return path;
  }();
  return path;
}

// Device memory from aclrtMalloc wrapped in an aclDataBuffer; both released on destruction
// (declare it inside the test body, so it goes before the fixture resets the device).
class DeviceBuffer {
 public:
  explicit DeviceBuffer(size_t size) : size_(size) {
    EXPECT_EQ(aclrtMalloc(&ptr_, size, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS) << RecentErrMsg();
    buffer_ = aclCreateDataBuffer(ptr_, size);
    EXPECT_NE(buffer_, nullptr);
  }
  ~DeviceBuffer() {
    if (buffer_ != nullptr) {
      EXPECT_EQ(aclDestroyDataBuffer(buffer_), ACL_SUCCESS);
    }
    if (ptr_ != nullptr) {
      EXPECT_EQ(aclrtFree(ptr_), ACL_SUCCESS);
    }
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  aclDataBuffer* buffer() const { return buffer_; }
  void* ptr() const { return ptr_; }
  size_t size() const { return size_; }

  void Write(const void* host, size_t bytes) {
    ASSERT_EQ(aclrtMemcpy(ptr_, size_, host, bytes, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS)
        << RecentErrMsg();
  }
  void Write(const std::vector<float>& values) {
    Write(values.data(), values.size() * sizeof(float));
  }
  std::vector<float> ReadFloats(size_t count) const {
    std::vector<float> out(count);
    EXPECT_EQ(aclrtMemcpy(out.data(), count * sizeof(float), ptr_, count * sizeof(float),
                          ACL_MEMCPY_DEVICE_TO_HOST),
              ACL_SUCCESS)
        << RecentErrMsg();
    return out;
  }

 private:
  size_t size_;
  void* ptr_ = nullptr;
  aclDataBuffer* buffer_ = nullptr;
};

// An input and an output dataset of device buffers of the given sizes.
class IoDatasets {
 public:
  IoDatasets(const std::vector<size_t>& input_sizes, const std::vector<size_t>& output_sizes)
      : in_(aclmdlCreateDataset()), out_(aclmdlCreateDataset()) {
    EXPECT_NE(in_, nullptr);
    EXPECT_NE(out_, nullptr);
    for (size_t s : input_sizes) {
      inputs_.push_back(std::make_unique<DeviceBuffer>(s));
      EXPECT_EQ(aclmdlAddDatasetBuffer(in_, inputs_.back()->buffer()), ACL_SUCCESS);
    }
    for (size_t s : output_sizes) {
      outputs_.push_back(std::make_unique<DeviceBuffer>(s));
      EXPECT_EQ(aclmdlAddDatasetBuffer(out_, outputs_.back()->buffer()), ACL_SUCCESS);
    }
  }
  ~IoDatasets() {
    EXPECT_EQ(aclmdlDestroyDataset(in_), ACL_SUCCESS);
    EXPECT_EQ(aclmdlDestroyDataset(out_), ACL_SUCCESS);
  }
  IoDatasets(const IoDatasets&) = delete;
  IoDatasets& operator=(const IoDatasets&) = delete;

  aclmdlDataset* in() const { return in_; }
  aclmdlDataset* out() const { return out_; }
  DeviceBuffer& input(size_t i) { return *inputs_.at(i); }
  DeviceBuffer& output(size_t i) { return *outputs_.at(i); }

 private:
  aclmdlDataset* in_;
  aclmdlDataset* out_;
  std::vector<std::unique_ptr<DeviceBuffer>> inputs_, outputs_;
};

// A model loaded with aclmdlLoadFromFile and its description; unloaded on destruction unless
// the test unloaded it already (Release).
class LoadedModel {
 public:
  explicit LoadedModel(const std::string& om) {
    EXPECT_EQ(aclmdlLoadFromFile(om.c_str(), &id_), ACL_SUCCESS) << RecentErrMsg();
    desc_ = aclmdlCreateDesc();
    EXPECT_NE(desc_, nullptr);
    EXPECT_EQ(aclmdlGetDesc(desc_, id_), ACL_SUCCESS) << RecentErrMsg();
  }
  ~LoadedModel() {
    if (desc_ != nullptr) {
      EXPECT_EQ(aclmdlDestroyDesc(desc_), ACL_SUCCESS);
    }
    if (loaded_) {
      EXPECT_EQ(aclmdlUnload(id_), ACL_SUCCESS) << RecentErrMsg();
    }
  }
  LoadedModel(const LoadedModel&) = delete;
  LoadedModel& operator=(const LoadedModel&) = delete;

  uint32_t id() const { return id_; }
  aclmdlDesc* desc() const { return desc_; }
  void Release() { loaded_ = false; }

 private:
  uint32_t id_ = 0;
  bool loaded_ = true;
  aclmdlDesc* desc_ = nullptr;
};

// Free bytes of the current device's pool.
inline size_t FreeDeviceMemory() {
  size_t free = 0, total = 0;
  EXPECT_EQ(aclrtGetMemInfo(ACL_HBM_MEM, &free, &total), ACL_SUCCESS) << RecentErrMsg();
  return free;
}

// Allocates device memory until the pool refuses even the smallest request; the blocks are
// freed on destruction. While it lives, any device allocation fails.
class PoolExhauster {
 public:
  PoolExhauster() {
    for (size_t size :
         {size_t{1} << 20, size_t{64} << 10, size_t{4} << 10, size_t{512}, size_t{64}, size_t{1}}) {
      for (;;) {
        void* p = nullptr;
        if (aclrtMalloc(&p, size, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) break;
        blocks_.push_back(p);
      }
    }
    (void)aclGetRecentErrMsg();
  }
  ~PoolExhauster() {
    for (void* p : blocks_) EXPECT_EQ(aclrtFree(p), ACL_SUCCESS);
  }
  PoolExhauster(const PoolExhauster&) = delete;
  PoolExhauster& operator=(const PoolExhauster&) = delete;

 private:
  std::vector<void*> blocks_;
};

// Tests whose device pool is limited to 64 MiB (KILN_DEVICE_MEMORY_LIMIT), so that PoolExhauster
// is quick.
constexpr std::string_view kSmallPoolTests[] = {
    "LoadFromFileWithMemRunsWithoutTakingPoolMemory",
    "RepeatedExecutionsOfAStaticModelAllocateNoDeviceMemory",
};

// aclInit and device 0 for each test; reset and finalized after it. The device pool is limited
// for the tests listed in kSmallPoolTests (the variable is set before aclInit reads it: each
// TEST runs in its own process under CTest, and it is removed again for whole-binary runs).
class ModelApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string_view name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    for (std::string_view t : kSmallPoolTests) {
      if (t == name) {
        setenv("KILN_DEVICE_MEMORY_LIMIT", "64M", 1);
        small_pool_ = true;
      }
    }
    ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS) << RecentErrMsg();
    ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS) << RecentErrMsg();
    open_ = true;
  }
  void TearDown() override {
    if (open_) {
      EXPECT_EQ(aclrtResetDevice(0), ACL_SUCCESS) << RecentErrMsg();
      EXPECT_EQ(aclFinalize(), ACL_SUCCESS) << RecentErrMsg();
    }
    if (small_pool_) unsetenv("KILN_DEVICE_MEMORY_LIMIT");
  }

  bool open_ = false;
  bool small_pool_ = false;
};

}  // namespace kiln::model_test
