// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// io_dtype: Casts after the graph outputs --output_type retypes, and after the inputs
// --input_fp16_nodes makes float16. Names at the graph's edges never change: they are what
// the application binds to.
#include "compiler/passes/io_dtype.h"

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "compiler/passes/output_selection.h"
#include "compiler/passes/pattern_util.h"

namespace kiln::compiler {
namespace {

// ONNX Cast-13 covers every type below; a graph of a later opset gets its own.
constexpr int kCastOpset = 13;

struct AtcType {
  const char* name;
  ir::DataType dtype;
};

constexpr AtcType kAtcTypes[] = {
    {"FP32", ir::DataType::kFloat32},   {"FP16", ir::DataType::kFloat16},
    {"UINT8", ir::DataType::kUint8},    {"INT8", ir::DataType::kInt8},
    {"UINT16", ir::DataType::kUint16},  {"INT16", ir::DataType::kInt16},
    {"UINT32", ir::DataType::kUint32},  {"INT32", ir::DataType::kInt32},
    {"UINT64", ir::DataType::kUint64},  {"INT64", ir::DataType::kInt64},
    {"DOUBLE", ir::DataType::kFloat64},
};

std::string AllowedTypes() {
  std::string s;
  for (const AtcType& t : kAtcTypes) s += (s.empty() ? "" : ", ") + std::string(t.name);
  return s;
}

Result<ir::DataType> ParseAtcType(const std::string& name, const std::string& where) {
  for (const AtcType& t : kAtcTypes) {
    if (name == t.name) return t.dtype;
  }
  const bool ascend950 = name == "HIF8" || name == "FP8E5M2" || name == "FP8E4M3FN";
  return Error(code::kInvalidParam, where, ": '", name, "' is not ",
               ascend950 ? "supported by Kiln (an Ascend 950 type)" : "an output type",
               "; use one of ", AllowedTypes());
}

std::string Trim(const std::string& s) {
  const auto first = s.find_first_not_of(" \t");
  if (first == std::string::npos) return "";
  return s.substr(first, s.find_last_not_of(" \t") - first + 1);
}

// The non-blank ';'-separated entries of `s`, trimmed.
std::vector<std::string> SplitEntries(const std::string& s) {
  std::vector<std::string> entries;
  size_t start = 0;
  while (start <= s.size()) {
    size_t end = s.find(';', start);
    if (end == std::string::npos) end = s.size();
    std::string entry = Trim(s.substr(start, end - start));
    if (!entry.empty()) entries.push_back(std::move(entry));
    start = end + 1;
  }
  return entries;
}

std::string JoinValueNames(const std::vector<ir::Value*>& values) {
  if (values.empty()) return "(none)";
  std::string s;
  for (const ir::Value* v : values) s += (s.empty() ? "'" : ", '") + v->name() + "'";
  return s;
}

bool Contains(const std::vector<ir::Value*>& values, const ir::Value* v) {
  return std::find(values.begin(), values.end(), v) != values.end();
}

// Points every node input that reads `from` at `to`; graph outputs keep `from` (unlike
// Graph::ReplaceAllUses).
void RedirectReaders(ir::Graph& graph, ir::Value* from, ir::Value* to) {
  for (auto& node : graph.nodes()) {
    for (size_t i = 0; i < node->inputs().size(); ++i) {
      if (node->input(i) == from) node->set_input(i, to);
    }
  }
}

// Makes `node` produce `to` where it produced `from` (in place: name, attributes and origins
// kept).
Status RebuildWithOutput(ir::Graph& graph, ir::Node* node, ir::Value* from, ir::Value* to) {
  return graph.ReplaceOutput(node, from, to);
}

class IoDtype : public Pass {
 public:
  explicit IoDtype(IoDtypeOptions options) : options_(std::move(options)) {}

  const char* name() const override { return "io_dtype"; }

