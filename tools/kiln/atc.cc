// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// `kiln atc`: ONNX → .om with ATC's flags. Modes: 0 compile (an ONNX model, or with --singleop
// CANN's single-operator JSON into one .om per operator), 1 .om → JSON, 3 pre-check, 6 display an
// .om's info.
#include "tools/kiln/atc.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <tuple>

#include "atc/atc.h"
#include "compiler/compile.h"
#include "compiler/gears.h"
#include "compiler/om_inspect.h"
#include "compiler/single_op.h"

namespace kiln::tools {
namespace {

constexpr const char* kSuccess = "ATC run success, welcome to the next use.";
constexpr uint64_t kMaxConfigBytes = 16 << 20;  // the option files are text of a few KiB
constexpr const char* kFailure =
    "ATC run failed, Please check the detail log, Try 'atc --help' for more information";

struct AtcFlags {
  int mode = 0;
  std::string model, weight, output, soc_version, input_shape, input_format, out_nodes;
  std::string output_type, input_fp16_nodes, precision_mode, precision_mode_v2, keep_dtype;
  std::string insert_op_conf, fusion_switch_file, log = "null", om, json, check_report;
  std::string dynamic_batch_size, dynamic_image_size, dynamic_dims, singleop;
  int framework = -1;
  int display_model_info = 0;
};

int Fail(const std::string& message, int code = 0) {
  std::fprintf(stderr, "%s\n", kFailure);
  if (code != 0) {
    std::fprintf(stderr, "E10001: [aclError %d] %s\n", code, message.c_str());
  } else {
    std::fprintf(stderr, "E10001: %s\n", message.c_str());
  }
  return 1;
}

int Fail(const Status& st) { return Fail(st.message(), st.code()); }

int DisplayOm(const AtcFlags& f) {
  auto text = compiler::DescribeOmFile(f.om);
  if (!text.ok()) return Fail(text.status());
  std::fputs(text->c_str(), stdout);
  std::printf("%s\n", kSuccess);
  return 0;
}

int OmToJsonMode(const AtcFlags& f) {
  if (f.om.empty() || f.json.empty()) {
    return Fail("--mode=1 needs --om=<model.om> and --json=<out.json>");
  }
  auto json = compiler::OmFileToJson(f.om);
  if (!json.ok()) return Fail(json.status());
  std::ofstream out(f.json);
  out << *json << "\n";
  if (!out) return Fail("cannot write --json file '" + f.json + "'", code::kWriteFile);
  std::printf("%s\n", kSuccess);
  return 0;
}

// --soc_version as a Kiln target ("" = this host); an Ascend SoC name compiles for this host.
int ResolveTarget(const AtcFlags& f, std::string* target) {
  *target = f.soc_version;
  if (target->rfind("Ascend", 0) == 0) {
    std::fprintf(stderr,
                 "W11002: --soc_version=%s is an Ascend SoC; compiling for this host's default "
                 "target (%s)\n",
                 target->c_str(), compiler::HostTarget().c_str());
    target->clear();
  } else if (!target->empty() && !compiler::IsTarget(*target)) {
    return Fail("--soc_version=" + *target +
                " is not a Kiln target (cpu, cpu-avx2, cpu-avx512, cuda, sm_<NN>) or an Ascend "
                "SoC name");
  }
  return 0;
}

// Common checks of mode 0 and 3; returns 0 when the options are usable.
int CheckModelOptions(const AtcFlags& f, compiler::CompileOptions& options) {
  if (f.framework == 0 || f.framework == 1 || f.framework == 3) {
    static const char* kNames[] = {"Caffe", "MindSpore", "", "TensorFlow"};
    return Fail(StrCat(kNames[f.framework],
                       " models are not supported (Caffe/MindSpore/TensorFlow are not supported: "
                       "export to ONNX and use --framework=5)"));
  }
  if (f.framework != 5)
    return Fail(StrCat("--framework=", f.framework, " is invalid: use 5 (ONNX)"));
  if (f.model.empty()) return Fail("--model is required");
  if (!f.weight.empty()) {
    std::fprintf(stderr,
                 "W11001: --weight is ignored for ONNX models (weights are inside the "
                 ".onnx or its external data files)\n");
  }
  if (!f.insert_op_conf.empty() && !f.dynamic_dims.empty()) {
    return Fail("--insert_op_conf cannot be combined with --dynamic_dims (as in ATC)");
  }
  if (!f.insert_op_conf.empty() && !f.input_fp16_nodes.empty()) {
    return Fail(
        "--insert_op_conf and --input_fp16_nodes cannot be combined: AIPP inputs are "
        "uint8 images");
  }
  options.aipp_config = f.insert_op_conf;
  auto io = compiler::ParseIoDtypeFlags(f.output_type, f.input_fp16_nodes);
  if (!io.ok()) return Fail(io.status());
  options.io_dtypes = *io;
  std::stringstream outs(f.out_nodes);
  for (std::string entry; std::getline(outs, entry, ';');) {
    entry.erase(0, entry.find_first_not_of(" \t"));
    entry.erase(entry.find_last_not_of(" \t") + 1);
    if (!entry.empty()) options.out_nodes.push_back(entry);
  }
  if (!f.keep_dtype.empty()) {  // read to check it (Kiln keeps every dtype anyway)
    auto keep = compiler::ReadFlagFile(f.keep_dtype, "--keep_dtype file", kMaxConfigBytes);
    if (!keep.ok()) return Fail(keep.status());
  }
  options.model = f.model;
  options.output = f.output;
  if (!f.input_shape.empty()) {
    auto shapes = compiler::ParseInputShape(f.input_shape);
    if (!shapes.ok()) return Fail(shapes.status());
    options.input_shapes = *shapes;
  }
  auto gears = compiler::ParseGears(
      {f.input_shape, f.input_format, f.dynamic_batch_size, f.dynamic_image_size, f.dynamic_dims});
  if (!gears.ok()) return Fail(gears.status());
  options.gears = *gears;
  if (int rc = ResolveTarget(f, &options.target)) return rc;
  if (!f.fusion_switch_file.empty()) {
    auto off = compiler::ReadFusionSwitchFile(f.fusion_switch_file);
    if (!off.ok()) return Fail(off.status());
    options.disabled_passes = *off;
  }
  options.record = {{"framework", "5"}, {"soc_version", f.soc_version}};
  if (!f.input_shape.empty()) options.record.push_back({"input_shape", f.input_shape});
  if (!f.input_format.empty()) options.record.push_back({"input_format", f.input_format});
  for (const auto& [key, value] :
       {std::pair<const char*, const std::string&>{"out_nodes", f.out_nodes},
        {"output_type", f.output_type},
        {"input_fp16_nodes", f.input_fp16_nodes},
        {"insert_op_conf", f.insert_op_conf},
        {"keep_dtype", f.keep_dtype}}) {
    if (!value.empty()) options.record.push_back({key, value});
  }
  if (options.gears.enabled()) {
    options.record.push_back(
        {compiler::GearFlagName(options.gears.kind) + 2, options.gears.text});  // no "--"
  }
  std::string precision = !f.precision_mode_v2.empty() ? f.precision_mode_v2 : f.precision_mode;
  if (!precision.empty()) options.record.push_back({"precision_mode", precision});
  return 0;
}

int PreCheckMode(const AtcFlags& f) {
  compiler::CompileOptions options;
  if (int rc = CheckModelOptions(f, options)) return rc;
  auto problems = atc::PreCheck(options);
  if (!problems.ok()) return Fail(problems.status());
  nlohmann::json report{{"model", f.model}, {"result", problems->empty() ? "success" : "failed"}};
  nlohmann::json ops = nlohmann::json::array();
  for (const auto& p : *problems) {
    ops.push_back({{"node", p.node},
                   {"op_type", p.op_type},
                   {"opset", p.opset},
                   {"code", p.code},
                   {"reason", p.message}});
    std::fprintf(stderr, "unsupported: %s\n", p.message.c_str());
  }
  report["op_list"] = ops;
  std::string path = f.check_report.empty() ? "check_result.json" : f.check_report;
  std::ofstream(path) << report.dump(2, ' ', false, nlohmann::json::error_handler_t::replace)
                      << "\n";
  std::printf("pre-check: %zu unsupported or invalid node(s); report written to %s\n",
              problems->size(), path.c_str());
  if (!problems->empty()) {
    std::fprintf(stderr, "%s\n", kFailure);
    return 1;
  }
  std::printf("%s\n", kSuccess);
  return 0;
}

unsigned long long U(uint64_t v) { return static_cast<unsigned long long>(v); }

// The memory lines of mode 0: the largest gear's sizes (the model's without gears), and with
// `table` one row per gear.
void PrintMemory(const compiler::CompileReport& r, bool table) {
  const uint64_t weight = r.weight_size;
  if (r.gears.empty()) {
    std::printf("gear default: work size %llu bytes, weight size %llu bytes, peak %llu bytes\n",
                U(r.work_size), U(weight), U(r.work_size + weight));
    if (table) {
      std::printf("%-10s %14s %14s %14s %18s\n", "gear", "work_size", "weight_size", "peak",
                  "no_reuse_work_size");
      std::printf("%-10s %14llu %14llu %14llu %18llu\n", "default", U(r.work_size), U(weight),
                  U(r.work_size + weight), U(r.naive_size));
    }
    return;
  }
  // The largest gear: the most workspace, then the largest values.
  const compiler::GearReport* largest = &r.gears.front();
  for (const auto& g : r.gears) {
    if (std::tie(g.work_size, g.values) > std::tie(largest->work_size, largest->values)) {
      largest = &g;
    }
  }
  std::printf(
      "gear %s (largest of %zu, %s): work size %llu bytes, weight size %llu bytes, peak "
      "%llu bytes\n",
      compiler::GearLabel(largest->values).c_str(), r.gears.size(),
      compiler::GearFlagName(r.gear_kind) + 2, U(largest->work_size), U(weight),
      U(largest->work_size + weight));
  if (table) {
    int width = 10;
    for (const auto& g : r.gears) {
      width = std::max(width, static_cast<int>(compiler::GearLabel(g.values).size()));
    }
    std::printf("%-*s %14s %14s %14s %18s\n", width, "gear", "work_size", "weight_size", "peak",
                "no_reuse_work_size");
    for (const auto& g : r.gears) {
      std::printf("%-*s %14llu %14llu %14llu %18llu\n", width,
                  compiler::GearLabel(g.values).c_str(), U(g.work_size), U(weight),
                  U(g.work_size + weight), U(g.naive_size));
    }
  }
  if (r.work_size != largest->work_size) {
    // The gears' largest tensors come from different gears: the one layout they share is larger.
    std::printf("all gears share one layout: work size %llu bytes, peak %llu bytes\n",
                U(r.work_size), U(r.work_size + weight));
  }
}

// --singleop: every entry of the JSON compiled into --output (a folder, made if missing) under
// CANN's file name; an entry that fails is reported and the others are still written.
int SingleOpMode(const AtcFlags& f) {
  if (f.output.empty()) return Fail("--output (the folder for the single-op models) is required");
  std::string target;
  if (int rc = ResolveTarget(f, &target)) return rc;
  auto text = compiler::ReadFlagFile(f.singleop, "--singleop", kMaxConfigBytes);
  if (!text.ok()) return Fail(text.status());
  auto ops = compiler::ParseSingleOpList(*text);
  if (!ops.ok()) return Fail(Status(ops.status()).Annotate("--singleop '" + f.singleop + "'"));
  if (::mkdir(f.output.c_str(), 0755) != 0 && errno != EEXIST) {
    return Fail("cannot make the --output folder '" + f.output + "': " + std::strerror(errno),
                code::kWriteFile);
  }
  int failed = 0;
  for (size_t i = 0; i < ops->size(); ++i) {
    const compiler::SingleOpDesc& op = (*ops)[i];
    auto bytes = compiler::CompileSingleOp(op, target);
    if (!bytes.ok()) {
      std::fprintf(stderr, "E10001: [aclError %d] entry %zu: %s\n", bytes.status().code(), i,
                   bytes.status().message().c_str());
      ++failed;
      continue;
    }
    const std::string path = f.output + "/" + compiler::SingleOpFileName(op, i);
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes->data()),
              static_cast<std::streamsize>(bytes->size()));
    if (!out) {
      std::fprintf(stderr, "E10001: [aclError %d] entry %zu: cannot write '%s'\n", code::kWriteFile,
                   i, path.c_str());
      ++failed;
      continue;
    }
    std::printf("[singleop] %zu %s -> %s\n", i, op.op_type.c_str(), path.c_str());
  }
  if (failed) {
    return Fail(StrCat(failed, " of ", ops->size(), " operator(s) failed to compile"));
  }
  std::printf("%s\n", kSuccess);
  return 0;
}

