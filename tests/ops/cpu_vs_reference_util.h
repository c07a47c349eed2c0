// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The CPU kernels' tests against the reference kernels (the oracle): a Node holds one op's
// inputs (some constant) and attributes, runs the cpu kernel and the reference kernel and
// compares every output (tolerance: cpu_vs_reference_test.cc's file comment); Expect says
// whether the run should be oneDNN's, the reference kernel's, or declined at Prepare.
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <deque>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "backends/cpu/kernels/register.h"
#include "tests/unit/kernels/kernel_test_util.h"

namespace kiln::cpu {
namespace vs_reference {

using kernels::DataType;
using kernels::Dims;
using kernels::HostTensor;
using kernels::KernelRegistry;
using kernels::NodeDef;
using kernels::testing::TestContext;
using kernels::testing::Values;
using Ints = std::vector<int64_t>;

// A registry with the reference kernels and the cpu kernels (the process-wide one would do as
// well; a private one keeps the test independent of the HAL's registration).
inline KernelRegistry& Registry() {
  static KernelRegistry* r = [] {
    auto* reg = new KernelRegistry();
    kernels::RegisterReferenceKernels(*reg);
    RegisterCpuKernels(*reg);
    return reg;
  }();
  return *r;
}

inline HostTensor Random(Dims dims, uint32_t seed, float lo = -1.0f, float hi = 1.0f) {
  HostTensor t(DataType::kFloat32, std::move(dims));
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  auto* p = reinterpret_cast<float*>(t.bytes.data());
  for (int64_t i = 0; i < t.view().num_elements(); ++i) p[i] = dist(gen);
  return t;
}

// A rank-4 float32 tensor (dims N, C, H, W) moved between NCHW order and the channels-last
// order channels_last stores with a channel `block` (N, C/b, H, W, b; 0: NHWC), into it when
// `into`, else back. Written from the layout's definition, independently of the kernels.
inline HostTensor ChannelBlocks(const HostTensor& t, int64_t block, bool into) {
  HostTensor out(t.dtype, t.dims);
  const int64_t n = t.dims[0], c = t.dims[1], h = t.dims[2], w = t.dims[3];
  const int64_t b = block == 0 ? c : block;
  const auto* s = reinterpret_cast<const float*>(t.bytes.data());
  auto* d = reinterpret_cast<float*>(out.bytes.data());
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t ch = 0; ch < c; ++ch) {
      for (int64_t y = 0; y < h; ++y) {
        for (int64_t x = 0; x < w; ++x) {
          const int64_t plain = ((i * c + ch) * h + y) * w + x;
          const int64_t blocked = (((i * (c / b) + ch / b) * h + y) * w + x) * b + ch % b;
          if (into) {
            d[blocked] = s[plain];
          } else {
            d[plain] = s[blocked];
          }
        }
      }
    }
  }
  return out;
}

// The same float32 values of a rank-4 tensor stored N, H, W, C (dims still read N, C, H, W): what
// channels_last's kiln_nhwc tensors hold.
inline HostTensor ToNhwc(const HostTensor& t) { return ChannelBlocks(t, 0, true); }

// What the run of a case is expected to take.
enum class Expect {
  kOneDnn,     // the cpu kernel runs it (oneDNN, or its own loops), not the reference kernel
  kReference,  // the cpu kernel is created but hands the run to the reference kernel
  kDeclined,   // the cpu factory declines (kFeatureUnsupported) at Prepare
};

// One node: its inputs (some constant), attributes and output count; runs the cpu kernel and
// the reference kernel and compares every output.
class Node {
 public:
  explicit Node(std::string op, int opset = 17, std::string domain = "") {
    def_.op_type = std::move(op);
    def_.domain = std::move(domain);
    def_.name = "n";
    def_.opset = opset;
    def_.output_types = {DataType::kFloat32};
    def_.output_dims = {Dims{}};
    def_.output_rank_known = {false};
  }
  // Moves keep the tensors where the views and constants point; copies would not.
  Node(Node&&) = default;
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;
  static Node Fused(std::string op) { return Node(std::move(op), 1, "com.kiln"); }

