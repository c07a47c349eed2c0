// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Contract and content tests of the data dump (aclmdlInitDump / aclmdlSetDump /
// aclmdlFinalizeDump and acl.json's "dump" block; docs/tools.md "Data dump"): the documented
// call-order codes, bad config files refused with the key named, and a dump of mnist-8 that
// holds every node's output with the shape and dtype worked out by hand from the model, the last
// one equal to what aclmdlExecute returned. (Values against onnxruntime, node by node:
// tests/tools/test_dump_compare.py.)
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "tests/capi/model_test_util.h"

namespace kiln::model_test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

fs::path FreshDir(const std::string& name) {
  fs::path dir = fs::path(ScratchDir()) / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// Writes {"dump": {dump_path, dump_list: [{model_name[, layer]}], dump_mode[, dump_data]}}.
fs::path WriteConfig(const fs::path& at, const fs::path& dump_path, const std::string& mode,
                     const std::vector<std::string>& layers = {},
                     const std::string& data = "tensor") {
  json entry = {{"model_name", "mnist"}};
  if (!layers.empty()) entry["layer"] = layers;
  json cfg = {{"dump",
               {{"dump_path", dump_path.string()},
                {"dump_list", json::array({entry})},
                {"dump_mode", mode},
                {"dump_data", data}}}};
  std::ofstream(at) << cfg.dump();
  return at;
}

// The index.json files under a dump folder, sorted by path.
std::vector<fs::path> Indexes(const fs::path& dir) {
  std::vector<fs::path> out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.path().filename() == "index.json") out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

json ReadJson(const fs::path& p) {
  std::ifstream in(p);
  return json::parse(in, nullptr, false);
}

// A .npy file's descr, shape and data.
struct Npy {
  std::string descr;
  std::vector<int64_t> shape;
  std::vector<uint8_t> data;
};

Npy ReadNpy(const fs::path& p) {
  std::vector<uint8_t> bytes = ReadBytes(p.string());
  Npy npy;
  EXPECT_GE(bytes.size(), 10u) << p;
  if (bytes.size() < 10) return npy;
  EXPECT_EQ(std::string(bytes.begin(), bytes.begin() + 6), "\x93NUMPY");
  const size_t len = bytes[8] | (bytes[9] << 8);
  EXPECT_EQ((10 + len) % 64, 0u) << "header not padded to 64 bytes";
  const std::string header(bytes.begin() + 10, bytes.begin() + 10 + len);
  const size_t d = header.find("'descr': '");
  if (d != std::string::npos) npy.descr = header.substr(d + 10, 3);
  const size_t s = header.find("'shape': (");
  if (s != std::string::npos) {
    std::string dims = header.substr(s + 10, header.find(')', s) - s - 10);
    std::stringstream in(dims);
    std::string part;
    while (std::getline(in, part, ',')) {
      if (part.find_first_not_of(' ') != std::string::npos) npy.shape.push_back(std::stoll(part));
    }
  }
  npy.data.assign(bytes.begin() + 10 + len, bytes.end());
  return npy;
}

// mnist-8's ONNX nodes: name -> (output tensor, all inputs constant).
struct OnnxNode {
  std::string output;
  bool constant_inputs = true;
};
std::map<std::string, OnnxNode> MnistNodes() {
  onnx::ModelProto model;
  std::ifstream in(MnistOnnx(), std::ios::binary);
  EXPECT_TRUE(model.ParseFromIstream(&in));
  std::set<std::string> constants;
  for (const auto& i : model.graph().initializer()) constants.insert(i.name());
  std::map<std::string, OnnxNode> nodes;
  for (const auto& n : model.graph().node()) {
    OnnxNode o;
    o.output = n.output(0);
    for (const auto& i : n.input()) o.constant_inputs &= constants.count(i) > 0;
    if (o.constant_inputs) constants.insert(n.output(0));
    nodes[n.name()] = o;
  }
  return nodes;
}

// The shapes of mnist-8's intermediate tensors, worked by hand from the model: 5x5 convolutions
// with same padding, 2x2 and 3x3 max pools of stride 2 and 3, then 256 -> 10.
const std::map<std::string, std::vector<int64_t>>& MnistShapes() {
  static const std::map<std::string, std::vector<int64_t>> shapes = {
      {"Convolution28_Output_0", {1, 8, 28, 28}},
      {"Plus30_Output_0", {1, 8, 28, 28}},
      {"ReLU32_Output_0", {1, 8, 28, 28}},
      {"Pooling66_Output_0", {1, 8, 14, 14}},
      {"Convolution110_Output_0", {1, 16, 14, 14}},
      {"Plus112_Output_0", {1, 16, 14, 14}},
      {"ReLU114_Output_0", {1, 16, 14, 14}},
      {"Pooling160_Output_0", {1, 16, 4, 4}},
      {"Pooling160_Output_0_reshape0", {1, 256}},
      {"Times212_Output_0", {1, 10}},
      {"Plus214_Output_0", {1, 10}},
  };
  return shapes;
}

// Runs mnist-8 once on test data set 0 and returns its output.
std::vector<float> RunMnistOnce(uint32_t id) {
  MnistCase c = LoadMnistCase(0);
  IoDatasets io({kMnistInputBytes}, {kMnistOutputBytes});
  io.input(0).Write(c.input);
  EXPECT_EQ(aclmdlExecute(id, io.in(), io.out()), ACL_SUCCESS) << RecentErrMsg();
  std::vector<float> out = io.output(0).ReadFloats(kMnistOutputFloats);
  EXPECT_TRUE(MatchesOnnx(out, c.expected, {1, 10}));
  return out;
}

// Checks an index of a dump_mode output run of mnist-8: every ONNX node that is not
// constant-folded appears in a dumped node's onnx_nodes; every dumped output has a file whose
// dtype and shape are the hand-worked ones; the model output's file holds `output` (or, for
// concurrent runs, one of `others`).
void CheckOutputDump(const fs::path& index_path, const std::vector<float>& output,
                     const std::vector<std::vector<float>>& others = {}) {
  json index = ReadJson(index_path);
  ASSERT_FALSE(index.is_discarded()) << index_path;
  EXPECT_EQ(index["model_name"], "mnist");
  EXPECT_EQ(index["dump_mode"], "output");
  const auto onnx = MnistNodes();
  std::set<std::string> covered;
  bool saw_output = false;
  ASSERT_FALSE(index["nodes"].empty());
  for (const json& node : index["nodes"]) {
    for (const json& o : node["onnx_nodes"]) {
      EXPECT_EQ(onnx.count(o.get<std::string>()), 1u) << o << " is not an ONNX node";
      covered.insert(o.get<std::string>());
    }
    EXPECT_TRUE(node["inputs"].empty()) << "dump_mode output wrote inputs";
    ASSERT_FALSE(node["outputs"].empty()) << node["node"];
    for (const json& out : node["outputs"]) {
      ASSERT_TRUE(out.contains("file")) << out;
      const std::string tensor = out["tensor"];
      const Npy npy = ReadNpy(index_path.parent_path() / out["file"].get<std::string>());
      EXPECT_EQ(npy.descr, "<f4") << tensor;
      EXPECT_EQ(out["dtype"], "float32");
      auto it = MnistShapes().find(tensor);
      ASSERT_NE(it, MnistShapes().end()) << "dumped tensor '" << tensor << "' is not in mnist-8";
      EXPECT_EQ(npy.shape, it->second) << tensor;
      EXPECT_EQ(out["shape"].get<std::vector<int64_t>>(), it->second) << tensor;
      int64_t n = 1;
      for (int64_t d : it->second) n *= d;
      EXPECT_EQ(npy.data.size(), static_cast<size_t>(n) * sizeof(float)) << tensor;
      if (tensor == kMnistOutput) {
        saw_output = true;
        std::vector<float> dumped(kMnistOutputFloats);
        ASSERT_EQ(npy.data.size(), kMnistOutputBytes);
        std::memcpy(dumped.data(), npy.data.data(), kMnistOutputBytes);
        const bool matches =
            dumped == output || std::find(others.begin(), others.end(), dumped) != others.end();
        EXPECT_TRUE(matches) << "the dumped output is not what aclmdlExecute returned";
      }
    }
  }
  EXPECT_TRUE(saw_output);
  for (const auto& [name, node] : onnx) {
    if (!node.constant_inputs) {
      EXPECT_EQ(covered.count(name), 1u) << name << " is not in the dump";
    }
  }
}

TEST(DumpApiTest, CallsBeforeAclInitAreUninitialize) {
  EXPECT_EQ(aclmdlInitDump(), ACL_ERROR_UNINITIALIZE);
  EXPECT_TRUE(Contains(RecentErrMsg(), "aclInit"));
  EXPECT_EQ(aclmdlSetDump("x.json"), ACL_ERROR_UNINITIALIZE);
  EXPECT_EQ(aclmdlFinalizeDump(), ACL_ERROR_UNINITIALIZE);
}

class DumpTest : public ModelApiTest {};

TEST_F(DumpTest, CallsOutOfOrderGetTheDocumentedCodes) {
  const fs::path dir = FreshDir("dump_order");
  const fs::path cfg = WriteConfig(dir / "dump.json", dir, "output");
  EXPECT_EQ(aclmdlSetDump(cfg.c_str()), ACL_ERROR_DUMP_NOT_RUN);
  EXPECT_TRUE(Contains(RecentErrMsg(), "aclmdlInitDump"));
  EXPECT_EQ(aclmdlFinalizeDump(), ACL_ERROR_DUMP_NOT_RUN);
  ASSERT_EQ(aclmdlInitDump(), ACL_SUCCESS) << RecentErrMsg();
  EXPECT_EQ(aclmdlInitDump(), ACL_ERROR_REPEAT_INITIALIZE);
  EXPECT_EQ(aclmdlSetDump(nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclmdlSetDump(cfg.c_str()), ACL_SUCCESS) << RecentErrMsg();
  EXPECT_EQ(aclmdlSetDump(cfg.c_str()), ACL_SUCCESS);  // a new config replaces the old
  EXPECT_EQ(aclmdlFinalizeDump(), ACL_SUCCESS);
  EXPECT_EQ(aclmdlFinalizeDump(), ACL_ERROR_DUMP_NOT_RUN);
  // Again, as the reference's "dump twice with different configs" sequence does.
  EXPECT_EQ(aclmdlInitDump(), ACL_SUCCESS);
  EXPECT_EQ(aclmdlFinalizeDump(), ACL_SUCCESS);
}

TEST_F(DumpTest, BadConfigFilesAreRefusedNamingTheKey) {
  const fs::path dir = FreshDir("dump_bad");
  ASSERT_EQ(aclmdlInitDump(), ACL_SUCCESS);
  EXPECT_EQ(aclmdlSetDump((dir / "missing.json").c_str()), ACL_ERROR_INVALID_FILE);
  EXPECT_TRUE(Contains(RecentErrMsg(), "missing.json"));
  std::ofstream(dir / "broken.json") << R"({"dump": {"dump_path": )";
  EXPECT_EQ(aclmdlSetDump((dir / "broken.json").c_str()), ACL_ERROR_PARSE_FILE);
  EXPECT_TRUE(Contains(RecentErrMsg(), "broken.json"));
  const std::string path = dir.string();
  const std::pair<std::string, std::string> bad[] = {
      {R"({"profiler": {}})", "\"dump\""},
      {R"({"dump": {"dump_list": [{"model_name": "mnist"}]}})", "dump_path"},
      {R"({"dump": {"dump_path": ")" + path + R"(/nope", "dump_list": [{"model_name": "m"}]}})",
       "dump_path"},
      {R"({"dump": {"dump_path": ")" + path + R"("}})", "dump_list"},
      {R"({"dump": {"dump_path": ")" + path + R"(", "dump_list": [{"layer": ["a"]}]}})",
       "model_name"},
      {R"({"dump": {"dump_path": ")" + path +
           R"(", "dump_list": [{"model_name": "m", "layer": []}]}})",
       "layer"},
      {R"({"dump": {"dump_path": ")" + path +
           R"(", "dump_list": [{"model_name": "m"}], "dump_mode": "outputs"}})",
       "dump_mode"},
      {R"({"dump": {"dump_path": ")" + path +
           R"(", "dump_list": [{"model_name": "m"}], "dump_data": "bin"}})",
       "dump_data"},
      {R"({"dump": {"dump_path": ")" + path +
           R"(", "dump_list": [{"model_name": "m"}], "dump_op_switch": "yes"}})",
       "dump_op_switch"},
  };
  for (const auto& [text, key] : bad) {
    std::ofstream(dir / "bad.json", std::ios::trunc) << text;
    EXPECT_EQ(aclmdlSetDump((dir / "bad.json").c_str()), ACL_ERROR_INVALID_DUMP_CONFIG) << text;
    EXPECT_TRUE(Contains(RecentErrMsg(), key)) << text;
  }
  EXPECT_EQ(aclmdlFinalizeDump(), ACL_SUCCESS);
}

