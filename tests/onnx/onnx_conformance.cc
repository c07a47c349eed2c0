// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// onnx_conformance: runs the ONNX backend test data (subsets node, simple, pytorch-converted,
// pytorch-operator, light) through Kiln end to end. Each case's model.onnx is compiled in-process
// to a temporary .om, loaded with aclmdlLoadFromFile, executed with aclmdlExecute on device
// buffers and its outputs are compared with the expected ones the way onnx's backend runner does.
// One bad case never stops the run: every case runs in its own try-scope and records its status
// (pass, fail, unsupported, unsupported-io, compile-error, run-error).
//
//   onnx_conformance [--data-root=DIR] [--subsets=node,simple,...] [--filter=REGEX]
//                    [--json=FILE] [--allowlist=FILE [--run-all]] [--write-allowlist=FILE]
//                    [--op-counts=FILE] [--target=cpu] [--device=0] [--bind-shapes]
//                    [--tolerances=FILE] [--precision_mode=MODE] [--time=N] [--quiet] [--list]
//
// With --allowlist the exit status is 1 when a listed case does not pass (the ctest mode); only
// the listed cases run unless --run-all is given. Exit status 77 means the test data is missing.
#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "atc/atc.h"
#include "compiler/compile.h"
#include "onnx/onnx_pb.h"
#include "tests/onnx/test_data.h"

#ifndef KILN_SOURCE_DIR
#define KILN_SOURCE_DIR "."
#endif

