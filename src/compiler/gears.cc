// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "compiler/gears.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>

#include "compiler/compile.h"
#include "compiler/evaluate.h"

namespace kiln::compiler {
namespace {

// Shape arithmetic evaluated per gear stays below this (a Shape → Gather → Concat chain is a
// few dozen bytes); larger results are left to inference.
constexpr size_t kMaxEvaluatedBytes = size_t{64} << 10;

// Re-planning the shared layout after dropping an in-place pairing that is not valid in every
// gear; each round drops at least one, so this bounds nothing a real model reaches.
constexpr int kMaxSharedPlanRounds = 64;

// The gears share one layout, sized for each value's largest shape: a Concat input's place in
// its output would move with the sizes of the inputs before it, so none is planned in place.
const PlanOptions kOneShapePerValue{/*concat_in_place=*/false};

std::string Trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t");
  return s.substr(b, e - b + 1);
}

std::vector<std::string> Split(const std::string& s, char sep) {
  std::vector<std::string> parts;
  size_t pos = 0;
  while (true) {
    size_t end = s.find(sep, pos);
    parts.push_back(s.substr(pos, end == std::string::npos ? std::string::npos : end - pos));
    if (end == std::string::npos) break;
    pos = end + 1;
  }
  return parts;
}

// "--dynamic_batch_size=\"1,2,4\"" for messages.
std::string FlagText(GearKind kind, const std::string& value) {
  return StrCat(GearFlagName(kind), "=\"", value, "\"");
}

// One --input_shape item, in the order given.
struct ShapeItem {
  std::string text;  // "x:-1,3,224,224"
  std::string name;
  std::vector<int64_t> dims;
  bool has_range = false;
};

Result<std::vector<ShapeItem>> ParseOrderedInputShape(const std::string& text) {
  std::vector<ShapeItem> items;
  for (const std::string& raw : Split(text, ';')) {
    if (raw.empty()) continue;
    // ParseInputShape checks the item; the order and the ranges are kept here.
    KILN_ASSIGN_OR_RETURN(auto one, ParseInputShape(raw));
    if (one.size() != 1) continue;
    ShapeItem item;
    item.text = raw;
    item.name = one.begin()->first;
    item.dims = one.begin()->second;
    item.has_range = raw.substr(raw.rfind(':') + 1).find('~') != std::string::npos;
    for (const ShapeItem& earlier : items) {
      if (earlier.name == item.name) {
        return Error(code::kInvalidParam, "--input_shape names input '", item.name, "' twice ('",
                     earlier.text, "' and '", raw, "')");
      }
    }
    items.push_back(std::move(item));
  }
  return items;
}

// A positive gear value.
Result<int64_t> ParseValue(GearKind kind, const std::string& flag_value, const std::string& text) {
  std::string t = Trim(text);
  errno = 0;
  char* stop = nullptr;
  long long v = std::strtoll(t.c_str(), &stop, 10);
  if (t.empty() || *stop != '\0' || errno == ERANGE || v <= 0) {
    return Error(code::kInvalidParam, FlagText(kind, flag_value), ": '", t,
                 "' is not a positive integer");
  }
  return static_cast<int64_t>(v);
}

Status CheckGearCount(GearKind kind, const std::string& value,
                      const std::vector<std::vector<int64_t>>& gears) {
  if (gears.size() < kMinGears || gears.size() > kMaxGears) {
    return Error(code::kInvalidParam, FlagText(kind, value), " gives ", gears.size(),
                 " gear(s); give ", kMinGears, " to ", kMaxGears);
  }
  std::set<std::vector<int64_t>> seen;
  for (const auto& g : gears) {
    if (!seen.insert(g).second) {
      return Error(code::kInvalidParam, FlagText(kind, value), ": gear '", GearLabel(g),
                   "' is given twice; every gear must be distinct");
    }
  }
  return Status::Ok();
}

// Gears of `width` values each, separated by ';' (--dynamic_image_size, --dynamic_dims).
Result<std::vector<std::vector<int64_t>>> ParseGearRows(GearKind kind, const std::string& value,
                                                        size_t width) {
  std::vector<std::vector<int64_t>> gears;
  for (const std::string& raw : Split(value, ';')) {
    std::string row = Trim(raw);
    if (row.empty()) continue;
    std::vector<int64_t> values;
    for (const std::string& v : Split(row, ',')) {
      KILN_ASSIGN_OR_RETURN(int64_t x, ParseValue(kind, value, v));
      values.push_back(x);
    }
    if (values.size() != width) {
      return Error(
          code::kInvalidParam, FlagText(kind, value), ": gear '", row, "' has ", values.size(),
          " value(s); each gear needs ", width,
          kind == GearKind::kImageSize ? " (height,width)" : " (one per -1 in --input_shape)");
    }
    gears.push_back(std::move(values));
  }
  KILN_RETURN_IF_ERROR(CheckGearCount(kind, value, gears), "");
  return gears;
}

Result<std::vector<std::vector<int64_t>>> ParseBatchGears(const std::string& value) {
  std::vector<std::vector<int64_t>> gears;
  for (const std::string& v : Split(value, ',')) {
    KILN_ASSIGN_OR_RETURN(int64_t x, ParseValue(GearKind::kBatch, value, v));
    gears.push_back({x});
  }
  KILN_RETURN_IF_ERROR(CheckGearCount(GearKind::kBatch, value, gears), "");
  return gears;
}

std::string DynamicDimsList(const std::vector<int64_t>& dims) {
  std::string s;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] != -1) continue;
    if (!s.empty()) s += ",";
    s += std::to_string(i);
  }
  return s;
}

