// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Contract and content tests of the profiling API (acl_prof.h; ascendcl-reference.md §1.12):
// the documented error codes, what a run's files hold (checked against the ONNX model and a
// hand-worked FLOP count), the model subscription records, msproftx, steps and stream tasks, and
// profiling switched on by acl.json or msprof's PROFILING_* environment.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "acl/acl_prof.h"
#include "tests/capi/model_test_util.h"

namespace kiln::model_test {
namespace {

namespace fs = std::filesystem;

// The device's measured peak (written with each profile) is cached in the build tree, not in the
// user's ~/.cache; set before any test starts the runtime.
[[maybe_unused]] const bool kCacheDirSet = setenv("KILN_CACHE_DIR", KILN_TEST_CACHE_DIR, 0) == 0;

using Row = std::map<std::string, std::string>;

// A CSV file as rows keyed by the header's column names (RFC 4180 quoting).
std::vector<Row> ReadCsv(const fs::path& path) {
  std::ifstream in(path);
  std::vector<std::vector<std::string>> lines;
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> cells(1);
    bool quoted = false;
    for (size_t i = 0; i < line.size(); ++i) {
      char c = line[i];
      if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        cells.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = !quoted;
      } else if (c == ',' && !quoted) {
        cells.emplace_back();
      } else {
        cells.back() += c;
      }
    }
    lines.push_back(std::move(cells));
  }
  std::vector<Row> rows;
  for (size_t r = 1; r < lines.size(); ++r) {
    Row row;
    for (size_t c = 0; c < lines[0].size() && c < lines[r].size(); ++c) {
      row[lines[0][c]] = lines[r][c];
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

// The one PROF_* folder under `dir`.
fs::path OnlyRun(const fs::path& dir) {
  std::vector<fs::path> runs;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().filename().string().rfind("PROF_", 0) == 0) runs.push_back(e.path());
  }
  EXPECT_EQ(runs.size(), 1u) << "PROF_* folders under " << dir;
  return runs.empty() ? fs::path() : runs[0];
}

// The file of `folder` whose name starts with `prefix`.
fs::path FileStarting(const fs::path& folder, const std::string& prefix) {
  for (const auto& e : fs::directory_iterator(folder)) {
    if (e.path().filename().string().rfind(prefix, 0) == 0) return e.path();
  }
  ADD_FAILURE() << "no " << prefix << "* in " << folder;
  return {};
}

fs::path FreshDir(const std::string& name) {
  fs::path dir = fs::path(ScratchDir()) / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// The names of mnist-8's ONNX nodes, read from the model file (the oracle for "Op Name"s).
std::set<std::string> MnistNodeNames() {
  onnx::ModelProto model;
  std::ifstream in(MnistOnnx(), std::ios::binary);
  EXPECT_TRUE(model.ParseFromIstream(&in));
  std::set<std::string> names;
  for (const auto& n : model.graph().node()) names.insert(n.name());
  return names;
}

std::vector<std::string> Split(const std::string& s, char sep) {
  std::vector<std::string> parts;
  std::stringstream in(s);
  std::string p;
  while (std::getline(in, p, sep)) parts.push_back(p);
  return parts;
}

// Runs mnist-8 `runs` times on the first test data set.
void RunMnist(uint32_t id, int runs, aclrtStream stream = nullptr) {
  MnistCase c = LoadMnistCase(0);
  IoDatasets io({kMnistInputBytes}, {kMnistOutputBytes});
  io.input(0).Write(c.input);
  for (int i = 0; i < runs; ++i) {
    if (stream == nullptr) {
      ASSERT_EQ(aclmdlExecute(id, io.in(), io.out()), ACL_SUCCESS) << RecentErrMsg();
    } else {
      ASSERT_EQ(aclmdlExecuteAsync(id, io.in(), io.out(), stream), ACL_SUCCESS) << RecentErrMsg();
    }
  }
  if (stream != nullptr) {
    ASSERT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS);
  }
  EXPECT_TRUE(MatchesOnnx(io.output(0).ReadFloats(kMnistOutputFloats), c.expected, {1, 10}));
}

TEST(ProfApiTest, InitBeforeAclInitIsUninitialize) {
  const char* dir = "/tmp";
  EXPECT_EQ(aclprofInit(dir, std::strlen(dir)), ACL_ERROR_UNINITIALIZE);
  EXPECT_TRUE(Contains(RecentErrMsg(), "aclInit"));
}

using ProfTest = ModelApiTest;

TEST_F(ProfTest, CallsOutOfOrderGetTheDocumentedCodes) {
  uint32_t dev = 0;
  aclprofConfig* config =
      aclprofCreateConfig(&dev, 1, ACL_AICORE_NONE, nullptr, ACL_PROF_TASK_TIME);
  ASSERT_NE(config, nullptr) << RecentErrMsg();
  EXPECT_EQ(aclprofStart(config), ACL_ERROR_PROF_NOT_RUN);
  EXPECT_EQ(aclprofStop(config), ACL_ERROR_PROF_NOT_RUN);
  EXPECT_EQ(aclprofFinalize(), ACL_ERROR_PROF_NOT_RUN);
  const std::string dir = FreshDir("prof_order").string();
  EXPECT_EQ(aclprofInit(nullptr, 4), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclprofInit(dir.c_str(), 0), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclprofInit(dir.c_str(), 4097), ACL_ERROR_INVALID_PARAM);
  ASSERT_EQ(aclprofInit(dir.c_str(), dir.size()), ACL_SUCCESS) << RecentErrMsg();
  EXPECT_EQ(aclprofInit(dir.c_str(), dir.size()), ACL_ERROR_PROF_ALREADY_RUN);
  ASSERT_EQ(aclprofStart(config), ACL_SUCCESS) << RecentErrMsg();
  EXPECT_EQ(aclprofStart(config), ACL_ERROR_PROF_ALREADY_RUN);
  aclprofConfig* other = aclprofCreateConfig(&dev, 1, ACL_AICORE_NONE, nullptr, 0);
  ASSERT_NE(other, nullptr);
  EXPECT_EQ(aclprofStop(other), ACL_ERROR_INVALID_PARAM);
  EXPECT_TRUE(Contains(RecentErrMsg(), "aclprofStart was given"));
  EXPECT_EQ(aclprofStop(config), ACL_SUCCESS) << RecentErrMsg();
  EXPECT_EQ(aclprofDestroyConfig(other), ACL_SUCCESS);
  EXPECT_EQ(aclprofDestroyConfig(other), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclprofDestroyConfig(config), ACL_SUCCESS);
  EXPECT_EQ(aclprofFinalize(), ACL_SUCCESS);
  // Finalized: a new Init is allowed.
  EXPECT_EQ(aclprofInit(dir.c_str(), dir.size()), ACL_SUCCESS);
  EXPECT_EQ(aclprofFinalize(), ACL_SUCCESS);
}

TEST_F(ProfTest, CreateConfigRefusesBadArguments) {
  uint32_t bad = 99;
  EXPECT_EQ(aclprofCreateConfig(&bad, 1, ACL_AICORE_NONE, nullptr, ACL_PROF_TASK_TIME), nullptr);
  EXPECT_TRUE(Contains(RecentErrMsg(), "device 99"));
  EXPECT_EQ(aclprofCreateConfig(nullptr, 1, ACL_AICORE_NONE, nullptr, ACL_PROF_TASK_TIME), nullptr);
  uint32_t dev = 0;
  EXPECT_EQ(aclprofCreateConfig(&dev, 1, ACL_AICORE_NONE, nullptr, 0x8000000000ull), nullptr);
  EXPECT_TRUE(Contains(RecentErrMsg(), "dataTypeConfig"));
  EXPECT_EQ(aclprofCreateConfig(&dev, 1, static_cast<aclprofAicoreMetrics>(42), nullptr, 0),
            nullptr);
}

TEST_F(ProfTest, SetConfigChecksEachOptionsRange) {
  EXPECT_EQ(aclprofSetConfig(ACL_PROF_STORAGE_LIMIT, "100", 3), ACL_ERROR_INVALID_PROFILING_CONFIG);
  EXPECT_EQ(aclprofSetConfig(ACL_PROF_STORAGE_LIMIT, "200", 3), ACL_SUCCESS);
  EXPECT_EQ(aclprofSetConfig(ACL_PROF_SYS_INTERCONNECTION_FREQ, "51", 2),
            ACL_ERROR_INVALID_PROFILING_CONFIG);
  EXPECT_EQ(aclprofSetConfig(ACL_PROF_SYS_INTERCONNECTION_FREQ, "0.1", 3),
            ACL_ERROR_INVALID_PROFILING_CONFIG);
  EXPECT_EQ(aclprofSetConfig(ACL_PROF_LLC_MODE, "write", 5), ACL_SUCCESS);
  EXPECT_EQ(aclprofSetConfig(ACL_PROF_HOST_SYS, "cpu,mem", 7), ACL_SUCCESS);
  EXPECT_EQ(aclprofSetConfig(ACL_PROF_HOST_SYS, "cpu,disk", 8), ACL_ERROR_INVALID_PROFILING_CONFIG);
  EXPECT_EQ(aclprofSetConfig(static_cast<aclprofConfigType>(99), "1", 1), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclprofSetConfig(ACL_PROF_STORAGE_LIMIT, nullptr, 3), ACL_ERROR_INVALID_PARAM);
}

TEST_F(ProfTest, AProfileOfFiveRunsHasEveryNodeNamedAfterItsOnnxNodes) {
  KILN_REQUIRE_MNIST();
  const fs::path dir = FreshDir("prof_mnist");
  LoadedModel model(MnistOm());
  ASSERT_EQ(aclprofInit(dir.c_str(), dir.string().size()), ACL_SUCCESS) << RecentErrMsg();
  uint32_t dev = 0;
  aclprofConfig* config = aclprofCreateConfig(
      &dev, 1, ACL_AICORE_NONE, nullptr, ACL_PROF_ACL_API | ACL_PROF_TASK_TIME | ACL_PROF_MSPROFTX);
  ASSERT_NE(config, nullptr) << RecentErrMsg();
  ASSERT_EQ(aclprofStart(config), ACL_SUCCESS) << RecentErrMsg();
  void* stamp = aclprofCreateStamp();
  ASSERT_NE(stamp, nullptr);
  ASSERT_EQ(aclprofSetStampTraceMessage(stamp, "five runs", 9), ACL_SUCCESS);
  uint32_t range = 0;
  ASSERT_EQ(aclprofRangeStart(stamp, &range), ACL_SUCCESS);
  ASSERT_EQ(aclprofMark(stamp), ACL_SUCCESS);
  RunMnist(model.id(), 5);
  ASSERT_EQ(aclprofRangeStop(range), ACL_SUCCESS);
  EXPECT_EQ(aclprofRangeStop(range), ACL_ERROR_INVALID_PARAM);  // stopped already
  EXPECT_EQ(aclprofPop(), ACL_ERROR_INVALID_PARAM);             // nothing pushed
  aclprofDestroyStamp(stamp);
  ASSERT_EQ(aclprofStop(config), ACL_SUCCESS) << RecentErrMsg();
  ASSERT_EQ(aclprofDestroyConfig(config), ACL_SUCCESS);
  ASSERT_EQ(aclprofFinalize(), ACL_SUCCESS);

  const fs::path run = OnlyRun(dir);
  ASSERT_FALSE(run.empty());
  const auto ops = ReadCsv(FileStarting(run / "summary", "op_summary_"));
  const std::set<std::string> onnx_names = MnistNodeNames();
  std::map<std::string, std::set<std::string>> tasks_per_infer;
  std::map<std::string, double> op_us_per_infer;
  bool saw_conv = false;
  for (const Row& r : ops) {
    EXPECT_EQ(r.at("Model ID"), std::to_string(model.id()));
    tasks_per_infer[r.at("Infer ID")].insert(r.at("Task ID"));
    if (r.at("Body Depth") == "0")
      op_us_per_infer[r.at("Infer ID")] += std::stod(r.at("Task Duration(us)"));
    for (const std::string& origin : Split(r.at("ONNX Nodes"), ';')) {
      EXPECT_EQ(onnx_names.count(origin), 1u) << "'" << origin << "' is not an ONNX node";
    }
    if (r.at("ONNX Nodes").find("Convolution28") != std::string::npos) {
      saw_conv = true;
      // Hand-worked: Y [1,8,28,28] from W [8,1,5,5]: 2 × 6272 × 25 multiply-adds, plus one
      // operation per output for each element-wise node fused in (the bias Plus30, ReLU32).
      const size_t fused = Split(r.at("ONNX Nodes"), ';').size() - 1;
      EXPECT_EQ(std::stoll(r.at("FLOPs")), 313600 + 6272 * static_cast<int64_t>(fused))
          << r.at("ONNX Nodes");
      EXPECT_EQ(r.at("Input Shapes").rfind("1,1,28,28;8,1,5,5", 0), 0u) << r.at("Input Shapes");
      EXPECT_EQ(r.at("Output Shapes"), "1,8,28,28");
      EXPECT_EQ(r.at("Input Data Types").rfind("FLOAT", 0), 0u);
      EXPECT_FALSE(r.at("Peak(%)").empty());
    }
  }
  EXPECT_TRUE(saw_conv);
  ASSERT_EQ(tasks_per_infer.size(), 5u);
  for (const auto& [infer, tasks] : tasks_per_infer) {
    EXPECT_EQ(tasks.size(), tasks_per_infer.begin()->second.size()) << "infer " << infer;
  }
  // Every execution is a ModelExecute task whose nodes fit inside it.
  const auto tasks = ReadCsv(FileStarting(run / "summary", "task_time_"));
  int executes = 0;
  for (const Row& t : tasks) {
    if (t.at("kernel_name") != "ModelExecute") continue;
    ++executes;
    const std::string infer = Split(t.at("detail"), '#').back();
    EXPECT_LE(op_us_per_infer[infer], std::stod(t.at("task_time(us)")) + 1.0);
    EXPECT_GT(op_us_per_infer[infer], 0.0);
  }
  EXPECT_EQ(executes, 5);
  // The API statistics count the five executions.
  bool saw_execute_api = false;
  for (const Row& a : ReadCsv(FileStarting(run / "summary", "api_statistic_"))) {
    if (a.at("API Name") == "aclmdlExecute") {
      saw_execute_api = true;
      EXPECT_EQ(a.at("Count"), "5");
    }
  }
  EXPECT_TRUE(saw_execute_api);
  // op_statistic: one row per op type, counts summing to the op rows.
  size_t counted = 0;
  for (const Row& s : ReadCsv(FileStarting(run / "summary", "op_statistic_"))) {
    counted += std::stoul(s.at("Count"));
  }
  EXPECT_EQ(counted, ops.size());

  // The timeline: Chrome trace JSON with the stream's track, ops inside their execution.
  std::ifstream in(FileStarting(run / "timeline", "msprof_"));
  nlohmann::json trace = nlohmann::json::parse(in, nullptr, false);
  ASSERT_TRUE(trace.is_object());
  ASSERT_TRUE(trace.contains("traceEvents"));
  std::vector<std::pair<double, double>> executes_span;
  std::vector<std::pair<double, double>> op_spans;
  std::set<std::pair<int, int64_t>> op_tracks;
  bool saw_stream_name = false, saw_mark = false, saw_range = false;
  for (const auto& e : trace["traceEvents"]) {
    const std::string ph = e.value("ph", "");
    if (ph == "M" && e.value("name", "") == "thread_name" &&
        e["args"].value("name", "").rfind("Stream ", 0) == 0) {
      saw_stream_name = true;
    }
    if (ph == "i" && e.value("name", "") == "five runs") saw_mark = true;
    if (ph == "X" && e.value("cat", "") == "msproftx" && e.value("name", "") == "five runs") {
      saw_range = true;
    }
    if (ph == "X" && e.value("cat", "") == "task") {
      executes_span.emplace_back(e["ts"].get<double>(),
                                 e["ts"].get<double>() + e["dur"].get<double>());
    }
    if (ph == "X" && e.value("cat", "") == "op") {
      op_spans.emplace_back(e["ts"].get<double>(), e["ts"].get<double>() + e["dur"].get<double>());
      op_tracks.insert({e["pid"].get<int>(), e["tid"].get<int64_t>()});
    }
  }
  EXPECT_TRUE(saw_stream_name);
  EXPECT_TRUE(saw_mark);
  EXPECT_TRUE(saw_range);
  EXPECT_EQ(op_tracks.size(), 1u);  // one stream: the context's default stream
  EXPECT_EQ(op_spans.size(), ops.size());
  for (const auto& [start, end] : op_spans) {
    bool inside = std::any_of(executes_span.begin(), executes_span.end(), [&](const auto& x) {
      return start >= x.first - 0.001 && end <= x.second + 0.001;
    });
    EXPECT_TRUE(inside) << "op at " << start << " us lies outside every execution";
  }
  std::ifstream info_in(run / "info.json");
  nlohmann::json info = nlohmann::json::parse(info_in, nullptr, false);
  ASSERT_TRUE(info.is_object());
  EXPECT_GT(info["devices"][0]["peak_gflops_fp32"].get<double>(), 0.0);
}

// A cached peak below what the run's ops reached was measured while other work held the cores:
// the profiler measures it again and the cache keeps the larger value.
TEST_F(ProfTest, ACachedPeakBelowTheOpsIsMeasuredAgain) {
  KILN_REQUIRE_MNIST();
  const fs::path cache = FreshDir("prof_peak_cache");
  const std::string kept = std::getenv("KILN_CACHE_DIR") ? std::getenv("KILN_CACHE_DIR") : "";
  setenv("KILN_CACHE_DIR", cache.c_str(), 1);
  LoadedModel model(MnistOm());
  MnistCase c = LoadMnistCase(0);
  IoDatasets io({kMnistInputBytes}, {kMnistOutputBytes});
  io.input(0).Write(c.input);
  auto profile = [&](const std::string& name) {
    const fs::path dir = FreshDir(name);
    EXPECT_EQ(aclprofInit(dir.c_str(), dir.string().size()), ACL_SUCCESS);
    uint32_t dev = 0;
    aclprofConfig* config =
        aclprofCreateConfig(&dev, 1, ACL_AICORE_NONE, nullptr, ACL_PROF_TASK_TIME);
    EXPECT_EQ(aclprofStart(config), ACL_SUCCESS) << RecentErrMsg();
    for (int i = 0; i < 5; ++i)
      EXPECT_EQ(aclmdlExecute(model.id(), io.in(), io.out()), ACL_SUCCESS);
    EXPECT_EQ(aclprofStop(config), ACL_SUCCESS);
    EXPECT_EQ(aclprofDestroyConfig(config), ACL_SUCCESS);
    EXPECT_EQ(aclprofFinalize(), ACL_SUCCESS);
    std::ifstream in(OnlyRun(dir) / "info.json");
    const nlohmann::json info = nlohmann::json::parse(in, nullptr, false);
    EXPECT_TRUE(info.contains("devices") && info["devices"].size() == 1) << info.dump();
    return info.value("devices", nlohmann::json::array({nlohmann::json::object()}))[0];
  };
  const nlohmann::json first = profile("prof_peak_1");
  const double measured = first["peak_gflops_fp32"].get<double>();
  ASSERT_GT(measured, 1.0);
  // A stale cache: every entry 1 MFLOP/s, far below any convolution of the model.
  std::ifstream in(cache / "peak.json");
  nlohmann::json stale = nlohmann::json::parse(in, nullptr, false);
  in.close();
  ASSERT_TRUE(stale.is_object() && !stale.empty());
  for (auto it = stale.begin(); it != stale.end(); ++it) *it = 0.001;
  std::ofstream(cache / "peak.json") << stale.dump();
  const nlohmann::json second = profile("prof_peak_2");
  EXPECT_GT(second["peak_gflops_fp32"].get<double>(), 1.0);
  EXPECT_TRUE(Contains(second["peak_source"].get<std::string>(), "measured again"))
      << second.dump();
  std::ifstream again(cache / "peak.json");
  const nlohmann::json cached = nlohmann::json::parse(again, nullptr, false);
  ASSERT_TRUE(cached.is_object() && !cached.empty()) << cached.dump();
  for (auto it = cached.begin(); it != cached.end(); ++it) {
    EXPECT_TRUE(it->is_number() && it->get<double>() > 1.0) << it.key() << ": " << it->dump();
  }
  // A cached peak above the ops is read from the cache.
  const nlohmann::json third = profile("prof_peak_3");
  EXPECT_TRUE(Contains(third["peak_source"].get<std::string>(), "cache")) << third.dump();
  setenv("KILN_CACHE_DIR", kept.c_str(), 1);
}

// The API statistics hold the calls the program made, not the ones Kiln makes inside them: an
// execute with an input desc reads the desc's dims without calling aclGetTensorDesc*.
TEST_F(ProfTest, ApiStatisticsCountOnlyTheProgramsOwnCalls) {
  KILN_REQUIRE_MNIST();
  const fs::path dir = FreshDir("prof_api");
  LoadedModel model(MnistOm());
  MnistCase c = LoadMnistCase(0);
  IoDatasets io({kMnistInputBytes}, {kMnistOutputBytes});
  io.input(0).Write(c.input);
  const int64_t dims[] = {1, 1, 28, 28};
  aclTensorDesc* desc = aclCreateTensorDesc(ACL_FLOAT, 4, dims, ACL_FORMAT_NCHW);
  ASSERT_NE(desc, nullptr);
  ASSERT_EQ(aclmdlSetDatasetTensorDesc(io.in(), desc, 0), ACL_SUCCESS) << RecentErrMsg();
  aclDestroyTensorDesc(desc);
  ASSERT_EQ(aclprofInit(dir.c_str(), dir.string().size()), ACL_SUCCESS);
  aclprofConfig* config =
      aclprofCreateConfig(nullptr, 0, ACL_AICORE_NONE, nullptr, ACL_PROF_ACL_API);
  ASSERT_NE(config, nullptr) << RecentErrMsg();
  ASSERT_EQ(aclprofStart(config), ACL_SUCCESS);
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(aclmdlExecute(model.id(), io.in(), io.out()), ACL_SUCCESS) << RecentErrMsg();
  }
  ASSERT_EQ(aclprofStop(config), ACL_SUCCESS);
  ASSERT_EQ(aclprofDestroyConfig(config), ACL_SUCCESS);
  ASSERT_EQ(aclprofFinalize(), ACL_SUCCESS);
  EXPECT_TRUE(MatchesOnnx(io.output(0).ReadFloats(kMnistOutputFloats), c.expected, {1, 10}));
  std::map<std::string, std::string> counts;
  for (const Row& a : ReadCsv(FileStarting(OnlyRun(dir) / "summary", "api_statistic_"))) {
    counts[a.at("API Name")] = a.at("Count");
  }
  EXPECT_EQ(counts["aclmdlExecute"], "3");
  for (const auto& [api, count] : counts) {
    EXPECT_TRUE(api == "aclmdlExecute" || api == "aclprofStop") << api << " counted " << count;
  }
}