TEST_F(DumpTest, SetDumpWritesEveryNodesOutputOfMnist) {
  KILN_REQUIRE_MNIST();
  const fs::path dir = FreshDir("dump_setdump");
  ASSERT_EQ(aclmdlInitDump(), ACL_SUCCESS);
  ASSERT_EQ(aclmdlSetDump(WriteConfig(dir / "dump.json", dir, "output").c_str()), ACL_SUCCESS)
      << RecentErrMsg();
  std::vector<float> output;
  uint32_t id = 0;
  {
    LoadedModel model(MnistOm());
    id = model.id();
    output = RunMnistOnce(id);
  }
  ASSERT_EQ(aclmdlFinalizeDump(), ACL_SUCCESS);
  const auto indexes = Indexes(dir);
  ASSERT_EQ(indexes.size(), 1u);
  // <dump_path>/<time>/<device>/<model_name>/<model_id>/<execution>/index.json
  const fs::path rel = fs::relative(indexes[0], dir);
  std::vector<std::string> parts(rel.begin(), rel.end());
  ASSERT_EQ(parts.size(), 6u) << rel;
  EXPECT_EQ(parts[0].size(), 14u) << "time folder YYYYMMDDhhmmss: " << parts[0];
  EXPECT_EQ(parts[1], "0");
  EXPECT_EQ(parts[2], "mnist");
  EXPECT_EQ(parts[3], std::to_string(id));
  EXPECT_EQ(parts[4], "0");
  CheckOutputDump(indexes[0], output);
  // After aclmdlFinalizeDump nothing more is written.
  LoadedModel again(MnistOm());
  RunMnistOnce(again.id());
  EXPECT_EQ(Indexes(dir).size(), 1u);
}

