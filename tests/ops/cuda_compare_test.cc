// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The CUDA comparisons, logical ops, Where and Pad against the reference kernels, byte for byte
// (label gpu; without a GPU they still prepare the CUDA kernel for every case): each comparison
// of float32 (NaN, infinities, signed zeros), int64 and int32 (their extremes), Equal of bool,
// And/Or/Xor/Not, Where over three-way broadcasts of 1- to 8-byte elements, and Pad in every
// mode and form (negative pads, axes, the constant value as an input or attribute). The device's
// indexing (PadOffset, WhereOffsets) is also checked on the host, and the refusals at Prepare.
#include <stdlib.h>

#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "backends/cuda/kernels/compare_launch.h"
#include "backends/cuda/kernels/pad_launch.h"
#include "tests/ops/cuda_vs_reference.h"

namespace kiln::cuda::testing {
namespace {

using kernels::testing::Def;
using kernels::testing::F32;
using kernels::testing::I64;
using kernels::testing::Make;
using CudaCompareTest = CudaVsReference;

// Values of `type` drawn from a small set, so that equal pairs are common: for float32 NaN, the
// infinities and both zeros; for the integers their extremes.
HostTensor Drawn(DataType type, Dims dims, unsigned seed) {
  std::mt19937 gen(seed);
  const size_t n = static_cast<size_t>(kernels::NumElements(dims));
  auto pick = [&](const auto& set) {
    using T = std::decay_t<decltype(set[0])>;
    std::vector<T> v(n);
    for (T& x : v) x = set[gen() % set.size()];
    return v;
  };
  switch (type) {
    case DataType::kFloat32: {
      constexpr float kInf = std::numeric_limits<float>::infinity();
      const std::vector<float> set = {
          std::numeric_limits<float>::quiet_NaN(), -kInf, -1.5f, -0.0f, 0.0f, 1e-40f, 1.5f, kInf};
      return F32(std::move(dims), pick(set));
    }
    case DataType::kInt64: {
      const std::vector<int64_t> set = {std::numeric_limits<int64_t>::min(), -3, -1, 0, 1, 2,
                                        std::numeric_limits<int64_t>::max()};
      return I64(std::move(dims), pick(set));
    }
    case DataType::kInt32: {
      const std::vector<int32_t> set = {std::numeric_limits<int32_t>::min(), -3, -1, 0, 1, 2,
                                        std::numeric_limits<int32_t>::max()};
      return Make(DataType::kInt32, std::move(dims), pick(set));
    }
    default: {
      const std::vector<uint8_t> set = {0, 1};
      return Make(DataType::kBool, std::move(dims), pick(set));
    }
  }
}

// Random bytes as elements of `type` (Where and Pad copy them bit for bit).
HostTensor RandomBytes(DataType type, Dims dims, unsigned seed) {
  HostTensor t(type, std::move(dims));
  std::mt19937 gen(seed);
  for (uint8_t& b : t.bytes) b = static_cast<uint8_t>(gen());
  return t;
}

struct Shapes {
  Dims a, b;
};
// Same shapes, broadcasts both ways, a scalar, a 6-D broadcast and an empty output.
const Shapes kShapes[] = {
    {{2, 3, 4}, {2, 3, 4}},
    {{2, 3, 4}, {3, 1}},
    {{4}, {2, 1, 1}},
    {{2, 3, 4}, {}},
    {{1, 2, 1, 3, 1, 2}, {2, 1, 3, 2, 1}},
    {{0, 3}, {1, 3}},
};

std::string Label(const std::string& op, DataType t, const Shapes& s) {
  return op + " " + ir::Name(t) + " " + kernels::DimsString(s.a) + " vs " +
         kernels::DimsString(s.b);
}

TEST_F(CudaCompareTest, ComparisonsMatchTheReference) {
  unsigned seed = 1;
  for (const char* op : {"Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual"}) {
    for (DataType t : {DataType::kFloat32, DataType::kInt64, DataType::kInt32}) {
      for (const Shapes& s : kShapes) {
        HostTensor a = Drawn(t, s.a, seed++), b = Drawn(t, s.b, seed++);
        ExpectSameBytes(Run(Def(op, {&a, &b}, {DataType::kBool}, 13), {a, b}), Label(op, t, s));
      }
    }
  }
  for (const Shapes& s : kShapes) {
    HostTensor a = Drawn(DataType::kBool, s.a, seed++), b = Drawn(DataType::kBool, s.b, seed++);
    ExpectSameBytes(Run(Def("Equal", {&a, &b}, {DataType::kBool}, 13), {a, b}),
                    Label("Equal", DataType::kBool, s));
  }
}

TEST_F(CudaCompareTest, NaNComparesFalse) {
  constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
  HostTensor a = F32({4}, {kNaN, kNaN, 1.0f, -0.0f});
  HostTensor b = F32({4}, {kNaN, 1.0f, kNaN, 0.0f});
  for (const char* op : {"Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual"}) {
    Ran ran = Run(Def(op, {&a, &b}, {DataType::kBool}, 13), {a, b});
    ExpectSameBytes(ran, op);
    if (ran) {
      const std::vector<uint8_t> got = kernels::testing::Values<uint8_t>(ran->second);
      EXPECT_EQ(got[0] + got[1] + got[2], 0) << op;  // NaN against anything
    }
  }
}

TEST_F(CudaCompareTest, LogicalOpsMatchTheReference) {
  unsigned seed = 100;
  for (const char* op : {"And", "Or", "Xor"}) {
    for (const Shapes& s : kShapes) {
      HostTensor a = Drawn(DataType::kBool, s.a, seed++), b = Drawn(DataType::kBool, s.b, seed++);
      ExpectSameBytes(Run(Def(op, {&a, &b}, {DataType::kBool}, 13), {a, b}),
                      Label(op, DataType::kBool, s));
    }
  }
  for (const Dims& dims : {Dims{2, 3, 4}, Dims{}, Dims{0}}) {
    HostTensor x = Drawn(DataType::kBool, dims, seed++);
    ExpectSameBytes(Run(Def("Not", {&x}, {DataType::kBool}, 13), {x}),
                    "Not " + kernels::DimsString(dims));
  }
}

TEST_F(CudaCompareTest, WhereMatchesTheReference) {
  struct Case {
    Dims c, x, y;
  };
  const Case cases[] = {
      {{2, 3, 4}, {2, 3, 4}, {2, 3, 4}},  // no broadcast
      {{2, 1, 4}, {3, 1}, {4}},           // three ways
      {{}, {2, 3}, {1, 3}},               // a scalar condition
      {{3, 1}, {}, {1, 5}},               // a scalar X
      {{1, 2, 1, 2, 1, 2}, {2, 1, 2, 1, 2, 1}, {2, 2, 2, 2, 2, 2}},
      {{0, 2}, {1, 2}, {2}},  // empty
  };
  unsigned seed = 200;
  for (const Case& k : cases) {
    for (DataType t : {DataType::kFloat32, DataType::kInt64, DataType::kUint8, DataType::kFloat16,
                       DataType::kBool, DataType::kFloat64}) {
      HostTensor c = Drawn(DataType::kBool, k.c, seed++);
      HostTensor x = t == DataType::kBool ? Drawn(t, k.x, seed++) : RandomBytes(t, k.x, seed++);
      HostTensor y = t == DataType::kBool ? Drawn(t, k.y, seed++) : RandomBytes(t, k.y, seed++);
      ExpectSameBytes(Run(Def("Where", {&c, &x, &y}, {t}, 16), {c, x, y}),
                      "Where " + std::string(ir::Name(t)) + " " + kernels::DimsString(k.c) + " " +
                          kernels::DimsString(k.x) + " " + kernels::DimsString(k.y));
    }
  }
}

// Where's three-operand walk gives each operand the offset BroadcastOffsets gives it.
TEST(CudaCompareIndexingTest, WhereOffsetsMatchBroadcastOffsets) {
  const Dims c = {2, 1, 4}, x = {3, 1}, y = {1, 3, 4}, out = {2, 3, 4};
  WhereShape s;
  BroadcastShape ys;
  ASSERT_TRUE(MakeBroadcastShape(c.data(), 3, x.data(), 2, out.data(), 3, &s.cx));
  ASSERT_TRUE(MakeBroadcastShape(y.data(), 3, y.data(), 3, out.data(), 3, &ys));
  for (int d = 0; d < 3; ++d) s.y_strides[d] = ys.a_strides[d];
  for (int64_t i = 0; i < 24; ++i) {
    int64_t ci, xi, yi, want_c, want_x, want_y, unused;
    WhereOffsets(s, i, &ci, &xi, &yi);
    BroadcastOffsets(s.cx, i, &want_c, &want_x);
    BroadcastOffsets(ys, i, &want_y, &unused);
    EXPECT_EQ(ci, want_c) << i;
    EXPECT_EQ(xi, want_x) << i;
    EXPECT_EQ(yi, want_y) << i;
  }
}

// ---------------------------------------------------------------------------------------------
// Pad.

struct PadCase {
  const char* mode;
  Dims dims;
  std::vector<int64_t> pads;
  std::vector<int64_t> axes;  // empty: every axis (no axes input)
};

const PadCase kPads[] = {
    {"reflect", {10}, {3, 2}, {}},
    {"reflect", {4}, {7, 9}, {}},  // longer than the axis: periodically
    {"reflect", {1}, {2, 3}, {}},  // one element
    {"edge", {3, 5}, {1, 2, 2, 0}, {}},
    {"constant", {2, 3, 4}, {0, 1, -1, 1, 0, 2}, {}},  // a crop
    {"constant", {2, 3, 4}, {1, 0, 2, 0, 1, 1}, {}},
    {"reflect", {2, 3, 6}, {0, 0, -2, 0, 0, 3}, {}},  // cropped, then reflected
    {"edge", {2, 2, 3, 4}, {0, 1, 2, -1, 1, 0, 1, 2}, {}},
    {"reflect", {1, 2, 3, 4}, {0, 0, 2, 3, 0, 0, 1, 2}, {}},
    {"constant", {1, 2, 3, 4}, {1, 2, 3, 0}, {2, -1}},  // axes (opset 18)
    {"reflect", {1, 1, 8}, {4, 4}, {-1}},               // Silero VAD's audio padding
    {"edge", {2, 3, 4}, {2, -1, 0, 3}, {2, 0}},
    {"wrap", {3, 4}, {2, 5, 1, 3}, {}},  // opset 19
    {"wrap", {3, 4}, {-1, 2, 0, -2}, {}},
    {"constant", {0, 3}, {1, 1, 0, 0}, {}},   // from an empty input
    {"constant", {2, 3}, {-2, 0, 0, 0}, {}},  // to an empty output
    {"constant", {}, {}, {}},                 // a scalar
};

int OpsetOf(const PadCase& c) {
  if (std::string(c.mode) == "wrap") return 19;
  return c.axes.empty() ? 13 : 18;
}

std::string Label(const PadCase& c) {
  return std::string("Pad ") + c.mode + " " + kernels::DimsString(c.dims) + " pads " +
         kernels::DimsString(c.pads) +
         (c.axes.empty() ? "" : " axes " + kernels::DimsString(c.axes));
}

// The input-form Pad node of `c` over x, with the constant value `value` (null: omitted), its
// steering inputs constant when `constant_steering`. Inputs go to `ins` (null: omitted).
NodeDef PadNode(const PadCase& c, const HostTensor& x, const HostTensor* value,
                std::vector<HostTensor>& held, std::vector<const HostTensor*>& ins,
                std::vector<TensorView>& views, bool constant_steering) {
  held.clear();
  held.reserve(3);
  held.push_back(I64({static_cast<int64_t>(c.pads.size())}, c.pads));
  ins = {&x, &held[0], value};
  if (!c.axes.empty()) {
    held.push_back(I64({static_cast<int64_t>(c.axes.size())}, c.axes));
    ins.push_back(&held[1]);
  }
  while (ins.back() == nullptr) ins.pop_back();
  NodeDef def = Def("Pad", ins, {x.dtype}, OpsetOf(c));
  def.attrs["mode"] = std::string(c.mode);
  views.assign(ins.size(), TensorView{});
  if (constant_steering) {
    for (size_t i = 1; i < ins.size(); ++i) {
      if (ins[i] == nullptr) continue;
      views[i] = ins[i]->view();
      def.constants[i] = &views[i];
    }
  }
  return def;
}

TEST_F(CudaCompareTest, PadMatchesTheReference) {
  unsigned seed = 300;
  std::vector<HostTensor> held;
  std::vector<const HostTensor*> ins;
  std::vector<TensorView> views;
  for (const PadCase& c : kPads) {
    HostTensor x = Random(c.dims, -1, 1, seed++);
    HostTensor value = F32({}, {2.5f});
    const bool constant = std::string(c.mode) == "constant";
    NodeDef def = PadNode(c, x, constant && seed % 2 == 0 ? &value : nullptr, held, ins, views,
                          /*constant_steering=*/true);
    auto all = RunAll(def, ins);
    ExpectSameBytes(all ? Ran((*all)[0]) : Ran(), Label(c));
  }
  // Other element sizes, the constant value of their type.
  for (DataType t : {DataType::kInt64, DataType::kUint8, DataType::kFloat16, DataType::kInt32}) {
    for (const PadCase& c : {kPads[4], kPads[7], kPads[11]}) {
      HostTensor x = RandomBytes(t, c.dims, seed++);
      HostTensor value = RandomBytes(t, {}, seed++);
      NodeDef def = PadNode(c, x, &value, held, ins, views, true);
      auto all = RunAll(def, ins);
      ExpectSameBytes(all ? Ran((*all)[0]) : Ran(), Label(c) + " " + ir::Name(t));
    }
  }
}

TEST_F(CudaCompareTest, PadWithComputedPadsMatchesTheReference) {
  // Pads computed by the graph: read from the device for the run, so not Replayable.
  HostTensor x = Random({2, 5}, -1, 1, 400);
  std::vector<HostTensor> held;
  std::vector<const HostTensor*> ins;
  std::vector<TensorView> views;
  const PadCase c = {"reflect", {2, 5}, {1, 2, 1, 3}, {}};
  NodeDef def = PadNode(c, x, nullptr, held, ins, views, /*constant_steering=*/false);
  auto all = RunAll(def, ins);
  ExpectSameBytes(all ? Ran((*all)[0]) : Ran(), Label(c) + " computed");

  hal::testing::ApartDevice gpu(kCudaBackend);
  def.device = &gpu;
  auto computed = kernels::KernelRegistry::Global().Create(kCudaBackend, def);
  ASSERT_TRUE(computed.ok()) << computed.status().message();
  EXPECT_FALSE((*computed)->Replayable());
  NodeDef constant = PadNode(c, x, nullptr, held, ins, views, /*constant_steering=*/true);
  constant.device = &gpu;
  auto fixed = kernels::KernelRegistry::Global().Create(kCudaBackend, constant);
  ASSERT_TRUE(fixed.ok()) << fixed.status().message();
  EXPECT_TRUE((*fixed)->Replayable());
}

TEST_F(CudaCompareTest, PadAttributeFormMatchesTheReference) {
  HostTensor x = Random({2, 3, 4}, -1, 1, 500);
  for (const char* mode : {"constant", "reflect", "edge"}) {
    NodeDef def = Def("Pad", {&x}, {DataType::kFloat32}, 2);
    def.attrs["mode"] = std::string(mode);
    def.attrs["pads"] = std::vector<int64_t>{0, 1, 2, 1, 0, 1};
    def.attrs["value"] = 1.5f;
    ExpectSameBytes(Run(def, {x}), std::string("Pad opset 2 ") + mode);
  }
  HostTensor ints = RandomBytes(DataType::kInt32, {3, 4}, 501);
  NodeDef def = Def("Pad", {&ints}, {DataType::kInt32}, 2);
  def.attrs["pads"] = std::vector<int64_t>{1, -1, 0, 2};
  def.attrs["value"] = -7.0f;  // converted to the element type
  ExpectSameBytes(Run(def, {ints}), "Pad opset 2 int32");
}

// Each output element reads, through PadOffset, the element the reference kernel put there:
// the device's indexing, checked here without a GPU. Inputs hold their own indices (1-based,
// so the constant value 0 stands apart).
TEST(CudaCompareIndexingTest, PadOffsetMatchesTheReference) {
  std::vector<HostTensor> held;
  std::vector<const HostTensor*> ins;
  std::vector<TensorView> views;
  for (const PadCase& c : kPads) {
    std::vector<float> iota(static_cast<size_t>(kernels::NumElements(c.dims)));
    for (size_t i = 0; i < iota.size(); ++i) iota[i] = static_cast<float>(i + 1);
    HostTensor x = F32(c.dims, iota);
    NodeDef def = PadNode(c, x, nullptr, held, ins, views, true);
    auto ref = kernels::testing::RunReference(def, ins);
    ASSERT_TRUE(ref.ok()) << Label(c) << ": " << ref.status().message();
    const HostTensor& out = (*ref)[0];

    const size_t rank = c.dims.size();
    std::vector<int64_t> axes = c.axes;
    if (axes.empty()) {
      for (size_t a = 0; a < rank; ++a) axes.push_back(static_cast<int64_t>(a));
    }
    Dims begin(rank, 0), end(rank, 0);
    for (size_t k = 0; k < axes.size(); ++k) {
      const size_t a =
          static_cast<size_t>(axes[k] < 0 ? axes[k] + static_cast<int64_t>(rank) : axes[k]);
      begin[a] = c.pads[k];
      end[a] = c.pads[k + axes.size()];
    }
    PadMode mode = std::string(c.mode) == "reflect" ? PadMode::kReflect
                   : std::string(c.mode) == "edge"  ? PadMode::kEdge
                   : std::string(c.mode) == "wrap"  ? PadMode::kWrap
                                                    : PadMode::kConstant;
    PadShape shape;
    ASSERT_TRUE(MakePadShape(mode, c.dims.data(), out.dims.data(), static_cast<int>(rank),
                             begin.data(), end.data(), &shape));
    const std::vector<float> want = kernels::testing::Values<float>(out);
    for (size_t i = 0; i < want.size(); ++i) {
      const int64_t from = PadOffset(shape, static_cast<int64_t>(i));
      EXPECT_EQ(from < 0 ? 0.0f : iota[static_cast<size_t>(from)], want[i])
          << Label(c) << " [" << i << "]";
    }
  }
}

// Without a GPU the CUDA kernels' host side still runs up to the launch, which fails for want
// of a device: this checks what it computes before (Pad's plan against ResolvePad's map, which
// would fail kInternalError; the broadcast checks) on host tensors. With a GPU the comparisons
// above run the kernels instead (a launch on host memory would fault there).
class CudaHostSideTest : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("KILN_ENABLE_CUDA", "1", 1);
    if (CreateCudaDriver()->DeviceCount() > 0) GTEST_SKIP() << "a GPU runs the kernels instead";
    static bool registered = (RegisterCudaKernels(kernels::KernelRegistry::Global()), true);
    (void)registered;
  }
  // Runs `def`'s CUDA kernel over host tensors: it reaches its launch (or, for an empty output,
  // returns without one).
  void ExpectReachesLaunch(NodeDef def, const std::vector<const HostTensor*>& ins,
                           const std::string& what) {
    hal::testing::ApartDevice gpu(kCudaBackend);
    def.device = &gpu;
    auto kernel = kernels::KernelRegistry::Global().Create(kCudaBackend, def);
    ASSERT_TRUE(kernel.ok()) << what << ": " << kernel.status().message();
    kernels::testing::TestContext ctx(ins, def.output_types, &def);
    ASSERT_TRUE(ctx.bind_status().ok()) << what << ": " << ctx.bind_status().message();
    const Status ran = (*kernel)->Run(ctx);
    if (ctx.output(0)->num_elements() == 0) {
      EXPECT_TRUE(ran.ok()) << what << ": " << ran.message();
      return;
    }
    ASSERT_FALSE(ran.ok()) << what;
    EXPECT_NE(ran.code(), code::kInternalError) << what << ": " << ran.message();
    EXPECT_NE(ran.message().find("launching"), std::string::npos) << what << ": " << ran.message();
  }
};

