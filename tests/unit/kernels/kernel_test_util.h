// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Runs one kernel outside a model: a KernelContext over HostTensors, for kernel unit tests.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kernels/registry.h"
#include "kernels/util.h"

namespace kiln::kernels::testing {

template <typename T>
HostTensor Make(DataType dtype, Dims dims, const std::vector<T>& values) {
  HostTensor t(dtype, std::move(dims));
  EXPECT_EQ(t.bytes.size(), values.size() * sizeof(T));
  if (!values.empty()) std::memcpy(t.bytes.data(), values.data(), t.bytes.size());
  return t;
}
inline HostTensor F32(Dims dims, const std::vector<float>& v) {
  return Make(DataType::kFloat32, std::move(dims), v);
}
inline HostTensor I64(Dims dims, const std::vector<int64_t>& v) {
  return Make(DataType::kInt64, std::move(dims), v);
}
template <typename T>
std::vector<T> Values(const HostTensor& t) {
  std::vector<T> v(t.bytes.size() / sizeof(T));
  if (!v.empty()) std::memcpy(v.data(), t.bytes.data(), t.bytes.size());
  return v;
}

class TestContext : public KernelContext {
 public:
  TestContext(std::vector<const HostTensor*> inputs, std::vector<DataType> out_types)
      : out_types_(std::move(out_types)), outputs_(out_types_.size()), views_(out_types_.size()) {
    for (const HostTensor* t : inputs) {
      in_views_.push_back(t ? t->view() : TensorView{});
      given_.push_back(t != nullptr);
    }
  }
  size_t num_inputs() const override { return in_views_.size(); }
  const TensorView* input(size_t i) const override {
    return i < in_views_.size() && given_[i] ? &in_views_[i] : nullptr;
  }
  size_t num_outputs() const override { return out_types_.size(); }
  Result<TensorView*> Output(size_t i, const Dims& dims) override {
    if (i >= outputs_.size()) return Error(code::kInvalidParam, "no output ", i);
    for (int64_t d : dims) {
      if (d < 0) return Error(code::kInvalidParam, "negative dim in output ", i);
    }
    outputs_[i] = HostTensor(out_types_[i], dims);
    views_[i] = outputs_[i].view();
    return &views_[i];
  }
  Result<std::vector<HostTensor>> RunGraph(int, const std::vector<TensorView>&) override {
    return Error(code::kFeatureUnsupported, "TestContext runs no graphs");
  }
  const std::vector<HostTensor>& outputs() const { return outputs_; }

 private:
  std::vector<DataType> out_types_;
  std::vector<HostTensor> outputs_;
  std::vector<TensorView> views_;
  std::vector<TensorView> in_views_;
  std::vector<bool> given_;
};

// A NodeDef for `op` with the given inputs' types/dims and output types.
inline NodeDef Def(const std::string& op, const std::vector<const HostTensor*>& inputs,
                   std::vector<DataType> out_types, int opset = 17) {
  NodeDef def;
  def.op_type = op;
  def.name = "n";
  def.opset = opset;
  for (const HostTensor* t : inputs) {
    def.has_input.push_back(t != nullptr);
    def.input_types.push_back(t ? t->dtype : DataType::kUndefined);
    def.input_dims.push_back(t ? t->dims : Dims{});
    def.constants.push_back(nullptr);
  }
  def.output_types = std::move(out_types);
  def.output_dims.resize(def.output_types.size());
  return def;
}

// Prepares the reference kernel for `def` and runs it on `inputs`.
inline Result<std::vector<HostTensor>> RunReference(const NodeDef& def,
                                                    const std::vector<const HostTensor*>& inputs) {
  KILN_ASSIGN_OR_RETURN(auto kernel, KernelRegistry::Global().Create(kReferenceBackend, def));
  TestContext ctx(inputs, def.output_types);
  KILN_RETURN_IF_ERROR(kernel->Run(ctx), "");
  return ctx.outputs();
}

}  // namespace kiln::kernels::testing
