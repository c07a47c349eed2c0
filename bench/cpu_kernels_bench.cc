// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Kernel micro-benchmarks: the CPU backend's oneDNN kernels against the reference kernels on
// ResNet-50 layer shapes (batch 1, float32): the 7x7 stem, a 3x3 and a 1x1 convolution of the
// first stage, the last stage's 3x3, and the fully connected layer as a Gemm. A run includes
// what the runtime pays per call: output binding, the layout reorders into and out of oneDNN's
// blocked layouts, and the per-run stream. Counters report GFLOP/s. oneDNN uses every core
// (OMP_NUM_THREADS to cap it); the reference kernels run on the calling thread.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "backends/cpu/kernels/register.h"
#include "kernels/registry.h"

namespace {

using kiln::kernels::DataType;
using kiln::kernels::Dims;
using kiln::kernels::HostTensor;
using kiln::kernels::KernelRegistry;
using kiln::kernels::NodeDef;
using kiln::kernels::TensorView;

KernelRegistry& Registry() {
  static KernelRegistry* r = [] {
    auto* reg = new KernelRegistry();
    kiln::kernels::RegisterReferenceKernels(*reg);
    kiln::cpu::RegisterCpuKernels(*reg);
    return reg;
  }();
  return *r;
}

// A KernelContext over host tensors whose output buffer is allocated once.
class BenchContext final : public kiln::kernels::KernelContext {
 public:
  explicit BenchContext(std::vector<const HostTensor*> inputs) {
    for (const HostTensor* t : inputs) views_.push_back(t->view());
  }
  size_t num_inputs() const override { return views_.size(); }
  const TensorView* input(size_t i) const override { return &views_[i]; }
  size_t num_outputs() const override { return 1; }
  // A kernel that writes a planned output (BoundOutput) gets one of `dims`; else none is bound.
  void Bind(const Dims& dims) {
    out_ = HostTensor(DataType::kFloat32, dims);
    view_ = out_.view();
    bound_ = true;
  }
  TensorView* output(size_t) override { return bound_ ? &view_ : nullptr; }
  kiln::Result<TensorView*> DynamicOutput(size_t, const Dims& dims) override {
    if (out_.dims != dims) out_ = HostTensor(DataType::kFloat32, dims);
    view_ = out_.view();
    return &view_;
  }
  kiln::Result<std::vector<HostTensor>> RunGraph(int, const std::vector<TensorView>&) override {
    return kiln::Error(kiln::code::kFeatureUnsupported, "no graphs");
  }

