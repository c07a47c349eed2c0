// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "compiler/om_builder.h"

#include <algorithm>
#include <cstring>
#include <unordered_map>
#include <unordered_set>

#include "format/om_file.h"
#include "format/om_generated.h"
#include "kiln/base/version.h"

namespace kiln::compiler {
namespace {

namespace fb = flatbuffers;

uint64_t AlignUp(uint64_t v) { return (v + 63) / 64 * 64; }

static_assert(static_cast<int>(om::GearKind::Batch) == static_cast<int>(GearKind::kBatch) &&
                  static_cast<int>(om::GearKind::ImageSize) ==
                      static_cast<int>(GearKind::kImageSize) &&
                  static_cast<int>(om::GearKind::Dims) == static_cast<int>(GearKind::kDims),
              "compiler::GearKind mirrors om::GearKind");

class Builder {
 public:
  Builder(const MemoryPlan& plan, const OmBuildInfo& info) : plan_(plan), info_(info) {}

  fb::FlatBufferBuilder& fbb() { return fbb_; }
  std::vector<uint8_t>& weights() { return weights_; }

  // Adds `graph` and returns its index in Model.graphs: 0 for the main graph, 1.. for the
  // If/Loop bodies in the order they finish (nested bodies before their parents).
  Result<int> AddGraph(const ir::Graph& graph, bool is_main) {
    std::unordered_map<const ir::Value*, int> index;
    std::vector<fb::Offset<om::TensorDesc>> tensors;
    std::vector<fb::Offset<om::Node>> nodes;
    std::unordered_set<const ir::Value*> inputs(graph.inputs().begin(), graph.inputs().end());
    std::unordered_set<const ir::Value*> outputs(graph.outputs().begin(), graph.outputs().end());
    auto tensor_of = [&](const ir::Value* v) -> int {
      if (v == nullptr) return -1;
      auto it = index.find(v);
      if (it != index.end()) return it->second;
      int id = static_cast<int>(tensors.size());
      index[v] = id;
      tensors.push_back(Desc(*v, inputs.count(v) != 0, outputs.count(v) != 0, index));
      return id;
    };
    for (const ir::Value* v : graph.inputs()) tensor_of(v);
    for (const auto& n : graph.nodes()) {
      std::vector<int32_t> ins, outs;
      for (const ir::Value* v : n->inputs()) ins.push_back(tensor_of(v));
      for (const ir::Value* v : n->outputs()) outs.push_back(tensor_of(v));
      std::vector<fb::Offset<om::Attr>> attrs;
      for (const auto& [name, attr] : n->attrs()) {
        KILN_ASSIGN_OR_RETURN(auto a, Attr(name, attr, tensors, n->Label()));
        attrs.push_back(a);
      }
      std::vector<fb::Offset<fb::String>> origins;
      for (const auto& o : n->origins()) origins.push_back(fbb_.CreateString(o));
      nodes.push_back(om::CreateNodeDirect(fbb_, n->op_type().c_str(), n->domain().c_str(),
                                           n->name().c_str(), &origins, &ins, &outs, &attrs,
                                           n->opset()));
    }
    // Values only a body reads (an initializer or folded constant used inside an If branch):
    // the body finds them by name, so this graph must list them.
    for (const std::string& name : ir::CapturedNames(graph)) {
      if (const ir::Value* v = graph.FindValue(name)) tensor_of(v);
    }
    std::vector<int32_t> g_in, g_out;
    for (const ir::Value* v : graph.inputs()) g_in.push_back(tensor_of(v));
    for (const ir::Value* v : graph.outputs()) g_out.push_back(tensor_of(v));
    if (is_main && info_.gear_kind != GearKind::kNone) {
      // The gear selector CANN adds: int64[values per gear], the last model input.
      std::vector<int64_t> dims{static_cast<int64_t>(info_.gear_dims.size())};
      g_in.push_back(static_cast<int32_t>(tensors.size()));
      tensors.push_back(om::CreateTensorDescDirect(
          fbb_, kGearInputName, static_cast<int32_t>(ir::DataType::kInt64), &dims, nullptr, 2,
          om::TensorKind::Gear, 0, info_.gear_dims.size() * sizeof(int64_t)));
    }
    if (is_main) main_index_ = index;
    auto built = om::CreateGraphDirect(fbb_, graph.name().c_str(), &tensors, &nodes, &g_in, &g_out);
    if (is_main) {
      main_ = built;
      return 0;
    }
    int slot = static_cast<int>(subgraphs_.size()) + 1;
    subgraphs_.push_back(built);
    return slot;
  }

