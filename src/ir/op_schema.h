// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Op schemas: for every op the compiler accepts, its input/output counts, the opsets it
// supports, and a type-and-shape inference function. Registration is explicit, one function
// per op family (ir/ops/<family>.cc), called from RegisterAllOps (ir/ops/registry.cc).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"
#include "ir/graph.h"

namespace kiln::ir {

// The newest ONNX opset whose ops Kiln defines (onnx 1.22).
inline constexpr int kNewestOnnxOpset = 27;

// One node as a shape function sees it — an ir::Node at compile time, a loaded node with its
// real input tensors at run time (kernels/infer.h) — so one function serves both: the op's
// name, opset and attributes, its inputs' types and the values of those known (compile-time
// constants; every input at run time), and the output types it must fill in.
class InferenceContext : public AttrGetters<InferenceContext> {
 public:
  struct Input {
    bool given = false;
    TensorType type;
    const Tensor* constant = nullptr;  // its value, when known
  };
  // The node and what it reads; `attrs` and the constants must outlive the context.
  InferenceContext(std::string op_type, std::string name, int opset, const AttrMap& attrs,
                   std::vector<Input> inputs, std::vector<bool> outputs_used);
  // Compile time: a node of the graph, its inputs' current types and constants.
  explicit InferenceContext(const Node& node);

  const std::string& op_type() const { return op_type_; }
  int opset() const { return opset_; }
  // Kiln's fused ops run their base op's shape function at the newest ONNX opset (their own
  // opset numbers Kiln's domain, not ONNX's).
  void set_opset(int opset) { opset_ = opset; }
  const AttrMap& attr_map() const { return attrs_; }
  const AttrMap& attrs() const { return attrs_; }
  size_t num_inputs() const { return inputs_.size(); }
  // True when input i is given (not omitted).
  bool has_input(size_t i) const { return i < inputs_.size() && inputs_[i].given; }
  const TensorType& input_type(size_t i) const { return inputs_[i].type; }
  DataType input_dtype(size_t i) const { return inputs_[i].type.dtype; }
  const Shape& input_shape(size_t i) const { return inputs_[i].type.shape; }
  // The value of input i when it is known (a compile-time constant); null otherwise.
  const Tensor* input_constant(size_t i) const {
    return has_input(i) ? inputs_[i].constant : nullptr;
  }
  // A constant integer input (shape, axes, pads ...) as int64s; nullopt when not constant.
  std::optional<std::vector<int64_t>> input_ints(size_t i) const;

  size_t num_outputs() const { return outputs_.size(); }
  // Whether the node uses output i (an optional output may be left out).
  bool output_used(size_t i) const { return i < outputs_used_.size() && outputs_used_[i]; }
  void set_output(size_t i, DataType dtype, Shape shape);
  void set_output(size_t i, TensorType type) { set_output(i, type.dtype, std::move(type.shape)); }
  const std::vector<TensorType>& outputs() const { return outputs_; }

  // An error about this node: "Conv 'conv1' (opset 13): <text>" with kInvalidParam.
  template <typename... Args>
  Status Fail(Args&&... args) const {
    return Error(code::kInvalidParam, Prefix(), std::forward<Args>(args)...);
  }
  // The node is valid ONNX that Kiln does not support (kFeatureUnsupported).
  template <typename... Args>
  Status Unsupported(Args&&... args) const {
    return Error(code::kFeatureUnsupported, Prefix(), std::forward<Args>(args)...);
  }

 private:
  std::string Prefix() const;
  std::string op_type_, name_;
  int opset_ = 0;
  const AttrMap& attrs_;
  std::vector<Input> inputs_;
  std::vector<bool> outputs_used_;
  std::vector<TensorType> outputs_;
};

using InferFn = Status (*)(InferenceContext& ctx);

// An attribute an op declares: its name, kind and ONNX default, written once. The compiler
// (InferNode) and the kernel registry (kernels/registry.h) apply the declarations before
// anything reads the node, so shape functions, passes and kernels read attributes without
// defaults of their own.
struct AttrSpec {
  enum class Use : uint8_t {
    kDefault,   // absent: `dflt` is filled in
    kRequired,  // absent: the node is invalid
    kOptional,  // absent: stays absent (its meaning is the op's: kernel_shape from the weights)
  };
  std::string name;
  AttrKind kind = AttrKind::kInt;
  Attribute dflt;  // for kDefault
  Use use = Use::kDefault;
  int since = 1;        // the first opset this declaration applies to
  int until = 1 << 20;  // the last

