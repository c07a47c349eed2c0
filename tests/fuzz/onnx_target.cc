// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Fuzz target: an ONNX file as `kiln atc` takes it — imported (frontend::onnx::ImportBytes, no
// folder for external data), then optimised, planned and written to a scratch .om
// (compiler::CompileGraph). Any model may be refused with the compiler's codes; none may crash,
// hang or exhaust memory.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>

#include "compiler/compile.h"
#include "frontend/onnx/importer.h"

namespace {
std::string& ScratchOm() {
  static std::string path = "/tmp/kiln-onnx-fuzz-" + std::to_string(getpid()) + ".om";
  return path;
}
}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) { return 0; }

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto imported = kiln::frontend::onnx::ImportBytes(data, size, "", "fuzz.onnx");
  if (!imported.ok()) return 0;
  kiln::compiler::SourceModel source;
  source.graph = std::move(imported->graph);
  source.producer = imported->producer;
  kiln::compiler::CompileOptions options;
  options.model = "fuzz.onnx";
  options.output = ScratchOm();
  (void)kiln::compiler::CompileGraph(std::move(source), options);
  std::remove(ScratchOm().c_str());
  return 0;
}
