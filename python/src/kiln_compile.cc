// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// acl._acl._kiln: the compiler facade (compiler/compile.h) for kiln.compile. Options arrive as
// ATC's flag strings and are checked with the same parsers `kiln atc` uses; failures come back
// as (None, code, message) so that python/kiln turns them into a KilnError.
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "atc/atc.h"
#include "compiler/compile.h"
#include "compiler/gears.h"
#include "python/src/bindings.h"

namespace kiln::python {
namespace {

// The ATC flags kiln.compile accepts (without "--").
const char* const kFlags[] = {"input_shape",        "input_format",     "dynamic_batch_size",
                              "dynamic_image_size", "dynamic_dims",     "out_nodes",
                              "output_type",        "input_fp16_nodes", "insert_op_conf",
                              "soc_version",        "precision_mode",   "precision_mode_v2"};

std::string Get(const std::map<std::string, std::string>& flags, const char* key) {
  auto it = flags.find(key);
  return it == flags.end() ? std::string() : it->second;
}

py::tuple Failure(const Status& st) { return py::make_tuple(py::none(), st.code(), st.message()); }

py::tuple Failure(int code, const std::string& message) {
  return py::make_tuple(py::none(), code, message);
}

py::tuple Compile(const std::string& model, const std::string& output,
                  const std::map<std::string, std::string>& flags) {
  for (const auto& [key, value] : flags) {
    bool known = false;
    for (const char* f : kFlags) known = known || key == f;
    if (!known) {
      std::string all;
      for (const char* f : kFlags) all += std::string(all.empty() ? "" : ", ") + f;
      return Failure(ACL_ERROR_INVALID_PARAM,
                     "kiln.compile: unknown option '" + key + "' (options: " + all + ")");
    }
  }
  compiler::CompileOptions options;
  options.model = model;
  options.output = output;
  const std::string input_shape = Get(flags, "input_shape");
  if (!input_shape.empty()) {
    auto shapes = compiler::ParseInputShape(input_shape);
    if (!shapes.ok()) return Failure(shapes.status());
    options.input_shapes = *shapes;
  }
  auto gears = compiler::ParseGears({input_shape, Get(flags, "input_format"),
                                     Get(flags, "dynamic_batch_size"),
                                     Get(flags, "dynamic_image_size"), Get(flags, "dynamic_dims")});
  if (!gears.ok()) return Failure(gears.status());
  options.gears = *gears;
  auto io = compiler::ParseIoDtypeFlags(Get(flags, "output_type"), Get(flags, "input_fp16_nodes"));
  if (!io.ok()) return Failure(io.status());
  options.io_dtypes = *io;
  std::stringstream outs(Get(flags, "out_nodes"));
  for (std::string entry; std::getline(outs, entry, ';');) {
    entry.erase(0, entry.find_first_not_of(" \t"));
    entry.erase(entry.find_last_not_of(" \t") + 1);
    if (!entry.empty()) options.out_nodes.push_back(entry);
  }
  options.aipp_config = Get(flags, "insert_op_conf");
  std::string target = Get(flags, "soc_version");
  if (target.rfind("Ascend", 0) == 0) target = "";  // as `kiln atc`: this host's CPU
  if (!target.empty() && target != "cpu" && target != "cpu-avx2" && target != "cpu-avx512" &&
      target != "cuda") {
    return Failure(ACL_ERROR_INVALID_PARAM,
                   "kiln.compile: soc_version=" + target +
                       " is not a Kiln target (cpu, cpu-avx2, cpu-avx512, cuda) or an Ascend "
                       "SoC name");
  }
  options.target = target;
  options.record = {{"framework", "5"}, {"soc_version", Get(flags, "soc_version")}};
  for (const char* key : kFlags) {
    const std::string value = Get(flags, key);
    if (!value.empty() && std::string(key) != "soc_version") options.record.push_back({key, value});
  }
  compiler::CompileReport report;
  Status status = Status::Ok();
  {
    ReleaseGil release;
    auto result = atc::Compile(options);
    if (result.ok()) {
      report = std::move(result).value();
    } else {
      status = result.status();
    }
  }
  if (!status.ok()) return Failure(status);
  py::dict out;
  out["output_path"] = report.output_path;
  out["onnx_nodes"] = report.onnx_nodes;
  out["compiled_nodes"] = report.compiled_nodes;
  out["work_size"] = report.work_size;
  out["weight_size"] = report.weight_size;
  return py::make_tuple(out, 0, std::string());
}

}  // namespace

void RegisterKiln(py::module_& kiln) {
  kiln.def("compile", &Compile, py::arg("model"), py::arg("output"), py::arg("flags"),
           "(report dict or None, code, message): ONNX file -> .om file");
  kiln.def("host_target", &compiler::HostTarget, "this host's default compile target");
  py::list flags;
  for (const char* f : kFlags) flags.append(f);
  kiln.attr("COMPILE_OPTIONS") = flags;
}

}  // namespace kiln::python