  // Tensor indices of the main graph's values (after AddGraph of the main graph).
  const std::unordered_map<const ir::Value*, int>& main_index() const { return main_index_; }

  // Model.graphs: the main graph, then the bodies.
  std::vector<fb::Offset<om::Graph>> graphs() const {
    std::vector<fb::Offset<om::Graph>> all{main_};
    all.insert(all.end(), subgraphs_.begin(), subgraphs_.end());
    return all;
  }

 private:
  fb::Offset<om::TensorDesc> Desc(const ir::Value& v, bool is_input, bool is_output,
                                  const std::unordered_map<const ir::Value*, int>& index) {
    std::vector<int64_t> dims;
    std::vector<fb::Offset<fb::String>> symbols;
    bool any_symbol = false;
    for (const ir::Dim& d : v.shape().dims()) {
      dims.push_back(d.value);
      any_symbol |= !d.symbol.empty();
    }
    if (any_symbol) {
      for (const ir::Dim& d : v.shape().dims()) symbols.push_back(fbb_.CreateString(d.symbol));
    }
    om::TensorKind kind = om::TensorKind::Activation;
    uint64_t offset = 0, bytes = 0;
    int alias = -1;
    if (const ir::Tensor* t = v.constant()) {
      kind = om::TensorKind::Constant;
      offset = AppendWeights(v, *t);
      bytes = t->bytes();
    } else if (is_input) {
      kind = om::TensorKind::Input;
    } else if (is_output) {
      kind = om::TensorKind::Output;
    } else if (auto it = plan_.activations.find(&v); it != plan_.activations.end()) {
      offset = it->second.dynamic ? UINT64_MAX : it->second.offset;
      bytes = it->second.bytes;
      if (it->second.alias_of) {
        auto a = index.find(it->second.alias_of);
        alias = a == index.end() ? -1 : a->second;
      }
    }
    if (bytes == 0 && kind != om::TensorKind::Constant) {
      auto n = v.shape().NumElements();
      if (n) bytes = ir::StorageBytes(v.dtype(), static_cast<uint64_t>(*n));
    }
    if (bytes == 0 && kind != om::TensorKind::Constant) {
      auto it = info_.max_bytes.find(&v);  // a dynamic tensor: its largest gear's size
      if (it != info_.max_bytes.end()) bytes = it->second;
    }
    constexpr int32_t kFormatNd = 2, kFormatNhwc = 1;  // aclFormat
    const int32_t format = is_input && info_.nhwc_inputs.count(v.name()) ? kFormatNhwc : kFormatNd;
    return om::CreateTensorDescDirect(fbb_, v.name().c_str(), static_cast<int32_t>(v.dtype()),
                                      &dims, any_symbol ? &symbols : nullptr, format, kind, offset,
                                      bytes, alias, !v.shape().rank_known());
  }

  // Constants use the planned weights offset when the plan has one (main graph), else append.
  uint64_t AppendWeights(const ir::Value& v, const ir::Tensor& t) {
    auto it = plan_.weights.find(&v);
    uint64_t offset;
    if (it != plan_.weights.end()) {
      offset = it->second.offset;
    } else {
      offset = AlignUp(std::max<uint64_t>(weights_.size(), plan_.weight_size));
    }
    if (weights_.size() < offset + t.bytes()) weights_.resize(AlignUp(offset + t.bytes()), 0);
    if (t.bytes()) std::memcpy(weights_.data() + offset, t.raw(), t.bytes());
    return offset;
  }

