// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "runtime/program.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <optional>
#include <unordered_set>

#include "base/log.h"
#include "base/memory_pages.h"
#include "format/om_generated.h"
#include "kernels/definition.h"
#include "kernels/registry.h"
#include "kernels/util.h"

namespace kiln::runtime {
namespace {

using kernels::DataType;
using kernels::Dims;

Dims DimsOf(const flatbuffers::Vector<int64_t>* v) {
  return v ? Dims(v->begin(), v->end()) : Dims{};
}

std::string Str(const flatbuffers::String* s) { return s ? s->str() : std::string(); }

// Whether `t` is a type a tensor of a loaded model may have: one Kiln knows, or undefined (a
// body's value the compiler left untyped).
bool KnownType(DataType t) {
  return t == DataType::kUndefined || t == DataType::kString || ir::BitsOf(t) != 0;
}

// The bytes of a tensor of `dims` whose unknown dims (-1) are taken as 1; nullopt when a dim is
// below -1 or the dims' product with zero dims also taken as 1 passes 2^62: a tensor with a zero
// dim has no elements, but a kernel multiplying its dims in another order must not overflow.
std::optional<uint64_t> LeastBytes(const Dims& dims, DataType dtype) {
  constexpr uint64_t kMostElements = uint64_t{1} << 62;
  uint64_t n = 1, span = 1;
  for (int64_t d : dims) {
    if (d < -1) return std::nullopt;
    const uint64_t v = d < 0 ? 1 : static_cast<uint64_t>(d);
    const uint64_t s = v == 0 ? 1 : v;
    if (span > kMostElements / s) return std::nullopt;
    span *= s;
    n *= v;
  }
  return ir::StorageBytes(dtype == DataType::kString ? DataType::kUint64 : dtype, n);
}

// A tensor's recorded dims against what can exist: every dim -1 (unknown) or >= 0, and the
// tensor, its unknown dims taken as 1, no larger than `max_bytes` (the device's memory: a
// tensor that can never be allocated is a tampered or mistaken file, and kernels must not be
// planned for it). `what` names the tensor (and gear) in the error.
Status CheckDims(const std::string& what, const Dims& dims, DataType dtype, uint64_t max_bytes) {
  auto bytes = LeastBytes(dims, dtype);
  if (!bytes) {
    return Error(code::kGeLoadModel, what, " has dims ", kernels::DimsString(dims),
                 ": a dim below -1 or more elements than can be counted");
  }
  if (max_bytes != 0 && *bytes > max_bytes) {
    return Error(code::kGeLoadModel, what, " has dims ", kernels::DimsString(dims), " (", *bytes,
                 " bytes of ", ir::Name(dtype), "), more than the device's ", max_bytes,
                 "-byte memory");
  }
  return Status::Ok();
}

// A workspace tensor's dims, when all known, must fit the slot the planner gave it.
Status CheckSlot(const std::string& what, const TensorInfo& t, const Dims& dims) {
  if (!t.rank_known) return Status::Ok();
  auto bytes = LeastBytes(dims, t.dtype);
  const bool known = std::all_of(dims.begin(), dims.end(), [](int64_t d) { return d >= 0; });
  if (known && bytes && *bytes > t.bytes) {
    return Error(code::kGeLoadModel, what, " has dims ", kernels::DimsString(dims), " (", *bytes,
                 " bytes) but a ", t.bytes, "-byte workspace slot");
  }
  return Status::Ok();
}

class Builder {
 public:
  Builder(const om::Model& model, const uint8_t* weights, size_t weights_size,
          const std::string& backend, hal::Device* device, uint64_t max_tensor_bytes,
          bool release_weights, uint8_t* device_weights)
      : model_(model),
        weights_(weights),
        device_weights_(device_weights),
        weights_size_(weights_size),
        backend_(backend),
        device_(device),
        max_tensor_bytes_(max_tensor_bytes),
        release_weights_(release_weights) {}