// Concurrent executions of one model each get an execution folder of their own, complete.
TEST_F(DumpTest, ConcurrentExecutionsEachWriteTheirOwnExecutionFolder) {
  KILN_REQUIRE_MNIST();
  const fs::path dir = FreshDir("dump_concurrent");
  ASSERT_EQ(aclmdlInitDump(), ACL_SUCCESS);
  ASSERT_EQ(aclmdlSetDump(WriteConfig(dir / "dump.json", dir, "output").c_str()), ACL_SUCCESS);
  constexpr int kThreads = 3;
  std::vector<std::vector<float>> outputs(kThreads);
  {
    LoadedModel model(MnistOm());
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
        outputs[t] = RunMnistOnce(model.id());
        ASSERT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
      });
    }
    for (auto& th : threads) th.join();
  }
  ASSERT_EQ(aclmdlFinalizeDump(), ACL_SUCCESS);
  const auto indexes = Indexes(dir);
  ASSERT_EQ(indexes.size(), static_cast<size_t>(kThreads));
  std::set<std::string> executions;
  for (const fs::path& index : indexes) {
    executions.insert(index.parent_path().filename().string());
    CheckOutputDump(index, outputs[0], outputs);  // each run's dump holds that run's output
  }
  EXPECT_EQ(executions, (std::set<std::string>{"0", "1", "2"}));
}