int CompileMode(const AtcFlags& f) {
  if (!f.singleop.empty()) return SingleOpMode(f);
  compiler::CompileOptions options;
  if (int rc = CheckModelOptions(f, options)) return rc;
  if (f.output.empty()) return Fail("--output is required");
  options.on_phase = [](const std::string& phase, double ms) {
    std::printf("[phase] %s: %.1f ms\n", phase.c_str(), ms);
    std::fflush(stdout);  // progress, while a large model compiles
  };
  auto report = atc::Compile(options);
  if (!report.ok()) return Fail(report.status());
  if (f.log == "info" || f.log == "debug") {
    for (const auto& line : report->pass_log) std::printf("[pass] %s\n", line.c_str());
  }
  std::printf("model: %zu ONNX nodes -> %zu compiled nodes\n", report->onnx_nodes,
              report->compiled_nodes);
  PrintMemory(*report, f.display_model_info == 1);
  std::printf("output: %s\n", report->output_path.c_str());
  std::printf("%s\n", kSuccess);
  return 0;
}

}  // namespace

void NormalizeAtcArgs(int argc, char** argv, std::vector<std::string>& storage) {
  // Only `kiln atc ...`: another tool's arguments (kiln prof's application, say) pass untouched.
  if (argc < 2 || std::string(argv[1]) != "atc") return;
  storage.clear();
  storage.reserve(static_cast<size_t>(argc));
  for (int i = 0; i < argc; ++i) {
    std::string a = argv[i];
    if (a.size() > 2 && a[0] == '-' && a[1] != '-' && a.find('=') != std::string::npos) a = "-" + a;
    storage.push_back(a);
  }
  for (int i = 0; i < argc; ++i) argv[i] = storage[static_cast<size_t>(i)].data();
}

