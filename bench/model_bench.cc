// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Times one compiled model through the public AscendCL API only (what an application sees):
//
//   model_bench --model=M.om --input=FILE[:d0,d1,...] ... [--warmup=N] [--runs=N] [--serve]
//               [--out-dir=DIR] [--device=ID]
//
// Each --input is the raw bytes of one model input, in the model's input order; ":d0,d1,..."
// gives the real dims of an input the model declares with -1 dims (aclmdlSetDatasetTensorDesc).
// The program initialises AscendCL, loads the .om (aclmdlLoadFromFile), runs it once (the first
// result: load + first execution is the cold start), then --warmup untimed and --runs timed
// aclmdlExecute calls, and prints one JSON line:
//
//   {"init_us":..,"load_us":..,"first_run_us":..,"main_to_first_us":..,"cold_start_us":..,
//    "load_faults":..,"first_run_faults":..,"runs_us":[..],"peak_rss_kb":..,
//    "outputs":[{"name":..,"dtype":..,"dims":[..],"bytes":..,"file":..}]}
//
// cold_start_us runs from the exec of this program to the first result when the driver put its
// CLOCK_MONOTONIC reading (ns) taken just before it spawned the process in KILN_BENCH_SPAWN_NS:
// then it counts the dynamic loader mapping libascendcl.so and what it needs, as onnxruntime's
// cold start counts its import; main_to_first_us always runs from the start of main (before
// aclInit) to the first result, and is cold_start_us without the variable. With
// --serve, after the warm-up it prints {"ready":true,...} and then reads lines from stdin: a line
// "N" runs N timed executions and prints {"runs_us":[..]}, so a driver can interleave blocks with
// another runtime while the model stays loaded; end of input finishes. --out-dir writes output i
// to DIR/output_i.bin (raw bytes, the last execution's). Peak RSS is VmHWM (see PeakRssKb);
// load_faults and first_run_faults count the page faults (minor and major, every thread) the
// load and the first execution took: first touches of memory are much of a cold start.
// Exits 1 with a message on stderr on any failure.
#include <sys/resource.h>
#include <time.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "acl/acl.h"

namespace {

using Clock = std::chrono::steady_clock;

double MicrosSince(Clock::time_point start) {
  return std::chrono::duration<double, std::micro>(Clock::now() - start).count();
}

// Microseconds since the driver's CLOCK_MONOTONIC reading in KILN_BENCH_SPAWN_NS; negative
// when it gave none.
double MicrosSinceSpawn() {
  const char* spawn = std::getenv("KILN_BENCH_SPAWN_NS");
  if (spawn == nullptr || *spawn == '\0') return -1;
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  const double now_ns = static_cast<double>(now.tv_sec) * 1e9 + static_cast<double>(now.tv_nsec);
  return (now_ns - std::strtod(spawn, nullptr)) / 1e3;
}

struct InputSpec {
  std::string path;
  std::vector<int64_t> dims;  // empty: the model's own dims
};

struct Flags {
  std::string model;
  std::vector<InputSpec> inputs;
  std::string out_dir;
  int warmup = 3;
  int runs = 10;
  int device = 0;
  bool serve = false;
};

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "model_bench: %s\n", what.c_str());
  std::exit(1);
}

void Check(aclError ret, const char* call) {
  if (ret == ACL_SUCCESS) return;
  const char* msg = aclGetRecentErrMsg();
  Die(std::string(call) + " failed with " + std::to_string(ret) + (msg ? ": " : "") +
      (msg ? msg : ""));
}

std::vector<int64_t> ParseDims(const std::string& text) {
  std::vector<int64_t> dims;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    char* end = nullptr;
    const long long v = std::strtoll(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0' || v < 0) Die("bad dims '" + text + "'");
    dims.push_back(v);
  }
  return dims;
}