TEST_F(ProfTest, StreamTasksAndStepsAreOnTheStreamsTrack) {
  KILN_REQUIRE_MNIST();
  const fs::path dir = FreshDir("prof_stream");
  LoadedModel model(MnistOm());
  aclrtStream stream = nullptr, other = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  ASSERT_EQ(aclrtCreateStream(&other), ACL_SUCCESS);
  aclrtEvent event = nullptr;
  ASSERT_EQ(aclrtCreateEvent(&event), ACL_SUCCESS);
  ASSERT_EQ(aclprofInit(dir.c_str(), dir.string().size()), ACL_SUCCESS);
  aclprofConfig* config =
      aclprofCreateConfig(nullptr, 0, ACL_AICORE_NONE, nullptr, ACL_PROF_TASK_TIME);
  ASSERT_NE(config, nullptr) << RecentErrMsg();
  ASSERT_EQ(aclprofStart(config), ACL_SUCCESS);
  aclprofStepInfo* step = aclprofCreateStepInfo();
  ASSERT_NE(step, nullptr);
  ASSERT_EQ(aclprofGetStepTimestamp(step, ACL_STEP_START, stream), ACL_SUCCESS);
  {
    DeviceBuffer a(4096), b(4096);
    ASSERT_EQ(aclrtMemsetAsync(a.ptr(), 4096, 7, 4096, other), ACL_SUCCESS);
    ASSERT_EQ(aclrtRecordEvent(event, other), ACL_SUCCESS);
    ASSERT_EQ(aclrtStreamWaitEvent(stream, event), ACL_SUCCESS);
    ASSERT_EQ(aclrtMemcpyAsync(b.ptr(), 4096, a.ptr(), 4096, ACL_MEMCPY_DEVICE_TO_DEVICE, stream),
              ACL_SUCCESS);
    RunMnist(model.id(), 2, stream);
    ASSERT_EQ(aclrtSynchronizeStream(other), ACL_SUCCESS);
  }
  ASSERT_EQ(aclprofGetStepTimestamp(step, ACL_STEP_END, stream), ACL_SUCCESS);
  EXPECT_EQ(aclprofGetStepTimestamp(step, ACL_STEP_END, stream), ACL_ERROR_INVALID_PARAM);
  aclprofDestroyStepInfo(step);
  ASSERT_EQ(aclprofStop(config), ACL_SUCCESS);
  ASSERT_EQ(aclprofDestroyConfig(config), ACL_SUCCESS);
  ASSERT_EQ(aclprofFinalize(), ACL_SUCCESS);
  std::map<std::string, std::set<std::string>> streams_of;
  for (const Row& t : ReadCsv(FileStarting(OnlyRun(dir) / "summary", "task_time_"))) {
    streams_of[t.at("kernel_name")].insert(t.at("stream_id"));
  }
  for (const char* kind :
       {"Memset", "EventRecord", "EventWait", "Memcpy", "ModelExecute", "Step"}) {
    EXPECT_EQ(streams_of[kind].size(), 1u) << kind;
  }
  EXPECT_EQ(streams_of["Memset"], streams_of["EventRecord"]);
  EXPECT_EQ(streams_of["EventWait"], streams_of["ModelExecute"]);
  EXPECT_NE(streams_of["Memset"], streams_of["ModelExecute"]);
  EXPECT_EQ(aclrtDestroyEvent(event), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyStream(other), ACL_SUCCESS);
}

