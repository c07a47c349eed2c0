// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Runs one kernel outside a model: a KernelContext over HostTensors, for kernel unit tests.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <functional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "hal/execution.h"
#include "kernels/definition.h"
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

// Splits [0, n) into chunks of exactly `grain` (the last one shorter) and runs them last
// chunk first, on two threads, so a kernel that assumes one chunk or an order fails its test
// (tests give inputs larger than the kernel's grain to exercise this).
class TestExecution final : public hal::Execution {
 public:
  void ParallelFor(int64_t n, int64_t grain, FunctionRef<void(int64_t, int64_t)> fn) override {
    if (n <= 0) return;
    grain = std::max<int64_t>(1, grain);
    std::vector<std::pair<int64_t, int64_t>> chunks;
    for (int64_t b = 0; b < n; b += grain) chunks.emplace_back(b, std::min(n, b + grain));
    std::atomic<size_t> next{0};
    auto worker = [&] {
      for (size_t c; (c = next.fetch_add(1)) < chunks.size();) {
        const auto& chunk = chunks[chunks.size() - 1 - c];
        fn(chunk.first, chunk.second);
      }
    };
    std::thread helper(worker);
    worker();
    helper.join();
    ++calls;
  }
  int calls = 0;
};

// float16 / bfloat16 tensors from floats (rounded to nearest even), and their values back.
inline HostTensor Halfs(Dims dims, const std::vector<float>& v) {
  std::vector<Half> h;
  for (float f : v) h.push_back(Half{FloatToHalf(f)});
  return Make(DataType::kFloat16, std::move(dims), h);
}
inline HostTensor BFloats(Dims dims, const std::vector<float>& v) {
  std::vector<BFloat16> h;
  for (float f : v) h.push_back(BFloat16{FloatToBFloat16(f)});
  return Make(DataType::kBFloat16, std::move(dims), h);
}
inline std::vector<float> HalfValues(const HostTensor& t) {
  std::vector<float> v;
  for (Half h : Values<Half>(t)) v.push_back(HalfToFloat(h.bits));
  return v;
}
inline std::vector<float> BFloatValues(const HostTensor& t) {
  std::vector<float> v;
  for (BFloat16 h : Values<BFloat16>(t)) v.push_back(BFloat16ToFloat(h.bits));
  return v;
}

// The executor's part for one kernel run over HostTensors. Given the node, it binds every
// output before the run as the executor does (dims from the op's shape function on the actual
// inputs); outputs the function leaves open are bound by the kernel (DynamicOutput).
class TestContext : public KernelContext {
 public:
  TestContext(std::vector<const HostTensor*> inputs, std::vector<DataType> out_types,
              const NodeDef* def = nullptr)
      : out_types_(std::move(out_types)),
        outputs_(out_types_.size()),
        views_(out_types_.size()),
        bound_(out_types_.size(), false) {
    for (const HostTensor* t : inputs) {
      in_views_.push_back(t ? t->view() : TensorView{});
      given_.push_back(t != nullptr);
    }
    if (def == nullptr) return;
    NodeDef applied = *def;
    if (!ApplyDefinition(applied).ok()) return;  // the kernel's Prepare reports it
    std::vector<const TensorView*> ins;
    for (size_t i = 0; i < in_views_.size(); ++i) ins.push_back(input(i));
    std::vector<Dims> dims;
    std::vector<bool> known;
    bind_status_ = InferOutputDims(applied, ins, &dims, &known);
    if (!bind_status_.ok()) return;
    for (size_t i = 0; i < outputs_.size() && i < known.size(); ++i) {
      if (known[i] && applied.output_used(i)) (void)DynamicOutput(i, dims[i]), bound_[i] = true;
    }
  }
  size_t num_inputs() const override { return in_views_.size(); }
  const TensorView* input(size_t i) const override {
    return i < in_views_.size() && given_[i] ? &in_views_[i] : nullptr;
  }
  size_t num_outputs() const override { return out_types_.size(); }
  TensorView* output(size_t i) override {
    return i < bound_.size() && bound_[i] ? &views_[i] : nullptr;
  }
  Result<TensorView*> DynamicOutput(size_t i, const Dims& dims) override {
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
  hal::Execution* exec() const override { return &exec_; }
  // How many ParallelFor calls this context served.
  int parallel_calls() const { return exec_.calls; }
  const std::vector<HostTensor>& outputs() const { return outputs_; }
  // What the op's shape function said of the actual inputs (the executor fails the node with
  // it before the kernel runs).
  const Status& bind_status() const { return bind_status_; }

 private:
  Status bind_status_ = Status::Ok();
  std::vector<DataType> out_types_;
  std::vector<HostTensor> outputs_;
  std::vector<TensorView> views_;
  std::vector<bool> bound_;
  std::vector<TensorView> in_views_;
  std::vector<bool> given_;
  mutable TestExecution exec_;
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
  // Dims are left to the op's definition (kernels/definition.h fills them in at Prepare).
  def.output_rank_known.assign(def.output_types.size(), false);
  for (DataType t : def.output_types) def.has_output.push_back(t != DataType::kUndefined);
  return def;
}

// Runs the reference kernel as the executor runs a node: Prepare, then the op's shape function
// on the actual inputs (its error, kInvalidParam naming the node, is returned as the executor
// would fail the node), then the kernel on the bound outputs.
inline Result<std::vector<HostTensor>> RunReference(const NodeDef& def,
                                                    const std::vector<const HostTensor*>& inputs) {
  KILN_ASSIGN_OR_RETURN(auto kernel, KernelRegistry::Global().Create(kReferenceBackend, def));
  TestContext ctx(inputs, def.output_types, &def);
  KILN_RETURN_IF_ERROR(ctx.bind_status(), "");
  KILN_RETURN_IF_ERROR(kernel->Run(ctx), "");
  return ctx.outputs();
}

}  // namespace kiln::kernels::testing