int ParseCount(const std::string& text, const char* flag) {
  char* end = nullptr;
  const long v = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || v < 0 || v > 1000000) {
    Die(std::string(flag) + " needs a count, got '" + text + "'");
  }
  return static_cast<int>(v);
}

Flags ParseFlags(int argc, char** argv) {
  Flags f;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&](const char* name) -> const char* {
      const size_t n = std::strlen(name);
      if (arg.compare(0, n, name) == 0 && arg.size() > n && arg[n] == '=') {
        return argv[i] + n + 1;
      }
      return nullptr;
    };
    if (const char* v = value("--model")) {
      f.model = v;
    } else if (const char* v = value("--input")) {
      InputSpec spec;
      std::string text = v;
      const size_t colon = text.rfind(':');
      if (colon != std::string::npos && text.find('/', colon) == std::string::npos) {
        spec.dims = ParseDims(text.substr(colon + 1));
        text.resize(colon);
      }
      spec.path = text;
      f.inputs.push_back(spec);
    } else if (const char* v = value("--out-dir")) {
      f.out_dir = v;
    } else if (const char* v = value("--warmup")) {
      f.warmup = ParseCount(v, "--warmup");
    } else if (const char* v = value("--runs")) {
      f.runs = ParseCount(v, "--runs");
    } else if (const char* v = value("--device")) {
      f.device = ParseCount(v, "--device");
    } else if (arg == "--serve") {
      f.serve = true;
    } else {
      Die("unknown argument '" + arg + "' (see the comment at the top of bench/model_bench.cc)");
    }
  }
  if (f.model.empty()) Die("--model=<file.om> is required");
  return f;
}

std::vector<char> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) Die("cannot open " + path);
  return std::vector<char>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::string DimsJson(const aclmdlIODims& dims) {
  std::string s = "[";
  for (size_t k = 0; k < dims.dimCount; ++k) {
    s += (k ? "," : "") + std::to_string(dims.dims[k]);
  }
  return s + "]";
}

std::string TimesJson(const std::vector<double>& times) {
  std::string s = "[";
  char text[32];
  for (size_t k = 0; k < times.size(); ++k) {
    std::snprintf(text, sizeof text, "%s%.1f", k ? "," : "", times[k]);
    s += text;
  }
  return s + "]";
}

// Page faults the process has taken so far (every thread).
long PageFaults() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_minflt + usage.ru_majflt;
}

// The process's peak resident set: VmHWM from /proc/self/status, which starts afresh at
// execve. getrusage's ru_maxrss is the fallback only: Linux carries it over from the parent
// across fork and execve, so a child of a big driver process would report the driver's peak.
long PeakRssKb() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.compare(0, 6, "VmHWM:") == 0) return std::strtol(line.c_str() + 6, nullptr, 10);
  }
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}

class Bench {
 public:
  explicit Bench(const Flags& flags) : flags_(flags) {}

  // Everything up to and including the first result; returns its timings as JSON fields.
  std::string Start(Clock::time_point process_start) {
    auto t0 = Clock::now();
    Check(aclInit(nullptr), "aclInit");
    Check(aclrtSetDevice(flags_.device), "aclrtSetDevice");
    Check(aclrtCreateContext(&context_, flags_.device), "aclrtCreateContext");
    const double init_us = MicrosSince(t0);
    t0 = Clock::now();
    const long faults0 = PageFaults();
    Check(aclmdlLoadFromFile(flags_.model.c_str(), &model_id_), "aclmdlLoadFromFile");
    loaded_ = true;
    desc_ = aclmdlCreateDesc();
    if (desc_ == nullptr) Die("aclmdlCreateDesc returned NULL");
    Check(aclmdlGetDesc(desc_, model_id_), "aclmdlGetDesc");
    const double load_us = MicrosSince(t0);
    const long faults1 = PageFaults();
    MakeInputs();
    MakeOutputs();
    t0 = Clock::now();
    const long faults2 = PageFaults();
    Execute();
    const double first_us = MicrosSince(t0);
    const long faults3 = PageFaults();
    const double main_us = MicrosSince(process_start);
    const double spawn_us = MicrosSinceSpawn();
    char text[320];
    std::snprintf(text, sizeof text,
                  "\"init_us\":%.1f,\"load_us\":%.1f,\"first_run_us\":%.1f,"
                  "\"main_to_first_us\":%.1f,\"cold_start_us\":%.1f,"
                  "\"load_faults\":%ld,\"first_run_faults\":%ld",
                  init_us, load_us, first_us, main_us, spawn_us >= 0 ? spawn_us : main_us,
                  faults1 - faults0, faults3 - faults2);
    return text;
  }

