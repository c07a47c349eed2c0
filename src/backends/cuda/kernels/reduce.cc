// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The host side of reduce.cu: ReduceSum, ReduceMean, ReduceMax, ReduceMin, ReduceProd,
// ReduceSumSquare, ReduceL1, ReduceL2, ReduceLogSum, ReduceLogSumExp over any axes (the 'axes'
// attribute, or input 1 from ReduceSum-13 and the others' opset 18, with keepdims and
// noop_with_empty_axes), and ArgMax / ArgMin (keepdims, select_last_index), with the reference
// kernels' rules (kernels/reference/reduce.cc). float32 for every op; int64 and int32 for all
// but ReduceL2, ReduceLogSum and ReduceLogSumExp. An axes input steers the kernel on the host
// (HostSteeringContext): a constant's host copy, or a computed value copied from the device.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "backends/cuda/kernels/reduce_launch.h"
#include "backends/cuda/kernels/register.h"
#include "kernels/util.h"

namespace kiln::cuda {

bool MakeReduceShape(const std::vector<int64_t>& dims, const std::vector<bool>& reduced,
                     ReduceShape* shape, int64_t* outputs, int64_t* count) {
  *shape = ReduceShape{};
  *outputs = 1;
  *count = 1;
  const kernels::Dims strides = kernels::Strides(dims);
  int last = -1;  // the kind of the dim added last: 0 kept, 1 reduced
  for (size_t d = 0; d < dims.size(); ++d) {
    if (dims[d] == 1) continue;  // one coordinate, 0: nothing to index
    const int kind = reduced[d] ? 1 : 0;
    int& rank = kind == 1 ? shape->reduced_rank : shape->kept_rank;
    int64_t* group_dims = kind == 1 ? shape->reduced_dims : shape->kept_dims;
    int64_t* group_strides = kind == 1 ? shape->reduced_strides : shape->kept_strides;
    (kind == 1 ? *count : *outputs) *= dims[d];
    if (kind == last) {
      // Row-major neighbours (only dims of 1 between them): one dim of both, the inner stride.
      group_dims[rank - 1] *= dims[d];
      group_strides[rank - 1] = strides[d];
      continue;
    }
    if (rank == kMaxReduceRank) return false;
    group_dims[rank] = dims[d];
    group_strides[rank] = strides[d];
    ++rank;
    last = kind;
  }
  return true;
}

namespace {

using kernels::DataType;
using kernels::KernelContext;
using kernels::NodeDef;
using kernels::TensorView;

constexpr std::pair<const char*, ReduceOp> kReductions[] = {
    {"ReduceSum", ReduceOp::kSum},       {"ReduceMean", ReduceOp::kMean},
    {"ReduceMax", ReduceOp::kMax},       {"ReduceMin", ReduceOp::kMin},
    {"ReduceProd", ReduceOp::kProd},     {"ReduceSumSquare", ReduceOp::kSumSquare},
    {"ReduceL1", ReduceOp::kL1},         {"ReduceL2", ReduceOp::kL2},
    {"ReduceLogSum", ReduceOp::kLogSum}, {"ReduceLogSumExp", ReduceOp::kLogSumExp},
};

ReduceOp OpOf(const NodeDef& def) {
  for (const auto& [name, op] : kReductions) {
    if (def.op_type == name) return op;
  }
  return ReduceOp::kSum;  // only the ops above are registered
}

// The ops the reference kernel computes in double for integers too (then truncated and
// saturated): float32 only here.
bool FloatOnly(ReduceOp op) {
  return op == ReduceOp::kL2 || op == ReduceOp::kLogSum || op == ReduceOp::kLogSumExp;
}

std::optional<ReduceType> TypeOf(DataType t) {
  switch (t) {
    case DataType::kFloat32:
      return ReduceType::kFloat32;
    case DataType::kInt64:
      return ReduceType::kInt64;
    case DataType::kInt32:
      return ReduceType::kInt32;
    default:
      return std::nullopt;
  }
}

DataType InputType(const NodeDef& def) {
  return def.input_types.empty() ? DataType::kUndefined : def.input_types[0];
}

// The opset from which the op takes its axes as input 1 instead of the 'axes' attribute.
int AxesInputSince(const std::string& op_type) { return op_type == "ReduceSum" ? 13 : 18; }

// An input bound with another type than the node was prepared for (the executor binds the
// planned types: not expected).
Status TypeUnexpected(const NodeDef& def, const TensorView& x) {
  return def.Fail(code::kInternalError, "input 0 is ", ir::Name(x.dtype), ", not ",
                  ir::Name(InputType(def)));
}

Status RequireReduceType(const NodeDef& def) {
  const DataType t = InputType(def);
  const std::optional<ReduceType> type = TypeOf(t);
  const bool float_only = FloatOnly(OpOf(def));
  if (!type || (float_only && *type != ReduceType::kFloat32)) {
    return def.Fail(code::kFeatureUnsupported, "the CUDA ", def.op_type, " takes float32",
                    float_only ? "" : ", int64 or int32", " only, not ", ir::Name(t));
  }
  return Status::Ok();
}

// Up to 2 · kMaxReduceRank dims, the kept and the reduced ones alternating at worst, always
// merge into kMaxReduceRank of each kind (MakeReduceShape).
Status RequireReduceRank(const NodeDef& def) {
  if (!def.input_dims.empty() && def.input_ranked(0) &&
      def.input_dims[0].size() > 2 * static_cast<size_t>(kMaxReduceRank)) {
    return def.Fail(code::kFeatureUnsupported, "the CUDA reductions take at most ",
                    2 * kMaxReduceRank, " dims, got ", def.input_dims[0].size());
  }
  return Status::Ok();
}

Status RunReduce(const NodeDef& def, KernelContext& ctx) {
  const TensorView* x = ctx.input(0);
  KILN_ASSIGN_OR_RETURN(TensorView * y, kernels::BoundOutput(def, ctx, 0));
  const bool axes_from_input = def.opset >= AxesInputSince(def.op_type);
  std::vector<int64_t> axes = axes_from_input ? std::vector<int64_t>{} : def.attr_ints("axes");
  if (axes_from_input && ctx.num_inputs() > 1 && ctx.input(1) != nullptr) {
    HostSteeringContext host(ctx, def);
    axes = kernels::ReadInts(*host.input(1));
  }
  const bool noop_with_empty_axes = axes_from_input && def.attr_int("noop_with_empty_axes") != 0;
  // A computed axes input is checked here, on its values, as the reference kernel does.
  const int64_t rank = static_cast<int64_t>(x->rank());
  std::vector<bool> reduced(x->rank(), axes.empty() && !noop_with_empty_axes);
  for (int64_t axis : axes) {
    std::optional<int64_t> a = kernels::NormalizeAxis(axis, rank);
    if (!a) {
      return def.Fail(code::kInvalidParam, "axis ", axis, " is out of range for input ",
                      kernels::DimsString(x->dims), " of rank ", rank);
    }
    if (reduced[static_cast<size_t>(*a)]) {
      return def.Fail(code::kInvalidParam, "axis ", *a, " of input ", kernels::DimsString(x->dims),
                      " is named more than once in the axes");
    }
    reduced[static_cast<size_t>(*a)] = true;
  }
  ReduceShape shape;
  int64_t outputs = 0, count = 0;
  if (!MakeReduceShape(x->dims, reduced, &shape, &outputs, &count)) {
    return def.Fail(code::kFeatureUnsupported, "the CUDA reduction of input ",
                    kernels::DimsString(x->dims), " needs more than ", kMaxReduceRank,
                    " kept or reduced dims");
  }
  if (outputs != y->num_elements()) {
    return def.Fail(code::kInvalidParam, "reducing input ", kernels::DimsString(x->dims),
                    " does not give the output dims ", kernels::DimsString(y->dims));
  }
  const std::optional<ReduceType> type = TypeOf(x->dtype);
  if (!type) return TypeUnexpected(def, *x);
  return Launched(
      LaunchReduce(OpOf(def), *type, x->data, y->data, outputs, count, shape, StreamOf(ctx)),
      "launching a reduction");
}

Status RequireArgType(const NodeDef& def) {
  if (!TypeOf(InputType(def))) {
    return def.Fail(code::kFeatureUnsupported, "the CUDA ", def.op_type,
                    " takes float32, int64 or int32 only, not ", ir::Name(InputType(def)));
  }
  return Status::Ok();
}

Status RunArgReduce(const NodeDef& def, KernelContext& ctx) {
  const TensorView* x = ctx.input(0);
  KILN_ASSIGN_OR_RETURN(TensorView * y, kernels::BoundOutput(def, ctx, 0));
  const size_t a = AxisOf(def.attr_int("axis"), x->rank());  // the definition checked it
  const int64_t outer = kernels::Product(x->dims, 0, a);
  const int64_t len = x->dims[a];
  const int64_t inner = kernels::Product(x->dims, a + 1, x->rank());
  if (outer * inner == 0) return Status::Ok();
  if (len == 0) {
    return def.Fail(code::kInvalidParam, "cannot take the arg",
                    def.op_type == "ArgMax" ? "max" : "min", " of an empty axis ", a, " of input ",
                    kernels::DimsString(x->dims));
  }
  const std::optional<ReduceType> type = TypeOf(x->dtype);
  if (!type) return TypeUnexpected(def, *x);
  return Launched(
      LaunchArgReduce(def.op_type == "ArgMax", def.attr_int("select_last_index") != 0, *type,
                      x->data, static_cast<int64_t*>(y->data), outer, len, inner, StreamOf(ctx)),
      "launching an arg reduction");
}

}  // namespace

void RegisterCudaReduceKernels(kernels::KernelRegistry& registry) {
  // Steered on the host by a computed axes input (then not Replayable).
  for (const auto& reduction : kReductions) {
    RegisterFunction(registry, reduction.first, RunReduce, {RequireReduceType, RequireReduceRank},
                     SteeringIsConstant);
  }
  RegisterFunction(registry, "ArgMax", RunArgReduce, {RequireArgType});
  RegisterFunction(registry, "ArgMin", RunArgReduce, {RequireArgType});
}

}  // namespace kiln::cuda
