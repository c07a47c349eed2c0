// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "runtime/executor.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>

#include "base/env.h"
#include "kernels/cost.h"
#include "kernels/definition.h"
#include "kernels/util.h"
#include "runtime/replay.h"

namespace kiln::runtime {
namespace {

using kernels::DataType;
using kernels::Dims;
using kernels::HostTensor;
using kernels::TensorView;

// The run's execution, or for a run outside a device (null) the HAL's default one: host memory,
// plain copies. Run-time tensors, output copies and gear reads go through it, so they reach
// device memory the host cannot address.
hal::Execution& ExecOf(hal::Execution* exec) {
  static hal::Execution host;
  return exec != nullptr ? *exec : host;
}

// A run-time tensor's memory, given back to the execution it came from.
struct FreeDeleter {
  hal::Execution* exec = nullptr;
  void operator()(uint8_t* p) const { ExecOf(exec).FreeTensor(p); }
};
using Block = std::unique_ptr<uint8_t, FreeDeleter>;

// Bytes of a tensor of `dims` and `dtype`; nullopt for a negative dim or on overflow.
std::optional<uint64_t> BytesOf(const Dims& dims, DataType dtype) {
  uint64_t n = 1;
  for (int64_t d : dims) {
    if (d < 0) return std::nullopt;
    if (d != 0 && n > (uint64_t{1} << 60) / static_cast<uint64_t>(d)) return std::nullopt;
    n *= static_cast<uint64_t>(d);
  }
  return ir::StorageBytes(dtype, n);
}

// KILN_EXEC_SEPARATE_TENSORS=1 (a debugging and fuzzing mode, docs/fuzzing.md): every tensor
// the plan places in the workspace gets an allocation of its own, of exactly its bytes, at each
// run, so that a kernel writing past its output is caught by AddressSanitizer (inside the one
// workspace block it would only overwrite a neighbour). Slower; results are the same.
bool SeparateTensors() {
  static const bool separate = env::Get("KILN_EXEC_SEPARATE_TENSORS") == "1";
  return separate;
}

bool Known(const Dims& dims, bool rank_known) {
  if (!rank_known) return false;
  for (int64_t d : dims) {
    if (d < 0) return false;
  }
  return true;
}

std::string Where(const NodeInfo& node) {
  std::string s = node.op_type + " '" + node.name + "'";
  if (!node.origins.empty() && !(node.origins.size() == 1 && node.origins[0] == node.name)) {
    s += " (ONNX node";
    s += node.origins.size() > 1 ? "s " : " ";
    for (size_t i = 0; i < node.origins.size(); ++i) {
      s += (i ? ", '" : "'") + node.origins[i] + "'";
    }
    s += ")";
  }
  return s;
}

constexpr kernels::WorkEstimate kUnknownWork{UINT64_MAX, 0};

// The dims of main-graph tensor `t` in `gear` (-1: none).
const Dims& GearDims(const Program& program, const GraphProgram& g, int gear, int32_t t) {
  if (gear >= 0) {
    const auto& by_tensor = program.gears[static_cast<size_t>(gear)].tensor_dims;
    auto it = by_tensor.find(t);
    if (it != by_tensor.end()) return it->second;
  }
  return g.tensors[static_cast<size_t>(t)].dims;
}

// One graph's tensors during an execution, and the kernels' tables of input and output views.
// The main graph's frame lives in an ExecState and is reused run after run: tensors whose
// dims and place are known are bound once (BindPlanned), the rest per run.
class Frame {
 public:
  // `parent` is the frame of the node running this body (null for the main graph).
  Frame(const Program& program, const GraphProgram& graph, const Frame* parent,
        hal::Execution* exec)
      : program_(program),
        graph_(graph),
        parent_(parent),
        exec_(parent != nullptr ? parent->exec_ : exec),
        views_(graph.tensors.size()),
        bound_(graph.tensors.size(), 0),
        planned_(graph.tensors.size(), 0),
        blocks_(graph.tensors.size()),
        external_(graph.tensors.size(), nullptr),
        bind_at_run_(graph.nodes.size(), 1),
        work_(graph.nodes.size(), kUnknownWork),
        in_begin_(graph.nodes.size() + 1, 0),
        out_begin_(graph.nodes.size() + 1, 0) {
    for (size_t i = 0; i < graph.tensors.size(); ++i) {
      const TensorInfo& info = graph.tensors[i];
      views_[i].dtype = info.dtype;
      views_[i].dims = info.dims;  // reserves each view's dims once
      if (info.place == TensorPlace::kWeight) {
        views_[i] = info.constant;
        if (info.device_data != nullptr) views_[i].data = info.device_data;  // a GPU's copy
        bound_[i] = planned_[i] = 1;
      }
    }
    // The kernels' tables: node n reads in_[in_begin_[n] + i] and writes out_[out_begin_[n] + i].
    for (size_t n = 0; n < graph.nodes.size(); ++n) {
      const NodeInfo& node = graph.nodes[n];
      in_begin_[n + 1] = in_begin_[n] + node.inputs.size();
      out_begin_[n + 1] = out_begin_[n] + node.outputs.size();
    }
    in_.assign(in_begin_.back(), nullptr);
    out_.assign(out_begin_.back(), nullptr);
    for (size_t n = 0; n < graph.nodes.size(); ++n) {
      const NodeInfo& node = graph.nodes[n];
      for (size_t i = 0; i < node.outputs.size(); ++i) {
        if (node.outputs[i] >= 0) out_[out_begin_[n] + i] = &views_[node.outputs[i]];
      }
    }
  }

