// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Control flow: If, Loop and Scan. Output types come from the subgraphs' declared output types
// (Graph::outputs()[i]->type()); inference does not descend into the subgraphs.
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "ir/ops/infer_util.h"

namespace kiln::ir {
namespace {

// The graph held by attribute `name`; an error when it is absent, of another kind, or null.
Result<const Graph*> GraphAttr(const InferenceContext& ctx, const std::string& name) {
  auto it = ctx.attrs().find(name);
  if (it == ctx.attrs().end()) {
    return ctx.Fail("attribute '", name, "' (a graph) is required");
  }
  const auto* graph = std::get_if<std::shared_ptr<Graph>>(&it->second);
  if (graph == nullptr) {
    return ctx.Fail("attribute '", name, "' must be a graph, got ", AttributeKind(it->second));
  }
  if (*graph == nullptr) return ctx.Fail("attribute '", name, "' holds no graph");
  return static_cast<const Graph*>(graph->get());
}

// Output i's declared type in `graph` (kUndefined when the graph does not declare one).
TensorType DeclaredOutput(const Graph& graph, size_t i) {
  const Value* v = graph.outputs()[i];
  return v == nullptr ? TensorType{} : v->type();
}

std::string OutputName(const Graph& graph, size_t i) {
  const Value* v = graph.outputs()[i];
  return v == nullptr ? std::string("<none>") : v->name();
}

// A shape that holds for a value that may have either shape: dims that differ become unknown,
// and differing ranks make the rank unknown.
Shape UnionShape(const Shape& a, const Shape& b) {
  if (!a.rank_known() || !b.rank_known() || a.rank() != b.rank()) return Shape();
  std::vector<Dim> dims;
  for (size_t i = 0; i < a.rank(); ++i) dims.push_back(a[i] == b[i] ? a[i] : Dim::Unknown());
  return Shape(std::move(dims));
}

// Input i (called `what`) must be of `dtype` and hold exactly one element.
Status CheckOneElement(const InferenceContext& ctx, size_t i, const char* what, DataType dtype) {
  if (ctx.input_dtype(i) != dtype) {
    return ctx.Fail(what, " is ", Name(ctx.input_dtype(i)), "; ", Name(dtype), " is required");
  }
  const Shape& shape = ctx.input_shape(i);
  if (shape.rank_known()) {
    for (const Dim& d : shape.dims()) {
      if (d.known() && d.value != 1) {
        return ctx.Fail(what, " must hold one element, got shape ", shape.ToString());
      }
    }
  }
  return Status::Ok();
}

// The final value of a loop-carried (or scan state) variable `index`: the initial value's
// type, widened to every shape the body's output may take.
Result<TensorType> CarriedOutput(const InferenceContext& ctx, const TensorType& initial,
                                 const Graph& body, size_t body_output, size_t index) {
  TensorType produced = DeclaredOutput(body, body_output);
  if (produced.dtype == DataType::kUndefined) return TensorType{initial.dtype, Shape()};
  if (produced.dtype != initial.dtype) {
    return ctx.Fail("loop-carried value ", index, " starts as ", Name(initial.dtype),
                    " but body output ", body_output, " ('", OutputName(body, body_output),
                    "') is ", Name(produced.dtype), "; they must have the same type");
  }
  return TensorType{initial.dtype, UnionShape(initial.shape, produced.shape)};
}

Status If(InferenceContext& ctx) {
  KILN_RETURN_IF_ERROR(CheckOneElement(ctx, 0, "cond", DataType::kBool), "");
  KILN_ASSIGN_OR_RETURN(const Graph* then_branch, GraphAttr(ctx, "then_branch"));
  KILN_ASSIGN_OR_RETURN(const Graph* else_branch, GraphAttr(ctx, "else_branch"));
  const size_t n = ctx.num_outputs();
  if (then_branch->outputs().size() != n || else_branch->outputs().size() != n) {
    return ctx.Fail("then_branch has ", then_branch->outputs().size(), " output(s) and ",
                    "else_branch has ", else_branch->outputs().size(), "; both need ", n,
                    ", one per output of the node");
  }
  for (size_t i = 0; i < n; ++i) {
    TensorType t = DeclaredOutput(*then_branch, i);
    TensorType e = DeclaredOutput(*else_branch, i);
    if (t.dtype == DataType::kUndefined && e.dtype == DataType::kUndefined) {
      return ctx.Fail("output ", i, ": neither then_branch ('", OutputName(*then_branch, i),
                      "') nor else_branch ('", OutputName(*else_branch, i),
                      "') declares its type; declare the branch outputs' types");
    }
    if (t.dtype != DataType::kUndefined && e.dtype != DataType::kUndefined && t.dtype != e.dtype) {
      return ctx.Fail("output ", i, " is ", Name(t.dtype), " in then_branch but ", Name(e.dtype),
                      " in else_branch; both branches must produce the same type");
    }
    if (t.dtype == DataType::kUndefined || e.dtype == DataType::kUndefined) {
      // One branch's shape says nothing about the other's.
      DataType dtype = t.dtype == DataType::kUndefined ? e.dtype : t.dtype;
      ctx.set_output(i, dtype, Shape());
    } else {
      ctx.set_output(i, t.dtype, UnionShape(t.shape, e.shape));
    }
  }
  return Status::Ok();
}

// Loop(M?, cond?, v_initial...) -> (v_final..., scan_outputs...); body(iter, cond, v...) ->
// (cond, v..., scan_elements...).
Status Loop(InferenceContext& ctx) {
  if (ctx.has_input(0)) {
    KILN_RETURN_IF_ERROR(CheckOneElement(ctx, 0, "M (the trip count)", DataType::kInt64), "");
  }
  if (ctx.has_input(1)) {
    KILN_RETURN_IF_ERROR(CheckOneElement(ctx, 1, "cond", DataType::kBool), "");
  }
  KILN_ASSIGN_OR_RETURN(const Graph* body, GraphAttr(ctx, "body"));
  const size_t n_carried = ctx.num_inputs() > 2 ? ctx.num_inputs() - 2 : 0;
  for (size_t i = 0; i < n_carried; ++i) {
    if (!ctx.has_input(2 + i)) {
      return ctx.Fail("loop-carried initial value ", i, " (input ", 2 + i, ") is missing");
    }
  }
  const size_t n_out = ctx.num_outputs();
  if (n_out < n_carried) {
    return ctx.Fail("has ", n_out, " output(s) for ", n_carried,
                    " loop-carried value(s); each carried value needs an output");
  }
  if (body->inputs().size() != 2 + n_carried) {
    return ctx.Fail("body has ", body->inputs().size(), " input(s); it needs ", 2 + n_carried,
                    " (iteration number, condition, one per loop-carried value)");
  }
  if (body->outputs().size() != 1 + n_out) {
    return ctx.Fail("body has ", body->outputs().size(), " output(s); it needs ", 1 + n_out,
                    " (condition, one per output of the node)");
  }
  DataType body_cond = DeclaredOutput(*body, 0).dtype;
  if (body_cond != DataType::kUndefined && body_cond != DataType::kBool) {
    return ctx.Fail("body output 0 ('", OutputName(*body, 0), "') is the condition and must be ",
                    "bool, got ", Name(body_cond));
  }
  for (size_t i = 0; i < n_carried; ++i) {
    KILN_ASSIGN_OR_RETURN(TensorType type,
                          CarriedOutput(ctx, ctx.input_type(2 + i), *body, 1 + i, i));
    ctx.set_output(i, std::move(type));
  }
  for (size_t i = n_carried; i < n_out; ++i) {
    TensorType element = DeclaredOutput(*body, 1 + i);
    if (element.dtype == DataType::kUndefined) {
      return ctx.Fail("scan output ", i - n_carried, " (body output ", 1 + i, " '",
                      OutputName(*body, 1 + i), "') has no declared type; declare it in the body");
    }
    // One slice per iteration, stacked on a new leading axis of unknown length.
    Shape shape;
    if (element.shape.rank_known()) {
      std::vector<Dim> dims{Dim::Unknown()};
      dims.insert(dims.end(), element.shape.dims().begin(), element.shape.dims().end());
      shape = Shape(std::move(dims));
    }
    ctx.set_output(i, element.dtype, std::move(shape));
  }
  return Status::Ok();
}

// Scan(state_initial..., scan_inputs...) -> (state_final..., scan_outputs...); body(state...,
// scan_slices...) -> (state..., scan_elements...).
Status Scan(InferenceContext& ctx) {
  KILN_ASSIGN_OR_RETURN(const Graph* body, GraphAttr(ctx, "body"));
  const InferenceContext& node = ctx;
  const int64_t n_inputs = static_cast<int64_t>(ctx.num_inputs());
  const int64_t m = node.attr_int("num_scan_inputs");
  if (m < 1 || m > n_inputs) {
    return ctx.Fail("attribute 'num_scan_inputs' is ", m, "; it must lie in [1, ", n_inputs,
                    "] for a node with ", n_inputs, " input(s)");
  }
  const size_t n_scan_in = static_cast<size_t>(m);
  const size_t n_state = ctx.num_inputs() - n_scan_in;
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    if (!ctx.has_input(i)) return ctx.Fail("input ", i, " is missing; Scan has no optional inputs");
  }
  const size_t n_out = ctx.num_outputs();
  if (n_out < n_state) {
    return ctx.Fail("has ", n_out, " output(s) for ", n_state,
                    " state variable(s); each state variable needs an output");
  }
  const size_t n_scan_out = n_out - n_state;
  if (body->inputs().size() != ctx.num_inputs()) {
    return ctx.Fail("body has ", body->inputs().size(), " input(s); it needs ", ctx.num_inputs(),
                    " (one per input of the node)");
  }
  if (body->outputs().size() != n_out) {
    return ctx.Fail("body has ", body->outputs().size(), " output(s); it needs ", n_out,
                    " (one per output of the node)");
  }
  // Each list has one entry per scan input or output, all 0 when absent.
  std::vector<int64_t> lists[4];
  const char* names[4] = {"scan_input_axes", "scan_input_directions", "scan_output_axes",
                          "scan_output_directions"};
  for (size_t l = 0; l < 4; ++l) {
    const size_t n = l < 2 ? n_scan_in : n_scan_out;
    lists[l] = node.has_attr(names[l]) ? node.attr_ints(names[l]) : std::vector<int64_t>(n);
    if (lists[l].size() != n) {
      return ctx.Fail("attribute '", names[l], "' has ", lists[l].size(), " entries for ", n,
                      l < 2 ? " scan input(s)" : " scan output(s)");
    }
    for (int64_t v : lists[l]) {
      if ((l == 1 || l == 3) && v != 0 && v != 1) {
        return ctx.Fail("attribute '", names[l], "' has entry ", v, "; directions are 0 or 1");
      }
    }
  }
  const std::vector<int64_t>& in_axes = lists[0];
  const std::vector<int64_t>& out_axes = lists[2];