// Restores the types (and drops the temporary constants) of a graph on every exit path.
class TypeSnapshot {
 public:
  explicit TypeSnapshot(ir::Graph& graph) {
    for (const auto& v : graph.values()) saved_.emplace_back(v.get(), v->type());
  }
  ~TypeSnapshot() { Restore(); }
  void Restore() {
    for (ir::Value* v : temporary_) v->clear_constant();
    temporary_.clear();
    for (auto& [v, type] : saved_) v->type() = type;
  }
  void AddTemporary(ir::Value* v) { temporary_.push_back(v); }
  // Drops the temporary constants, keeping the types they gave their values.
  void ClearTemporaries() {
    for (ir::Value* v : temporary_) v->clear_constant();
    temporary_.clear();
  }
  const std::vector<std::pair<ir::Value*, ir::TensorType>>& saved() const { return saved_; }

 private:
  std::vector<std::pair<ir::Value*, ir::TensorType>> saved_;
  std::vector<ir::Value*> temporary_;
};

}  // namespace

const char* GearFlagName(GearKind kind) {
  switch (kind) {
    case GearKind::kBatch:
      return "--dynamic_batch_size";
    case GearKind::kImageSize:
      return "--dynamic_image_size";
    case GearKind::kDims:
      return "--dynamic_dims";
    case GearKind::kNone:
      break;
  }
  return "";
}

std::string GearLabel(const std::vector<int64_t>& values) {
  std::string s;
  for (size_t i = 0; i < values.size(); ++i) {
    if (i) s += ",";
    s += std::to_string(values[i]);
  }
  return s;
}

std::vector<std::string> GearConfig::SlotNames() const {
  std::vector<std::string> names;
  for (const auto& targets : slots) {
    std::string s;
    for (const GearTarget& t : targets) {
      if (!s.empty()) s += ";";
      s += StrCat(t.input, ":", t.dim);
    }
    names.push_back(s);
  }
  return names;
}