  const Program& program() const { return program_; }
  const GraphProgram& graph() const { return graph_; }
  hal::Execution* exec() const { return exec_; }

  // Binds every tensor of the main graph whose dims (in `gear`) and place are known at load:
  // workspace tensors to `workspace` + offset, outputs to the caller's buffers (per run, in
  // BindIo). Then marks the nodes that still bind an output at run time.
  void BindPlanned(int gear, uint8_t* workspace) {
    gear_ = gear;
    for (size_t t = 0; t < graph_.tensors.size(); ++t) {
      const TensorInfo& info = graph_.tensors[t];
      if (info.place == TensorPlace::kWeight) continue;
      const Dims& dims = GearDims(program_, graph_, gear, static_cast<int32_t>(t));
      planned_[t] = 0;
      bound_[t] = 0;
      if (!Known(dims, info.rank_known)) continue;
      auto bytes = BytesOf(dims, info.dtype);
      if (!bytes) continue;
      if (info.place == TensorPlace::kWorkspace && *bytes <= info.bytes && !SeparateTensors()) {
        views_[t].dims = dims;
        views_[t].data = workspace + info.offset;
        planned_[t] = bound_[t] = 1;
      } else if (info.place == TensorPlace::kOutput || info.place == TensorPlace::kInput ||
                 info.place == TensorPlace::kGear) {
        views_[t].dims = dims;
        planned_[t] = 1;  // the caller's buffer, bound per run
      }
    }
    for (size_t n = 0; n < graph_.nodes.size(); ++n) {
      const NodeInfo& node = graph_.nodes[n];
      bool all = !node.data_dependent;
      for (int32_t t : node.outputs) all = all && (t < 0 || planned_[t]);
      bool inputs_known = true;
      for (int32_t t : node.inputs) inputs_known = inputs_known && (t < 0 || planned_[t]);
      // Static: every input and output known now. A node whose outputs are known but some
      // input is not still runs its shape function per run, which checks that input.
      bind_at_run_[n] = all && inputs_known ? 0 : 1;
      work_[n] = all && inputs_known ? Work(n) : kUnknownWork;
    }
  }

  // Node n's work for hal::Execution::BeforeKernel (kernels::EstimateWork: operations and bytes
  // moved), from the views bound now; kUnknownWork when its cost is not modelled.
  kernels::WorkEstimate Work(size_t n) const {
    const NodeInfo& node = graph_.nodes[n];
    std::vector<const TensorView*> ins, outs;
    for (int32_t t : node.inputs) ins.push_back(t < 0 ? nullptr : &views_[t]);
    for (int32_t t : node.outputs) outs.push_back(t < 0 ? nullptr : &views_[t]);
    return kernels::EstimateWork(node.cost, ins, outs).value_or(kUnknownWork);
  }
  const kernels::WorkEstimate& work(size_t n) const { return work_[n]; }

  // Unbinds what the last run bound at run time (dynamic tensors, the caller's buffers).
  void Reset() {
    for (size_t t = 0; t < views_.size(); ++t) {
      blocks_[t].reset();
      external_[t] = nullptr;
      caller_buffer_too_small_ = false;
      const TensorPlace place = graph_.tensors[t].place;
      if (!planned_[t] || place == TensorPlace::kInput || place == TensorPlace::kOutput ||
          place == TensorPlace::kGear) {
        bound_[t] = 0;
      }
    }
  }

  // Binds tensor `t` (an input or output of the main graph) to the caller's buffer.
  void BindCaller(int32_t t, void* data) {
    views_[t].data = data;
    bound_[t] = 1;
  }
  void SetExternal(int32_t t, const IoBuffer* buffer) { external_[t] = buffer; }
  bool planned(int32_t t) const { return planned_[t] != 0; }
  TensorView& view(int32_t t) { return views_[t]; }

  // Binds a body's input to a value the node running the body gives it.
  void BindValue(int32_t t, TensorView view) {
    views_[t] = std::move(view);
    bound_[t] = 1;
  }