  AttrSpec& Since(int opset) {
    since = opset;
    return *this;
  }
  AttrSpec& Until(int opset) {
    until = opset;
    return *this;
  }
};

// Declarations: Attr("alpha", 0.01f) has a default (its kind is the value's); RequiredAttr and
// OptionalAttr name the kind.
AttrSpec Attr(const char* name, Attribute dflt);
inline AttrSpec Attr(const char* name, int dflt) { return Attr(name, Attribute(int64_t{dflt})); }
inline AttrSpec Attr(const char* name, double dflt) {
  return Attr(name, Attribute(static_cast<float>(dflt)));
}
inline AttrSpec Attr(const char* name, const char* dflt) {
  return Attr(name, Attribute(std::string(dflt)));
}
AttrSpec RequiredAttr(const char* name, AttrKind kind);
AttrSpec OptionalAttr(const char* name, AttrKind kind);

// What passes, planners and the runtime may assume of an op, declared once with it.
enum OpTrait : uint32_t {
  // Output 0 may take the memory of input `in_place_input` (0 unless OpSchema::InPlace says;
  // the planner's in-place reuse): the kernel reads each element before it writes the same
  // element, or moves no data at all (Reshape).
  kTraitInPlace = 1u << 0,
  // A unary activation that Conv, Gemm and MatMul kernels can apply as a post-op
  // (bias_activation_fusion).
  kTraitFusableActivation = 1u << 1,
  // Computes element by element, so it gives the same result whatever the memory layout of
  // its inputs (channels_last may keep its tensors in NHWC).
  kTraitLayoutAgnostic = 1u << 2,
  // Output dims depend on input values the shape function cannot see (NonZero, If, Loop):
  // at run time the kernel sizes those outputs itself (KernelContext::DynamicOutput).
  kTraitDataDependentShape = 1u << 3,
  // Reads only its inputs' dims, never their data (Shape, Size): it folds to a constant as
  // soon as its input's shape is static.
  kTraitReadsShapeOnly = 1u << 4,
  // Its kernels take the low-precision types (ir::IsLowPrecision: float8, float4, int4, int2)
  // where the definition allows them. Any other op is refused with such tensors at load.
  kTraitLowPrecision = 1u << 5,
};

// One op, defined once: counts, opsets, attributes with their defaults, the shape/type function
// used by the compiler, the runtime's dynamic path and the load-time check of every kernel,
// and the op's traits.
struct OpSchema {
  std::string op_type;
  std::string domain;     // "" is the default ONNX domain
  int since_version = 1;  // lowest opset Kiln accepts for this op
  int min_inputs = 1;
  int max_inputs = 1;  // -1: variadic
  int min_outputs = 1;
  int max_outputs = 1;  // -1: variadic
  std::string family;   // the ir/ops/<family>.cc that registers it
  InferFn infer = nullptr;
  std::vector<AttrSpec> attrs;
  uint32_t traits = 0;
  size_t in_place_input = 0;  // kTraitInPlace: the input whose memory output 0 may take

  bool has(OpTrait t) const { return (traits & t) != 0; }
  OpSchema& Attrs(std::vector<AttrSpec> specs) {
    for (auto& a : specs) attrs.push_back(std::move(a));
    return *this;
  }
  OpSchema& Traits(uint32_t t) {
    traits |= t;
    return *this;
  }
  // kTraitInPlace with output 0 taking input `input`'s memory (a fused residual).
  OpSchema& InPlace(size_t input) {
    traits |= kTraitInPlace;
    in_place_input = input;
    return *this;
  }
};

// Applies `schema`'s attribute declarations for `opset` to `attrs`: fills in defaults, and
// fails with kInvalidParam naming `label` and the attribute when a required one is missing or
// one is given with another kind (a tensor where an int is declared). Idempotent.
Status ApplyAttrDefaults(const OpSchema& schema, int opset, const std::string& label,
                         AttrMap& attrs);

// A node's counts against `schema`: its inputs (`inputs_given`: given or omitted, in order;
// trailing omitted ones do not count) and outputs are within the op's bounds, and every
// required input is given; kInvalidParam naming `where` otherwise. Every shape function may
// assume it (the compiler checks it, and the loader again for a loaded node).
Status CheckCounts(const OpSchema& schema, const std::string& where,
                   const std::vector<bool>& inputs_given, size_t num_outputs);

class OpRegistry {
 public:
  // The registry with every built-in op (RegisterAllOps), built once.
  static const OpRegistry& Global();

  void Register(OpSchema schema);
  const OpSchema* Find(const std::string& domain, const std::string& op_type) const;
  std::vector<const OpSchema*> All() const;
  size_t size() const { return schemas_.size(); }

 private:
  std::map<std::pair<std::string, std::string>, OpSchema> schemas_;
};

// Registers every built-in op family.
void RegisterAllOps(OpRegistry& registry);

// Gives the values `graph` (a node's body) captures from its enclosing graphs — `outer`,
// innermost last — the types of those enclosing values.
void TypeCaptures(Graph& graph, const std::vector<const Graph*>& outer);

// Checks `node` against its schema (known op, opset, input/output counts, attribute kinds),
// fills in its attribute defaults and sets the types of its outputs. kFeatureUnsupported for
// unknown ops or opsets; kInvalidParam for a node that breaks its op's rules. Messages name the op
// type, node name and opset.
Status InferNode(const OpRegistry& registry, Node& node);
// InferNode over every node in order, and over the If/Loop/Scan bodies first (their captured
// values typed from the enclosing graphs); stops at the first failure.
Status InferGraph(const OpRegistry& registry, Graph& graph);

}  // namespace kiln::ir