namespace kiln::conformance {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr int kExitSkip = 77;
constexpr int kUnsupportedCode = 200006;  // ACL_ERROR_FEATURE_UNSUPPORTED
const char* const kAllSubsets[] = {"node", "simple", "pytorch-converted", "pytorch-operator",
                                   "light"};

// ---------------------------------------------------------------------------------------------
// Options

struct Options {
  std::string data_root;
  std::vector<std::string> subsets;
  std::string filter;
  std::string json_path;
  std::string allowlist_path;
  std::string write_allowlist_path;
  std::string op_counts_path;
  std::string tolerances_path;
  std::string target;
  std::string precision_mode;  // kiln atc's --precision_mode ("" = the default, fp32)
  int time_runs = 0;           // --time: timed executions of each passing data set
  int device = 0;
  bool run_all = false;
  bool bind_shapes = false;
  bool quiet = false;
  bool list_only = false;
};

void PrintUsage() {
  std::printf(
      "usage: onnx_conformance [options]\n"
      "  --data-root=DIR        ONNX backend test data (default: $KILN_ONNX_TEST_DATA or\n"
      "                         <repo>/.venv/lib/python3.11/site-packages/onnx/backend/test/data)\n"
      "  --subsets=A,B          subsets to run (default: node,simple,pytorch-converted,\n"
      "                         pytorch-operator,light)\n"
      "  --filter=REGEX         run the cases whose name (subset/test_x) matches REGEX\n"
      "  --json=FILE            write every case's result as JSON\n"
      "  --allowlist=FILE       exit 1 when a listed case does not pass; runs only the listed\n"
      "                         cases unless --run-all\n"
      "  --run-all              with --allowlist: run every selected case, check the listed\n"
      "  --write-allowlist=FILE write the names of the passing cases (sorted)\n"
      "  --op-counts=FILE       write {op: {passed, total}} as JSON\n"
      "  --target=T             compiler target (default: this host's CPU)\n"
      "  --device=N             device id (default 0)\n"
      "  --bind-shapes          compile with the test inputs' shapes as --input_shape\n"
      "  --tolerances=FILE      per-case rtol/atol as JSON: {\"<case>\": {\"rtol\": R,\n"
      "                         \"atol\": A, \"comment\": ...}, \"default\": {...}}; <case> is\n"
      "                         subset/name or name; keys starting with '_' are ignored\n"
      "  --precision_mode=MODE  compile with kiln atc's --precision_mode (force_fp16, ...)\n"
      "  --time=N               after a data set passes, execute it N more times on the same\n"
      "                         buffers and report the median and p90 time of aclmdlExecute\n"
      "  --quiet                print only the cases that do not pass and the summary\n"
      "  --list                 list the selected cases and exit\n");
}

std::vector<std::string> SplitList(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

// Returns false (after printing why) on a bad command line.
bool ParseOptions(int argc, char** argv, Options* o) {
  const char* env_root = std::getenv("KILN_ONNX_TEST_DATA");
  o->data_root = env_root != nullptr && *env_root != '\0'
                     ? env_root
                     : std::string(KILN_SOURCE_DIR) +
                           "/.venv/lib/python3.11/site-packages/onnx/backend/test/data";
  o->subsets.assign(std::begin(kAllSubsets), std::end(kAllSubsets));
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&](const char* key, std::string* out) {
      std::string prefix = std::string(key) + "=";
      if (arg.rfind(prefix, 0) != 0) return false;
      *out = arg.substr(prefix.size());
      return true;
    };
    std::string v;
    if (arg == "--help" || arg == "-h") {
      PrintUsage();
      std::exit(0);
    } else if (value("--data-root", &o->data_root) || value("--filter", &o->filter) ||
               value("--json", &o->json_path) || value("--allowlist", &o->allowlist_path) ||
               value("--write-allowlist", &o->write_allowlist_path) ||
               value("--op-counts", &o->op_counts_path) || value("--target", &o->target) ||
               value("--tolerances", &o->tolerances_path) ||
               value("--precision_mode", &o->precision_mode)) {
    } else if (value("--time", &v)) {
      o->time_runs = std::max(0, std::atoi(v.c_str()));
    } else if (value("--subsets", &v)) {
      o->subsets = SplitList(v);
    } else if (value("--device", &v)) {
      o->device = std::atoi(v.c_str());
    } else if (arg == "--run-all") {
      o->run_all = true;
    } else if (arg == "--bind-shapes") {
      o->bind_shapes = true;
    } else if (arg == "--quiet") {
      o->quiet = true;
    } else if (arg == "--list") {
      o->list_only = true;
    } else {
      std::fprintf(stderr, "onnx_conformance: unknown argument '%s' (see --help)\n", arg.c_str());
      return false;
    }
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
// Test cases

struct DataSet {
  std::vector<std::string> inputs;   // input_K.pb, K = 0.. (graph.input[K])
  std::vector<std::string> outputs;  // output_K.pb (graph.output[K])
};

struct Case {
  std::string name;  // "<subset>/<test dir or model name>"
  std::string model_path;
  std::vector<DataSet> data_sets;
  bool generated_inputs = false;  // light models: inputs follow the runner's dummy-data rule
  Tolerance tolerance;
};

// The numbered files <dir>/<stem>K.pb for K = 0.. while they exist.
std::vector<std::string> NumberedFiles(const fs::path& dir, const std::string& stem) {
  std::vector<std::string> files;
  for (int k = 0;; ++k) {
    fs::path p = dir / (stem + std::to_string(k) + ".pb");
    if (!fs::exists(p)) break;
    files.push_back(p.string());
  }
  return files;
}

// rtol/atol of data.json when the file exists.
void ReadTolerance(const fs::path& data_json, Tolerance* t) {
  std::error_code ec;
  if (!fs::exists(data_json, ec)) return;
  std::ifstream in(data_json);
  auto j = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return;
  if (j.contains("rtol") && j["rtol"].is_number()) t->rtol = j["rtol"].get<double>();
  if (j.contains("atol") && j["atol"].is_number()) t->atol = j["atol"].get<double>();
}

std::vector<fs::path> SortedEntries(const fs::path& dir) {
  std::vector<fs::path> entries;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) entries.push_back(e.path());
  std::sort(entries.begin(), entries.end());
  return entries;
}

std::vector<Case> DiscoverSubset(const fs::path& root, const std::string& subset) {
  std::vector<Case> cases;
  fs::path dir = root / subset;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return cases;
  if (subset == "light") {
    // light_<model>.onnx with light_<model>_output_K.pb; real/test_<model>/data.json holds the
    // tolerances (onnx's loader reaches these files through that data.json's url).
    for (const auto& p : SortedEntries(dir)) {
      if (p.extension() != ".onnx") continue;
      std::string stem = p.stem().string();
      Case c;
      c.name = subset + "/" + stem;
      c.model_path = p.string();
      c.generated_inputs = true;
      DataSet ds;
      ds.outputs = NumberedFiles(dir, stem + "_output_");
      c.data_sets.push_back(ds);
      std::string model_name = stem.rfind("light_", 0) == 0 ? stem.substr(6) : stem;
      ReadTolerance(root / "real" / ("test_" + model_name) / "data.json", &c.tolerance);
      cases.push_back(std::move(c));
    }
    return cases;
  }
  for (const auto& p : SortedEntries(dir)) {
    if (!fs::exists(p / "model.onnx", ec)) continue;
    Case c;
    c.name = subset + "/" + p.filename().string();
    c.model_path = (p / "model.onnx").string();
    ReadTolerance(p / "data.json", &c.tolerance);
    for (int n = 0;; ++n) {
      fs::path set_dir = p / ("test_data_set_" + std::to_string(n));
      if (!fs::is_directory(set_dir, ec)) break;
      DataSet ds;
      ds.inputs = NumberedFiles(set_dir, "input_");
      ds.outputs = NumberedFiles(set_dir, "output_");
      c.data_sets.push_back(std::move(ds));
    }
    cases.push_back(std::move(c));
  }
  return cases;
}

// Applies --tolerances: a case's own entry ("subset/name" or "name"), else "default", replaces
// the case's rtol/atol (either may be left out). False (after printing why) on a bad file.
bool ApplyTolerances(const std::string& path, std::vector<Case>* cases) {
  std::ifstream in(path);
  auto j = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (!in || !j.is_object()) {
    std::fprintf(stderr, "onnx_conformance: cannot read %s as a JSON object\n", path.c_str());
    return false;
  }
  std::set<std::string> used;
  for (const auto& [key, entry] : j.items()) {
    if (key.rfind('_', 0) == 0) continue;
    bool ok = entry.is_object();
    for (const char* field : {"rtol", "atol"}) {
      ok = ok && (!entry.contains(field) || entry[field].is_number());
    }
    if (!ok) {
      std::fprintf(stderr, "onnx_conformance: %s: entry '%s' needs numeric rtol/atol\n",
                   path.c_str(), key.c_str());
      return false;
    }
  }
  for (auto& c : *cases) {
    std::string short_name = c.name.substr(c.name.find('/') + 1);
    const char* key = j.contains(c.name)       ? c.name.c_str()
                      : j.contains(short_name) ? short_name.c_str()
                      : j.contains("default")  ? "default"
                                               : nullptr;
    if (key == nullptr) continue;
    used.insert(key);
    const auto& entry = j[key];
    if (entry.contains("rtol")) c.tolerance.rtol = entry["rtol"].get<double>();
    if (entry.contains("atol")) c.tolerance.atol = entry["atol"].get<double>();
  }
  for (const auto& [key, entry] : j.items()) {
    if (key.rfind('_', 0) != 0 && key != "default" && used.count(key) == 0) {
      std::printf("note: --tolerances entry '%s' matches no selected case\n", key.c_str());
    }
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
// Results

// The largest errors of one output over the data sets run.
struct OutputError {
  std::string name;
  double max_abs = 0.0;
  double max_rel = 0.0;
};

// Folds one data set's per-output errors into `into` (matched by position).
void MergeOutputErrors(const std::vector<OutputError>& from, std::vector<OutputError>* into) {
  if (into->size() < from.size()) into->resize(from.size());
  for (size_t j = 0; j < from.size(); ++j) {
    (*into)[j].name = from[j].name;
    (*into)[j].max_abs = std::max((*into)[j].max_abs, from[j].max_abs);
    (*into)[j].max_rel = std::max((*into)[j].max_rel, from[j].max_rel);
  }
}

struct CaseResult {
  std::string status = "run-error";
  std::string message;
  double max_abs = 0.0;
  double max_rel = 0.0;
  std::vector<OutputError> outputs;  // per output, over the data sets run
  Tolerance tolerance;
  std::vector<std::string> ops;  // op types of the model's top-level graph
  double compile_ms = 0.0;
  double run_ms = 0.0;
  std::vector<double> exec_ms;  // --time: each timed aclmdlExecute, over the data sets
  int64_t leaked_bytes = 0;     // device memory not returned after the case
  std::string cleanup_error;    // a failed unload/free/destroy
};

CaseResult Finish(CaseResult r, const char* status, std::string message) {
  r.status = status;
  r.message = std::move(message);
  return r;
}

// "aclmdlExecute failed with 507011: <aclGetRecentErrMsg>".
std::string AclFailure(const char* api, aclError code) {
  const char* recent = aclGetRecentErrMsg();
  std::string msg = std::string(api) + " failed with " + std::to_string(code);
  if (recent != nullptr && *recent != '\0') msg += std::string(": ") + recent;
  return msg;
}

// ---------------------------------------------------------------------------------------------
// ACL resources of one case, released in the right order whatever happens.

class ModelHandle {
 public:
  ModelHandle() = default;
  ModelHandle(const ModelHandle&) = delete;
  ModelHandle& operator=(const ModelHandle&) = delete;
  ~ModelHandle() { Release(); }

  // Unloads the model and destroys its desc; returns the first failure ("" when none).
  std::string Release() {
    std::string error;
    if (desc != nullptr) {
      aclError e = aclmdlDestroyDesc(desc);
      if (e != ACL_SUCCESS) error = AclFailure("aclmdlDestroyDesc", e);
      desc = nullptr;
    }
    if (loaded) {
      aclError e = aclmdlUnload(id);
      if (e != ACL_SUCCESS && error.empty()) error = AclFailure("aclmdlUnload", e);
      loaded = false;
    }
    return error;
  }

  uint32_t id = 0;
  bool loaded = false;
  aclmdlDesc* desc = nullptr;
};

class IoResources {
 public:
  IoResources() = default;
  IoResources(const IoResources&) = delete;
  IoResources& operator=(const IoResources&) = delete;
  ~IoResources() { Release(); }

  std::string Release() {
    std::string error;
    auto note = [&](const char* api, aclError e) {
      if (e != ACL_SUCCESS && error.empty()) error = AclFailure(api, e);
    };
    if (inputs != nullptr) note("aclmdlDestroyDataset", aclmdlDestroyDataset(inputs));
    if (outputs != nullptr) note("aclmdlDestroyDataset", aclmdlDestroyDataset(outputs));
    inputs = outputs = nullptr;
    for (aclDataBuffer* b : buffers) note("aclDestroyDataBuffer", aclDestroyDataBuffer(b));
    buffers.clear();
    for (void* p : device) note("aclrtFree", aclrtFree(p));
    device.clear();
    for (aclTensorDesc* d : descs) aclDestroyTensorDesc(d);
    descs.clear();
    return error;
  }

  // Allocates `size` device bytes (at least 1) and wraps the first `buffer_size` of them.
  aclError AddBuffer(aclmdlDataset* dataset, size_t size, size_t buffer_size, void** dev,
                     std::string* error) {
    *dev = nullptr;
    aclError e = aclrtMalloc(dev, std::max<size_t>(size, 1), ACL_MEM_MALLOC_HUGE_FIRST);
    if (e != ACL_SUCCESS) {
      *error = AclFailure("aclrtMalloc", e);
      return e;
    }
    device.push_back(*dev);
    aclDataBuffer* b = aclCreateDataBuffer(*dev, buffer_size);
    if (b == nullptr) {
      *error = AclFailure("aclCreateDataBuffer", ACL_ERROR_BAD_ALLOC);
      return ACL_ERROR_BAD_ALLOC;
    }
    buffers.push_back(b);
    e = aclmdlAddDatasetBuffer(dataset, b);
    if (e != ACL_SUCCESS) *error = AclFailure("aclmdlAddDatasetBuffer", e);
    return e;
  }

  aclmdlDataset* inputs = nullptr;
  aclmdlDataset* outputs = nullptr;
  std::vector<aclDataBuffer*> buffers;
  std::vector<void*> device;
  std::vector<aclTensorDesc*> descs;
};

// ---------------------------------------------------------------------------------------------
// One case

struct GraphIo {
  std::vector<std::string> input_names;  // graph.input, initializers included (file order)
  std::vector<std::string> output_names;
  std::set<std::string> initializers;
};

std::string OpKey(const onnx::NodeProto& node) {
  const std::string& d = node.domain();
  if (d.empty() || d == "ai.onnx") return node.op_type();
  return d + ":" + node.op_type();
}

// "" when every graph input and output is a tensor of a type the runner handles; else the
// status ("unsupported-io" or "unsupported") with the reason in `why`.
const char* CheckGraphIo(const onnx::GraphProto& g, std::string* why) {
  auto check = [&](const onnx::ValueInfoProto& v, const char* kind) -> const char* {
    const onnx::TypeProto& t = v.type();
    if (!t.has_tensor_type()) {
      const char* what = t.has_sequence_type()   ? "a sequence"
                         : t.has_optional_type() ? "an optional"
                         : t.has_map_type()      ? "a map"
                                                 : "not a tensor";
      *why = std::string(kind) + " '" + v.name() + "' is " + what;
      return "unsupported-io";
    }
    int32_t elem = t.tensor_type().elem_type();
    if (OnnxTypeBits(elem) == 0) {
      *why = std::string(kind) + " '" + v.name() + "' has element type " + OnnxTypeName(elem);
      return "unsupported";
    }
    return "";
  };
  for (const auto& v : g.input()) {
    const char* s = check(v, "input");
    if (*s != '\0') return s;
  }
  for (const auto& v : g.output()) {
    const char* s = check(v, "output");
    if (*s != '\0') return s;
  }
  return "";
}

// The runner's dummy input for light models: arange(n) / n as float32, unknown dims = 1.
HostTensor DummyInput(const onnx::ValueInfoProto& v) {
  HostTensor t;
  t.onnx_type = kOnnxFloat;
  for (const auto& d : v.type().tensor_type().shape().dim()) {
    t.dims.push_back(d.has_dim_value() ? d.dim_value() : 1);
  }
  size_t n = t.ElementCount();
  t.bytes.resize(n * sizeof(float));
  for (size_t i = 0; i < n; ++i) {
    float f = static_cast<float>(static_cast<double>(i) / static_cast<double>(n));
    std::memcpy(&t.bytes[i * sizeof f], &f, sizeof f);
  }
  return t;
}

size_t FindName(const std::vector<std::string>& names, const std::string& name) {
  auto it = std::find(names.begin(), names.end(), name);
  return it == names.end() ? SIZE_MAX : static_cast<size_t>(it - names.begin());
}

std::vector<int64_t> IoDimsVector(const aclmdlIODims& d) {
  size_t n = std::min<size_t>(d.dimCount, ACL_MAX_DIM_CNT);
  return std::vector<int64_t>(d.dims, d.dims + n);
}

// Outcome of one test_data_set.
struct SetOutcome {
  const char* status = "pass";  // pass, fail, run-error
  std::string message;
  double max_abs = 0.0;
  double max_rel = 0.0;
  std::vector<OutputError> outputs;
  std::vector<double> exec_ms;  // --time
};

SetOutcome Fail(const char* status, std::string message) {
  SetOutcome o;
  o.status = status;
  o.message = std::move(message);
  return o;
}

SetOutcome RunDataSet(const ModelHandle& model, const GraphIo& io,
                      const std::vector<HostTensor>& inputs,
                      const std::vector<HostTensor>& expected, const Tolerance& tolerance,
                      int time_runs, std::string* cleanup_error) {
  IoResources res;
  std::string err;
  res.inputs = aclmdlCreateDataset();
  res.outputs = aclmdlCreateDataset();
  if (res.inputs == nullptr || res.outputs == nullptr) {
    return Fail("run-error", AclFailure("aclmdlCreateDataset", ACL_ERROR_BAD_ALLOC));
  }

  // Inputs: model input i is matched to the test file by name (graph.input[K] <-> input_K.pb).
  size_t num_inputs = aclmdlGetNumInputs(model.desc);
  for (size_t i = 0; i < num_inputs; ++i) {
    aclmdlIODims dims;
    std::memset(&dims, 0, sizeof dims);
    aclError e = aclmdlGetInputDims(model.desc, i, &dims);
    if (e != ACL_SUCCESS) return Fail("run-error", AclFailure("aclmdlGetInputDims", e));
    std::string name(dims.name, strnlen(dims.name, sizeof dims.name));
    size_t k = FindName(io.input_names, name);
    if (k >= inputs.size()) {
      if (num_inputs != inputs.size()) {
        return Fail("run-error", "model input " + std::to_string(i) + " '" + name +
                                     "' has no test data (" + std::to_string(inputs.size()) +
                                     " input files for " + std::to_string(num_inputs) +
                                     " model inputs)");
      }
      k = i;
    }
    const HostTensor& t = inputs[k];
    aclDataType acl_type = aclmdlGetInputDataType(model.desc, i);
    // Types AscendCL has no value for read as ACL_DT_UNDEFINED (docs/capi.md).
    const bool no_acl_value = acl_type == ACL_DT_UNDEFINED && AclTypeOfOnnx(t.onnx_type) == -1 &&
                              IsLowPrecisionOnnxType(t.onnx_type);
    if (!no_acl_value && OnnxTypeOfAcl(acl_type) != t.onnx_type) {
      return Fail("run-error", "model input '" + name + "' has aclDataType " +
                                   std::to_string(acl_type) + ", the test data is " +
                                   OnnxTypeName(t.onnx_type));
    }
    void* dev = nullptr;
    if (res.AddBuffer(res.inputs, t.bytes.size(), t.bytes.size(), &dev, &err) != ACL_SUCCESS) {
      return Fail("run-error", "input '" + name + "': " + err);
    }
    if (!t.bytes.empty()) {
      e = aclrtMemcpy(dev, t.bytes.size(), t.bytes.data(), t.bytes.size(),
                      ACL_MEMCPY_HOST_TO_DEVICE);
      if (e != ACL_SUCCESS) return Fail("run-error", AclFailure("aclrtMemcpy (input)", e));
    }
    std::vector<int64_t> model_dims = IoDimsVector(dims);
    bool dynamic =
        std::any_of(model_dims.begin(), model_dims.end(), [](int64_t d) { return d < 0; });
    if (dynamic) {
      aclTensorDesc* td =
          aclCreateTensorDesc(acl_type, static_cast<int>(t.dims.size()),
                              t.dims.empty() ? nullptr : t.dims.data(), ACL_FORMAT_ND);
      if (td == nullptr) return Fail("run-error", AclFailure("aclCreateTensorDesc", 0));
      res.descs.push_back(td);
      e = aclmdlSetDatasetTensorDesc(res.inputs, td, i);
      if (e != ACL_SUCCESS) return Fail("run-error", AclFailure("aclmdlSetDatasetTensorDesc", e));
    }
  }

  // Outputs: generous buffers; the runtime reports the real dims through the dataset's desc.
  size_t num_outputs = aclmdlGetNumOutputs(model.desc);
  if (num_outputs != expected.size()) {
    return Fail("fail", "the model has " + std::to_string(num_outputs) + " outputs, the test " +
                            "expects " + std::to_string(expected.size()));
  }
  std::vector<size_t> expected_index(num_outputs);
  std::vector<std::string> output_names(num_outputs);
  std::vector<void*> output_dev(num_outputs);
  std::vector<size_t> output_size(num_outputs);
  for (size_t j = 0; j < num_outputs; ++j) {
    aclmdlIODims dims;
    std::memset(&dims, 0, sizeof dims);
    aclError e = aclmdlGetOutputDims(model.desc, j, &dims);
    if (e != ACL_SUCCESS) return Fail("run-error", AclFailure("aclmdlGetOutputDims", e));
    output_names[j] = std::string(dims.name, strnlen(dims.name, sizeof dims.name));
    size_t k = FindName(io.output_names, output_names[j]);
    expected_index[j] = k < expected.size() ? k : j;
    size_t size = std::max<size_t>(expected[expected_index[j]].bytes.size(), 64);
    size_t model_size = aclmdlGetOutputSizeByIndex(model.desc, j);
    if (model_size > size && model_size <= (size_t{1} << 32)) size = model_size;
    output_size[j] = size;
    if (res.AddBuffer(res.outputs, size, size, &output_dev[j], &err) != ACL_SUCCESS) {
      return Fail("run-error", "output '" + output_names[j] + "': " + err);
    }
  }

  aclError e = aclmdlExecute(model.id, res.inputs, res.outputs);
  if (e != ACL_SUCCESS) return Fail("run-error", AclFailure("aclmdlExecute", e));

  // Reads every output back and compares it with the expected one.
  auto check = [&]() -> SetOutcome {
    SetOutcome outcome;
    for (size_t j = 0; j < num_outputs; ++j) {
      const std::string what = "output " + std::to_string(j) + " '" + output_names[j] + "'";
      HostTensor actual;
      aclDataType acl_type;
      aclTensorDesc* td = aclmdlGetDatasetTensorDesc(res.outputs, j);
      if (td != nullptr) {
        size_t rank = aclGetTensorDescNumDims(td);
        if (rank == ACL_UNKNOWN_RANK || rank > ACL_MAX_DIM_CNT) {
          return Fail("run-error", what + ": the runtime reports no rank");
        }
        actual.dims.resize(rank);
        for (size_t d = 0; d < rank; ++d) {
          e = aclGetTensorDescDimV2(td, d, &actual.dims[d]);
          if (e != ACL_SUCCESS) return Fail("run-error", AclFailure("aclGetTensorDescDimV2", e));
        }
        acl_type = aclGetTensorDescType(td);
      } else {
        aclmdlIODims dims;
        std::memset(&dims, 0, sizeof dims);
        e = aclmdlGetCurOutputDims(model.desc, j, &dims);
        if (e != ACL_SUCCESS) return Fail("run-error", AclFailure("aclmdlGetCurOutputDims", e));
        actual.dims = IoDimsVector(dims);
        acl_type = aclmdlGetOutputDataType(model.desc, j);
      }
      for (int64_t d : actual.dims) {
        if (d < 0) {
          return Fail("run-error", what + " has unresolved dims " + DimsToString(actual.dims) +
                                       " after execute");
        }
      }
      actual.onnx_type = OnnxTypeOfAcl(acl_type);
      const int32_t want_type = expected[expected_index[j]].onnx_type;
      // AscendCL has no value for some ONNX types (the FNUZ float8s, uint4, int2, uint2): Kiln
      // reports ACL_DT_UNDEFINED for them (docs/capi.md), and the expected type stands.
      if (acl_type == -1 && IsLowPrecisionOnnxType(want_type) && AclTypeOfOnnx(want_type) == -1) {
        actual.onnx_type = want_type;
      }
      if (OnnxTypeBits(actual.onnx_type) == 0) {
        return Fail("fail", what + " has aclDataType " + std::to_string(acl_type) + ", expected " +
                                OnnxTypeName(want_type));
      }
      size_t bytes = OnnxStorageBytes(actual.onnx_type, actual.ElementCount());
      if (bytes > output_size[j]) {
        return Fail("run-error", what + " has dims " + DimsToString(actual.dims) + " (" +
                                     std::to_string(bytes) + " bytes) but its buffer holds " +
                                     std::to_string(output_size[j]));
      }
      actual.bytes.resize(bytes);
      if (bytes != 0) {
        e = aclrtMemcpy(actual.bytes.data(), bytes, output_dev[j], bytes,
                        ACL_MEMCPY_DEVICE_TO_HOST);
        if (e != ACL_SUCCESS) return Fail("run-error", AclFailure("aclrtMemcpy (output)", e));
      }
      Comparison c = CompareTensors(actual, expected[expected_index[j]], tolerance, what);
      outcome.max_abs = std::max(outcome.max_abs, c.max_abs);
      outcome.max_rel = std::max(outcome.max_rel, c.max_rel);
      outcome.outputs.push_back({output_names[j], c.max_abs, c.max_rel});
      if (!c.ok && outcome.message.empty()) {
        outcome.status = "fail";
        outcome.message = c.message;
      }
    }
    return outcome;
  };
  SetOutcome outcome = check();
  // --time: the same buffers again (a device may replay its recording of the run from the
  // third execution on: docs/cuda.md decision 7), each execution timed on its own.
  for (int k = 0; std::strcmp(outcome.status, "pass") == 0 && k < time_runs; ++k) {
    auto t = Clock::now();
    e = aclmdlExecute(model.id, res.inputs, res.outputs);
    if (e != ACL_SUCCESS) return Fail("run-error", AclFailure("aclmdlExecute (timed)", e));
    outcome.exec_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t).count());
  }
  // And once more into outputs filled with garbage, checked: a replayed run must compute what
  // the first did.
  if (time_runs > 0 && std::strcmp(outcome.status, "pass") == 0) {
    for (size_t j = 0; j < num_outputs; ++j) {
      e = aclrtMemset(output_dev[j], output_size[j], 0xff, output_size[j]);
      if (e != ACL_SUCCESS) return Fail("run-error", AclFailure("aclrtMemset (output)", e));
    }
    e = aclmdlExecute(model.id, res.inputs, res.outputs);
    if (e != ACL_SUCCESS) return Fail("run-error", AclFailure("aclmdlExecute (after timing)", e));
    SetOutcome again = check();
    if (std::strcmp(again.status, "pass") != 0) {
      again.message = "after " + std::to_string(time_runs) + " timed runs: " + again.message;
      again.exec_ms = std::move(outcome.exec_ms);
      outcome = std::move(again);
    }
  }
  std::string release = res.Release();
  if (!release.empty() && cleanup_error->empty()) *cleanup_error = release;
  return outcome;
}

CaseResult RunCase(const Case& c, const Options& opt, const fs::path& tmp_dir, size_t index) {
  CaseResult r;
  r.tolerance = c.tolerance;
  onnx::ModelProto model;
  {
    std::ifstream in(c.model_path, std::ios::binary);
    if (!in || !model.ParseFromIstream(&in)) {
      return Finish(r, "compile-error", "cannot read " + c.model_path + " as an ONNX model");
    }
  }
  std::set<std::string> ops;
  for (const auto& node : model.graph().node()) ops.insert(OpKey(node));
  r.ops.assign(ops.begin(), ops.end());

  GraphIo io;
  for (const auto& init : model.graph().initializer()) io.initializers.insert(init.name());
  for (const auto& v : model.graph().input()) io.input_names.push_back(v.name());
  for (const auto& v : model.graph().output()) io.output_names.push_back(v.name());
  std::string why;
  const char* io_status = CheckGraphIo(model.graph(), &why);
  if (*io_status != '\0') return Finish(r, io_status, why);

  // Test data.
  std::vector<std::vector<HostTensor>> inputs(c.data_sets.size());
  std::vector<std::vector<HostTensor>> outputs(c.data_sets.size());
  if (c.data_sets.empty()) return Finish(r, "unsupported-io", "the case has no test data set");
  for (size_t s = 0; s < c.data_sets.size(); ++s) {
    if (c.generated_inputs) {
      for (const auto& v : model.graph().input()) {
        if (io.initializers.count(v.name()) == 0) inputs[s].push_back(DummyInput(v));
      }
    }
    for (const auto& path : c.data_sets[s].inputs) {
      HostTensor t;
      if (!LoadTensorFile(path, &t, &why)) return Finish(r, "unsupported-io", why);
      inputs[s].push_back(std::move(t));
    }
    for (const auto& path : c.data_sets[s].outputs) {
      HostTensor t;
      if (!LoadTensorFile(path, &t, &why)) return Finish(r, "unsupported-io", why);
      outputs[s].push_back(std::move(t));
    }
    if (outputs[s].empty()) return Finish(r, "unsupported-io", "no expected output files");
  }
  // Light models list only the non-initializer inputs, in graph order.
  if (c.generated_inputs) {
    std::vector<std::string> names;
    for (const auto& n : io.input_names) {
      if (io.initializers.count(n) == 0) names.push_back(n);
    }
    io.input_names = std::move(names);
  }

  // Compile in-process.
  compiler::CompileOptions co;
  co.model = c.model_path;
  co.output = (tmp_dir / ("case" + std::to_string(index) + ".om")).string();
  co.target = opt.target;
  if (!opt.precision_mode.empty()) co.record.emplace_back("precision_mode", opt.precision_mode);
  if (opt.bind_shapes) {
    for (size_t k = 0; k < inputs[0].size() && k < io.input_names.size(); ++k) {
      co.input_shapes[io.input_names[k]] = inputs[0][k].dims;
    }
  }
  auto t0 = Clock::now();
  auto report = atc::Compile(co);
  r.compile_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  if (!report.ok()) {
    int code = report.status().code();
    return Finish(r, code == kUnsupportedCode ? "unsupported" : "compile-error",
                  std::to_string(code) + ": " + report.status().message());
  }
  const std::string om_path = report->output_path.empty() ? co.output : report->output_path;

  // Load, run every data set, unload.
  auto t1 = Clock::now();
  ModelHandle handle;
  aclError e = aclmdlLoadFromFile(om_path.c_str(), &handle.id);
  std::error_code ec;
  fs::remove(om_path, ec);
  if (e != ACL_SUCCESS) return Finish(r, "run-error", AclFailure("aclmdlLoadFromFile", e));
  handle.loaded = true;
  handle.desc = aclmdlCreateDesc();
  if (handle.desc == nullptr) {
    return Finish(r, "run-error", AclFailure("aclmdlCreateDesc", ACL_ERROR_BAD_ALLOC));
  }
  e = aclmdlGetDesc(handle.desc, handle.id);
  if (e != ACL_SUCCESS) return Finish(r, "run-error", AclFailure("aclmdlGetDesc", e));

  r.status = "pass";
  for (size_t s = 0; s < c.data_sets.size(); ++s) {
    SetOutcome o =
        RunDataSet(handle, io, inputs[s], outputs[s], c.tolerance, opt.time_runs, &r.cleanup_error);
    r.exec_ms.insert(r.exec_ms.end(), o.exec_ms.begin(), o.exec_ms.end());
    r.max_abs = std::max(r.max_abs, o.max_abs);
    r.max_rel = std::max(r.max_rel, o.max_rel);
    MergeOutputErrors(o.outputs, &r.outputs);
    if (std::strcmp(o.status, "pass") != 0) {
      r.status = o.status;
      r.message = c.data_sets.size() > 1 ? "test_data_set_" + std::to_string(s) + ": " + o.message
                                         : o.message;
      break;
    }
  }
  std::string release = handle.Release();
  if (!release.empty() && r.cleanup_error.empty()) r.cleanup_error = release;
  r.run_ms = std::chrono::duration<double, std::milli>(Clock::now() - t1).count();
  return r;
}

// ---------------------------------------------------------------------------------------------
// Allow-list and reports

// Case names, one a line; '#' starts a comment, blank lines are ignored.
bool ReadAllowlist(const std::string& path, std::vector<std::string>* names) {
  std::ifstream in(path);
  if (!in) return false;
  std::string line;
  while (std::getline(in, line)) {
    size_t hash = line.find('#');
    if (hash != std::string::npos) line.resize(hash);
    size_t b = line.find_first_not_of(" \t\r");
    size_t e = line.find_last_not_of(" \t\r");
    if (b == std::string::npos) continue;
    names->push_back(line.substr(b, e - b + 1));
  }
  return true;
}

bool WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  out.close();
  if (!out) {
    std::fprintf(stderr, "onnx_conformance: cannot write %s\n", path.c_str());
    return false;
  }
  return true;
}

