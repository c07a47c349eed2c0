// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Resize (every opset) and Upsample on the GPU: the node is resolved and each axis planned on the
// host by kernels/resize_plan.h — the reference kernel's own coordinate transforms, rounding and
// weights — from roi, scales and sizes read on the host (HostSteeringContext), and the tables go
// to the device for resize.cu to gather or blend. Nearest moves any element of
// 1, 2, 4 or 8 bytes; linear and cubic blend float32. With roi, scales and sizes constant, an
// execution slot keeps the tables of the dims it last ran in device memory (ResizeState): only
// a slot's first run of those dims plans them and copies them over (a few KiB, a synchronising
// copy); later runs only launch, so the kernel is Replayable (a CUDA graph keeps the launch).
// Steered by computed values, it plans and copies each run.
#include <cuda_runtime_api.h>

#include <cstring>
#include <memory>
#include <vector>

#include "backends/cuda/kernels/register.h"
#include "backends/cuda/kernels/resize_launch.h"
#include "hal/execution.h"
#include "kernels/reference/common.h"
#include "kernels/resize_plan.h"
#include "kernels/util.h"

namespace kiln::cuda {
namespace {

using kernels::Dims;
using kernels::Kernel;
using kernels::KernelContext;
using kernels::NodeDef;
using kernels::TensorView;

// Host tables for every axis: count 1 for nearest (the chosen tap, -1 outside the input) and for
// an axis a blend leaves as it is; the plan's taps otherwise.
struct HostTables {
  ResizeTables t;
  std::vector<int64_t> index;
  std::vector<float> weight;
};

HostTables Plan(const kernels::ResolvedResize& r, const kernels::Dims& in) {
  HostTables h;
  const bool nearest = r.mode.mode == "nearest";
  h.t.rank = static_cast<int>(in.size());
  for (size_t d = 0; d < in.size(); ++d) {
    const int64_t out = r.plan.out[d];
    h.t.in_dims[d] = in[d];
    h.t.out_dims[d] = out;
    h.t.index_offset[d] = static_cast<int64_t>(h.index.size());
    h.t.weight_offset[d] = static_cast<int64_t>(h.weight.size());
    if (!nearest && r.Identity(in, d)) {
      h.t.count[d] = 1;
      for (int64_t y = 0; y < out; ++y) {
        h.index.push_back(y);
        h.weight.push_back(1.0f);
      }
      continue;
    }
    const kernels::AxisTaps taps = kernels::PlanResizeAxis(r.mode, in[d], out, r.plan.scale[d],
                                                           r.plan.roi_start[d], r.plan.roi_end[d]);
    if (nearest) {
      h.t.count[d] = 1;
      for (int64_t y = 0; y < out; ++y) {
        const size_t at = static_cast<size_t>(y * taps.count);
        const int64_t src = taps.weight[at] != 0 ? taps.index[at] : taps.index[at + 1];
        h.index.push_back(taps.extrapolated[static_cast<size_t>(y)] ? -1 : src);
      }
      continue;
    }
    h.t.count[d] = static_cast<int>(taps.count);
    for (int64_t y = 0; y < out; ++y) {
      for (int64_t k = 0; k < taps.count; ++k) {
        const size_t at = static_cast<size_t>(y * taps.count + k);
        const bool outside = k == 0 && taps.extrapolated[static_cast<size_t>(y)];
        h.index.push_back(outside ? -1 : taps.index[at]);
        h.weight.push_back(static_cast<float>(taps.weight[at]));
      }
    }
  }
  return h;
}

// What a launch needs besides the tensors: the tables (in device memory), nearest or not, and
// the value outside the input.
struct Launch {
  ResizeTables t;
  bool nearest = false;
  double extrapolation = 0;
};

// A slot's tables, one set per input/output dims it has run (one per gear), each in device
// memory of its own that is never rewritten: a recorded run (a CUDA graph) keeps pointing at
// its tables while other gears run. The memory comes from the slot's execution, which outlives
// the state (the executor destroys kernel states first).
class ResizeState final : public kernels::KernelState {
 public:
  ~ResizeState() override {
    for (Entry& e : entries_) e.exec->FreeTensor(e.block);
  }
  // The launch for `in` -> `out` if this slot has planned it, else null.
  const Launch* Find(const Dims& in, const Dims& out) const {
    for (const Entry& e : entries_) {
      if (e.in == in && e.out == out) return &e.launch;
    }
    return nullptr;
  }
  // Device memory of `bytes` for the tables of `in` -> `out`, from `exec`; null when none is left.
  // Its launch is filled in by the caller.
  Launch* Add(hal::Execution* exec, const Dims& in, const Dims& out, size_t bytes,
              uint8_t** block) {
    void* p = exec->AllocateTensor(bytes);
    if (p == nullptr) return nullptr;
    entries_.push_back({in, out, Launch{}, exec, p});
    *block = static_cast<uint8_t*>(p);
    return &entries_.back().launch;
  }

