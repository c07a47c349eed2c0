// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Program: a loaded .om turned into what the executor walks — per graph, its tensors (where
// each lives: workspace offset, weights, caller's buffer, or allocated at run time) and its
// nodes with their prepared kernels. Built once at load (kernels created, weights bound);
// read-only afterwards, so executions share it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/status.h"
#include "hal/device.h"
#include "kernels/cost.h"
#include "kernels/kernel.h"

namespace kiln::runtime {

enum class TensorPlace : uint8_t {
  kWorkspace,  // planned: workspace + offset (when the run-time size fits `bytes`)
  kDynamic,    // allocated at run time (unplanned or dynamic-shape tensors)
  kWeight,     // constant: weights + offset
  kInput,      // graph input (the caller's buffer for the main graph)
  kOutput,     // main-graph output (the caller's buffer)
  kGear,       // the gear selector input (ascend_mbatch_shape_data)
  kCaptured,   // a body graph's value from the enclosing scope (resolved by name)
};

struct TensorInfo {
  std::string name;
  kernels::DataType dtype = kernels::DataType::kUndefined;
  kernels::Dims dims;      // planned dims; -1 where known only at run time
  bool rank_known = true;  // false: dims is empty and even the rank is known only at run time
  int32_t format = 2;      // aclFormat
  TensorPlace place = TensorPlace::kDynamic;
  uint64_t offset = 0;           // workspace or weights offset
  uint64_t bytes = 0;            // planned bytes (largest gear)
  kernels::TensorView constant;  // kWeight: the bound data (host memory: kernels' Prepare)
  void* device_data = nullptr;   // kWeight: the data in device memory runs read, when apart
};

struct NodeInfo {
  std::string op_type;
  std::string name;
  std::vector<std::string> origins;  // ONNX node names
  std::vector<int32_t> inputs;       // tensor indices, -1 = omitted
  std::vector<int32_t> outputs;
  std::vector<int32_t> bodies;  // indices of its If/Loop/Scan body graphs
  std::unique_ptr<kernels::Kernel> kernel;
  // The node as its kernel was prepared from it (the op's definition applied): the executor
  // runs its shape function for dims known only at run time.
  kernels::NodeDef def;
  // Its output dims depend on input values (If, Loop, NonZero ...): the kernel binds them.
  bool data_dependent = false;
  kernels::NodeCost cost;  // its arithmetic, for profiles (kernels/cost.h)
  // Bit i: input / output i is stored channels-last (N,H,W,C) although its dims read N,C,H,W
  // (the compiler's channels_last pass); the data dump transposes such tensors back. Likewise
  // bit i of the bf16 masks: a float32 tensor stored as bfloat16 (the same pass, in a bf16
  // model); the dump widens it back to float32.
  uint32_t nhwc_inputs = 0, nhwc_outputs = 0;
  uint32_t bf16_inputs = 0, bf16_outputs = 0;
  // The channel blocks (8 or 16) of such tensors stored N, C/b, H, W, b instead of NHWC: X's
  // (input 0), Z's (input 3) and Y's (output 0); 0 is NHWC.
  int64_t x_block = 0, z_block = 0, y_block = 0;
  // A transparent op's kiln_cblock: every rank-4 tensor of the node is in such blocks.
  int64_t all_block = 0;
  // Some constant input's memory was given back (BuildProgram's release_weights): whatever
  // reads the node's inputs besides its kernel calls kernel->RestoreConstants() first.
  bool released_constants = false;
};

struct GraphProgram {
  std::string name;
  std::vector<TensorInfo> tensors;
  std::vector<NodeInfo> nodes;
  std::vector<int32_t> inputs, outputs;
  std::unordered_map<std::string, int32_t> by_name;
  // For each tensor: the index of the last node that reads it (-1: none) — directly, or by
  // name from one of the node's bodies — so dynamic allocations can be released early. Graph
  // outputs are never released.
  std::vector<int32_t> last_use;
  std::vector<bool> is_output;  // per tensor: a graph output (kept until the run ends)
};

struct Gear {
  std::vector<int64_t> values;
  uint64_t work_size = 0;
  std::unordered_map<int32_t, kernels::Dims> tensor_dims;  // main-graph tensor -> dims
};

struct Program {
  std::vector<GraphProgram> graphs;  // [0] is the main graph
  uint64_t work_size = 0;
  uint64_t weight_size = 0;
  uint64_t released_weight_bytes = 0;  // weight memory given back at load (release_weights)
  int gear_kind = 0;                   // om::GearKind: 0 none, 1 batch, 2 image size, 3 dims
  std::vector<std::string> gear_dims;
  std::vector<Gear> gears;
};

// Builds the program from a verified .om graph section (FlatBuffers) whose weights section has
// been copied to `weights` (device memory, `weights_size` bytes). Kernels come from the
// registry for `backend` (falling back to reference kernels), prepared for `device` (may be
// null). Fails with kGeLoadModel naming the tensor or node when a tensor's recorded type or
// dims cannot be (a dim below -1, more than `max_tensor_bytes` even with its unknown dims taken
// as 1, more than its workspace slot holds; 0: no size bound), a node breaks its op's definition
// or a kernel cannot be prepared: before any kernel is made for it.
// With `release_weights` (the weights are the model's own memory, not the caller's), a constant
// that only one node reads, in a model of one graph, whose kernel keeps an exact copy of it
// (Kernel::ReleaseConstant) has its whole pages given back right after that kernel is prepared:
// the model then holds its packed weights once, not twice (NodeInfo::released_constants).
// For a device the host cannot address (a GPU), `weights` is a host copy the kernels are
// prepared from and `device_weights` the same bytes in device memory, which runs read
// (TensorInfo::device_data); both must outlive the program.
Result<std::unique_ptr<Program>> BuildProgram(const uint8_t* graph_section, const uint8_t* weights,
                                              size_t weights_size, const std::string& backend,
                                              hal::Device* device, uint64_t max_tensor_bytes = 0,
                                              bool release_weights = false,
                                              uint8_t* device_weights = nullptr);

}  // namespace kiln::runtime
