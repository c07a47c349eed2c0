// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// CANN's slicing, transposing, broadcasting, reshaping and joining operators. Operands CANN
// takes as tensors where ONNX needs attributes (a Transpose's perm, StridedSlice's bounds) must be
// constant in the call.
#include <cstdint>
#include <limits>

#include "compiler/cann_ops_build.h"

namespace kiln::compiler {
namespace {

using ir::DataType;
using Ctx = CannOpContext;

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

// An integer input as int64 (shape operands of ONNX ops are int64).
Result<ir::Value*> AsInt64(Ctx& c, size_t i, const char* name) {
  KILN_ASSIGN_OR_RETURN(ir::Value * v, c.In(i, name));
  if (c.InType(i) == DataType::kInt64) return v;
  if (c.InType(i) != DataType::kInt32) {
    return c.Fail("input ", i, " (", name, ") must be int32 or int64, not ", ir::Name(c.InType(i)));
  }
  return c.Node("Cast", {v}, {{"to", static_cast<int64_t>(DataType::kInt64)}});
}

// x[offsets : offsets + size] on every axis; size −1 runs to the end of the axis.
Status SliceFrom(Ctx& c, ir::Value* offsets, ir::Value* ends) {
  KILN_ASSIGN_OR_RETURN(ir::Value * x, c.In(0, "x"));
  KILN_ASSIGN_OR_RETURN(ir::Value * y, c.Node("Slice", {x, offsets, ends}));
  return c.Output(y);
}

std::vector<int64_t> EndsOf(const std::vector<int64_t>& offsets, const std::vector<int64_t>& size) {
  std::vector<int64_t> ends(offsets.size());
  for (size_t i = 0; i < ends.size(); ++i) ends[i] = size[i] == -1 ? kMax : offsets[i] + size[i];
  return ends;
}

Status Slice(Ctx& c, const char*) {
  ir::Value* off = c.OptionalIn(1);
  ir::Value* size = c.OptionalIn(2);
  if (off != nullptr && size != nullptr && off->constant() && size->constant()) {
    KILN_ASSIGN_OR_RETURN(std::vector<int64_t> o, c.ConstInts(1, "offsets"));
    KILN_ASSIGN_OR_RETURN(std::vector<int64_t> s, c.ConstInts(2, "size"));
    if (o.size() != s.size()) return c.Fail("offsets and size differ in length");
    return SliceFrom(c, c.Int64s(o), c.Int64s(EndsOf(o, s)));
  }
  // Bounds given at run time: ends = offsets + size, or the end of the axis where size is -1.
  KILN_ASSIGN_OR_RETURN(ir::Value * o, AsInt64(c, 1, "offsets"));
  KILN_ASSIGN_OR_RETURN(ir::Value * s, AsInt64(c, 2, "size"));
  KILN_ASSIGN_OR_RETURN(ir::Value * sum, c.Node("Add", {o, s}));
  KILN_ASSIGN_OR_RETURN(ir::Value * all, c.Node("Equal", {s, c.Scalar(DataType::kInt64, -1)}));
  // kMax as an int64 constant: Scalar's double would round to 2^63, out of int64's range.
  KILN_ASSIGN_OR_RETURN(ir::Value * ends, c.Node("Where", {all, c.Int64s({kMax}), sum}));
  return SliceFrom(c, o, ends);
}

Status SliceD(Ctx& c, const char*) {
  KILN_ASSIGN_OR_RETURN(std::vector<int64_t> o, c.Ints("offsets"));
  KILN_ASSIGN_OR_RETURN(std::vector<int64_t> s, c.Ints("size"));
  if (o.size() != s.size()) return c.Fail("offsets and size differ in length");
  return SliceFrom(c, c.Int64s(o), c.Int64s(EndsOf(o, s)));
}

// TensorFlow's strided slice with begin/end/shrink masks (bit i: axis i); ellipsis and new-axis
// masks are not supported.
Status StridedSliceWith(Ctx& c, std::vector<int64_t> begin, std::vector<int64_t> end,
                        std::vector<int64_t> strides) {
  KILN_ASSIGN_OR_RETURN(ir::Value * x, c.In(0, "x"));
  KILN_ASSIGN_OR_RETURN(int64_t begin_mask, c.Int("begin_mask", 0));
  KILN_ASSIGN_OR_RETURN(int64_t end_mask, c.Int("end_mask", 0));
  KILN_ASSIGN_OR_RETURN(int64_t ellipsis_mask, c.Int("ellipsis_mask", 0));
  KILN_ASSIGN_OR_RETURN(int64_t new_axis_mask, c.Int("new_axis_mask", 0));
  KILN_ASSIGN_OR_RETURN(int64_t shrink_mask, c.Int("shrink_axis_mask", 0));
  if (ellipsis_mask != 0 || new_axis_mask != 0) {
    return c.Fail("ellipsis_mask and new_axis_mask are not supported (they are ", ellipsis_mask,
                  " and ", new_axis_mask, ")");
  }
  if (begin.size() != end.size() || begin.size() != strides.size()) {
    return c.Fail("begin, end and strides differ in length");
  }
  std::vector<int64_t> axes, squeeze;
  for (size_t i = 0; i < begin.size(); ++i) {
    const int64_t bit = int64_t{1} << i;
    if (strides[i] == 0) return c.Fail("strides[", i, "] is 0");
    if (shrink_mask & bit) {
      end[i] = begin[i] == -1 ? kMax : begin[i] + 1;
      strides[i] = 1;
      squeeze.push_back(static_cast<int64_t>(i));
    } else {
      if (begin_mask & bit) begin[i] = strides[i] > 0 ? 0 : kMax;
      if (end_mask & bit) end[i] = strides[i] > 0 ? kMax : kMin;
    }
    axes.push_back(static_cast<int64_t>(i));
  }
  KILN_ASSIGN_OR_RETURN(ir::Value * y, c.Node("Slice", {x, c.Int64s(begin), c.Int64s(end),
                                                        c.Int64s(axes), c.Int64s(strides)}));
  if (!squeeze.empty()) {
    KILN_ASSIGN_OR_RETURN(y, c.Node("Squeeze", {y, c.Int64s(squeeze)}));
  }
  return c.Output(y);
}

Status StridedSlice(Ctx& c, const char*) {
  KILN_ASSIGN_OR_RETURN(std::vector<int64_t> b, c.ConstInts(1, "begin"));
  KILN_ASSIGN_OR_RETURN(std::vector<int64_t> e, c.ConstInts(2, "end"));
  std::vector<int64_t> s(b.size(), 1);
  if (c.OptionalIn(3) != nullptr) {
    KILN_ASSIGN_OR_RETURN(s, c.ConstInts(3, "strides"));
  }
  return StridedSliceWith(c, b, e, s);
}

Status StridedSliceD(Ctx& c, const char*) {
  KILN_ASSIGN_OR_RETURN(std::vector<int64_t> b, c.Ints("begin"));
  KILN_ASSIGN_OR_RETURN(std::vector<int64_t> e, c.Ints("end"));
  KILN_ASSIGN_OR_RETURN(std::vector<int64_t> s,
                        c.Ints("strides", std::vector<int64_t>(b.size(), 1)));
  return StridedSliceWith(c, b, e, s);
}

Status TransposeBy(Ctx& c, const std::vector<int64_t>& perm) {
  KILN_ASSIGN_OR_RETURN(ir::Value * x, c.In(0, "x"));
  KILN_ASSIGN_OR_RETURN(ir::Value * y, c.Node("Transpose", {x}, {{"perm", perm}}));
  return c.Output(y);
}

Status Transpose(Ctx& c, const char*) {
  KILN_ASSIGN_OR_RETURN(std::vector<int64_t> perm, c.ConstInts(1, "perm"));
  return TransposeBy(c, perm);
}

Status TransposeD(Ctx& c, const char*) {
  KILN_ASSIGN_OR_RETURN(std::vector<int64_t> perm, c.Ints("perm"));
  return TransposeBy(c, perm);
}

// Expand(x, shape) with the shape from input 1 (BroadcastTo) or the attribute (BroadcastToD).
Status BroadcastTo(Ctx& c, const char*) {
  KILN_ASSIGN_OR_RETURN(ir::Value * x, c.In(0, "x"));
  KILN_ASSIGN_OR_RETURN(ir::Value * shape, AsInt64(c, 1, "shape"));
  KILN_ASSIGN_OR_RETURN(ir::Value * y, c.Node("Expand", {x, shape}));
  return c.Output(y);
}

Status BroadcastToD(Ctx& c, const char*) {
  KILN_ASSIGN_OR_RETURN(ir::Value * x, c.In(0, "x"));
  KILN_ASSIGN_OR_RETURN(std::vector<int64_t> shape, c.Ints("shape"));
  KILN_ASSIGN_OR_RETURN(ir::Value * y, c.Node("Expand", {x, c.Int64s(shape)}));
  return c.Output(y);
}

// Fill: a tensor of `dims` holding `value` (a one-element tensor).
Status Fill(Ctx& c, const char*) {
  KILN_ASSIGN_OR_RETURN(ir::Value * dims, AsInt64(c, 0, "dims"));
  KILN_ASSIGN_OR_RETURN(ir::Value * value, c.In(1, "value"));
  KILN_ASSIGN_OR_RETURN(ir::Value * scalar, c.Node("Reshape", {value, c.Int64s({})}));
  KILN_ASSIGN_OR_RETURN(ir::Value * y, c.Node("Expand", {scalar, dims}));
  return c.Output(y);
}

Status Flatten(Ctx& c, const char*) {
  KILN_ASSIGN_OR_RETURN(ir::Value * x, c.In(0, "x"));
  KILN_ASSIGN_OR_RETURN(int64_t axis, c.Int("axis", 1));
  KILN_ASSIGN_OR_RETURN(ir::Value * y, c.Node("Flatten", {x}, {{"axis", axis}}));
  return c.Output(y);
}

Status Reshape(Ctx& c, const char*) {
  KILN_ASSIGN_OR_RETURN(ir::Value * x, c.In(0, "x"));
  KILN_ASSIGN_OR_RETURN(ir::Value * shape, AsInt64(c, 1, "shape"));
  KILN_ASSIGN_OR_RETURN(int64_t axis, c.Int("axis", 0));
  KILN_ASSIGN_OR_RETURN(int64_t num_axes, c.Int("num_axes", -1));
  if (axis != 0 || num_axes != -1) return c.Fail("only axis 0 and num_axes -1 are supported");
  KILN_ASSIGN_OR_RETURN(ir::Value * y, c.Node("Reshape", {x, shape}));
  return c.Output(y);
}

// Squeeze: attribute `axis` (empty: every dim of size 1).
Status Squeeze(Ctx& c, const char*) {
  KILN_ASSIGN_OR_RETURN(ir::Value * x, c.In(0, "x"));
  KILN_ASSIGN_OR_RETURN(std::vector<int64_t> axes, c.Ints("axis", std::vector<int64_t>{}));
  std::vector<ir::Value*> ins = {x};
  if (!axes.empty()) ins.push_back(c.Int64s(axes));
  KILN_ASSIGN_OR_RETURN(ir::Value * y, c.Node("Squeeze", ins));
  return c.Output(y);
}

Status Unsqueeze(Ctx& c, const char*) {
  KILN_ASSIGN_OR_RETURN(ir::Value * x, c.In(0, "x"));
  KILN_ASSIGN_OR_RETURN(std::vector<int64_t> axes, c.Ints("axes"));
  KILN_ASSIGN_OR_RETURN(ir::Value * y, c.Node("Unsqueeze", {x, c.Int64s(axes)}));
  return c.Output(y);
}

Status ExpandDims(Ctx& c, const char*) {
  KILN_ASSIGN_OR_RETURN(ir::Value * x, c.In(0, "x"));
  KILN_ASSIGN_OR_RETURN(ir::Value * axis, AsInt64(c, 1, "axis"));
  KILN_ASSIGN_OR_RETURN(ir::Value * axes, c.Node("Reshape", {axis, c.Int64s({1})}));
  KILN_ASSIGN_OR_RETURN(ir::Value * y, c.Node("Unsqueeze", {x, axes}));
  return c.Output(y);
}

// ConcatD / ConcatV2D: every input joined along concat_dim.
Status ConcatD(Ctx& c, const char*) {
  KILN_ASSIGN_OR_RETURN(int64_t axis, c.Int("concat_dim"));
  std::vector<ir::Value*> ins;
  for (size_t i = 0; i < c.num_inputs(); ++i) {
    KILN_ASSIGN_OR_RETURN(ir::Value * v, c.In(i, "x"));
    ins.push_back(v);
  }
  KILN_ASSIGN_OR_RETURN(ir::Value * y, c.Node("Concat", ins, {{"axis", axis}}));
  return c.Output(y);
}

// GatherV2 (axis as input 2, constant) and GatherV2D (attribute axis).
Status GatherAlong(Ctx& c, int64_t axis) {
  KILN_ASSIGN_OR_RETURN(ir::Value * x, c.In(0, "x"));
  KILN_ASSIGN_OR_RETURN(ir::Value * idx, c.In(1, "indices"));
  KILN_ASSIGN_OR_RETURN(ir::Value * y, c.Node("Gather", {x, idx}, {{"axis", axis}}));
  return c.Output(y);
}

Status GatherV2(Ctx& c, const char*) {
  KILN_ASSIGN_OR_RETURN(std::vector<int64_t> axis, c.ConstInts(2, "axis"));
  if (axis.size() != 1) return c.Fail("input 2 (axis) must hold one value");
  return GatherAlong(c, axis[0]);
}

Status GatherV2D(Ctx& c, const char*) {
  KILN_ASSIGN_OR_RETURN(int64_t axis, c.Int("axis"));
  return GatherAlong(c, axis);
}

// Tile (multiples as input 1) and TileD (the required attribute).
Status TileBy(Ctx& c, ir::Value* multiples) {
  KILN_ASSIGN_OR_RETURN(ir::Value * x, c.In(0, "x"));
  KILN_ASSIGN_OR_RETURN(ir::Value * y, c.Node("Tile", {x, multiples}));
  return c.Output(y);
}

Status Tile(Ctx& c, const char*) {
  KILN_ASSIGN_OR_RETURN(ir::Value * m, AsInt64(c, 1, "multiples"));
  return TileBy(c, m);
}

Status TileD(Ctx& c, const char*) {
  KILN_ASSIGN_OR_RETURN(std::vector<int64_t> mult, c.Ints("multiples"));
  return TileBy(c, c.Int64s(mult));
}

Status Identity(Ctx& c, const char*) {
  KILN_ASSIGN_OR_RETURN(ir::Value * x, c.In(0, "x"));
  KILN_ASSIGN_OR_RETURN(ir::Value * y, c.Node("Identity", {x}));
  return c.Output(y);
}

}  // namespace

void AddTensorOps(std::vector<CannOp>& ops) {
  ops.push_back({"Slice", "x, offsets, size -> y", "",
                 "Slice(starts = offsets, ends = offsets + size; size -1: to the end)", Slice});
  ops.push_back({"SliceD", "x -> y", "offsets, size list_int (required)", "Slice", SliceD});
  ops.push_back({"StridedSlice", "x, begin (const), end (const), strides? (const) -> y",
                 "begin_mask, end_mask, shrink_axis_mask int 0 (ellipsis_mask, new_axis_mask "
                 "must be 0)",
                 "Slice with steps (+ Squeeze for shrink_axis_mask)", StridedSlice});
  ops.push_back({"StridedSliceD", "x -> y",
                 "begin, end list_int (required), strides list_int, masks as StridedSlice",
                 "Slice with steps (+ Squeeze)", StridedSliceD});
  ops.push_back({"Transpose", "x, perm (const) -> y", "", "Transpose", Transpose});
  ops.push_back({"TransposeD", "x -> y", "perm list_int (required)", "Transpose", TransposeD});
  ops.push_back({"BroadcastTo", "x, shape -> y", "", "Expand", BroadcastTo});
  ops.push_back({"BroadcastToD", "x -> y", "shape list_int (required)", "Expand", BroadcastToD});
  ops.push_back({"Fill", "dims, value -> y", "", "Expand(value, dims)", Fill});
  ops.push_back({"Flatten", "x -> y", "axis int 1", "Flatten", Flatten});
  ops.push_back(
      {"Reshape", "x, shape -> y", "axis int 0, num_axes int -1 (only these)", "Reshape", Reshape});
  ops.push_back({"Squeeze", "x -> y", "axis list_int [] (every size-1 dim)", "Squeeze", Squeeze});
  ops.push_back({"Unsqueeze", "x -> y", "axes list_int (required)", "Unsqueeze", Unsqueeze});
  ops.push_back({"ExpandDims", "x, axis -> y", "", "Unsqueeze", ExpandDims});
  ops.push_back(
      {"ConcatD", "x0, x1, ... -> y", "concat_dim int (required), N int", "Concat", ConcatD});
  ops.push_back(
      {"ConcatV2D", "x0, x1, ... -> y", "concat_dim int (required), N int", "Concat", ConcatD});
  ops.push_back({"GatherV2", "x, indices, axis (const) -> y", "", "Gather", GatherV2});
  ops.push_back({"GatherV2D", "x, indices -> y", "axis int (required)", "Gather", GatherV2D});
  ops.push_back({"Tile", "x, multiples -> y", "", "Tile", Tile});
  ops.push_back({"TileD", "x -> y", "multiples list_int (required)", "Tile", TileD});
  ops.push_back({"Identity", "x -> y", "", "Identity", Identity});
}

}  // namespace kiln::compiler
