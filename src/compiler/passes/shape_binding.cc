// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// shape_binding: sets graph input shapes from --input_shape ("name" -> dims, -1 = dynamic).
#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "compiler/passes/passes.h"

namespace kiln::compiler {
namespace {

std::string DimsStr(const std::vector<int64_t>& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i) s += ",";
    s += std::to_string(dims[i]);
  }
  return s + "]";
}

class ShapeBinding : public Pass {
 public:
  explicit ShapeBinding(std::map<std::string, std::vector<int64_t>> shapes)
      : shapes_(std::move(shapes)) {}

  const char* name() const override { return "shape_binding"; }

  Result<bool> Run(ir::Graph& graph, PassContext& ctx) override {
    // Validate everything before changing anything, so an error leaves the graph untouched.
    std::vector<std::pair<ir::Value*, ir::Shape>> bound;
    for (const auto& [input_name, dims] : shapes_) {
      ir::Value* input = FindInput(graph, input_name);
      if (input == nullptr) {
        std::string names;
        for (const ir::Value* v : graph.inputs()) {
          if (!names.empty()) names += ", ";
          names += v->name();
        }
        return Error(code::kInvalidParam, "--input_shape names '", input_name,
                     "', which is not an input of the model; its inputs are: ",
                     names.empty() ? "(none)" : names);
      }
      KILN_ASSIGN_OR_RETURN(ir::Shape shape, Bind(input->shape(), input_name, dims));
      bound.emplace_back(input, std::move(shape));
    }
    bool changed = false;
    for (auto& [input, shape] : bound) {
      if (input->shape() == shape) continue;
      ctx.log.push_back(StrCat(name(), ": input '", input->name(), "' ", input->shape().ToString(),
                               " -> ", shape.ToString()));
      input->type().shape = std::move(shape);
      changed = true;
    }
    return changed;
  }

 private:
  static ir::Value* FindInput(const ir::Graph& graph, const std::string& name) {
    auto it = std::find_if(graph.inputs().begin(), graph.inputs().end(),
                           [&](const ir::Value* v) { return v->name() == name; });
    return it == graph.inputs().end() ? nullptr : *it;
  }

  // The shape `dims` gives an input the model declares as `model`.
  static Result<ir::Shape> Bind(const ir::Shape& model, const std::string& input,
                                const std::vector<int64_t>& dims) {
    if (model.rank_known() && model.rank() != dims.size()) {
      return Error(code::kInvalidParam, "--input_shape gives input '", input, "' ", dims.size(),
                   " dim(s) ", DimsStr(dims), ", but the model declares rank ", model.rank(), " ",
                   model.ToString(), "; give one size per dim");
    }
    std::vector<ir::Dim> out;
    for (size_t i = 0; i < dims.size(); ++i) {
      const int64_t d = dims[i];
      if (d < -1) {
        return Error(code::kInvalidParam, "--input_shape gives input '", input, "' dim ", i, " = ",
                     d, " in ", DimsStr(dims), "; a dim is a size >= 0, or -1 for dynamic");
      }
      const ir::Dim* declared = model.rank_known() ? &model[i] : nullptr;
      if (d >= 0) {
        if (declared != nullptr && declared->known() && declared->value != d) {
          return Error(code::kInvalidParam, "--input_shape gives input '", input, "' dim ", i,
                       " = ", d, " in ", DimsStr(dims), ", but the model fixes it to ",
                       declared->value, " ", model.ToString(), "; use ", declared->value,
                       " or -1 there");
        }
        out.push_back(ir::Dim::Known(d));
      } else if (declared != nullptr && !declared->symbol.empty()) {
        out.push_back(ir::Dim::Symbol(declared->symbol));
      } else {
        out.push_back(ir::Dim::Unknown());
      }
    }
    return ir::Shape(std::move(out));
  }

  std::map<std::string, std::vector<int64_t>> shapes_;
};

}  // namespace

std::unique_ptr<Pass> CreateShapeBindingPass(std::map<std::string, std::vector<int64_t>> shapes) {
  return std::make_unique<ShapeBinding>(std::move(shapes));
}

}  // namespace kiln::compiler
