// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The CPU backend's data-movement kernels (backends/cpu/kernels/tensor.cc, resize_pad.cc)
// against the reference kernels (the oracle): Transpose (every permutation of rank 4, rank 5
// and 6, the collapsed and blocked paths), Concat, Split, Slice, Gather, Expand, Tile,
// DepthToSpace, SpaceToDepth, Resize (each nearest mode and coordinate transform, bilinear) and
// Pad (each mode, every opset's way of giving pads), over 1, 2, 4 and 8-byte element types,
// odd sizes, empty tensors, negative axes, indices and steps, and inputs larger than the
// kernels' grain, so TestContext's ParallelFor splits them into many chunks run out of order
// on two threads. Data movement must match the reference byte for byte; only the bilinear
// resize (float32 here, double in the reference) is compared with a tolerance. Bad inputs must
// fail with the reference's error code.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <deque>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "backends/cpu/kernels/register.h"
#include "tests/unit/kernels/kernel_test_util.h"

namespace kiln::cpu {
namespace {

using kernels::DataType;
using kernels::Dims;
using kernels::HostTensor;
using kernels::KernelRegistry;
using kernels::NodeDef;
using kernels::testing::TestContext;
using kernels::testing::Values;
using Ints = std::vector<int64_t>;

KernelRegistry& Registry() {
  static KernelRegistry* r = [] {
    auto* reg = new KernelRegistry();
    kernels::RegisterReferenceKernels(*reg);
    RegisterCpuKernels(*reg);
    return reg;
  }();
  return *r;
}

// One type of each element size, and the others that share a size.
const std::vector<DataType> kOnePerSize = {DataType::kUint8, DataType::kFloat16, DataType::kFloat32,
                                           DataType::kInt64};
const std::vector<DataType> kAllTypes = {DataType::kBool,     DataType::kInt8,   DataType::kUint8,
                                         DataType::kInt16,    DataType::kUint16, DataType::kFloat16,
                                         DataType::kBFloat16, DataType::kInt32,  DataType::kUint32,
                                         DataType::kFloat32,  DataType::kInt64,  DataType::kUint64,
                                         DataType::kFloat64};

// A tensor of `dtype` whose every byte is random (bool: 0 or 1), so a misplaced byte shows.
HostTensor Random(DataType dtype, Dims dims, uint32_t seed) {
  HostTensor t(dtype, std::move(dims));
  std::mt19937 gen(seed);
  for (uint8_t& b : t.bytes) {
    b = static_cast<uint8_t>(dtype == DataType::kBool ? gen() & 1 : gen());
  }
  return t;
}

HostTensor UniformF32(Dims dims, uint32_t seed) {
  HostTensor t(DataType::kFloat32, std::move(dims));
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  auto* p = reinterpret_cast<float*>(t.bytes.data());
  for (size_t i = 0; i < t.bytes.size() / 4; ++i) p[i] = dist(gen);
  return t;
}

HostTensor I64(const Ints& v) { return kernels::testing::I64({static_cast<int64_t>(v.size())}, v); }
HostTensor I32(Dims dims, const std::vector<int32_t>& v) {
  return kernels::testing::Make(DataType::kInt32, std::move(dims), v);
}
HostTensor F32(const std::vector<float>& v) {
  return kernels::testing::F32({static_cast<int64_t>(v.size())}, v);
}

// How a case is expected to run.
enum class Expect {
  kFast,      // the cpu kernel takes it and runs its own code (it calls ParallelFor)
  kHandedOn,  // the cpu kernel is created but hands the run to the reference kernel
  kDeclined,  // the cpu factory declines (kFeatureUnsupported) at Prepare
};

// One node: inputs, attributes and output types; runs the cpu kernel and the reference kernel
// and compares every output.
class Node {
 public:
  explicit Node(std::string op, int opset = 17) {
    def_.op_type = std::move(op);
    def_.name = "n";
    def_.opset = opset;
  }
  Node(Node&&) = default;
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

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
  Node& Floats(const std::string& name, const std::vector<float>& v) { return Attr(name, v); }
  Node& Str(const std::string& name, const std::string& v) { return Attr(name, v); }
  // Output types (default: one output of input 0's type).
  Node& Outputs(std::vector<DataType> types) {
    outputs_ = std::move(types);
    return *this;
  }
  // Every planned dim of input i unknown (-1), as the compiler leaves dynamic dims.
  Node& Dynamic(size_t i) {
    for (int64_t& d : def_.input_dims[i]) d = -1;
    return *this;
  }
  NodeDef def() const {
    NodeDef d = def_;
    d.output_types = outputs_.empty() ? std::vector<DataType>{def_.input_types[0]} : outputs_;
    d.output_dims.assign(d.output_types.size(), Dims{});
    d.output_rank_known.assign(d.output_types.size(), false);
    // An output of undefined type is one the graph leaves out.
    for (DataType t : d.output_types) d.has_output.push_back(t != DataType::kUndefined);
    return d;
  }

  // The cpu factory's own kernel (not the registry's fallback).
  Result<std::unique_ptr<kernels::Kernel>> PrepareCpu() const {
    NodeDef d = def();  // as KernelRegistry::Create prepares it: the op's definition applied
    KILN_RETURN_IF_ERROR(kernels::ApplyDefinition(d), "");
    const kernels::KernelFactory* f = Registry().Find("cpu", d.domain, d.op_type);
    if (f == nullptr || !Registry().Has("cpu", d.domain, d.op_type)) {
      return Error(code::kFeatureUnsupported, "no cpu kernel for ", d.op_type);
    }
    return (*f)(d);
  }

