// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The CPU backend's own elementwise and reduction kernels (backends/cpu/kernels/elementwise.cc,
// reduce.cc) against the reference kernels (the oracle): every registered op on every
// broadcast pattern (same shape, scalar on either side, row, per-channel, both sides
// broadcasting, general), odd lengths, inputs larger than the kernels' ParallelFor grains
// (TestContext runs chunks of exactly the grain, last first, on two threads), empty tensors,
// rank 0, outputs written over an input, NaN and infinities, the element types the cpu kernels
// decline, and vec_math.h's accuracy over a dense sweep of floats.
//
// Tolerances. Arithmetic, comparisons, Where, Clip, the piecewise-linear activations, the
// rounding functions and Pow's exact fast paths compute what the reference computes, operation
// for operation, so they must match bit for bit (NaN matching NaN). The transcendental ops use
// vec_math.h (within 2 ulp of the exact function) where the reference uses libm's float
// functions (within 1-2 ulp), so they may differ by a few ulp; compositions that cancel (e^x - 1
// in Elu/Selu/Celu, 1 + erf in Gelu, x * tanh(..) in Mish) get an absolute allowance of a few
// float epsilons times the input range on top. Reductions accumulate in double like the
// reference, in another order (lanes, blocks, pairwise): the double sums differ by about
// n * 2^-53 * sum|x|, far below a float ulp, so the rounded results differ by at most an ulp,
// plus 1e-7 absolute where a sum cancels to near zero; LogSumExp's terms are float exps (1 ulp)
// where the reference's are double. Any indexing, broadcasting or chunking mistake moves results
// by O(0.1) or more and fails these bounds.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <deque>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "backends/cpu/kernels/families.h"
#include "backends/cpu/kernels/register.h"
#include "backends/cpu/kernels/vec_math.h"
#include "tests/unit/kernels/kernel_test_util.h"

namespace kiln::cpu {
namespace {

using kernels::DataType;
using kernels::Dims;
using kernels::HostTensor;
using kernels::KernelRegistry;
using kernels::NodeDef;
using kernels::TensorView;
using kernels::testing::TestContext;
using kernels::testing::Values;
using Ints = std::vector<int64_t>;

constexpr DataType kF32 = DataType::kFloat32;
constexpr DataType kBool = DataType::kBool;
constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// The reference kernels plus the cpu kernels (Softmax, tested at the end, is in the nn family).
KernelRegistry& Registry() {
  static KernelRegistry* r = [] {
    auto* reg = new KernelRegistry();
    kernels::RegisterReferenceKernels(*reg);
    RegisterCpuKernels(*reg);
    return reg;
  }();
  return *r;
}

// Values that stress special cases, sprinkled into random inputs.
const std::vector<float>& Specials() {
  static const std::vector<float> v = {
      kNaN,   kInf, -kInf, 0.0f, -0.0f, 1e-40f, -1e-40f,    88.7f, 89.0f, -87.5f, -104.5f, 1e30f,
      -1e30f, 0.5f, -0.5f, 1.5f, 2.5f,  -2.5f,  8388607.5f, 1e7f,  -1e7f, 1.0f,   -1.0f,   3.0f};
  return v;
}

// NaN, the infinities and zeros only (sums of Specials() would cancel 1e30 against -1e30, which
// leaves rounding noise that depends on the order).
const std::vector<float>& NonFinite() {
  static const std::vector<float> v = {kNaN, kInf, -kInf, 0.0f, -0.0f, 1e-40f, -kInf, kInf};
  return v;
}

// Uniform floats in [lo, hi); with `specials`, every 7th element is one of `*specials`.
HostTensor Rand(Dims dims, uint32_t seed, float lo = -3.0f, float hi = 3.0f, bool specials = false,
                const std::vector<float>* special_values = nullptr) {
  const std::vector<float>& sv = special_values ? *special_values : Specials();
  HostTensor t(kF32, std::move(dims));
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  auto* p = reinterpret_cast<float*>(t.bytes.data());
  const int64_t n = t.view().num_elements();
  for (int64_t i = 0; i < n; ++i) {
    p[i] = dist(gen);
    if (specials && i % 7 == 3) p[i] = sv[(i / 7 + seed) % sv.size()];
  }
  return t;
}

HostTensor Bools(Dims dims, uint32_t seed) {
  HostTensor t(kBool, std::move(dims));
  std::mt19937 gen(seed);
  for (auto& b : t.bytes) b = static_cast<uint8_t>(gen() & 1u);
  return t;
}

HostTensor Floats(Dims dims, const std::vector<float>& v) {
  return kernels::testing::F32(std::move(dims), v);
}

// A tensor of `dims` filled with `v` converted to `dtype` (for the declined element types).
HostTensor Typed(DataType dtype, Dims dims, uint32_t seed) {
  HostTensor t(dtype, std::move(dims));
  std::mt19937 gen(seed);
  const int64_t n = t.view().num_elements();
  for (int64_t i = 0; i < n; ++i) {
    const int v = static_cast<int>(gen() % 11) - 5;
    switch (dtype) {
      case DataType::kInt64:
        t.view().as<int64_t>()[i] = v;
        break;
      case DataType::kInt32:
        t.view().as<int32_t>()[i] = v;
        break;
      case DataType::kFloat64:
        t.view().as<double>()[i] = v * 0.37;
        break;
      case DataType::kFloat16:
        t.view().as<uint16_t>()[i] = FloatToHalf(static_cast<float>(v) * 0.25f);
        break;
      default:
        ADD_FAILURE() << "no generator for " << ir::Name(dtype);
    }
  }
  return t;
}

// How two float results may differ; all zero: identical bits (any NaN matching any NaN).
struct Tol {
  int64_t ulps = 0;
  double atol = 0, rtol = 0;
};
constexpr Tol kExact{};

// Distance in representable floats (+0 and -0 count as one value here).
int64_t UlpDistance(float a, float b) {
  auto ord = [](float f) -> int64_t {
    const int32_t i = std::bit_cast<int32_t>(f);
    return i < 0 ? -static_cast<int64_t>(i & 0x7fffffff) : i;
  };
  const int64_t d = ord(a) - ord(b);
  return d < 0 ? -d : d;
}

bool Close(float got, float want, const Tol& tol) {
  if (std::isnan(got) || std::isnan(want)) return std::isnan(got) && std::isnan(want);
  if (tol.ulps == 0 && tol.atol == 0 && tol.rtol == 0) {
    return std::bit_cast<uint32_t>(got) == std::bit_cast<uint32_t>(want);
  }
  if (std::isinf(got) || std::isinf(want)) return got == want;
  if (UlpDistance(got, want) <= tol.ulps) return true;
  return std::fabs(static_cast<double>(got) - want) <= tol.atol + tol.rtol * std::fabs(want);
}

void ExpectSame(const HostTensor& got, const HostTensor& want, const Tol& tol) {
  ASSERT_EQ(got.dtype, want.dtype);
  ASSERT_EQ(got.dims, want.dims);
  ASSERT_EQ(got.bytes.size(), want.bytes.size());
  if (got.dtype != kF32) {
    EXPECT_TRUE(got.bytes == want.bytes) << "outputs differ";
    return;
  }
  const auto g = Values<float>(got);
  const auto w = Values<float>(want);
  size_t bad = 0, first = 0;
  for (size_t i = 0; i < g.size(); ++i) {
    if (!Close(g[i], w[i], tol) && bad++ == 0) first = i;
  }
  EXPECT_EQ(bad, 0u) << bad << " of " << g.size() << " elements differ; first at " << first
                     << ": cpu " << g[first] << " vs reference " << w[first];
}

// How a case's run is expected to go.
enum class Path {
  kCpu,       // the cpu kernel computes it (ParallelFor is used when the output has elements)
  kFallback,  // the cpu kernel is created but hands the run to the reference kernel
  kDeclined,  // the cpu factory declines at Prepare (kFeatureUnsupported)
};

// One node: inputs (some constant), attributes and output types; runs the cpu kernel and the
// reference kernel on the same inputs and compares.
class Case {
 public:
  explicit Case(std::string op, int opset = 17) {
    def_.op_type = std::move(op);
    def_.name = "node7";
    def_.opset = opset;
    def_.output_types = {kF32};
    def_.output_dims = {Dims{}};
    def_.output_rank_known = {false};  // the op's definition gives them
  }
  Case(Case&&) = default;