  // The view of tensor `t`, resolving captured values through the enclosing frames; null when
  // not computed.
  const TensorView* Find(int32_t t) const {
    if (bound_[t]) return &views_[t];
    if (graph_.tensors[t].place != TensorPlace::kCaptured || parent_ == nullptr) return nullptr;
    return parent_->FindByName(graph_.tensors[t].name);
  }
  const TensorView* FindByName(const std::string& name) const {
    auto it = graph_.by_name.find(name);
    if (it != graph_.by_name.end()) {
      if (const TensorView* v = Find(it->second)) return v;
    }
    return parent_ ? parent_->FindByName(name) : nullptr;
  }

  // Node n's inputs and outputs (outputs bound or not: see Output).
  const TensorView* const* inputs(size_t n) const { return in_.data() + in_begin_[n]; }
  bool bind_at_run(size_t n) const { return bind_at_run_[n] != 0; }
  // Output i of node n when bound, else null.
  TensorView* Output(size_t n, size_t i) {
    TensorView* v = out_[out_begin_[n] + i];
    return v != nullptr && bound_[graph_.nodes[n].outputs[i]] ? v : nullptr;
  }

  // Points node n's input table at its inputs' views; kRtModelExecute for one not computed
  // (a body reading a value its scope lacks). Static main-graph nodes never need it: their
  // tables are filled once (FillInputs at state creation).
  Status ResolveInputs(size_t n) {
    const NodeInfo& node = graph_.nodes[n];
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      const int32_t t = node.inputs[i];
      const TensorView* v = t < 0 ? nullptr : Find(t);
      if (t >= 0 && v == nullptr) {
        return Error(code::kRtModelExecute, "reads '", graph_.tensors[t].name,
                     "' before it is computed");
      }
      in_[in_begin_[n] + i] = v;
    }
    return Status::Ok();
  }
  // Main graph: every input is a view of this frame (nothing is captured).
  void FillInputs() {
    for (size_t n = 0; n < graph_.nodes.size(); ++n) {
      const NodeInfo& node = graph_.nodes[n];
      for (size_t i = 0; i < node.inputs.size(); ++i) {
        const int32_t t = node.inputs[i];
        in_[in_begin_[n] + i] = t < 0 ? nullptr : &views_[t];
      }
    }
  }

  // Binds tensor `t` with `dims` to its planned place, the caller's buffer (main graph
  // outputs), or a fresh allocation.
  Result<TensorView*> Bind(int32_t t, const Dims& dims) {
    const TensorInfo& info = graph_.tensors[t];
    auto bytes = BytesOf(dims, info.dtype);
    if (!bytes) {
      return Error(code::kInvalidParam, "tensor '", info.name, "' would have dims ",
                   kernels::DimsString(dims));
    }
    TensorView& v = views_[t];
    v.dtype = info.dtype;
    v.dims = dims;
    if (const IoBuffer* external = external_[t]) {
      if (external->size < *bytes) {
        caller_buffer_too_small_ = true;
        return Error(code::kInvalidParam, "output '", info.name, "' needs ", *bytes,
                     " bytes (dims ", kernels::DimsString(dims), ") but its buffer has ",
                     external->size);
      }
      v.data = external->data;
    } else if (info.place == TensorPlace::kWorkspace && workspace_ != nullptr &&
               *bytes <= info.bytes && !SeparateTensors()) {
      v.data = workspace_ + info.offset;
    } else {
      // 64-byte aligned, at least one byte so empty tensors still have an address; exactly
      // the tensor's bytes when separate tensors are checked.
      const size_t exact = std::max<uint64_t>(*bytes, 1);
      if (*bytes > (uint64_t{1} << 46)) {
        return Error(code::kRtMemoryAllocation, "tensor '", info.name, "' needs ", *bytes,
                     " bytes");
      }
      void* p = ExecOf(exec_).AllocateTensor(SeparateTensors() ? exact : (exact + 63) / 64 * 64);
      Block block(static_cast<uint8_t*>(p), FreeDeleter{exec_});
      if (!block) {
        return Error(code::kRtMemoryAllocation, "cannot allocate ", *bytes, " bytes for tensor '",
                     info.name, "'");
      }
      v.data = block.get();
      blocks_[t] = std::move(block);
    }
    bound_[t] = 1;
    return &v;
  }

  // For a shape function on a device the host cannot read (a GPU): constants as their host
  // copies, and every other small input (the shape, scales or axes a shape function reads:
  // kMaxStagedBytes at most) copied to host memory through the execution. Larger inputs keep
  // their device address: shape functions read only their dims.
  void StageShapeInputs(const NodeInfo& node, std::vector<const TensorView*>* ins,
                        std::vector<HostTensor>* staged,
                        std::vector<TensorView>* staged_views) const {
    constexpr size_t kMaxStagedBytes = 4096;
    staged->reserve(ins->size());  // `ins` points into both: no reallocation
    staged_views->reserve(ins->size());
    for (size_t i = 0; i < ins->size(); ++i) {
      const TensorView* v = (*ins)[i];
      const int32_t t = node.inputs[i];
      if (v == nullptr || t < 0) continue;
      if (graph_.tensors[t].place == TensorPlace::kWeight) {
        (*ins)[i] = &graph_.tensors[t].constant;
      } else if (v->bytes() <= kMaxStagedBytes) {
        HostTensor& h = staged->emplace_back(v->dtype, v->dims);
        if (!h.bytes.empty()) exec_->Copy(h.bytes.data(), v->data, h.bytes.size());
        (*ins)[i] = &staged_views->emplace_back(h.view());
      }
    }
  }

