// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// `kiln bench`: benchmarks one model through the public AscendCL API, with ais_bench's flags
// where they apply. Each execution copies the inputs in (aclrtMemcpy H2D), runs the model
// (aclmdlExecute; with --threads > 1, aclmdlExecuteAsync on the thread's own stream) and copies
// the outputs out (D2H); each phase is timed on its own. The latency percentiles are those of
// the execution phase (ais_bench's "NPU_compute_time"); throughput counts every execution of
// every thread over the wall time of the timed phase.
#include "tools/kiln/bench.h"

#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "atc/atc.h"
#include "compiler/compile.h"
#include "tools/kiln/bench_io.h"
#include "tools/kiln/bench_session.h"
#include "tools/kiln/bench_stats.h"
#include "tools/kiln/bench_threads.h"

namespace kiln::tools {
namespace {

namespace fs = std::filesystem;
using bench::GearChoice;
using bench::PhaseTimes;
using bench::RunResult;
using bench::Session;
using bench::Stats;
using bench::TensorInfo;
using bench::Worker;
using Clock = std::chrono::steady_clock;

double MsSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

struct BenchFlags {
  std::string model, input, output, output_dirname, outfmt = "BIN", json, input_shape;
  std::string dym_hw, dym_dims, dym_shape, output_size, acl_json_path;
  std::string pure_data_type = "random", progress = "auto";
  int loop = 1, warmup_count = 1, batchsize = 0, dym_batch = 0, device = 0, threads = 1;
  bool display_all_summary = false;
};

int Fail(const std::string& message) {
  std::fprintf(stderr, "[ERROR] %s\n", message.c_str());
  return 1;
}

std::string DimsText(const std::vector<int64_t>& dims) {
  std::string s;
  for (size_t k = 0; k < dims.size(); ++k) s += (k ? "," : "") + std::to_string(dims[k]);
  return "[" + s + "]";
}

// The process's peak resident set in KiB: VmHWM (it starts afresh at execve), else getrusage
// (whose ru_maxrss Linux carries over from the parent across fork and execve).
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

// A folder made for an .onnx compiled on the fly, removed with its contents.
class TempDir {
 public:
  std::string Make() {
    std::string pattern = (fs::temp_directory_path() / "kiln-bench-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) return "";
    path_ = pattern;
    return path_;
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) fs::remove_all(path_, ec);
  }

