// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The host side of movement.cu: Transpose, Slice, Concat, Split, Expand, ConstantOfShape, Range
// and Gather, any element type of 1, 2, 4 or 8 bytes, up to kMaxBroadcastRank dims. The values that
// steer them — Slice's starts/axes/steps, Split's sizes — are read on the host
// (HostSteeringContext: a constant's host copy, or a computed value copied from the device).
// Gather's indices stay on the device: constant ones are checked at load, computed ones out of
// range give zeros.
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "backends/cuda/kernels/movement_launch.h"
#include "backends/cuda/kernels/register.h"
#include "kernels/attrs.h"
#include "kernels/util.h"

namespace kiln::cuda {
namespace {

using kernels::Dims;
using kernels::KernelContext;
using kernels::NodeDef;
using kernels::TensorView;

int ElemBytes(const TensorView& t) { return static_cast<int>(ir::SizeOf(t.dtype)); }

// Copies the box `dims` from src (element strides `from`) to dst (element strides `to`).
Status Copy(KernelContext& ctx, const void* src, void* dst, int elem, const Dims& dims,
            const Dims& from, const Dims& to) {
  if (dims.size() > static_cast<size_t>(kMaxBroadcastRank)) {
    return Error(code::kFeatureUnsupported, "the CUDA copy takes at most ", kMaxBroadcastRank,
                 " dims, got ", dims.size());
  }
  BroadcastShape s;
  s.rank = dims.empty() ? 1 : static_cast<int>(dims.size());
  s.dims[0] = 1;
  for (size_t d = 0; d < dims.size(); ++d) {
    s.dims[d] = dims[d];
    s.a_strides[d] = from[d];
    s.b_strides[d] = to[d];
  }
  return Launched(LaunchStridedCopy(src, dst, kernels::NumElements(dims), elem, s, StreamOf(ctx)),
                  "launching a strided copy");
}

const uint8_t* At(const TensorView& t, int64_t elements) {
  return static_cast<const uint8_t*>(t.data) + elements * ElemBytes(t);
}
uint8_t* At(TensorView& t, int64_t elements) {
  return static_cast<uint8_t*>(t.data) + elements * ElemBytes(t);
}

Status RunTranspose(const NodeDef& def, KernelContext& ctx) {
  const TensorView* x = ctx.input(0);
  TensorView* y = ctx.output(0);
  std::vector<int64_t> perm = def.attr_ints("perm");
  if (!def.has_attr("perm")) {
    for (size_t i = x->rank(); i-- > 0;) perm.push_back(static_cast<int64_t>(i));
  }
  const Dims in = kernels::Strides(x->dims);
  Dims from(perm.size());
  for (size_t k = 0; k < perm.size(); ++k) from[k] = in[static_cast<size_t>(perm[k])];
  return Copy(ctx, x->data, y->data, ElemBytes(*x), y->dims, from, kernels::Strides(y->dims));
}

Status RunSlice(const NodeDef& def, KernelContext& ctx) {
  const TensorView* x = ctx.input(0);
  TensorView* y = ctx.output(0);
  HostSteeringContext host(ctx, def);
  KILN_ASSIGN_OR_RETURN(kernels::SliceWindow w, kernels::ResolveSlice(def, host, x->dims));
  const Dims in = kernels::Strides(x->dims);
  Dims from(in.size());
  int64_t base = 0;
  for (size_t d = 0; d < in.size(); ++d) {
    base += w.first[d] * in[d];
    from[d] = in[d] * w.step[d];
  }
  if (y->num_elements() == 0) return Status::Ok();
  return Copy(ctx, At(*x, base), y->data, ElemBytes(*x), y->dims, from, kernels::Strides(y->dims));
}

Status RunConcat(const NodeDef& def, KernelContext& ctx) {
  TensorView* y = ctx.output(0);
  const size_t axis = AxisOf(def.attr_int("axis"), y->rank());
  const Dims out = kernels::Strides(y->dims);
  const bool one_row = kernels::Product(y->dims, 0, axis) == 1;
  int64_t offset = 0;
  for (size_t j = 0; j < ctx.num_inputs(); ++j) {
    const TensorView* x = ctx.input(j);
    if (x == nullptr || x->num_elements() == 0) {
      if (x != nullptr) offset += x->dims[axis];
      continue;
    }
    void* to = At(*y, offset * out[axis]);
    offset += x->dims[axis];
    // The memory plan put the input where the output holds it (its one row).
    if (one_row && to == x->data) continue;
    KILN_RETURN_IF_ERROR(
        Copy(ctx, x->data, to, ElemBytes(*x), x->dims, kernels::Strides(x->dims), out), "");
  }
  return Status::Ok();
}

Status RunSplit(const NodeDef& def, KernelContext& ctx) {
  const TensorView* x = ctx.input(0);
  const size_t axis = AxisOf(def.attr_int("axis"), x->rank());
  const Dims in = kernels::Strides(x->dims);
  HostSteeringContext host(ctx, def);
  const std::vector<int64_t> sizes = kernels::SplitSizes(def, host, x->dims[axis]);
  int64_t offset = 0;
  for (size_t i = 0; i < ctx.num_outputs(); ++i) {
    TensorView* y = ctx.output(i);
    const int64_t size = y != nullptr ? y->dims[axis] : i < sizes.size() ? sizes[i] : 0;
    if (y != nullptr && y->num_elements() != 0) {
      KILN_RETURN_IF_ERROR(Copy(ctx, At(*x, offset * in[axis]), y->data, ElemBytes(*x), y->dims, in,
                                kernels::Strides(y->dims)),
                           "");
    }
    offset += size;
  }
  return Status::Ok();
}

Status RunExpand(const NodeDef& def, KernelContext& ctx) {
  const TensorView* x = ctx.input(0);
  TensorView* y = ctx.output(0);
  BroadcastShape s;
  if (!MakeBroadcastShape(x->dims.data(), static_cast<int>(x->rank()), y->dims.data(),
                          static_cast<int>(y->rank()), y->dims.data(), static_cast<int>(y->rank()),
                          &s)) {
    return def.Fail(code::kFeatureUnsupported, "the CUDA Expand takes at most ", kMaxBroadcastRank,
                    " dims");
  }
  if (y->rank() == 0) return Copy(ctx, x->data, y->data, ElemBytes(*x), {}, {}, {});
  return Copy(ctx, x->data, y->data, ElemBytes(*x), y->dims,
              Dims(s.a_strides, s.a_strides + y->rank()), kernels::Strides(y->dims));
}

Status RunGather(const NodeDef& def, KernelContext& ctx) {
  const TensorView* x = ctx.input(0);
  const TensorView* idx = ctx.input(1);
  TensorView* y = ctx.output(0);
  const size_t axis = AxisOf(def.attr_int("axis"), x->rank());
  const int64_t outer = kernels::Product(x->dims, 0, axis);
  const int64_t inner = kernels::Product(x->dims, axis + 1, x->rank());
  return Launched(
      LaunchGather(x->data, idx->data, idx->dtype == kernels::DataType::kInt64, y->data, outer,
                   x->dims[axis], idx->num_elements(), inner, ElemBytes(*x), StreamOf(ctx)),
      "launching a gather");
}

Status RunConstantOfShape(const NodeDef& def, KernelContext& ctx) {
  TensorView* y = ctx.output(0);
  const ir::Tensor* v = def.attr_tensor("value");  // of the output's type (the definition's)
  uint64_t pattern = 0;
  const int elem = ElemBytes(*y);
  if (v != nullptr) std::memcpy(&pattern, v->raw(), static_cast<size_t>(elem));
  return Launched(LaunchFill(y->data, y->num_elements(), elem, pattern, StreamOf(ctx)),
                  "launching a fill");
}

int RangeType(kernels::DataType t) {
  return t == kernels::DataType::kFloat32 ? 0
         : t == kernels::DataType::kInt64 ? 1
         : t == kernels::DataType::kInt32 ? 2
                                          : -1;
}

Status RunRange(const NodeDef& def, KernelContext& ctx) {
  TensorView* y = ctx.output(0);
  return Launched(LaunchRange(RangeType(y->dtype), ctx.input(0)->data, ctx.input(2)->data, y->data,
                              y->num_elements(), StreamOf(ctx)),
                  "launching a range");
}

// Input 0's elements have whole bytes, and it has at most kMaxBroadcastRank dims.
Status RequireMovableInput(const NodeDef& def) {
  KILN_RETURN_IF_ERROR(RequireWholeBytes(def, def.input_types.empty() ? kernels::DataType::kFloat32
                                                                      : def.input_types[0]),
                       "");
  if (def.input_ranked(0) && def.input_dims[0].size() > static_cast<size_t>(kMaxBroadcastRank)) {
    return def.Fail(code::kFeatureUnsupported, "the CUDA data-movement kernels take at most ",
                    kMaxBroadcastRank, " dims");
  }
  return Status::Ok();
}

Status CheckGatherIndices(const NodeDef& def) {
  const TensorView* idx = def.constant(1);
  if (idx == nullptr || !def.input_ranked(0) || def.input_dims[0].empty()) return Status::Ok();
  const int64_t n = def.input_dims[0][AxisOf(def.attr_int("axis"), def.input_dims[0].size())];
  if (n < 0) return Status::Ok();
  for (int64_t v : kernels::ReadInts(*idx)) {
    if (v < -n || v >= n) {
      return def.Fail(code::kInvalidParam, "index ", v, " is out of range for an axis of ", n);
    }
  }
  return Status::Ok();
}

Status RequireMovableOutput(const NodeDef& def) {
  return RequireWholeBytes(def, def.output_types[0]);
}

Status RequireRangeType(const NodeDef& def) {
  if (RangeType(def.output_types[0]) >= 0) return Status::Ok();
  return def.Fail(code::kFeatureUnsupported, "the CUDA Range makes float32, int64 or int32, not ",
                  ir::Name(def.output_types[0]));
}

Status RequireGatherIndices(const NodeDef& def) {
  if (def.input_types.size() > 1 && def.input_types[1] != kernels::DataType::kInt64 &&
      def.input_types[1] != kernels::DataType::kInt32) {
    return def.Fail(code::kFeatureUnsupported, "Gather indices must be int64 or int32");
  }
  return CheckGatherIndices(def);
}

}  // namespace

void RegisterCudaMovementKernels(kernels::KernelRegistry& registry) {
  for (const auto& [op, run] : {std::pair<const char*, kernels::RunFn>{"Transpose", RunTranspose},
                                {"Concat", RunConcat},
                                {"Expand", RunExpand}}) {
    RegisterFunction(registry, op, run, {RequireMovableInput});
  }
  // Steered on the host (HostSteeringContext).
  RegisterFunction(registry, "Slice", RunSlice, {RequireMovableInput}, SteeringIsConstant);
  RegisterFunction(registry, "Split", RunSplit, {RequireMovableInput}, SteeringIsConstant);
  RegisterFunction(registry, "ConstantOfShape", RunConstantOfShape, {RequireMovableOutput});
  RegisterFunction(registry, "Range", RunRange, {RequireRangeType});
  RegisterFunction(registry, "Gather", RunGather, {RequireMovableInput, RequireGatherIndices});
}

}  // namespace kiln::cuda
