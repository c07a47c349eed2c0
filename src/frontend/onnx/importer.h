// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// ONNX → ir::Graph. Reads ModelProto with protobuf and Debian's libonnx (onnx-ml.proto):
// opsets 7 to kMaxOnnxOpset, external-data tensors (mapped, not copied), initializers that are
// also graph inputs (treated as constants), unused extra opset domains, symbolic dims.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "base/status.h"
#include "ir/graph.h"
#include "ir/op_schema.h"

namespace kiln::frontend::onnx {

inline constexpr int kMinOnnxOpset = 7;
inline constexpr int kMaxOnnxOpset = ir::kNewestOnnxOpset;

struct ImportResult {
  std::unique_ptr<ir::Graph> graph;
  int64_t ir_version = 0;
  std::string producer;  // producer_name and producer_version
};

// Imports the model at `path`; external data files are resolved next to it. Errors
// (kInvalidFile for unreadable files, kParseModel... see importer.cc) name the file and what
// is wrong; a corrupt or truncated file never crashes.
Result<ImportResult> ImportFile(const std::string& path);

// Imports a serialized model held in memory. `base_dir` resolves external data ("" = none);
// `origin` names the model in messages.
Result<ImportResult> ImportBytes(const void* data, size_t size, const std::string& base_dir,
                                 const std::string& origin);

}  // namespace kiln::frontend::onnx
