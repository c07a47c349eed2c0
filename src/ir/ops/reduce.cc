// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Reductions: ReduceSum, ReduceMean, ReduceMax, ReduceMin, ReduceProd, ReduceL1, ReduceL2,
// ReduceLogSum, ReduceLogSumExp, ReduceSumSquare. The axes are an attribute until ReduceSum-13
// and the others' opset 18, and an optional int64 input 1 from then on (together with
// noop_with_empty_axes).
#include <string>
#include <vector>

#include "ir/ops/infer_util.h"

namespace kiln::ir {

namespace {

// The opset from which `op_type` takes its axes as input 1 instead of the 'axes' attribute.
int AxesInputSince(const std::string& op_type) { return op_type == "ReduceSum" ? 13 : 18; }

// The reduction axes of a node, from the attribute or from input 1, whichever its opset uses.
struct ReductionAxes {
  bool known = true;          // false: input 1 is only known at run time
  std::vector<int64_t> axes;  // empty: every axis (or none, with noop_with_empty_axes)
};

Status GetReductionAxes(const InferenceContext& ctx, ReductionAxes* out) {
  const InferenceContext& node = ctx;
  const int since = AxesInputSince(node.op_type());
  if (ctx.opset() < since) {
    if (ctx.has_input(1)) {
      return ctx.Fail("takes its axes as input 1 only from opset ", since,
                      "; before that they are the 'axes' attribute");
    }
    out->axes = node.attr_ints("axes");
    return Status::Ok();
  }
  if (node.has_attr("axes")) {
    return ctx.Fail("attribute 'axes' was replaced by input 1 in opset ", since,
                    "; pass the axes as an int64 tensor input");
  }
  if (!ctx.has_input(1)) return Status::Ok();
  if (ctx.input_dtype(1) != DataType::kInt64) {
    return ctx.Fail("axes (input 1) is ", Name(ctx.input_dtype(1)), "; int64 is required");
  }
  const Shape& axes_shape = ctx.input_shape(1);
  if (axes_shape.rank_known() && axes_shape.rank() != 1) {
    return ctx.Fail("axes (input 1) must be 1-D, got shape ", axes_shape.ToString());
  }
  if (auto axes = ctx.input_ints(1)) {
    out->axes = std::move(*axes);
  } else {
    // A run-time axes tensor that is statically empty still means "no axes".
    out->known = axes_shape.IsStatic() && axes_shape[0].value == 0;
  }
  return Status::Ok();
}

Status Reduce(InferenceContext& ctx) {
  const InferenceContext& node = ctx;
  const DataType dtype = ctx.input_dtype(0);
  const bool bool_allowed =
      ctx.opset() >= 20 && (node.op_type() == "ReduceMax" || node.op_type() == "ReduceMin");
  if (!IsFloat(dtype) && !IsInteger(dtype) && !(bool_allowed && dtype == DataType::kBool)) {
    return ctx.Fail("input is ", Name(dtype), "; a numeric type", bool_allowed ? " or bool" : "",
                    " is required");
  }
  ReductionAxes reduction;
  KILN_RETURN_IF_ERROR(GetReductionAxes(ctx, &reduction), "");
  const std::vector<int64_t>& axes = reduction.axes;
  const bool keepdims = node.attr_int("keepdims") != 0;
  const bool noop_with_empty_axes =
      ctx.opset() >= AxesInputSince(node.op_type()) && node.attr_int("noop_with_empty_axes") != 0;
  const Shape& in = ctx.input_shape(0);

  if (!reduction.known) {
    // Which axes go is unknown: with keepdims the rank survives (and dims of 1 stay 1 whether
    // reduced or not); without it even the rank is unknown.
    if (!keepdims || !in.rank_known()) {
      ctx.set_output(0, dtype, Shape());
      return Status::Ok();
    }
    std::vector<Dim> dims;
    for (const Dim& d : in.dims()) dims.push_back(d.value == 1 ? d : Dim::Unknown());
    ctx.set_output(0, dtype, Shape(std::move(dims)));
    return Status::Ok();
  }

  if (axes.empty()) {
    if (noop_with_empty_axes) return InferSameAsInput(ctx);
    if (!keepdims) {
      ctx.set_output(0, dtype, Shape::Scalar());
    } else if (!in.rank_known()) {
      ctx.set_output(0, dtype, Shape());
    } else {
      ctx.set_output(0, dtype, Shape(std::vector<Dim>(in.rank(), Dim::Known(1))));
    }
    return Status::Ok();
  }

  if (!in.rank_known()) {
    ctx.set_output(0, dtype, Shape());
    return Status::Ok();
  }
  const int64_t rank = static_cast<int64_t>(in.rank());
  std::vector<bool> reduced(in.rank(), false);
  for (int64_t axis : axes) {
    std::optional<int64_t> a = NormalizeAxis(axis, rank);
    if (!a) {
      if (rank == 0) {
        return ctx.Fail("axis ", axis, " is out of range for an input of rank 0 (a scalar has ",
                        "no axes; omit them to reduce it)");
      }
      return ctx.Fail("axis ", axis, " is out of range for input ", in.ToString(), " of rank ",
                      rank, "; axes must lie in [", -rank, ", ", rank - 1, "]");
    }
    if (reduced[static_cast<size_t>(*a)]) {
      return ctx.Fail("axes ", IntsStr(axes), " name axis ", *a, " of input ", in.ToString(),
                      " more than once");
    }
    reduced[static_cast<size_t>(*a)] = true;
  }
  std::vector<Dim> dims;
  for (size_t i = 0; i < in.rank(); ++i) {
    if (!reduced[i]) {
      dims.push_back(in[i]);
    } else if (keepdims) {
      dims.push_back(Dim::Known(1));
    }
  }
  ctx.set_output(0, dtype, Shape(std::move(dims)));
  return Status::Ok();
}

}  // namespace

void RegisterReduceOps(OpRegistry& r) {
  constexpr const char* kFamily = "reduce";
  // Opset 1 already had axes, keepdims and reduce-all; the later versions changed the axes'
  // form (handled above), negative axes (accepted throughout) and the type lists.
  for (const char* op :
       {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2",
        "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare"}) {
    const int since = AxesInputSince(op);
    r.Register(
        MakeSchema(op, 1, 1, 2, 1, 1, kFamily, Reduce)
            .Attrs({Attr("keepdims", 1), OptionalAttr("axes", AttrKind::kInts).Until(since - 1),
                    Attr("noop_with_empty_axes", 0).Since(since)}));
  }
}

}  // namespace kiln::ir
