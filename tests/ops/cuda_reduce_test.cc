// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The CUDA reductions against the reference kernels (label gpu; without a GPU they still prepare
// the CUDA kernel for every case): each Reduce op over single, non-adjacent, negative, all and
// empty axes (noop_with_empty_axes 0 and 1), keepdims 0 and 1, the axes as the attribute or as a
// constant or computed input; NaN and infinities for Max / Min, empty reductions, integers, a
// large reduction (the block-per-output kernel) and Silero VAD's ReduceMean; ArgMax / ArgMin
// with ties, NaN and select_last_index. The kernels' indexing (MakeReduceShape and its walks)
// is checked on the host too, against the reference's order of visits.
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "backends/cuda/kernels/reduce_launch.h"
#include "tests/ops/cuda_vs_reference.h"

namespace kiln::cuda::testing {
namespace {

using kernels::testing::Def;
using kernels::testing::I64;
using kernels::testing::Make;
using kernels::testing::Values;

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

const char* const kReduceOps[] = {"ReduceSum",    "ReduceMean",      "ReduceMax", "ReduceMin",
                                  "ReduceProd",   "ReduceSumSquare", "ReduceL1",  "ReduceL2",
                                  "ReduceLogSum", "ReduceLogSumExp"};

// Where a node takes its axes: the attribute (before ReduceSum-13 and the others' opset 18), or
// input 1, constant or computed.
enum class Form { kAttribute, kConstantInput, kComputedInput };

std::string FormName(Form f) {
  return f == Form::kAttribute ? "attribute" : f == Form::kConstantInput ? "constant" : "computed";
}

// float32 outputs: NaN where the reference has NaN, the same infinity where it has one, else
// within rtol (float32 results of double accumulations in another order differ by a rounding).
void ExpectSame(const Ran& ran, float rtol, const std::string& what) {
  if (!ran) return;
  ASSERT_EQ(ran->first.dims, ran->second.dims) << what;
  const std::vector<float> expected = Values<float>(ran->first);
  const std::vector<float> actual = Values<float>(ran->second);
  ASSERT_EQ(expected.size(), actual.size()) << what;
  int reported = 0;
  for (size_t i = 0; i < expected.size() && reported < 10; ++i) {
    const float e = expected[i], a = actual[i];
    const bool same = std::isnan(e)   ? std::isnan(a)
                      : std::isinf(e) ? a == e
                                      : std::fabs(e - a) <= rtol * std::fabs(e) + 1e-6f;
    if (!same) {
      ADD_FAILURE() << what << " [" << i << "]: reference " << e << ", CUDA " << a;
      ++reported;
    }
  }
}

// Values in a range where every op is defined (LogSum of positive sums; products that neither
// vanish nor overflow).
HostTensor InputFor(const std::string& op, kernels::Dims dims, unsigned seed) {
  if (op == "ReduceLogSum") return Random(std::move(dims), 0.1f, 2.f, seed);
  if (op == "ReduceProd") return Random(std::move(dims), 0.5f, 1.5f, seed);
  return Random(std::move(dims), -2.f, 2.f, seed);
}

class CudaReduceTest : public CudaVsReference {
 protected:
  // {reference, CUDA} of `op` over `x`; `axes` null: none given (every axis, or none with
  // `noop`, which only the input forms have).
  Ran Reduce(const std::string& op, const HostTensor& x,
             const std::optional<std::vector<int64_t>>& axes, Form form, bool keepdims,
             bool noop = false) {
    const bool input_form = form != Form::kAttribute;
    const int opset = input_form ? 18 : op == "ReduceSum" ? 11 : 13;
    std::vector<HostTensor> ins = {x};
    if (input_form && axes) ins.push_back(I64({static_cast<int64_t>(axes->size())}, *axes));
    std::vector<const HostTensor*> ptrs;
    for (const HostTensor& t : ins) ptrs.push_back(&t);
    NodeDef def = Def(op, ptrs, {x.dtype}, opset);
    def.attrs["keepdims"] = int64_t{keepdims};
    if (!input_form && axes) def.attrs["axes"] = *axes;
    if (input_form) def.attrs["noop_with_empty_axes"] = int64_t{noop};
    std::vector<TensorView> views;
    for (const HostTensor& t : ins) views.push_back(t.view());
    if (form == Form::kConstantInput && ins.size() > 1) def.constants[1] = &views[1];
    return Run(def, ins);
  }
};

TEST_F(CudaReduceTest, EveryOpOverEveryKindOfAxesMatchesTheReference) {
  const std::vector<std::vector<int64_t>> axes_sets = {{1},    {0, 2}, {-1},         {-3, -1},
                                                       {1, 2}, {3, 0}, {0, 1, 2, 3}, {}};
  unsigned seed = 1;
  for (const char* op : kReduceOps) {
    const HostTensor x = InputFor(op, {2, 3, 4, 5}, seed++);
    for (Form form : {Form::kAttribute, Form::kConstantInput, Form::kComputedInput}) {
      for (const std::vector<int64_t>& axes : axes_sets) {
        for (bool keepdims : {false, true}) {
          const std::string what = std::string(op) + " axes " + kernels::DimsString(axes) +
                                   " keepdims " + std::to_string(keepdims) + " " + FormName(form);
          ExpectSame(Reduce(op, x, axes, form, keepdims), 1e-6f, what);
        }
      }
      // No axes at all: every axis; or, in the input forms with noop_with_empty_axes, none (the
      // op still applies to each value: |x| for ReduceL1, x² for ReduceSumSquare).
      for (bool keepdims : {false, true}) {
        ExpectSame(Reduce(op, x, std::nullopt, form, keepdims), 1e-6f,
                   std::string(op) + " no axes " + FormName(form));
      }
      if (form != Form::kAttribute) {
        ExpectSame(Reduce(op, x, std::nullopt, form, true, true), 1e-6f,
                   std::string(op) + " no axes, noop " + FormName(form));
        ExpectSame(Reduce(op, x, std::vector<int64_t>{}, form, true, true), 1e-6f,
                   std::string(op) + " empty axes, noop " + FormName(form));
        ExpectSame(Reduce(op, x, std::vector<int64_t>{2}, form, false, true), 1e-6f,
                   std::string(op) + " axes [2], noop " + FormName(form));
      }
    }
  }
}

TEST_F(CudaReduceTest, MaxAndMinTakeNaNAndInfinitiesAsTheReferenceDoes) {
  // Rows: a NaN first, in the middle, last; infinities; only -inf; NaN among infinities.
  const HostTensor x = kernels::testing::F32(
      {6, 4}, {kNaN,  1, 2,    3, 1,     kNaN,  -5,    7,     0,    1,    2,     kNaN,
               -kInf, 3, kInf, 4, -kInf, -kInf, -kInf, -kInf, kInf, kNaN, -kInf, 1});
  for (const char* op : {"ReduceMax", "ReduceMin", "ReduceSum", "ReduceLogSumExp", "ReduceL2"}) {
    for (const std::vector<int64_t>& axes : {std::vector<int64_t>{1}, {0}, {0, 1}}) {
      ExpectSame(Reduce(op, x, axes, Form::kAttribute, false), 1e-6f,
                 std::string(op) + " with NaN over " + kernels::DimsString(axes));
    }
  }
  // The block-per-output kernel: the NaN in one thread's share must win the tree.
  std::vector<float> big(100000);
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<float>(i % 977) - 400.f;
  big[77777] = kNaN;
  const HostTensor with_nan = kernels::testing::F32({2, 50000}, big);
  for (const char* op : {"ReduceMax", "ReduceMin"}) {
    ExpectSame(Reduce(op, with_nan, std::vector<int64_t>{1}, Form::kAttribute, true), 0.f,
               std::string(op) + " of 50000 values, one NaN");
    ExpectSame(Reduce(op, with_nan, std::vector<int64_t>{0, 1}, Form::kAttribute, false), 0.f,
               std::string(op) + " of 100000 values, one NaN");
  }
}

TEST_F(CudaReduceTest, ReductionsOfNoValuesAndOfOneValueMatchTheReference) {
  // An axis of 0: every op's value of no values (0, 1, ±inf, NaN for the mean, -inf for logs).
  const HostTensor empty_axis = Random({2, 0, 3}, -1, 1, 5);
  const HostTensor no_outputs = Random({0, 3}, -1, 1, 6);
  const HostTensor scalar = kernels::testing::F32({}, {-1.5f});
  for (const char* op : kReduceOps) {
    ExpectSame(Reduce(op, empty_axis, std::vector<int64_t>{1}, Form::kAttribute, true), 0.f,
               std::string(op) + " over an axis of 0");
    ExpectSame(Reduce(op, no_outputs, std::vector<int64_t>{1}, Form::kAttribute, false), 0.f,
               std::string(op) + " with no outputs");
    ExpectSame(Reduce(op, scalar, std::nullopt, Form::kAttribute, true), 1e-6f,
               std::string(op) + " of a scalar");
  }
}

TEST_F(CudaReduceTest, LargeReductionsMatchTheReference) {
  struct Case {
    kernels::Dims dims;
    std::vector<int64_t> axes;
  };
  const Case cases[] = {
      {{100000}, {0}},            // everything to one value: one block
      {{2, 50000}, {1}},          // few outputs, contiguous values
      {{50000, 8}, {0}},          // few outputs, strided values: still a block each
      {{8192, 300}, {1}},         // many outputs, contiguous values: a block each
      {{300, 5000}, {0}},         // many outputs, strided values: a thread each
      {{16, 64, 7, 7}, {2, 3}},   // a global pool's shape
      {{4, 100, 3, 70}, {1, 3}},  // two reduced dims apart: the block kernel's division walk
  };
  for (const Case& c : cases) {
    for (const char* op : kReduceOps) {
      // Large products stay finite only near 1.
      const HostTensor x = std::string(op) == "ReduceProd" ? Random(c.dims, 0.999f, 1.001f, 7)
                                                           : InputFor(op, c.dims, 7);
      ExpectSame(Reduce(op, x, c.axes, Form::kAttribute, false), 1e-5f,
                 std::string(op) + " of " + kernels::DimsString(c.dims) + " over " +
                     kernels::DimsString(c.axes));
    }
  }
}

TEST_F(CudaReduceTest, SileroVadsReduceMeanMatchesTheReference) {
  // Silero VAD (opset 16): ReduceMean(axes=[1], keepdims=0) of its decoder's output.
  for (const kernels::Dims& dims :
       {kernels::Dims{1, 1}, kernels::Dims{1, 4}, kernels::Dims{3, 7}}) {
    const HostTensor x = Random(dims, 0, 1, 11);
    NodeDef def = Def("ReduceMean", {&x}, {DataType::kFloat32}, 16);
    def.attrs["axes"] = std::vector<int64_t>{1};
    def.attrs["keepdims"] = int64_t{0};
    ExpectSame(Run(def, {x}), 1e-6f, "Silero's ReduceMean of " + kernels::DimsString(dims));
  }
}

TEST_F(CudaReduceTest, IntegerReductionsWrapAndCompareAsTheReferenceDoes) {
  std::vector<int64_t> v64;
  std::vector<int32_t> v32;
  for (int i = 0; i < 2 * 3 * 40; ++i) {
    // Large magnitudes, so sums and products wrap; negatives for L1 and the truncating mean.
    const int64_t big = (i % 7 - 3) * (int64_t{1} << 61) + i * 12345;
    v64.push_back(i % 5 == 0 ? -big : big);
    v32.push_back(static_cast<int32_t>((i % 9 - 4) * 400000000 + i));
  }
  const HostTensor x64 = Make(DataType::kInt64, {2, 3, 40}, v64);
  const HostTensor x32 = Make(DataType::kInt32, {2, 3, 40}, v32);
  std::vector<int64_t> long_row(2 * 600);  // 600 values an output: the block kernel
  for (size_t i = 0; i < long_row.size(); ++i) {
    long_row[i] = static_cast<int64_t>(i * 2654435761u % 1000003) - 500000;
  }
  const HostTensor x_long = Make(DataType::kInt64, {2, 600}, long_row);
  for (const char* op : {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd",
                         "ReduceSumSquare", "ReduceL1"}) {
    for (const HostTensor* x : {&x64, &x32}) {
      for (const std::vector<int64_t>& axes : {std::vector<int64_t>{2}, {0, 2}, {1}, {0, 1, 2}}) {
        for (Form form : {Form::kAttribute, Form::kComputedInput}) {
          ExpectSameBytes(Reduce(op, *x, axes, form, true),
                          std::string(op) + " " + ir::Name(x->dtype) + " over " +
                              kernels::DimsString(axes) + " " + FormName(form));
        }
      }
    }
    ExpectSameBytes(Reduce(op, x_long, std::vector<int64_t>{1}, Form::kAttribute, false),
                    std::string(op) + " int64 of 600 values an output");
  }
}

// ArgMax / ArgMin nodes (opset 13) over `axis`.
NodeDef ArgDef(const char* op, const HostTensor& x, int64_t axis, bool keepdims, bool last) {
  NodeDef def = Def(op, {&x}, {DataType::kInt64}, 13);
  def.attrs["axis"] = axis;
  def.attrs["keepdims"] = int64_t{keepdims};
  def.attrs["select_last_index"] = int64_t{last};
  return def;
}

TEST_F(CudaReduceTest, ArgMaxAndArgMinPickTheReferencesIndexAmongTiesAndNaN) {
  // Few distinct values: ties everywhere; NaN in some rows (at several places).
  std::vector<float> v(3 * 4 * 5);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i * 7 % 3);
  v[6] = v[13] = v[31] = v[33] = kNaN;
  const HostTensor x = kernels::testing::F32({3, 4, 5}, v);
  std::vector<int64_t> ints(3 * 4 * 5);
  for (size_t i = 0; i < ints.size(); ++i) ints[i] = static_cast<int64_t>(i * 5 % 4) - 1;
  const HostTensor x64 = Make(DataType::kInt64, {3, 4, 5}, ints);
  std::vector<int32_t> ints32(ints.begin(), ints.end());
  const HostTensor x32 = Make(DataType::kInt32, {3, 4, 5}, ints32);
  for (const char* op : {"ArgMax", "ArgMin"}) {
    for (const HostTensor* t : {&x, &x64, &x32}) {
      for (int64_t axis : {0, 1, 2, -1}) {
        for (bool keepdims : {false, true}) {
          for (bool last : {false, true}) {
            ExpectSameBytes(Run(ArgDef(op, *t, axis, keepdims, last), {*t}),
                            std::string(op) + " " + ir::Name(t->dtype) + " axis " +
                                std::to_string(axis) + " keepdims " + std::to_string(keepdims) +
                                " last " + std::to_string(last));
          }
        }
      }
    }
  }
  // Long rows (the block kernel): ties spread over every thread's share, then NaN in some.
  std::vector<float> long_rows(2 * 100000);
  for (size_t i = 0; i < long_rows.size(); ++i) long_rows[i] = static_cast<float>(i * 31 % 10);
  const HostTensor ties = kernels::testing::F32({2, 100000}, long_rows);
  long_rows[4242] = long_rows[99999] = long_rows[100000 + 5] = long_rows[100000 + 77777] = kNaN;
  const HostTensor nans = kernels::testing::F32({2, 100000}, long_rows);
  const HostTensor columns = Random({100000, 3}, -1, 1, 13);  // strided rows, few outputs
  for (const char* op : {"ArgMax", "ArgMin"}) {
    for (bool last : {false, true}) {
      const std::string what = std::string(op) + " last " + std::to_string(last);
      ExpectSameBytes(Run(ArgDef(op, ties, 1, false, last), {ties}), what + " long ties");
      ExpectSameBytes(Run(ArgDef(op, nans, 1, false, last), {nans}), what + " long NaN");
      ExpectSameBytes(Run(ArgDef(op, columns, 0, true, last), {columns}), what + " columns");
    }
  }
}

TEST_F(CudaReduceTest, TypesTheKernelsDoNotTakeAreDeclinedAtLoadNamingThem) {
  hal::testing::ApartDevice gpu(kCudaBackend);
  auto refused = [&](const std::string& op, DataType type, int opset) {
    HostTensor x(type, {2, 3});
    NodeDef def = Def(op, {&x}, {op.rfind("Arg", 0) == 0 ? DataType::kInt64 : type}, opset);
    def.device = &gpu;
    auto kernel = kernels::KernelRegistry::Global().Create(kCudaBackend, def);
    EXPECT_FALSE(kernel.ok()) << op << " " << ir::Name(type);
    if (kernel.ok()) return;
    EXPECT_EQ(kernel.status().code(), code::kFeatureUnsupported);
    EXPECT_NE(kernel.status().message().find(ir::Name(type)), std::string::npos)
        << kernel.status().message();
  };
  refused("ReduceL2", DataType::kInt64, 13);
  refused("ReduceLogSumExp", DataType::kInt32, 13);
  refused("ReduceSum", DataType::kFloat16, 13);
  refused("ReduceMean", DataType::kFloat64, 13);
  refused("ArgMax", DataType::kUint8, 13);
}

// The kernels' indexing on the host: for each output, the values MakeReduceShape's walks visit
// are the ones the reference reduces, in its order (so a double sum over them is the
// reference's ReduceSum to the bit), and every input value is visited once.
TEST(CudaReduceShapeTest, WalksVisitEachOutputsValuesInTheReferencesOrder) {
  struct Case {
    kernels::Dims dims;
    std::vector<int64_t> axes;
  };
  const Case cases[] = {
      {{2, 3, 4, 5}, {1}},
      {{2, 3, 4, 5}, {0, 2}},
      {{2, 3, 4, 5}, {3}},
      {{2, 3, 4, 5}, {1, 2}},
      {{2, 3, 4, 5}, {0, 1, 2, 3}},
      {{2, 1, 4, 1, 5}, {1, 2, 4}},
      {{3, 1, 1, 4}, {0, 3}},
      {{2, 3, 2, 3, 2, 3}, {0, 2, 4}},
      {{7}, {0}},
      {{1, 1, 1}, {1}},
      {kernels::Dims(16, 2), {0, 2, 4, 6, 8, 10, 12, 14}},
  };
  for (const Case& c : cases) {
    const std::string what = kernels::DimsString(c.dims) + " over " + kernels::DimsString(c.axes);
    const HostTensor x = Random(c.dims, -1, 1, 17);
    NodeDef def = Def("ReduceSum", {&x}, {DataType::kFloat32}, 11);
    def.attrs["axes"] = c.axes;
    auto reference = kernels::testing::RunReference(def, {&x});
    ASSERT_TRUE(reference.ok()) << reference.status().message();
    const std::vector<float> expected = Values<float>((*reference)[0]);

    std::vector<bool> reduced(c.dims.size(), false);
    for (int64_t a : c.axes) reduced[static_cast<size_t>(a)] = true;
    ReduceShape shape;
    int64_t outputs = 0, count = 0;
    ASSERT_TRUE(MakeReduceShape(c.dims, reduced, &shape, &outputs, &count)) << what;
    ASSERT_EQ(outputs, static_cast<int64_t>(expected.size())) << what;
    EXPECT_EQ(outputs * count, x.view().num_elements()) << what;
    const float* in = x.view().as<const float>();
    std::vector<int> visits(static_cast<size_t>(outputs * count), 0);
    for (int64_t o = 0; o < outputs; ++o) {
      const int64_t base = KeptOffset(shape, o);
      double stepped = 0, divided = 0;
      ForEachReducedValue(shape, base, count, [&](int64_t i) {
        stepped += in[i];
        ++visits[static_cast<size_t>(i)];
      });
      for (int64_t r = 0; r < count; ++r) divided += in[base + ReducedOffset(shape, r)];
      EXPECT_EQ(static_cast<float>(stepped), expected[static_cast<size_t>(o)]) << what << " " << o;
      EXPECT_EQ(static_cast<float>(divided), expected[static_cast<size_t>(o)]) << what << " " << o;
    }
    for (size_t i = 0; i < visits.size(); ++i) EXPECT_EQ(visits[i], 1) << what << " value " << i;
  }
  // Kept and reduced dims alternating 9 times each do not fit.
  kernels::Dims dims(18, 2);
  std::vector<bool> reduced(18);
  for (size_t d = 0; d < 18; ++d) reduced[d] = d % 2 == 1;
  ReduceShape shape;
  int64_t outputs = 0, count = 0;
  EXPECT_FALSE(MakeReduceShape(dims, reduced, &shape, &outputs, &count));
}

}  // namespace
}  // namespace kiln::cuda::testing
