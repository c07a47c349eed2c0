// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// aclgrphParseONNX / aclgrphParseONNXFromMem (include/parser/onnx_parser.h): the model's bytes
// into the graph. Kiln's ONNX importer reads them when the graph is built (aclgrphBuildModel
// reports what is wrong with a model); parser_params are not used (docs/ge-api.md).
#include "parser/onnx_parser.h"

#include "base/log.h"
#include "base/regular_file.h"
#include "ge/graph_impl.h"

namespace ge {

graphStatus aclgrphParseONNXFromMem(const char* buffer, size_t size,
                                    const std::map<AscendString, AscendString>& parser_params,
                                    Graph& graph) {
  (void)parser_params;
  if (buffer == nullptr || size == 0) {
    KILN_LOG(kGe, kError, "aclgrphParseONNXFromMem: buffer is NULL or size is 0");
    return GRAPH_PARAM_INVALID;
  }
  try {
    std::shared_ptr<GraphImpl> impl = GraphImplAccess::Ensure(graph);
    impl->onnx.assign(buffer, size);
    impl->base_dir.clear();
    impl->origin = impl->name.empty() ? "model" : impl->name;
    return GRAPH_SUCCESS;
  } catch (...) {
    KILN_LOG(kGe, kError, "aclgrphParseONNXFromMem: out of memory for ", size, " bytes");
    return GRAPH_FAILED;
  }
}

graphStatus aclgrphParseONNX(const char* model_file,
                             const std::map<AscendString, AscendString>& parser_params,
                             Graph& graph) {
  if (model_file == nullptr) {
    KILN_LOG(kGe, kError, "aclgrphParseONNX: model_file is NULL");
    return GRAPH_PARAM_INVALID;
  }
  try {
    auto file = kiln::RegularFile::Open(model_file, "ONNX model", kiln::code::kInvalidFile);
    auto text = file.ok() ? file->ReadText() : kiln::Result<std::string>(file.status());
    if (!text.ok()) {
      KILN_LOG(kGe, kError, "aclgrphParseONNX: ", text.status().message());
      return GRAPH_FAILED;
    }
    graphStatus st = aclgrphParseONNXFromMem(text->data(), text->size(), parser_params, graph);
    if (st == GRAPH_SUCCESS) {
      std::shared_ptr<GraphImpl> impl = GraphImplAccess::Get(graph);
      impl->origin = model_file;
      const std::string path = model_file;
      const size_t slash = path.rfind('/');
      impl->base_dir = slash == std::string::npos ? "." : path.substr(0, slash);
    }
    return st;
  } catch (...) {
    return GRAPH_FAILED;
  }
}

}  // namespace ge
