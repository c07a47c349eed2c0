// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Resize (every opset) and Upsample on the GPU: the node is resolved and each axis planned on the
// host by kernels/resize_plan.h — the reference kernel's own coordinate transforms, rounding and
// weights — from roi, scales and sizes read on the host (HostSteeringContext), and the tables go
// to the device for resize.cu to gather or blend. Nearest moves any element of
// 1, 2, 4 or 8 bytes; linear and cubic blend float32. The tables are planned and copied each run
// (a few KiB for an image, a synchronising copy: keeping them per slot is a speed step).
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

Status RunResize(const NodeDef& def, KernelContext& ctx) {
  const TensorView* x = ctx.input(0);
  TensorView* y = ctx.output(0);
  if (y->num_elements() == 0) return Status::Ok();
  if (x->rank() > static_cast<size_t>(kMaxResizeRank)) {
    return def.Fail(code::kFeatureUnsupported, "the CUDA Resize takes at most ", kMaxResizeRank,
                    " dims");
  }
  HostSteeringContext host(ctx, def);
  KILN_ASSIGN_OR_RETURN(kernels::ResolvedResize r, kernels::ResolveResize(def, host, *x, y->dims));
  HostTables h = Plan(r, x->dims);
  const size_t index_bytes = h.index.size() * sizeof(int64_t);
  const size_t weight_bytes = h.weight.size() * sizeof(float);
  RunScratch tables(ctx, index_bytes + weight_bytes);
  if (!tables.ok()) {
    return Error(code::kRtMemoryAllocation, "no ", index_bytes + weight_bytes,
                 " bytes on the device for the resize tables");
  }
  auto* base = static_cast<uint8_t*>(tables.data());
  auto stream = static_cast<cudaStream_t>(StreamOf(ctx));
  // Through the execution: the copies are in place when it returns (the host tables die with
  // this call).
  if (ctx.exec() == nullptr) return Error(code::kInternalError, "a CUDA resize outside a run");
  ctx.exec()->Copy(base, h.index.data(), index_bytes);
  h.t.index = reinterpret_cast<const int64_t*>(base);
  if (weight_bytes != 0) {
    ctx.exec()->Copy(base + index_bytes, h.weight.data(), weight_bytes);
    h.t.weight = reinterpret_cast<const float*>(base + index_bytes);
  }
  if (r.mode.mode == "nearest") {
    uint64_t fill = 0;
    kernels::StoreDouble(TensorView{x->dtype, {1}, &fill}, 0, r.mode.extrapolation);
    return Launched(LaunchResizeNearest(x->data, y->data, y->num_elements(),
                                        static_cast<int>(ir::SizeOf(x->dtype)), fill, h.t, stream),
                    "launching a nearest resize");
  }
  return Launched(
      LaunchResizeBlend(static_cast<const float*>(x->data), static_cast<float*>(y->data),
                        y->num_elements(), static_cast<float>(r.mode.extrapolation), h.t, stream),
      "launching a resize");
}

Result<std::unique_ptr<Kernel>> Prepare(const NodeDef& def) {
  const kernels::DataType type = def.input_types[0];
  if (def.attr_string("mode") == "nearest" || def.attr_string("mode").empty()) {
    KILN_RETURN_IF_ERROR(RequireWholeBytes(def, type), "");
  } else if (type != kernels::DataType::kFloat32) {
    return def.Fail(code::kFeatureUnsupported, "the CUDA ", def.attr_string("mode"),
                    " Resize blends float32 only; X is ", ir::Name(type));
  }
  return kernels::MakeFunctionKernel(def, RunResize);
}

}  // namespace

void RegisterCudaResizeKernels(kernels::KernelRegistry& registry) {
  for (const char* op : {"Resize", "Upsample"}) registry.Register(kCudaBackend, "", op, Prepare);
}

}  // namespace kiln::cuda
