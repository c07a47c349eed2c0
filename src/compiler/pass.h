// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Graph passes. Each pass lives in its own file under passes/ and has before/after unit tests
// in tests/unit/compiler/. A pass keeps ONNX node names: a node it creates from others carries
// their origins (Node::add_origins).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "ir/graph.h"
#include "ir/op_schema.h"

namespace kiln::compiler {

// What passes share: the op registry, switches from --fusion_switch_file, and a log of what
// each pass changed (printed with --log=info).
struct PassContext {
  const ir::OpRegistry* registry = &ir::OpRegistry::Global();
  std::vector<std::string> disabled;  // pass names switched off
  std::vector<std::string> log;       // "conv_bn_fold: folded BatchNormalization 'bn1' into ..."
  // The model's matrix ops compute in bf16 (a bf16 --precision_mode; kernels/precision.h):
  // channels_last then also stores the activations it keeps NHWC in bf16.
  bool matrix_bf16 = false;
  bool Enabled(const std::string& pass) const;
};

class Pass {
 public:
  virtual ~Pass() = default;
  // snake_case name, as used in --fusion_switch_file and logs.
  virtual const char* name() const = 0;
  // Rewrites `graph`. Returns whether anything changed.
  virtual Result<bool> Run(ir::Graph& graph, PassContext& ctx) = 0;
};

// Runs passes in order; each enabled pass runs once, and shape inference is re-run after a
// pass that changed the graph.
class PassManager {
 public:
  void Add(std::unique_ptr<Pass> pass) { passes_.push_back(std::move(pass)); }
  Status Run(ir::Graph& graph, PassContext& ctx);
  const std::vector<std::unique_ptr<Pass>>& passes() const { return passes_; }

 private:
  std::vector<std::unique_ptr<Pass>> passes_;
};

}  // namespace kiln::compiler
