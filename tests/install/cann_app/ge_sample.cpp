// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The graph-engine C++ API from the install, as a CANN C++11 program uses it (-lge_compiler
// -lgraph -lfmk_onnx_parser): the headers compile, the classes and functions link, and the
// failures it can see without a model come back as statuses.
#include <cstdio>
#include <map>

#include "ge/ge_ir_build.h"
#include "parser/onnx_parser.h"

int main() {
  std::map<ge::AscendString, ge::AscendString> options;
  options[ge::AscendString(ge::ir_option::SOC_VERSION)] = ge::AscendString("cpu");
  if (ge::aclgrphBuildInitialize(options) != ge::GRAPH_SUCCESS) return 1;
  ge::Graph graph("sample");
  ge::ModelBufferData model;
  // A graph nothing was parsed into is a parameter error, not a crash.
  if (ge::aclgrphBuildModel(graph, {}, model) != ge::GRAPH_PARAM_INVALID) return 1;
  if (ge::aclgrphParseONNXFromMem(nullptr, 0, {}, graph) != ge::GRAPH_PARAM_INVALID) return 1;
  ge::aclgrphBuildFinalize();
  std::printf("ge_sample: OK\n");
  return 0;
}
