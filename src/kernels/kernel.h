// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The kernel interface (docs/design.md §6). A kernel is created once per node at model load
// from a NodeDef (the factory is `Prepare`: it validates attributes and constant inputs, packs
// weights and may fail) and then run many times, possibly concurrently, through a
// KernelContext that the executor implements: it hands out the inputs, binds each output once
// the kernel knows its dims, and runs control-flow bodies.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/function_ref.h"
#include "base/status.h"
#include "ir/attribute.h"
#include "kernels/precision.h"
#include "kernels/tensor_view.h"

namespace kiln::hal {
class Device;
class Execution;
}  // namespace kiln::hal

namespace kiln::kernels {

// What a kernel is prepared from: one node of a loaded model.
struct NodeDef : ir::AttrGetters<NodeDef> {
  std::string op_type;
  std::string domain;  // "" is the ONNX domain
  std::string name;
  int opset = 0;
  // Attributes; a graph attribute is not stored here but in `graphs`.
  ir::AttrMap attrs;
  // Graph attributes: attribute name -> body index for KernelContext::RunGraph.
  std::map<std::string, int> graphs;
  // Per input (size = node input count): false for an omitted optional input.
  std::vector<bool> has_input;
  // Per input: the planned element type and dims (-1 for a dim known only at run time).
  std::vector<DataType> input_types;
  std::vector<Dims> input_dims;
  // Per input: the data of a constant input (a weight), valid for the kernel's lifetime;
  // null for computed inputs.
  std::vector<const TensorView*> constants;
  std::vector<DataType> output_types;
  std::vector<Dims> output_dims;
  // Per input / output: false when its rank is not known at load (its dims are then empty).
  // Shorter than the inputs / outputs (a NodeDef written by hand): every rank is known.
  std::vector<bool> input_rank_known, output_rank_known;
  // Per output: false for an optional output the graph leaves out. Shorter: all used.
  std::vector<bool> has_output;
  // The device the kernel will run on (backend resources at Prepare); null for tests that
  // prepare kernels without one.
  hal::Device* device = nullptr;
  // What the model was compiled for (precision.h): matrix kernels may compute in bf16.
  MatrixPrecision matrix_precision = MatrixPrecision::kFp32;

  size_t num_inputs() const { return has_input.size(); }
  size_t num_outputs() const { return output_types.size(); }
  bool input_given(size_t i) const { return i < has_input.size() && has_input[i]; }
  const TensorView* constant(size_t i) const {
    return i < constants.size() ? constants[i] : nullptr;
  }
  bool input_ranked(size_t i) const { return i >= input_rank_known.size() || input_rank_known[i]; }
  bool output_ranked(size_t i) const {
    return i >= output_rank_known.size() || output_rank_known[i];
  }
  bool output_used(size_t i) const {
    return i < output_types.size() && (i >= has_output.size() || has_output[i]);
  }

  // Attributes, read with AttrGetters (the op's defaults are filled in before a kernel sees
  // the node: KernelRegistry::Create).
  const ir::AttrMap& attr_map() const { return attrs; }
  // Body index of graph attribute `n`, or -1.
  int graph(const std::string& n) const;

  // "Conv 'conv1'" for messages.
  std::string Label() const;
  // An error about this node: "Conv 'conv1': <text>" with `code`.
  template <typename... Args>
  Status Fail(int code, Args&&... args) const {
    return Error(code, Label(), ": ", std::forward<Args>(args)...);
  }
};

// What a kernel keeps between the runs of one execution slot (scratch buffers, a library's
// prepared argument objects), so that its runs allocate nothing after the first: made by
// Kernel::CreateState when the slot is made (at load), destroyed with the slot. One run at a
// time uses a state; a kernel serves concurrent runs through their different states.
class KernelState {
 public:
  virtual ~KernelState() = default;
};

// The executor's side of one kernel run. The executor binds every output before the kernel
// runs — dims from the op's definition, memory from the plan (static graphs: at load, per
// gear) — so a kernel reads its inputs, writes its outputs and computes nothing else: no
// output dims, no checks of its node (kernels/definition.h did them at load), no allocation.
class KernelContext {
 public:
  virtual ~KernelContext() = default;

  virtual size_t num_inputs() const = 0;
  // Input i, or null when the optional input is omitted.
  virtual const TensorView* input(size_t i) const = 0;
  virtual size_t num_outputs() const = 0;
  // Output i, bound with its dims; null for an optional output the graph does not use, and for
  // an output of an op whose dims depend on input values (ir::kTraitDataDependentShape), which
  // the kernel binds itself with DynamicOutput.
  virtual TensorView* output(size_t i) = 0;
  // Binds output i of a data-dependent op with `dims` once the kernel knows them, and returns
  // where to write it. Fails with kRtMemoryAllocation, or kInvalidParam for a caller's output
  // buffer that is too small, naming the tensor.
  virtual Result<TensorView*> DynamicOutput(size_t i, const Dims& dims) = 0;
  // Whether output i is used at all (an unused optional output may be skipped).
  virtual bool output_wanted(size_t i) const { return true; }

  // Runs body `graph` (NodeDef::graph) with `inputs` bound to its inputs in order; the body's
  // captured values resolve to this node's enclosing scope. Returns the body outputs.
  virtual Result<std::vector<HostTensor>> RunGraph(int graph,
                                                   const std::vector<TensorView>& inputs) = 0;