  // Runs the case on both kernels; `tol` > 0 compares float32 outputs within tol (absolute and
  // relative), otherwise byte for byte.
  void Check(Expect expect = Expect::kFast, double tol = 0) const {
    const NodeDef d = def();
    auto want = RunOn(Registry().Create(kernels::kReferenceBackend, d), nullptr);
    ASSERT_TRUE(want.ok()) << "reference: " << want.status().message();
    auto cpu = PrepareCpu();
    if (expect == Expect::kDeclined) {
      ASSERT_FALSE(cpu.ok()) << "the cpu kernel took a node it should decline";
      EXPECT_EQ(cpu.status().code(), code::kFeatureUnsupported) << cpu.status().message();
      auto fallback = RunOn(Registry().Create("cpu", d), nullptr);
      ASSERT_TRUE(fallback.ok()) << fallback.status().message();
      Compare(*fallback, *want, 0);
      return;
    }
    ASSERT_TRUE(cpu.ok()) << "cpu kernel declined: " << cpu.status().message();
    int parallel = 0;
    auto got = RunOn(std::move(cpu), &parallel);
    ASSERT_TRUE(got.ok()) << "cpu: " << got.status().message();
    // The reference kernels of these ops never call ParallelFor; the cpu ones do whenever
    // there is more than one element to move.
    int64_t elements = 0;
    for (const HostTensor& t : *want) elements += kernels::NumElements(t.dims);
    if (expect == Expect::kHandedOn) {
      EXPECT_EQ(parallel, 0) << "expected the run to go to the reference kernel";
    } else if (elements > 1) {
      EXPECT_GT(parallel, 0) << "the cpu kernel did not run its own code";
    }
    Compare(*got, *want, tol);
  }

  // Both kernels fail with `code` (at Prepare or at Run).
  void CheckError(int want_code) const {
    const NodeDef d = def();
    auto ref = RunOn(Registry().Create(kernels::kReferenceBackend, d), nullptr);
    ASSERT_FALSE(ref.ok()) << "the reference kernel accepted the bad node";
    EXPECT_EQ(ref.status().code(), want_code) << ref.status().message();
    auto cpu = RunOn(PrepareCpu(), nullptr);
    ASSERT_FALSE(cpu.ok()) << "the cpu kernel accepted the bad node";
    EXPECT_EQ(cpu.status().code(), want_code) << cpu.status().message();
    EXPECT_NE(cpu.status().message().find("'n'"), std::string::npos)
        << "the message should name the node: " << cpu.status().message();
  }

  static void Compare(const std::vector<HostTensor>& got, const std::vector<HostTensor>& want,
                      double tol) {
    ASSERT_EQ(got.size(), want.size());
    for (size_t o = 0; o < got.size(); ++o) {
      SCOPED_TRACE("output " + std::to_string(o));
      ASSERT_EQ(got[o].dtype, want[o].dtype);
      ASSERT_EQ(got[o].dims, want[o].dims);
      ASSERT_EQ(got[o].bytes.size(), want[o].bytes.size());
      if (tol <= 0) {
        const auto mismatch =
            std::mismatch(got[o].bytes.begin(), got[o].bytes.end(), want[o].bytes.begin());
        EXPECT_TRUE(mismatch.first == got[o].bytes.end())
            << "first differing byte at " << (mismatch.first - got[o].bytes.begin()) << " of "
            << got[o].bytes.size();
        continue;
      }
      const auto g = Values<float>(got[o]);
      const auto w = Values<float>(want[o]);
      size_t bad = 0, first = 0;
      for (size_t i = 0; i < g.size(); ++i) {
        if (!(std::fabs(g[i] - w[i]) <= tol * (1 + std::fabs(w[i])))) {
          if (bad++ == 0) first = i;
        }
      }
      EXPECT_EQ(bad, 0u) << bad << " of " << g.size() << " elements off; first at " << first
                         << ": cpu " << g[first] << " vs reference " << w[first];
    }
  }

 private:
  // Runs a prepared kernel as the executor does: the op's shape function on the actual inputs
  // gives the outputs' dims (and reports a node or inputs that break the op's rules), the
  // context binds them, then the kernel runs.
  Result<std::vector<HostTensor>> RunOn(Result<std::unique_ptr<kernels::Kernel>> k,
                                        int* parallel_calls) const {
    if (!k.ok()) return k.status();
    const NodeDef d = def();
    NodeDef applied = d;
    KILN_RETURN_IF_ERROR(kernels::ApplyDefinition(applied), "");
    std::vector<kernels::TensorView> views;
    for (const HostTensor* t : inputs_) views.push_back(t ? t->view() : kernels::TensorView{});
    std::vector<const kernels::TensorView*> ins;
    for (size_t i = 0; i < views.size(); ++i) ins.push_back(inputs_[i] ? &views[i] : nullptr);
    std::vector<Dims> dims;
    std::vector<bool> known;
    KILN_RETURN_IF_ERROR(kernels::InferOutputDims(applied, ins, &dims, &known), "");
    TestContext ctx(inputs_, d.output_types, &d);
    KILN_RETURN_IF_ERROR((*k)->Run(ctx), "");
    if (parallel_calls != nullptr) *parallel_calls = ctx.parallel_calls();
    return ctx.outputs();
  }

