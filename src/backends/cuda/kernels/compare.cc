// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The host side of compare.cu: Equal, Less, Greater, LessOrEqual and GreaterOrEqual of float32,
// int64 and int32 (Equal also of bool), And, Or, Xor and Not of bool, and Where of any element
// type of 1, 2, 4 or 8 bytes, with numpy broadcasting up to kMaxBroadcastRank dims. Other types
// are declined at Prepare, so such a node is refused at load.
#include <cstdint>
#include <initializer_list>
#include <utility>
#include <vector>

#include "backends/cuda/kernels/compare_launch.h"
#include "backends/cuda/kernels/register.h"
#include "kernels/util.h"

namespace kiln::cuda {
namespace {

using kernels::DataType;
using kernels::Dims;
using kernels::KernelContext;
using kernels::NodeDef;
using kernels::TensorView;

bool TypeOf(DataType t, CompareType* type) {
  switch (t) {
    case DataType::kFloat32:
      *type = CompareType::kFloat32;
      return true;
    case DataType::kInt64:
      *type = CompareType::kInt64;
      return true;
    case DataType::kInt32:
      *type = CompareType::kInt32;
      return true;
    case DataType::kBool:
      *type = CompareType::kBool;
      return true;
    default:
      return false;
  }
}

// Whether `in` broadcasts to `out` (numpy rules, right-aligned). The op's definition checked the
// dims it knew at load; this covers the ones known only at run time, so no index leaves its
// operand (kInvalidParam, as the reference kernel fails).
Status CheckBroadcast(const NodeDef& def, const TensorView& in, const Dims& out) {
  bool fits = in.rank() <= out.size();
  for (size_t i = 0; fits && i < in.rank(); ++i) {
    const int64_t dim = in.dims[i];
    fits = dim == 1 || dim == out[out.size() - in.rank() + i];
  }
  if (fits) return Status::Ok();
  return def.Fail(code::kInvalidParam, "input dims ", kernels::DimsString(in.dims),
                  " do not broadcast to the output dims ", kernels::DimsString(out));
}

Status TooDeep(const NodeDef& def, size_t rank) {
  return def.Fail(code::kFeatureUnsupported, "the CUDA kernel broadcasts up to ", kMaxBroadcastRank,
                  " dims, this output has ", rank);
}

// Operands with as many elements as the output hold them in its order (broadcasting only
// inserts dims of 1): read as is, without index arithmetic.
bool SameOrder(std::initializer_list<const TensorView*> ins, const TensorView& y) {
  for (const TensorView* t : ins) {
    if (t->num_elements() != y.num_elements()) return false;
  }
  return true;
}

template <CompareOp kOp>
Status RunCompare(const NodeDef& def, KernelContext& ctx) {
  const TensorView* a = ctx.input(0);
  const TensorView* b = ctx.input(1);
  TensorView* y = ctx.output(0);
  CompareType type = CompareType::kFloat32;
  if (!TypeOf(a->dtype, &type)) {  // Prepare declined the node's other types
    return def.Fail(code::kFeatureUnsupported, "no CUDA comparison of ", ir::Name(a->dtype));
  }
  KILN_RETURN_IF_ERROR(CheckBroadcast(def, *a, y->dims), "");
  KILN_RETURN_IF_ERROR(CheckBroadcast(def, *b, y->dims), "");
  BroadcastShape shape;
  const bool same = SameOrder({a, b}, *y);
  if (!same && !MakeBroadcastShape(a->dims.data(), static_cast<int>(a->rank()), b->dims.data(),
                                   static_cast<int>(b->rank()), y->dims.data(),
                                   static_cast<int>(y->rank()), &shape)) {
    return TooDeep(def, y->rank());
  }
  return Launched(LaunchCompare(kOp, type, a->data, b->data, static_cast<uint8_t*>(y->data),
                                y->num_elements(), shape, same, StreamOf(ctx)),
                  "launching a comparison");
}

Status RunNot(const NodeDef& def, KernelContext& ctx) {
  (void)def;
  TensorView* y = ctx.output(0);
  return Launched(LaunchNot(static_cast<const uint8_t*>(ctx.input(0)->data),
                            static_cast<uint8_t*>(y->data), y->num_elements(), StreamOf(ctx)),
                  "launching Not");
}

Status RunWhere(const NodeDef& def, KernelContext& ctx) {
  const TensorView* c = ctx.input(0);
  const TensorView* x = ctx.input(1);
  const TensorView* y = ctx.input(2);
  TensorView* out = ctx.output(0);
  for (const TensorView* t : {c, x, y}) {
    KILN_RETURN_IF_ERROR(CheckBroadcast(def, *t, out->dims), "");
  }
  WhereShape shape;
  const bool same = SameOrder({c, x, y}, *out);
  if (!same) {
    const int r = static_cast<int>(out->rank());
    BroadcastShape ys;
    if (!MakeBroadcastShape(c->dims.data(), static_cast<int>(c->rank()), x->dims.data(),
                            static_cast<int>(x->rank()), out->dims.data(), r, &shape.cx) ||
        !MakeBroadcastShape(y->dims.data(), static_cast<int>(y->rank()), y->dims.data(),
                            static_cast<int>(y->rank()), out->dims.data(), r, &ys)) {
      return TooDeep(def, out->rank());
    }
    for (int d = 0; d < r; ++d) shape.y_strides[d] = ys.a_strides[d];
  }
  return Launched(LaunchWhere(static_cast<const uint8_t*>(c->data), x->data, y->data, out->data,
                              out->num_elements(), static_cast<int>(ir::SizeOf(out->dtype)), shape,
                              same, StreamOf(ctx)),
                  "launching Where");
}

// The output has at most kMaxBroadcastRank dims where its rank is known at load (an unknown
// rank is checked when the kernel runs).
Status RequireBroadcastRank(const NodeDef& def) {
  if (def.output_ranked(0) && def.output_dims[0].size() > size_t{kMaxBroadcastRank}) {
    return TooDeep(def, def.output_dims[0].size());
  }
  return Status::Ok();
}

Status RequireComparable(const NodeDef& def) {
  CompareType type = CompareType::kFloat32;
  for (size_t i = 0; i < 2; ++i) {
    const DataType t = def.input_types[i];
    if (!TypeOf(t, &type) || (type == CompareType::kBool && def.op_type != "Equal")) {
      return def.Fail(code::kFeatureUnsupported, "the CUDA comparisons take float32, int64 or ",
                      "int32 (Equal also bool); input ", i, " is ", ir::Name(t));
    }
  }
  return Status::Ok();
}

Status RequireBool(const NodeDef& def) {
  for (size_t i = 0; i < def.num_inputs(); ++i) {
    if (def.input_types[i] != DataType::kBool) {
      return def.Fail(code::kFeatureUnsupported, "the CUDA logical ops take bool; input ", i,
                      " is ", ir::Name(def.input_types[i]));
    }
  }
  return Status::Ok();
}

Status RequireWhereTypes(const NodeDef& def) {
  if (def.input_types[0] != DataType::kBool) {
    return def.Fail(code::kFeatureUnsupported, "the CUDA Where takes a bool condition, not ",
                    ir::Name(def.input_types[0]));
  }
  return RequireWholeBytes(def, def.output_types[0]);
}

}  // namespace

void RegisterCudaCompareKernels(kernels::KernelRegistry& registry) {
  for (const auto& [op, run] :
       {std::pair<const char*, kernels::RunFn>{"Equal", RunCompare<CompareOp::kEqual>},
        {"Less", RunCompare<CompareOp::kLess>},
        {"Greater", RunCompare<CompareOp::kGreater>},
        {"LessOrEqual", RunCompare<CompareOp::kLessOrEqual>},
        {"GreaterOrEqual", RunCompare<CompareOp::kGreaterOrEqual>}}) {
    RegisterFunction(registry, op, run, {RequireComparable, RequireBroadcastRank});
  }
  for (const auto& [op, run] :
       {std::pair<const char*, kernels::RunFn>{"And", RunCompare<CompareOp::kAnd>},
        {"Or", RunCompare<CompareOp::kOr>},
        {"Xor", RunCompare<CompareOp::kXor>}}) {
    RegisterFunction(registry, op, run, {RequireBool, RequireBroadcastRank});
  }
  RegisterFunction(registry, "Not", RunNot, {RequireBool});
  RegisterFunction(registry, "Where", RunWhere, {RequireWhereTypes, RequireBroadcastRank});
}

}  // namespace kiln::cuda
