// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "ir/ops/infer_util.h"

namespace kiln::ir {

std::optional<int64_t> NormalizeAxis(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank) return std::nullopt;
  return axis < 0 ? axis + rank : axis;
}

std::string IntsStr(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) s += ',';
    s += std::to_string(v[i]);
  }
  return s + "]";
}

Result<std::vector<Dim>> DimsOfRank(const InferenceContext& ctx, size_t i, const char* name,
                                    size_t rank) {
  const Shape& s = ctx.input_shape(i);
  if (!s.rank_known()) return std::vector<Dim>(rank);
  if (s.rank() != rank) {
    return ctx.Fail(name, " has shape ", s.ToString(), "; rank ", rank, " is required");
  }
  return s.dims();
}

Status InferSameAsInput(InferenceContext& ctx) {
  ctx.set_output(0, ctx.input_type(0));
  return Status::Ok();
}

Status CheckSameDtype(InferenceContext& ctx, size_t first, size_t last) {
  for (size_t i = first + 1; i < last && i < ctx.num_inputs(); ++i) {
    if (!ctx.has_input(i) || !ctx.has_input(first)) continue;
    if (ctx.input_dtype(i) != ctx.input_dtype(first)) {
      return ctx.Fail("input ", i, " is ", Name(ctx.input_dtype(i)), " but input ", first, " is ",
                      Name(ctx.input_dtype(first)), "; they must have the same type");
    }
  }
  return Status::Ok();
}

Result<Shape> BroadcastInputs(InferenceContext& ctx, size_t first, size_t last) {
  std::optional<Shape> shape;
  for (size_t i = first; i < last && i < ctx.num_inputs(); ++i) {
    if (!ctx.has_input(i)) continue;
    if (!shape) {
      shape = ctx.input_shape(i);
      continue;
    }
    auto b = Broadcast(*shape, ctx.input_shape(i));
    if (!b) {
      return ctx.Fail("input shapes ", shape->ToString(), " and ", ctx.input_shape(i).ToString(),
                      " (input ", i, ") cannot be broadcast together");
    }
    shape = std::move(*b);
  }
  return shape.value_or(Shape());
}

OpSchema MakeSchema(const char* op_type, int since, int min_in, int max_in, int min_out,
                    int max_out, const char* family, InferFn infer, const char* domain) {
  OpSchema s;
  s.op_type = op_type;
  s.domain = domain;
  s.since_version = since;
  s.min_inputs = min_in;
  s.max_inputs = max_in;
  s.min_outputs = min_out;
  s.max_outputs = max_out;
  s.family = family;
  s.infer = infer;
  return s;
}

}  // namespace kiln::ir
