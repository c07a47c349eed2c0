// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// CANN's graph-engine build API (ge/ge_ir_build.h) on Kiln's compiler: a graph a parser read
// (parser/onnx_parser.h) compiled into a Kiln .om in memory and saved as <name>.om, as
// onnxruntime's CANN execution provider uses it (docs/ge-api.md). libge_compiler.so.
#ifndef INC_EXTERNAL_GE_GE_IR_BUILD_H_
#define INC_EXTERNAL_GE_GE_IR_BUILD_H_

#include <cstdint>
#include <map>
#include <memory>

#include "ge/ge_api_types.h"
#include "graph/ascend_string.h"
#include "graph/ge_error_codes.h"
#include "graph/graph.h"

namespace ge {

// A built model: the .om's bytes (data owns them) and their count.
struct ModelBufferData {
  std::shared_ptr<uint8_t> data = nullptr;
  uint64_t length;
};

// Starts a build session with global options (ir_option::SOC_VERSION, PRECISION_MODE, ...).
GE_FUNC_VISIBILITY graphStatus
aclgrphBuildInitialize(std::map<AscendString, AscendString>& global_options);
// Ends it (a no-op without aclgrphBuildInitialize).
GE_FUNC_VISIBILITY void aclgrphBuildFinalize();
// Compiles `graph` with build options (ir_option::INPUT_SHAPE: "name:1,3,224,224;name2:..."):
// the .om in `model`.
GE_FUNC_VISIBILITY graphStatus
aclgrphBuildModel(const ge::Graph& graph, const std::map<AscendString, AscendString>& build_options,
                  ModelBufferData& model);
// Writes `model` to `output_file` + ".om".
GE_FUNC_VISIBILITY graphStatus aclgrphSaveModel(const char* output_file,
                                                const ModelBufferData& model);

}  // namespace ge

#endif  // INC_EXTERNAL_GE_GE_IR_BUILD_H_