  // Every scan input has the same length along its scan axis.
  Dim length = Dim::Unknown();
  for (size_t j = 0; j < n_scan_in; ++j) {
    const Shape& shape = ctx.input_shape(n_state + j);
    if (!shape.rank_known()) continue;
    std::optional<int64_t> axis = NormalizeAxis(in_axes[j], static_cast<int64_t>(shape.rank()));
    if (!axis) {
      return ctx.Fail("scan_input_axes[", j, "] = ", in_axes[j], " is out of range for scan input ",
                      j, " ", shape.ToString(), " of rank ", shape.rank());
    }
    const Dim& d = shape[static_cast<size_t>(*axis)];
    if (length.known() && d.known() && length.value != d.value) {
      return ctx.Fail("scan input ", j, " ", shape.ToString(), " has length ", d.value,
                      " along axis ", *axis, " but an earlier scan input has length ", length.value,
                      "; all scan inputs must have the same length");
    }
    if (d.known() || (!length.known() && length.symbol.empty())) length = d;
  }

  for (size_t i = 0; i < n_state; ++i) {
    KILN_ASSIGN_OR_RETURN(TensorType type, CarriedOutput(ctx, ctx.input_type(i), *body, i, i));
    ctx.set_output(i, std::move(type));
  }
  for (size_t k = 0; k < n_scan_out; ++k) {
    const size_t i = n_state + k;
    TensorType element = DeclaredOutput(*body, i);
    if (element.dtype == DataType::kUndefined) {
      return ctx.Fail("scan output ", k, " (body output ", i, " '", OutputName(*body, i),
                      "') has no declared type; declare it in the body");
    }
    Shape shape;
    if (element.shape.rank_known()) {
      const int64_t rank = static_cast<int64_t>(element.shape.rank()) + 1;
      std::optional<int64_t> axis = NormalizeAxis(out_axes[k], rank);
      if (!axis) {
        return ctx.Fail("scan_output_axes[", k, "] = ", out_axes[k],
                        " is out of range for scan output ", k, " of rank ", rank);
      }
      std::vector<Dim> dims = element.shape.dims();
      dims.insert(dims.begin() + *axis, length);
      shape = Shape(std::move(dims));
    }
    ctx.set_output(i, element.dtype, std::move(shape));
  }
  return Status::Ok();
}

}  // namespace