void AddAtcCommand(CLI::App& app, int* exit_code) {
  auto flags = std::make_shared<AtcFlags>();
  CLI::App* atc =
      app.add_subcommand("atc", "compile an ONNX model into a Kiln .om (ATC-compatible flags)");
  atc->add_option("--mode", flags->mode,
                  "0 compile (default), 1 .om to JSON (--om, --json), 3 pre-check only, 6 display "
                  "an .om's information (--om)")
      ->check(CLI::IsMember({0, 1, 3, 6}));
  atc->add_option("--model", flags->model, "the ONNX model file");
  atc->add_option("--singleop", flags->singleop,
                  "CANN's single-operator JSON (op_list.json): one .om per operator in the "
                  "--output folder, for aclopSetModelDir / aclopLoad");
  atc->add_option("--weight", flags->weight, "Caffe weights (ignored for ONNX)");
  atc->add_option("--framework", flags->framework,
                  "5 = ONNX (Caffe 0, MindSpore 1, TensorFlow 3 are not supported)");
  atc->add_option("--output", flags->output,
                  "output path (.om is appended); with --singleop, the output folder");
  atc->add_option("--soc_version", flags->soc_version,
                  "cpu, cpu-avx2, cpu-avx512 or cuda; Ascend SoC names compile for this host");
  atc->add_option("--input_shape", flags->input_shape,
                  "\"name:n,c,h,w;name2:...\"; -1 for a dynamic dim, a~b for a range");
  atc->add_option("--input_format", flags->input_format, "NCHW, NHWC, NCDHW or ND (recorded)");
  atc->add_option("--dynamic_batch_size", flags->dynamic_batch_size,
                  "\"1,2,4,8\": batch gears (2-100) for the -1 first dims of --input_shape");
  atc->add_option("--dynamic_image_size", flags->dynamic_image_size,
                  "\"h1,w1;h2,w2\": image size gears for the -1 H,W dims of --input_shape");
  atc->add_option("--dynamic_dims", flags->dynamic_dims,
                  "\"d1,d2;d3,d4\": gears of one value per -1 in --input_shape (ND)");
  atc->add_option(
      "--insert_op_conf", flags->insert_op_conf,
      "AIPP configuration file: static AIPP runs inside the model, dynamic AIPP takes its "
      "parameters per execution");
  atc->add_option("--out_nodes", flags->out_nodes,
                  "\"node:0;node:1\" or tensor names: the model outputs, in this order");
  atc->add_option("--output_type", flags->output_type,
                  "FP32, FP16, UINT8, INT8, ... for every output, or \"node:0:FP16;...\"");
  atc->add_option("--input_fp16_nodes", flags->input_fp16_nodes,
                  "\"n1;n2\": these float inputs are fed as float16");
  atc->add_option(
      "--precision_mode", flags->precision_mode,
      "force_fp32 (Kiln's default), allow_fp32_to_bf16 / allow_mix_precision_bf16 (matrix ops in "
      "bf16 with f32 accumulation), must_keep_origin_dtype, force_fp16, ... (fp16 modes keep "
      "fp32)");
  atc->add_option("--precision_mode_v2", flags->precision_mode_v2,
                  "origin, mixed_bfloat16 (matrix ops in bf16), fp16, mixed_float16, ... "
                  "(fp16 modes keep fp32)");
  atc->add_option(
      "--keep_dtype", flags->keep_dtype,
      "file of ops that keep their dtype (Kiln keeps fp32 everywhere, so it is recorded)");
  atc->add_option("--fusion_switch_file", flags->fusion_switch_file,
                  "file of \"pass_name:off\" lines disabling passes");
  atc->add_option(
         "--log", flags->log,
         "null, error, warning, info or debug (info and debug print what each pass changed)")
      ->check(CLI::IsMember({"null", "error", "warning", "info", "debug"}));
  atc->add_option("--om", flags->om, "input .om for --mode=1 and --mode=6");
  atc->add_option("--json", flags->json, "output JSON for --mode=1");
  atc->add_option("--check_report", flags->check_report,
                  "pre-check report path for --mode=3 (default check_result.json)");
  atc->add_option("--display_model_info", flags->display_model_info,
                  "1 prints the memory table of every gear")
      ->check(CLI::IsMember({0, 1}));
  atc->callback([flags, exit_code] {
    switch (flags->mode) {
      case 1:
        *exit_code = OmToJsonMode(*flags);
        break;
      case 3:
        *exit_code = PreCheckMode(*flags);
        break;
      case 6:
        *exit_code = flags->om.empty() ? Fail("--mode=6 needs --om=<model.om>") : DisplayOm(*flags);
        break;
      default:
        *exit_code = CompileMode(*flags);
        break;
    }
  });
}

}  // namespace kiln::tools
