// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The compiler facade used by `kiln atc` and the Python package: ONNX in, .om out.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"

namespace kiln::compiler {

struct CompileOptions {
  std::string model;   // ONNX file
  std::string output;  // output path; ".om" is appended when missing
  std::string target;  // "cpu", "cpu-avx2", "cpu-avx512", "cuda"; "" = this host's CPU
  // --input_shape: name -> dims (-1 dynamic) and, for a~b dims, the range.
  std::map<std::string, std::vector<int64_t>> input_shapes;
  std::vector<std::string> disabled_passes;                 // --fusion_switch_file
  std::vector<std::pair<std::string, std::string>> record;  // options stored in the .om
};

// One unsupported or invalid node found by the pre-check (--mode=3).
struct NodeProblem {
  std::string node;  // ONNX node name
  std::string op_type;
  int opset = 0;
  int code = 0;
  std::string message;
};

struct CompileReport {
  std::string output_path;
  size_t onnx_nodes = 0;
  size_t compiled_nodes = 0;
  uint64_t work_size = 0;  // activation workspace
  uint64_t weight_size = 0;
  uint64_t naive_size = 0;  // activations without reuse
  std::vector<std::pair<std::string, double>> phases_ms;
  std::vector<std::string> pass_log;
};

// Parses ATC's --input_shape ("x:1,3,224,224;y:-1,10"; "a~b" gives a dynamic dim) into names
// and dims. kInvalidParam with the offending item on error.
Result<std::map<std::string, std::vector<int64_t>>> ParseInputShape(const std::string& text);

// The default target name for this host ("cpu-avx512", "cpu-avx2" or "cpu").
std::string HostTarget();

// Imports, optimises, plans and writes the model.
Result<CompileReport> Compile(const CompileOptions& options);

// Imports the model and checks every node against the op schemas, reporting every problem
// (not only the first). An empty list means the model is supported.
Result<std::vector<NodeProblem>> PreCheck(const CompileOptions& options);

}  // namespace kiln::compiler