TEST_F(DumpTest, LayersSelectNodesAndInputModeWritesTheirInputsWeightsIncluded) {
  KILN_REQUIRE_MNIST();
  const fs::path dir = FreshDir("dump_layers");
  ASSERT_EQ(aclmdlInitDump(), ACL_SUCCESS);
  ASSERT_EQ(aclmdlSetDump(WriteConfig(dir / "d.json", dir, "input", {"Convolution28"}).c_str()),
            ACL_SUCCESS)
      << RecentErrMsg();
  {
    LoadedModel model(MnistOm());
    RunMnistOnce(model.id());
  }
  ASSERT_EQ(aclmdlFinalizeDump(), ACL_SUCCESS);
  const auto indexes = Indexes(dir);
  ASSERT_EQ(indexes.size(), 1u);
  json index = ReadJson(indexes[0]);
  ASSERT_EQ(index["nodes"].size(), 1u) << index.dump(1);
  const json& node = index["nodes"][0];
  const auto origins = node["onnx_nodes"].get<std::vector<std::string>>();
  EXPECT_NE(std::find(origins.begin(), origins.end(), "Convolution28"), origins.end());
  EXPECT_TRUE(node["outputs"].empty());
  ASSERT_GE(node["inputs"].size(), 2u);
  // Input 0 is the model input as given; input 1 the 8x1x5x5 weights.
  const Npy x = ReadNpy(indexes[0].parent_path() / node["inputs"][0]["file"].get<std::string>());
  EXPECT_EQ(x.shape, (std::vector<int64_t>{1, 1, 28, 28}));
  MnistCase c = LoadMnistCase(0);
  ASSERT_EQ(x.data.size(), kMnistInputBytes);
  EXPECT_EQ(std::memcmp(x.data.data(), c.input.data(), kMnistInputBytes), 0);
  const json& w = node["inputs"][1];
  EXPECT_EQ(w["tensor"], "Parameter5");
  EXPECT_EQ(w["constant"], true);
  EXPECT_EQ(ReadNpy(indexes[0].parent_path() / w["file"].get<std::string>()).shape,
            (std::vector<int64_t>{8, 1, 5, 5}));
}

