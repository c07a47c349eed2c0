// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "kernels/definition.h"

#include <atomic>
#include <memory>
#include <utility>

#include "ir/op_schema.h"
#include "kernels/util.h"

namespace kiln::kernels {
namespace {

const ir::OpSchema* SchemaOf(const NodeDef& def) {
  return ir::OpRegistry::Global().Find(def.domain, def.op_type);
}

ir::Shape ShapeOf(const Dims& dims, bool rank_known) {
  if (!rank_known) return ir::Shape();
  std::vector<ir::Dim> d(dims.size());
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] >= 0) d[i] = ir::Dim::Known(dims[i]);
  }
  return ir::Shape(std::move(d));
}

// A tensor over bytes the caller keeps alive (no copy, no ownership).
ir::Tensor Borrow(const TensorView& v) {
  std::shared_ptr<const uint8_t> data(std::shared_ptr<const uint8_t>(),
                                      static_cast<const uint8_t*>(v.data));
  return ir::Tensor(v.dtype, v.dims, std::move(data), v.bytes());
}

std::atomic<uint64_t> g_shape_function_runs{0};

// Runs the shape function of `schema` on `inputs`; `outputs` get the inferred types.
Status Infer(const ir::OpSchema& schema, const NodeDef& def,
             std::vector<ir::InferenceContext::Input> inputs,
             std::vector<ir::TensorType>* outputs) {
  g_shape_function_runs.fetch_add(1, std::memory_order_relaxed);
  std::vector<bool> used(def.num_outputs(), true);
  for (size_t i = 0; i < used.size(); ++i) used[i] = def.output_used(i);
  ir::InferenceContext ctx(def.op_type, def.name, def.opset, def.attrs, std::move(inputs),
                           std::move(used));
  KILN_RETURN_IF_ERROR(schema.infer(ctx), "");
  *outputs = ctx.outputs();
  return Status::Ok();
}

}  // namespace

Status ApplyDefinition(NodeDef& def) {
  const ir::OpSchema* schema = SchemaOf(def);
  if (schema == nullptr) return Status::Ok();
  std::vector<bool> given(def.num_inputs());
  for (size_t i = 0; i < given.size(); ++i) given[i] = def.input_given(i);
  KILN_RETURN_IF_ERROR(ir::CheckCounts(*schema, def.Label(), given, def.num_outputs()), "");
  KILN_RETURN_IF_ERROR(ir::ApplyAttrDefaults(*schema, def.opset, def.Label(), def.attrs), "");
  if (schema->infer == nullptr || schema->has(ir::kTraitDataDependentShape)) return Status::Ok();
  // Body graphs (If/Loop/Scan) are typed by the compiler from the enclosing scope; their
  // inputs' static types are not all recorded, so only nodes whose inputs are all typed are
  // checked.
  std::vector<ir::Tensor> constants(def.num_inputs());
  std::vector<ir::InferenceContext::Input> inputs(def.num_inputs());
  for (size_t i = 0; i < def.num_inputs(); ++i) {
    if (!def.input_given(i)) continue;
    if (def.input_types[i] == DataType::kUndefined) return Status::Ok();
    inputs[i].given = true;
    inputs[i].type = {def.input_types[i], ShapeOf(def.input_dims[i], def.input_ranked(i))};
    if (const TensorView* c = def.constant(i)) {
      constants[i] = Borrow(*c);
      inputs[i].constant = &constants[i];
    }
  }
  std::vector<ir::TensorType> inferred;
  KILN_RETURN_IF_ERROR(Infer(*schema, def, std::move(inputs), &inferred), "");
  for (size_t i = 0; i < def.num_outputs() && i < inferred.size(); ++i) {
    const ir::TensorType& t = inferred[i];
    if (!def.output_used(i) || t.dtype == DataType::kUndefined) continue;
    if (def.output_types[i] == DataType::kUndefined) {
      def.output_types[i] = t.dtype;  // not recorded (a node not yet typed): the definition's
    } else if (def.output_types[i] != t.dtype) {
      return def.Fail(code::kInvalidParam, "output ", i, " is recorded as ",
                      ir::Name(def.output_types[i]), "; its inputs make it ", ir::Name(t.dtype));
    }
    if (!t.shape.rank_known()) continue;
    if (!def.output_ranked(i)) {  // a node written by hand: its definition gives the dims
      if (i < def.output_dims.size()) def.output_dims[i] = t.shape.Sizes();
      if (i < def.output_rank_known.size()) def.output_rank_known[i] = true;
      continue;
    }
    const Dims& rec = def.output_dims[i];
    bool agree = rec.size() == t.shape.rank();
    for (size_t k = 0; agree && k < rec.size(); ++k) {
      agree = rec[k] < 0 || !t.shape[k].known() || rec[k] == t.shape[k].value;
    }
    if (!agree) {
      return def.Fail(code::kInvalidParam, "output ", i, " is recorded with dims ", DimsString(rec),
                      "; its inputs make them ", t.shape.ToString());
    }
  }
  return Status::Ok();
}

Status CheckLoadedOpset(const NodeDef& def) {
  const ir::OpSchema* schema = SchemaOf(def);
  if (schema == nullptr) return Status::Ok();
  const bool onnx = def.domain.empty() || def.domain == "ai.onnx";
  if (def.opset < schema->since_version || (onnx && def.opset > ir::kNewestOnnxOpset)) {
    return def.Fail(code::kInvalidParam, "opset ", def.opset, " is not one Kiln defines ",
                    def.op_type, " at (", schema->since_version, " to ",
                    onnx ? ir::kNewestOnnxOpset : def.opset, ")");
  }
  return Status::Ok();
}

uint64_t ShapeFunctionRuns() { return g_shape_function_runs.load(std::memory_order_relaxed); }

bool HasDataDependentShape(const NodeDef& def) {
  const ir::OpSchema* schema = SchemaOf(def);
  return schema == nullptr || schema->infer == nullptr || schema->has(ir::kTraitDataDependentShape);
}

Status InferOutputDims(const NodeDef& def, const std::vector<const TensorView*>& inputs,
                       std::vector<Dims>* dims, std::vector<bool>* known) {
  dims->assign(def.num_outputs(), Dims{});
  known->assign(def.num_outputs(), false);
  if (HasDataDependentShape(def)) return Status::Ok();
  std::vector<ir::Tensor> values(inputs.size());
  std::vector<ir::InferenceContext::Input> in(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i] == nullptr) continue;
    values[i] = Borrow(*inputs[i]);
    in[i] = {true, {inputs[i]->dtype, ir::Shape::Of(inputs[i]->dims)}, &values[i]};
  }
  std::vector<ir::TensorType> inferred;
  KILN_RETURN_IF_ERROR(Infer(*SchemaOf(def), def, std::move(in), &inferred), "");
  for (size_t i = 0; i < def.num_outputs() && i < inferred.size(); ++i) {
    const ir::Shape& s = inferred[i].shape;
    if (!s.IsStatic()) continue;
    (*dims)[i] = s.Sizes();
    (*known)[i] = true;
  }
  return Status::Ok();
}

}  // namespace kiln::kernels
