// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <map>
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

// The kinds, in the variant's order.
enum class AttrKind : uint8_t { kInt, kFloat, kString, kInts, kFloats, kStrings, kTensor, kGraph };

using AttrMap = std::map<std::string, Attribute>;

// "int", "float", "string", "ints", "floats", "strings", "tensor", "graph".
const char* AttributeKind(const Attribute& a);
const char* AttrKindName(AttrKind k);

// Typed read access to a node's attributes, shared by everything that reads a node (ir::Node,
// the shape functions' InferenceContext, kernels::NodeDef). `Derived` provides
// `const AttrMap& attr_map() const`. Every attribute an op declares with a default is present
// once the op's definition has been applied (ir::ApplyAttrDefaults), so readers give no default:
// an absent attribute (one declared without a default) reads as zero / empty.
template <typename Derived>
class AttrGetters {
 public:
  bool has_attr(const std::string& n) const { return map().count(n) != 0; }
  int64_t attr_int(const std::string& n) const { return Get<int64_t>(n, 0); }
  float attr_float(const std::string& n) const { return Get<float>(n, 0.f); }
  std::string attr_string(const std::string& n) const { return Get<std::string>(n, {}); }
  std::vector<int64_t> attr_ints(const std::string& n) const {
    return Get<std::vector<int64_t>>(n, {});
  }
  std::vector<float> attr_floats(const std::string& n) const {
    return Get<std::vector<float>>(n, {});
  }
  std::vector<std::string> attr_strings(const std::string& n) const {
    return Get<std::vector<std::string>>(n, {});
  }
  const Tensor* attr_tensor(const std::string& n) const { return Find<Tensor>(n); }
  const Graph* attr_graph(const std::string& n) const {
    const auto* g = Find<std::shared_ptr<Graph>>(n);
    return g ? g->get() : nullptr;
  }

 private:
  const AttrMap& map() const { return static_cast<const Derived*>(this)->attr_map(); }
  template <typename T>
  const T* Find(const std::string& n) const {
    auto it = map().find(n);
    return it == map().end() ? nullptr : std::get_if<T>(&it->second);
  }
  template <typename T>
  T Get(const std::string& n, T dflt) const {
    const T* v = Find<T>(n);
    return v ? *v : dflt;
  }
};

}  // namespace kiln::ir