  // The device execution this run belongs to (hal/execution.h); null when the kernel runs
  // outside a device (a unit test, constant folding).
  virtual hal::Execution* exec() const { return nullptr; }
  // This slot's state of the kernel (Kernel::CreateState); null when the kernel keeps none or
  // runs outside an execution slot (a body graph, a test): it must then work without.
  virtual KernelState* state() const { return nullptr; }
  // Runs fn(begin, end) over [0, n) split into chunks of at least `grain`, on the execution's
  // compute threads where it has them; returns when every chunk is done.
  void ParallelFor(int64_t n, int64_t grain, FunctionRef<void(int64_t, int64_t)> fn);
};

// A context that passes every call on to `base` but state(): for a kernel that runs another
// kernel (a fallback, a layout wrapper) on its own run, so the inner kernel never sees the
// outer one's per-slot state. Subclasses override what they change.
class ForwardingContext : public KernelContext {
 public:
  explicit ForwardingContext(KernelContext& base) : base_(base) {}
  size_t num_inputs() const override { return base_.num_inputs(); }
  const TensorView* input(size_t i) const override { return base_.input(i); }
  size_t num_outputs() const override { return base_.num_outputs(); }
  TensorView* output(size_t i) override { return base_.output(i); }
  Result<TensorView*> DynamicOutput(size_t i, const Dims& dims) override {
    return base_.DynamicOutput(i, dims);
  }
  bool output_wanted(size_t i) const override { return base_.output_wanted(i); }
  Result<std::vector<HostTensor>> RunGraph(int graph,
                                           const std::vector<TensorView>& inputs) override {
    return base_.RunGraph(graph, inputs);
  }
  hal::Execution* exec() const override { return base_.exec(); }

 protected:
  KernelContext& base_;
};

class Kernel {
 public:
  virtual ~Kernel() = default;
  // Runs the node. Must be thread-safe: one kernel serves concurrent executions.
  virtual Status Run(KernelContext& ctx) const = 0;
  // A state for one execution slot (see KernelState); null (the default) for none.
  virtual std::unique_ptr<KernelState> CreateState() const { return nullptr; }

  // Releasing weights (runtime/program.cc): the runtime, about to give back the memory of
  // constant input `i` (whose only reader is this kernel), asks whether the kernel agrees. It
  // agrees only when it holds the values in a copy of its own from which it can write them back
  // exactly; from then on it reads only that copy, and writes the constant back itself before
  // any path of its own that reads the original (a fallback kernel). Called at load, before
  // any run.
  virtual bool ReleaseConstant(size_t i) { return false; }
  // Writes every released constant back (into the same memory) so that others may read it
  // (the data dump of a node's inputs); thread-safe, and a no-op once they are back.
  virtual void RestoreConstants() const {}

  // Whether a device may record this kernel's run and replay the recording in later runs of
  // the same binding (the same tensors at the same addresses, the same dims) without calling
  // Run again: a CUDA graph (hal::Execution::BeginRecording). True only for a kernel whose Run
  // does nothing on the host that depends on the run — it reads no tensor on the host, copies
  // nothing from host memory that dies with the call, synchronises nothing — but enqueue
  // device work with arguments fixed by the binding. False (the default) keeps every run of
  // its model a plain one.
  virtual bool Replayable() const { return false; }
};

// Prepare: creates the kernel for `def`, or fails with kFeatureUnsupported (an attribute value
// or data type this kernel does not handle) or kInvalidParam (a node that breaks the op's
// rules), the message naming the node.
using KernelFactory = std::function<Result<std::unique_ptr<Kernel>>(const NodeDef& def)>;

// A kernel from a plain function (stateless kernels: everything comes from def and ctx).
// `replayable`: see Kernel::Replayable.
using RunFn = Status (*)(const NodeDef& def, KernelContext& ctx);
std::unique_ptr<Kernel> MakeFunctionKernel(const NodeDef& def, RunFn fn, bool replayable = false);

// A kernel from a plain function that fills scratch vectors each run (a list of its inputs'
// pieces, an index): `State` (a KernelState) holds them per execution slot, so they keep their
// capacity and only a slot's first run allocates. A run outside a slot gets a fresh State.
template <typename State>
using ScratchRunFn = Status (*)(const NodeDef& def, KernelContext& ctx, State& scratch);

template <typename State>
class ScratchKernel final : public Kernel {
 public:
  ScratchKernel(const NodeDef& def, ScratchRunFn<State> fn) : def_(def), fn_(fn) {}
  Status Run(KernelContext& ctx) const override {
    if (KernelState* s = ctx.state()) return fn_(def_, ctx, static_cast<State&>(*s));
    State local;
    return fn_(def_, ctx, local);
  }
  std::unique_ptr<KernelState> CreateState() const override { return std::make_unique<State>(); }

 private:
  NodeDef def_;
  ScratchRunFn<State> fn_;
};

template <typename State>
std::unique_ptr<Kernel> MakeScratchKernel(const NodeDef& def, ScratchRunFn<State> fn) {
  return std::make_unique<ScratchKernel<State>>(def, fn);
}

}  // namespace kiln::kernels