// A short one-line form of a (possibly multi-line) message for the console.
std::string OneLine(const std::string& s, size_t limit = 400) {
  std::string out;
  for (char ch : s) out += (ch == '\n' || ch == '\r') ? ' ' : ch;
  if (out.size() > limit) out = out.substr(0, limit) + "...";
  return out;
}

int64_t DeviceFreeBytes() {
  size_t free_bytes = 0, total = 0;
  if (aclrtGetMemInfo(ACL_HBM_MEM, &free_bytes, &total) != ACL_SUCCESS) return -1;
  return static_cast<int64_t>(free_bytes);
}

int Main(int argc, char** argv) {
  Options opt;
  if (!ParseOptions(argc, argv, &opt)) return 2;
  // Progress lines must reach the log before a case can hang.
  std::setvbuf(stdout, nullptr, _IOLBF, 0);

  std::error_code ec;
  if (!fs::is_directory(opt.data_root, ec)) {
    std::printf(
        "onnx_conformance: no ONNX backend test data at %s (set --data-root or "
        "KILN_ONNX_TEST_DATA); skipping\n",
        opt.data_root.c_str());
    return kExitSkip;
  }

  std::vector<Case> cases;
  for (const auto& subset : opt.subsets) {
    auto found = DiscoverSubset(opt.data_root, subset);
    if (found.empty()) std::printf("note: no cases in subset '%s'\n", subset.c_str());
    for (auto& c : found) cases.push_back(std::move(c));
  }
  std::regex filter;
  try {
    filter = std::regex(opt.filter.empty() ? std::string(".*") : opt.filter);
  } catch (const std::regex_error& e) {
    std::fprintf(stderr, "onnx_conformance: bad --filter '%s': %s\n", opt.filter.c_str(), e.what());
    return 2;
  }
  // A case name is selected when its subset is and it matches the filter.
  auto selected = [&](const std::string& name) {
    std::string subset = name.substr(0, name.find('/'));
    return std::find(opt.subsets.begin(), opt.subsets.end(), subset) != opt.subsets.end() &&
           std::regex_search(name, filter);
  };
  std::erase_if(cases, [&](const Case& c) { return !selected(c.name); });
  if (!opt.tolerances_path.empty() && !ApplyTolerances(opt.tolerances_path, &cases)) return 2;

  std::vector<std::string> allowlist;
  if (!opt.allowlist_path.empty()) {
    if (!ReadAllowlist(opt.allowlist_path, &allowlist)) {
      std::fprintf(stderr, "onnx_conformance: cannot read allow-list %s\n",
                   opt.allowlist_path.c_str());
      return 2;
    }
    if (!opt.run_all) {
      std::set<std::string> listed(allowlist.begin(), allowlist.end());
      std::erase_if(cases, [&](const Case& c) { return listed.count(c.name) == 0; });
    }
  }

  if (opt.list_only) {
    for (const auto& c : cases) std::printf("%s\n", c.name.c_str());
    return 0;
  }

  char tmpl[] = "/tmp/kiln-onnx-conformance-XXXXXX";
  const char* tmp = mkdtemp(tmpl);
  if (tmp == nullptr) {
    std::fprintf(stderr, "onnx_conformance: cannot create a temporary directory\n");
    return 2;
  }
  const fs::path tmp_dir = tmp;

  aclError e = aclInit(nullptr);
  if (e != ACL_SUCCESS) {
    std::fprintf(stderr, "onnx_conformance: %s\n", AclFailure("aclInit", e).c_str());
    fs::remove_all(tmp_dir, ec);
    return 2;
  }
  e = aclrtSetDevice(opt.device);
  if (e != ACL_SUCCESS) {
    std::fprintf(stderr, "onnx_conformance: %s\n", AclFailure("aclrtSetDevice", e).c_str());
    (void)aclFinalize();
    fs::remove_all(tmp_dir, ec);
    return 2;
  }

  std::printf("onnx_conformance: %zu cases from %s\n", cases.size(), opt.data_root.c_str());
  std::map<std::string, CaseResult> results;
  const int64_t free_at_start = DeviceFreeBytes();
  auto run_start = Clock::now();
  for (size_t i = 0; i < cases.size(); ++i) {
    const Case& c = cases[i];
    if (!opt.quiet) std::printf("[%zu/%zu] %s ... ", i + 1, cases.size(), c.name.c_str());
    std::fflush(stdout);
    const int64_t free_before = DeviceFreeBytes();
    CaseResult r;
    try {
      r = RunCase(c, opt, tmp_dir, i);
    } catch (const std::exception& ex) {
      r = Finish(CaseResult(), "run-error", std::string("exception: ") + ex.what());
    } catch (...) {
      r = Finish(CaseResult(), "run-error", "unknown exception");
    }
    const int64_t free_after = DeviceFreeBytes();
    if (free_before >= 0 && free_after >= 0 && free_after < free_before) {
      r.leaked_bytes = free_before - free_after;
    }
    std::string extra;
    if (!opt.tolerances_path.empty()) {
      char tol[64];
      std::snprintf(tol, sizeof tol, " [rtol %g atol %g]", r.tolerance.rtol, r.tolerance.atol);
      extra += tol;
    }
    for (const auto& out : r.outputs) {
      char err[64];
      std::snprintf(err, sizeof err, "': max abs %.3g, max rel %.3g", out.max_abs, out.max_rel);
      extra += " '" + out.name + err;
    }
    if (!r.exec_ms.empty()) {
      std::vector<double> t = r.exec_ms;
      std::sort(t.begin(), t.end());
      char timing[96];
      std::snprintf(timing, sizeof timing, " [execute: median %.3f ms, min %.3f ms, %zu runs]",
                    t[t.size() / 2], t.front(), t.size());
      extra += timing;
    }
    if (r.leaked_bytes != 0) extra += " [leaked " + std::to_string(r.leaked_bytes) + " B]";
    if (!r.cleanup_error.empty()) extra += " [cleanup: " + OneLine(r.cleanup_error, 200) + "]";
    if (opt.quiet) {
      if (r.status != "pass") {
        std::printf("%s: %s: %s%s\n", c.name.c_str(), r.status.c_str(), OneLine(r.message).c_str(),
                    extra.c_str());
      }
    } else {
      std::printf("%s (%.0f ms)%s\n", r.status.c_str(), r.compile_ms + r.run_ms, extra.c_str());
      if (!r.message.empty()) std::printf("    %s\n", OneLine(r.message).c_str());
    }
    results[c.name] = std::move(r);
  }
  const double total_s = std::chrono::duration<double>(Clock::now() - run_start).count();
  const int64_t free_at_end = DeviceFreeBytes();

  // Summary.
  std::map<std::string, int> per_status;
  std::map<std::string, std::pair<int, int>> per_op;  // op -> {passed, total}
  int leaking = 0, cleanup_failures = 0;
  std::vector<std::string> passing;
  for (const auto& [name, r] : results) {
    ++per_status[r.status];
    bool pass = r.status == "pass";
    if (pass) passing.push_back(name);
    for (const auto& op : r.ops) {
      auto& counts = per_op[op];
      counts.first += pass ? 1 : 0;
      ++counts.second;
    }
    if (r.leaked_bytes != 0) ++leaking;
    if (!r.cleanup_error.empty()) ++cleanup_failures;
  }
  std::printf("\n== summary: %zu cases in %.1f s ==\n", results.size(), total_s);
  for (const char* s :
       {"pass", "fail", "unsupported", "unsupported-io", "compile-error", "run-error"}) {
    std::printf("  %-15s %d\n", s, per_status.count(s) ? per_status[s] : 0);
  }
  if (leaking != 0 || cleanup_failures != 0) {
    std::printf("  cases leaking device memory: %d, with cleanup errors: %d\n", leaking,
                cleanup_failures);
  }
  if (free_at_start >= 0 && free_at_end >= 0 && free_at_end != free_at_start) {
    std::printf("  device free memory changed by %lld bytes over the run\n",
                static_cast<long long>(free_at_end - free_at_start));
  }
  if (!opt.quiet && !per_op.empty()) {
    std::printf("\n  per op type (cases whose model uses the op: passed/total)\n");
    for (const auto& [op, counts] : per_op) {
      std::printf("    %-28s %d/%d\n", op.c_str(), counts.first, counts.second);
    }
  }

  bool write_ok = true;
  if (!opt.json_path.empty()) {
    nlohmann::json j;
    j["data_root"] = opt.data_root;
    j["seconds"] = total_s;
    for (const auto& [s, n] : per_status) j["summary"][s] = n;
    j["cases"] = nlohmann::json::object();
    for (const auto& [name, r] : results) {
      nlohmann::json cj = {
          {"status", r.status},       {"message", r.message}, {"max_abs_err", r.max_abs},
          {"max_rel_err", r.max_rel}, {"ops", r.ops},         {"compile_ms", r.compile_ms},
          {"run_ms", r.run_ms}};
      cj["rtol"] = r.tolerance.rtol;
      cj["atol"] = r.tolerance.atol;
      cj["outputs"] = nlohmann::json::array();
      for (const auto& out : r.outputs) {
        cj["outputs"].push_back(
            {{"name", out.name}, {"max_abs_err", out.max_abs}, {"max_rel_err", out.max_rel}});
      }
      if (!r.exec_ms.empty()) {
        std::vector<double> t = r.exec_ms;
        std::sort(t.begin(), t.end());
        cj["exec_ms"] = {{"runs", t.size()},
                         {"min", t.front()},
                         {"median", t[t.size() / 2]},
                         {"p90", t[std::min(t.size() - 1, t.size() * 9 / 10)]}};
      }
      if (r.leaked_bytes != 0) cj["leaked_bytes"] = r.leaked_bytes;
      if (!r.cleanup_error.empty()) cj["cleanup_error"] = r.cleanup_error;
      j["cases"][name] = std::move(cj);
    }
    write_ok &= WriteFile(opt.json_path,
                          j.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
  }
  if (!opt.op_counts_path.empty()) {
    nlohmann::json j = nlohmann::json::object();
    for (const auto& [op, counts] : per_op) {
      j[op] = {{"passed", counts.first}, {"total", counts.second}};
    }
    write_ok &= WriteFile(opt.op_counts_path, j.dump(1) + "\n");
  }
  if (!opt.write_allowlist_path.empty()) {
    std::string text =
        "# ONNX backend test cases that pass (generated by onnx_conformance --write-allowlist)\n";
    for (const auto& name : passing) text += name + "\n";
    write_ok &= WriteFile(opt.write_allowlist_path, text);
  }

  (void)aclrtResetDevice(opt.device);
  (void)aclFinalize();
  fs::remove_all(tmp_dir, ec);

  if (!write_ok) return 2;
  if (!opt.allowlist_path.empty()) {
    int bad = 0;
    for (const auto& name : allowlist) {
      if (!selected(name)) continue;  // outside --subsets / --filter
      auto it = results.find(name);
      if (it == results.end()) {
        std::printf("allow-listed case %s was not run (missing from the data or filtered out)\n",
                    name.c_str());
        ++bad;
      } else if (it->second.status != "pass") {
        std::printf("allow-listed case %s: %s: %s\n", name.c_str(), it->second.status.c_str(),
                    OneLine(it->second.message).c_str());
        ++bad;
      }
    }
    std::printf("allow-list: %zu listed, %d not passing\n", allowlist.size(), bad);
    return bad == 0 ? 0 : 1;
  }
  return 0;
}

}  // namespace
}  // namespace kiln::conformance

int main(int argc, char** argv) { return kiln::conformance::Main(argc, argv); }