  // Binds the outputs of node n that the plan left for run time: from their recorded dims
  // when known, else from the op's shape function on the actual inputs; outputs that depend
  // on input values stay for the kernel (DynamicOutput).
  Status BindAtRun(size_t n) {
    const NodeInfo& node = graph_.nodes[n];
    if (node.data_dependent) return Status::Ok();  // the kernel binds its outputs
    // Every input's and output's dims known at load (a body graph's nodes): bind as planned.
    bool all_known = true;
    for (int32_t t : node.inputs) {
      all_known =
          all_known && (t < 0 || Known(graph_.tensors[t].dims, graph_.tensors[t].rank_known));
    }
    for (int32_t t : node.outputs) {
      if (t >= 0 && !bound_[t]) {
        all_known = all_known && Known(graph_.tensors[t].dims, graph_.tensors[t].rank_known);
      }
    }
    if (all_known) {
      // The plan fixed every dim: the inputs this run bound must have them (a node earlier in
      // the run may have bound its output from its shape function).
      for (size_t i = 0; i < node.inputs.size(); ++i) {
        const int32_t t = node.inputs[i];
        if (t < 0 || !bound_[t]) continue;
        const Dims& recorded = GearDims(program_, graph_, gear_, t);
        if (views_[t].dims != recorded) {
          return Error(code::kInvalidParam, "input ", i, " has dims ",
                       kernels::DimsString(views_[t].dims), " in this run, but the model records ",
                       kernels::DimsString(recorded));
        }
      }
      for (int32_t t : node.outputs) {
        if (t >= 0 && !bound_[t])
          KILN_RETURN_IF_ERROR(Bind(t, graph_.tensors[t].dims).status(), "");
      }
      return Status::Ok();
    }
    // Else the shape function, on this run's inputs: it checks them and gives the dims.
    std::vector<const TensorView*> ins(inputs(n), inputs(n) + node.inputs.size());
    std::vector<HostTensor> staged;
    std::vector<TensorView> staged_views;
    if (exec_ != nullptr && !exec_->host_addressable()) {
      StageShapeInputs(node, &ins, &staged, &staged_views);
    }
    std::vector<Dims> dims;
    std::vector<bool> known;
    KILN_RETURN_IF_ERROR(kernels::InferOutputDims(node.def, ins, &dims, &known), "");
    for (size_t i = 0; i < node.outputs.size(); ++i) {
      const int32_t t = node.outputs[i];
      if (t < 0 || !known[i]) continue;
      if (!bound_[t]) {
        // An output whose dims the model records must get those (a kernel after this one may
        // have been prepared for them).
        const Dims& recorded = GearDims(program_, graph_, gear_, t);
        if (Known(recorded, graph_.tensors[t].rank_known) && recorded != dims[i]) {
          return Error(code::kInvalidParam, "this run's inputs give output ", i, " dims ",
                       kernels::DimsString(dims[i]), ", but the model records ",
                       kernels::DimsString(recorded));
        }
        KILN_RETURN_IF_ERROR(Bind(t, dims[i]).status(), "");
      } else if (views_[t].dims != dims[i]) {
        return Error(code::kInvalidParam, "this run's inputs give output ", i, " dims ",
                     kernels::DimsString(dims[i]), ", but the model was planned with ",
                     kernels::DimsString(views_[t].dims));
      }
    }
    return Status::Ok();
  }

  // Frees run-time allocations whose last reader was node `n` (graph outputs stay).
  void Release(int32_t n) {
    for (int32_t t : graph_.nodes[n].inputs) {
      if (t >= 0 && graph_.last_use[t] == n && blocks_[t] && !graph_.is_output[t]) {
        blocks_[t].reset();
      }
    }
  }

  void set_workspace(uint8_t* workspace) { workspace_ = workspace; }
  // The kernels' states for this frame (main graph of an ExecState; none for bodies).
  void MakeStates() {
    states_.resize(graph_.nodes.size());
    for (size_t n = 0; n < graph_.nodes.size(); ++n) {
      states_[n] = graph_.nodes[n].kernel->CreateState();
    }
  }
  kernels::KernelState* state(size_t n) const {
    return n < states_.size() ? states_[n].get() : nullptr;
  }
  // Whether a Bind failed because the caller's output buffer is too small (kInvalidParam: the
  // caller's mistake, not the model's).
  bool caller_buffer_too_small() const { return caller_buffer_too_small_; }