  Status Build(Program& program) {
    const auto* graphs = model_.graphs();
    if (graphs == nullptr || graphs->size() == 0) {
      return Error(code::kGeLoadModel, "the model has no graph");
    }
    if (model_.options()) {
      for (const auto* kv : *model_.options()) {
        if (Str(kv->key()) != kernels::kMatrixPrecisionOption) continue;
        auto p = kernels::ParseMatrixPrecision(Str(kv->value()));
        if (!p) {
          return Error(code::kGeLoadModel, "option ", kernels::kMatrixPrecisionOption, " '",
                       Str(kv->value()), "' is not fp32 or bf16");
        }
        matrix_precision_ = *p;
      }
    }
    program.graphs.resize(graphs->size());
    // A body graph may read the main graph's constants by name: only one graph is simple
    // enough to know every reader of a constant.
    if (graphs->size() != 1) release_weights_ = false;
    for (uint32_t g = 0; g < graphs->size(); ++g) {
      KILN_RETURN_IF_ERROR(BuildGraph(*graphs->Get(g), g == 0, program.graphs[g]), "");
    }
    ExtendLastUseToBodies(program);
    program.released_weight_bytes = released_bytes_;
    if (released_bytes_ > 0) {
      KILN_LOG(kAscendCl, kInfo, "gave back ", released_bytes_,
               " bytes of weights that kernels keep packed copies of");
    }
    program.work_size = model_.work_size();
    program.weight_size = model_.weight_size();
    program.gear_kind = static_cast<int>(model_.gear_kind());
    if (model_.gear_dims()) {
      for (const auto* s : *model_.gear_dims()) program.gear_dims.push_back(s->str());
    }
    if (model_.gears()) {
      const GraphProgram& main = program.graphs[0];
      for (const auto* gp : *model_.gears()) {
        Gear gear;
        gear.values = DimsOf(gp->values());
        gear.work_size = gp->work_size();
        if (gp->tensor_dims()) {
          for (const auto* td : *gp->tensor_dims()) {
            const TensorInfo& t = main.tensors[td->tensor()];  // in range: VerifyOm
            Dims dims = DimsOf(td->dims());
            const std::string what =
                "tensor '" + t.name + "' in gear " + kernels::DimsString(gear.values);
            KILN_RETURN_IF_ERROR(CheckDims(what, dims, t.dtype, max_tensor_bytes_), "");
            if (t.place == TensorPlace::kWorkspace) {
              KILN_RETURN_IF_ERROR(CheckSlot(what, t, dims), "");
            }
            gear.tensor_dims[td->tensor()] = std::move(dims);
          }
        }
        program.gears.push_back(std::move(gear));
      }
    }
    return Status::Ok();
  }

 private:
  // Names body `b` (and the bodies of its nodes, at any depth) reads from enclosing graphs.
  static void CapturedNames(const Program& p, int32_t b, std::unordered_set<std::string>* out) {
    const GraphProgram& body = p.graphs[b];
    for (const TensorInfo& t : body.tensors) {
      if (t.place == TensorPlace::kCaptured) out->insert(t.name);
    }
    for (const NodeInfo& n : body.nodes) {
      for (int32_t nested : n.bodies) {
        std::unordered_set<std::string> inner;
        CapturedNames(p, nested, &inner);
        for (const std::string& name : inner) {
          if (body.by_name.count(name) == 0) out->insert(name);  // not resolved in `body`
        }
      }
    }
  }

  // A value a node's body reads by name stays alive until that node has run.
  static void ExtendLastUseToBodies(Program& p) {
    for (GraphProgram& g : p.graphs) {
      for (size_t n = 0; n < g.nodes.size(); ++n) {
        std::unordered_set<std::string> names;
        for (int32_t b : g.nodes[n].bodies) CapturedNames(p, b, &names);
        for (const std::string& name : names) {
          auto it = g.by_name.find(name);
          if (it != g.by_name.end()) {
            g.last_use[it->second] = std::max(g.last_use[it->second], static_cast<int32_t>(n));
          }
        }
      }
    }
  }

