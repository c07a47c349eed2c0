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

#include "base/status.h"
#include "ir/attribute.h"
#include "kernels/tensor_view.h"

namespace kiln::kernels {

// What a kernel is prepared from: one node of a loaded model.
struct NodeDef {
  std::string op_type;
  std::string domain;  // "" is the ONNX domain
  std::string name;
  int opset = 0;
  // Attributes; a graph attribute is not stored here but in `graphs`.
  std::map<std::string, ir::Attribute> attrs;
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

  size_t num_inputs() const { return has_input.size(); }
  size_t num_outputs() const { return output_types.size(); }
  bool input_given(size_t i) const { return i < has_input.size() && has_input[i]; }
  const TensorView* constant(size_t i) const {
    return i < constants.size() ? constants[i] : nullptr;
  }

  bool has_attr(const std::string& n) const { return attrs.count(n) != 0; }
  // Typed attribute access with a default when absent (or of another kind).
  int64_t attr_int(const std::string& n, int64_t dflt) const;
  float attr_float(const std::string& n, float dflt) const;
  std::string attr_string(const std::string& n, const std::string& dflt) const;
  std::vector<int64_t> attr_ints(const std::string& n, std::vector<int64_t> dflt = {}) const;
  std::vector<float> attr_floats(const std::string& n, std::vector<float> dflt = {}) const;
  std::vector<std::string> attr_strings(const std::string& n) const;
  const ir::Tensor* attr_tensor(const std::string& n) const;
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

// The executor's side of one kernel run.
class KernelContext {
 public:
  virtual ~KernelContext() = default;

  virtual size_t num_inputs() const = 0;
  // Input i, or null when the optional input is omitted.
  virtual const TensorView* input(size_t i) const = 0;
  virtual size_t num_outputs() const = 0;
  // Binds output i with `dims` (its type is the node's output type) and returns where to write
  // it; call once per output before writing. Fails (kRtMemoryAllocation or kInvalidParam for a
  // caller's output buffer that is too small) with a message naming the tensor.
  virtual Result<TensorView*> Output(size_t i, const Dims& dims) = 0;
  // Whether output i is used at all (an unused optional output may be skipped).
  virtual bool output_wanted(size_t i) const { return true; }

  // Runs body `graph` (NodeDef::graph) with `inputs` bound to its inputs in order; the body's
  // captured values resolve to this node's enclosing scope. Returns the body outputs.
  virtual Result<std::vector<HostTensor>> RunGraph(int graph,
                                                   const std::vector<TensorView>& inputs) = 0;

  // Runs fn(begin, end) over [0, n) split into chunks of at least `grain`, on the device's
  // compute threads where it has them; returns when every chunk is done.
  virtual void ParallelFor(int64_t n, int64_t grain,
                           const std::function<void(int64_t, int64_t)>& fn) {
    if (n > 0) fn(0, n);
  }
};

class Kernel {
 public:
  virtual ~Kernel() = default;
  // Runs the node. Must be thread-safe: one kernel serves concurrent executions.
  virtual Status Run(KernelContext& ctx) const = 0;
};

// Prepare: creates the kernel for `def`, or fails with kFeatureUnsupported (an attribute value
// or data type this kernel does not handle) or kInvalidParam (a node that breaks the op's
// rules), the message naming the node.
using KernelFactory = std::function<Result<std::unique_ptr<Kernel>>(const NodeDef& def)>;

// A kernel from a plain function (stateless kernels: everything comes from def and ctx).
using RunFn = Status (*)(const NodeDef& def, KernelContext& ctx);
std::unique_ptr<Kernel> MakeFunctionKernel(const NodeDef& def, RunFn fn);

}  // namespace kiln::kernels