 private:
  const Program& program_;
  const GraphProgram& graph_;
  int gear_ = -1;  // the main graph's gear (BindPlanned); -1 in a body
  const Frame* parent_;
  hal::Execution* exec_;
  uint8_t* workspace_ = nullptr;
  std::vector<TensorView> views_;
  std::vector<uint8_t> bound_;    // per tensor: its view is valid in this run
  std::vector<uint8_t> planned_;  // per tensor: bound by the plan for the whole state
  std::vector<Block> blocks_;
  std::vector<const IoBuffer*> external_;    // per tensor: the caller's output buffer
  std::vector<uint8_t> bind_at_run_;         // per node: some output is bound at run time
  std::vector<kernels::WorkEstimate> work_;  // per node: its work, when known at load
  std::vector<size_t> in_begin_, out_begin_;
  std::vector<const TensorView*> in_;
  std::vector<TensorView*> out_;
  std::vector<std::unique_ptr<kernels::KernelState>> states_;
  bool caller_buffer_too_small_ = false;
};

Status RunFrame(Frame& frame, ExecObserver* observer);

// The executor's side of one node's kernel run: views into the frame's tables, nothing owned
// (an unused optional output a kernel asks for gets scratch memory).
class NodeContext final : public kernels::KernelContext {
 public:
  NodeContext(Frame& frame, size_t n, ExecObserver* observer)
      : frame_(frame), n_(n), node_(frame.graph().nodes[n]), observer_(observer) {}

  size_t num_inputs() const override { return node_.inputs.size(); }
  const TensorView* input(size_t i) const override {
    return i < node_.inputs.size() ? frame_.inputs(n_)[i] : nullptr;
  }
  size_t num_outputs() const override { return node_.outputs.size(); }
  bool output_wanted(size_t i) const override {
    return i < node_.outputs.size() && node_.outputs[i] >= 0;
  }
  TensorView* output(size_t i) override {
    return i < node_.outputs.size() && node_.outputs[i] >= 0 ? frame_.Output(n_, i) : nullptr;
  }
  Result<TensorView*> DynamicOutput(size_t i, const Dims& dims) override {
    if (i >= node_.outputs.size()) return Error(code::kInvalidParam, "no output ", i);
    if (node_.outputs[i] < 0) {
      // An optional output the graph does not use (kernels should ask output_wanted): give
      // the kernel scratch memory, 8 bytes per element whatever its type.
      auto bytes = BytesOf(dims, DataType::kInt64);
      if (!bytes) return Error(code::kInvalidParam, "unused output ", i, " has bad dims");
      if (scratch_.empty()) {  // sized once, before any view is handed out
        scratch_.resize(node_.outputs.size());
        scratch_views_.resize(node_.outputs.size());
      }
      // The run's memory (a GPU kernel writes device memory), like any run-time tensor.
      hal::Execution* exec = frame_.exec();
      void* p = ExecOf(exec).AllocateTensor(*bytes + 1);
      if (p == nullptr) {
        return Error(code::kRtMemoryAllocation, "cannot allocate ", *bytes + 1,
                     " bytes for unused output ", i);
      }
      scratch_[i] = Block(static_cast<uint8_t*>(p), FreeDeleter{exec});
      scratch_views_[i] = TensorView{DataType::kUndefined, dims, scratch_[i].get()};
      return &scratch_views_[i];
    }
    auto bound = frame_.Bind(node_.outputs[i], dims);
    if (!bound.ok() && frame_.caller_buffer_too_small()) io_error_ = bound.status();
    return bound;
  }
  hal::Execution* exec() const override { return frame_.exec(); }
  kernels::KernelState* state() const override { return frame_.state(n_); }

  // A caller's buffer that does not fit (kInvalidParam), found while binding an output.
  const Status& io_error() const { return io_error_; }

  Result<std::vector<HostTensor>> RunGraph(int graph,
                                           const std::vector<TensorView>& inputs) override {
    const Program& program = frame_.program();
    if (graph <= 0 || graph >= static_cast<int>(program.graphs.size())) {
      return Error(code::kRtModelExecute, "no body graph ", graph);
    }
    const GraphProgram& body = program.graphs[graph];
    if (inputs.size() > body.inputs.size()) {
      return Error(code::kRtModelExecute, "body '", body.name, "' takes ", body.inputs.size(),
                   " inputs, given ", inputs.size());
    }
    Frame sub(program, body, &frame_, nullptr);
    for (size_t i = 0; i < inputs.size(); ++i) {
      TensorView v = inputs[i];
      const TensorInfo& info = body.tensors[body.inputs[i]];
      if (v.dtype != info.dtype && info.dtype != DataType::kUndefined) {
        return Error(code::kRtModelExecute, "body '", body.name, "' input '", info.name, "' is ",
                     ir::Name(info.dtype), ", given ", ir::Name(v.dtype));
      }
      sub.BindValue(body.inputs[i], std::move(v));
    }
    KILN_RETURN_IF_ERROR(RunFrame(sub, observer_), "in body '" + body.name + "'");
    std::vector<HostTensor> out;
    for (int32_t t : body.outputs) {
      const TensorView* v = sub.Find(t);
      if (v == nullptr) {
        return Error(code::kRtModelExecute, "body output '", body.tensors[t].name,
                     "' was not computed");
      }
      HostTensor h(v->dtype, v->dims);
      ExecOf(frame_.exec()).Copy(h.bytes.data(), v->data, h.bytes.size());
      out.push_back(std::move(h));
    }
    return out;
  }