  Status BuildGraph(const om::Graph& g, bool is_main, GraphProgram& out) {
    out.name = Str(g.name());
    const auto* tensors = g.tensors();
    const size_t n = tensors ? tensors->size() : 0;
    out.tensors.resize(n);
    std::unordered_set<int32_t> produced, graph_inputs;
    if (g.inputs()) graph_inputs.insert(g.inputs()->begin(), g.inputs()->end());
    if (g.nodes()) {
      for (const auto* node : *g.nodes()) {
        if (node->outputs()) produced.insert(node->outputs()->begin(), node->outputs()->end());
      }
    }
    for (size_t i = 0; i < n; ++i) {
      const om::TensorDesc& d = *tensors->Get(static_cast<uint32_t>(i));
      TensorInfo& t = out.tensors[i];
      t.name = Str(d.name());
      t.dtype = static_cast<DataType>(d.dtype());
      t.dims = DimsOf(d.dims());
      t.rank_known = !d.rank_unknown();
      t.format = d.format();
      t.offset = d.offset();
      t.bytes = d.bytes();
      if (!KnownType(t.dtype)) {
        return Error(code::kGeLoadModel, "tensor '", t.name, "' has an unknown data type ",
                     static_cast<int32_t>(t.dtype));
      }
      KILN_RETURN_IF_ERROR(CheckDims("tensor '" + t.name + "'", t.dims, t.dtype, max_tensor_bytes_),
                           "");
      const bool is_input = graph_inputs.count(static_cast<int32_t>(i)) != 0;
      switch (d.kind()) {
        case om::TensorKind::Constant: {
          if (t.dtype == DataType::kUndefined || !t.rank_known) {
            return Error(code::kGeLoadModel, "constant '", t.name, "' has no data type or no rank");
          }
          if (t.offset > weights_size_ || t.bytes > weights_size_ - t.offset) {
            return Error(code::kGeLoadModel, "constant '", t.name, "' lies outside the weights");
          }
          t.place = TensorPlace::kWeight;
          t.constant =
              kernels::TensorView{t.dtype, t.dims, const_cast<uint8_t*>(weights_ + t.offset)};
          if (device_weights_ != nullptr) t.device_data = device_weights_ + t.offset;
          if (t.constant.bytes() > t.bytes) {
            return Error(code::kGeLoadModel, "constant '", t.name, "' holds ", t.bytes,
                         " bytes, its dims need ", t.constant.bytes());
          }
          break;
        }
        case om::TensorKind::Input:
          t.place = TensorPlace::kInput;
          break;
        case om::TensorKind::Gear:
          t.place = TensorPlace::kGear;
          break;
        case om::TensorKind::Output:
          t.place = is_main ? TensorPlace::kOutput : TensorPlace::kDynamic;
          break;
        case om::TensorKind::Activation:
          t.place = is_main && t.offset != UINT64_MAX && t.bytes > 0 ? TensorPlace::kWorkspace
                                                                     : TensorPlace::kDynamic;
          break;
        default:
          return Error(code::kGeLoadModel, "tensor '", t.name, "' has an unknown kind");
      }
      if (is_input && t.place != TensorPlace::kGear) t.place = TensorPlace::kInput;
      // A body's value that nothing in the body makes: captured from the enclosing graph.
      if (!is_main && !is_input && t.place != TensorPlace::kWeight &&
          produced.count(static_cast<int32_t>(i)) == 0) {
        t.place = TensorPlace::kCaptured;
      }
      if (is_main && t.place == TensorPlace::kWorkspace &&
          t.offset + t.bytes > model_.work_size()) {
        return Error(code::kGeLoadModel, "tensor '", t.name, "' lies outside the workspace");
      }
      if (t.place == TensorPlace::kWorkspace) {
        KILN_RETURN_IF_ERROR(CheckSlot("tensor '" + t.name + "'", t, t.dims), "");
      }
      if (!t.name.empty()) out.by_name.emplace(t.name, static_cast<int32_t>(i));
    }
    if (g.inputs()) out.inputs.assign(g.inputs()->begin(), g.inputs()->end());
    if (g.outputs()) out.outputs.assign(g.outputs()->begin(), g.outputs()->end());
    out.last_use.assign(n, -1);
    out.is_output.assign(n, false);
    for (int32_t t : out.outputs) {
      if (t < 0 || t >= static_cast<int32_t>(n))
        return Error(code::kGeLoadModel, "bad output index");
      out.is_output[t] = true;
    }
    if (!g.nodes()) return Status::Ok();
    KILN_RETURN_IF_ERROR(CheckDataFlow(g, out, is_main), "");
    const std::vector<bool> releasable =
        is_main && release_weights_ ? ReleasableWeights(g, out) : std::vector<bool>(n, false);
    for (const auto* node : *g.nodes()) {
      NodeInfo info;
      info.op_type = Str(node->op_type());
      info.name = Str(node->name());
      if (node->origins()) {
        for (const auto* o : *node->origins()) info.origins.push_back(o->str());
      }
      if (node->inputs()) info.inputs.assign(node->inputs()->begin(), node->inputs()->end());
      if (node->outputs()) info.outputs.assign(node->outputs()->begin(), node->outputs()->end());
      for (int32_t t : info.inputs) {
        if (t >= static_cast<int32_t>(n)) return Error(code::kGeLoadModel, "bad tensor index");
        if (t >= 0) out.last_use[t] = static_cast<int32_t>(out.nodes.size());
      }
      if (node->attrs()) {
        for (const auto* a : *node->attrs()) {
          if (a->type() == om::AttrType::Graph && a->graph() > 0 && model_.graphs() &&
              a->graph() < static_cast<int32_t>(model_.graphs()->size())) {
            info.bodies.push_back(a->graph());
          }
          // channels_last's and matmul_bf16_storage's storage marks (compiler/passes/), for the
          // dump.
          if (a->type() == om::AttrType::Int && a->i() != 0 && a->name()) {
            const std::string attr = a->name()->str();
            if (attr == "kiln_y_nhwc") info.nhwc_outputs |= 1u;
            if (attr == "kiln_x_nhwc") info.nhwc_inputs |= 1u;
            if (attr == "kiln_z_nhwc") info.nhwc_inputs |= 1u << 3;
            if (attr == "kiln_nhwc") {  // every rank-4 tensor (the dump transposes only those)
              info.nhwc_inputs = info.nhwc_outputs = ~0u;
            }
            if (attr == "kiln_y_bf16") info.bf16_outputs |= 1u;
            if (attr == "kiln_x_bf16" || attr == "kiln_a_bf16") info.bf16_inputs |= 1u;
            if (attr == "kiln_z_bf16") info.bf16_inputs |= 1u << 3;
            if (attr == "kiln_x_cblock") info.x_block = a->i();
            if (attr == "kiln_z_cblock") info.z_block = a->i();
            if (attr == "kiln_y_cblock") info.y_block = a->i();
            if (attr == "kiln_cblock") info.all_block = a->i();
          }
        }
      }
      out.nodes.push_back(std::move(info));
    }
    return PrepareKernels(g, out, releasable);
  }