  Node& In(HostTensor t, bool constant = false) {
    tensors_.push_back(std::move(t));
    HostTensor& h = tensors_.back();
    def_.has_input.push_back(true);
    def_.input_types.push_back(h.dtype);
    def_.input_dims.push_back(h.dims);
    views_.push_back(h.view());
    def_.constants.push_back(constant ? &views_.back() : nullptr);
    inputs_.push_back(&h);
    return *this;
  }
  Node& Const(HostTensor t) { return In(std::move(t), true); }
  Node& None() {
    def_.has_input.push_back(false);
    def_.input_types.push_back(DataType::kUndefined);
    def_.input_dims.push_back({});
    def_.constants.push_back(nullptr);
    inputs_.push_back(nullptr);
    return *this;
  }
  Node& Attr(const std::string& name, ir::Attribute v) {
    def_.attrs[name] = std::move(v);
    return *this;
  }
  Node& Ints(const std::string& name, const std::vector<int64_t>& v) { return Attr(name, v); }
  Node& Int(const std::string& name, int64_t v) { return Attr(name, v); }
  Node& Float(const std::string& name, float v) { return Attr(name, v); }
  Node& Str(const std::string& name, const std::string& v) { return Attr(name, v); }
  // The model's matrix precision (ATC's bf16 modes give kBf16; kernels/precision.h).
  Node& Precision(kernels::MatrixPrecision p) {
    def_.matrix_precision = p;
    return *this;
  }
  Node& Outputs(std::vector<DataType> types) {
    def_.output_types = std::move(types);
    def_.output_dims.assign(def_.output_types.size(), Dims{});
    def_.output_rank_known.assign(def_.output_types.size(), false);
    return *this;
  }
  // Planned dims of input i as the compiler may leave them (-1: known at run time only).
  Node& Planned(size_t i, Dims dims) {
    def_.input_dims[i] = std::move(dims);
    return *this;
  }
  NodeDef& def() { return def_; }
  const NodeDef& def() const { return def_; }
  const std::vector<const HostTensor*>& inputs() const { return inputs_; }

  Result<std::unique_ptr<kernels::Kernel>> PrepareCpu() const {
    const kernels::KernelFactory* f = Registry().Find("cpu", def_.domain, def_.op_type);
    if (f == nullptr || !Registry().Has("cpu", def_.domain, def_.op_type)) {
      return Error(code::kFeatureUnsupported, "no cpu kernel for ", def_.op_type);
    }
    NodeDef d = def_;  // as KernelRegistry::Create prepares it: the op's definition applied
    KILN_RETURN_IF_ERROR(kernels::ApplyDefinition(d), "");
    return (*f)(d);
  }

  // Runs the case and checks it against the reference; `k` is the reduction length that scales
  // the absolute tolerance (see the file comment).
  void Check(int64_t k, Expect expect = Expect::kOneDnn) const {
    auto want = Run(Registry().Create(kernels::kReferenceBackend, def_));
    ASSERT_TRUE(want.ok()) << "reference: " << want.status().message();
    auto cpu = PrepareCpu();
    if (expect == Expect::kDeclined) {
      ASSERT_FALSE(cpu.ok()) << "the cpu kernel took a node it should decline";
      EXPECT_EQ(cpu.status().code(), code::kFeatureUnsupported) << cpu.status().message();
      // The registry still runs the node, on the reference kernel.
      auto fallback = Run(Registry().Create("cpu", def_));
      ASSERT_TRUE(fallback.ok()) << fallback.status().message();
      return;
    }
    ASSERT_TRUE(cpu.ok()) << "cpu kernel declined: " << cpu.status().message();
    const int64_t before = ReferenceRunCount();
    auto got = Run(std::move(cpu));
    ASSERT_TRUE(got.ok()) << "cpu: " << got.status().message();
    const int64_t reference_runs = ReferenceRunCount() - before;
    if (expect == Expect::kOneDnn) {
      EXPECT_EQ(reference_runs, 0) << "the run went to the reference kernel, not oneDNN";
    } else {
      EXPECT_GE(reference_runs, 1) << "the run was expected to go to the reference kernel";
    }
    Compare(*got, *want, k);
  }

