// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The offline compiler's pipeline, ONNX file → .om: the ONNX front end, then the compiler
// (compiler/compile.h). This is the facade `kiln atc`, `kiln bench` and the Python package
// call; it is the one place where the front end and the compiler meet (docs/design.md §1).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "compiler/compile.h"

namespace kiln::atc {

// Imports options.model, then optimises, plans and writes it (compiler::CompileGraph).
Result<compiler::CompileReport> Compile(const compiler::CompileOptions& options);

// Imports the serialized ONNX model `onnx` (external data resolved in `base_dir`, "" = none;
// options.model names it in messages) and compiles it as Compile does, without writing: the .om's
// bytes.
Result<std::vector<uint8_t>> CompileBytes(const std::string& onnx, const std::string& base_dir,
                                          const compiler::CompileOptions& options);

// Imports options.model and checks every node against the op schemas, reporting every problem
// (not only the first). An empty list means the model is supported.
Result<std::vector<compiler::NodeProblem>> PreCheck(const compiler::CompileOptions& options);

}  // namespace kiln::atc
