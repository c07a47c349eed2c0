// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// CANN's graph-engine C++ API (ge/ge_ir_build.h, parser/onnx_parser.h, graph/*.h) through the
// public headers, linked as CANN programs link it (-lfmk_onnx_parser -lge_compiler -lgraph, with
// -lascendcl to run the result): mnist-8 parsed from memory and from its file, built with an
// input shape, saved as <name>.om, loaded with aclmdlLoadFromFile and run against the ONNX test
// data; the failures onnxruntime's CANN provider can meet. docs/ge-api.md.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "ge/ge_ir_build.h"
#include "parser/onnx_parser.h"
#include "tests/capi/model_test_util.h"

namespace {

using kiln::model_test::LoadMnistCase;
using kiln::model_test::MatchesOnnx;
using kiln::model_test::MnistOnnx;
using Options = std::map<ge::AscendString, ge::AscendString>;

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(GeApiTest, AscendStringOrdersAsCanns) {
  ge::AscendString empty, a("a"), b("b"), null_name(nullptr);
  EXPECT_TRUE(empty < a);
  EXPECT_FALSE(a < empty);
  EXPECT_FALSE(empty < null_name);
  EXPECT_TRUE(a < b);
  EXPECT_STREQ(empty.GetString(), "");
  EXPECT_STREQ(ge::AscendString("abc", 2).GetString(), "ab");
  EXPECT_EQ(ge::AscendString("xy").GetLength(), 2u);
  EXPECT_TRUE(ge::AscendString("x") == ge::AscendString("x"));
  EXPECT_TRUE(ge::AscendString("x") != ge::AscendString("y"));
  Options m;
  m.emplace("input_shape", "x:1");
  m.emplace("ge.socVersion", "cpu");
  EXPECT_EQ(m.begin()->first, ge::AscendString("ge.socVersion"));
}

class GeBuildTest : public ::testing::Test {
 protected:
  void SetUp() override {
    KILN_REQUIRE_MNIST();
    ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
    ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
    dir_ = ::testing::TempDir() + "kiln_ge_test_" + std::to_string(getpid());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override {
    ge::aclgrphBuildFinalize();
    aclrtResetDevice(0);
    aclFinalize();
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  // Runs the model in `path` on test_data_set_0 and compares with the ONNX test data.
  void RunMnist(const std::string& path) {
    uint32_t id = 0;
    ASSERT_EQ(aclmdlLoadFromFile(path.c_str(), &id), ACL_SUCCESS) << aclGetRecentErrMsg();
    auto c = LoadMnistCase(0);
    void* in = nullptr;
    void* out = nullptr;
    ASSERT_EQ(aclrtMalloc(&in, c.input.size() * 4, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    ASSERT_EQ(aclrtMalloc(&out, 40, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    ASSERT_EQ(aclrtMemcpy(in, c.input.size() * 4, c.input.data(), c.input.size() * 4,
                          ACL_MEMCPY_HOST_TO_DEVICE),
              ACL_SUCCESS);
    aclmdlDataset* ins = aclmdlCreateDataset();
    aclmdlDataset* outs = aclmdlCreateDataset();
    aclDataBuffer* ib = aclCreateDataBuffer(in, c.input.size() * 4);
    aclDataBuffer* ob = aclCreateDataBuffer(out, 40);
    ASSERT_EQ(aclmdlAddDatasetBuffer(ins, ib), ACL_SUCCESS);
    ASSERT_EQ(aclmdlAddDatasetBuffer(outs, ob), ACL_SUCCESS);
    ASSERT_EQ(aclmdlExecute(id, ins, outs), ACL_SUCCESS) << aclGetRecentErrMsg();
    std::vector<float> got(10);
    ASSERT_EQ(aclrtMemcpy(got.data(), 40, out, 40, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    EXPECT_TRUE(MatchesOnnx(got, c.expected, {1, 10}));
    aclDestroyDataBuffer(ib);
    aclDestroyDataBuffer(ob);
    aclmdlDestroyDataset(ins);
    aclmdlDestroyDataset(outs);
    aclrtFree(in);
    aclrtFree(out);
    EXPECT_EQ(aclmdlUnload(id), ACL_SUCCESS);
  }
  std::string dir_;
};

TEST_F(GeBuildTest, ParsedFromMemoryBuiltSavedAndRunLikeTheCannProviderDoes) {
  const std::string onnx = ReadAll(MnistOnnx());
  ge::Graph graph("mnist_subgraph");
  EXPECT_FALSE(graph.IsValid());
  ASSERT_EQ(ge::aclgrphParseONNXFromMem(onnx.data(), onnx.size(), {}, graph), ge::GRAPH_SUCCESS);
  EXPECT_TRUE(graph.IsValid());
  Options global = {{ge::ir_option::SOC_VERSION, aclrtGetSocName()}};
  ASSERT_EQ(ge::aclgrphBuildInitialize(global), ge::GRAPH_SUCCESS);
  ge::ModelBufferData model;
  ASSERT_EQ(ge::aclgrphBuildModel(graph, {{ge::ir_option::INPUT_SHAPE, "Input3:1,1,28,28"}}, model),
            ge::GRAPH_SUCCESS);
  ASSERT_NE(model.data, nullptr);
  EXPECT_GT(model.length, 1000u);
  const std::string base = dir_ + "/mnist_123";
  ASSERT_EQ(ge::aclgrphSaveModel(base.c_str(), model), ge::GRAPH_SUCCESS);
  EXPECT_EQ(std::filesystem::file_size(base + ".om"), model.length);  // ".om" appended
  RunMnist(base + ".om");
  // From memory too, as the provider loads it.
  uint32_t id = 0;
  ASSERT_EQ(aclmdlLoadFromMem(model.data.get(), model.length, &id), ACL_SUCCESS);
  EXPECT_EQ(aclmdlUnload(id), ACL_SUCCESS);
}

TEST_F(GeBuildTest, ParsedFromAFileAndFailuresAreStatusesNotCrashes) {
  ge::Graph graph("mnist");
  ASSERT_EQ(ge::aclgrphParseONNX(MnistOnnx().c_str(), {}, graph), ge::GRAPH_SUCCESS);
  ge::ModelBufferData model;
  // Building before aclgrphBuildInitialize fails; finalising without it is allowed.
  ge::aclgrphBuildFinalize();
  EXPECT_EQ(ge::aclgrphBuildModel(graph, {}, model), ge::GRAPH_FAILED);
  Options global;
  ASSERT_EQ(ge::aclgrphBuildInitialize(global), ge::GRAPH_SUCCESS);
  // A shape for an input the model does not have, and a malformed one.
  EXPECT_EQ(ge::aclgrphBuildModel(graph, {{"input_shape", "nope:1,2"}}, model), ge::GRAPH_FAILED);
  EXPECT_EQ(ge::aclgrphBuildModel(graph, {{"input_shape", "Input3:1,x"}}, model), ge::GRAPH_FAILED);
  // A graph with no model, bytes that are not ONNX, NULL arguments.
  ge::Graph empty("empty");
  EXPECT_EQ(ge::aclgrphBuildModel(empty, {}, model), ge::GRAPH_PARAM_INVALID);
  ge::Graph junk("junk");
  const char bytes[] = "not an onnx model";
  ASSERT_EQ(ge::aclgrphParseONNXFromMem(bytes, sizeof bytes, {}, junk), ge::GRAPH_SUCCESS);
  EXPECT_EQ(ge::aclgrphBuildModel(junk, {}, model), ge::GRAPH_FAILED);
  EXPECT_EQ(ge::aclgrphParseONNXFromMem(nullptr, 10, {}, junk), ge::GRAPH_PARAM_INVALID);
  EXPECT_EQ(ge::aclgrphParseONNX("/no/such/model.onnx", {}, junk), ge::GRAPH_FAILED);
  EXPECT_EQ(ge::aclgrphSaveModel(nullptr, model), ge::GRAPH_PARAM_INVALID);
  ge::ModelBufferData none{};
  EXPECT_EQ(ge::aclgrphSaveModel((dir_ + "/x").c_str(), none), ge::GRAPH_PARAM_INVALID);
  // The file-parsed graph still builds. A bare name in input_shape is how the provider writes a
  // rank-0 input: it binds nothing.
  ASSERT_EQ(ge::aclgrphBuildModel(graph, {{"input_shape", "Input3:1,1,28,28;scalar"}}, model),
            ge::GRAPH_SUCCESS);
  ASSERT_EQ(ge::aclgrphSaveModel((dir_ + "/m").c_str(), model), ge::GRAPH_SUCCESS);
  RunMnist(dir_ + "/m.om");
}

}  // namespace