  Case& In(HostTensor t, bool constant = false) {
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
  Case& Const(HostTensor t) { return In(std::move(t), true); }
  Case& None() {
    def_.has_input.push_back(false);
    def_.input_types.push_back(DataType::kUndefined);
    def_.input_dims.push_back({});
    def_.constants.push_back(nullptr);
    inputs_.push_back(nullptr);
    return *this;
  }
  Case& Attr(const std::string& name, ir::Attribute v) {
    def_.attrs[name] = std::move(v);
    return *this;
  }
  Case& Out(DataType t) {
    def_.output_types = {t};
    return *this;
  }
  // Planned dims as the compiler may leave them (-1: known at run time only).
  Case& Planned(size_t i, Dims dims) {
    def_.input_dims[i] = std::move(dims);
    return *this;
  }

  Result<std::unique_ptr<kernels::Kernel>> PrepareCpu() const {
    if (!Registry().Has("cpu", "", def_.op_type)) {
      return Error(code::kFeatureUnsupported, "no cpu kernel for ", def_.op_type);
    }
    NodeDef d = def_;  // as KernelRegistry::Create prepares it: the op's definition applied
    KILN_RETURN_IF_ERROR(kernels::ApplyDefinition(d), "");
    return (*Registry().Find("cpu", "", def_.op_type))(d);
  }

  Result<std::vector<HostTensor>> Reference() const {
    KILN_ASSIGN_OR_RETURN(auto k, Registry().Create(kernels::kReferenceBackend, def_));
    TestContext ctx(inputs_, def_.output_types, &def_);
    KILN_RETURN_IF_ERROR(k->Run(ctx), "");
    return ctx.outputs();
  }

  void Check(const Tol& tol, Path path = Path::kCpu) const {
    auto want = Reference();
    ASSERT_TRUE(want.ok()) << "reference: " << want.status().message();
    auto cpu = PrepareCpu();
    if (path == Path::kDeclined) {
      ASSERT_FALSE(cpu.ok()) << "the cpu kernel took a node it should decline";
      EXPECT_EQ(cpu.status().code(), code::kFeatureUnsupported) << cpu.status().message();
      cpu = Registry().Create("cpu", def_);  // the registry falls back to the reference
    }
    ASSERT_TRUE(cpu.ok()) << "cpu: " << cpu.status().message();
    TestContext ctx(inputs_, def_.output_types, &def_);
    Status s = (*cpu)->Run(ctx);
    ASSERT_TRUE(s.ok()) << "cpu: " << s.message();
    const bool empty = ctx.outputs()[0].view().num_elements() == 0;
    if (path == Path::kCpu && !empty) {
      EXPECT_GE(ctx.parallel_calls(), 1) << "the cpu kernel did not compute the run itself";
    } else if (path != Path::kCpu) {
      EXPECT_EQ(ctx.parallel_calls(), 0) << "expected the reference kernel to run it";
    }
    ExpectSame(ctx.outputs()[0], (*want)[0], tol);
  }

  // Runs the cpu kernel with output 0 in the memory of input `alias` (the executor's in-place
  // reuse of a same-shaped input) and compares with the reference on untouched inputs.
  void CheckInPlace(size_t alias, const Tol& tol) const {
    auto want = Reference();
    ASSERT_TRUE(want.ok()) << want.status().message();
    std::deque<HostTensor> copies;
    std::vector<const HostTensor*> ins;
    for (const HostTensor* t : inputs_) {
      copies.push_back(*t);
      ins.push_back(&copies.back());
    }
    class InPlaceContext final : public TestContext {
     public:
      InPlaceContext(std::vector<const HostTensor*> in, std::vector<DataType> out,
                     HostTensor* target)
          : TestContext(std::move(in), std::move(out)), target_(target) {}
      TensorView* output(size_t i) override {
        if (i != 0) return TestContext::output(i);
        view_ = target_->view();
        return &view_;
      }

     private:
      HostTensor* target_;
      TensorView view_;
    };
    auto cpu = PrepareCpu();
    ASSERT_TRUE(cpu.ok()) << cpu.status().message();
    InPlaceContext ctx(ins, def_.output_types, &copies[alias]);
    Status s = (*cpu)->Run(ctx);
    ASSERT_TRUE(s.ok()) << s.message();
    EXPECT_GE(ctx.parallel_calls(), 1);
    ExpectSame(copies[alias], (*want)[0], tol);
  }

  // The cpu kernel's status on a run (for errors), with the reference's for comparison.
  std::pair<Status, Status> Statuses() const {
    auto ref = Reference();
    auto cpu = Registry().Create("cpu", def_);
    if (!cpu.ok()) return {cpu.status(), ref.status()};
    TestContext ctx(inputs_, def_.output_types, &def_);
    return {(*cpu)->Run(ctx), ref.status()};
  }

  NodeDef& def() { return def_; }

 private:
  NodeDef def_;
  std::deque<HostTensor> tensors_;
  std::deque<TensorView> views_;
  std::vector<const HostTensor*> inputs_;
};

// ---------------------------------------------------------------------------------------------
// Registration and element types.

const char* const kElementwiseOps[] = {"Abs",         "Ceil",      "Celu",
                                       "Clip",        "Elu",       "Erf",
                                       "Exp",         "Floor",     "Gelu",
                                       "HardSigmoid", "HardSwish", "LeakyRelu",
                                       "Log",         "Mish",      "Neg",
                                       "Reciprocal",  "Relu",      "Round",
                                       "Selu",        "Sigmoid",   "Sign",
                                       "Softplus",    "Softsign",  "Sqrt",
                                       "Swish",       "Tanh",      "ThresholdedRelu",
                                       "Add",         "Sub",       "Mul",
                                       "Div",         "Max",       "Min",
                                       "Sum",         "Mean",      "Pow",
                                       "PRelu",       "Equal",     "Less",
                                       "LessOrEqual", "Greater",   "GreaterOrEqual",
                                       "Where"};
const char* const kReduceOps[] = {"ReduceL1",  "ReduceL2",       "ReduceLogSum", "ReduceLogSumExp",
                                  "ReduceMax", "ReduceMean",     "ReduceMin",    "ReduceProd",
                                  "ReduceSum", "ReduceSumSquare"};

TEST(CpuElementwiseTest, EveryOpIsRegisteredForTheCpuBackend) {
  for (const char* op : kElementwiseOps) EXPECT_TRUE(Registry().Has("cpu", "", op)) << op;
  for (const char* op : kReduceOps) EXPECT_TRUE(Registry().Has("cpu", "", op)) << op;
}

TEST(CpuElementwiseTest, OtherElementTypesAreDeclinedAndRunOnTheReference) {
  for (DataType t : {DataType::kInt64, DataType::kInt32, DataType::kFloat64, DataType::kFloat16}) {
    SCOPED_TRACE(ir::Name(t));
    for (const char* op : {"Add", "Sub", "Mul", "Div", "Max"}) {
      SCOPED_TRACE(op);
      Case(op)
          .In(Typed(t, {3, 1, 5}, 1))
          .In(Typed(t, {4, 1}, 2))
          .Out(t)
          .Check(kExact, Path::kDeclined);
    }
    Case("Less")
        .In(Typed(t, {6}, 3))
        .In(Typed(t, {6}, 4))
        .Out(kBool)
        .Check(kExact, Path::kDeclined);
    Case("Where")
        .In(Bools({2, 3}, 5))
        .In(Typed(t, {2, 3}, 6))
        .In(Typed(t, {3}, 7))
        .Out(t)
        .Check(kExact, Path::kDeclined);
    Case("ReduceSum", 13).In(Typed(t, {3, 4}, 8)).Out(t).Check(kExact, Path::kDeclined);
    Case("Relu").In(Typed(t, {9}, 9)).Out(t).Check(kExact, Path::kDeclined);
  }
  for (DataType t : {DataType::kFloat64, DataType::kFloat16}) {
    Case("Sigmoid").In(Typed(t, {9}, 10)).Out(t).Check(kExact, Path::kDeclined);
    Case("Exp").In(Typed(t, {9}, 11)).Out(t).Check(kExact, Path::kDeclined);
  }
  // Pow with an integer exponent and a float base.
  Case("Pow").In(Rand({5}, 12)).In(Typed(DataType::kInt64, {1}, 13)).Check(kExact, Path::kDeclined);
}

TEST(CpuElementwiseTest, VariadicOpsWithOtherThanTwoInputsAreDeclined) {
  for (const char* op : {"Sum", "Mean", "Max", "Min"}) {
    SCOPED_TRACE(op);
    Case(op)
        .In(Rand({4, 5}, 1))
        .In(Rand({5}, 2))
        .In(Rand({4, 1}, 3))
        .Check(kExact, Path::kDeclined);
    Case(op).In(Rand({4, 5}, 4)).Check(kExact, Path::kDeclined);
  }
}

// ---------------------------------------------------------------------------------------------
// Binary ops, comparisons and Where.

struct ShapePair {
  Dims a, b;
};

// Every broadcast pattern the kernels dispatch on, odd lengths, and sizes above the grain.
const std::vector<ShapePair>& BroadcastShapes() {
  static const std::vector<ShapePair> v = {
      {{37}, {37}},                        // same shape
      {{3, 5, 7}, {3, 5, 7}},              // same shape, rank 3
      {{4, 37}, {}},                       // scalar on the right (rank 0)
      {{}, {4, 37}},                       // scalar on the left
      {{2, 3, 17}, {1}},                   // one-element tensor
      {{2, 3, 17}, {1, 1, 1}},             // one element, same rank
      {{5, 6, 33}, {33}},                  // row broadcast
      {{33}, {5, 6, 33}},                  // row broadcast on the left
      {{2, 16, 9, 11}, {1, 16, 1, 1}},     // per channel
      {{16, 1, 1}, {2, 16, 9, 11}},        // per channel on the left, lower rank
      {{2, 5, 9}, {2, 5, 1}},              // per row (a column repeated)
      {{3, 1, 5}, {1, 4, 1}},              // both sides broadcast
      {{4, 1}, {1, 3}},                    // outer product
      {{2, 1, 7, 1, 3}, {1, 5, 1, 4, 1}},  // general, alternating
      {{1, 64, 40, 40}, {1, 64, 1, 1}},    // per channel, 102400 elements (4 chunks)
      {{70001}, {70001}},                  // same shape, odd, 3 chunks
      {{300, 333}, {333}},                 // row, 99900 elements
      {{8, 1, 130, 40}, {1, 30, 1, 40}},   // general, 1.2M elements
      {{}, {}},                            // rank 0
      {{0, 3}, {3}},                       // empty
      {{2, 0}, {1}},                       // empty
      {{0}, {}},                           // empty, scalar
      {{1, 0, 5}, {4, 1, 5}},              // empty, broadcast
  };
  return v;
}

TEST(CpuElementwiseTest, BinaryArithmeticMatchesTheReferenceOnEveryBroadcastPattern) {
  uint32_t seed = 1;
  for (const char* op : {"Add", "Sub", "Mul", "Div", "Max", "Min", "Sum", "Mean"}) {
    for (const ShapePair& s : BroadcastShapes()) {
      SCOPED_TRACE(std::string(op) + " " + kernels::DimsString(s.a) + " " +
                   kernels::DimsString(s.b));
      Case(op).In(Rand(s.a, seed, -3, 3, true)).In(Rand(s.b, seed + 1, -3, 3, true)).Check(kExact);
      seed += 2;
    }
  }
}

TEST(CpuElementwiseTest, ComparisonsMatchTheReferenceOnEveryBroadcastPattern) {
  uint32_t seed = 100;
  for (const char* op : {"Equal", "Less", "LessOrEqual", "Greater", "GreaterOrEqual"}) {
    for (const ShapePair& s : BroadcastShapes()) {
      SCOPED_TRACE(std::string(op) + " " + kernels::DimsString(s.a) + " " +
                   kernels::DimsString(s.b));
      // Few distinct values, so Equal and the ties of <= and >= occur often.
      HostTensor a = Rand(s.a, seed, -2, 2, true), b = Rand(s.b, seed + 1, -2, 2, true);
      for (HostTensor* t : {&a, &b}) {
        auto* p = reinterpret_cast<float*>(t->bytes.data());
        for (int64_t i = 0; i < t->view().num_elements(); ++i) {
          if (i % 7 != 3) p[i] = std::round(p[i]);
        }
      }
      Case(op).In(std::move(a)).In(std::move(b)).Out(kBool).Check(kExact);
      seed += 2;
    }
  }
}

TEST(CpuElementwiseTest, WhereBroadcastsAllThreeInputs) {
  struct Shapes {
    Dims c, x, y;
  };
  const Shapes shapes[] = {
      {{37}, {37}, {37}},
      {{2, 3, 17}, {2, 3, 17}, {}},       // Y a scalar
      {{2, 3, 17}, {}, {2, 3, 17}},       // X a scalar
      {{}, {2, 3, 17}, {2, 3, 17}},       // one condition for all
      {{1, 5, 1}, {4, 1, 6}, {4, 5, 6}},  // everything broadcasts
      {{5, 33}, {33}, {5, 1}},            // row, column
      {{1, 64, 40, 40}, {1, 64, 40, 40}, {1, 64, 1, 1}},
      {{300, 333}, {300, 333}, {}},
      {{0, 4}, {4}, {}},
      {{}, {}, {}},
  };
  uint32_t seed = 200;
  for (const Shapes& s : shapes) {
    SCOPED_TRACE(kernels::DimsString(s.c) + " " + kernels::DimsString(s.x) + " " +
                 kernels::DimsString(s.y));
    Case("Where", 16)
        .In(Bools(s.c, seed))
        .In(Rand(s.x, seed + 1, -3, 3, true))
        .In(Rand(s.y, seed + 2, -3, 3, true))
        .Check(kExact);
    seed += 3;
  }
}

TEST(CpuElementwiseTest, PowFastPathsAreExactAndGeneralPowIsWithinAnUlp) {
  // Bases of both signs with zeros, infinities and NaN.
  for (float e : {2.0f, 0.5f, 1.0f, 0.0f, -1.0f}) {
    SCOPED_TRACE(e);
    Case("Pow", 15).In(Rand({70001}, 1, -4, 4, true)).Const(Floats({}, {e})).Check(kExact);
    Case("Pow", 15).In(Rand({3, 7}, 2, -4, 4, true)).In(Floats({1, 1, 1}, {e})).Check(kExact);
  }
  const Tol one_ulp{1, 0, 0};
  Case("Pow", 15).In(Rand({5000}, 3, 0, 4, true)).Const(Floats({}, {3.0f})).Check(one_ulp);
  Case("Pow", 15).In(Rand({5000}, 4, 0, 4, true)).Const(Floats({}, {-2.5f})).Check(one_ulp);
  Case("Pow", 15).In(Rand({4, 5000}, 5, 0, 3)).In(Rand({4, 1}, 6, -3, 3)).Check(one_ulp);
  Case("Pow", 15).In(Rand({6, 7}, 7, -3, 3, true)).In(Rand({6, 7}, 8, -3, 3)).Check(one_ulp);
  Case("Pow", 15).In(Rand({2, 3}, 9)).In(Floats({3}, {2, 2, 2})).Check(one_ulp);
}

TEST(CpuElementwiseTest, PReluSlopeBroadcastsToX) {
  Case("PRelu").In(Rand({2, 16, 9, 11}, 1, -3, 3, true)).In(Rand({16, 1, 1}, 2)).Check(kExact);
  Case("PRelu").In(Rand({1, 64, 40, 40}, 3)).Const(Rand({64, 1, 1}, 4)).Check(kExact);
  Case("PRelu").In(Rand({5, 33}, 5, -3, 3, true)).In(Rand({33}, 6)).Check(kExact);
  Case("PRelu").In(Rand({5, 33}, 7)).In(Rand({}, 8)).Check(kExact);
  Case("PRelu").In(Rand({5, 33}, 9)).In(Rand({5, 33}, 10)).Check(kExact);
  // A slope that would broadcast X to a larger shape: the reference reports it.
  auto [cpu, ref] = Case("PRelu").In(Rand({5, 1}, 11)).In(Rand({5, 3}, 12)).Statuses();
  EXPECT_EQ(cpu.code(), code::kInvalidParam) << cpu.message();
  EXPECT_EQ(cpu.message(), ref.message());
}

TEST(CpuElementwiseTest, ShapesThatDoNotBroadcastFailNamingTheNodeAndShapes) {
  for (const char* op : {"Add", "Mul", "Less", "Max"}) {
    Case c(op);
    c.In(Rand({3, 4}, 1)).In(Rand({5}, 2));
    if (std::string(op) == "Less") c.Out(kBool);
    auto [cpu, ref] = c.Statuses();
    EXPECT_EQ(cpu.code(), code::kInvalidParam) << op;
    EXPECT_NE(cpu.message().find("node7"), std::string::npos) << cpu.message();
    EXPECT_NE(cpu.message().find("[3,4]"), std::string::npos) << cpu.message();
    EXPECT_NE(cpu.message().find("[5]"), std::string::npos) << cpu.message();
    EXPECT_EQ(cpu.message(), ref.message());
  }
  auto [cpu, ref] = Case("Where").In(Bools({3}, 1)).In(Rand({4}, 2)).In(Rand({3}, 3)).Statuses();
  EXPECT_EQ(cpu.code(), code::kInvalidParam) << cpu.message();
  EXPECT_EQ(cpu.message(), ref.message());
}

TEST(CpuElementwiseTest, OutputsWrittenOverAnInputAreCorrect) {
  // The executor reuses a same-shaped input's memory for the output.
  Case("Add").In(Rand({70001}, 1)).In(Rand({70001}, 2)).CheckInPlace(0, kExact);
  Case("Sub").In(Rand({70001}, 3)).In(Rand({70001}, 4)).CheckInPlace(1, kExact);
  Case("Mul").In(Rand({1, 64, 40, 40}, 5)).In(Rand({1, 64, 1, 1}, 6)).CheckInPlace(0, kExact);
  Case("Div").In(Rand({64, 1, 1}, 7)).In(Rand({1, 64, 40, 40}, 8)).CheckInPlace(1, kExact);
  Case("Max").In(Rand({300, 333}, 9, -3, 3, true)).In(Rand({333}, 10)).CheckInPlace(0, kExact);
  Case("PRelu").In(Rand({2, 16, 9, 11}, 11)).In(Rand({16, 1, 1}, 12)).CheckInPlace(0, kExact);
  Case("Where")
      .In(Bools({300, 333}, 13))
      .In(Rand({300, 333}, 14))
      .In(Rand({333}, 15))
      .CheckInPlace(1, kExact);
  Case("Sigmoid").In(Rand({70001}, 16, -8, 8, true)).CheckInPlace(0, Tol{4, 0, 0});
  Case("Relu").In(Rand({70001}, 17, -3, 3, true)).CheckInPlace(0, kExact);
  Case("Clip", 13)
      .In(Rand({70001}, 18))
      .Const(Floats({}, {-1.0f}))
      .Const(Floats({}, {1.0f}))
      .CheckInPlace(0, kExact);
  Case("Pow", 15).In(Rand({70001}, 19)).Const(Floats({}, {2.0f})).CheckInPlace(0, kExact);
  Case("Pow", 15).In(Rand({70001}, 20)).Const(Floats({}, {1.0f})).CheckInPlace(0, kExact);
  // Both inputs are the same tensor as the output: x * x.
  {
    Case c("Mul");
    c.In(Rand({70001}, 21)).In(Rand({70001}, 21));
    c.CheckInPlace(0, kExact);
  }
}

TEST(CpuElementwiseTest, PlannedDimsUnknownUntilRunTime) {
  Case("Add")
      .In(Rand({2, 16, 9, 11}, 1))
      .In(Rand({1, 16, 1, 1}, 2))
      .Planned(0, {-1, 16, -1, -1})
      .Planned(1, {1, 16, 1, 1})
      .Check(kExact);
  Case("Sigmoid").In(Rand({3, 70}, 3)).Planned(0, {-1, -1}).Check(Tol{4, 0, 0});
  Case("ReduceMean", 13)
      .In(Rand({2, 16, 9, 11}, 4))
      .Attr("axes", Ints{2, 3})
      .Planned(0, {-1, 16, -1, -1})
      .Check(Tol{2, 1e-7, 0});
}

// ---------------------------------------------------------------------------------------------
// Unary ops.

struct UnaryCase {
  const char* op;
  Tol tol;
  std::vector<std::pair<std::string, ir::Attribute>> attrs;
  int opset = 17;
};

const std::vector<UnaryCase>& UnaryCases() {
  // Transcendentals: within a few ulp of libm's float functions (see the file comment);
  // cancelling compositions also get an absolute allowance.
  const Tol ulps{4, 0, 0};
  const Tol cancel{4, 2e-6, 2e-6};
  static const std::vector<UnaryCase> v = {
      {"Abs", kExact, {}},
      {"Ceil", kExact, {}},
      {"Celu", cancel, {}},
      {"Celu", cancel, {{"alpha", 0.7f}}},
      {"Elu", cancel, {}},
      {"Elu", cancel, {{"alpha", 0.3f}}},
      {"Erf", ulps, {}},
      {"Exp", ulps, {}},
      {"Floor", kExact, {}},
      {"Gelu", cancel, {}, 20},
      {"Gelu", cancel, {{"approximate", std::string("none")}}, 20},
      {"Gelu", cancel, {{"approximate", std::string("tanh")}}, 20},
      // alpha * x + beta may be one fused multiply-add (see elementwise.cc): it then misses
      // the reference's rounding of alpha * x, at most half an ulp of |alpha * x| <= 1.5 where
      // the result is not clamped.
      {"HardSigmoid", Tol{1, 6e-8, 0}, {}},
      {"HardSigmoid", Tol{1, 6e-8, 0}, {{"alpha", 0.3f}, {"beta", 0.4f}}},
      {"HardSwish", kExact, {}},
      {"LeakyRelu", kExact, {}},
      {"LeakyRelu", kExact, {{"alpha", 0.2f}}},
      {"Log", ulps, {}},
      {"Mish", cancel, {}, 18},
      {"Neg", kExact, {}},
      {"Reciprocal", kExact, {}},
      {"Relu", kExact, {}},
      {"Round", kExact, {}},
      {"Selu", cancel, {}},
      {"Selu", cancel, {{"alpha", 1.5f}, {"gamma", 0.9f}}},
      {"Sigmoid", ulps, {}},
      {"Sign", kExact, {}},
      {"Softplus", cancel, {}},
      {"Softsign", kExact, {}},
      {"Sqrt", kExact, {}},
      {"Swish", cancel, {}, 24},
      {"Swish", cancel, {{"alpha", 1.702f}}, 24},
      {"Tanh", ulps, {}},
      {"ThresholdedRelu", kExact, {}},
      {"ThresholdedRelu", kExact, {{"alpha", 0.5f}}},
  };
  return v;
}

TEST(CpuElementwiseTest, UnaryOpsMatchTheReference) {
  uint32_t seed = 1;
  for (const UnaryCase& u : UnaryCases()) {
    for (const Dims& dims : {Dims{70001}, Dims{3, 5, 7}, Dims{}, Dims{0, 4}, Dims{1}}) {
      SCOPED_TRACE(std::string(u.op) + " " + kernels::DimsString(dims) +
                   (u.attrs.empty() ? "" : " with attributes"));
      Case c(u.op, u.opset);
      // Positive inputs for Log and Sqrt too, so their results are mostly not NaN.
      const bool positive = std::string(u.op) == "Log" || std::string(u.op) == "Sqrt";
      c.In(Rand(dims, seed++, positive ? 0.0f : -7.0f, 7.0f, true));
      for (const auto& [name, value] : u.attrs) c.Attr(name, value);
      c.Check(u.tol);
    }
  }
}

TEST(CpuElementwiseTest, UnaryOpsOnEveryTestedSpecialValue) {
  for (const UnaryCase& u : UnaryCases()) {
    SCOPED_TRACE(u.op);
    Case c(u.op, u.opset);
    c.In(Floats({static_cast<int64_t>(Specials().size())}, Specials()));
    for (const auto& [name, value] : u.attrs) c.Attr(name, value);
    c.Check(u.tol);
  }
}

TEST(CpuElementwiseTest, ClipTakesBoundsFromAttributesOrInputs) {
  const HostTensor x = Rand({70001}, 1, -3, 3, true);
  Case("Clip", 6).In(x).Attr("min", -1.0f).Attr("max", 0.5f).Check(kExact);
  Case("Clip", 6).In(x).Attr("max", 0.5f).Check(kExact);
  Case("Clip", 6).In(x).Check(kExact);
  Case("Clip", 13).In(x).Const(Floats({}, {-1.0f})).Const(Floats({}, {0.5f})).Check(kExact);
  Case("Clip", 13).In(x).In(Floats({1}, {-0.25f})).In(Floats({}, {2.0f})).Check(kExact);
  Case("Clip", 13).In(x).Const(Floats({}, {0.0f})).Check(kExact);         // min only
  Case("Clip", 13).In(x).None().Const(Floats({}, {6.0f})).Check(kExact);  // max only
  Case("Clip", 13).In(x).Check(kExact);                                   // neither
  Case("Clip", 13).In(x).In(Floats({}, {1.0f})).In(Floats({}, {-1.0f})).Check(kExact);
  Case("Clip", 13).In(x).In(Floats({}, {kNaN})).Check(kExact);
  // A bound with two elements: the reference reports it.
  auto [cpu, ref] = Case("Clip", 13).In(x).In(Floats({2}, {0, 1})).Statuses();
  EXPECT_EQ(cpu.code(), code::kInvalidParam) << cpu.message();
  EXPECT_EQ(cpu.message(), ref.message());
}

TEST(CpuElementwiseTest, BadAttributesFailAtPrepareLikeTheReference) {
  auto cpu =
      Case("Gelu", 20).In(Rand({4}, 1)).Attr("approximate", std::string("fast")).PrepareCpu();
  ASSERT_FALSE(cpu.ok());
  EXPECT_EQ(cpu.status().code(), code::kInvalidParam) << cpu.status().message();
  auto celu = Case("Celu").In(Rand({4}, 2)).Attr("alpha", 0.0f).PrepareCpu();
  ASSERT_FALSE(celu.ok());
  EXPECT_EQ(celu.status().code(), code::kInvalidParam) << celu.status().message();
}

// ---------------------------------------------------------------------------------------------
// vec_math.h accuracy, through the kernels (the cloned, vectorised loops) over a dense sweep:
// every 101st float bit pattern (42.5 million values, all exponents, both signs, NaN and the
// infinities included), against the double-precision std:: functions rounded to float.

struct Sweep {
  const char* op;
  double (*exact)(double);
  int64_t max_ulps;  // the bound stated in vec_math.h
};

TEST(CpuElementwiseTest, VecMathStaysWithinItsStatedUlpsOverADenseSweep) {
  const Sweep sweeps[] = {
      {"Exp", [](double x) { return std::exp(x); }, 1},
      {"Log", [](double x) { return std::log(x); }, 1},
      {"Sigmoid", [](double x) { return 1.0 / (1.0 + std::exp(-x)); }, 2},
      {"Tanh", [](double x) { return std::tanh(x); }, 1},
      {"Erf", [](double x) { return std::erf(x); }, 2},
  };
  constexpr uint64_t kStep = 101;
  constexpr int64_t kBatch = 1 << 20;
  for (const Sweep& s : sweeps) {
    SCOPED_TRACE(s.op);
    Case node(s.op);
    node.In(Floats({1}, {0.0f}));
    auto kernel = node.PrepareCpu();
    ASSERT_TRUE(kernel.ok()) << kernel.status().message();
    int64_t worst = 0;
    float worst_x = 0, worst_got = 0;
    uint64_t bits = 0;
    while (bits < (uint64_t{1} << 32)) {
      std::vector<float> xs;
      xs.reserve(kBatch);
      for (; bits < (uint64_t{1} << 32) && static_cast<int64_t>(xs.size()) < kBatch;
           bits += kStep) {
        xs.push_back(std::bit_cast<float>(static_cast<uint32_t>(bits)));
      }
      HostTensor in = Floats({static_cast<int64_t>(xs.size())}, xs);
      TestContext ctx({&in}, {kF32}, &node.def());  // binds the output, as the executor
      ASSERT_TRUE((*kernel)->Run(ctx).ok());
      const auto got = Values<float>(ctx.outputs()[0]);
      for (size_t i = 0; i < xs.size(); ++i) {
        const float want = static_cast<float>(s.exact(static_cast<double>(xs[i])));
        int64_t d;
        if (std::isnan(want) || std::isnan(got[i])) {
          d = std::isnan(want) && std::isnan(got[i]) ? 0 : int64_t{1} << 40;
        } else {
          d = UlpDistance(got[i], want);
        }
        if (d > worst) worst = d, worst_x = xs[i], worst_got = got[i];
      }
    }
    EXPECT_LE(worst, s.max_ulps) << "worst at x = " << worst_x << ": got " << worst_got << ", want "
                                 << static_cast<float>(s.exact(worst_x));
  }
}

TEST(CpuElementwiseTest, VecMathSpecialValues) {
  using namespace vec;  // NOLINT: the functions under test
  EXPECT_EQ(Exp(88.72f), std::exp(88.72f));
  EXPECT_EQ(Exp(88.73f), kInf);
  EXPECT_EQ(Exp(kInf), kInf);
  EXPECT_EQ(Exp(-kInf), 0.0f);
  EXPECT_EQ(Exp(-104.0f), 0.0f);
  EXPECT_EQ(Exp(-100.0f), std::exp(-100.0f));  // subnormal
  EXPECT_TRUE(std::isnan(Exp(kNaN)));
  EXPECT_EQ(Log(0.0f), -kInf);
  EXPECT_EQ(Log(-0.0f), -kInf);
  EXPECT_TRUE(std::isnan(Log(-1.0f)));
  EXPECT_TRUE(std::isnan(Log(-kInf)));
  EXPECT_EQ(Log(kInf), kInf);
  EXPECT_EQ(Log(1.0f), 0.0f);
  EXPECT_TRUE(std::isnan(Log(kNaN)));
  EXPECT_EQ(Sigmoid(kInf), 1.0f);
  EXPECT_EQ(Sigmoid(-kInf), 0.0f);
  EXPECT_EQ(Sigmoid(0.0f), 0.5f);
  EXPECT_TRUE(std::isnan(Sigmoid(kNaN)));
  EXPECT_EQ(Tanh(kInf), 1.0f);
  EXPECT_EQ(Tanh(-kInf), -1.0f);
  EXPECT_TRUE(std::signbit(Tanh(-0.0f)));
  EXPECT_TRUE(std::isnan(Tanh(kNaN)));
  EXPECT_EQ(Erf(kInf), 1.0f);
  EXPECT_EQ(Erf(-kInf), -1.0f);
  EXPECT_TRUE(std::signbit(Erf(-0.0f)));
  EXPECT_TRUE(std::isnan(Erf(kNaN)));
  // Log1pUnit (Softplus's log(1 + e^-|x|)) over every 101st float of [0, 1].
  int64_t worst = 0;
  for (uint32_t bits = 0; bits <= std::bit_cast<uint32_t>(1.0f); bits += 101) {
    const float x = std::bit_cast<float>(bits);
    const float want = static_cast<float>(std::log1p(static_cast<double>(x)));
    worst = std::max(worst, UlpDistance(Log1pUnit(x), want));
  }
  EXPECT_LE(worst, 1);
  EXPECT_TRUE(std::signbit(Floor(-0.0f)));
  EXPECT_TRUE(std::signbit(Ceil(-0.5f)));
  EXPECT_EQ(Floor(-0.5f), -1.0f);
  EXPECT_EQ(RoundHalfEven(2.5f), 2.0f);
  EXPECT_EQ(RoundHalfEven(-3.5f), -4.0f);
  EXPECT_EQ(RoundHalfEven(8388607.5f), 8388608.0f);
}

// ---------------------------------------------------------------------------------------------
// Reductions.

struct AxesCase {
  Dims dims;
  Ints axes;  // empty: every axis
  Path path = Path::kCpu;
};

const std::vector<AxesCase>& AxesCases() {
  static const std::vector<AxesCase> v = {
      {{2, 3, 37, 41}, {}},                       // everything
      {{2, 3, 37, 41}, {3}},                      // innermost
      {{2, 3, 37, 41}, {-1, -2}},                 // innermost block (H, W)
      {{2, 3, 37, 41}, {1}},                      // a middle axis
      {{2, 3, 37, 41}, {0}},                      // the outermost axis
      {{2, 3, 37, 41}, {0, 1}},                   // an outer block
      {{2, 1, 37, 1}, {1, 2}},                    // size-1 dims around the reduced one
      {{2, 3, 37, 41}, {1, 3}, Path::kFallback},  // interleaved: the reference runs it
      {{5, 1, 1}, {1, 2}},                        // only size-1 dims reduced
      {{4, 200001}, {1}},                         // long rows: 4 blocks each
      {{300001}, {}},                             // one long row
      {{1000, 700}, {0}},                         // strided, two column tiles
      {{3, 1000, 129}, {1}},                      // strided middle axis
      {{7}, {0}},
      {{}, {}},          // rank 0
      {{2, 0, 3}, {1}},  // empty reduction: the identity
      {{0, 3}, {1}},     // empty output
      {{3, 0}, {0}},     // empty output
  };
  return v;
}

Tol ReduceTol(const std::string& op) {
  if (op == "ReduceMax" || op == "ReduceMin") return kExact;
  if (op == "ReduceLogSumExp") return Tol{4, 3e-7, 0};
  return Tol{2, 1e-7, 0};
}

TEST(CpuReduceTest, ReductionsMatchTheReferenceOnEveryAxisPattern) {
  uint32_t seed = 1;
  for (const char* op : kReduceOps) {
    const bool prod = std::string(op) == "ReduceProd";
    for (const AxesCase& a : AxesCases()) {
      // Products of many values under- or overflow; keep them to the smaller shapes.
      if (prod && kernels::NumElements(a.dims) > 200000) continue;
      for (int keepdims : {1, 0}) {
        SCOPED_TRACE(std::string(op) + " " + kernels::DimsString(a.dims) + " axes " +
                     kernels::DimsString(a.axes) + " keepdims " + std::to_string(keepdims));
        // LogSum needs positive sums; products stay finite with factors near 1.
        const bool positive = std::string(op) == "ReduceLogSum";
        HostTensor x = prod       ? Rand(a.dims, seed, 0.9f, 1.1f)
                       : positive ? Rand(a.dims, seed, 0.0f, 1.0f)
                                  : Rand(a.dims, seed, -1.0f, 1.0f);
        ++seed;
        Case c(op, 18);
        c.In(std::move(x)).Attr("keepdims", int64_t{keepdims});
        if (!a.axes.empty()) {
          c.Const(kernels::testing::I64({static_cast<int64_t>(a.axes.size())}, a.axes));
        }
        c.Check(ReduceTol(op), a.path);
      }
    }
  }
}

TEST(CpuReduceTest, AxesFromTheAttributeOrTheInputAcrossOpsets) {
  const HostTensor x = Rand({2, 3, 37, 41}, 1);
  const Tol tol{2, 1e-7, 0};
  // ReduceSum: the attribute before 13, the input from 13; the others: before and from 18.
  Case("ReduceSum", 11).In(x).Attr("axes", Ints{2, 3}).Check(tol);
  Case("ReduceSum", 13).In(x).Const(kernels::testing::I64({2}, {2, 3})).Check(tol);
  Case("ReduceSum", 13).In(x).In(kernels::testing::I64({1}, {1})).Check(tol);  // computed axes
  Case("ReduceMean", 13).In(x).Attr("axes", Ints{-1}).Attr("keepdims", int64_t{0}).Check(tol);
  Case("ReduceMean", 18).In(x).In(kernels::testing::I64({1}, {-1})).Check(tol);
  Case("ReduceMax", 11).In(x).Attr("axes", Ints{0, 1}).Check(kExact);
  Case("ReduceL2", 18).In(x).None().Check(tol);  // no axes input: every axis
  // noop_with_empty_axes: an empty (or absent) axes input leaves the data as it is, after the
  // op's own element transform (|x| for L1, x^2 for SumSquare, ...).
  for (const char* op : kReduceOps) {
    SCOPED_TRACE(op);
    Case(op, 18)
        .In(Rand({3, 70}, 2, 0.1f, 2.0f))
        .In(kernels::testing::I64({0}, {}))
        .Attr("noop_with_empty_axes", int64_t{1})
        .Check(ReduceTol(op));
    Case(op, 18)
        .In(Rand({3, 70}, 3, 0.1f, 2.0f))
        .Attr("noop_with_empty_axes", int64_t{1})
        .Check(ReduceTol(op));
  }
}

TEST(CpuReduceTest, NaNAndInfinitiesPropagateLikeTheReference) {
  for (const char* op : kReduceOps) {
    for (const Ints& axes : {Ints{1}, Ints{0}, Ints{}}) {
      SCOPED_TRACE(std::string(op) + " axes " + kernels::DimsString(axes));
      Case c(op, 18);
      // Rows of 41 with a special value in every 7th element: some rows hold NaN, some only
      // infinities of one sign.
      c.In(Rand({9, 41}, 5, -1, 1, true, &NonFinite()));
      if (!axes.empty()) c.Const(kernels::testing::I64({1}, axes));
      c.Check(ReduceTol(op));
    }
    // A row of -inf only (LogSumExp has no finite shift), and one with both infinities.
    Case(op, 18)
        .In(Floats({2, 3}, {-kInf, -kInf, -kInf, kInf, 1.0f, -kInf}))
        .Const(kernels::testing::I64({1}, {1}))
        .Check(ReduceTol(op));
  }
}

TEST(CpuReduceTest, BadAxesFailLikeTheReference) {
  for (const Ints& axes : {Ints{2}, Ints{-3}, Ints{1, -1}}) {
    auto [cpu, ref] = Case("ReduceSum", 13)
                          .In(Rand({3, 4}, 1))
                          .Const(kernels::testing::I64({static_cast<int64_t>(axes.size())}, axes))
                          .Statuses();
    EXPECT_EQ(cpu.code(), code::kInvalidParam) << cpu.message();
    EXPECT_EQ(cpu.message(), ref.message());
  }
  auto prepared = Case("ReduceMean", 13)
                      .In(Rand({3, 4}, 2))
                      .Const(kernels::testing::I64({1}, {0}))
                      .PrepareCpu();
  ASSERT_FALSE(prepared.ok());  // axes as an input before opset 18
  EXPECT_EQ(prepared.status().code(), code::kInvalidParam) << prepared.status().message();
}

}  // namespace
}  // namespace kiln::cpu

namespace kiln::cpu {
namespace {

// Softmax over an axis that is not the innermost (oneDNN only has its slow reference
// implementation there; the cpu kernel's own column loop runs it): every axis of shapes whose
// inner size spans several 256-column blocks and ParallelFor chunks, YOLOv8's DFL shape, both
// opsets' semantics, and the log variant. Exp and Log are within 1-2 ulp and the sum is
// accumulated in float (the reference: double), so 8 ulp or 1e-6 absolute.
TEST(CpuSoftmaxTest, AxesBeforeTheLastMatchTheReference) {
  const Tol tol{8, 1e-6, 0};
  struct Shape {
    Dims dims;
    int64_t axis;
  };
  const std::vector<Shape> shapes = {{{1, 4, 16, 2100}, 2}, {{1, 64, 2100}, 1}, {{3, 5, 700}, 1},
                                     {{2, 3, 4, 5}, 0},     {{7, 300, 3}, 1},   {{2, 1, 513}, 1}};
  uint32_t seed = 900;
  for (const Shape& s : shapes) {
    for (const char* op : {"Softmax", "LogSoftmax"}) {
      SCOPED_TRACE(std::string(op) + " " + kernels::DimsString(s.dims) + " axis " +
                   std::to_string(s.axis));
      Case c(op, 13);
      c.In(Rand(s.dims, seed++, -8.0f, 8.0f)).Attr("axis", s.axis);
      c.Check(tol, Path::kCpu);
    }
  }
}

}  // namespace
}  // namespace kiln::cpu
