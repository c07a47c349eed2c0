// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// CANN's ONNX parser API (parser/onnx_parser.h): an ONNX model into a ge::Graph for
// aclgrphBuildModel (docs/ge-api.md). Programs link -lfmk_onnx_parser.
#ifndef INC_EXTERNAL_PARSER_ONNX_PARSER_H_
#define INC_EXTERNAL_PARSER_ONNX_PARSER_H_

#include <cstddef>
#include <map>

#include "graph/ascend_string.h"
#include "graph/ge_error_codes.h"
#include "graph/graph.h"

namespace ge {

// Reads the ONNX model file `model_file` into `graph` (the model is checked when it is built).
GE_FUNC_VISIBILITY graphStatus
aclgrphParseONNX(const char* model_file, const std::map<AscendString, AscendString>& parser_params,
                 ge::Graph& graph);
// Reads a serialized ONNX model of `size` bytes at `buffer` into `graph`.
GE_FUNC_VISIBILITY graphStatus aclgrphParseONNXFromMem(
    const char* buffer, size_t size, const std::map<AscendString, AscendString>& parser_params,
    ge::Graph& graph);

}  // namespace ge

#endif  // INC_EXTERNAL_PARSER_ONNX_PARSER_H_
