// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "compiler/evaluate.h"

#include <cstring>
#include <memory>
#include <utility>

#include "ir/op_schema.h"
#include "kernels/definition.h"
#include "kernels/registry.h"
#include "kernels/util.h"

namespace kiln::compiler {
namespace {

using kernels::Dims;
using kernels::HostTensor;
using kernels::TensorView;

// A kernel run at compile time: outputs in host tensors, on the calling thread.
class FoldContext final : public kernels::KernelContext {
 public:
  FoldContext(std::vector<const TensorView*> inputs, std::vector<ir::DataType> types)
      : inputs_(std::move(inputs)),
        types_(std::move(types)),
        tensors_(types_.size()),
        views_(types_.size()),
        bound_(types_.size(), false) {}

  // Binds output i with `dims` (the definition's, before the run).
  void Bind(size_t i, const Dims& dims) {
    tensors_[i] = HostTensor(types_[i], dims);
    views_[i] = tensors_[i].view();
    bound_[i] = true;
  }

  size_t num_inputs() const override { return inputs_.size(); }
  const TensorView* input(size_t i) const override {
    return i < inputs_.size() ? inputs_[i] : nullptr;
  }
  size_t num_outputs() const override { return types_.size(); }
  TensorView* output(size_t i) override {
    return i < bound_.size() && bound_[i] ? &views_[i] : nullptr;
  }
  Result<TensorView*> DynamicOutput(size_t i, const Dims& dims) override {
    if (i >= types_.size()) return Error(code::kInvalidParam, "no output ", i);
    for (int64_t d : dims) {
      if (d < 0) return Error(code::kInvalidParam, "output ", i, " would have a negative dim");
    }
    Bind(i, dims);
    return &views_[i];
  }
  Result<std::vector<HostTensor>> RunGraph(int, const std::vector<TensorView>&) override {
    return Error(code::kFeatureUnsupported, "no body graphs at compile time");
  }
  HostTensor& tensor(size_t i) { return tensors_[i]; }
  bool bound(size_t i) const { return bound_[i]; }

 private:
  std::vector<const TensorView*> inputs_;
  std::vector<ir::DataType> types_;
  std::vector<HostTensor> tensors_;
  std::vector<TensorView> views_;
  std::vector<bool> bound_;
};

}  // namespace

std::optional<std::vector<ir::Tensor>> EvaluateNode(const ir::Node& node, size_t max_bytes) {
  const ir::OpSchema* schema = ir::OpRegistry::Global().Find(node.domain(), node.op_type());
  if (schema == nullptr) return std::nullopt;
  const bool shape_only = schema->has(ir::kTraitReadsShapeOnly);
  kernels::NodeDef def;
  def.op_type = node.op_type();
  def.domain = node.domain();
  def.name = node.name();
  def.opset = node.opset();
  for (const auto& [name, attr] : node.attrs()) {
    if (std::holds_alternative<std::shared_ptr<ir::Graph>>(attr)) return std::nullopt;
    def.attrs.emplace(name, attr);
  }
  // Inputs: views of the constants (only dims for a shape-only op).
  std::vector<TensorView> views(node.inputs().size());
  std::vector<const TensorView*> inputs(node.inputs().size(), nullptr);
  for (size_t i = 0; i < node.inputs().size(); ++i) {
    const ir::Value* v = node.input(i);
    def.has_input.push_back(v != nullptr);
    def.input_types.push_back(v ? v->dtype() : ir::DataType::kUndefined);
    def.input_dims.push_back(v ? v->shape().Sizes() : Dims{});
    def.input_rank_known.push_back(v == nullptr || v->shape().rank_known());
    def.constants.push_back(nullptr);
    if (v == nullptr) continue;
    const ir::Tensor* c = v->constant();
    if (c != nullptr) {
      if (c->bytes() < ir::StorageBytes(c->dtype(), static_cast<uint64_t>(c->num_elements()))) {
        return std::nullopt;  // a malformed constant: the compiler's checks report it
      }
      views[i] = TensorView{c->dtype(), c->dims(), const_cast<uint8_t*>(c->raw())};
      def.constants.back() = &views[i];
    } else if (shape_only && v->shape().rank_known()) {
      // Unknown dims read as -1; a result that used one is refused below.
      views[i] = TensorView{v->dtype(), v->shape().Sizes(), nullptr};
    } else {
      return std::nullopt;
    }
    inputs[i] = &views[i];
  }
  // Outputs: types and static dims from the compiler's inference.
  for (size_t i = 0; i < node.outputs().size(); ++i) {
    const ir::Value* v = node.output(i);
    const bool used = v != nullptr;
    def.has_output.push_back(used);
    def.output_types.push_back(used ? v->dtype() : ir::DataType::kUndefined);
    def.output_dims.push_back(used ? v->shape().Sizes() : Dims{});
    def.output_rank_known.push_back(used && v->shape().rank_known());
    if (used && v->shape().IsStatic()) {
      auto n = v->shape().NumElements();
      if (!n || ir::StorageBytes(v->dtype(), static_cast<uint64_t>(*n)) > max_bytes) {
        return std::nullopt;
      }
    }
  }
  if (!kernels::ApplyDefinition(def).ok()) return std::nullopt;
  for (size_t i = 0; i < def.num_outputs(); ++i) {
    if (def.output_used(i) && def.output_types[i] == ir::DataType::kUndefined) {
      return std::nullopt;  // a type the compiler has not inferred yet
    }
  }
  auto kernel = kernels::KernelRegistry::Global().Create(kernels::kReferenceBackend, def);
  if (!kernel.ok()) return std::nullopt;
  FoldContext ctx(inputs, def.output_types);
  std::vector<Dims> dims;
  std::vector<bool> known;
  if (!kernels::InferOutputDims(def, inputs, &dims, &known).ok()) return std::nullopt;
  for (size_t i = 0; i < known.size(); ++i) {
    if (!known[i] || !def.output_used(i)) continue;
    // The dims the node computes now, which the graph's inference may not have had: a result
    // over the budget is refused before it is allocated.
    uint64_t n = 1;
    for (int64_t d : dims[i]) {
      if (d < 0 || (d != 0 && n > max_bytes / static_cast<uint64_t>(d))) return std::nullopt;
      n *= static_cast<uint64_t>(d);
    }
    if (ir::StorageBytes(def.output_types[i], n) > max_bytes) return std::nullopt;
    ctx.Bind(i, dims[i]);
  }
  if (!(*kernel)->Run(ctx).ok()) return std::nullopt;
  std::vector<ir::Tensor> results;
  for (size_t i = 0; i < node.outputs().size(); ++i) {
    if (node.output(i) == nullptr) {
      results.emplace_back();
      continue;
    }
    if (!ctx.bound(i)) return std::nullopt;
    HostTensor& t = ctx.tensor(i);
    if (t.bytes.size() > max_bytes) return std::nullopt;
    if (shape_only) {
      // A shape-only op's result is dims or element counts: a negative one read an unknown dim.
      for (int64_t d : kernels::ReadInts(t.view())) {
        if (d < 0) return std::nullopt;
      }
    }
    results.push_back(ir::Tensor::Copy(t.dtype, t.dims, t.bytes.data(), t.bytes.size()));
  }
  return results;
}

}  // namespace kiln::compiler