  // Every node's kernel, each prepared on its own (they read only the graph's tensors and their
  // own node), as the device spreads them (hal::Device::ForEachPreparation); the first node that
  // fails, in graph order, is the error.
  Status PrepareKernels(const om::Graph& g, GraphProgram& out,
                        const std::vector<bool>& releasable) {
    const size_t count = out.nodes.size();
    std::vector<Status> prepared(count, Status::Ok());
    std::vector<std::exception_ptr> thrown(count);
    auto prepare = [&](size_t i) {
      try {
        prepared[i] = Prepare(*g.nodes()->Get(static_cast<uint32_t>(i)), out, out.nodes[i]);
        if (prepared[i].ok()) ReleaseWeights(out, releasable, out.nodes[i]);
      } catch (...) {  // out of memory: thrown again on this thread
        thrown[i] = std::current_exception();
      }
    };
    if (device_ != nullptr) {
      device_->ForEachPreparation(count, prepare);
    } else {
      for (size_t i = 0; i < count; ++i) prepare(i);
    }
    for (size_t i = 0; i < count; ++i) {
      if (thrown[i]) std::rethrow_exception(thrown[i]);
      KILN_RETURN_IF_ERROR(std::move(prepared[i]), "");
    }
    return Status::Ok();
  }

  // The graph's nodes run in order, so each reads only what exists by then: a graph input, a
  // constant, a gear value, an earlier node's output, or (in a body) a value captured from the
  // enclosing graphs, which is anything the body itself does not write. Every tensor is written
  // once at most, and never a constant, an input or a gear value (a kernel would write into the
  // weights or the caller's buffer). What a node writes, and the main graph's inputs, have a
  // data type (only a body's captured values may be left untyped: they take the enclosing
  // value's). A crafted file that breaks this would have a kernel read an unbound tensor, size
  // a buffer for no type, or write where it must not.
  static Status CheckDataFlow(const om::Graph& g, const GraphProgram& out, bool is_main) {
    const size_t n = out.tensors.size();
    std::vector<uint8_t> written(n, 0), ready(n, 0);
    for (int32_t t : out.inputs) {
      // The main graph's inputs are the caller's buffers: their type says how many bytes.
      if (is_main && out.tensors[t].dtype == DataType::kUndefined) {
        return Error(code::kGeLoadModel, "input '", out.tensors[t].name, "' has no data type");
      }
      ready[t] = 1;
    }
    std::vector<uint8_t> is_input(n, 0);
    for (int32_t t : out.inputs) is_input[t] = 1;
    int gears = 0;
    for (size_t t = 0; t < n; ++t) {
      const TensorPlace place = out.tensors[t].place;
      if (place == TensorPlace::kWeight) ready[t] = 1;
      // The caller binds only the main graph's inputs (the gear selector among them, once): a
      // tensor marked as either that is not one would be read unbound.
      if ((place == TensorPlace::kInput || place == TensorPlace::kGear) && !is_input[t]) {
        return Error(code::kGeLoadModel, "tensor '", out.tensors[t].name, "' is marked as ",
                     place == TensorPlace::kGear ? "the gear selector" : "an input",
                     " but is not an input of graph '", out.name, "'");
      }
      if (place == TensorPlace::kGear && (!is_main || ++gears > 1)) {
        return Error(code::kGeLoadModel, "tensor '", out.tensors[t].name,
                     "' is a second gear selector, or one outside the main graph");
      }
    }
    for (const auto* node : *g.nodes()) {
      if (!node->outputs()) continue;
      for (int32_t t : *node->outputs()) {
        if (t < 0) continue;
        const TensorInfo& info = out.tensors[t];
        if (info.dtype == DataType::kUndefined) {
          return Error(code::kGeLoadModel, Str(node->op_type()), " '", Str(node->name()),
                       "' writes tensor '", info.name, "', which has no data type");
        }
        if (ready[t] || written[t]) {
          return Error(code::kGeLoadModel, Str(node->op_type()), " '", Str(node->name()),
                       "' writes tensor '", info.name, "', which ",
                       written[t] ? "another node writes" : "is a graph input or a constant");
        }
        written[t] = 1;
      }
    }
    for (const auto* node : *g.nodes()) {
      if (node->inputs()) {
        for (int32_t t : *node->inputs()) {
          if (t < 0) continue;  // an omitted optional input
          // A body may read a value of an enclosing graph: one the body does not write.
          const bool captured = !is_main && !written[t];
          if (!ready[t] && !captured) {
            return Error(code::kGeLoadModel, Str(node->op_type()), " '", Str(node->name()),
                         "' reads tensor '", out.tensors[t].name,
                         "' before any node writes it (or none does)");
          }
        }
      }
      if (node->outputs()) {
        for (int32_t t : *node->outputs()) {
          if (t >= 0) ready[t] = 1;
        }
      }
    }
    return Status::Ok();
  }