Result<GearConfig> ParseGears(const GearFlags& flags) {
  GearConfig config;
  std::vector<std::pair<GearKind, const std::string*>> given;
  for (auto [kind, value] : {std::pair{GearKind::kBatch, &flags.dynamic_batch_size},
                             {GearKind::kImageSize, &flags.dynamic_image_size},
                             {GearKind::kDims, &flags.dynamic_dims}}) {
    if (!value->empty()) given.emplace_back(kind, value);
  }
  if (given.empty()) return config;
  if (given.size() > 1) {
    return Error(code::kInvalidParam, FlagText(given[0].first, *given[0].second), " and ",
                 FlagText(given[1].first, *given[1].second),
                 " are mutually exclusive; give only one of --dynamic_batch_size, "
                 "--dynamic_image_size and --dynamic_dims");
  }
  const GearKind kind = given[0].first;
  const std::string& value = *given[0].second;
  const std::string flag = FlagText(kind, value);
  config.kind = kind;
  config.text = value;

  static const char* kExample[] = {"", "x:-1,3,224,224", "x:1,3,-1,-1", "x:-1,-1"};
  if (flags.input_shape.empty()) {
    return Error(code::kInvalidParam, flag,
                 " needs --input_shape with -1 where the gears go (e.g. ", "--input_shape=\"",
                 kExample[static_cast<int>(kind)], "\")");
  }
  KILN_ASSIGN_OR_RETURN(std::vector<ShapeItem> items, ParseOrderedInputShape(flags.input_shape));
  for (const ShapeItem& item : items) {
    if (item.has_range) {
      return Error(code::kInvalidParam, flag,
                   " cannot be combined with a shape range (a~b): ", "--input_shape item '",
                   item.text, "'; use -1 there, or drop ", GearFlagName(kind));
    }
  }

  switch (kind) {
    case GearKind::kBatch: {
      std::vector<GearTarget> targets;
      for (const ShapeItem& item : items) {
        for (size_t d = 1; d < item.dims.size(); ++d) {
          if (item.dims[d] == -1) {
            return Error(code::kInvalidParam, flag, ": --input_shape item '", item.text,
                         "' has -1 at dim ", d, "; with --dynamic_batch_size only the first ",
                         "(batch) dim of an input may be -1");
          }
        }
        if (!item.dims.empty() && item.dims[0] == -1) targets.push_back({item.name, 0});
      }
      if (targets.empty()) {
        return Error(code::kInvalidParam, flag, " needs -1 as the first dim of at least one ",
                     "input in --input_shape=\"", flags.input_shape, "\" (e.g. ", kExample[1], ")");
      }
      config.slots.push_back(std::move(targets));
      KILN_ASSIGN_OR_RETURN(config.gears, ParseBatchGears(value));
      break;
    }
    case GearKind::kImageSize: {
      size_t h = 2, w = 3;
      if (flags.input_format == "NHWC") {
        h = 1;
        w = 2;
      } else if (!flags.input_format.empty() && flags.input_format != "NCHW") {
        return Error(code::kInvalidParam, flag, " needs --input_format NCHW or NHWC, not '",
                     flags.input_format, "'");
      }
      const char* layout = h == 1 ? "NHWC" : "NCHW";
      std::vector<GearTarget> heights, widths;
      for (const ShapeItem& item : items) {
        if (std::find(item.dims.begin(), item.dims.end(), -1) == item.dims.end()) continue;
        bool ok = item.dims.size() == 4;
        for (size_t d = 0; ok && d < 4; ++d) ok = (item.dims[d] == -1) == (d == h || d == w);
        if (!ok) {
          return Error(code::kInvalidParam, flag, ": --input_shape item '", item.text,
                       "' must be 4-D with -1 at H and W (dims ", h, " and ", w, " for ", layout,
                       ") and nowhere else; it has -1 at dim(s) ", DynamicDimsList(item.dims));
        }
        heights.push_back({item.name, h});
        widths.push_back({item.name, w});
      }
      if (heights.empty()) {
        return Error(code::kInvalidParam, flag, " needs -1 at H and W of at least one input in ",
                     "--input_shape=\"", flags.input_shape, "\" (", layout, ", e.g. ",
                     h == 1 ? "x:1,-1,-1,3" : kExample[2], ")");
      }
      config.slots.push_back(std::move(heights));
      config.slots.push_back(std::move(widths));
      KILN_ASSIGN_OR_RETURN(config.gears, ParseGearRows(kind, value, 2));
      break;
    }
    case GearKind::kDims: {
      if (!flags.input_format.empty() && flags.input_format != "ND") {
        return Error(code::kInvalidParam, flag, " needs --input_format ND (or none), not '",
                     flags.input_format, "'");
      }
      for (const ShapeItem& item : items) {
        for (size_t d = 0; d < item.dims.size(); ++d) {
          if (item.dims[d] == -1) config.slots.push_back({{item.name, d}});
        }
      }
      if (config.slots.empty()) {
        return Error(code::kInvalidParam, flag, " needs at least one -1 in --input_shape=\"",
                     flags.input_shape, "\" (e.g. ", kExample[3], ")");
      }
      KILN_ASSIGN_OR_RETURN(config.gears, ParseGearRows(kind, value, config.slots.size()));
      break;
    }
    case GearKind::kNone:
      break;
  }
  return config;
}

