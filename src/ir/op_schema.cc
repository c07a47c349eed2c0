// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "ir/op_schema.h"

#include <memory>

#include <algorithm>

namespace kiln::ir {

InferenceContext::InferenceContext(std::string op_type, std::string name, int opset,
                                   const AttrMap& attrs, std::vector<Input> inputs,
                                   std::vector<bool> outputs_used)
    : op_type_(std::move(op_type)),
      name_(std::move(name)),
      opset_(opset),
      attrs_(attrs),
      inputs_(std::move(inputs)),
      outputs_used_(std::move(outputs_used)) {
  outputs_.resize(outputs_used_.size());
}

namespace {

std::vector<InferenceContext::Input> InputsOf(const Node& node) {
  std::vector<InferenceContext::Input> in(node.inputs().size());
  for (size_t i = 0; i < in.size(); ++i) {
    if (const Value* v = node.input(i)) in[i] = {true, v->type(), v->constant()};
  }
  return in;
}

std::vector<bool> OutputsUsed(const Node& node) {
  std::vector<bool> used(node.outputs().size());
  for (size_t i = 0; i < used.size(); ++i) used[i] = node.output(i) != nullptr;
  return used;
}

}  // namespace

InferenceContext::InferenceContext(const Node& node)
    : InferenceContext(node.op_type(), node.name(), node.opset(), node.attrs(), InputsOf(node),
                       OutputsUsed(node)) {}

std::optional<std::vector<int64_t>> InferenceContext::input_ints(size_t i) const {
  const Tensor* t = input_constant(i);
  if (t == nullptr || !(IsInteger(t->dtype()))) return std::nullopt;
  return t->AsInt64s();
}

void InferenceContext::set_output(size_t i, DataType dtype, Shape shape) {
  if (i < outputs_.size()) outputs_[i] = TensorType{dtype, std::move(shape)};
}

std::string InferenceContext::Prefix() const {
  return StrCat(op_type_, " '", name_.empty() ? std::string("<unnamed>") : name_, "' (opset ",
                opset_, "): ");
}

AttrSpec Attr(const char* name, Attribute dflt) {
  AttrSpec s;
  s.name = name;
  s.kind = static_cast<AttrKind>(dflt.index());
  s.dflt = std::move(dflt);
  return s;
}

AttrSpec RequiredAttr(const char* name, AttrKind kind) {
  AttrSpec s;
  s.name = name;
  s.kind = kind;
  s.use = AttrSpec::Use::kRequired;
  return s;
}

AttrSpec OptionalAttr(const char* name, AttrKind kind) {
  AttrSpec s = RequiredAttr(name, kind);
  s.use = AttrSpec::Use::kOptional;
  return s;
}

Status ApplyAttrDefaults(const OpSchema& schema, int opset, const std::string& label,
                         AttrMap& attrs) {
  for (const AttrSpec& spec : schema.attrs) {
    if (opset < spec.since || opset > spec.until) continue;
    auto it = attrs.find(spec.name);
    if (it != attrs.end()) {
      if (static_cast<AttrKind>(it->second.index()) != spec.kind) {
        return Error(code::kInvalidParam, label, " (opset ", opset, "): attribute '", spec.name,
                     "' is a ", AttributeKind(it->second), "; ", schema.op_type, " takes a ",
                     AttrKindName(spec.kind));
      }
      continue;
    }
    if (spec.use == AttrSpec::Use::kRequired) {
      return Error(code::kInvalidParam, label, " (opset ", opset, "): attribute '", spec.name,
                   "' is required");
    }
    if (spec.use == AttrSpec::Use::kDefault) attrs.emplace(spec.name, spec.dflt);
  }
  return Status::Ok();
}

const OpRegistry& OpRegistry::Global() {
  static const OpRegistry* registry = [] {
    auto r = std::make_unique<OpRegistry>();  // freed if registration runs out of memory
    RegisterAllOps(*r);
    return r.release();
  }();
  return *registry;
}

void OpRegistry::Register(OpSchema schema) {
  auto key = std::make_pair(schema.domain, schema.op_type);
  schemas_[key] = std::move(schema);
}

const OpSchema* OpRegistry::Find(const std::string& domain, const std::string& op_type) const {
  auto it = schemas_.find({domain == "ai.onnx" ? "" : domain, op_type});
  return it == schemas_.end() ? nullptr : &it->second;
}

std::vector<const OpSchema*> OpRegistry::All() const {
  std::vector<const OpSchema*> all;
  for (auto& [key, s] : schemas_) all.push_back(&s);
  return all;
}

Status CheckCounts(const OpSchema& schema, const std::string& where,
                   const std::vector<bool>& inputs_given, size_t num_outputs) {
  int n_in = static_cast<int>(inputs_given.size());
  // Trailing omitted optional inputs do not count.
  while (n_in > 0 && !inputs_given[static_cast<size_t>(n_in - 1)]) --n_in;
  if (n_in < schema.min_inputs || (schema.max_inputs >= 0 && n_in > schema.max_inputs)) {
    return Error(code::kInvalidParam, where, ": has ", n_in, " input(s); ", schema.op_type,
                 " takes ", schema.min_inputs,
                 schema.max_inputs < 0 ? " or more" : StrCat(" to ", schema.max_inputs));
  }
  for (int i = 0; i < schema.min_inputs; ++i) {
    if (!inputs_given[static_cast<size_t>(i)]) {
      return Error(code::kInvalidParam, where, ": required input ", i, " is missing");
    }
  }
  const int n_out = static_cast<int>(num_outputs);
  if (n_out < schema.min_outputs || (schema.max_outputs >= 0 && n_out > schema.max_outputs)) {
    return Error(code::kInvalidParam, where, ": has ", n_out, " output(s); ", schema.op_type,
                 " produces ", schema.min_outputs,
                 schema.max_outputs < 0 ? " or more" : StrCat(" to ", schema.max_outputs));
  }
  return Status::Ok();
}

Status InferNode(const OpRegistry& registry, Node& node) {
  const OpSchema* schema = registry.Find(node.domain(), node.op_type());
  std::string where = StrCat(node.Label(), " (opset ", node.opset(), ")");
  if (schema == nullptr) {
    return Error(code::kFeatureUnsupported, where, ": op type '",
                 node.domain().empty() ? "" : node.domain() + "::", node.op_type(),
                 "' is not supported by Kiln");
  }
  std::vector<bool> given(node.inputs().size());
  for (size_t i = 0; i < given.size(); ++i) given[i] = node.input(i) != nullptr;
  if (node.opset() < schema->since_version) {
    return Error(code::kFeatureUnsupported, where, ": Kiln supports ", node.op_type(),
                 " from opset ", schema->since_version, "; re-export the model with a newer opset");
  }
  KILN_RETURN_IF_ERROR(CheckCounts(*schema, where, given, node.outputs().size()), "");
  KILN_RETURN_IF_ERROR(ApplyAttrDefaults(*schema, node.opset(), node.Label(), node.mutable_attrs()),
                       "");
  InferenceContext ctx(node);
  KILN_RETURN_IF_ERROR(schema->infer(ctx), "");
  for (size_t i = 0; i < node.outputs().size(); ++i) {
    Value* out = node.output(i);
    if (out == nullptr || out->constant()) continue;
    const TensorType& inferred = ctx.outputs()[i];
    if (inferred.dtype == DataType::kUndefined) continue;  // optional output left unset
    out->type() = inferred;
  }
  return Status::Ok();
}

void TypeCaptures(Graph& graph, const std::vector<const Graph*>& outer) {
  for (const auto& v : graph.values()) {
    if (v->producer() != nullptr || v->constant() != nullptr) continue;
    if (std::find(graph.inputs().begin(), graph.inputs().end(), v.get()) != graph.inputs().end()) {
      continue;
    }
    for (auto it = outer.rbegin(); it != outer.rend(); ++it) {
      if (const Value* o = (*it)->FindValue(v->name())) {
        v->type() = o->type();  // a capture reads the enclosing value
        break;
      }
    }
  }
}

namespace {

// Gives the untyped inputs of a Loop or Scan body the types the node feeds them (ONNX lets a
// body leave them out). Loop: (iteration int64 scalar, cond bool scalar, carried values: their
// element type, shape unknown since it may change between iterations). Scan: state values as
// given, scan inputs one slice (the scan axis removed).
void TypeBodyInputs(const Node& node, Graph& body) {
  auto fill = [](Value* v, DataType dtype, Shape shape) {
    if (v == nullptr || v->dtype() != DataType::kUndefined) return;
    v->type().dtype = dtype;
    if (!v->shape().rank_known()) v->type().shape = std::move(shape);
  };
  auto& in = body.inputs();
  if (node.op_type() == "Loop") {
    if (in.size() > 0) fill(in[0], DataType::kInt64, Shape::Scalar());
    if (in.size() > 1) fill(in[1], DataType::kBool, Shape::Scalar());
    for (size_t i = 2; i < in.size(); ++i) {
      if (const Value* given = node.input(i)) fill(in[i], given->dtype(), Shape());
    }
  } else if (node.op_type() == "Scan" && node.opset() >= 9) {
    const int64_t m = node.attr_int("num_scan_inputs");
    const int64_t n = static_cast<int64_t>(node.inputs().size()) - m;
    const std::vector<int64_t> axes = node.attr_ints("scan_input_axes");
    for (int64_t i = 0; i < static_cast<int64_t>(in.size()) && i < n + m; ++i) {
      const Value* given = node.input(static_cast<size_t>(i));
      if (given == nullptr) continue;
      Shape shape = given->shape();
      if (i >= n && shape.rank_known() && shape.rank() > 0) {
        int64_t axis = i - n < static_cast<int64_t>(axes.size()) ? axes[i - n] : 0;
        if (axis < 0) axis += static_cast<int64_t>(shape.rank());
        if (axis >= 0 && axis < static_cast<int64_t>(shape.rank())) {
          shape.dims().erase(shape.dims().begin() + axis);
        } else {
          shape = Shape();
        }
      }
      fill(in[i], given->dtype(), std::move(shape));
    }
  }
}

// Infers `graph`, whose captured values take their types from `outer` (the enclosing graphs,
// innermost last); the bodies of its nodes are inferred first, so If/Loop see typed outputs.
Status InferScoped(const OpRegistry& registry, Graph& graph, std::vector<const Graph*>& outer) {
  if (!outer.empty()) TypeCaptures(graph, outer);
  outer.push_back(&graph);
  for (auto& node : graph.nodes()) {
    for (auto& [name, attr] : node->attrs()) {
      if (auto* body = std::get_if<std::shared_ptr<Graph>>(&attr); body && *body) {
        TypeBodyInputs(*node, **body);
        Status st = InferScoped(registry, **body, outer);
        if (!st.ok()) {
          outer.pop_back();
          return std::move(st).Annotate(StrCat("in ", name, " of ", node->Label()));
        }
      }
    }
    Status st = InferNode(registry, *node);
    if (!st.ok()) {
      outer.pop_back();
      return st;
    }
  }
  outer.pop_back();
  return Status::Ok();
}

}  // namespace

Status InferGraph(const OpRegistry& registry, Graph& graph) {
  std::vector<const Graph*> outer;
  return InferScoped(registry, graph, outer);
}

}  // namespace kiln::ir