  // Per tensor of the main graph: a constant whose memory may be given back if its reader's
  // kernel agrees — it has exactly one reader (one input of one node, no tensor attribute), is
  // not a graph output, fills a page at least, and shares no byte with another constant (a
  // crafted file may overlap them).
  static std::vector<bool> ReleasableWeights(const om::Graph& g, const GraphProgram& out) {
    const size_t n = out.tensors.size();
    std::vector<int> readers(n, 0);
    for (const auto* node : *g.nodes()) {
      if (node->inputs()) {
        for (int32_t t : *node->inputs()) {
          if (t >= 0 && static_cast<size_t>(t) < n) ++readers[t];
        }
      }
      if (node->attrs()) {
        for (const auto* a : *node->attrs()) {
          if (a->type() == om::AttrType::Tensor && a->tensor() >= 0 &&
              static_cast<size_t>(a->tensor()) < n) {
            readers[a->tensor()] += 2;  // read at Prepare by whatever takes the attribute
          }
        }
      }
    }
    std::vector<std::pair<uint64_t, int32_t>> starts;  // (offset, tensor) of every constant
    for (size_t t = 0; t < n; ++t) {
      if (out.tensors[t].place == TensorPlace::kWeight) {
        starts.emplace_back(out.tensors[t].offset, static_cast<int32_t>(t));
      }
    }
    std::sort(starts.begin(), starts.end());
    std::vector<bool> releasable(n, false);
    uint64_t reached = 0;  // the furthest end of the constants before this one
    for (size_t k = 0; k < starts.size(); ++k) {
      const int32_t i = starts[k].second;
      const TensorInfo& t = out.tensors[i];
      const uint64_t end = t.offset + t.constant.bytes();
      const bool overlaps =
          (k > 0 && reached > t.offset) || (k + 1 < starts.size() && starts[k + 1].first < end);
      reached = std::max(reached, end);
      releasable[i] = readers[i] == 1 && !out.is_output[i] &&
                      t.constant.bytes() >= kMinReleasedBytes && !overlaps;
    }
    return releasable;
  }