  static void Compare(const std::vector<HostTensor>& got, const std::vector<HostTensor>& want,
                      int64_t k) {
    ASSERT_EQ(got.size(), want.size());
    const double atol = 1e-6 * static_cast<double>(k) + 1e-6, rtol = 1e-5;
    for (size_t o = 0; o < got.size(); ++o) {
      if (want[o].dtype == DataType::kUndefined) continue;
      ASSERT_EQ(got[o].dims, want[o].dims) << "output " << o;
      const auto g = Values<float>(got[o]);
      const auto w = Values<float>(want[o]);
      ASSERT_EQ(g.size(), w.size());
      size_t bad = 0, worst = 0;
      double worst_excess = -1;
      for (size_t i = 0; i < g.size(); ++i) {
        const double err = std::fabs(static_cast<double>(g[i]) - w[i]);
        const double excess = err - (atol + rtol * std::fabs(w[i]));
        if (excess > 0 || std::isnan(g[i]) != std::isnan(w[i])) ++bad;
        if (excess > worst_excess) worst_excess = excess, worst = i;
      }
      EXPECT_EQ(bad, 0u) << "output " << o << ": " << bad << " of " << g.size()
                         << " elements off; worst at " << worst << ": cpu " << g[worst]
                         << " vs reference " << w[worst] << " (atol " << atol << ")";
    }
  }

  Result<std::vector<HostTensor>> Run(Result<std::unique_ptr<kernels::Kernel>> k) const {
    if (!k.ok()) return k.status();
    TestContext ctx(inputs_, def_.output_types, &def_);
    KILN_RETURN_IF_ERROR((*k)->Run(ctx), "");
    return ctx.outputs();
  }

 private:
  NodeDef def_;
  std::deque<HostTensor> tensors_;
  std::deque<kernels::TensorView> views_;
  std::vector<const HostTensor*> inputs_;
};

// Runs `node` on `backend` through the registry (a cpu kernel that declines hands it to the
// reference kernel); its outputs, or none after a test failure naming the backend.
inline std::vector<HostTensor> RunOn(const std::string& backend, const Node& node) {
  auto out = node.Run(Registry().Create(backend, node.def()));
  EXPECT_TRUE(out.ok()) << backend << ": " << out.status().message();
  return out.ok() ? *out : std::vector<HostTensor>{};
}

// Runs `node` on its cpu kernel, which must take it (oneDNN or its own loops, never the reference
// kernel); its outputs into *out.
inline void RunOnCpu(const Node& node, std::vector<HostTensor>* out) {
  auto cpu = node.PrepareCpu();
  ASSERT_TRUE(cpu.ok()) << "cpu kernel declined: " << cpu.status().message();
  const int64_t before = ReferenceRunCount();
  auto got = node.Run(std::move(cpu));
  ASSERT_TRUE(got.ok()) << "cpu: " << got.status().message();
  EXPECT_EQ(ReferenceRunCount(), before) << "the run went to the reference kernel, not oneDNN";
  *out = std::move(*got);
}

// Inputs that break the op's rules at run time: the op's definition refuses them (kInvalidParam)
// before any kernel runs — the executor binds the outputs from it (kernels::InferOutputDims) —
// and the kernel, run with its outputs left unbound, fails instead of reading out of bounds.
inline void ExpectRefusedAtRun(const NodeDef& def, const kernels::Kernel& kernel,
                               const std::vector<const HostTensor*>& inputs) {
  NodeDef applied = def;
  ASSERT_TRUE(kernels::ApplyDefinition(applied).ok());
  std::vector<kernels::TensorView> views;
  for (const HostTensor* t : inputs) views.push_back(t->view());
  std::vector<const kernels::TensorView*> in;
  for (const auto& v : views) in.push_back(&v);
  std::vector<Dims> dims;
  std::vector<bool> known;
  Status st = kernels::InferOutputDims(applied, in, &dims, &known);
  EXPECT_EQ(st.code(), code::kInvalidParam) << st.message();
  TestContext ctx(inputs, def.output_types, &def);  // the definition refuses: nothing is bound
  EXPECT_FALSE(kernel.Run(ctx).ok());
}

}  // namespace vs_reference
}  // namespace kiln::cpu
