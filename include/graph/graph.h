// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// ge::Graph: a graph of CANN's graph-engine C++ API (graph/graph.h) with CANN's layout (one
// shared_ptr to the implementation). In Kiln a Graph holds a model a parser read
// (aclgrphParseONNX*) for aclgrphBuildModel; building graphs operator by operator is not
// provided (docs/ge-api.md).
#ifndef INC_EXTERNAL_GRAPH_GRAPH_H_
#define INC_EXTERNAL_GRAPH_GRAPH_H_

#include <memory>
#include <string>

#include "graph/ascend_string.h"
#include "graph/ge_error_codes.h"

namespace ge {

class GraphImpl;
using GraphImplPtr = std::shared_ptr<GraphImpl>;

class GE_FUNC_VISIBILITY Graph {
 public:
  Graph() = default;
  ~Graph() = default;
  explicit Graph(const char* name);
  explicit Graph(const std::string& name);
  // Whether a parser has filled the graph.
  bool IsValid() const;
  graphStatus GetName(AscendString& name) const;

 private:
  GraphImplPtr impl_{nullptr};
  friend class GraphImplAccess;
};

}  // namespace ge

#endif  // INC_EXTERNAL_GRAPH_GRAPH_H_