 private:
  Frame& frame_;
  size_t n_;
  const NodeInfo& node_;
  ExecObserver* observer_;
  std::vector<Block> scratch_;
  std::vector<TensorView> scratch_views_;
  Status io_error_;
};

// Node n's inputs or outputs as the observers take them.
std::vector<const TensorView*> Observed(Frame& frame, size_t n, bool outputs) {
  const NodeInfo& node = frame.graph().nodes[n];
  std::vector<const TensorView*> v;
  if (outputs) {
    for (size_t i = 0; i < node.outputs.size(); ++i) v.push_back(frame.Output(n, i));
  } else {
    v.assign(frame.inputs(n), frame.inputs(n) + node.inputs.size());
  }
  return v;
}

Status NodeFailed(const NodeInfo& node, const Status& st) {
  // A kernel failure is a model execution failure (507011), whatever the kernel's code, except
  // running out of memory; the message names the node once, with its origins.
  const int code =
      st.code() == code::kRtMemoryAllocation ? code::kRtMemoryAllocation : code::kRtModelExecute;
  std::string message = st.message();
  const std::string label = node.op_type + " '" + node.name + "': ";
  if (message.compare(0, label.size(), label) == 0) message.erase(0, label.size());
  return Error(code, "node ", Where(node), ": ", message);
}

// Runs every node of the frame's graph. A node whose outputs the plan bound runs its kernel
// and nothing else.
Status RunFrame(Frame& frame, ExecObserver* observer) {
  const GraphProgram& g = frame.graph();
  const bool body = &g != &frame.program().graphs[0];
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    const NodeInfo& node = g.nodes[n];
    NodeContext ctx(frame, n, observer);
    const bool at_run = frame.bind_at_run(n);
    Status st = Status::Ok();
    if (body) st = frame.ResolveInputs(n);
    if (st.ok() && at_run) st = frame.BindAtRun(n);
    if (!st.ok() && frame.caller_buffer_too_small()) {
      return Error(code::kInvalidParam, "node ", Where(node), ": ", st.message());
    }
    if (!st.ok()) return NodeFailed(node, st);
    if (observer != nullptr) observer->BeforeNode(g, node, Observed(frame, n, false));
    if (hal::Execution* exec = frame.exec()) {
      const kernels::WorkEstimate work = at_run || body ? frame.Work(n) : frame.work(n);
      exec->BeforeKernel(work.ops, work.bytes);
    }
    st = node.kernel->Run(ctx);
    if (!st.ok() && !ctx.io_error().ok()) {
      return Error(code::kInvalidParam, "node ", Where(node), ": ", ctx.io_error().message());
    }
    if (!st.ok()) return NodeFailed(node, st);
    if (at_run) {
      for (size_t i = 0; i < node.outputs.size(); ++i) {
        int32_t t = node.outputs[i];
        if (t >= 0 && frame.Find(t) == nullptr) {
          return Error(code::kRtModelExecute, "node ", Where(node), " did not write output ", i,
                       " ('", g.tensors[t].name, "')");
        }
      }
      frame.Release(static_cast<int32_t>(n));
    }
    if (observer != nullptr) {
      observer->AfterNode(g, node, Observed(frame, n, false), Observed(frame, n, true));
    }
  }
  return Status::Ok();
}

}  // namespace

class ExecState {
 public:
  ExecState(const Program& program, std::unique_ptr<hal::Execution> exec)
      : exec_(std::move(exec)), main_(program, program.graphs[0], nullptr, exec_.get()) {
    main_.FillInputs();
    main_.MakeStates();
  }

  Frame& main() { return main_; }
  hal::Execution* exec() const { return exec_.get(); }
  ReplayPolicy& replay() { return replay_; }
  // Binds the plan for `gear` and `workspace` unless the last run had the same.
  void Plan(int gear, uint8_t* workspace) {
    if (planned_ && gear == gear_ && workspace == workspace_) return;
    main_.set_workspace(workspace);
    main_.BindPlanned(gear, workspace);
    planned_ = true;
    gear_ = gear;
    workspace_ = workspace;
  }
  // Whether the planned gear's runs may be recorded: every node's outputs are bound at load
  // and its kernel is Replayable (hal::Execution::BeginRecording). Worked out once per gear.
  bool Replayable() {
    const size_t slot = static_cast<size_t>(gear_ + 1);
    if (slot >= replayable_.size()) replayable_.resize(slot + 1, -1);
    if (replayable_[slot] < 0) {
      const GraphProgram& g = main_.graph();
      bool all = true;
      for (size_t n = 0; all && n < g.nodes.size(); ++n) {
        all = !main_.bind_at_run(n) && g.nodes[n].kernel->Replayable();
      }
      replayable_[slot] = all ? 1 : 0;
    }
    return replayable_[slot] != 0;
  }

