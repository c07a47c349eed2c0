// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "runtime/executor.h"

#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>

#include "hal/device.h"
#include "kernels/util.h"

namespace kiln::runtime {
namespace {

using kernels::DataType;
using kernels::Dims;
using kernels::HostTensor;
using kernels::TensorView;

struct FreeDeleter {
  void operator()(uint8_t* p) const { std::free(p); }
};
using Block = std::unique_ptr<uint8_t, FreeDeleter>;

// Bytes of a tensor of `dims` and `dtype`; nullopt for a negative dim or on overflow.
std::optional<uint64_t> BytesOf(const Dims& dims, DataType dtype) {
  uint64_t n = ir::SizeOf(dtype);
  for (int64_t d : dims) {
    if (d < 0) return std::nullopt;
    if (d != 0 && n > std::numeric_limits<uint64_t>::max() / static_cast<uint64_t>(d)) {
      return std::nullopt;
    }
    n *= static_cast<uint64_t>(d);
  }
  return n;
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

// One graph's tensors during one execution.
class Frame {
 public:
  // `device` runs the kernels' ParallelFor (null: serially on the calling thread); a body's
  // frame uses its parent's.
  Frame(const GraphProgram& graph, const Frame* parent, uint8_t* workspace,
        hal::Device* device = nullptr, ExecObserver* observer = nullptr)
      : graph_(graph),
        parent_(parent),
        workspace_(workspace),
        device_(parent != nullptr ? parent->device_ : device),
        observer_(parent != nullptr ? parent->observer_ : observer),
        views_(graph.tensors.size()),
        bound_(graph.tensors.size(), false),
        blocks_(graph.tensors.size()) {
    for (size_t i = 0; i < graph.tensors.size(); ++i) {
      if (graph.tensors[i].place == TensorPlace::kWeight) {
        views_[i] = graph.tensors[i].constant;
        bound_[i] = true;
      }
    }
  }

  const GraphProgram& graph() const { return graph_; }
  hal::Device* device() const { return device_; }
  ExecObserver* observer() const { return observer_; }

  // The view of tensor `t`, resolving captured values through the enclosing frames.
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

  void BindExternal(int32_t t, TensorView view) {
    views_[t] = std::move(view);
    bound_[t] = true;
  }

  // Binds tensor `t` with `dims` to its planned place, the caller's buffer `external` (main
  // graph outputs), or a fresh allocation.
  Result<TensorView*> Bind(int32_t t, const Dims& dims, const IoBuffer* external) {
    const TensorInfo& info = graph_.tensors[t];
    auto bytes = BytesOf(dims, info.dtype);
    if (!bytes) {
      return Error(code::kInvalidParam, "tensor '", info.name, "' would have dims ",
                   kernels::DimsString(dims));
    }
    if (bound_[t] && info.place != TensorPlace::kOutput) {
      return Error(code::kInternalError, "tensor '", info.name, "' is written twice");
    }
    TensorView& v = views_[t];
    v.dtype = info.dtype;
    v.dims = dims;
    if (external != nullptr) {
      if (external->size < *bytes) {
        return Error(code::kInvalidParam, "output '", info.name, "' needs ", *bytes,
                     " bytes (dims ", kernels::DimsString(dims), ") but its buffer has ",
                     external->size);
      }
      v.data = external->data;
    } else if (info.place == TensorPlace::kWorkspace && *bytes <= info.bytes) {
      v.data = workspace_ + info.offset;
    } else {
      // 64-byte aligned, at least one byte so empty tensors still have an address.
      size_t size = (std::max<uint64_t>(*bytes, 1) + 63) / 64 * 64;
      if (*bytes > (uint64_t{1} << 46)) {
        return Error(code::kRtMemoryAllocation, "tensor '", info.name, "' needs ", *bytes,
                     " bytes");
      }
      Block block(static_cast<uint8_t*>(std::aligned_alloc(64, size)));
      if (!block) {
        return Error(code::kRtMemoryAllocation, "cannot allocate ", *bytes, " bytes for tensor '",
                     info.name, "'");
      }
      v.data = block.get();
      blocks_[t] = std::move(block);
    }
    bound_[t] = true;
    return &v;
  }

  // Frees run-time allocations whose last reader was node `n` (graph outputs stay).
  void Release(int32_t n) {
    for (int32_t t : graph_.nodes[n].inputs) {
      if (t >= 0 && graph_.last_use[t] == n && blocks_[t] && !graph_.is_output[t]) {
        blocks_[t].reset();
      }
    }
  }

 private:
  const GraphProgram& graph_;
  const Frame* parent_;
  uint8_t* workspace_;
  hal::Device* device_;
  ExecObserver* observer_;
  std::vector<TensorView> views_;
  std::vector<bool> bound_;
  std::vector<Block> blocks_;
};

Status RunFrame(const Program& program, Frame& frame, const std::vector<const IoBuffer*>& outs);

// The executor's side of one node's kernel run.
class NodeContext final : public kernels::KernelContext {
 public:
  NodeContext(const Program& program, Frame& frame, const NodeInfo& node,
              const std::vector<const IoBuffer*>& outs)
      : program_(program), frame_(frame), node_(node), outs_(outs) {}

  Status ResolveInputs() {
    inputs_.resize(node_.inputs.size(), nullptr);
    for (size_t i = 0; i < node_.inputs.size(); ++i) {
      int32_t t = node_.inputs[i];
      if (t < 0) continue;
      inputs_[i] = frame_.Find(t);
      if (inputs_[i] == nullptr) {
        return Error(code::kRtModelExecute, "reads '", frame_.graph().tensors[t].name,
                     "' before it is computed");
      }
    }
    return Status::Ok();
  }

  size_t num_inputs() const override { return inputs_.size(); }
  const TensorView* input(size_t i) const override {
    return i < inputs_.size() ? inputs_[i] : nullptr;
  }
  size_t num_outputs() const override { return node_.outputs.size(); }
  bool output_wanted(size_t i) const override {
    return i < node_.outputs.size() && node_.outputs[i] >= 0;
  }
  Result<TensorView*> Output(size_t i, const Dims& dims) override {
    if (i >= node_.outputs.size() || node_.outputs[i] < 0) {
      // An optional output the graph does not use (kernels should ask output_wanted): give
      // the kernel scratch memory, 8 bytes per element whatever its type.
      auto bytes = BytesOf(dims, DataType::kInt64);
      if (!bytes) return Error(code::kInvalidParam, "unused output ", i, " has bad dims");
      if (i >= node_.outputs.size()) return Error(code::kInvalidParam, "no output ", i);
      if (scratch_.empty()) {  // sized once, before any view is handed out
        scratch_.resize(node_.outputs.size());
        scratch_views_.resize(node_.outputs.size());
      }
      scratch_[i].bytes.assign(*bytes + 1, 0);
      scratch_views_[i] = TensorView{DataType::kUndefined, dims, scratch_[i].bytes.data()};
      return &scratch_views_[i];
    }
    const int32_t t = node_.outputs[i];
    auto bound = frame_.Bind(t, dims, outs_.empty() ? nullptr : outs_[t]);
    if (!bound.ok() && bound.status().code() == code::kInvalidParam) io_error_ = bound.status();
    return bound;
  }

  void ParallelFor(int64_t n, int64_t grain,
                   const std::function<void(int64_t, int64_t)>& fn) override {
    if (frame_.device() != nullptr) {
      frame_.device()->ParallelFor(n, grain, fn);
    } else if (n > 0) {
      fn(0, n);
    }
  }

  // A caller's buffer that does not fit (kInvalidParam), found while binding an output.
  const Status& io_error() const { return io_error_; }
  const std::vector<const TensorView*>& inputs() const { return inputs_; }

  Result<std::vector<HostTensor>> RunGraph(int graph,
                                           const std::vector<TensorView>& inputs) override {
    if (graph <= 0 || graph >= static_cast<int>(program_.graphs.size())) {
      return Error(code::kRtModelExecute, "no body graph ", graph);
    }
    const GraphProgram& body = program_.graphs[graph];
    if (inputs.size() > body.inputs.size()) {
      return Error(code::kRtModelExecute, "body '", body.name, "' takes ", body.inputs.size(),
                   " inputs, given ", inputs.size());
    }
    Frame sub(body, &frame_, nullptr);
    for (size_t i = 0; i < inputs.size(); ++i) {
      TensorView v = inputs[i];
      const TensorInfo& info = body.tensors[body.inputs[i]];
      if (v.dtype != info.dtype && info.dtype != DataType::kUndefined) {
        return Error(code::kRtModelExecute, "body '", body.name, "' input '", info.name, "' is ",
                     ir::Name(info.dtype), ", given ", ir::Name(v.dtype));
      }
      sub.BindExternal(body.inputs[i], std::move(v));
    }
    KILN_RETURN_IF_ERROR(RunFrame(program_, sub, {}), "in body '" + body.name + "'");
    std::vector<HostTensor> out;
    for (int32_t t : body.outputs) {
      const TensorView* v = sub.Find(t);
      if (v == nullptr) {
        return Error(code::kRtModelExecute, "body output '", body.tensors[t].name,
                     "' was not computed");
      }
      HostTensor h(v->dtype, v->dims);
      if (!h.bytes.empty()) std::memcpy(h.bytes.data(), v->data, h.bytes.size());
      out.push_back(std::move(h));
    }
    return out;
  }

 private:
  const Program& program_;
  Frame& frame_;
  const NodeInfo& node_;
  const std::vector<const IoBuffer*>& outs_;
  std::vector<const TensorView*> inputs_;
  std::vector<HostTensor> scratch_;
  std::vector<TensorView> scratch_views_;
  Status io_error_;
};

// Runs every node of the frame's graph; `outs` maps main-graph tensors to the caller's output
// buffers (empty for bodies).
Status RunFrame(const Program& program, Frame& frame, const std::vector<const IoBuffer*>& outs) {
  const GraphProgram& g = frame.graph();
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    const NodeInfo& node = g.nodes[n];
    NodeContext ctx(program, frame, node, outs);
    Status st = ctx.ResolveInputs();
    ExecObserver* observer = frame.observer();
    if (observer != nullptr && st.ok()) observer->BeforeNode(g, node, ctx.inputs());
    if (st.ok()) st = node.kernel->Run(ctx);
    if (!st.ok() && !ctx.io_error().ok()) {
      return Error(code::kInvalidParam, "node ", Where(node), ": ", ctx.io_error().message());
    }
    if (!st.ok()) {
      // A kernel failure is a model execution failure (507011), whatever the kernel's code,
      // except running out of memory; the message names the node once, with its origins.
      const int code = st.code() == code::kRtMemoryAllocation ? code::kRtMemoryAllocation
                                                              : code::kRtModelExecute;
      std::string message = st.message();
      const std::string label = node.op_type + " '" + node.name + "': ";
      if (message.compare(0, label.size(), label) == 0) message.erase(0, label.size());
      return Error(code, "node ", Where(node), ": ", message);
    }
    for (size_t i = 0; i < node.outputs.size(); ++i) {
      int32_t t = node.outputs[i];
      if (t >= 0 && frame.Find(t) == nullptr) {
        return Error(code::kRtModelExecute, "node ", Where(node), " did not write output ", i,
                     " ('", g.tensors[t].name, "')");
      }
    }
    if (observer != nullptr) {
      std::vector<const TensorView*> outputs(node.outputs.size(), nullptr);
      for (size_t i = 0; i < node.outputs.size(); ++i) {
        if (node.outputs[i] >= 0) outputs[i] = frame.Find(node.outputs[i]);
      }
      observer->AfterNode(g, node, ctx.inputs(), outputs);
    }
    frame.Release(static_cast<int32_t>(n));
  }
  return Status::Ok();
}

}  // namespace

int SelectGear(const Program& program, const IoBuffer* selector) {
  if (program.gears.empty()) return -1;
  if (selector != nullptr && selector->data != nullptr) {
    const size_t count = program.gear_dims.size();
    if (selector->size >= count * sizeof(int64_t)) {
      std::vector<int64_t> values(count);
      std::memcpy(values.data(), selector->data, count * sizeof(int64_t));
      for (size_t i = 0; i < program.gears.size(); ++i) {
        if (program.gears[i].values == values) return static_cast<int>(i);
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

Status Execute(const Program& program, uint8_t* workspace, const std::vector<IoBuffer>& inputs,
               const std::vector<IoBuffer>& outputs, ExecResult* result, hal::Device* device,
               ExecObserver* observer) {
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
  const int gear = SelectGear(program, selector);
  Frame frame(g, nullptr, workspace, device, observer);
  for (size_t i = 0; i < g.inputs.size(); ++i) {
    const int32_t t = g.inputs[i];
    const TensorInfo& info = g.tensors[t];
    const IoBuffer& buf = inputs[i];
    Dims dims = info.dims;
    if (gear >= 0) {
      auto it = program.gears[gear].tensor_dims.find(t);
      if (it != program.gears[gear].tensor_dims.end()) dims = it->second;
    }
    if (buf.has_dims) {
      bool fits = buf.dims.size() == dims.size();
      for (size_t d = 0; fits && d < dims.size(); ++d) {
        fits = dims[d] < 0 || dims[d] == buf.dims[d];
      }
      if (!fits) {
        return Error(code::kInvalidParam, "input '", info.name, "' has dims ",
                     kernels::DimsString(dims), "; the dataset's desc gives ",
                     kernels::DimsString(buf.dims));
      }
      dims = buf.dims;
    }
    auto bytes = BytesOf(dims, info.dtype);
    if (!bytes) {
      return Error(code::kInvalidParam, "input '", info.name, "' has dynamic dims ",
                   kernels::DimsString(dims),
                   ": give its real dims with aclmdlSetDatasetTensorDesc before executing");
    }
    if (buf.data == nullptr && *bytes > 0) {
      return Error(code::kInvalidParam, "input '", info.name, "' has no data buffer");
    }
    if (buf.size < *bytes) {
      return Error(code::kInvalidParam, "input '", info.name, "' needs ", *bytes, " bytes (dims ",
                   kernels::DimsString(dims), ") but its buffer has ", buf.size);
    }
    frame.BindExternal(t, TensorView{info.dtype, dims, buf.data});
  }
  std::vector<const IoBuffer*> outs(g.tensors.size(), nullptr);
  for (size_t i = 0; i < g.outputs.size(); ++i) {
    const int32_t t = g.outputs[i];
    if (g.tensors[t].place == TensorPlace::kOutput && outs[t] == nullptr) outs[t] = &outputs[i];
  }
  KILN_RETURN_IF_ERROR(RunFrame(program, frame, outs), "");
  // Outputs that no node wrote into the caller's buffer (an input or constant passed through,
  // or one tensor listed twice): copy them.
  if (result) result->output_dims.assign(g.outputs.size(), Dims{});
  for (size_t i = 0; i < g.outputs.size(); ++i) {
    const int32_t t = g.outputs[i];
    const TensorView* v = frame.Find(t);
    if (v == nullptr) {
      return Error(code::kRtModelExecute, "output '", g.tensors[t].name, "' was not computed");
    }
    if (v->data != outputs[i].data) {
      if (outputs[i].size < v->bytes()) {
        return Error(code::kInvalidParam, "output '", g.tensors[t].name, "' needs ", v->bytes(),
                     " bytes but its buffer has ", outputs[i].size);
      }
      if (v->bytes()) std::memcpy(outputs[i].data, v->data, v->bytes());
    }
    if (result) result->output_dims[i] = v->dims;
  }
  if (result) result->gear = gear;
  return Status::Ok();
}

}  // namespace kiln::runtime
