// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Contract tests of the model API (acl_mdl.h; ascendcl-reference.md §1.11, §2.4): loading and
// its error codes for files that are not Kiln .om files, aclmdlQuerySize against what
// aclmdlLoadFromFileWithMem needs, caller-owned memory, the model description and datasets.
// Execution, gears and dynamic shapes are in model_exec_test.cc.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "acl/acl.h"
#include "tests/capi/model_test_util.h"

namespace {

using kiln::model_test::Contains;
using kiln::model_test::DeviceBuffer;
using kiln::model_test::FreeDeviceMemory;
using kiln::model_test::IoDatasets;
using kiln::model_test::kMnistInput;
using kiln::model_test::kMnistInputBytes;
using kiln::model_test::kMnistOutput;
using kiln::model_test::kMnistOutputBytes;
using kiln::model_test::kMnistOutputFloats;
using kiln::model_test::LoadedModel;
using kiln::model_test::LoadMnistCase;
using kiln::model_test::MatchesOnnx;
using kiln::model_test::MnistOm;
using kiln::model_test::MnistOnnx;
using kiln::model_test::ModelApiTest;
using kiln::model_test::PoolExhauster;
using kiln::model_test::ReadBytes;
using kiln::model_test::RecentErrMsg;
using kiln::model_test::ScratchDir;
using kiln::model_test::WriteScratchFile;

// Loading `bytes` (from a file and from memory) fails with `code`, and each message contains
// every one of `words`.
void ExpectLoadRefused(const std::string& name, const std::vector<uint8_t>& bytes, aclError code,
                       const std::vector<std::string>& words) {
  const std::string path = WriteScratchFile(name, bytes);
  uint32_t id = 12345;
  EXPECT_EQ(aclmdlLoadFromFile(path.c_str(), &id), code) << name;
  std::string msg = RecentErrMsg();
  for (const auto& w : words) EXPECT_TRUE(Contains(msg, w)) << name << " from a file";
  EXPECT_EQ(aclmdlLoadFromMem(bytes.data(), bytes.size(), &id), code) << name;
  msg = RecentErrMsg();
  for (const auto& w : words) EXPECT_TRUE(Contains(msg, w)) << name << " from memory";
  size_t work = 0, weight = 0;
  EXPECT_EQ(aclmdlQuerySize(path.c_str(), &work, &weight), code) << name;
  EXPECT_EQ(aclmdlQuerySizeFromMem(bytes.data(), bytes.size(), &work, &weight), code) << name;
}

// ---- Load errors ------------------------------------------------------------------------------

TEST_F(ModelApiTest, LoadWithNullArgumentsIsInvalidParam) {
  uint32_t id = 0;
  const uint8_t byte = 0;
  EXPECT_EQ(aclmdlLoadFromFile(nullptr, &id), ACL_ERROR_INVALID_PARAM);
  EXPECT_TRUE(Contains(RecentErrMsg(), "modelPath"));
  EXPECT_EQ(aclmdlLoadFromFile("/nonexistent/model.om", nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_TRUE(Contains(RecentErrMsg(), "modelId"));
  EXPECT_EQ(aclmdlLoadFromFileWithMem(nullptr, &id, nullptr, 0, nullptr, 0),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclmdlLoadFromMem(nullptr, 16, &id), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclmdlLoadFromMem(&byte, 0, &id), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclmdlLoadFromMem(&byte, 1, nullptr), ACL_ERROR_INVALID_PARAM);
  size_t work = 0, weight = 0;
  EXPECT_EQ(aclmdlQuerySize(nullptr, &work, &weight), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclmdlQuerySize("/nonexistent/model.om", nullptr, &weight), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclmdlQuerySize("/nonexistent/model.om", &work, nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclmdlQuerySizeFromMem(nullptr, 16, &work, &weight), ACL_ERROR_INVALID_PARAM);
}

TEST_F(ModelApiTest, LoadOfAMissingFileIsModelPathInvalid) {
  const std::string path = ScratchDir() + "/no_such_model.om";
  uint32_t id = 0;
  EXPECT_EQ(aclmdlLoadFromFile(path.c_str(), &id), ACL_ERROR_GE_EXEC_MODEL_PATH_INVALID);
  EXPECT_TRUE(Contains(RecentErrMsg(), path));
  EXPECT_EQ(aclmdlLoadFromFileWithMem(path.c_str(), &id, nullptr, 0, nullptr, 0),
            ACL_ERROR_GE_EXEC_MODEL_PATH_INVALID);
  size_t work = 0, weight = 0;
  EXPECT_EQ(aclmdlQuerySize(path.c_str(), &work, &weight), ACL_ERROR_GE_EXEC_MODEL_PATH_INVALID);
}

TEST_F(ModelApiTest, LoadOfADirectoryIsModelPathInvalid) {
  uint32_t id = 0;
  EXPECT_EQ(aclmdlLoadFromFile(ScratchDir().c_str(), &id), ACL_ERROR_GE_EXEC_MODEL_PATH_INVALID);
  EXPECT_TRUE(Contains(RecentErrMsg(), ScratchDir()));
  size_t work = 0, weight = 0;
  EXPECT_EQ(aclmdlQuerySize(ScratchDir().c_str(), &work, &weight),
            ACL_ERROR_GE_EXEC_MODEL_PATH_INVALID);
}

TEST_F(ModelApiTest, LoadOfAnEmptyFileIsModelPathInvalid) {
  const std::string path = WriteScratchFile("empty.om", {});
  uint32_t id = 0;
  EXPECT_EQ(aclmdlLoadFromFile(path.c_str(), &id), ACL_ERROR_GE_EXEC_MODEL_PATH_INVALID);
  EXPECT_TRUE(Contains(RecentErrMsg(), "empty"));
  size_t work = 0, weight = 0;
  EXPECT_EQ(aclmdlQuerySize(path.c_str(), &work, &weight), ACL_ERROR_GE_EXEC_MODEL_PATH_INVALID);
}

TEST_F(ModelApiTest, LoadOfAnOnnxFileIsRefusedWithKilnAtcAdvice) {
  KILN_REQUIRE_MNIST();
  ExpectLoadRefused("model.onnx", ReadBytes(MnistOnnx()), ACL_ERROR_GE_EXEC_MODEL_DATA_SIZE_INVALID,
                    {"ONNX", "kiln atc"});
}

TEST_F(ModelApiTest, LoadOfAHuaweiOmIsRefusedNamingTheFormat) {
  std::vector<uint8_t> bytes = {'I', 'M', 'O', 'D'};
  bytes.resize(4096, 0);
  ExpectLoadRefused("huawei.om", bytes, ACL_ERROR_GE_EXEC_MODEL_DATA_SIZE_INVALID,
                    {"Huawei OM", "kiln atc"});
}

TEST_F(ModelApiTest, LoadOfAGgufFileIsRefusedNamingTheFormat) {
  std::vector<uint8_t> bytes = {'G', 'G', 'U', 'F', 3, 0, 0, 0};
  bytes.resize(1024, 0);
  ExpectLoadRefused("model.gguf", bytes, ACL_ERROR_GE_EXEC_MODEL_DATA_SIZE_INVALID, {"GGUF"});
}

TEST_F(ModelApiTest, LoadOfATfliteFileIsRefusedWithConversionAdvice) {
  std::vector<uint8_t> bytes = {0x1c, 0, 0, 0, 'T', 'F', 'L', '3'};
  bytes.resize(1024, 0);
  ExpectLoadRefused("model.tflite", bytes, ACL_ERROR_GE_EXEC_MODEL_DATA_SIZE_INVALID,
                    {"TFLite", "ONNX"});
}

TEST_F(ModelApiTest, LoadOfRandomBytesIsRefusedWithKilnAtcAdvice) {
  std::mt19937 rng(7);
  std::vector<uint8_t> bytes(4096);
  for (auto& b : bytes) b = static_cast<uint8_t>(rng());
  bytes[0] = 0xA5;  // not the first byte of any format the loader names
  ExpectLoadRefused("random.bin", bytes, ACL_ERROR_GE_EXEC_MODEL_DATA_SIZE_INVALID,
                    {"not a Kiln .om", "kiln atc"});
}

TEST_F(ModelApiTest, TruncatedOmIsRefusedWithoutLeakingDeviceMemory) {
  KILN_REQUIRE_MNIST();
  const std::vector<uint8_t> om = ReadBytes(MnistOm());
  ASSERT_GT(om.size(), 1024u);
  const size_t free_before = FreeDeviceMemory();
  for (size_t keep : {om.size() - 1, om.size() / 2, size_t{300}, size_t{100}, size_t{8}}) {
    std::vector<uint8_t> cut(om.begin(), om.begin() + static_cast<std::ptrdiff_t>(keep));
    ExpectLoadRefused("truncated_" + std::to_string(keep) + ".om", cut,
                      ACL_ERROR_GE_EXEC_MODEL_DATA_SIZE_INVALID, {});
  }
  EXPECT_EQ(FreeDeviceMemory(), free_before);
}

TEST_F(ModelApiTest, BitFlippedOmIsRefusedWithoutLeakingDeviceMemory) {
  KILN_REQUIRE_MNIST();
  const std::vector<uint8_t> om = ReadBytes(MnistOm());
  ASSERT_GT(om.size(), 1024u);
  const size_t free_before = FreeDeviceMemory();
  // In the header, in the graph section and in the weights (the end of the file).
  for (size_t at : {size_t{20}, size_t{300}, om.size() / 2, om.size() - 5}) {
    std::vector<uint8_t> bad = om;
    bad[at] ^= 0x10;
    ExpectLoadRefused("flipped_" + std::to_string(at) + ".om", bad,
                      ACL_ERROR_GE_EXEC_MODEL_DATA_SIZE_INVALID, {"corrupt"});
  }
  EXPECT_EQ(FreeDeviceMemory(), free_before);
  // The intact file still loads.
  uint32_t id = 0;
  ASSERT_EQ(aclmdlLoadFromMem(om.data(), om.size(), &id), ACL_SUCCESS) << RecentErrMsg();
  EXPECT_EQ(aclmdlUnload(id), ACL_SUCCESS);
  EXPECT_EQ(FreeDeviceMemory(), free_before);
}

// An .om records the target it was compiled for (kiln atc --soc_version); a CUDA one is refused
// on the CPU device with ACL_ERROR_RT_SOC_VERSION naming both targets, and takes no memory.
TEST_F(ModelApiTest, AModelCompiledForACudaTargetIsRefusedOnTheCpuNamingBothTargets) {
  KILN_REQUIRE_MNIST();
  const std::string device = aclrtGetSocName();
  for (const std::string target : {"cuda", "sm_90", "cpu"}) {
    kiln::compiler::CompileOptions options;
    options.model = MnistOnnx();
    options.output = ScratchDir() + "/mnist_" + target + ".om";
    options.target = target;
    auto report = kiln::atc::Compile(options);
    ASSERT_TRUE(report.ok()) << report.status().message();
    const std::vector<uint8_t> bytes = ReadBytes(options.output);
    const size_t free_before = FreeDeviceMemory();
    uint32_t id = 0;
    if (target == "cpu") {  // any CPU target runs on the CPU device
      ASSERT_EQ(aclmdlLoadFromFile(options.output.c_str(), &id), ACL_SUCCESS) << RecentErrMsg();
      EXPECT_EQ(aclmdlUnload(id), ACL_SUCCESS);
      continue;
    }
    EXPECT_EQ(aclmdlLoadFromFile(options.output.c_str(), &id), ACL_ERROR_RT_SOC_VERSION);
    std::string msg = RecentErrMsg();
    EXPECT_TRUE(Contains(msg, "'" + target + "'"));
    EXPECT_TRUE(Contains(msg, device));
    EXPECT_EQ(aclmdlLoadFromMem(bytes.data(), bytes.size(), &id), ACL_ERROR_RT_SOC_VERSION);
    msg = RecentErrMsg();
    EXPECT_TRUE(Contains(msg, "'" + target + "'"));
    EXPECT_TRUE(Contains(msg, "--soc_version=cpu"));
    EXPECT_EQ(FreeDeviceMemory(), free_before) << target;
  }
}

// aclmdlLoadFromFile reads the file straight into the device block the weights stay in (no
// second copy): that block, the file's size, is taken while the model lives and given back at
// unload.
TEST_F(ModelApiTest, LoadFromFileKeepsTheFileInOneDeviceBlockUntilUnload) {
  KILN_REQUIRE_MNIST();
  const size_t file_size = ReadBytes(MnistOm()).size();
  const size_t free_before = FreeDeviceMemory();
  uint32_t id = 0;
  ASSERT_EQ(aclmdlLoadFromFile(MnistOm().c_str(), &id), ACL_SUCCESS) << RecentErrMsg();
  EXPECT_LE(FreeDeviceMemory(), free_before - file_size);
  EXPECT_EQ(aclmdlUnload(id), ACL_SUCCESS);
  EXPECT_EQ(FreeDeviceMemory(), free_before);
}

TEST(ModelApiUninitializedTest, LoadBeforeAclInitIsUninitialize) {
  KILN_REQUIRE_MNIST();
  const std::string om = MnistOm();
  ASSERT_FALSE(om.empty());
  const std::vector<uint8_t> bytes = ReadBytes(om);
  uint32_t id = 0;
  EXPECT_EQ(aclmdlLoadFromFile(om.c_str(), &id), ACL_ERROR_UNINITIALIZE);
  EXPECT_TRUE(Contains(RecentErrMsg(), "aclInit"));
  EXPECT_EQ(aclmdlLoadFromMem(bytes.data(), bytes.size(), &id), ACL_ERROR_UNINITIALIZE);
  EXPECT_EQ(aclmdlLoadFromFileWithMem(om.c_str(), &id, nullptr, 0, nullptr, 0),
            ACL_ERROR_UNINITIALIZE);
  // Even a bad path reports the missing aclInit first.
  EXPECT_EQ(aclmdlLoadFromFile(nullptr, &id), ACL_ERROR_UNINITIALIZE);
}

// ---- Query size and caller-owned memory -------------------------------------------------------

TEST_F(ModelApiTest, QuerySizeGivesExactlyWhatLoadFromFileWithMemNeeds) {
  KILN_REQUIRE_MNIST();
  const std::string om = MnistOm();
  size_t work = 0, weight = 0;
  ASSERT_EQ(aclmdlQuerySize(om.c_str(), &work, &weight), ACL_SUCCESS) << RecentErrMsg();
  // mnist-8's two Conv kernels and the MatMul weight alone are 23840 bytes of float32.
  EXPECT_GE(weight, 23840u);
  EXPECT_LT(weight, 1u << 20);
  EXPECT_GT(work, 0u);
  const std::vector<uint8_t> bytes = ReadBytes(om);
  size_t work_mem = 0, weight_mem = 0;
  ASSERT_EQ(aclmdlQuerySizeFromMem(bytes.data(), bytes.size(), &work_mem, &weight_mem),
            ACL_SUCCESS);
  EXPECT_EQ(work_mem, work);
  EXPECT_EQ(weight_mem, weight);

  // One byte less of either is refused; exactly the queried sizes load and run correctly.
  DeviceBuffer work_buf(work), weight_buf(weight);
  uint32_t id = 0;
  EXPECT_EQ(aclmdlLoadFromFileWithMem(om.c_str(), &id, work_buf.ptr(), work - 1, weight_buf.ptr(),
                                      weight),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_TRUE(Contains(RecentErrMsg(), "aclmdlQuerySize"));
  EXPECT_EQ(aclmdlLoadFromFileWithMem(om.c_str(), &id, work_buf.ptr(), work, weight_buf.ptr(),
                                      weight - 1),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_TRUE(Contains(RecentErrMsg(), "aclmdlQuerySize"));
  ASSERT_EQ(
      aclmdlLoadFromFileWithMem(om.c_str(), &id, work_buf.ptr(), work, weight_buf.ptr(), weight),
      ACL_SUCCESS)
      << RecentErrMsg();
  const auto c = LoadMnistCase(0);
  IoDatasets io({kMnistInputBytes}, {kMnistOutputBytes});
  io.input(0).Write(c.input);
  ASSERT_EQ(aclmdlExecute(id, io.in(), io.out()), ACL_SUCCESS) << RecentErrMsg();
  EXPECT_TRUE(MatchesOnnx(io.output(0).ReadFloats(kMnistOutputFloats), c.expected, {1, 10}));
  EXPECT_EQ(aclmdlUnload(id), ACL_SUCCESS);
}

TEST_F(ModelApiTest, LoadFromFileWithMemRefusesTooSmallMemoryWithoutLeaking) {
  KILN_REQUIRE_MNIST();
  const std::string om = MnistOm();
  size_t work = 0, weight = 0;
  ASSERT_EQ(aclmdlQuerySize(om.c_str(), &work, &weight), ACL_SUCCESS);
  DeviceBuffer work_buf(work), weight_buf(weight);
  const std::vector<uint8_t> bytes = ReadBytes(om);
  const size_t free_before = FreeDeviceMemory();
  uint32_t id = 0;
  // Too little work memory with runtime-managed weights: the weights the load had placed must
  // go back to the pool.
  EXPECT_EQ(aclmdlLoadFromFileWithMem(om.c_str(), &id, work_buf.ptr(), work / 2, nullptr, 0),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_TRUE(Contains(RecentErrMsg(), "work memory"));
  EXPECT_EQ(
      aclmdlLoadFromMemWithMem(bytes.data(), bytes.size(), &id, work_buf.ptr(), 1, nullptr, 0),
      ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclmdlLoadFromFileWithMem(om.c_str(), &id, nullptr, 0, weight_buf.ptr(), weight / 2),
            ACL_ERROR_INVALID_PARAM);
  EXPECT_TRUE(Contains(RecentErrMsg(), "weight memory"));
  EXPECT_EQ(
      aclmdlLoadFromMemWithMem(bytes.data(), bytes.size(), &id, nullptr, 0, weight_buf.ptr(), 1),
      ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(FreeDeviceMemory(), free_before);
}

TEST_F(ModelApiTest, LoadFromFileWithMemRunsWithoutTakingPoolMemory) {
  KILN_REQUIRE_MNIST();
  const std::string om = MnistOm();
  size_t work = 0, weight = 0;
  ASSERT_EQ(aclmdlQuerySize(om.c_str(), &work, &weight), ACL_SUCCESS);
  DeviceBuffer work_buf(work), weight_buf(weight);
  const auto c = LoadMnistCase(1);
  IoDatasets io({kMnistInputBytes}, {kMnistOutputBytes});
  io.input(0).Write(c.input);

  const size_t free_before = FreeDeviceMemory();
  uint32_t id = 0;
  ASSERT_EQ(
      aclmdlLoadFromFileWithMem(om.c_str(), &id, work_buf.ptr(), work, weight_buf.ptr(), weight),
      ACL_SUCCESS)
      << RecentErrMsg();
  EXPECT_EQ(FreeDeviceMemory(), free_before);
  ASSERT_EQ(aclmdlExecute(id, io.in(), io.out()), ACL_SUCCESS) << RecentErrMsg();
  EXPECT_EQ(FreeDeviceMemory(), free_before);
  {
    // With the pool empty, executions still run: they use only the caller's memory.
    PoolExhauster exhaust;
    void* probe = nullptr;
    ASSERT_NE(aclrtMalloc(&probe, 1, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    for (int i = 0; i < 5; ++i) {
      ASSERT_EQ(aclmdlExecute(id, io.in(), io.out()), ACL_SUCCESS) << RecentErrMsg();
    }
  }
  EXPECT_TRUE(MatchesOnnx(io.output(0).ReadFloats(kMnistOutputFloats), c.expected, {1, 10}));
  EXPECT_EQ(aclmdlUnload(id), ACL_SUCCESS);
  EXPECT_EQ(FreeDeviceMemory(), free_before);
}

// ---- Description --------------------------------------------------------------------------

TEST_F(ModelApiTest, DescriptionOfMnistMatchesTheOnnxModel) {
  KILN_REQUIRE_MNIST();
  LoadedModel m(MnistOm());
  aclmdlDesc* d = m.desc();
  EXPECT_EQ(aclmdlGetNumInputs(d), 1u);
  EXPECT_EQ(aclmdlGetNumOutputs(d), 1u);
  EXPECT_EQ(aclmdlGetInputSizeByIndex(d, 0), kMnistInputBytes);
  EXPECT_EQ(aclmdlGetOutputSizeByIndex(d, 0), kMnistOutputBytes);

  aclmdlIODims dims;
  std::memset(&dims, 0x7f, sizeof dims);
  ASSERT_EQ(aclmdlGetInputDims(d, 0, &dims), ACL_SUCCESS);
  EXPECT_STREQ(dims.name, kMnistInput);
  ASSERT_EQ(dims.dimCount, 4u);
  EXPECT_EQ(std::vector<int64_t>(dims.dims, dims.dims + 4), (std::vector<int64_t>{1, 1, 28, 28}));
  aclmdlIODims v2;
  ASSERT_EQ(aclmdlGetInputDimsV2(d, 0, &v2), ACL_SUCCESS);
  EXPECT_STREQ(v2.name, kMnistInput);
  EXPECT_EQ(v2.dimCount, 4u);

  std::memset(&dims, 0x7f, sizeof dims);
  ASSERT_EQ(aclmdlGetOutputDims(d, 0, &dims), ACL_SUCCESS);
  EXPECT_STREQ(dims.name, kMnistOutput);
  ASSERT_EQ(dims.dimCount, 2u);
  EXPECT_EQ(dims.dims[0], 1);
  EXPECT_EQ(dims.dims[1], 10);
  aclmdlIODims cur;
  ASSERT_EQ(aclmdlGetCurOutputDims(d, 0, &cur), ACL_SUCCESS);
  EXPECT_STREQ(cur.name, dims.name);
  ASSERT_EQ(cur.dimCount, dims.dimCount);
  EXPECT_EQ(cur.dims[0], 1);
  EXPECT_EQ(cur.dims[1], 10);

  EXPECT_EQ(aclmdlGetInputDataType(d, 0), ACL_FLOAT);
  EXPECT_EQ(aclmdlGetOutputDataType(d, 0), ACL_FLOAT);
  const aclFormat in_format = aclmdlGetInputFormat(d, 0);
  EXPECT_TRUE(in_format == ACL_FORMAT_NCHW || in_format == ACL_FORMAT_ND) << in_format;
  EXPECT_EQ(aclmdlGetOutputFormat(d, 0), ACL_FORMAT_ND);
  EXPECT_STREQ(aclmdlGetInputNameByIndex(d, 0), kMnistInput);
  EXPECT_STREQ(aclmdlGetOutputNameByIndex(d, 0), kMnistOutput);

  size_t index = 99;
  ASSERT_EQ(aclmdlGetInputIndexByName(d, kMnistInput, &index), ACL_SUCCESS);
  EXPECT_EQ(index, 0u);
  index = 99;
  ASSERT_EQ(aclmdlGetOutputIndexByName(d, kMnistOutput, &index), ACL_SUCCESS);
  EXPECT_EQ(index, 0u);
}

TEST_F(ModelApiTest, DescriptionRefusesBadIndicesAndNames) {
  KILN_REQUIRE_MNIST();
  LoadedModel m(MnistOm());
  aclmdlDesc* d = m.desc();
  size_t index = 0;
  EXPECT_EQ(aclmdlGetInputIndexByName(d, "no_such_input", &index), ACL_ERROR_INVALID_PARAM);
  EXPECT_TRUE(Contains(RecentErrMsg(), "no_such_input"));
  EXPECT_EQ(aclmdlGetOutputIndexByName(d, kMnistInput, &index), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclmdlGetInputIndexByName(d, nullptr, &index), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclmdlGetInputIndexByName(d, kMnistInput, nullptr), ACL_ERROR_INVALID_PARAM);

  EXPECT_EQ(aclmdlGetInputSizeByIndex(d, 1), 0u);
  EXPECT_EQ(aclmdlGetOutputSizeByIndex(d, 1), 0u);
  aclmdlIODims dims;
  EXPECT_EQ(aclmdlGetInputDims(d, 1, &dims), ACL_ERROR_INVALID_PARAM);
  EXPECT_TRUE(Contains(RecentErrMsg(), "out of range"));
  EXPECT_EQ(aclmdlGetInputDimsV2(d, 1, &dims), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclmdlGetOutputDims(d, 1, &dims), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclmdlGetCurOutputDims(d, 1, &dims), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclmdlGetInputDims(d, 0, nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclmdlGetInputDataType(d, 1), ACL_DT_UNDEFINED);
  EXPECT_EQ(aclmdlGetOutputDataType(d, 1), ACL_DT_UNDEFINED);
  EXPECT_EQ(aclmdlGetInputFormat(d, 1), ACL_FORMAT_UNDEFINED);
  EXPECT_EQ(aclmdlGetOutputFormat(d, 1), ACL_FORMAT_UNDEFINED);
  const char* name = aclmdlGetInputNameByIndex(d, 1);
  EXPECT_TRUE(name == nullptr || *name == '\0');
  name = aclmdlGetOutputNameByIndex(d, 1);
  EXPECT_TRUE(name == nullptr || *name == '\0');

  // A NULL or unfilled description.
  EXPECT_EQ(aclmdlGetNumInputs(nullptr), 0u);
  EXPECT_EQ(aclmdlGetNumOutputs(nullptr), 0u);
  EXPECT_EQ(aclmdlGetInputSizeByIndex(nullptr, 0), 0u);
  EXPECT_EQ(aclmdlGetInputDims(nullptr, 0, &dims), ACL_ERROR_INVALID_PARAM);
  aclmdlDesc* empty = aclmdlCreateDesc();
  ASSERT_NE(empty, nullptr);
  EXPECT_EQ(aclmdlGetNumInputs(empty), 0u);
  EXPECT_EQ(aclmdlGetInputDims(empty, 0, &dims), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclmdlGetDesc(nullptr, m.id()), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclmdlGetDesc(empty, m.id() + 1000), ACL_ERROR_INVALID_MODEL_ID);
  EXPECT_EQ(aclmdlDestroyDesc(empty), ACL_SUCCESS);
  EXPECT_EQ(aclmdlDestroyDesc(empty), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclmdlDestroyDesc(nullptr), ACL_ERROR_INVALID_PARAM);
}

TEST_F(ModelApiTest, DescriptionStaysValidAfterUnload) {
  KILN_REQUIRE_MNIST();
  LoadedModel m(MnistOm());
  ASSERT_EQ(aclmdlUnload(m.id()), ACL_SUCCESS);
  m.Release();
  EXPECT_EQ(aclmdlGetNumInputs(m.desc()), 1u);
  EXPECT_EQ(aclmdlGetOutputSizeByIndex(m.desc(), 0), kMnistOutputBytes);
  EXPECT_STREQ(aclmdlGetInputNameByIndex(m.desc(), 0), kMnistInput);
  aclmdlIODims dims;
  ASSERT_EQ(aclmdlGetCurOutputDims(m.desc(), 0, &dims), ACL_SUCCESS);
  EXPECT_EQ(dims.dimCount, 2u);
  // Filling it again needs a loaded model.
  EXPECT_EQ(aclmdlGetDesc(m.desc(), m.id()), ACL_ERROR_INVALID_MODEL_ID);
}

// ---- Datasets ---------------------------------------------------------------------------------

TEST_F(ModelApiTest, DatasetHoldsItsBuffersInOrder) {
  aclmdlDataset* ds = aclmdlCreateDataset();
  ASSERT_NE(ds, nullptr);
  EXPECT_EQ(aclmdlGetDatasetNumBuffers(ds), 0u);
  EXPECT_EQ(aclmdlGetDatasetBuffer(ds, 0), nullptr);
  char storage[3][16];
  aclDataBuffer* buffers[3];
  for (int i = 0; i < 3; ++i) {
    buffers[i] = aclCreateDataBuffer(storage[i], sizeof storage[i]);
    ASSERT_NE(buffers[i], nullptr);
    EXPECT_EQ(aclmdlAddDatasetBuffer(ds, buffers[i]), ACL_SUCCESS);
    EXPECT_EQ(aclmdlGetDatasetNumBuffers(ds), static_cast<size_t>(i + 1));
  }
  for (int i = 0; i < 3; ++i) EXPECT_EQ(aclmdlGetDatasetBuffer(ds, i), buffers[i]);
  EXPECT_EQ(aclmdlGetDatasetBuffer(ds, 3), nullptr);
  EXPECT_TRUE(Contains(RecentErrMsg(), "out of range"));
  EXPECT_EQ(aclmdlAddDatasetBuffer(ds, nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclmdlGetDatasetNumBuffers(ds), 3u);
  EXPECT_EQ(aclmdlDestroyDataset(ds), ACL_SUCCESS);
  // Destroying the dataset left its buffers alone.
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(aclGetDataBufferAddr(buffers[i]), storage[i]);
    EXPECT_EQ(aclDestroyDataBuffer(buffers[i]), ACL_SUCCESS);
  }
}

TEST_F(ModelApiTest, DatasetFunctionsRefuseNullAndDestroyedDatasets) {
  char storage[16];
  aclDataBuffer* buffer = aclCreateDataBuffer(storage, sizeof storage);
  ASSERT_NE(buffer, nullptr);
  EXPECT_EQ(aclmdlAddDatasetBuffer(nullptr, buffer), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclmdlGetDatasetNumBuffers(nullptr), 0u);
  EXPECT_EQ(aclmdlGetDatasetBuffer(nullptr, 0), nullptr);
  EXPECT_EQ(aclmdlDestroyDataset(nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclmdlGetDatasetTensorDesc(nullptr, 0), nullptr);
  aclmdlDataset* ds = aclmdlCreateDataset();
  ASSERT_NE(ds, nullptr);
  EXPECT_EQ(aclmdlDestroyDataset(ds), ACL_SUCCESS);
  EXPECT_EQ(aclmdlDestroyDataset(ds), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclmdlAddDatasetBuffer(ds, buffer), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclDestroyDataBuffer(buffer), ACL_SUCCESS);
}

TEST_F(ModelApiTest, SetDatasetTensorDescTakesACopy) {
  char storage[2][16];
  aclDataBuffer* b0 = aclCreateDataBuffer(storage[0], sizeof storage[0]);
  aclDataBuffer* b1 = aclCreateDataBuffer(storage[1], sizeof storage[1]);
  aclmdlDataset* ds = aclmdlCreateDataset();
  ASSERT_NE(ds, nullptr);
  ASSERT_EQ(aclmdlAddDatasetBuffer(ds, b0), ACL_SUCCESS);
  ASSERT_EQ(aclmdlAddDatasetBuffer(ds, b1), ACL_SUCCESS);
  EXPECT_EQ(aclmdlGetDatasetTensorDesc(ds, 0), nullptr);  // none set yet

  const int64_t dims[] = {3, 1, 28, 28};
  aclTensorDesc* desc = aclCreateTensorDesc(ACL_FLOAT, 4, dims, ACL_FORMAT_NCHW);
  ASSERT_NE(desc, nullptr);
  EXPECT_EQ(aclmdlSetDatasetTensorDesc(ds, desc, 1), ACL_SUCCESS);
  EXPECT_EQ(aclmdlSetDatasetTensorDesc(ds, desc, 2), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclmdlSetDatasetTensorDesc(ds, nullptr, 0), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclmdlSetDatasetTensorDesc(nullptr, desc, 0), ACL_ERROR_INVALID_PARAM);
  aclDestroyTensorDesc(desc);  // the dataset's copy outlives the caller's desc

  EXPECT_EQ(aclmdlGetDatasetTensorDesc(ds, 0), nullptr);
  EXPECT_EQ(aclmdlGetDatasetTensorDesc(ds, 2), nullptr);
  const aclTensorDesc* copy = aclmdlGetDatasetTensorDesc(ds, 1);
  ASSERT_NE(copy, nullptr);
  EXPECT_EQ(aclGetTensorDescType(copy), ACL_FLOAT);
  EXPECT_EQ(aclGetTensorDescFormat(copy), ACL_FORMAT_NCHW);
  ASSERT_EQ(aclGetTensorDescNumDims(copy), 4u);
  for (size_t i = 0; i < 4; ++i) {
    int64_t dim = 0;
    EXPECT_EQ(aclGetTensorDescDimV2(copy, i, &dim), ACL_SUCCESS);
    EXPECT_EQ(dim, dims[i]);
  }

  // Setting again replaces it.
  const int64_t other[] = {5, 10};
  aclTensorDesc* second = aclCreateTensorDesc(ACL_INT32, 2, other, ACL_FORMAT_ND);
  ASSERT_EQ(aclmdlSetDatasetTensorDesc(ds, second, 1), ACL_SUCCESS);
  aclDestroyTensorDesc(second);
  const aclTensorDesc* replaced = aclmdlGetDatasetTensorDesc(ds, 1);
  ASSERT_NE(replaced, nullptr);
  EXPECT_EQ(aclGetTensorDescType(replaced), ACL_INT32);
  ASSERT_EQ(aclGetTensorDescNumDims(replaced), 2u);
  int64_t dim = 0;
  EXPECT_EQ(aclGetTensorDescDimV2(replaced, 0, &dim), ACL_SUCCESS);
  EXPECT_EQ(dim, 5);

  EXPECT_EQ(aclmdlDestroyDataset(ds), ACL_SUCCESS);
  EXPECT_EQ(aclDestroyDataBuffer(b0), ACL_SUCCESS);
  EXPECT_EQ(aclDestroyDataBuffer(b1), ACL_SUCCESS);
}

}  // namespace

namespace kiln::model_test {
namespace {

// A one-node ONNX model: y = Conv(x [1,256,8,8], w [256,256,3,3], pads 1), w random: packing
// its 2.4 MB of weights opens parallel regions.
std::string WriteWideConvModel() {
  onnx::ModelProto model;
  model.set_ir_version(8);
  model.add_opset_import()->set_version(13);
  onnx::GraphProto* g = model.mutable_graph();
  g->set_name("wide_conv");
  onnx::NodeProto* node = g->add_node();
  node->set_op_type("Conv");
  node->set_name("conv");
  node->add_input("x");
  node->add_input("w");
  node->add_output("y");
  auto* pads = node->add_attribute();
  pads->set_name("pads");
  pads->set_type(onnx::AttributeProto::INTS);
  for (int i = 0; i < 4; ++i) pads->add_ints(1);
  onnx::TensorProto* w = g->add_initializer();
  w->set_name("w");
  w->set_data_type(onnx::TensorProto::FLOAT);
  for (int64_t d : {256, 256, 3, 3}) w->add_dims(d);
  std::mt19937 gen(11);
  std::uniform_real_distribution<float> dist(-0.05f, 0.05f);
  for (int i = 0; i < 256 * 256 * 9; ++i) w->add_float_data(dist(gen));
  auto value = [](onnx::ValueInfoProto* v, const char* name) {
    v->set_name(name);
    auto* t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(onnx::TensorProto::FLOAT);
    for (int64_t d : {1, 256, 8, 8}) t->mutable_shape()->add_dim()->set_dim_value(d);
  };
  value(g->add_input(), "x");
  value(g->add_output(), "y");
  const std::string path = ScratchDir() + "/wide_conv.onnx";
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  EXPECT_TRUE(model.SerializeToOstream(&out)) << path;
  return path;
}

size_t ThreadsOfThisProcess() {
  size_t n = 0;
  for (const auto& e : std::filesystem::directory_iterator("/proc/self/task")) n += e.exists();
  return n;
}

// The CPU device prepares a model's kernels on a thread that ends with the load
// (hal::Device::RunPreparation): the loading thread keeps no OpenMP workers of its own, which
// would stay counted by libgomp and make the idle workers of every thread that executes later
// sleep instead of spin (MobileNetV2 executed from a worker thread: 6.7 ms instead of 3.35).
TEST_F(ModelApiTest, LoadingLeavesNoComputeThreadsBehind) {
  if (std::thread::hardware_concurrency() < 2) GTEST_SKIP() << "one CPU: no OpenMP workers";
  const std::string om = CompileOm("wide_conv", WriteWideConvModel());
  ASSERT_FALSE(om.empty());
  const size_t before = ThreadsOfThisProcess();
  LoadedModel model(om);
  // The preparing thread's own worker is told to end when that thread does, not waited for.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (ThreadsOfThisProcess() > before && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_EQ(ThreadsOfThisProcess(), before);
}

}  // namespace
}  // namespace kiln::model_test