  Result<bool> Run(ir::Graph& graph, PassContext& ctx) override {
    // Check everything before changing anything, so an error leaves the graph untouched.
    KILN_ASSIGN_OR_RETURN(std::vector<ir::Value*> inputs, Fp16Inputs(graph));
    KILN_ASSIGN_OR_RETURN(auto outputs, OutputCasts(graph));
    if (inputs.empty() && outputs.empty()) return false;

    int opset = kCastOpset;
    if (auto it = graph.opsets().find(""); it != graph.opsets().end()) {
      opset = std::max(opset, it->second);
    }
    std::set<std::string> node_names;
    for (const auto& n : graph.nodes()) node_names.insert(n->name());

    for (ir::Value* in : inputs) {
      const ir::TensorType declared = in->type();
      ir::Value* cast = graph.AddUniqueValue(in->name() + "_kiln_cast", declared);
      RedirectReaders(graph, in, cast);
      in->type().dtype = ir::DataType::kFloat16;
      KILN_ASSIGN_OR_RETURN(ir::Node * node,
                            AddCast(graph, node_names, in->name(), in, cast, opset));
      // First in node order, where every reader of the input finds it.
      graph.nodes().splice(graph.nodes().begin(), graph.nodes(), std::prev(graph.nodes().end()));
      ctx.log.push_back(StrCat(name(), ": input '", in->name(), "' is float16, ", node->Label(),
                               " restores ", ir::Name(declared.dtype)));
    }
    for (const auto& [out, dtype] : outputs) {
      const ir::DataType from = out->dtype();
      ir::Value* pre = graph.AddUniqueValue(out->name() + "_kiln_pre_cast", out->type());
      if (ir::Node* producer = out->producer()) {
        KILN_RETURN_IF_ERROR(RebuildWithOutput(graph, producer, out, pre),
                             StrCat("while retyping output '", out->name(), "'"));
      } else {
        // A constant output: the data moves to `pre` and the Cast computes `out` from it.
        pre->set_constant(*out->constant());
        out->clear_constant();
      }
      RedirectReaders(graph, out, pre);
      out->type().dtype = dtype;
      // Last in node order, after `pre` is computed.
      KILN_ASSIGN_OR_RETURN(ir::Node * node,
                            AddCast(graph, node_names, out->name(), pre, out, opset));
      ctx.log.push_back(StrCat(name(), ": output '", out->name(), "' ", ir::Name(from), " -> ",
                               ir::Name(dtype), " by ", node->Label()));
    }
    return true;
  }

 private:
  // Adds Cast(in) -> out, to out's type, named "<edge>_kiln_cast" after the graph input or
  // output it serves (with a suffix when the model already has a node of that name).
  static Result<ir::Node*> AddCast(ir::Graph& graph, std::set<std::string>& node_names,
                                   const std::string& edge, ir::Value* in, ir::Value* out,
                                   int opset) {
    std::string node_name = edge + "_kiln_cast";
    for (int i = 1; node_names.count(node_name); ++i) {
      node_name = StrCat(edge, "_kiln_cast_", i);
    }
    node_names.insert(node_name);
    // Added unnamed, then named: the Cast is Kiln's, so no ONNX name is its origin.
    KILN_ASSIGN_OR_RETURN(ir::Node * node, graph.AddNode("Cast", "", "", opset, {in}, {out}));
    node->set_name(node_name);
    node->set_attr("to", static_cast<int64_t>(out->dtype()));
    return node;
  }

  // The --input_fp16_nodes inputs that are not float16 yet, each once.
  Result<std::vector<ir::Value*>> Fp16Inputs(const ir::Graph& graph) const {
    std::vector<ir::Value*> found;
    for (const std::string& input_name : options_.fp16_inputs) {
      auto it = std::find_if(graph.inputs().begin(), graph.inputs().end(),
                             [&](const ir::Value* v) { return v->name() == input_name; });
      if (it == graph.inputs().end()) {
        return Error(code::kInvalidParam, "--input_fp16_nodes names '", input_name,
                     "', which is not an input of the model; its inputs are: ",
                     JoinValueNames(graph.inputs()));
      }
      ir::Value* in = *it;
      if (in->constant() != nullptr) {
        return Error(code::kInvalidParam, "--input_fp16_nodes names '", input_name,
                     "', an initializer the model lists as an input; only inputs the "
                     "application passes can be float16");
      }
      if (in->dtype() == ir::DataType::kFloat16 || Contains(found, in)) continue;
      if (!ir::IsFloat(in->dtype())) {
        return Error(code::kInvalidParam, "--input_fp16_nodes names '", input_name,
                     "', an input of type ", ir::Name(in->dtype()),
                     "; only float inputs (float32, float64, bfloat16) can be passed as "
                     "float16");
      }
      if (pattern::IsCapturedBySubgraph(graph, in)) {
        return Error(code::kFeatureUnsupported, "--input_fp16_nodes names '", input_name,
                     "', which a subgraph (If/Loop/Scan body) reads by name; Kiln cannot "
                     "retype such an input");
      }
      found.push_back(in);
    }
    return found;
  }

