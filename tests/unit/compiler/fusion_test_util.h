// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Helpers shared by the fusion pass tests (conv_bn_fold, bias_activation_fusion,
// residual_add_fusion, layer_norm_fusion, gelu_fusion).
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "compiler/pass.h"
#include "tests/unit/compiler/pass_test_util.h"

namespace kiln::compiler::testing {

// The float32 data of a constant value (empty, with a test failure, when it is not one).
inline std::vector<float> Floats(const ir::Value* v) {
  if (v == nullptr || v->constant() == nullptr ||
      v->constant()->dtype() != ir::DataType::kFloat32) {
    ADD_FAILURE() << "not a float32 constant: " << (v ? v->name() : std::string("<null>"));
    return {};
  }
  const ir::Tensor& t = *v->constant();
  return std::vector<float>(t.data<float>(), t.data<float>() + t.num_elements());
}

// Expects `actual` to hold `expected`'s elements, each within `tol`.
inline void ExpectAllNear(const std::vector<float>& actual, const std::vector<float>& expected,
                          float tol) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < actual.size(); ++i) {
    EXPECT_NEAR(actual[i], expected[i], tol) << "element " << i;
  }
}

using Names = std::vector<std::string>;

// Sets a value's type by hand (the op schemas may not be registered in this build).
inline void SetType(ir::Value* v, ir::DataType dtype, std::vector<int64_t> dims) {
  v->type() = {dtype, ir::Shape::Of(dims)};
}

// Runs `pass` on `g` and returns whether it reported a change (failing the test on error).
inline bool RunPass(Pass& pass, GraphBuilder& g, PassContext& ctx) {
  auto changed = pass.Run(g.graph, ctx);
  EXPECT_TRUE(changed.ok()) << changed.status().message();
  return changed.ok() && *changed;
}
inline bool RunPass(Pass& pass, GraphBuilder& g) {
  PassContext ctx;
  return RunPass(pass, g, ctx);
}

// The node at position `i` in node order (null when there are fewer nodes).
inline const ir::Node* NodeAt(const GraphBuilder& g, size_t i) {
  for (const auto& n : g.graph.nodes()) {
    if (i-- == 0) return n.get();
  }
  return nullptr;
}

}  // namespace kiln::compiler::testing