 private:
  std::unique_ptr<hal::Execution> exec_;
  Frame main_;
  bool planned_ = false;
  int gear_ = -1;
  uint8_t* workspace_ = nullptr;
  std::vector<int8_t> replayable_;  // per gear + 1: -1 not worked out yet
  ReplayPolicy replay_;
};

namespace {

// Runs the main graph's kernels: replays the execution's recording of this binding, records
// the run when it repeats the binding of a plain run before it that succeeded, else calls the
// kernels (ReplayPolicy). A recording or replay the device declines or fails falls back to
// calling them, and the policy forgets what the device may no longer hold.
Status RunMain(ExecState& state, int gear, uint8_t* workspace, const std::vector<IoBuffer>& inputs,
               const std::vector<IoBuffer>& outputs, ExecObserver* observer) {
  hal::Execution* exec = state.exec();
  const bool replayable = exec != nullptr && observer == nullptr && state.Replayable();
  ReplayPolicy& policy = state.replay();
  bool recording_failed = false;
  switch (policy.Next(replayable, gear, workspace, inputs, outputs)) {
    case ReplayPolicy::Action::kReplay:
      if (exec->Replay()) return Status::Ok();
      policy.Forget();
      break;
    case ReplayPolicy::Action::kRecord:
      if (exec->BeginRecording()) {
        const Status recorded = RunFrame(state.main(), nullptr);
        if (exec->EndRecording(recorded.ok())) {
          policy.Recorded();
          return Status::Ok();
        }
      }
      recording_failed = true;
      policy.Forget();  // the device may have replaced its recording before it failed
      break;
    case ReplayPolicy::Action::kPlain:
      break;
  }
  Status st = RunFrame(state.main(), observer);
  if (!st.ok()) {
    policy.RunFailed();  // a kernel failed for its own reasons: nothing to hold against the gear
  } else if (recording_failed) {
    policy.RecordingFailed();  // the run works, its recording does not: that gear stays plain
  }
  return st;
}

}  // namespace

void ExecStateDeleter::operator()(ExecState* state) const { delete state; }

ExecStatePtr CreateExecState(const Program& program, std::unique_ptr<hal::Execution> exec) {
  return ExecStatePtr(new ExecState(program, std::move(exec)));
}

hal::Execution* ExecutionOf(const ExecState& state) { return state.exec(); }

int SelectGear(const Program& program, const IoBuffer* selector, hal::Execution* exec) {
  if (program.gears.empty()) return -1;
  if (selector != nullptr && selector->data != nullptr) {
    const size_t count = program.gear_dims.size();
    if (count <= 16 && selector->size >= count * sizeof(int64_t)) {
      int64_t values[16];
      ExecOf(exec).Copy(values, selector->data, count * sizeof(int64_t));
      for (size_t i = 0; i < program.gears.size(); ++i) {
        const std::vector<int64_t>& gear = program.gears[i].values;
        if (gear.size() == count && std::equal(gear.begin(), gear.end(), values)) {
          return static_cast<int>(i);
        }
      }
    }
  }
  int largest = 0;
  for (size_t i = 1; i < program.gears.size(); ++i) {
    if (program.gears[i].work_size > program.gears[largest].work_size) {
      largest = static_cast<int>(i);
    }
  }
  return largest;
}

