// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "ir/tensor.h"

namespace kiln::ir {

class Graph;

// A node attribute: the value kinds of ONNX's AttributeProto that Kiln uses.
using Attribute =
    std::variant<int64_t, float, std::string, std::vector<int64_t>, std::vector<float>,
                 std::vector<std::string>, Tensor, std::shared_ptr<Graph>>;

// "int", "float", "string", "ints", "floats", "strings", "tensor", "graph".
const char* AttributeKind(const Attribute& a);

}  // namespace kiln::ir