  void Execute() { Check(aclmdlExecute(model_id_, input_, output_), "aclmdlExecute"); }

  std::vector<double> Time(int runs) {
    std::vector<double> times;
    times.reserve(static_cast<size_t>(runs));
    for (int i = 0; i < runs; ++i) {
      const auto t0 = Clock::now();
      Execute();
      times.push_back(MicrosSince(t0));
    }
    return times;
  }

  // Writes the outputs (when --out-dir) and describes them as a JSON array.
  std::string Outputs() {
    std::string s = "[";
    for (size_t i = 0; i < aclmdlGetDatasetNumBuffers(output_); ++i) {
      aclDataBuffer* buffer = aclmdlGetDatasetBuffer(output_, i);
      aclmdlIODims dims{};
      Check(aclmdlGetCurOutputDims(desc_, i, &dims), "aclmdlGetCurOutputDims");
      const aclDataType dtype = aclmdlGetOutputDataType(desc_, i);
      size_t bytes = aclDataTypeSize(dtype);
      for (size_t k = 0; k < dims.dimCount; ++k) bytes *= static_cast<size_t>(dims.dims[k]);
      if (bytes > aclGetDataBufferSizeV2(buffer)) {
        Die("output " + std::to_string(i) + " needs more bytes than its buffer");
      }
      std::string file;
      if (!flags_.out_dir.empty()) {
        std::vector<char> host(bytes);
        Check(aclrtMemcpy(host.data(), bytes, aclGetDataBufferAddr(buffer), bytes,
                          ACL_MEMCPY_DEVICE_TO_HOST),
              "aclrtMemcpy (output)");
        file = flags_.out_dir + "/output_" + std::to_string(i) + ".bin";
        std::ofstream out(file, std::ios::binary);
        out.write(host.data(), static_cast<std::streamsize>(bytes));
        if (!out) Die("cannot write " + file);
      }
      const char* name = aclmdlGetOutputNameByIndex(desc_, i);
      s += (i ? ",{" : "{") + std::string("\"name\":\"") + (name ? name : "") +
           "\",\"dtype\":" + std::to_string(static_cast<int>(dtype)) +
           ",\"dims\":" + DimsJson(dims) + ",\"bytes\":" + std::to_string(bytes) + ",\"file\":\"" +
           file + "\"}";
    }
    return s + "]";
  }

  ~Bench() {
    for (aclmdlDataset* set : {input_, output_}) {
      if (set == nullptr) continue;
      for (size_t i = 0; i < aclmdlGetDatasetNumBuffers(set); ++i) {
        aclDataBuffer* buffer = aclmdlGetDatasetBuffer(set, i);
        (void)aclrtFree(aclGetDataBufferAddr(buffer));
        (void)aclDestroyDataBuffer(buffer);
      }
      (void)aclmdlDestroyDataset(set);
    }
    if (desc_ != nullptr) (void)aclmdlDestroyDesc(desc_);
    if (loaded_) (void)aclmdlUnload(model_id_);
    if (context_ != nullptr) (void)aclrtDestroyContext(context_);
    (void)aclrtResetDevice(flags_.device);
    (void)aclFinalize();
  }

