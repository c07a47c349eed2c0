// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The executor: walks a Program's kernel list for one execution. Planned tensors live in the
// caller-provided workspace, inputs and outputs in the caller's buffers, constants in the
// weights; only tensors whose size is known just at run time (fully dynamic dims,
// data-dependent shapes, control-flow bodies) are allocated, and freed after their last use.
// Thread-safe: concurrent executions of one Program need distinct workspaces and states.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "base/status.h"
#include "hal/execution.h"
#include "runtime/program.h"

namespace kiln::runtime {

struct IoBuffer {
  void* data = nullptr;
  size_t size = 0;
  // The input's real dims (for dims the model leaves dynamic); empty = the model's dims.
  bool has_dims = false;
  kernels::Dims dims;
  // Outputs only: with no buffer (data null, size 0), the run gets the output's memory from this
  // once its size is known (CANN's aclmdlExecute with a NULL output buffer); the caller owns it
  // and finds it in ExecResult::allocated. Null: an output needs a buffer.
  std::function<void*(size_t bytes)> allocate;
};

struct ExecResult {
  std::vector<kernels::Dims> output_dims;  // actual dims of each output
  int gear = -1;                           // the gear that ran (-1: static model)
  // Per output: the memory `allocate` gave it and its bytes ({null, 0} for the others); empty
  // when no output was allocated.
  std::vector<std::pair<void*, size_t>> allocated;
};

// Watches one execution node by node: the profiler times nodes, the data dump writes their
// tensors. Called on the executing thread, in node order, for the main graph and for every
// node of an If/Loop/Scan body (nested inside the node that runs the body). BeforeNode sees
// the inputs before the node may overwrite one in place; AfterNode sees the outputs (null for
// an unused optional output) and the inputs' dims. Must not fail or throw.
class ExecObserver {
 public:
  virtual ~ExecObserver() = default;
  virtual void BeforeNode(const GraphProgram& graph, const NodeInfo& node,
                          const std::vector<const kernels::TensorView*>& inputs) = 0;
  virtual void AfterNode(const GraphProgram& graph, const NodeInfo& node,
                         const std::vector<const kernels::TensorView*>& inputs,
                         const std::vector<const kernels::TensorView*>& outputs) = 0;
};

// Passes each call on to several observers in order (profiling and the data dump together).
class ObserverFanOut final : public ExecObserver {
 public:
  explicit ObserverFanOut(std::vector<ExecObserver*> observers)
      : observers_(std::move(observers)) {}
  void BeforeNode(const GraphProgram& graph, const NodeInfo& node,
                  const std::vector<const kernels::TensorView*>& inputs) override {
    for (ExecObserver* o : observers_) o->BeforeNode(graph, node, inputs);
  }
  void AfterNode(const GraphProgram& graph, const NodeInfo& node,
                 const std::vector<const kernels::TensorView*>& inputs,
                 const std::vector<const kernels::TensorView*>& outputs) override {
    // Reverse order: the first observer is the outermost, so one that times the node (the
    // profiler, listed last) counts only the kernel, not the others' work.
    for (auto it = observers_.rbegin(); it != observers_.rend(); ++it) {
      (*it)->AfterNode(graph, node, inputs, outputs);
    }
  }

 private:
  std::vector<ExecObserver*> observers_;
};

// One execution's reusable state: the main graph's tensor views bound to their planned places
// (per gear and workspace), the kernels' input and output tables, the device execution slot.
// Made once per concurrent execution slot of a model and reused, so a run of a static model
// allocates nothing. Not thread-safe: one run at a time per state.
class ExecState;
struct ExecStateDeleter {
  void operator()(ExecState* state) const;
};
using ExecStatePtr = std::unique_ptr<ExecState, ExecStateDeleter>;

// A state for `program` whose kernels run in `exec` (owned by the state; null: the calling
// thread alone).
ExecStatePtr CreateExecState(const Program& program, std::unique_ptr<hal::Execution> exec);
// The state's device execution (null when it has none): observers read device tensors with it.
hal::Execution* ExecutionOf(const ExecState& state);

// The gear whose values equal the first values in `selector` (the gear input's buffer), or the
// largest gear when none matches (nothing selected yet); -1 for a model without gears. The
// buffer is read through `exec` (null: plainly), as it may be device memory.
int SelectGear(const Program& program, const IoBuffer* selector, hal::Execution* exec);

// Runs the main graph with `state` (made for `program`). `inputs`/`outputs` follow the model's
// input/output order (the gear selector included). Fails with kInvalidParam for buffers that do
// not fit the model (the message names the tensor, the bytes needed and given) and
// kRtModelExecute for a kernel failure (the message names the node and its ONNX origins).
// `observer` (may be null, the usual case: then nothing per node is added) watches every node.
// The run is bracketed by the state's hal::Execution Begin/End.
//
// Nodes whose output dims are known at load (for the selected gear) run with outputs bound to
// the workspace or the caller's buffers before the run: no shape function, check or
// allocation per node. Only nodes with dims known just at run time take the op's shape
// function (kernels/definition.h) and pooled memory.
Status Execute(const Program& program, ExecState& state, uint8_t* workspace,
               const std::vector<IoBuffer>& inputs, const std::vector<IoBuffer>& outputs,
               ExecResult* result, ExecObserver* observer = nullptr);

}  // namespace kiln::runtime