  // Gives back the memory of the node's constant inputs that `releasable` marks, where its
  // kernel agrees (Kernel::ReleaseConstant). Nodes may do so at once: each releasable constant
  // has one reader and shares no page another constant reaches into.
  void ReleaseWeights(const GraphProgram& g, const std::vector<bool>& releasable, NodeInfo& info) {
    for (size_t i = 0; i < info.inputs.size(); ++i) {
      const int32_t t = info.inputs[i];
      if (t < 0 || !releasable[t] || !info.kernel->ReleaseConstant(i)) continue;
      const kernels::TensorView& c = g.tensors[t].constant;
      released_bytes_.fetch_add(DiscardWholePages(c.data, c.bytes()), std::memory_order_relaxed);
      info.released_constants = true;
    }
  }

  // Creates the node's kernel and its cost rule.
  Status Prepare(const om::Node& node, const GraphProgram& g, NodeInfo& info) {
    kernels::NodeDef def;
    def.op_type = Str(node.op_type());
    def.domain = Str(node.domain());
    def.name = Str(node.name());
    def.opset = node.opset();
    def.device = device_;
    def.matrix_precision = matrix_precision_;
    if (node.inputs()) {
      for (int32_t t : *node.inputs()) {
        def.has_input.push_back(t >= 0);
        const TensorInfo* ti = t >= 0 ? &g.tensors[t] : nullptr;
        def.input_types.push_back(ti ? ti->dtype : DataType::kUndefined);
        def.input_dims.push_back(ti ? ti->dims : Dims{});
        def.input_rank_known.push_back(ti == nullptr || ti->rank_known);
        def.constants.push_back(ti && ti->place == TensorPlace::kWeight ? &ti->constant : nullptr);
      }
    }
    if (node.outputs()) {
      for (int32_t t : *node.outputs()) {
        const TensorInfo* ti = t >= 0 ? &g.tensors[t] : nullptr;
        def.output_types.push_back(ti ? ti->dtype : DataType::kUndefined);
        def.output_dims.push_back(ti ? ti->dims : Dims{});
        def.output_rank_known.push_back(ti == nullptr || ti->rank_known);
        def.has_output.push_back(ti != nullptr);
      }
    }
    if (node.attrs()) {
      for (const auto* a : *node.attrs()) {
        KILN_RETURN_IF_ERROR(AddAttr(*a, g, def), "");
      }
    }
    Status defined = kernels::CheckLoadedOpset(def);
    if (defined.ok()) defined = kernels::ApplyDefinition(def);
    auto kernel = defined.ok() ? kernels::KernelRegistry::Global().Create(backend_, def)
                               : Result<std::unique_ptr<kernels::Kernel>>(defined);
    if (!kernel.ok()) {
      return Error(code::kGeLoadModel, "cannot prepare ", def.Label(), ": ",
                   kernel.status().message());
    }
    info.kernel = std::move(kernel).value();
    info.data_dependent = kernels::HasDataDependentShape(def);
    info.cost = kernels::PrepareCost(def);
    info.def = std::move(def);
    return Status::Ok();
  }

