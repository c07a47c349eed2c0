// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "atc/atc.h"

#include <chrono>

#include "frontend/onnx/importer.h"

namespace kiln::atc {

Result<compiler::CompileReport> Compile(const compiler::CompileOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  KILN_ASSIGN_OR_RETURN(auto imported, frontend::onnx::ImportFile(options.model));
  compiler::SourceModel model;
  model.graph = std::move(imported.graph);
  model.producer = std::move(imported.producer);
  model.import_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return compiler::CompileGraph(std::move(model), options);
}

Result<std::vector<uint8_t>> CompileBytes(const std::string& onnx, const std::string& base_dir,
                                          const compiler::CompileOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  KILN_ASSIGN_OR_RETURN(auto imported, frontend::onnx::ImportBytes(onnx.data(), onnx.size(),
                                                                   base_dir, options.model));
  compiler::SourceModel model;
  model.graph = std::move(imported.graph);
  model.producer = std::move(imported.producer);
  model.import_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  compiler::CompileReport report;
  return compiler::CompileGraphToOm(std::move(model), options, report);
}

Result<std::vector<compiler::NodeProblem>> PreCheck(const compiler::CompileOptions& options) {
  KILN_ASSIGN_OR_RETURN(auto imported, frontend::onnx::ImportFile(options.model));
  return compiler::PreCheckGraph(*imported.graph);
}

}  // namespace kiln::atc