 private:
  std::string path_;
};

Result<GearChoice> GearOf(const BenchFlags& f) {
  GearChoice g;
  const int given =
      (f.dym_batch > 0) + !f.dym_hw.empty() + !f.dym_dims.empty() + !f.dym_shape.empty();
  if (given > 1) {
    return Error(code::kInvalidParam,
                 "--dymBatch, --dymHW, --dymDims and --dymShape exclude each other");
  }
  std::stringstream sizes(f.output_size);
  for (std::string item; std::getline(sizes, item, ',');) {
    char* end = nullptr;
    const long long v = std::strtoll(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0' || v < 0) {
      return Error(code::kInvalidParam, "--outputSize '", f.output_size,
                   "' is not a list of byte counts (e.g. 4000,800)");
    }
    g.output_sizes.push_back(static_cast<size_t>(v));
  }
  if (f.dym_batch > 0) {
    g.kind = GearChoice::kBatch;
    g.batch = static_cast<uint64_t>(f.dym_batch);
  } else if (!f.dym_hw.empty()) {
    unsigned long long h = 0, w = 0;
    char extra = 0;
    if (std::sscanf(f.dym_hw.c_str(), "%llu,%llu%c", &h, &w, &extra) != 2 || h == 0 || w == 0) {
      return Error(code::kInvalidParam, "--dymHW '", f.dym_hw,
                   "' is not HEIGHT,WIDTH (e.g. 224,224)");
    }
    g.kind = GearChoice::kHW;
    g.height = h;
    g.width = w;
  } else if (!f.dym_dims.empty()) {
    g.kind = GearChoice::kDims;
    g.dims_text = f.dym_dims;
  } else if (!f.dym_shape.empty()) {
    g.kind = GearChoice::kShape;
    g.dims_text = f.dym_shape;
  }
  return g;
}

// The input samples: samples[s][i] is data input i of sample s; stems[s] names its outputs.
struct Samples {
  std::vector<std::vector<std::vector<char>>> data;
  std::vector<std::string> stems;
  std::string source = "random";  // "random", "zero" or "files"
};

std::string CheckInputFile(const std::string& path, const TensorInfo& in,
                           std::vector<char>* bytes) {
  bench::TensorFile file;
  bench::IoError io = bench::ReadTensorFile(path, &file);
  if (!io.ok()) return io.error;
  const std::string what = "input " + std::to_string(in.index) + " '" + in.name + "' (" +
                           bench::DtypeName(in.dtype) + " " + DimsText(in.dims) + ", " +
                           std::to_string(in.bytes) + " bytes)";
  if (file.has_header && file.dtype != in.dtype) {
    return path + ": dtype " + bench::DtypeName(file.dtype) + " does not match " + what;
  }
  if (file.bytes.size() != in.bytes) {
    return path + ": " + std::to_string(file.bytes.size()) + " bytes" +
           (file.has_header ? " (shape " + DimsText(file.dims) + ")" : "") + " do not match " +
           what;
  }
  *bytes = std::move(file.bytes);
  return "";
}

std::string LoadSamples(const BenchFlags& f, const Session& s, Samples* out) {
  const auto& inputs = s.inputs();
  if (f.input.empty()) {
    out->source = f.pure_data_type;
    out->data.emplace_back();
    for (size_t i = 0; i < inputs.size(); ++i) {
      std::vector<char> bytes(inputs[i].bytes);
      bench::FillPureData(bytes, inputs[i].dtype, f.pure_data_type == "random", 1234 + i);
      out->data.back().push_back(std::move(bytes));
    }
    out->stems.push_back("pure_infer_data");
    return "";
  }
  out->source = "files";
  std::vector<std::string> entries;
  std::stringstream items(f.input);
  for (std::string item; std::getline(items, item, ',');) {
    if (item.empty() || f.input.back() == ',') return "--input '" + f.input + "' has an empty item";
    entries.push_back(item);
  }
  if (entries.size() != inputs.size()) {
    std::string list;
    for (const auto& in : inputs) {
      list += (list.empty() ? "" : ", ") + in.name + " " + bench::DtypeName(in.dtype) + " " +
              DimsText(in.dims);
    }
    return "--input gives " + std::to_string(entries.size()) +
           " file(s) or folder(s); the model has " + std::to_string(inputs.size()) +
           " input(s): " + list;
  }
  std::vector<std::vector<std::string>> files(entries.size());
  size_t count = 0;
  for (size_t i = 0; i < entries.size(); ++i) {
    std::error_code ec;
    if (fs::is_directory(entries[i], ec)) {
      bench::IoError io = bench::ListTensorFiles(entries[i], &files[i]);
      if (!io.ok()) return "--input: " + io.error;
    } else {
      files[i].push_back(entries[i]);
    }
    if (i == 0) count = files[i].size();
    if (files[i].size() != count) {
      return "--input: '" + entries[0] + "' gives " + std::to_string(count) + " sample(s), '" +
             entries[i] + "' gives " + std::to_string(files[i].size()) +
             " (every input needs one file per sample)";
    }
  }
  for (size_t smp = 0; smp < count; ++smp) {
    out->data.emplace_back();
    for (size_t i = 0; i < inputs.size(); ++i) {
      std::vector<char> bytes;
      std::string err = CheckInputFile(files[i][smp], inputs[i], &bytes);
      if (!err.empty()) return "--input: " + err;
      out->data.back().push_back(std::move(bytes));
    }
    out->stems.push_back(bench::StemOf(files[0][smp]));
  }
  return "";
}

// Writes worker 0's outputs of every sample into the output folder.
std::string WriteOutputs(const BenchFlags& f, const Session& s, const Samples& samples,
                         const Worker& w, nlohmann::json* files) {
  fs::path dir = f.output;
  if (!f.output_dirname.empty()) dir /= f.output_dirname;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir)) {
    return "--output: cannot create the folder '" + dir.string() + "': " + ec.message();
  }
  std::string ext = f.outfmt == "NPY" ? ".npy" : f.outfmt == "TXT" ? ".txt" : ".bin";
  for (size_t smp = 0; smp < samples.stems.size(); ++smp) {
    for (size_t o = 0; o < s.outputs().size(); ++o) {
      const TensorInfo& out = s.outputs()[o];
      const std::string path =
          (dir / (samples.stems[smp] + "_" + std::to_string(o) + ext)).string();
      const void* data = w.HostOutput(smp, o);
      bench::IoError io =
          f.outfmt == "NPY"   ? bench::WriteNpy(path, data, out.bytes, out.dtype, out.dims)
          : f.outfmt == "TXT" ? bench::WriteTxt(path, data, out.bytes, out.dtype, out.dims)
                              : bench::WriteBin(path, data, out.bytes);
      if (!io.ok()) return "--output: " + io.error;
      files->push_back(path);
    }
  }
  return "";
}