TEST_F(ProfTest, ASubscribedModelWritesOneRecordPerOperatorToThePipe) {
  KILN_REQUIRE_MNIST();
  LoadedModel model(MnistOm());
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  ASSERT_EQ(fcntl(fds[0], F_SETFL, O_NONBLOCK), 0);
  aclprofSubscribeConfig* sub = aclprofCreateSubscribeConfig(1, ACL_AICORE_NONE, &fds[1]);
  ASSERT_NE(sub, nullptr);
  EXPECT_EQ(aclprofModelSubscribe(12345, sub), ACL_ERROR_INVALID_MODEL_ID);
  ASSERT_EQ(aclprofModelSubscribe(model.id(), sub), ACL_SUCCESS) << RecentErrMsg();
  EXPECT_EQ(aclprofModelSubscribe(model.id(), sub), ACL_ERROR_PROF_REPEAT_SUBSCRIBE);
  const std::string dir = FreshDir("prof_conflict").string();
  EXPECT_EQ(aclprofInit(dir.c_str(), dir.size()), ACL_ERROR_PROF_API_CONFLICT);
  RunMnist(model.id(), 1);
  size_t record = 0;
  ASSERT_EQ(aclprofGetOpDescSize(&record), ACL_SUCCESS);
  std::vector<uint8_t> data(record * 64);
  ssize_t n = read(fds[0], data.data(), data.size());
  ASSERT_GT(n, 0);
  ASSERT_EQ(static_cast<size_t>(n) % record, 0u);
  uint32_t count = 0;
  ASSERT_EQ(aclprofGetOpNum(data.data(), n, &count), ACL_SUCCESS);
  EXPECT_GT(count, 2u);
  const std::set<std::string> onnx_names = MnistNodeNames();
  std::set<std::string> types;
  for (uint32_t i = 0; i < count; ++i) {
    size_t len = 0;
    ASSERT_EQ(aclprofGetOpTypeLen(data.data(), n, i, &len), ACL_SUCCESS);
    std::vector<char> type(len);
    ASSERT_EQ(aclprofGetOpType(data.data(), n, i, type.data(), len), ACL_SUCCESS);
    types.insert(type.data());
    EXPECT_EQ(aclprofGetOpType(data.data(), n, i, type.data(), len - 1), ACL_ERROR_INVALID_PARAM);
    ASSERT_EQ(aclprofGetOpNameLen(data.data(), n, i, &len), ACL_SUCCESS);
    std::vector<char> name(len);
    ASSERT_EQ(aclprofGetOpName(data.data(), n, i, name.data(), len), ACL_SUCCESS);
    EXPECT_FALSE(std::string(name.data()).empty());
    EXPECT_LE(aclprofGetOpStart(data.data(), n, i), aclprofGetOpEnd(data.data(), n, i));
    EXPECT_GT(aclprofGetOpStart(data.data(), n, i), 0u);
    EXPECT_EQ(aclprofGetOpDuration(data.data(), n, i),
              aclprofGetOpEnd(data.data(), n, i) - aclprofGetOpStart(data.data(), n, i));
    EXPECT_EQ(aclprofGetModelId(data.data(), n, i), model.id());
    EXPECT_EQ(aclprofGetOpFlag(data.data(), n, i), ACL_SUBSCRIBE_OP);
    const char* tid = aclprofGetOpAttriValue(data.data(), n, i, ACL_SUBSCRIBE_ATTRI_THREADID);
    ASSERT_NE(tid, nullptr);
    EXPECT_GT(std::stoul(tid), 0u);
  }
  EXPECT_TRUE(types.count("MaxPool")) << "mnist-8 has two MaxPool nodes";
  EXPECT_EQ(aclprofGetOpStart(data.data(), n, count), 0u);  // out of range
  EXPECT_EQ(aclprofGetOpNum(data.data(), n - 1, &count), ACL_ERROR_INVALID_PARAM);
  ASSERT_EQ(aclprofModelUnSubscribe(model.id()), ACL_SUCCESS);
  EXPECT_EQ(aclprofModelUnSubscribe(model.id()), ACL_ERROR_INVALID_PARAM);
  RunMnist(model.id(), 1);
  EXPECT_LT(read(fds[0], data.data(), data.size()), 0);  // nothing after unsubscribing
  EXPECT_EQ(aclprofDestroySubscribeConfig(sub), ACL_SUCCESS);
  close(fds[0]);
  close(fds[1]);
}