  Result<fb::Offset<om::Attr>> Attr(const std::string& name, const ir::Attribute& a,
                                    std::vector<fb::Offset<om::TensorDesc>>& tensors,
                                    const std::string& node) {
    auto n = fbb_.CreateString(name);
    if (auto* v = std::get_if<int64_t>(&a)) return om::CreateAttr(fbb_, n, om::AttrType::Int, *v);
    if (auto* v = std::get_if<float>(&a)) {
      return om::CreateAttr(fbb_, n, om::AttrType::Float, 0, *v);
    }
    if (auto* v = std::get_if<std::string>(&a)) {
      return om::CreateAttr(fbb_, n, om::AttrType::String, 0, 0, fbb_.CreateString(*v));
    }
    if (auto* v = std::get_if<std::vector<int64_t>>(&a)) {
      return om::CreateAttr(fbb_, n, om::AttrType::Ints, 0, 0, 0, fbb_.CreateVector(*v));
    }
    if (auto* v = std::get_if<std::vector<float>>(&a)) {
      return om::CreateAttr(fbb_, n, om::AttrType::Floats, 0, 0, 0, 0, fbb_.CreateVector(*v));
    }
    if (auto* v = std::get_if<std::vector<std::string>>(&a)) {
      return om::CreateAttr(fbb_, n, om::AttrType::Strings, 0, 0, 0, 0, 0,
                            fbb_.CreateVectorOfStrings(*v));
    }
    if (auto* v = std::get_if<ir::Tensor>(&a)) {
      // Stored as an anonymous constant tensor of the enclosing graph.
      ir::Value holder("", {});
      holder.set_constant(*v);
      int id = static_cast<int>(tensors.size());
      tensors.push_back(Desc(holder, false, false, {}));
      return om::CreateAttr(fbb_, n, om::AttrType::Tensor, 0, 0, 0, 0, 0, 0, id);
    }
    if (auto* v = std::get_if<std::shared_ptr<ir::Graph>>(&a)) {
      if (!*v) return Error(code::kInvalidParam, node, ": graph attribute '", name, "' is empty");
      // Bodies are numbered as they finish (nested ones first); the attribute keeps its own.
      KILN_ASSIGN_OR_RETURN(int g, AddGraph(**v, false));
      return om::CreateAttr(fbb_, n, om::AttrType::Graph, 0, 0, 0, 0, 0, 0, -1, g);
    }
    return Error(code::kInvalidParam, node, ": attribute '", name, "' has no .om encoding");
  }

  const MemoryPlan& plan_;
  const OmBuildInfo& info_;
  std::unordered_map<const ir::Value*, int> main_index_;
  fb::FlatBufferBuilder fbb_{1 << 16};
  std::vector<uint8_t> weights_;
  fb::Offset<om::Graph> main_;
  std::vector<fb::Offset<om::Graph>> subgraphs_;
};

}  // namespace

Result<std::vector<uint8_t>> BuildOm(const ir::Graph& graph, const MemoryPlan& plan,
                                     const OmBuildInfo& info) {
  Builder b(plan, info);
  b.weights().resize(plan.weight_size, 0);
  KILN_RETURN_IF_ERROR(b.AddGraph(graph, true).status(), "");
  auto graphs = b.graphs();
  auto& fbb = b.fbb();
  auto kv = [&](const std::vector<std::pair<std::string, std::string>>& items) {
    std::vector<fb::Offset<om::KeyValue>> out;
    for (const auto& [k, v] : items)
      out.push_back(om::CreateKeyValueDirect(fbb, k.c_str(), v.c_str()));
    return out;
  };
  auto options = kv(info.options);
  auto aipp = kv(info.aipp);
  std::vector<fb::Offset<fb::String>> gear_dims;
  std::vector<fb::Offset<om::GearPlan>> gears;
  if (info.gear_kind != GearKind::kNone) {
    for (const auto& d : info.gear_dims) gear_dims.push_back(fbb.CreateString(d));
    for (const GearResult& gear : info.gears) {
      if (gear.values.size() != info.gear_dims.size()) {
        return Error(code::kInvalidParam, "gear '", GearLabel(gear.values), "' has ",
                     gear.values.size(), " value(s) for ", info.gear_dims.size(), " gear dim(s)");
      }
      // (tensor index, dims) in index order; values the .om does not hold are skipped.
      std::vector<std::pair<int, const std::vector<int64_t>*>> changed;
      for (const auto& [value, dims] : gear.dims) {
        auto it = b.main_index().find(value);
        if (it != b.main_index().end()) changed.emplace_back(it->second, &dims);
      }
      std::sort(changed.begin(), changed.end());
      std::vector<fb::Offset<om::TensorDims>> tensor_dims;
      for (const auto& [index, dims] : changed) {
        tensor_dims.push_back(om::CreateTensorDimsDirect(fbb, index, dims));
      }
      gears.push_back(om::CreateGearPlanDirect(fbb, &gear.values, gear.work_size, &tensor_dims));
    }
  }
  const bool geared = info.gear_kind != GearKind::kNone;
  auto model = om::CreateModelDirect(fbb, info.model_name.c_str(), &graphs, plan.work_size,
                                     b.weights().size(), static_cast<om::GearKind>(info.gear_kind),
                                     geared ? &gear_dims : nullptr, geared ? &gears : nullptr,
                                     &options, &aipp, info.source.c_str());
  om::FinishModelBuffer(fbb, model);
  format::OmWriteInfo write;
  write.compiler_version = KILN_VERSION_STRING;
  write.target = info.target;
  return format::SerializeOm(write, fbb.GetBufferPointer(), fbb.GetSize(), b.weights().data(),
                             b.weights().size());
}

}  // namespace kiln::compiler