void RegisterControlFlowOps(OpRegistry& r) {
  constexpr const char* kFamily = "control_flow";
  // The bodies are required, but a loaded node keeps them apart from its attributes
  // (kernels::NodeDef::graphs), where a required declaration would not find them: they are
  // declared optional (their kind is still checked) and the shape functions (GraphAttr) and the
  // kernels' Prepare require them.
  r.Register(MakeSchema("If", 1, 1, 1, 1, -1, kFamily, If)
                 .Attrs({OptionalAttr("then_branch", AttrKind::kGraph),
                         OptionalAttr("else_branch", AttrKind::kGraph)})
                 .Traits(kTraitDataDependentShape));
  // M and cond are both optional and may be omitted ahead of the carried values.
  r.Register(MakeSchema("Loop", 1, 0, -1, 1, -1, kFamily, Loop)
                 .Attrs({OptionalAttr("body", AttrKind::kGraph)})
                 .Traits(kTraitDataDependentShape));
  // Scan-8 had a batch axis and a sequence_lens input; Kiln starts at the batch-free Scan-9.
  // The axes and directions lists have one entry per scan input or output (all 0 when absent).
  r.Register(MakeSchema("Scan", 9, 1, -1, 1, -1, kFamily, Scan)
                 .Attrs({OptionalAttr("body", AttrKind::kGraph),
                         RequiredAttr("num_scan_inputs", AttrKind::kInt),
                         OptionalAttr("scan_input_axes", AttrKind::kInts),
                         OptionalAttr("scan_input_directions", AttrKind::kInts),
                         OptionalAttr("scan_output_axes", AttrKind::kInts),
                         OptionalAttr("scan_output_directions", AttrKind::kInts)})
                 .Traits(kTraitDataDependentShape));
}

}  // namespace kiln::ir
