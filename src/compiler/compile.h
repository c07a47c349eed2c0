// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The compiler's entry: an ir::Graph a front end produced in, .om out, plus the options and
// reports of `kiln atc`. The ONNX file → .om pipeline that tools and Python call is
// src/atc/atc.h (it runs the front end, then CompileGraph).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <memory>

#include "base/status.h"
#include "compiler/gears.h"
#include "compiler/passes/io_dtype.h"
#include "ir/graph.h"

namespace kiln::compiler {

struct CompileOptions {
  std::string model;   // ONNX file
  std::string output;  // output path; ".om" is appended when missing
  std::string target;  // "cpu", "cpu-avx2", "cpu-avx512", "cuda"; "" = this host's CPU
  // --input_shape: name -> dims (-1 dynamic) and, for a~b dims, the range.
  std::map<std::string, std::vector<int64_t>> input_shapes;
  // --dynamic_batch_size / --dynamic_image_size / --dynamic_dims (ParseGears); the -1 dims of
  // input_shapes stay dynamic in the compiled graph and every gear is planned on it.
  GearConfig gears;
  std::vector<std::string> out_nodes;        // --out_nodes: "node:index" or tensor names
  IoDtypeOptions io_dtypes;                  // --output_type, --input_fp16_nodes
  std::string aipp_config;                   // --insert_op_conf file ("" = none)
  std::vector<std::string> disabled_passes;  // --fusion_switch_file
  std::vector<std::pair<std::string, std::string>> record;  // options stored in the .om
  // Called as each phase ends (progress for large models); may be empty.
  std::function<void(const std::string& phase, double ms)> on_phase;
};

// One unsupported or invalid node found by the pre-check (--mode=3).
struct NodeProblem {
  std::string node;  // ONNX node name
  std::string op_type;
  int opset = 0;
  int code = 0;
  std::string message;
};

// One gear of a compiled model.
struct GearReport {
  std::vector<int64_t> values;  // as given in the flag
  uint64_t work_size = 0;       // this gear's workspace
  uint64_t naive_size = 0;      // this gear's activations without reuse
};

struct CompileReport {
  std::string output_path;
  size_t onnx_nodes = 0;
  size_t compiled_nodes = 0;
  uint64_t work_size = 0;  // activation workspace (with gears: the layout every gear shares)
  uint64_t weight_size = 0;
  uint64_t naive_size = 0;  // activations without reuse
  GearKind gear_kind = GearKind::kNone;
  std::vector<GearReport> gears;  // in the order of the flag
  std::vector<std::pair<std::string, double>> phases_ms;
  std::vector<std::string> pass_log;
};

// The file a command-line flag names (an option file of `kiln atc`, an input of `kiln bench`),
// read whole as a regular file (base/regular_file.h): kInvalidFile naming `what` and the path
// for a missing file, a FIFO, a device, a folder, or a file over `max_bytes`.
Result<std::string> ReadFlagFile(const std::string& path, const std::string& what,
                                 uint64_t max_bytes = UINT64_MAX);

// --fusion_switch_file: the passes its "PassName:off" lines turn off (other lines and "on" are
// ignored).
Result<std::vector<std::string>> ReadFusionSwitchFile(const std::string& path);

// Parses ATC's --input_shape ("x:1,3,224,224;y:-1,10"; "a~b" gives a dynamic dim) into names
// and dims. kInvalidParam with the offending item on error.
Result<std::map<std::string, std::vector<int64_t>>> ParseInputShape(const std::string& text);

// The default target name for this host ("cpu-avx512", "cpu-avx2" or "cpu").
std::string HostTarget();
// Whether `name` is a Kiln target ("cpu", "cpu-avx2", "cpu-avx512", "cuda", "sm_90", ...;
// format/target.h has the list), for the tools and the GE API, which reach format only here.
bool IsTarget(const std::string& name);

// A model as a front end hands it over.
struct SourceModel {
  std::unique_ptr<ir::Graph> graph;
  std::string producer;  // the producer recorded in the source file ("" = none)
  double import_ms = 0;  // the front end's time, reported as the "import" phase
};

// Optimises, plans and writes `model` (options.model names its source file in the .om).
Result<CompileReport> CompileGraph(SourceModel model, const CompileOptions& options);
// As CompileGraph, without writing: the .om's bytes (verified as the runtime reads them);
// options.output is not used.
Result<std::vector<uint8_t>> CompileGraphToOm(SourceModel model, const CompileOptions& options,
                                              CompileReport& report);

// Checks every node of `graph` against the op schemas (inferring types and shapes on the
// way), reporting every problem (not only the first). An empty list means it is supported.
std::vector<NodeProblem> PreCheckGraph(ir::Graph& graph);

}  // namespace kiln::compiler
