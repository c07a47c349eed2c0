// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// ge::Graph (include/graph/graph.h): a named holder of a parsed model.
#include "graph/graph.h"

#include "ge/graph_impl.h"

namespace ge {

Graph::Graph(const char* name) : impl_(std::make_shared<GraphImpl>()) {
  if (name != nullptr) impl_->name = name;
}

Graph::Graph(const std::string& name) : Graph(name.c_str()) {}

bool Graph::IsValid() const { return impl_ != nullptr && !impl_->onnx.empty(); }

graphStatus Graph::GetName(AscendString& name) const {
  if (impl_ == nullptr) return GRAPH_FAILED;
  name = AscendString(impl_->name.c_str());
  return GRAPH_SUCCESS;
}

}  // namespace ge