TEST_F(ProfTest, SubscribingWhileProfilingIsAConflict) {
  KILN_REQUIRE_MNIST();
  LoadedModel model(MnistOm());
  const std::string dir = FreshDir("prof_conflict2").string();
  ASSERT_EQ(aclprofInit(dir.c_str(), dir.size()), ACL_SUCCESS);
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  aclprofSubscribeConfig* sub = aclprofCreateSubscribeConfig(1, ACL_AICORE_NONE, &fds[1]);
  EXPECT_EQ(aclprofModelSubscribe(model.id(), sub), ACL_ERROR_PROF_API_CONFLICT);
  EXPECT_EQ(aclprofDestroySubscribeConfig(sub), ACL_SUCCESS);
  EXPECT_EQ(aclprofFinalize(), ACL_SUCCESS);
  close(fds[0]);
  close(fds[1]);
}

// acl.json's "profiler" block profiles from aclInit to aclFinalize.
TEST(ProfConfigTest, AclJsonProfilerBlockLeavesAProfileAtFinalize) {
  KILN_REQUIRE_MNIST();
  const fs::path dir = FreshDir("prof_acljson");
  const fs::path json = dir / "acl.json";
  std::ofstream(json) << R"({"profiler":{"switch":"on","output":")" << dir.string() << R"("}})";
  ASSERT_EQ(aclInit(json.c_str()), ACL_SUCCESS) << RecentErrMsg();
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  {
    LoadedModel model(MnistOm());
    RunMnist(model.id(), 1);
  }
  const std::string again = dir.string();
  EXPECT_EQ(aclprofInit(again.c_str(), again.size()), ACL_ERROR_PROF_ALREADY_RUN);
  ASSERT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
  ASSERT_EQ(aclFinalize(), ACL_SUCCESS);
  const auto ops = ReadCsv(FileStarting(OnlyRun(dir) / "summary", "op_summary_"));
  EXPECT_FALSE(ops.empty());
}