  Status AddAttr(const om::Attr& a, const GraphProgram& g, kernels::NodeDef& def) {
    const std::string name = Str(a.name());
    switch (a.type()) {
      case om::AttrType::Int:
        def.attrs[name] = a.i();
        break;
      case om::AttrType::Float:
        def.attrs[name] = a.f();
        break;
      case om::AttrType::String:
        def.attrs[name] = Str(a.s());
        break;
      case om::AttrType::Ints:
        def.attrs[name] = DimsOf(a.ints());
        break;
      case om::AttrType::Floats:
        def.attrs[name] = a.floats() ? std::vector<float>(a.floats()->begin(), a.floats()->end())
                                     : std::vector<float>{};
        break;
      case om::AttrType::Strings: {
        std::vector<std::string> v;
        if (a.strings()) {
          for (const auto* s : *a.strings()) v.push_back(s->str());
        }
        def.attrs[name] = std::move(v);
        break;
      }
      case om::AttrType::Tensor: {
        if (a.tensor() < 0 || a.tensor() >= static_cast<int32_t>(g.tensors.size()) ||
            g.tensors[a.tensor()].place != TensorPlace::kWeight) {
          return def.Fail(code::kGeLoadModel, "tensor attribute '", name, "' has no data");
        }
        const TensorInfo& t = g.tensors[a.tensor()];
        // Non-owning: the weights outlive every kernel of the model.
        std::shared_ptr<const uint8_t> data(std::shared_ptr<const uint8_t>(),
                                            static_cast<const uint8_t*>(t.constant.data));
        def.attrs[name] = ir::Tensor(t.dtype, t.dims, std::move(data), t.constant.bytes());
        break;
      }
      case om::AttrType::Graph:
        if (a.graph() <= 0 || !model_.graphs() ||
            a.graph() >= static_cast<int32_t>(model_.graphs()->size())) {
          return def.Fail(code::kGeLoadModel, "graph attribute '", name, "' has no body");
        }
        def.graphs[name] = a.graph();
        break;
      default:
        return def.Fail(code::kGeLoadModel, "attribute '", name, "' has an unknown type");
    }
    return Status::Ok();
  }

  const om::Model& model_;
  kernels::MatrixPrecision matrix_precision_ = kernels::MatrixPrecision::kFp32;
  const uint8_t* weights_;
  uint8_t* device_weights_;  // null unless the device's memory is apart from the host's
  size_t weights_size_;
  std::string backend_;
  hal::Device* device_;
  uint64_t max_tensor_bytes_;  // 0: no bound
  bool release_weights_;
  std::atomic<uint64_t> released_bytes_{0};
  static constexpr uint64_t kMinReleasedBytes = 64 * 1024;
};

}  // namespace

Result<std::unique_ptr<Program>> BuildProgram(const uint8_t* graph_section, const uint8_t* weights,
                                              size_t weights_size, const std::string& backend,
                                              hal::Device* device, uint64_t max_tensor_bytes,
                                              bool release_weights, uint8_t* device_weights) {
  const om::Model* model = om::GetModel(graph_section);
  auto program = std::make_unique<Program>();
  Builder builder(*model, weights, weights_size, backend, device, max_tensor_bytes,
                  release_weights && device_weights == nullptr, device_weights);
  KILN_RETURN_IF_ERROR(builder.Build(*program), "");
  return program;
}

}  // namespace kiln::runtime