TEST_F(CudaHostSideTest, PadPlansAgreeWithTheReference) {
  std::vector<HostTensor> held;
  std::vector<const HostTensor*> ins;
  std::vector<TensorView> views;
  unsigned seed = 600;
  for (const PadCase& c : kPads) {
    HostTensor x = Random(c.dims, -1, 1, seed++);
    HostTensor value = F32({}, {2.5f});
    for (bool constant : {true, false}) {
      NodeDef def = PadNode(c, x, std::string(c.mode) == "constant" ? &value : nullptr, held, ins,
                            views, constant);
      ExpectReachesLaunch(def, ins, Label(c) + (constant ? "" : " computed"));
    }
  }
  HostTensor x = Random({2, 3, 4}, -1, 1, seed);
  NodeDef attrs = Def("Pad", {&x}, {DataType::kFloat32}, 2);
  attrs.attrs["mode"] = std::string("reflect");
  attrs.attrs["pads"] = std::vector<int64_t>{0, 1, 2, 1, 0, 1};
  ExpectReachesLaunch(attrs, {&x}, "Pad opset 2");
}

TEST_F(CudaHostSideTest, BroadcastsReachTheLaunch) {
  unsigned seed = 700;
  for (const Shapes& s : kShapes) {
    HostTensor a = Drawn(DataType::kInt64, s.a, seed++), b = Drawn(DataType::kInt64, s.b, seed++);
    ExpectReachesLaunch(Def("Less", {&a, &b}, {DataType::kBool}, 13), {&a, &b},
                        Label("Less", DataType::kInt64, s));
    HostTensor c = Drawn(DataType::kBool, s.a, seed++);
    ExpectReachesLaunch(Def("Where", {&c, &a, &b}, {DataType::kInt64}, 16), {&c, &a, &b},
                        "Where " + kernels::DimsString(s.a) + " " + kernels::DimsString(s.b));
  }
}