TEST_F(DumpTest, StatsModeWritesStatisticsOfEachTensor) {
  KILN_REQUIRE_MNIST();
  const fs::path dir = FreshDir("dump_stats");
  ASSERT_EQ(aclmdlInitDump(), ACL_SUCCESS);
  ASSERT_EQ(aclmdlSetDump(WriteConfig(dir / "d.json", dir, "output", {}, "stats").c_str()),
            ACL_SUCCESS);
  std::vector<float> output;
  {
    LoadedModel model(MnistOm());
    output = RunMnistOnce(model.id());
  }
  ASSERT_EQ(aclmdlFinalizeDump(), ACL_SUCCESS);
  const auto indexes = Indexes(dir);
  ASSERT_EQ(indexes.size(), 1u);
  json index = ReadJson(indexes[0]);
  EXPECT_EQ(index["dump_data"], "stats");
  size_t npy_files = 0;
  for (const auto& e : fs::directory_iterator(indexes[0].parent_path())) {
    npy_files += e.path().extension() == ".npy";
  }
  EXPECT_EQ(npy_files, 0u);
  bool saw_output = false;
  for (const json& node : index["nodes"]) {
    for (const json& out : node["outputs"]) {
      ASSERT_TRUE(out.contains("stats")) << out;
      EXPECT_FALSE(out.contains("file"));
      if (out["tensor"] != kMnistOutput) continue;
      saw_output = true;
      // The oracle: the statistics of the output aclmdlExecute returned.
      double lo = output[0], hi = output[0], sum = 0;
      for (float v : output) lo = std::min<double>(lo, v), hi = std::max<double>(hi, v), sum += v;
      const double mean = sum / output.size();
      double sq = 0;
      for (float v : output) sq += (v - mean) * (v - mean);
      const json& s = out["stats"];
      EXPECT_EQ(s["count"], 10);
      EXPECT_EQ(s["nan"], 0);
      EXPECT_EQ(s["inf"], 0);
      EXPECT_DOUBLE_EQ(s["min"].get<double>(), lo);
      EXPECT_DOUBLE_EQ(s["max"].get<double>(), hi);
      EXPECT_NEAR(s["mean"].get<double>(), mean, 1e-9);
      EXPECT_NEAR(s["std"].get<double>(), std::sqrt(sq / output.size()), 1e-9);
    }
  }
  EXPECT_TRUE(saw_output);
}

