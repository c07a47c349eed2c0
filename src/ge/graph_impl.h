// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// What a ge::Graph holds in Kiln: the serialized model a parser read, for aclgrphBuildModel.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "graph/graph.h"

namespace ge {

class GraphImpl {
 public:
  std::string name;
  std::string onnx;      // the serialized ONNX model ("" until parsed)
  std::string origin;    // what messages call it: the file, or "<name> (from memory)"
  std::string base_dir;  // where its external data lies (a parsed file's folder; "" = none)
};

// The one door to a Graph's implementation (a friend of ge::Graph).
class GraphImplAccess {
 public:
  static std::shared_ptr<GraphImpl> Get(const Graph& graph) { return graph.impl_; }
  // The implementation, made if the graph has none (a default-constructed Graph).
  static std::shared_ptr<GraphImpl> Ensure(Graph& graph) {
    if (graph.impl_ == nullptr) graph.impl_ = std::make_shared<GraphImpl>();
    return graph.impl_;
  }
};

}  // namespace ge