 private:
  struct Entry {
    Dims in, out;
    Launch launch;
    hal::Execution* exec;
    void* block;
  };
  std::vector<Entry> entries_;
};

class ResizeKernel final : public Kernel {
 public:
  explicit ResizeKernel(const NodeDef& def) : def_(def), constant_(SteeringIsConstant(def)) {}
  bool Replayable() const override { return constant_; }
  std::unique_ptr<kernels::KernelState> CreateState() const override {
    return constant_ ? std::make_unique<ResizeState>() : nullptr;
  }

  Status Run(KernelContext& ctx) const override {
    const TensorView* x = ctx.input(0);
    TensorView* y = ctx.output(0);
    if (y->num_elements() == 0) return Status::Ok();
    if (x->rank() > static_cast<size_t>(kMaxResizeRank)) {
      return def_.Fail(code::kFeatureUnsupported, "the CUDA Resize takes at most ", kMaxResizeRank,
                       " dims");
    }
    auto* state = static_cast<ResizeState*>(ctx.state());
    const Launch* launch = state != nullptr ? state->Find(x->dims, y->dims) : nullptr;
    if (launch != nullptr) return Enqueue(ctx, *launch);
    if (ctx.exec() != nullptr && ctx.exec()->recording()) {
      // The tables are planned and copied in a plain run (hal::Execution::recording).
      return def_.Fail(code::kRtModelExecute, "the resize tables of ", kernels::DimsString(x->dims),
                       " were not planned before the recording");
    }
    // Planned now: into the slot's tables when it keeps them, else into this run's scratch.
    HostSteeringContext host(ctx, def_);
    KILN_ASSIGN_OR_RETURN(kernels::ResolvedResize r,
                          kernels::ResolveResize(def_, host, *x, y->dims));
    HostTables h = Plan(r, x->dims);
    const size_t index_bytes = h.index.size() * sizeof(int64_t);
    const size_t weight_bytes = h.weight.size() * sizeof(float);
    if (ctx.exec() == nullptr) return Error(code::kInternalError, "a CUDA resize outside a run");
    RunScratch scratch(ctx, state != nullptr ? 0 : index_bytes + weight_bytes);
    Launch run_only;
    uint8_t* base = static_cast<uint8_t*>(scratch.data());
    Launch* planned = state != nullptr ? state->Add(ctx.exec(), x->dims, y->dims,
                                                    index_bytes + weight_bytes, &base)
                                       : &run_only;
    if (planned == nullptr || base == nullptr) {
      return Error(code::kRtMemoryAllocation, "no ", index_bytes + weight_bytes,
                   " bytes on the device for the resize tables");
    }
    // Through the execution: the copies are in place when it returns (the host tables die with
    // this call).
    ctx.exec()->Copy(base, h.index.data(), index_bytes);
    planned->t = h.t;
    planned->t.index = reinterpret_cast<const int64_t*>(base);
    if (weight_bytes != 0) {
      ctx.exec()->Copy(base + index_bytes, h.weight.data(), weight_bytes);
      planned->t.weight = reinterpret_cast<const float*>(base + index_bytes);
    }
    planned->nearest = r.mode.mode == "nearest";
    planned->extrapolation = r.mode.extrapolation;
    return Enqueue(ctx, *planned);
  }

 private:
  static Status Enqueue(KernelContext& ctx, const Launch& l) {
    const TensorView* x = ctx.input(0);
    TensorView* y = ctx.output(0);
    auto stream = static_cast<cudaStream_t>(StreamOf(ctx));
    if (l.nearest) {
      uint64_t fill = 0;
      kernels::StoreDouble(TensorView{x->dtype, {1}, &fill}, 0, l.extrapolation);
      return Launched(
          LaunchResizeNearest(x->data, y->data, y->num_elements(),
                              static_cast<int>(ir::SizeOf(x->dtype)), fill, l.t, stream),
          "launching a nearest resize");
    }
    return Launched(
        LaunchResizeBlend(static_cast<const float*>(x->data), static_cast<float*>(y->data),
                          y->num_elements(), static_cast<float>(l.extrapolation), l.t, stream),
        "launching a resize");
  }

  NodeDef def_;
  bool constant_;
};

Result<std::unique_ptr<Kernel>> Prepare(const NodeDef& def) {
  const kernels::DataType type = def.input_types[0];
  if (def.attr_string("mode") == "nearest" || def.attr_string("mode").empty()) {
    KILN_RETURN_IF_ERROR(RequireWholeBytes(def, type), "");
  } else if (type != kernels::DataType::kFloat32) {
    return def.Fail(code::kFeatureUnsupported, "the CUDA ", def.attr_string("mode"),
                    " Resize blends float32 only; X is ", ir::Name(type));
  }
  return std::unique_ptr<Kernel>(std::make_unique<ResizeKernel>(def));
}

}  // namespace

void RegisterCudaResizeKernels(kernels::KernelRegistry& registry) {
  for (const char* op : {"Resize", "Upsample"}) registry.Register(kCudaBackend, "", op, Prepare);
}

}  // namespace kiln::cuda