 private:
  std::vector<TensorView> views_;
  HostTensor out_;
  TensorView view_;
  bool bound_ = false;
};

HostTensor Random(Dims dims, unsigned seed) {
  HostTensor t(DataType::kFloat32, std::move(dims));
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  auto* p = reinterpret_cast<float*>(t.bytes.data());
  for (int64_t i = 0; i < kiln::kernels::NumElements(t.dims); ++i) p[i] = dist(gen);
  return t;
}

// A node of `op` over float32 `inputs`, input 1 constant (`weights`).
NodeDef MakeDef(std::string op, int opset, const std::vector<const HostTensor*>& inputs,
                const TensorView* weights) {
  NodeDef def;
  def.op_type = std::move(op);
  def.opset = opset;
  for (const HostTensor* t : inputs) {
    def.has_input.push_back(true);
    def.input_types.push_back(DataType::kFloat32);
    def.input_dims.push_back(t->dims);
    def.constants.push_back(def.constants.size() == 1 ? weights : nullptr);
  }
  def.output_types = {DataType::kFloat32};
  def.output_dims = {Dims{}};
  def.output_rank_known = {false};
  return def;
}

struct ConvShape {
  int64_t c, hw, m, k, stride, pad;
};
// ResNet-50 (batch 1): conv1, res2 3x3, res2 1x1 expand, res5 3x3.
constexpr ConvShape kShapes[] = {
    {3, 224, 64, 7, 2, 3}, {64, 56, 64, 3, 1, 1}, {64, 56, 256, 1, 1, 0}, {512, 7, 512, 3, 1, 1}};

// state.range(0): shape index; `backend`: "reference" or "cpu".
void BM_Conv(benchmark::State& state, const char* backend) {
  const ConvShape& s = kShapes[state.range(0)];
  HostTensor x = Random({1, s.c, s.hw, s.hw}, 1), w = Random({s.m, s.c, s.k, s.k}, 2),
             b = Random({s.m}, 3);
  TensorView wv = w.view();
  NodeDef def = MakeDef("Conv", 11, {&x, &w, &b}, &wv);
  def.attrs["strides"] = std::vector<int64_t>{s.stride, s.stride};
  def.attrs["pads"] = std::vector<int64_t>{s.pad, s.pad, s.pad, s.pad};
  auto kernel = Registry().Create(backend, def);
  if (!kernel.ok()) {
    state.SkipWithError(kernel.status().message().c_str());
    return;
  }
  BenchContext ctx({&x, &w, &b});
  for (auto _ : state) {
    if (!(*kernel)->Run(ctx).ok()) {
      state.SkipWithError("run failed");
      break;
    }
  }
  const int64_t out = (s.hw + 2 * s.pad - s.k) / s.stride + 1;
  const double flops = 2.0 * s.m * out * out * s.c * s.k * s.k;
  state.counters["GFLOP/s"] =
      benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

void Shapes(benchmark::internal::Benchmark* b) {
  b->ArgName("shape")->DenseRange(0, 3)->Unit(benchmark::kMillisecond)->UseRealTime();
}
BENCHMARK_CAPTURE(BM_Conv, reference, "reference")->Apply(Shapes)->MinTime(0.5);
BENCHMARK_CAPTURE(BM_Conv, cpu, "cpu")->Apply(Shapes);

// The fully connected layer: [1, 2048] x [1000, 2048]^T + [1000].
void BM_Gemm(benchmark::State& state, const char* backend) {
  HostTensor a = Random({1, 2048}, 4), w = Random({1000, 2048}, 5), c = Random({1000}, 6);
  TensorView wv = w.view();
  NodeDef def = MakeDef("Gemm", 13, {&a, &w, &c}, &wv);
  def.attrs["transB"] = int64_t{1};
  auto kernel = Registry().Create(backend, def);
  if (!kernel.ok()) {
    state.SkipWithError(kernel.status().message().c_str());
    return;
  }
  BenchContext ctx({&a, &w, &c});
  for (auto _ : state) {
    if (!(*kernel)->Run(ctx).ok()) {
      state.SkipWithError("run failed");
      break;
    }
  }
  state.counters["GFLOP/s"] =
      benchmark::Counter(2.0 * 2048 * 1000 * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK_CAPTURE(BM_Gemm, reference, "reference")->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_Gemm, cpu, "cpu")->Unit(benchmark::kMicrosecond)->UseRealTime();

// Elementwise and reduction kernels (backends/cpu/kernels/elementwise.cc, reduce.cc) on
// PP-OCRv4-det / YOLOv8n-sized activations, on the calling thread (BenchContext's ParallelFor is
// the default single chunk), so the numbers compare the loops, not the thread counts.
// Counters report input elements per second.
void RunNode(benchmark::State& state, const char* backend, const NodeDef& def,
             const std::vector<const HostTensor*>& inputs, int64_t elements,
             const Dims& bound_output = {}) {
  auto kernel = Registry().Create(backend, def);
  if (!kernel.ok()) {
    state.SkipWithError(kernel.status().message().c_str());
    return;
  }
  BenchContext ctx(inputs);
  if (!bound_output.empty()) ctx.Bind(bound_output);
  for (auto _ : state) {
    if (!(*kernel)->Run(ctx).ok()) {
      state.SkipWithError("run failed");
      break;
    }
  }
  state.counters["elem/s"] = benchmark::Counter(static_cast<double>(elements),
                                                benchmark::Counter::kIsIterationInvariantRate);
}

// Add of a per-channel [1, 64, 1, 1] to [1, 64, 160, 160].
void BM_AddPerChannel(benchmark::State& state, const char* backend) {
  HostTensor x = Random({1, 64, 160, 160}, 7), b = Random({1, 64, 1, 1}, 8);
  NodeDef def = MakeDef("Add", 14, {&x, &b}, nullptr);
  RunNode(state, backend, def, {&x, &b}, 64 * 160 * 160);
}
// Mul of two [1, 64, 160, 160] tensors (YOLOv8's SiLU tail: x * sigmoid(x)).
void BM_MulSameShape(benchmark::State& state, const char* backend) {
  HostTensor x = Random({1, 64, 160, 160}, 9), y = Random({1, 64, 160, 160}, 10);
  NodeDef def = MakeDef("Mul", 14, {&x, &y}, nullptr);
  RunNode(state, backend, def, {&x, &y}, 64 * 160 * 160);
}
// Sigmoid, Tanh, Erf-based Gelu and Exp on 1.6M floats.
void BM_Unary(benchmark::State& state, const char* backend, const char* op) {
  HostTensor x = Random({1, 64, 160, 160}, 11);
  NodeDef def = MakeDef(op, 20, {&x}, nullptr);
  RunNode(state, backend, def, {&x}, 64 * 160 * 160);
}
// Concat of three [1, 80, 80, 16] tensors on the last axis: a channels-last Concat as YOLOv8n's
// C2f blocks run it (6400 rows of 64 bytes from each input).
void BM_ConcatRows(benchmark::State& state, const char* backend) {
  HostTensor a = Random({1, 80, 80, 16}, 13), b = Random({1, 80, 80, 16}, 14),
             c = Random({1, 80, 80, 16}, 15);
  NodeDef def = MakeDef("Concat", 13, {&a, &b, &c}, nullptr);
  def.attrs["axis"] = int64_t{3};
  RunNode(state, backend, def, {&a, &b, &c}, 3 * 80 * 80 * 16, {1, 80, 80, 48});
}
// ReduceMean over H and W of [1, 256, 40, 40] (contiguous blocks) and over C of
// [1, 64, 160, 160] (a strided axis).
void BM_ReduceMean(benchmark::State& state, const char* backend, int64_t axis) {
  HostTensor x = Random(axis == 1 ? Dims{1, 64, 160, 160} : Dims{1, 256, 40, 40}, 12);
  NodeDef def = MakeDef("ReduceMean", 13, {&x}, nullptr);
  def.attrs["axes"] = axis == 1 ? std::vector<int64_t>{1} : std::vector<int64_t>{2, 3};
  RunNode(state, backend, def, {&x}, kiln::kernels::NumElements(x.dims));
}

// Attention as attention_fusion makes it of the BERT encoder's layers: Q, K, V [1, 128, 384] (12
// heads of 32, read in place), an additive [1, 1, 1, 128] mask; its counter (elem/s) is the two
// products' FLOPs per second. On one thread (OMP_NUM_THREADS=1) it is what each of the team's
// threads runs in a model; with more, oneDNN's sgemm forks inside each product.
void BM_Attention(benchmark::State& state, const char* backend) {
  HostTensor q = Random({1, 128, 384}, 16), k = Random({1, 128, 384}, 17),
             v = Random({1, 128, 384}, 18), m = Random({1, 1, 1, 128}, 19);
  NodeDef def = MakeDef("Attention", 23, {&q, &k, &v, &m}, nullptr);
  def.attrs["q_num_heads"] = int64_t{12};
  def.attrs["kv_num_heads"] = int64_t{12};
  RunNode(state, backend, def, {&q, &k, &v, &m}, 4 * 128 * 128 * 384, {1, 128, 384});
}

BENCHMARK_CAPTURE(BM_Attention, cpu, "cpu")->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_AddPerChannel, reference, "reference")
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_AddPerChannel, cpu, "cpu")->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_MulSameShape, reference, "reference")
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_MulSameShape, cpu, "cpu")->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_Unary, sigmoid_reference, "reference", "Sigmoid")
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_Unary, sigmoid_cpu, "cpu", "Sigmoid")
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_Unary, tanh_reference, "reference", "Tanh")
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_Unary, tanh_cpu, "cpu", "Tanh")->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_Unary, gelu_reference, "reference", "Gelu")
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_Unary, gelu_cpu, "cpu", "Gelu")->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_Unary, exp_reference, "reference", "Exp")
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_Unary, exp_cpu, "cpu", "Exp")->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_ConcatRows, cpu, "cpu")->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_ReduceMean, hw_reference, "reference", 2)
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_ReduceMean, hw_cpu, "cpu", 2)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_ReduceMean, channel_reference, "reference", 1)
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_ReduceMean, channel_cpu, "cpu", 1)
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