Result<GearPlans> PlanGears(ir::Graph& graph, const GearConfig& config,
                            const ir::OpRegistry& registry) {
  GearPlans plans;
  if (!config.enabled()) return plans;
  const std::string flag = FlagText(config.kind, config.text);
  // Where each slot's targets are in the graph.
  std::vector<std::vector<std::pair<ir::Value*, size_t>>> slots;
  for (const auto& targets : config.slots) {
    std::vector<std::pair<ir::Value*, size_t>> bound;
    for (const GearTarget& t : targets) {
      auto it = std::find_if(graph.inputs().begin(), graph.inputs().end(),
                             [&](const ir::Value* v) { return v->name() == t.input; });
      if (it == graph.inputs().end()) {
        return Error(code::kInvalidParam, flag, ": '", t.input, "' is not an input of the model");
      }
      const ir::Shape& shape = (*it)->shape();
      if (!shape.rank_known() || t.dim >= shape.rank() || shape[t.dim].known()) {
        return Error(code::kInvalidParam, flag, ": input '", t.input, "' ", shape.ToString(),
                     " has no dynamic dim ", t.dim, " for the gears to set");
      }
      bound.emplace_back(*it, t.dim);
    }
    slots.push_back(std::move(bound));
  }
  if (config.gears.empty() || config.gears.front().size() != slots.size()) {
    return Error(code::kInvalidParam, flag, ": each gear needs ", slots.size(), " value(s)");
  }

  TypeSnapshot snapshot(graph);
  const auto& saved = snapshot.saved();
  // Per gear, the bytes of every value of `saved` (nullopt: unknown in that gear).
  std::vector<std::vector<std::optional<uint64_t>>> gear_bytes;
  // Per value of `saved`, the shape of the gear where it is largest.
  std::vector<std::optional<ir::Shape>> largest(saved.size());
  std::vector<bool> unknown_somewhere(saved.size(), false);
  for (const auto& values : config.gears) {
    const std::string label = StrCat("gear '", GearLabel(values), "' of ", flag);
    if (values.size() != slots.size()) {
      return Error(code::kInvalidParam, label, " has ", values.size(), " value(s); it needs ",
                   slots.size());
    }
    for (size_t s = 0; s < slots.size(); ++s) {
      for (auto& [input, dim] : slots[s]) input->type().shape[dim] = ir::Dim::Known(values[s]);
    }
    for (const ir::Value* input : graph.inputs()) {
      if (!input->shape().IsStatic()) {
        return Error(code::kInvalidParam, label, ": input '", input->name(), "' ",
                     input->shape().ToString(), " still has dynamic dims that no gear sets; give ",
                     "its shape in --input_shape");
      }
    }
    // Same nodes as the dynamic graph: shape arithmetic (Shape, Gather, Concat, ...) is
    // evaluated into temporary constants so that the shapes it computes become known.
    for (auto& node : graph.nodes()) {
      auto results = EvaluateNode(*node, kMaxEvaluatedBytes);
      if (results) {
        for (size_t i = 0; i < node->outputs().size(); ++i) {
          ir::Value* out = node->output(i);
          if (out == nullptr || out->constant() != nullptr) continue;
          out->set_constant(std::move((*results)[i]));
          snapshot.AddTemporary(out);
        }
        continue;
      }
      Status st = ir::InferNode(registry, *node);
      if (!st.ok()) return std::move(st).Annotate(label + " does not compile");
    }
    snapshot.ClearTemporaries();
    KILN_ASSIGN_OR_RETURN(MemoryPlan plan, PlanMemory(graph, kOneShapePerValue));
    GearResult result;
    result.values = values;
    result.work_size = plan.work_size;
    result.naive_size = plan.naive_size;
    std::vector<std::optional<uint64_t>> bytes(saved.size());
    for (size_t i = 0; i < saved.size(); ++i) {
      const ir::Value* v = saved[i].first;
      bytes[i] = BytesOf(*v);
      if (v->constant() != nullptr) continue;
      if (!bytes[i]) unknown_somewhere[i] = true;
      if (v->shape() == saved[i].second.shape) continue;
      if (v->shape().rank_known()) result.dims.emplace_back(v, v->shape().Sizes());
      if (bytes[i]) {
        uint64_t& max = plans.max_bytes[v];
        if (!largest[i] || *bytes[i] > max) largest[i] = v->shape();
        max = std::max(max, *bytes[i]);
      }
    }
    gear_bytes.push_back(std::move(bytes));
    plans.gears.push_back(std::move(result));
    snapshot.Restore();
  }

  // The shared layout: every value that varies takes its largest gear's shape. An in-place
  // pairing is kept only when the input and output have the same size in every gear;
  // otherwise the output is planned a few elements larger, which the planner never pairs.
  std::unordered_map<const ir::Value*, size_t> slot_of;
  for (size_t i = 0; i < saved.size(); ++i) slot_of[saved[i].first] = i;
  std::map<size_t, int64_t> extra;  // value slot -> elements added to keep it unpaired
  for (int round = 0;; ++round) {
    for (size_t i = 0; i < saved.size(); ++i) {
      ir::Value* v = saved[i].first;
      if (!largest[i] || unknown_somewhere[i]) continue;
      auto it = extra.find(i);
      v->type().shape = it == extra.end()
                            ? *largest[i]
                            : ir::Shape::Of({*largest[i]->NumElements() + it->second});
    }
    KILN_ASSIGN_OR_RETURN(plans.shared, PlanMemory(graph, kOneShapePerValue));
    snapshot.Restore();
    bool changed = false;
    for (auto& [v, placement] : plans.shared.activations) {
      if (placement.alias_of == nullptr || v->producer() == nullptr) continue;
      auto vi = slot_of.find(v);
      auto ii = slot_of.find(v->producer()->input(0));
      if (vi == slot_of.end() || ii == slot_of.end()) continue;
      for (const auto& bytes : gear_bytes) {
        if (bytes[vi->second] != bytes[ii->second]) {
          ++extra[vi->second];
          changed = true;
          break;
        }
      }
    }
    if (!changed) break;
    if (round + 1 >= kMaxSharedPlanRounds) {
      return Error(code::kInternalError, flag, ": no shared memory layout fits every gear");
    }
  }
  // The extra elements are planning slack, not the value's size.
  for (const auto& [i, n] : extra) {
    auto it = plans.shared.activations.find(saved[i].first);
    if (it != plans.shared.activations.end() && it->second.alias_of == nullptr) {
      it->second.bytes =
          (plans.max_bytes[saved[i].first] + kPlanAlignment - 1) / kPlanAlignment * kPlanAlignment;
    }
  }
  return plans;
}

}  // namespace kiln::compiler