Status Execute(const Program& program, ExecState& state, uint8_t* workspace,
               const std::vector<IoBuffer>& inputs, const std::vector<IoBuffer>& outputs,
               ExecResult* result, ExecObserver* observer) {
  const GraphProgram& g = program.graphs[0];
  if (inputs.size() != g.inputs.size()) {
    return Error(code::kInvalidParam, "the model has ", g.inputs.size(), " input(s), the dataset ",
                 inputs.size());
  }
  if (outputs.size() != g.outputs.size()) {
    return Error(code::kInvalidParam, "the model has ", g.outputs.size(),
                 " output(s), the dataset ", outputs.size());
  }
  const IoBuffer* selector = nullptr;
  for (size_t i = 0; i < g.inputs.size(); ++i) {
    if (g.tensors[g.inputs[i]].place == TensorPlace::kGear) selector = &inputs[i];
  }
  const int gear = SelectGear(program, selector, state.exec());
  state.Plan(gear, workspace);
  // The device shares its compute threads among the runs in progress, this one included.
  struct ExecutionScope {
    hal::Execution* exec;
    explicit ExecutionScope(hal::Execution* e) : exec(e) {
      if (exec) exec->Begin();
    }
    ~ExecutionScope() {
      if (exec) exec->End();
    }
  } scope(state.exec());
  Frame& frame = state.main();
  frame.Reset();
  // Inputs: the caller's buffers, with the dims the plan or the dataset's descs give.
  for (size_t i = 0; i < g.inputs.size(); ++i) {
    const int32_t t = g.inputs[i];
    const TensorInfo& info = g.tensors[t];
    const IoBuffer& buf = inputs[i];
    TensorView& view = frame.view(t);
    const Dims& planned = GearDims(program, g, gear, t);
    if (buf.has_dims) {
      bool fits = buf.dims.size() == planned.size() || !info.rank_known;
      for (size_t d = 0; fits && d < planned.size(); ++d) {
        fits = planned[d] < 0 || planned[d] == buf.dims[d];
      }
      if (!fits) {
        return Error(code::kInvalidParam, "input '", info.name, "' has dims ",
                     kernels::DimsString(planned), "; the dataset's desc gives ",
                     kernels::DimsString(buf.dims));
      }
      if (view.dims != buf.dims) view.dims = buf.dims;
    } else if (!frame.planned(t)) {
      view.dims = planned;
    }
    auto bytes = BytesOf(view.dims, info.dtype);
    if (!bytes) {
      return Error(code::kInvalidParam, "input '", info.name, "' has dynamic dims ",
                   kernels::DimsString(view.dims),
                   ": give its real dims with aclmdlSetDatasetTensorDesc before executing");
    }
    if (buf.data == nullptr && *bytes > 0) {
      return Error(code::kInvalidParam, "input '", info.name, "' has no data buffer");
    }
    if (buf.size < *bytes) {
      return Error(code::kInvalidParam, "input '", info.name, "' needs ", *bytes, " bytes (dims ",
                   kernels::DimsString(view.dims), ") but its buffer has ", buf.size);
    }
    view.dtype = info.dtype;
    frame.BindCaller(t, buf.data);
  }
  // Outputs a node writes: straight into the caller's buffer, bound now when the plan knows
  // their dims, else when the node binds them.
  for (size_t i = 0; i < g.outputs.size(); ++i) {
    const int32_t t = g.outputs[i];
    if (g.tensors[t].place != TensorPlace::kOutput || frame.Find(t) != nullptr) continue;
    if (outputs[i].data == nullptr && outputs[i].allocate) continue;  // given memory after the run
    if (!frame.planned(t)) {
      frame.SetExternal(t, &outputs[i]);
      continue;
    }
    TensorView& view = frame.view(t);
    if (outputs[i].size < view.bytes()) {
      return Error(code::kInvalidParam, "output '", g.tensors[t].name, "' needs ", view.bytes(),
                   " bytes (dims ", kernels::DimsString(view.dims), ") but its buffer has ",
                   outputs[i].size);
    }
    frame.BindCaller(t, outputs[i].data);
  }
  KILN_RETURN_IF_ERROR(RunMain(state, gear, workspace, inputs, outputs, observer), "");
  // Outputs that no node wrote into the caller's buffer (an input or constant passed through,
  // or one tensor listed twice): copy them. An output without a buffer gets memory from its
  // `allocate` now that its size is known.
  if (result) result->allocated.clear();  // filled only when an output is allocated here
  for (size_t i = 0; i < g.outputs.size(); ++i) {
    const int32_t t = g.outputs[i];
    const TensorView* v = frame.Find(t);
    if (v == nullptr) {
      return Error(code::kRtModelExecute, "output '", g.tensors[t].name, "' was not computed");
    }
    if (outputs[i].data == nullptr && outputs[i].allocate && result != nullptr) {
      void* p = outputs[i].allocate(std::max<size_t>(v->bytes(), 1));
      if (p == nullptr) {
        return Error(code::kRtMemoryAllocation, "cannot allocate ", v->bytes(),
                     " bytes for output '", g.tensors[t].name, "'");
      }
      ExecOf(frame.exec()).Copy(p, v->data, v->bytes());
      result->allocated.resize(g.outputs.size(), {nullptr, 0});
      result->allocated[i] = {p, v->bytes()};
      continue;
    }
    if (v->data != outputs[i].data) {
      if (outputs[i].size < v->bytes()) {
        return Error(code::kInvalidParam, "output '", g.tensors[t].name, "' needs ", v->bytes(),
                     " bytes but its buffer has ", outputs[i].size);
      }
      ExecOf(frame.exec()).Copy(outputs[i].data, v->data, v->bytes());
    }
  }
  if (result) {
    result->output_dims.resize(g.outputs.size());
    for (size_t i = 0; i < g.outputs.size(); ++i) {
      const Dims& d = frame.Find(g.outputs[i])->dims;
      if (result->output_dims[i] != d) result->output_dims[i] = d;
    }
    result->gear = gear;
  }
  frame.Reset();  // run-time allocations go back now, not at the next run
  return Status::Ok();
}

}  // namespace kiln::runtime