// msprof (and `kiln prof --application`) profile an unmodified program through the
// environment: PROFILING_MODE=true and PROFILING_OPTIONS.
TEST(ProfConfigTest, ProfilingEnvironmentProfilesAnUnmodifiedProgram) {
  KILN_REQUIRE_MNIST();
  const fs::path dir = FreshDir("prof_env");
  setenv("PROFILING_MODE", "true", 1);
  const std::string options = R"({"output":")" + dir.string() + R"(","task_trace":"on"})";
  setenv("PROFILING_OPTIONS", options.c_str(), 1);
  ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS) << RecentErrMsg();
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  {
    LoadedModel model(MnistOm());
    RunMnist(model.id(), 2);
  }
  ASSERT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
  ASSERT_EQ(aclFinalize(), ACL_SUCCESS);
  unsetenv("PROFILING_MODE");
  unsetenv("PROFILING_OPTIONS");
  const auto ops = ReadCsv(FileStarting(OnlyRun(dir) / "summary", "op_summary_"));
  std::set<std::string> infers;
  for (const Row& r : ops) infers.insert(r.at("Infer ID"));
  EXPECT_EQ(infers.size(), 2u);
}

TEST(ProfConfigTest, MalformedProfilingOptionsFailAclInit) {
  setenv("PROFILING_MODE", "true", 1);
  setenv("PROFILING_OPTIONS", "{output", 1);
  EXPECT_EQ(aclInit(nullptr), ACL_ERROR_INVALID_PROFILING_CONFIG);
  EXPECT_TRUE(Contains(RecentErrMsg(), "PROFILING_OPTIONS"));
  unsetenv("PROFILING_MODE");
  unsetenv("PROFILING_OPTIONS");
  EXPECT_EQ(aclInit(nullptr), ACL_SUCCESS);  // the process stays usable
  EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
}

}  // namespace
}  // namespace kiln::model_test
