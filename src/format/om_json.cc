// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "format/om_json.h"

#include <nlohmann/json.hpp>

#include "format/om_generated.h"

namespace kiln::format {
namespace {

using nlohmann::json;

template <typename T>
json Vec(const flatbuffers::Vector<T>* v) {
  json a = json::array();
  if (v) {
    for (auto x : *v) a.push_back(x);
  }
  return a;
}

json Strings(const flatbuffers::Vector<flatbuffers::Offset<flatbuffers::String>>* v) {
  json a = json::array();
  if (v) {
    for (auto s : *v) a.push_back(s->str());
  }
  return a;
}

std::string Str(const flatbuffers::String* s) { return s ? s->str() : ""; }

json AttrJson(const om::Attr& a) {
  switch (a.type()) {
    case om::AttrType::Int:
      return a.i();
    case om::AttrType::Float:
      return a.f();
    case om::AttrType::String:
      return Str(a.s());
    case om::AttrType::Ints:
      return Vec(a.ints());
    case om::AttrType::Floats:
      return Vec(a.floats());
    case om::AttrType::Strings:
      return Strings(a.strings());
    case om::AttrType::Tensor:
      return json{{"tensor", a.tensor()}};
    case om::AttrType::Graph:
      return json{{"graph", a.graph()}};
  }
  return nullptr;
}

json TensorJson(const om::TensorDesc& t) {
  json j{{"name", Str(t.name())},
         {"dtype", t.dtype()},
         {"dims", Vec(t.dims())},
         {"kind", om::EnumNameTensorKind(t.kind())},
         {"bytes", t.bytes()}};
  if (t.dim_symbols() && t.dim_symbols()->size()) j["dim_symbols"] = Strings(t.dim_symbols());
  if (t.kind() == om::TensorKind::Activation) {
    if (t.offset() == UINT64_MAX) {
      j["workspace_offset"] = "dynamic";
    } else {
      j["workspace_offset"] = t.offset();
    }
  } else if (t.kind() == om::TensorKind::Constant) {
    j["weights_offset"] = t.offset();
  }
  if (t.alias_of() >= 0) j["in_place_of"] = t.alias_of();
  if (t.rank_unknown()) j["rank_unknown"] = true;
  return j;
}

json GraphJson(const om::Graph& g) {
  json tensors = json::array(), nodes = json::array();
  if (g.tensors()) {
    for (auto t : *g.tensors()) tensors.push_back(TensorJson(*t));
  }
  if (g.nodes()) {
    for (auto n : *g.nodes()) {
      json attrs = json::object();
      if (n->attrs()) {
        for (auto a : *n->attrs()) attrs[Str(a->name())] = AttrJson(*a);
      }
      json ins = json::array(), outs = json::array();
      auto name_of = [&](int32_t i) -> json {
        if (i < 0 || !g.tensors() || static_cast<uint32_t>(i) >= g.tensors()->size())
          return nullptr;
        return Str(g.tensors()->Get(static_cast<uint32_t>(i))->name());
      };
      if (n->inputs()) {
        for (auto i : *n->inputs()) ins.push_back(name_of(i));
      }
      if (n->outputs()) {
        for (auto i : *n->outputs()) outs.push_back(name_of(i));
      }
      json node{{"name", Str(n->name())},
                {"op_type", Str(n->op_type())},
                {"origins", Strings(n->origins())},
                {"inputs", ins},
                {"outputs", outs},
                {"attributes", attrs},
                {"opset", n->opset()}};
      if (n->domain() && n->domain()->size()) node["domain"] = Str(n->domain());
      nodes.push_back(node);
    }
  }
  return json{{"name", Str(g.name())},
              {"inputs", Vec(g.inputs())},
              {"outputs", Vec(g.outputs())},
              {"tensors", tensors},
              {"nodes", nodes}};
}

}  // namespace

std::string OmToJson(const OmView& view, int indent) {
  const om::Model* m = om::GetModel(view.graph);
  const OmHeader& h = *view.header;
  json graphs = json::array();
  if (m->graphs()) {
    for (auto g : *m->graphs()) graphs.push_back(GraphJson(*g));
  }
  json options = json::object(), aipp = json::object();
  if (m->options()) {
    for (auto kv : *m->options()) options[Str(kv->key())] = Str(kv->value());
  }
  if (m->aipp()) {
    for (auto kv : *m->aipp()) aipp[Str(kv->key())] = Str(kv->value());
  }
  json gears = json::array();
  if (m->gears()) {
    for (auto g : *m->gears()) {
      json dims = json::object();
      if (g->tensor_dims()) {
        for (auto td : *g->tensor_dims()) dims[std::to_string(td->tensor())] = Vec(td->dims());
      }
      gears.push_back(
          {{"values", Vec(g->values())}, {"work_size", g->work_size()}, {"tensor_dims", dims}});
    }
  }
  json j{{"format_version", std::to_string(h.format_major) + "." + std::to_string(h.format_minor)},
         {"compiler_version", std::string(h.compiler_version)},
         {"min_runtime_version",
          std::to_string(h.min_runtime_major) + "." + std::to_string(h.min_runtime_minor)},
         {"target", std::string(h.target)},
         {"name", Str(m->name())},
         {"source", Str(m->source())},
         {"work_size", m->work_size()},
         {"weight_size", m->weight_size()},
         {"gear_kind", om::EnumNameGearKind(m->gear_kind())},
         {"gear_dims", Strings(m->gear_dims())},
         {"gears", gears},
         {"options", options},
         {"aipp", aipp},
         {"graphs", graphs}};
  // Names come from files: invalid UTF-8 is replaced, never thrown on.
  return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace kiln::format