// What the kernels do not take is refused at Prepare, naming it.
TEST(CudaCompareRefusalTest, TypesTheKernelsDoNotTakeAreDeclined) {
  kernels::KernelRegistry& registry = kernels::KernelRegistry::Global();
  static bool once = (RegisterCudaKernels(registry), true);
  (void)once;
  hal::testing::ApartDevice gpu(kCudaBackend);
  auto refused = [&](NodeDef def, const std::string& words) {
    def.device = &gpu;
    auto k = registry.Create(kCudaBackend, def);
    ASSERT_FALSE(k.ok()) << def.op_type;
    EXPECT_EQ(k.status().code(), code::kFeatureUnsupported) << k.status().message();
    EXPECT_NE(k.status().message().find(words), std::string::npos) << k.status().message();
  };
  HostTensor halves = Make<uint16_t>(DataType::kFloat16, {2}, {1, 2});
  refused(Def("Equal", {&halves, &halves}, {DataType::kBool}, 13), "float16");
  HostTensor bytes = Make<uint8_t>(DataType::kUint8, {2}, {1, 2});
  refused(Def("Less", {&bytes, &bytes}, {DataType::kBool}, 13), "uint8");
  HostTensor deep(DataType::kFloat32, {1, 1, 1, 1, 1, 1, 1, 1, 2});
  HostTensor pads = I64({18}, std::vector<int64_t>(18, 1));
  NodeDef pad = Def("Pad", {&deep, &pads}, {DataType::kFloat32}, 13);
  refused(pad, "at most 8 dims");
  HostTensor flags = Make<uint8_t>(DataType::kBool, {2}, {1, 0});
  refused(Def("Where", {&flags, &deep, &deep}, {DataType::kFloat32}, 16), "up to 8 dims");
}

}  // namespace
}  // namespace kiln::cuda::testing