nlohmann::json TensorsJson(const std::vector<TensorInfo>& tensors) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& t : tensors) {
    list.push_back({{"name", t.name},
                    {"dtype", bench::DtypeName(t.dtype)},
                    {"dims", t.dims},
                    {"bytes", t.bytes}});
  }
  return list;
}

void PrintPhase(const char* name, const Stats& s) {
  std::printf("[INFO] %-10s %10.3f %10.3f %10.3f %10.3f %10.3f %10.3f\n", name, s.min, s.mean,
              s.median, s.p90, s.p99, s.max);
}

int RunBench(const BenchFlags& f) {
  const auto process_start = Clock::now();
  std::error_code ec;
  if (!fs::exists(f.model, ec)) return Fail("--model '" + f.model + "': no such file");
  if (fs::is_directory(f.model, ec))
    return Fail("--model '" + f.model + "' is a folder, not a model file");
  auto gear = GearOf(f);
  if (!gear.ok()) return Fail(gear.status().message());
  const bool onnx = fs::path(f.model).extension() == ".onnx";
  if (!f.input_shape.empty() && !onnx) {
    return Fail("--input_shape applies to an .onnx model only (an .om has its shapes)");
  }
  if (!f.acl_json_path.empty() && !fs::is_regular_file(f.acl_json_path, ec)) {
    return Fail("--acl_json_path '" + f.acl_json_path + "': no such file");
  }
  if (!f.output.empty() && fs::exists(f.output, ec) && !fs::is_directory(f.output, ec)) {
    return Fail("--output '" + f.output + "' is a file; it must be a folder");
  }

  nlohmann::json summary;
  summary["model"] = f.model;
  std::string om = f.model;
  TempDir temp;
  if (onnx) {
    const std::string dir = temp.Make();
    if (dir.empty()) return Fail("cannot create a temporary folder to compile " + f.model);
    compiler::CompileOptions options;
    options.model = f.model;
    options.output = dir + "/model";
    if (!f.input_shape.empty()) {
      auto shapes = compiler::ParseInputShape(f.input_shape);
      if (!shapes.ok()) return Fail("--input_shape: " + shapes.status().message());
      options.input_shapes = *shapes;
    }
    const auto t0 = Clock::now();
    auto report = atc::Compile(options);
    if (!report.ok()) return Fail("compiling " + f.model + ": " + report.status().message());
    om = report->output_path;
    summary["compile_ms"] = MsSince(t0);
    std::printf("[INFO] compiled %s in %.1f ms (as kiln atc --framework=5%s%s)\n", f.model.c_str(),
                summary["compile_ms"].get<double>(),
                f.input_shape.empty() ? "" : " --input_shape=", f.input_shape.c_str());
  }

  Session session;
  auto t0 = Clock::now();
  if (std::string err = session.Open(f.device, f.acl_json_path); !err.empty()) return Fail(err);
  const double init_ms = MsSince(t0);
  t0 = Clock::now();
  if (std::string err = session.Load(om); !err.empty())
    return Fail("--model '" + f.model + "': " + err);
  const double load_ms = MsSince(t0);
  if (std::string err = session.ChooseGear(*gear); !err.empty()) return Fail(err);
  Samples samples;
  if (std::string err = LoadSamples(f, session, &samples); !err.empty()) return Fail(err);
  if (std::string err = session.SetSamples(samples.data); !err.empty()) return Fail(err);

  const bool use_stream = f.threads > 1;
  std::vector<std::unique_ptr<Worker>> workers;
  for (int t = 0; t < f.threads; ++t) {
    // Worker 0 keeps every sample's outputs when they are written.
    const size_t sets = t == 0 && !f.output.empty() ? samples.data.size() : 1;
    workers.push_back(std::make_unique<Worker>(&session, use_stream, sets));
    if (std::string err = workers.back()->Prepare(); !err.empty()) return Fail(err);
  }
  session.RefreshOutputDims(workers[0]->output_dataset());

  // Cold start: load + the first execution (inputs in, execute, outputs out), on a thread of
  // its own as the timed executions are: the CPU device keeps OpenMP workers for every thread
  // that ever executed, and with more of them than CPUs all of them sleep instead of spinning
  // when idle (docs/tools.md "kiln bench"), so the main thread must not be one.
  PhaseTimes first;
  double first_ms = 0;
  std::string first_error;
  std::thread([&] {
    if (aclError ret = aclrtSetCurrentContext(session.context()); ret != ACL_SUCCESS) {
      first_error = "aclrtSetCurrentContext failed with " + std::to_string(ret);
      return;
    }
    first_error = workers[0]->StartThread();
    const auto start = Clock::now();
    if (first_error.empty()) first_error = workers[0]->Run(0, &first);
    first_ms = MsSince(start);
  }).join();
  if (!first_error.empty()) return Fail(first_error);
  session.RefreshOutputDims(workers[0]->output_dataset());

  const size_t per_thread = static_cast<size_t>(f.loop) * session.num_samples();
  const double estimate_ms = first.compute * static_cast<double>(per_thread + f.warmup_count);
  const bool progress = f.progress == "always" ||
                        (f.progress == "auto" && isatty(STDERR_FILENO) && estimate_ms > 2000);
  int batch = f.batchsize;
  std::string batch_from = "--batchsize";
  if (batch == 0) {
    const auto& in0 = session.inputs();
    batch = gear->kind == GearChoice::kBatch ? f.dym_batch
            : !in0.empty() && !in0[0].dims.empty() && in0[0].dims[0] > 0
                ? static_cast<int>(in0[0].dims[0])
                : 1;
    batch_from = gear->kind == GearChoice::kBatch ? "--dymBatch" : "the first dim of input 0";
  }

  std::printf("[INFO] model: %s: %zu input(s), %zu output(s)%s%s\n", f.model.c_str(),
              session.inputs().size(), session.outputs().size(),
              session.GearText().empty() ? "" : ", gear ", session.GearText().c_str());
  for (const auto& in : session.inputs()) {
    std::printf("[INFO]   input %zu '%s': %s %s\n", in.index, in.name.c_str(),
                bench::DtypeName(in.dtype).c_str(), DimsText(in.dims).c_str());
  }
  for (const auto& out : session.outputs()) {
    std::printf("[INFO]   output %zu '%s': %s %s\n", out.index, out.name.c_str(),
                bench::DtypeName(out.dtype).c_str(), DimsText(out.dims).c_str());
  }
  std::printf("[INFO] device %d, %d thread(s)%s, batch %d (%s), %zu sample(s) (%s)\n", f.device,
              f.threads, use_stream ? " each with its own stream" : "", batch, batch_from.c_str(),
              session.num_samples(), samples.source.c_str());
  std::printf(
      "[INFO] warm-up %d execution(s), then %zu timed execution(s) per thread (--loop %d x %zu "
      "sample(s))\n",
      f.warmup_count, per_thread, f.loop, session.num_samples());
  std::fflush(stdout);

  RunResult run;
  const std::string run_error =
      bench::RunThreads(f.loop, f.warmup_count, session, workers, progress, &run);
  if (!run_error.empty()) return Fail(run_error);
  const long peak_rss_kb = PeakRssKb();

  nlohmann::json output_files = nlohmann::json::array();
  if (!f.output.empty()) {
    if (std::string err = WriteOutputs(f, session, samples, *workers[0], &output_files);
        !err.empty()) {
      return Fail(err);
    }
  }

  const Stats h2d = bench::Summarize(run.h2d), compute = bench::Summarize(run.compute),
              d2h = bench::Summarize(run.d2h), e2e = bench::Summarize(run.e2e);
  const double throughput =
      run.wall_ms > 0 ? 1000.0 * static_cast<double>(run.executions) * batch / run.wall_ms : 0;
  const double compute_throughput =
      compute.mean > 0 ? 1000.0 * batch * f.threads / compute.mean : 0;
  const double cold_ms = load_ms + first_ms;

  std::printf("[INFO] -----------------Performance Summary------------------\n");
  std::printf("[INFO] latency (ms): %s\n", bench::StatsLine(compute).c_str());
  std::printf(
      "[INFO] H2D %.3f ms + compute %.3f ms + D2H %.3f ms = %.3f ms per execution (means)\n",
      h2d.mean, compute.mean, d2h.mean, e2e.mean);
  std::printf(
      "[INFO] throughput: %.2f inferences/s (%zu executions x batch %d in %.3f s, %d "
      "thread(s))\n",
      throughput, run.executions, batch, run.wall_ms / 1000, f.threads);
  std::printf(
      "[INFO] cold start: %.3f ms (load %.3f ms + first execution %.3f ms; aclInit and "
      "device %.3f ms before)\n",
      cold_ms, load_ms, first_ms, init_ms);
  std::printf("[INFO] peak RSS: %.1f MiB\n", peak_rss_kb / 1024.0);
  if (f.display_all_summary) {
    std::printf("[INFO] %-10s %10s %10s %10s %10s %10s %10s\n", "phase (ms)", "min", "mean",
                "median", "p90", "p99", "max");
    PrintPhase("H2D", h2d);
    PrintPhase("compute", compute);
    PrintPhase("D2H", d2h);
    PrintPhase("end-to-end", e2e);
    std::printf(
        "[INFO] throughput from the mean compute time (ais_bench's 1000 x batch x threads / "
        "mean): %.2f inferences/s\n",
        compute_throughput);
    for (size_t t = 0; t < run.thread_throughput.size(); ++t) {
      std::printf("[INFO] thread %zu: %.2f executions/s\n", t, run.thread_throughput[t]);
    }
    std::printf("[INFO] process: %.3f ms from start to the end of the timed phase\n",
                MsSince(process_start));
  }
  for (const auto& path : output_files) {
    if (&path == &output_files.front()) {
      std::printf("[INFO] outputs written to %s (%zu file(s), %s)\n",
                  fs::path(path.get<std::string>()).parent_path().c_str(), output_files.size(),
                  f.outfmt.c_str());
    }
  }

  if (!f.json.empty()) {
    summary["om"] = om;
    summary["device"] = f.device;
    summary["threads"] = f.threads;
    summary["batchsize"] = batch;
    summary["loop"] = f.loop;
    summary["warmup_count"] = f.warmup_count;
    summary["samples"] = session.num_samples();
    summary["input_source"] = samples.source;
    summary["gear"] = session.GearText();
    summary["inputs"] = TensorsJson(session.inputs());
    summary["outputs"] = TensorsJson(session.outputs());
    summary["output_files"] = output_files;
    summary["executions"] = run.executions;
    summary["wall_ms"] = run.wall_ms;
    summary["latency_ms"] = bench::StatsJson(compute);
    summary["h2d_ms"] = bench::StatsJson(h2d);
    summary["compute_ms"] = bench::StatsJson(compute);
    summary["d2h_ms"] = bench::StatsJson(d2h);
    summary["e2e_ms"] = bench::StatsJson(e2e);
    summary["throughput"] = throughput;
    summary["throughput_from_mean_compute"] = compute_throughput;
    summary["thread_throughput"] = run.thread_throughput;
    summary["cold_start_ms"] = {
        {"total", cold_ms}, {"load", load_ms}, {"first_execution", first_ms}, {"init", init_ms}};
    summary["peak_rss_kb"] = peak_rss_kb;
    summary["series_ms"] = {{"h2d", run.h2d}, {"compute", run.compute}, {"d2h", run.d2h}};
    std::ofstream out(f.json);
    out << summary.dump(1) << "\n";
    if (!out) return Fail("--json: cannot write '" + f.json + "'");
    std::printf("[INFO] summary written to %s\n", f.json.c_str());
  }
  return 0;
}

}  // namespace