// acl.json's "dump" block dumps every execution from aclInit to aclFinalize; meanwhile the
// dump API answers ACL_ERROR_DUMP_ALREADY_RUN.
TEST(DumpConfigTest, AclJsonDumpBlockDumpsEachExecution) {
  KILN_REQUIRE_MNIST();
  const fs::path dir = FreshDir("dump_acljson");
  const fs::path cfg = WriteConfig(dir / "acl.json", dir, "output");
  ASSERT_EQ(aclInit(cfg.c_str()), ACL_SUCCESS) << RecentErrMsg();
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  EXPECT_EQ(aclmdlInitDump(), ACL_ERROR_DUMP_ALREADY_RUN);
  EXPECT_EQ(aclmdlSetDump(cfg.c_str()), ACL_ERROR_DUMP_ALREADY_RUN);
  EXPECT_EQ(aclmdlFinalizeDump(), ACL_ERROR_DUMP_ALREADY_RUN);
  std::vector<float> first, second;
  {
    LoadedModel model(MnistOm());
    first = RunMnistOnce(model.id());
    second = RunMnistOnce(model.id());
  }
  ASSERT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
  ASSERT_EQ(aclFinalize(), ACL_SUCCESS);
  const auto indexes = Indexes(dir);
  ASSERT_EQ(indexes.size(), 2u);
  EXPECT_EQ(indexes[0].parent_path().filename(), "0");
  EXPECT_EQ(indexes[1].parent_path().filename(), "1");
  CheckOutputDump(indexes[0], first);
  CheckOutputDump(indexes[1], second);
}

TEST(DumpConfigTest, ABadDumpBlockFailsAclInitNamingTheKey) {
  const fs::path dir = FreshDir("dump_acljson_bad");
  std::ofstream(dir / "acl.json") << R"({"dump": {"dump_path": ")" << dir.string()
                                  << R"(", "dump_list": [{"model_name": "m"}],
                                      "dump_mode": "everything"}})";
  EXPECT_EQ(aclInit((dir / "acl.json").c_str()), ACL_ERROR_INVALID_DUMP_CONFIG);
  EXPECT_TRUE(Contains(RecentErrMsg(), "dump_mode"));
  EXPECT_EQ(aclInit(nullptr), ACL_SUCCESS);  // the process stays usable
  EXPECT_EQ(aclmdlInitDump(), ACL_SUCCESS);  // and the failed block left no dump on
  EXPECT_EQ(aclmdlFinalizeDump(), ACL_SUCCESS);
  EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
}

}  // namespace
}  // namespace kiln::model_test
