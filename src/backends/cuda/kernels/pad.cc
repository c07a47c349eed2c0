// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The host side of pad.cu: Pad of any element type of 1, 2, 4 or 8 bytes, up to
// kMaxBroadcastRank dims, every form (pads and the constant value as attributes before opset 11,
// as inputs from 11, axes from 18) and every mode the reference kernel has (constant, reflect,
// edge, wrap), negative pads cropping. The values that steer it — pads, axes, the constant value
// — are read on the host (HostSteeringContext) and resolved by the reference kernel's own code
// (kernels::ResolvePad); the device computes each output element's source with the same rule
// (PadSource), which the host checks against ResolvePad's map before it launches.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "backends/cuda/kernels/pad_launch.h"
#include "backends/cuda/kernels/register.h"
#include "kernels/attrs.h"
#include "kernels/util.h"

namespace kiln::cuda {
namespace {

using kernels::Dims;
using kernels::KernelContext;
using kernels::NodeDef;
using kernels::TensorView;

bool ModeOf(const std::string& name, PadMode* mode) {
  if (name == "constant") {
    *mode = PadMode::kConstant;
  } else if (name == "edge") {
    *mode = PadMode::kEdge;
  } else if (name == "reflect") {
    *mode = PadMode::kReflect;
  } else if (name == "wrap") {
    *mode = PadMode::kWrap;
  } else {
    return false;
  }
  return true;
}

// The begin and end pads of each of the `rank` input axes (0 where the node pads none), read as
// ResolvePad reads them; it has checked them.
void PadsPerAxis(const NodeDef& def, KernelContext& host, size_t rank, Dims* begin, Dims* end) {
  std::vector<int64_t> pads;
  std::vector<int64_t> axes;
  for (size_t a = 0; a < rank; ++a) axes.push_back(static_cast<int64_t>(a));
  if (def.opset < 11) {
    pads = def.attr_ints("pads");
  } else {
    pads = kernels::ReadInts(*host.input(1));
    if (const TensorView* a = host.input(3); def.opset >= 18 && a != nullptr) {
      axes = kernels::ReadInts(*a);
      for (int64_t& axis : axes) {
        axis = kernels::NormalizeAxis(axis, static_cast<int64_t>(rank)).value_or(0);
      }
    }
  }
  begin->assign(rank, 0);
  end->assign(rank, 0);
  const size_t na = std::min(axes.size(), pads.size() / 2);
  for (size_t k = 0; k < na; ++k) {
    const size_t a = static_cast<size_t>(axes[k]);
    (*begin)[a] = pads[k];
    (*end)[a] = pads[k + na];
  }
}

Status RunPad(const NodeDef& def, KernelContext& ctx) {
  const TensorView* x = ctx.input(0);
  TensorView* y = ctx.output(0);
  if (y->num_elements() == 0) return Status::Ok();
  HostSteeringContext host(ctx, def);
  KILN_ASSIGN_OR_RETURN(kernels::PadWindow w, kernels::ResolvePad(def, host, *x, y->dims));
  PadMode mode = PadMode::kConstant;
  if (!ModeOf(def.attr_string("mode"), &mode)) {  // Prepare declined other modes
    return def.Fail(code::kFeatureUnsupported, "no CUDA Pad mode '", def.attr_string("mode"), "'");
  }
  Dims begin, end;
  PadsPerAxis(def, host, x->rank(), &begin, &end);
  PadShape shape;
  if (!MakePadShape(mode, x->dims.data(), y->dims.data(), static_cast<int>(x->rank()), begin.data(),
                    end.data(), &shape)) {
    return def.Fail(code::kFeatureUnsupported, "the CUDA Pad takes at most ", kMaxBroadcastRank,
                    " dims, this input has ", x->rank());
  }
  // The device's rule must be the reference's: compare them on every output position of every
  // axis (as many steps as ResolvePad took to make its map).
  for (int d = 0; d < shape.rank; ++d) {
    const std::vector<int64_t>& map = w.map[static_cast<size_t>(d)];
    for (int64_t o = 0; o < shape.out_dims[d]; ++o) {
      if (PadSource(shape, d, o) != map[static_cast<size_t>(o)]) {
        return def.Fail(code::kInternalError, "the CUDA Pad's position ", o, " of axis ", d,
                        " reads ", PadSource(shape, d, o), ", the reference's ",
                        map[static_cast<size_t>(o)]);
      }
    }
  }
  const size_t elem = ir::SizeOf(x->dtype);
  uint64_t fill = 0;
  std::memcpy(&fill, w.fill.data(), std::min(elem, sizeof(fill)));
  return Launched(LaunchPad(x->data, y->data, y->num_elements(), static_cast<int>(elem), fill,
                            shape, StreamOf(ctx)),
                  "launching Pad");
}

Status RequirePaddable(const NodeDef& def) {
  KILN_RETURN_IF_ERROR(RequireWholeBytes(def, def.input_types[0]), "");
  if (def.input_ranked(0) && def.input_dims[0].size() > static_cast<size_t>(kMaxBroadcastRank)) {
    return def.Fail(code::kFeatureUnsupported, "the CUDA Pad takes at most ", kMaxBroadcastRank,
                    " dims, this input has ", def.input_dims[0].size());
  }
  PadMode mode = PadMode::kConstant;
  if (!ModeOf(def.attr_string("mode"), &mode)) {
    return def.Fail(code::kFeatureUnsupported, "the CUDA Pad has modes constant, reflect, edge ",
                    "and wrap, not '", def.attr_string("mode"), "'");
  }
  return Status::Ok();
}

}  // namespace

bool MakePadShape(PadMode mode, const int64_t* in, const int64_t* out, int rank,
                  const int64_t* begin, const int64_t* end, PadShape* shape) {
  if (rank < 0 || rank > kMaxBroadcastRank) return false;
  shape->rank = rank;
  shape->mode = mode;
  int64_t stride = 1;
  for (int d = rank - 1; d >= 0; --d) {
    shape->out_dims[d] = out[d];
    shape->in_strides[d] = stride;
    stride *= in[d];
    shape->lo[d] = std::max<int64_t>(-begin[d], 0);
    shape->before[d] = std::max<int64_t>(begin[d], 0);
    shape->kept[d] = in[d] - shape->lo[d] - std::max<int64_t>(-end[d], 0);
  }
  return true;
}

void RegisterCudaPadKernels(kernels::KernelRegistry& registry) {
  // Steered on the host (HostSteeringContext).
  RegisterFunction(registry, "Pad", RunPad, {RequirePaddable}, SteeringIsConstant);
}

}  // namespace kiln::cuda