 private:
  void MakeInputs() {
    const size_t count = aclmdlGetNumInputs(desc_);
    if (flags_.inputs.size() != count) {
      Die("the model has " + std::to_string(count) + " inputs, got " +
          std::to_string(flags_.inputs.size()) + " --input flags");
    }
    input_ = aclmdlCreateDataset();
    for (size_t i = 0; i < count; ++i) {
      const std::vector<char> data = ReadFile(flags_.inputs[i].path);
      const aclDataType dtype = aclmdlGetInputDataType(desc_, i);
      size_t expected = aclmdlGetInputSizeByIndex(desc_, i);
      if (!flags_.inputs[i].dims.empty()) {
        expected = aclDataTypeSize(dtype);
        for (int64_t d : flags_.inputs[i].dims) expected *= static_cast<size_t>(d);
      }
      if (data.size() != expected) {
        Die(flags_.inputs[i].path + " has " + std::to_string(data.size()) + " bytes, input " +
            std::to_string(i) + " needs " + std::to_string(expected));
      }
      void* device = nullptr;
      Check(aclrtMalloc(&device, data.size(), ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc (input)");
      Check(aclrtMemcpy(device, data.size(), data.data(), data.size(), ACL_MEMCPY_HOST_TO_DEVICE),
            "aclrtMemcpy (input)");
      Check(aclmdlAddDatasetBuffer(input_, aclCreateDataBuffer(device, data.size())),
            "aclmdlAddDatasetBuffer (input)");
      if (!flags_.inputs[i].dims.empty()) {
        const std::vector<int64_t>& dims = flags_.inputs[i].dims;
        aclTensorDesc* tensor =
            aclCreateTensorDesc(dtype, static_cast<int>(dims.size()), dims.data(), ACL_FORMAT_ND);
        Check(aclmdlSetDatasetTensorDesc(input_, tensor, i), "aclmdlSetDatasetTensorDesc");
        aclDestroyTensorDesc(tensor);
      }
    }
  }

  void MakeOutputs() {
    output_ = aclmdlCreateDataset();
    for (size_t i = 0; i < aclmdlGetNumOutputs(desc_); ++i) {
      const size_t size = aclmdlGetOutputSizeByIndex(desc_, i);
      void* device = nullptr;
      Check(aclrtMalloc(&device, size, ACL_MEM_MALLOC_NORMAL_ONLY), "aclrtMalloc (output)");
      Check(aclmdlAddDatasetBuffer(output_, aclCreateDataBuffer(device, size)),
            "aclmdlAddDatasetBuffer (output)");
    }
  }

  const Flags& flags_;
  aclrtContext context_ = nullptr;
  uint32_t model_id_ = 0;
  bool loaded_ = false;
  aclmdlDesc* desc_ = nullptr;
  aclmdlDataset* input_ = nullptr;
  aclmdlDataset* output_ = nullptr;
};

}  // namespace

int main(int argc, char** argv) {
  const auto process_start = Clock::now();
  const Flags flags = ParseFlags(argc, argv);
  Bench bench(flags);
  const std::string start = bench.Start(process_start);
  const long first_rss = PeakRssKb();
  bench.Time(flags.warmup);
  if (flags.serve) {
    std::printf("{\"ready\":true,%s,\"peak_rss_first_kb\":%ld}\n", start.c_str(), first_rss);
    std::fflush(stdout);
    std::string line;
    while (std::getline(std::cin, line)) {
      if (line.empty()) continue;
      const std::vector<double> times = bench.Time(ParseCount(line, "a serve line"));
      std::printf("{\"runs_us\":%s}\n", TimesJson(times).c_str());
      std::fflush(stdout);
    }
  }
  const std::vector<double> times = bench.Time(flags.serve ? 0 : flags.runs);
  std::printf("{%s,\"runs_us\":%s,\"peak_rss_first_kb\":%ld,\"peak_rss_kb\":%ld,\"outputs\":%s}\n",
              start.c_str(), TimesJson(times).c_str(), first_rss, PeakRssKb(),
              bench.Outputs().c_str());
  return 0;
}