  NodeDef def_;
  std::vector<DataType> outputs_;
  std::deque<HostTensor> tensors_;
  std::deque<kernels::TensorView> views_;
  std::vector<const HostTensor*> inputs_;
};

std::string Str(const Dims& d) { return kernels::DimsString(d); }

TEST(CpuTensorRegistrationTest, EveryOpHasItsCpuKernel) {
  for (const char* op : {"Transpose", "Concat", "Split", "Slice", "Gather", "Expand", "Tile",
                         "DepthToSpace", "SpaceToDepth", "Resize", "Pad"}) {
    EXPECT_TRUE(Registry().Has("cpu", "", op)) << op;
  }
}

TEST(CpuTensorRegistrationTest, StringTensorsAreDeclined) {
  Node node("Transpose");
  node.In(HostTensor(DataType::kString, {2, 2}));
  auto k = node.PrepareCpu();
  ASSERT_FALSE(k.ok());
  EXPECT_EQ(k.status().code(), code::kFeatureUnsupported) << k.status().message();
}

// ---------------------------------------------------------------------------------------------
// Transpose.

TEST(CpuTransposeTest, EveryPermutationOfRankFourAndEveryElementSize) {
  Ints perm = {0, 1, 2, 3};
  uint32_t seed = 1;
  do {
    for (DataType t : kOnePerSize) {
      for (const Dims& dims : {Dims{2, 3, 4, 5}, Dims{3, 1, 17, 9}, Dims{5, 33, 2, 70}}) {
        SCOPED_TRACE(Str(perm) + " " + ir::Name(t) + " " + Str(dims));
        Node node("Transpose", 13);
        node.In(Random(t, dims, seed++)).Ints("perm", perm);
        node.Check();
      }
    }
  } while (std::next_permutation(perm.begin(), perm.end()));
}

TEST(CpuTransposeTest, EveryTypeOnTheBlockedAndRunPaths) {
  uint32_t seed = 100;
  for (DataType t : kAllTypes) {
    SCOPED_TRACE(ir::Name(t));
    Node a("Transpose");
    a.In(Random(t, {67, 131}, seed++)).Ints("perm", {1, 0});
    a.Check();
    Node b("Transpose");
    b.In(Random(t, {3, 20, 7, 5}, seed++)).Ints("perm", {2, 0, 1, 3});
    b.Check();
  }
}

TEST(CpuTransposeTest, RankFiveAndSixPermutations) {
  std::mt19937 gen(7);
  uint32_t seed = 200;
  for (int rank : {5, 6}) {
    for (int trial = 0; trial < 40; ++trial) {
      Ints perm(static_cast<size_t>(rank));
      std::iota(perm.begin(), perm.end(), 0);
      std::shuffle(perm.begin(), perm.end(), gen);
      Dims dims;
      for (int i = 0; i < rank; ++i) dims.push_back(1 + static_cast<int64_t>(gen() % 6));
      const DataType t = kOnePerSize[static_cast<size_t>(trial) % kOnePerSize.size()];
      SCOPED_TRACE(Str(perm) + " " + ir::Name(t) + " " + Str(dims));
      Node node("Transpose");
      node.In(Random(t, dims, seed++)).Ints("perm", perm);
      node.Check();
    }
  }
}

TEST(CpuTransposeTest, LargeShapesSplitAcrossChunks) {
  struct Case {
    Dims dims;
    Ints perm;
  };
  // BERT's head split and its key transpose, NCHW <-> NHWC, a wide and a tall 2-D transpose.
  const std::vector<Case> cases = {
      {{1, 128, 12, 64}, {0, 2, 1, 3}},
      {{1, 12, 128, 64}, {0, 2, 1, 3}},
      {{1, 128, 12, 64}, {0, 2, 3, 1}},
      {{2, 64, 37, 41}, {0, 2, 3, 1}},
      {{2, 37, 41, 64}, {0, 3, 1, 2}},
      {{3, 100000}, {1, 0}},
      {{100000, 3}, {1, 0}},
      {{515, 263}, {1, 0}},
  };
  uint32_t seed = 300;
  for (const Case& c : cases) {
    for (DataType t :
         {DataType::kFloat32, DataType::kInt8, DataType::kBFloat16, DataType::kFloat64}) {
      SCOPED_TRACE(Str(c.dims) + " " + Str(c.perm) + " " + ir::Name(t));
      Node node("Transpose");
      node.In(Random(t, c.dims, seed++)).Ints("perm", c.perm).Dynamic(0);
      node.Check();
    }
  }
}

TEST(CpuTransposeTest, DefaultPermRankZeroOneAndEmpty) {
  Node rev("Transpose");
  rev.In(Random(DataType::kFloat32, {3, 4, 5}, 1));
  rev.Check();
  Node scalar("Transpose");
  scalar.In(Random(DataType::kInt64, {}, 2)).Ints("perm", {});
  scalar.Check();
  Node one("Transpose");
  one.In(Random(DataType::kInt16, {77}, 3)).Ints("perm", {0});
  one.Check();
  Node identity("Transpose");
  identity.In(Random(DataType::kFloat32, {300, 70, 5}, 4)).Ints("perm", {0, 1, 2});
  identity.Check();
  for (const Dims& dims : {Dims{0, 3, 4}, Dims{3, 0, 4}, Dims{2, 3, 0}}) {
    Node empty("Transpose");
    empty.In(Random(DataType::kFloat32, dims, 5)).Ints("perm", {2, 0, 1});
    empty.Check();
  }
}

TEST(CpuTransposeTest, BadPermIsAnError) {
  Node wrong_rank("Transpose");
  wrong_rank.In(Random(DataType::kFloat32, {2, 3}, 1)).Ints("perm", {0, 1, 2});
  wrong_rank.CheckError(code::kInvalidParam);
  Node repeated("Transpose");
  repeated.In(Random(DataType::kFloat32, {2, 3}, 1)).Ints("perm", {1, 1});
  repeated.CheckError(code::kInvalidParam);
}

TEST(CpuTransposeTest, DepthToSpaceAndSpaceToDepth) {
  uint32_t seed = 400;
  for (DataType t : kOnePerSize) {
    for (int64_t b : {2, 3}) {
      for (const char* mode : {"DCR", "CRD"}) {
        SCOPED_TRACE(std::string(ir::Name(t)) + " " + mode + " " + std::to_string(b));
        Node d2s("DepthToSpace", 13);
        d2s.In(Random(t, {2, 4 * b * b, 5, 7}, seed++)).Int("blocksize", b).Str("mode", mode);
        d2s.Check();
      }
      Node s2d("SpaceToDepth", 13);
      s2d.In(Random(t, {2, 3, 4 * b, 5 * b}, seed++)).Int("blocksize", b);
      s2d.Check();
    }
  }
  Node big("DepthToSpace", 13);
  big.In(Random(DataType::kFloat32, {1, 64, 80, 80}, 9)).Int("blocksize", 2);
  big.Check();
  Node bad("DepthToSpace", 13);
  bad.In(Random(DataType::kFloat32, {1, 6, 2, 2}, 9)).Int("blocksize", 2);
  bad.CheckError(code::kInvalidParam);
}

// ---------------------------------------------------------------------------------------------
// Concat and Split.

TEST(CpuConcatTest, EveryAxisAndTypeWithUnequalParts) {
  uint32_t seed = 500;
  for (DataType t : kAllTypes) {
    for (int64_t axis = -3; axis < 3; ++axis) {
      SCOPED_TRACE(std::string(ir::Name(t)) + " axis " + std::to_string(axis));
      Dims a = {3, 4, 5}, b = a, c = a;
      const size_t k = static_cast<size_t>(axis < 0 ? axis + 3 : axis);
      b[k] = 1;
      c[k] = 7;
      Node node("Concat", 13);
      node.In(Random(t, a, seed)).In(Random(t, b, seed + 1)).In(Random(t, c, seed + 2));
      seed += 3;
      node.Int("axis", axis);
      node.Check();
    }
  }
}

TEST(CpuConcatTest, EmptyPartsLargeInputsAndOneInput) {
  Node empty_part("Concat", 13);
  empty_part.In(Random(DataType::kFloat32, {2, 0, 3}, 1))
      .In(Random(DataType::kFloat32, {2, 5, 3}, 2))
      .In(Random(DataType::kFloat32, {2, 0, 3}, 3))
      .Int("axis", 1);
  empty_part.Check();
  Node all_empty("Concat", 13);
  all_empty.In(Random(DataType::kInt8, {0, 4}, 1)).In(Random(DataType::kInt8, {0, 4}, 2));
  all_empty.Int("axis", 0);
  all_empty.Check();
  // PP-OCR's FPN: channels joined on [1, 96, 160, 160] maps; a large axis-0 join; many rows.
  Node fpn("Concat", 13);
  for (uint32_t i = 0; i < 4; ++i) fpn.In(Random(DataType::kFloat32, {1, 24, 160, 160}, 10 + i));
  fpn.Int("axis", 1).Dynamic(0);
  fpn.Check();
  Node rows("Concat", 13);
  rows.In(Random(DataType::kFloat16, {30000, 3}, 20))
      .In(Random(DataType::kFloat16, {30000, 1}, 21))
      .In(Random(DataType::kFloat16, {30000, 5}, 22))
      .Int("axis", -1);
  rows.Check();
  Node single("Concat", 13);
  single.In(Random(DataType::kInt64, {100000}, 30)).Int("axis", 0);
  single.Check();
}

TEST(CpuConcatTest, MismatchedInputsAreAnError) {
  Node node("Concat", 13);
  node.In(Random(DataType::kFloat32, {2, 3}, 1))
      .In(Random(DataType::kFloat32, {3, 3}, 2))
      .Int("axis", 1);
  node.CheckError(code::kInvalidParam);
  Node axis("Concat", 13);
  axis.In(Random(DataType::kFloat32, {2, 3}, 1)).Int("axis", 2);
  axis.CheckError(code::kInvalidParam);
}

TEST(CpuSplitTest, EveryOpsetsWayOfGivingTheSplit) {
  uint32_t seed = 600;
  for (DataType t : kOnePerSize) {
    SCOPED_TRACE(ir::Name(t));
    Node attr("Split", 11);
    attr.In(Random(t, {4, 10, 3}, seed++)).Int("axis", 1).Ints("split", {2, 0, 7, 1});
    attr.Outputs({t, t, t, t}).Check();
    Node input("Split", 13);
    input.In(Random(t, {4, 10, 3}, seed++)).In(I64({3, 3, 4})).Int("axis", -2);
    input.Outputs({t, t, t}).Check();
    Node even("Split", 13);
    even.In(Random(t, {6, 4}, seed++)).Int("axis", 0);
    even.Outputs({t, t, t}).Check();
    Node uneven("Split", 18);
    uneven.In(Random(t, {5, 11}, seed++)).Int("axis", 1).Int("num_outputs", 3);
    uneven.Outputs({t, t, t}).Check();
    Node last_axis("Split", 13);
    last_axis.In(Random(t, {20000, 6}, seed++)).In(I64({1, 5})).Int("axis", 1);
    last_axis.Outputs({t, t}).Check();
  }
  Node big("Split", 13);
  big.In(Random(DataType::kFloat32, {1, 384, 80, 80}, 1)).Int("axis", 1);
  big.Outputs({DataType::kFloat32, DataType::kFloat32}).Check();
  // Outputs the graph leaves out are skipped; the others still take their own parts.
  for (int opset : {11, 13, 18}) {
    SCOPED_TRACE(opset);
    Node unused("Split", opset);
    unused.In(Random(DataType::kInt32, {7, 9000}, 2)).Int("axis", 1);
    if (opset == 11) unused.Ints("split", {3000, 1000, 5000});
    if (opset == 13) unused.In(I64({3000, 1000, 5000}));
    if (opset == 18) unused.Int("num_outputs", 3);
    unused.Outputs({DataType::kUndefined, DataType::kInt32, DataType::kInt32}).Check();
  }
}

TEST(CpuSplitTest, BadSplitIsAnError) {
  Node sum("Split", 13);
  sum.In(Random(DataType::kFloat32, {4, 10}, 1)).In(I64({3, 3})).Int("axis", 1);
  sum.Outputs({DataType::kFloat32, DataType::kFloat32}).CheckError(code::kInvalidParam);
  Node uneven("Split", 13);
  uneven.In(Random(DataType::kFloat32, {5, 3}, 1)).Int("axis", 0);
  uneven.Outputs({DataType::kFloat32, DataType::kFloat32}).CheckError(code::kInvalidParam);
}

// ---------------------------------------------------------------------------------------------
// Slice.

TEST(CpuSliceTest, OpsetOneAttributesAndTenInputs) {
  Node v1("Slice", 1);
  v1.In(Random(DataType::kFloat32, {5, 6, 7}, 1))
      .Ints("starts", {1, -4})
      .Ints("ends", {100, -1})
      .Ints("axes", {0, 2});
  v1.Check();
  Node v10("Slice", 10);
  v10.In(Random(DataType::kInt16, {5, 6, 7}, 2)).In(I64({4, 1})).In(I64({0, 6})).In(I64({2, 0}));
  v10.In(I64({-1, 2}));
  v10.Check();
  Node no_axes("Slice", 13);
  no_axes.In(Random(DataType::kUint8, {9, 8}, 3)).In(I64({1, 1})).In(I64({8, 7}));
  no_axes.Check();
  Node i32("Slice", 13);
  i32.In(Random(DataType::kFloat64, {9, 8}, 4))
      .In(I32({1}, {-3}))
      .In(I32({1}, {-100}))
      .In(I32({1}, {1}))
      .In(I32({1}, {-2}));
  i32.Check();
}

TEST(CpuSliceTest, RandomStartsEndsAndStepsMatchTheReference) {
  std::mt19937 gen(11);
  const Dims dims = {6, 7, 9, 5};
  uint32_t seed = 700;
  for (int trial = 0; trial < 300; ++trial) {
    Ints starts, ends, axes, steps;
    for (int64_t a = 0; a < 4; ++a) {
      if (gen() % 3 == 0) continue;
      const int64_t d = dims[static_cast<size_t>(a)];
      auto pick = [&] { return static_cast<int64_t>(gen() % (2 * d + 7)) - d - 3; };
      starts.push_back(pick());
      ends.push_back(gen() % 8 == 0 ? (gen() % 2 ? INT64_MAX : INT64_MIN) : pick());
      axes.push_back(gen() % 2 ? a : a - 4);
      int64_t st = static_cast<int64_t>(gen() % 7) - 3;
      if (st == 0) st = gen() % 2 ? 4 : -5;
      steps.push_back(st);
    }
    const DataType t = kOnePerSize[static_cast<size_t>(trial) % kOnePerSize.size()];
    SCOPED_TRACE("starts " + Str(starts) + " ends " + Str(ends) + " axes " + Str(axes) + " steps " +
                 Str(steps));
    Node node("Slice", 13);
    node.In(Random(t, dims, seed++)).In(I64(starts)).In(I64(ends)).In(I64(axes)).In(I64(steps));
    node.Check();
  }
}

TEST(CpuSliceTest, LargeSlicesAndEmptyResults) {
  Node rows("Slice", 13);
  rows.In(Random(DataType::kFloat32, {1, 512, 768}, 1)).In(I64({1})).In(I64({511})).In(I64({1}));
  rows.Dynamic(0).Check();
  Node cols("Slice", 13);
  cols.In(Random(DataType::kFloat32, {512, 768}, 2)).In(I64({100})).In(I64({612})).In(I64({1}));
  cols.Check();
  Node reversed("Slice", 13);
  reversed.In(Random(DataType::kBFloat16, {300, 300}, 3))
      .In(I64({-1, -1}))
      .In(I64({INT64_MIN, INT64_MIN}))
      .In(I64({0, 1}))
      .In(I64({-1, -2}));
  reversed.Check();
  Node strided("Slice", 13);
  strided.In(Random(DataType::kInt64, {200, 400}, 4)).In(I64({1})).In(I64({400})).In(I64({1}));
  strided.In(I64({3}));
  strided.Check();
  Node empty("Slice", 13);
  empty.In(Random(DataType::kFloat32, {4, 5}, 5)).In(I64({3})).In(I64({1})).In(I64({1}));
  empty.Check();
  Node empty_in("Slice", 13);
  empty_in.In(Random(DataType::kFloat32, {0, 5}, 6)).In(I64({0})).In(I64({-1})).In(I64({0}));
  empty_in.In(I64({-1}));
  empty_in.Check();
}

TEST(CpuSliceTest, BadArgumentsAreErrors) {
  Node zero_step("Slice", 13);
  zero_step.In(Random(DataType::kFloat32, {4, 5}, 1)).In(I64({0})).In(I64({3})).In(I64({0}));
  zero_step.In(I64({0}));
  zero_step.CheckError(code::kInvalidParam);
  Node lengths("Slice", 13);
  lengths.In(Random(DataType::kFloat32, {4, 5}, 1)).In(I64({0, 1})).In(I64({3}));
  lengths.CheckError(code::kInvalidParam);
  Node axis("Slice", 13);
  axis.In(Random(DataType::kFloat32, {4, 5}, 1)).In(I64({0})).In(I64({3})).In(I64({2}));
  axis.CheckError(code::kInvalidParam);
}

// ---------------------------------------------------------------------------------------------
// Gather.

TEST(CpuGatherTest, EveryAxisNegativeIndicesAndBothIndexTypes) {
  uint32_t seed = 800;
  for (DataType t : kAllTypes) {
    for (int64_t axis = -3; axis < 3; ++axis) {
      SCOPED_TRACE(std::string(ir::Name(t)) + " axis " + std::to_string(axis));
      const Dims dims = {4, 5, 6};
      const int64_t n = dims[static_cast<size_t>(axis < 0 ? axis + 3 : axis)];
      Node i64("Gather", 13);
      i64.In(Random(t, dims, seed++))
          .In(kernels::testing::I64({2, 3}, {0, n - 1, -1, -n, 1, 2}))
          .Int("axis", axis);
      i64.Check();
      Node i32("Gather", 13);
      i32.In(Random(t, dims, seed++)).In(I32({}, {static_cast<int32_t>(-n + 1)})).Int("axis", axis);
      i32.Check();
    }
  }
}

TEST(CpuGatherTest, LargeEmbeddingLookupAndLastAxis) {
  std::mt19937 gen(3);
  Ints ids(512);
  for (int64_t& v : ids) v = static_cast<int64_t>(gen() % 2000) - 1000;
  Node embed("Gather", 13);
  embed.Const(Random(DataType::kFloat32, {1000, 768}, 1))
      .In(kernels::testing::I64({1, 512}, ids))
      .Int("axis", 0);
  embed.Check();
  std::vector<int32_t> cols(3000);
  for (int32_t& v : cols) v = static_cast<int32_t>(gen() % 64) - 32;
  Node last("Gather", 13);
  last.In(Random(DataType::kInt16, {50, 32}, 2)).In(I32({3000}, cols)).Int("axis", -1);
  last.Check();
  Node empty("Gather", 13);
  empty.In(Random(DataType::kFloat32, {5, 4}, 3)).In(kernels::testing::I64({0}, {}));
  empty.Check();
}

TEST(CpuGatherTest, OutOfRangeIndexIsAnError) {
  Node high("Gather", 13);
  high.In(Random(DataType::kFloat32, {4, 5}, 1)).In(I64({0, 4})).Int("axis", 0);
  high.CheckError(code::kInvalidParam);
  Node low("Gather", 13);
  low.In(Random(DataType::kFloat32, {4, 5}, 1)).In(I32({1}, {-6})).Int("axis", 1);
  low.CheckError(code::kInvalidParam);
}

// ---------------------------------------------------------------------------------------------
// Expand and Tile.

TEST(CpuExpandTest, BroadcastsOfEveryKind) {
  struct Case {
    Dims in;
    Ints shape;
  };
  const std::vector<Case> cases = {
      {{3, 1}, {2, 3, 4}},    {{1, 4}, {3, 1}},
      {{5}, {2, 3, 5}},       {{2, 1, 3, 1}, {2, 4, 3, 5}},
      {{}, {3, 2}},           {{1, 1}, {1}},
      {{3, 4}, {3, 4}},       {{1, 64, 1}, {300, 64, 7}},
      {{1, 5}, {0, 5}},       {{1, 768}, {512, 768}},
      {{512, 1}, {512, 768}},
  };
  uint32_t seed = 900;
  for (const Case& c : cases) {
    for (DataType t : kOnePerSize) {
      SCOPED_TRACE(Str(c.in) + " -> " + Str(c.shape) + " " + ir::Name(t));
      Node node("Expand", 13);
      node.In(Random(t, c.in, seed++)).In(I64(c.shape));
      node.Check();
    }
  }
  Node bad("Expand", 13);
  bad.In(Random(DataType::kFloat32, {3, 2}, 1)).In(I64({3, 4}));
  bad.CheckError(code::kInvalidParam);
}

TEST(CpuTileTest, RepeatsOfEveryKind) {
  struct Case {
    Dims in;
    Ints reps;
  };
  const std::vector<Case> cases = {
      {{3}, {4}},       {{2, 3}, {1, 1}},       {{2, 3}, {3, 2}},
      {{2, 3}, {0, 2}}, {{2, 1, 3}, {2, 5, 1}}, {{1, 64, 64}, {4, 1, 3}},
      {{}, {}},         {{0, 3}, {2, 2}},       {{300, 2}, {2, 200}},
  };
  uint32_t seed = 1000;
  for (const Case& c : cases) {
    for (DataType t : kOnePerSize) {
      SCOPED_TRACE(Str(c.in) + " x " + Str(c.reps) + " " + ir::Name(t));
      Node node("Tile", 13);
      node.In(Random(t, c.in, seed++)).In(I64(c.reps));
      node.Check();
    }
  }
  Node bad("Tile", 13);
  bad.In(Random(DataType::kFloat32, {3, 2}, 1)).In(I64({3}));
  bad.CheckError(code::kInvalidParam);
  Node negative("Tile", 13);
  negative.In(Random(DataType::kFloat32, {3, 2}, 1)).In(I64({1, -1}));
  negative.CheckError(code::kInvalidParam);
}

// ---------------------------------------------------------------------------------------------
// Resize.

const std::vector<const char*> kNearestModes = {"round_prefer_floor", "round_prefer_ceil", "floor",
                                                "ceil"};

// Scales that up- and downscale, by integral and fractional factors, differently per axis.
const std::vector<std::vector<float>> kScales = {{2.0f, 2.0f}, {0.5f, 0.5f},  {1.7f, 0.6f},
                                                 {3.0f, 1.0f}, {0.34f, 2.5f}, {1.0f, 1.0f}};

TEST(CpuResizeTest, NearestEveryModeAndTransformOnEveryElementSize) {
  uint32_t seed = 1100;
  const std::vector<std::pair<const char*, int>> transforms = {
      {"half_pixel", 13}, {"pytorch_half_pixel", 13},   {"align_corners", 13},
      {"asymmetric", 13}, {"tf_half_pixel_for_nn", 11}, {"half_pixel_symmetric", 19}};
  for (const auto& [transform, opset] : transforms) {
    for (const char* nearest : kNearestModes) {
      for (size_t s = 0; s < kScales.size(); ++s) {
        const DataType t = kOnePerSize[s % kOnePerSize.size()];
        SCOPED_TRACE(std::string(transform) + " " + nearest + " scale " + std::to_string(s) + " " +
                     ir::Name(t));
        Node node("Resize", opset);
        node.In(Random(t, {2, 3, 7, 9}, seed++))
            .None()
            .Const(F32({1, 1, kScales[s][0], kScales[s][1]}))
            .Str("mode", "nearest")
            .Str("coordinate_transformation_mode", transform)
            .Str("nearest_mode", nearest);
        node.Check();
      }
    }
  }
}

TEST(CpuResizeTest, NearestBySizesRanksThreeAndFiveAndScaledChannels) {
  uint32_t seed = 1200;
  for (DataType t : kAllTypes) {
    SCOPED_TRACE(ir::Name(t));
    Node sizes("Resize", 13);
    sizes.In(Random(t, {1, 2, 5, 6}, seed++)).None().None().In(I64({1, 2, 11, 4}));
    sizes.Str("mode", "nearest");
    sizes.Check();
  }
  Node rank3("Resize", 13);
  rank3.In(Random(DataType::kInt64, {3, 5, 6}, 1)).None().Const(F32({1, 2, 1.5f}));
  rank3.Str("coordinate_transformation_mode", "asymmetric").Str("nearest_mode", "floor");
  rank3.Check();
  Node rank5("Resize", 13);
  rank5.In(Random(DataType::kFloat16, {1, 2, 3, 5, 6}, 2)).None().Const(F32({1, 1, 1, 2, 2}));
  rank5.Check();
  // Nearest resizes of the batch, channel and depth axes go through the plane map.
  Node channels("Resize", 13);
  channels.In(Random(DataType::kFloat32, {2, 3, 4, 5}, 3)).None().Const(F32({1.5f, 2, 1, 0.5f}));
  channels.Str("nearest_mode", "ceil");
  channels.Check();
  Node depth("Resize", 13);
  depth.In(Random(DataType::kUint8, {1, 2, 3, 5, 6}, 4)).None().Const(F32({1, 1, 0.7f, 2, 2}));
  depth.Check();
  Node tf_nn("Resize", 11);  // tf_half_pixel_for_nn moves even a scale-1 axis
  tf_nn.In(Random(DataType::kFloat32, {2, 3, 4, 5}, 5)).None().Const(F32({1, 1, 2, 2}));
  tf_nn.Str("coordinate_transformation_mode", "tf_half_pixel_for_nn");
  tf_nn.Str("nearest_mode", "round_prefer_ceil");
  tf_nn.Check();
}

TEST(CpuResizeTest, LinearEveryTransformAndScale) {
  uint32_t seed = 1300;
  const std::vector<std::pair<const char*, int>> transforms = {{"half_pixel", 13},
                                                               {"pytorch_half_pixel", 13},
                                                               {"align_corners", 13},
                                                               {"asymmetric", 13},
                                                               {"half_pixel_symmetric", 19}};
  for (const auto& [transform, opset] : transforms) {
    for (const auto& scales : kScales) {
      SCOPED_TRACE(std::string(transform) + " " + std::to_string(scales[0]) + "x" +
                   std::to_string(scales[1]));
      Node node("Resize", opset);
      node.In(UniformF32({2, 3, 7, 9}, seed++))
          .None()
          .Const(F32({1, 1, scales[0], scales[1]}))
          .Str("mode", "linear")
          .Str("coordinate_transformation_mode", transform);
      node.Check(Expect::kFast, 1e-5);
    }
  }
  Node sizes("Resize", 13);
  sizes.In(UniformF32({1, 2, 6, 1}, 1)).None().None().In(I64({1, 2, 13, 5}));
  sizes.Str("mode", "linear").Check(Expect::kFast, 1e-5);
  Node rank3("Resize", 13);
  rank3.In(UniformF32({4, 9, 8}, 2)).None().Const(F32({1, 0.5f, 1.25f}));
  rank3.Str("mode", "linear").Check(Expect::kFast, 1e-5);
  Node rank5("Resize", 13);
  rank5.In(UniformF32({1, 2, 3, 4, 5}, 3)).None().Const(F32({1, 1, 1, 2, 3}));
  rank5.Str("mode", "linear").Check(Expect::kFast, 1e-5);
}

TEST(CpuResizeTest, LargeResizesSplitAcrossChunks) {
  // PP-OCR det's FPN upsampling: 2x nearest and bilinear on [1, 64, 80, 80].
  Node nearest("Resize", 13);
  nearest.In(Random(DataType::kFloat32, {1, 64, 80, 80}, 1)).None().Const(F32({1, 1, 2, 2}));
  nearest.Str("mode", "nearest").Str("coordinate_transformation_mode", "asymmetric");
  nearest.Str("nearest_mode", "floor").Dynamic(0).Check();
  Node linear("Resize", 13);
  linear.In(UniformF32({1, 64, 80, 80}, 2)).None().Const(F32({1, 1, 2, 2}));
  linear.Str("mode", "linear").Dynamic(0).Check(Expect::kFast, 1e-5);
  Node down("Resize", 13);
  down.In(UniformF32({1, 16, 161, 157}, 3)).None().None().In(I64({1, 16, 64, 100}));
  down.Str("mode", "linear").Str("coordinate_transformation_mode", "align_corners");
  down.Check(Expect::kFast, 1e-5);
}

TEST(CpuResizeTest, OpsetTenAndAxesAttribute) {
  Node v10n("Resize", 10);
  v10n.In(Random(DataType::kInt32, {1, 2, 5, 7}, 1)).Const(F32({1, 1, 2.5f, 0.4f}));
  v10n.Str("mode", "nearest").Check();
  Node v10l("Resize", 10);
  v10l.In(UniformF32({1, 2, 5, 7}, 2)).Const(F32({1, 1, 1.5f, 3}));
  v10l.Str("mode", "linear").Check(Expect::kFast, 1e-5);
  Node axes("Resize", 18);
  axes.In(UniformF32({2, 3, 6, 8}, 3)).None().Const(F32({0.5f, 2})).Ints("axes", {-1, 2});
  axes.Str("mode", "linear").Check(Expect::kFast, 1e-5);
  Node axes_nn("Resize", 18);
  axes_nn.In(Random(DataType::kUint16, {2, 3, 6, 8}, 4)).None().None().In(I64({4, 5}));
  axes_nn.Ints("axes", {1, 3}).Check();
}

TEST(CpuResizeTest, OtherCasesGoToTheReference) {
  Node cubic("Resize", 13);
  cubic.In(UniformF32({1, 2, 5, 6}, 1)).None().Const(F32({1, 1, 2, 2})).Str("mode", "cubic");
  cubic.Check(Expect::kDeclined);
  Node int_linear("Resize", 13);
  int_linear.In(Random(DataType::kInt8, {1, 2, 5, 6}, 2)).None().Const(F32({1, 1, 2, 2}));
  int_linear.Str("mode", "linear").Check(Expect::kDeclined);
  Node antialias("Resize", 18);
  antialias.In(UniformF32({1, 2, 8, 8}, 3)).None().Const(F32({1, 1, 0.5f, 0.5f}));
  antialias.Str("mode", "linear").Int("antialias", 1).Check(Expect::kDeclined);
  Node crop("Resize", 13);
  crop.In(UniformF32({1, 2, 8, 8}, 4))
      .Const(F32({0, 0, 0.1f, 0.2f, 1, 1, 0.9f, 0.7f}))
      .Const(F32({1, 1, 2, 2}))
      .Str("coordinate_transformation_mode", "tf_crop_and_resize");
  crop.Check(Expect::kDeclined);
  Node exclude("Resize", 13);
  exclude.In(UniformF32({1, 2, 8, 8}, 5)).None().Const(F32({1, 1, 2, 2}));
  exclude.Str("mode", "linear").Int("exclude_outside", 1).Check(Expect::kDeclined);
  Node policy("Resize", 18);
  policy.In(UniformF32({1, 2, 8, 6}, 6)).None().None().In(I64({1, 2, 5, 5}));
  policy.Str("keep_aspect_ratio_policy", "not_larger").Check(Expect::kDeclined);
  // Created, but a linear resize of the channel axis, a rank-1 input and an empty one are
  // handed to the reference kernel at run time.
  Node channels("Resize", 13);
  channels.In(UniformF32({1, 4, 5, 6}, 7)).None().Const(F32({1, 2, 2, 2}));
  channels.Str("mode", "linear").Check(Expect::kHandedOn);
  Node rank1("Resize", 13);
  rank1.In(Random(DataType::kFloat32, {9}, 8)).None().Const(F32({2}));
  rank1.Check(Expect::kHandedOn);
  Node empty("Resize", 13);
  empty.In(Random(DataType::kFloat32, {1, 0, 5, 6}, 9)).None().Const(F32({1, 1, 2, 2}));
  empty.Check(Expect::kHandedOn);
}

TEST(CpuResizeTest, BadScalesAndSizesAreErrors) {
  Node both("Resize", 13);
  both.In(UniformF32({1, 1, 4, 4}, 1)).None().Const(F32({1, 1, 2, 2})).In(I64({1, 1, 8, 8}));
  both.CheckError(code::kInvalidParam);
  Node count("Resize", 13);
  count.In(UniformF32({1, 1, 4, 4}, 1)).None().Const(F32({2, 2}));
  count.CheckError(code::kInvalidParam);
  Node negative("Resize", 13);
  negative.In(UniformF32({1, 1, 4, 4}, 1)).None().Const(F32({1, 1, -2, 2}));
  negative.CheckError(code::kInvalidParam);
  Node sizes("Resize", 13);
  sizes.In(UniformF32({1, 1, 4, 4}, 1)).None().None().In(I64({1, 1, -3, 8}));
  sizes.CheckError(code::kInvalidParam);
}

// ---------------------------------------------------------------------------------------------
// Pad.

TEST(CpuPadTest, EveryModeTypeAndPadShape) {
  const std::vector<Ints> pads = {
      {0, 0, 1, 2, 0, 0, 3, 1},    // H and W
      {0, 0, 0, 3, 0, 0, 0, 0},    // W before only
      {1, 2, 0, 0, 0, 1, 0, 0},    // N and C: whole planes
      {0, 0, -1, 2, 0, 0, 1, -2},  // crops and pads
      {1, 1, 1, 1, 1, 1, 1, 1},    // everything
      {0, 0, 0, 0, 0, 0, 0, 0},    // nothing
      {0, 0, 6, 7, 0, 0, 9, 8},    // longer than the axis (reflect wraps around periodically)
  };
  uint32_t seed = 1400;
  for (const char* mode : {"constant", "reflect", "edge", "wrap"}) {
    for (const Ints& p : pads) {
      for (DataType t : kAllTypes) {
        SCOPED_TRACE(std::string(mode) + " " + Str(p) + " " + ir::Name(t));
        Node node("Pad", 19);
        node.In(Random(t, {2, 3, 4, 5}, seed++)).In(I64(p));
        if (std::string(mode) == "constant") node.In(Random(t, {}, seed++));
        node.Str("mode", mode);
        node.Check();
      }
    }
  }
}

TEST(CpuPadTest, EveryOpsetsWayOfGivingPads) {
  Node v2("Pad", 2);
  v2.In(Random(DataType::kFloat32, {3, 4}, 1)).Ints("pads", {1, 2, 0, 1}).Float("value", 1.5f);
  v2.Check();
  Node v2_int("Pad", 2);
  v2_int.In(Random(DataType::kInt16, {3, 4}, 2)).Ints("pads", {0, 2, 1, 1}).Float("value", -7);
  v2_int.Check();
  Node v11("Pad", 11);
  v11.In(Random(DataType::kUint8, {3, 4}, 4)).In(I64({1, 1, 1, 1})).Str("mode", "reflect");
  v11.Check();
  Node zero("Pad", 13);  // no constant_value: zeros
  zero.In(Random(DataType::kFloat16, {3, 4}, 5)).In(I64({2, 0, 0, 3}));
  zero.Check();
  Node axes("Pad", 18);
  axes.In(Random(DataType::kInt32, {2, 3, 4, 5}, 6))
      .In(I64({1, 2, 3, 0}))
      .In(Random(DataType::kInt32, {}, 7))
      .In(I64({-1, 1}));
  axes.Check();
  Node axes_reflect("Pad", 18);
  axes_reflect.In(Random(DataType::kInt64, {2, 3, 4, 5}, 8))
      .In(I64({2, 3}))
      .None()
      .In(I64({2}))
      .Str("mode", "reflect");
  axes_reflect.Check();
  Node scalar("Pad", 13);
  scalar.In(Random(DataType::kFloat32, {}, 9)).In(I64({}));
  scalar.Check();
  Node empty_axis("Pad", 13);
  empty_axis.In(Random(DataType::kFloat32, {3, 0}, 10)).In(I64({0, 2, 1, 1}));
  empty_axis.Check();
}

TEST(CpuPadTest, LargePadsSplitAcrossChunks) {
  Node conv("Pad", 13);
  conv.In(Random(DataType::kFloat32, {1, 64, 80, 80}, 1)).In(I64({0, 0, 1, 1, 0, 0, 1, 1}));
  conv.Dynamic(0).Check();
  Node reflect("Pad", 13);
  reflect.In(Random(DataType::kFloat32, {1, 32, 100, 100}, 2))
      .In(I64({0, 0, 3, 3, 0, 0, 3, 3}))
      .Str("mode", "reflect");
  reflect.Check();
  Node channels("Pad", 13);
  channels.In(Random(DataType::kInt8, {2, 5, 120, 130}, 3)).In(I64({0, 2, 0, 0, 0, 1, 0, 0}));
  channels.Check();
  Node one_d("Pad", 13);
  one_d.In(Random(DataType::kFloat64, {100000}, 4)).In(I64({5, 7})).Str("mode", "edge");
  one_d.Check();
}

TEST(CpuPadTest, BadPadsAreErrors) {
  Node count("Pad", 13);
  count.In(Random(DataType::kFloat32, {3, 4}, 1)).In(I64({1, 1}));
  count.CheckError(code::kInvalidParam);
  Node crop("Pad", 13);
  crop.In(Random(DataType::kFloat32, {3, 4}, 1)).In(I64({-2, 0, -2, 0}));
  crop.CheckError(code::kInvalidParam);
  Node reflect_empty("Pad", 13);
  reflect_empty.In(Random(DataType::kFloat32, {3, 0}, 1)).In(I64({0, 1, 0, 1}));
  reflect_empty.Str("mode", "reflect").CheckError(code::kInvalidParam);
  Node value_type("Pad", 13);
  value_type.In(Random(DataType::kFloat32, {3, 4}, 1))
      .In(I64({0, 1, 0, 1}))
      .In(Random(DataType::kInt32, {}, 2));
  value_type.CheckError(code::kInvalidParam);
}

}  // namespace
}  // namespace kiln::cpu