void AddBenchCommand(CLI::App& app, int* exit_code) {
  auto f = std::make_shared<BenchFlags>();
  CLI::App* cmd = app.add_subcommand(
      "bench",
      "benchmark a model: latency percentiles, throughput, H2D/compute/D2H (ais_bench flags)");
  cmd->add_option("--model", f->model, "the model: an .om, or an .onnx compiled on the fly")
      ->required();
  cmd->add_option("--input_shape", f->input_shape,
                  "for an .onnx: kiln atc's --input_shape (\"name:1,3,224,224;...\") to fix its "
                  "dynamic dims");
  cmd->add_option("--input", f->input,
                  "comma-separated, one per model input: a .bin/.npy file or a folder of them "
                  "(one sample per file, in name order); random data when absent");
  cmd->add_option("--output", f->output,
                  "folder for the outputs of each sample (none when absent)");
  cmd->add_option("--output_dirname", f->output_dirname, "subfolder of --output to write into");
  cmd->add_option("--outfmt", f->outfmt, "BIN, NPY or TXT")
      ->check(CLI::IsMember({"BIN", "NPY", "TXT"}, CLI::ignore_case));
  cmd->add_option("--loop", f->loop, "timed rounds over the samples (default 1)")
      ->check(CLI::Range(1, 10000000));
  cmd->add_option("--warmup_count", f->warmup_count,
                  "untimed executions first, per thread (default 1)")
      ->check(CLI::Range(0, 1000000));
  cmd->add_option("--batchsize", f->batchsize,
                  "samples per execution for throughput (default: --dymBatch, else the first "
                  "dim of input 0)")
      ->check(CLI::Range(1, 1000000));
  cmd->add_option("--dymBatch", f->dym_batch,
                  "the batch gear (models compiled with --dynamic_batch_size)")
      ->check(CLI::Range(1, 1000000));
  cmd->add_option("--dymHW", f->dym_hw, "\"H,W\": the image size gear (--dynamic_image_size)");
  cmd->add_option("--dymDims", f->dym_dims,
                  "\"name:d0,d1,...;name2:...\": the dims gear (--dynamic_dims)");
  cmd->add_option("--dymShape", f->dym_shape,
                  "\"name:d0,d1,...;...\": the real dims of a model with dynamic dims and no gears "
                  "(aclmdlSetDatasetTensorDesc)");
  cmd->add_option("--outputSize", f->output_size,
                  "\"n0,n1,...\": each output's buffer in bytes, for outputs whose size the model "
                  "cannot give (dynamic dims)");
  cmd->add_option("--acl_json_path", f->acl_json_path,
                  "an acl.json for aclInit (profiling, dump, logs)");
  cmd->add_option("--device", f->device, "device id (default 0)")->check(CLI::Range(0, 1023));
  cmd->add_option("--threads", f->threads,
                  "concurrent threads, each with its own stream and buffers (default 1)")
      ->check(CLI::Range(1, 256));
  cmd->add_option("--json", f->json, "write a JSON summary (every timing included) to this file");
  cmd->add_option("--display_all_summary", f->display_all_summary,
                  "print every phase's percentiles and each thread's rate (\"True\"/\"False\" "
                  "may follow, as in ais_bench)")
      ->expected(0, 1)
      ->default_str("true");
  cmd->add_option("--pure_data_type", f->pure_data_type,
                  "without --input: random (floats uniform in [-1,1), integers 0) or zero")
      ->check(CLI::IsMember({"random", "zero"}));
  cmd->add_option("--progress", f->progress,
                  "progress bar on stderr: auto (when stderr is a terminal and the run is "
                  "longer than about 2 s), always or never")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  cmd->callback([f, exit_code] {
    for (char& c : f->outfmt) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    *exit_code = RunBench(*f);
  });
}

}  // namespace kiln::tools