  // The graph outputs to retype, in output order, with their new types.
  Result<std::vector<std::pair<ir::Value*, ir::DataType>>> OutputCasts(
      const ir::Graph& graph) const {
    std::map<const ir::Value*, std::pair<ir::DataType, std::string>> wanted;  // -> type, entry
    for (const auto& [entry, type_name] : options_.per_output) {
      KILN_ASSIGN_OR_RETURN(ir::DataType dtype,
                            ParseAtcType(type_name, StrCat("--output_type entry '", entry, "'")));
      KILN_ASSIGN_OR_RETURN(ir::Value * v, ResolveOutputEntry(graph, entry, "--output_type"));
      if (!Contains(graph.outputs(), v)) {
        return Error(code::kInvalidParam, "--output_type entry '", entry, "' names tensor '",
                     v->name(), "', which is not an output of the model; its outputs are: ",
                     JoinValueNames(graph.outputs()), " (select it with --out_nodes)");
      }
      auto [it, fresh] = wanted.emplace(v, std::make_pair(dtype, entry));
      if (!fresh && it->second.first != dtype) {
        return Error(code::kInvalidParam, "--output_type entries '", it->second.second, "' and '",
                     entry, "' give output '", v->name(), "' two types");
      }
    }
    if (!options_.all_outputs.empty()) {
      KILN_ASSIGN_OR_RETURN(ir::DataType dtype,
                            ParseAtcType(options_.all_outputs, "--output_type"));
      for (const ir::Value* v : graph.outputs()) {
        wanted.emplace(v, std::make_pair(dtype, options_.all_outputs));
      }
    }
    std::vector<std::pair<ir::Value*, ir::DataType>> casts;
    for (ir::Value* v : graph.outputs()) {
      auto it = wanted.find(v);
      if (it == wanted.end() || it->second.first == v->dtype()) continue;
      if (std::any_of(casts.begin(), casts.end(), [&](const auto& c) { return c.first == v; })) {
        continue;  // listed twice as a graph output
      }
      const std::string& why = it->second.second;
      if (v->dtype() == ir::DataType::kUndefined) {
        return Error(code::kInvalidParam, "--output_type '", why, "': the type of output '",
                     v->name(), "' is not known yet; io_dtype must run after shape inference");
      }
      if (Contains(graph.inputs(), v)) {
        return Error(code::kInvalidParam, "--output_type '", why, "': output '", v->name(),
                     "' is the model input itself, whose name a Cast cannot take over; select "
                     "another output");
      }
      if (v->producer() == nullptr && v->constant() == nullptr) {
        return Error(code::kInvalidParam, "--output_type '", why, "': output '", v->name(),
                     "' is not computed by any node");
      }
      if (pattern::IsCapturedBySubgraph(graph, v)) {
        return Error(code::kFeatureUnsupported, "--output_type '", why, "': output '", v->name(),
                     "' is also read by name inside a subgraph (If/Loop/Scan body), which a "
                     "retyped output would change; Kiln cannot retype it");
      }
      casts.emplace_back(v, it->second.first);
    }
    return casts;
  }

  IoDtypeOptions options_;
};

}  // namespace

Result<IoDtypeOptions> ParseIoDtypeFlags(const std::string& output_type,
                                         const std::string& input_fp16_nodes) {
  IoDtypeOptions options;
  const std::string all = Trim(output_type);
  if (all.find(':') == std::string::npos) {
    if (!all.empty()) {
      KILN_ASSIGN_OR_RETURN(ir::DataType dtype, ParseAtcType(all, "--output_type"));
      (void)dtype;
      options.all_outputs = all;
    }
  } else {
    for (const std::string& entry : SplitEntries(all)) {
      const size_t colon = entry.rfind(':');
      if (colon == std::string::npos) {
        return Error(code::kInvalidParam, "--output_type entry '", entry,
                     "' has no target; give one type for every output (--output_type=FP16) or "
                     "\"node:index:TYPE\" entries (--output_type=\"prob:0:FP16;prob:1:FP32\"), "
                     "not both");
      }
      const std::string target = Trim(entry.substr(0, colon));
      const std::string type_name = Trim(entry.substr(colon + 1));
      if (target.empty()) {
        return Error(code::kInvalidParam, "--output_type entry '", entry,
                     "' has no target before the type; write \"node:index:TYPE\"");
      }
      KILN_ASSIGN_OR_RETURN(ir::DataType dtype,
                            ParseAtcType(type_name, StrCat("--output_type entry '", entry, "'")));
      (void)dtype;
      options.per_output.emplace_back(target, type_name);
    }
  }
  options.fp16_inputs = SplitEntries(input_fp16_nodes);
  return options;
}

std::unique_ptr<Pass> CreateIoDtypePass(IoDtypeOptions options) {
  return std::make_unique<IoDtype>(std::move(options));
}

}  // namespace kiln::compiler
