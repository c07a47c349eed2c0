// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The cpu backend's int8 convolutions (oneDNN's u8/s8 x s8 convolution) and 8-bit max pool
// against the reference kernels: QLinearConv and Kiln's FusedQLinearConv (residual QLinearAdd,
// Relu, channels-last layout flags), per-tensor and per-channel weight scales, uint8 and int8
// activations, nonzero zero points. An output element may differ from the reference by one
// step, where float32 and double round a value that lies within float32's error of a tie.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "kernels/cost.h"
#include "tests/ops/cpu_vs_reference_util.h"

namespace kiln::cpu {
namespace {

using namespace vs_reference;  // NOLINT(build/namespaces): the test helpers
using kernels::DataType;
using kernels::HostTensor;

// Random 8-bit or int32 values in [lo, hi].
HostTensor Ints8(DataType t, Dims dims, uint32_t seed, int lo, int hi) {
  HostTensor h(t, std::move(dims));
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int> dist(lo, hi);
  const int64_t n = h.view().num_elements();
  for (int64_t i = 0; i < n; ++i) {
    const int v = dist(gen);
    if (t == DataType::kInt32) {
      const int32_t w = v;
      std::memcpy(h.bytes.data() + 4 * i, &w, 4);
    } else {
      h.bytes[static_cast<size_t>(i)] = static_cast<uint8_t>(v);  // int8 as its two's complement
    }
  }
  return h;
}

HostTensor Scalar8(DataType t, int v) {
  HostTensor h(t, {});
  h.bytes[0] = static_cast<uint8_t>(v);
  return h;
}

HostTensor Floats(Dims dims, const std::vector<float>& v) {
  HostTensor h(DataType::kFloat32, std::move(dims));
  std::memcpy(h.bytes.data(), v.data(), v.size() * sizeof(float));
  return h;
}

struct QConvCase {
  DataType x_type = DataType::kUint8, y_type = DataType::kUint8;
  Dims x = {1, 16, 9, 9};
  int64_t m = 24, k = 3, group = 1, stride = 1;
  bool per_channel = true, bias = true, residual = false, relu = false;
  bool nhwc = false;  // X, Y and Z stored channels-last
  int x_zp = 131, y_zp = 7;
};

int Lo(DataType t) { return t == DataType::kInt8 ? -128 : 0; }
int Hi(DataType t) { return t == DataType::kInt8 ? 127 : 255; }

// A QLinearConv (FusedQLinearConv when fused) of the case, with scales that spread Y over its
// 8-bit range.
Node QConvNode(const QConvCase& c, uint32_t seed) {
  const bool fused = c.residual || c.relu || c.nhwc;
  Node node = fused ? Node::Fused("FusedQLinearConv") : Node("QLinearConv", 10);
  const int64_t cg = c.x[1] / c.group;
  const Dims w = {c.m, cg, c.k, c.k};
  std::vector<float> ws(c.per_channel ? static_cast<size_t>(c.m) : 1);
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> spread(0.5f, 2.0f);
  for (float& s : ws) s = 0.004f * spread(gen);
  const Dims wq_dims = c.per_channel ? Dims{c.m} : Dims{};
  node.In(Ints8(c.x_type, c.x, seed, Lo(c.x_type), Hi(c.x_type)))
      .Const(Floats({}, {0.02f}))
      .Const(Scalar8(c.x_type, c.x_type == DataType::kInt8 ? -3 : c.x_zp))
      .Const(Ints8(DataType::kInt8, w, seed + 1, -127, 127))
      .Const(Floats(wq_dims, ws))
      .Const(Ints8(DataType::kInt8, wq_dims, 0, 0, 0))
      // Y's scale: about the spread of a sum of cg * k * k products of the inputs.
      .Const(Floats({}, {0.02f * 0.004f * 40.0f * static_cast<float>(cg * c.k * c.k) / 8.0f}))
      .Const(Scalar8(c.y_type, c.y_type == DataType::kInt8 ? 5 : c.y_zp));
  if (c.bias) {
    node.Const(Ints8(DataType::kInt32, {c.m}, seed + 2, -20000, 20000));
  } else if (c.residual) {
    node.None();
  }
  const int64_t pad = c.k / 2;
  const int64_t oh = (c.x[2] + 2 * pad - c.k) / c.stride + 1;
  const int64_t ow = (c.x[3] + 2 * pad - c.k) / c.stride + 1;
  if (c.residual) {
    node.In(Ints8(c.y_type, {c.x[0], c.m, oh, ow}, seed + 3, Lo(c.y_type), Hi(c.y_type)))
        .Const(Floats({}, {0.05f}))
        .Const(Scalar8(c.y_type, c.y_type == DataType::kInt8 ? -9 : 120))
        .Const(Floats({}, {0.08f}))
        .Const(Scalar8(c.y_type, c.relu ? Lo(c.y_type) + 2 : 100));
  }
  node.Ints("pads", {pad, pad, pad, pad})
      .Ints("strides", {c.stride, c.stride})
      .Int("group", c.group)
      .Outputs({c.y_type});
  if (fused) node.Str("activation", c.relu ? "Relu" : "");
  if (c.nhwc) {
    node.Int("kiln_x_nhwc", 1).Int("kiln_y_nhwc", 1);
    if (c.residual) node.Int("kiln_z_nhwc", 1);
  }
  return node;
}

int Value8(const HostTensor& t, size_t i) {
  return t.dtype == DataType::kInt8 ? static_cast<int8_t>(t.bytes[i]) : t.bytes[i];
}

// Runs the cpu kernel (on oneDNN unless `expect` says otherwise) and the reference kernel;
// every element within one step, at most 2 % of them off at all, and the output not constant
// (a case whose output saturates everywhere would test nothing).
void CheckQuantized(const Node& node, Expect expect = Expect::kOneDnn) {
  auto want = node.Run(Registry().Create(kernels::kReferenceBackend, node.def()));
  ASSERT_TRUE(want.ok()) << "reference: " << want.status().message();
  auto cpu = node.PrepareCpu();
  if (expect == Expect::kDeclined) {
    ASSERT_FALSE(cpu.ok()) << "the cpu kernel took a node it should decline";
    EXPECT_EQ(cpu.status().code(), code::kFeatureUnsupported) << cpu.status().message();
    return;
  }
  ASSERT_TRUE(cpu.ok()) << "cpu kernel declined: " << cpu.status().message();
  const int64_t before = ReferenceRunCount();
  auto got = node.Run(std::move(cpu));
  ASSERT_TRUE(got.ok()) << "cpu: " << got.status().message();
  EXPECT_EQ(ReferenceRunCount() - before, expect == Expect::kOneDnn ? 0 : 1);
  const HostTensor &g = (*got)[0], &w = (*want)[0];
  ASSERT_EQ(g.dims, w.dims);
  ASSERT_EQ(g.dtype, w.dtype);
  size_t off = 0, worst = 0;
  int worst_diff = 0, lo = 255, hi = -128;
  for (size_t i = 0; i < w.bytes.size(); ++i) {
    const int d = std::abs(Value8(g, i) - Value8(w, i));
    off += d != 0;
    if (d > worst_diff) worst_diff = d, worst = i;
    lo = std::min(lo, Value8(w, i));
    hi = std::max(hi, Value8(w, i));
  }
  EXPECT_LE(worst_diff, 1) << "at " << worst << ": cpu " << Value8(g, worst) << " vs reference "
                           << Value8(w, worst);
  EXPECT_LE(off, w.bytes.size() / 50) << off << " of " << w.bytes.size() << " elements off";
  EXPECT_GT(hi - lo, 20) << "the reference output hardly varies: the case tests little";
}

TEST(CpuQLinearConvTest, PerChannelUint8WithBiasAndZeroPoints) { CheckQuantized(QConvNode({}, 1)); }

TEST(CpuQLinearConvTest, PerTensorWithoutBiasStrided) {
  QConvCase c;
  c.per_channel = false;
  c.bias = false;
  c.stride = 2;
  CheckQuantized(QConvNode(c, 2));
}

TEST(CpuQLinearConvTest, Int8ActivationsAndOutput) {
  QConvCase c;
  c.x_type = DataType::kInt8;
  c.y_type = DataType::kInt8;
  CheckQuantized(QConvNode(c, 3));
}

TEST(CpuQLinearConvTest, DepthwiseAndOneByOne) {
  QConvCase dw;
  dw.group = 16;
  dw.m = 16;
  CheckQuantized(QConvNode(dw, 4));
  QConvCase pw;
  pw.k = 1;
  pw.x = {2, 32, 7, 7};
  CheckQuantized(QConvNode(pw, 5));
}

TEST(CpuFusedQLinearConvTest, ResidualAddAndRelu) {
  for (bool relu : {false, true}) {
    SCOPED_TRACE(relu);
    QConvCase c;
    c.residual = true;
    c.relu = relu;
    CheckQuantized(QConvNode(c, 6));
  }
}

TEST(CpuFusedQLinearConvTest, ReluWithoutResidual) {
  QConvCase c;
  c.relu = true;
  CheckQuantized(QConvNode(c, 7));
}

TEST(CpuFusedQLinearConvTest, Int8Residual) {
  QConvCase c;
  c.x_type = DataType::kInt8;
  c.y_type = DataType::kInt8;
  c.residual = true;
  c.relu = true;
  CheckQuantized(QConvNode(c, 8));
}

TEST(CpuFusedQLinearConvTest, ChannelsLastTensors) {
  // The reference reads and writes the flagged tensors NHWC too: both see the same bytes.
  for (bool residual : {false, true}) {
    SCOPED_TRACE(residual);
    QConvCase c;
    c.nhwc = true;
    c.residual = residual;
    CheckQuantized(QConvNode(c, 9));
  }
}

TEST(CpuQLinearConvTest, AsymmetricWeightsRunOnTheReferenceKernel) {
  QConvCase c;
  Node node = QConvNode(c, 10);
  // oneDNN's int8 convolution takes no weight zero points: the factory declines the node.
  Node asym("QLinearConv", 10);
  for (size_t i = 0; i < node.inputs().size(); ++i) {
    HostTensor t = *node.inputs()[i];
    if (i == 5) t = Ints8(DataType::kInt8, {c.m}, 11, -3, 3);
    if (node.def().constants[i] != nullptr) {
      asym.Const(std::move(t));
    } else {
      asym.In(std::move(t));
    }
  }
  asym.Ints("pads", {1, 1, 1, 1}).Outputs({DataType::kUint8});
  CheckQuantized(asym, Expect::kDeclined);
}

TEST(CpuMaxPoolTest, Uint8AndInt8) {
  for (DataType t : {DataType::kUint8, DataType::kInt8}) {
    Node node("MaxPool", 12);
    node.In(Ints8(t, {1, 16, 11, 11}, 12, Lo(t), Hi(t)))
        .Ints("kernel_shape", {3, 3})
        .Ints("strides", {2, 2})
        .Ints("pads", {1, 1, 1, 1})
        .Outputs({t});
    CheckQuantized(node);
  }
}

// QLinearMatMul(a [.., M, K], B [K, N] constant int8) with per-tensor or per-column b_scale.
Node QMatMulNode(DataType a_type, DataType y_type, Dims a, int64_t n, bool per_column,
                 uint32_t seed) {
  const int64_t k = a.back();
  std::vector<float> bs(per_column ? static_cast<size_t>(n) : 1);
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> spread(0.5f, 2.0f);
  for (float& s : bs) s = 0.004f * spread(gen);
  const Dims b_param = per_column ? Dims{n} : Dims{};
  Node node("QLinearMatMul", 10);
  node.In(Ints8(a_type, std::move(a), seed, Lo(a_type), Hi(a_type)))
      .Const(Floats({}, {0.02f}))
      .Const(Scalar8(a_type, a_type == DataType::kInt8 ? 3 : 119))
      .Const(Ints8(DataType::kInt8, {k, n}, seed + 1, -127, 127))
      .Const(Floats(b_param, bs))
      .Const(Ints8(DataType::kInt8, b_param, 0, 0, 0))
      .Const(Floats({}, {0.02f * 0.004f * 40.0f * static_cast<float>(k) / 8.0f}))
      .Const(Scalar8(y_type, y_type == DataType::kInt8 ? -6 : 130))
      .Outputs({y_type});
  return node;
}

TEST(CpuQLinearMatMulTest, PerColumnAndPerTensorUint8AndInt8) {
  CheckQuantized(QMatMulNode(DataType::kUint8, DataType::kUint8, {7, 96}, 40, true, 21));
  CheckQuantized(QMatMulNode(DataType::kUint8, DataType::kUint8, {2, 5, 64}, 33, false, 22));
  CheckQuantized(QMatMulNode(DataType::kInt8, DataType::kInt8, {3, 48}, 17, true, 23));
  CheckQuantized(QMatMulNode(DataType::kUint8, DataType::kInt8, {2, 3, 4, 40}, 19, true, 27));
}

TEST(CpuFusedQLinearMatMulTest, Int32BiasAddedBeforeTheRequantization) {
  for (bool per_column : {true, false}) {
    SCOPED_TRACE(per_column);
    Node plain = QMatMulNode(DataType::kUint8, DataType::kUint8, {3, 80}, 29, per_column, 25);
    Node node = Node::Fused("FusedQLinearMatMul");
    for (size_t i = 0; i < plain.inputs().size(); ++i) {
      if (plain.def().constants[i] != nullptr) {
        node.Const(*plain.inputs()[i]);
      } else {
        node.In(*plain.inputs()[i]);
      }
    }
    node.Const(Ints8(DataType::kInt32, {29}, 26, -30000, 30000))
        .Str("activation", "")
        .Outputs({DataType::kUint8});
    CheckQuantized(node);
  }
}

TEST(CpuQLinearMatMulTest, AsymmetricOrComputedWeightsRunOnTheReferenceKernel) {
  Node node = QMatMulNode(DataType::kUint8, DataType::kUint8, {4, 32}, 8, false, 24);
  Node asym("QLinearMatMul", 10);
  for (size_t i = 0; i < node.inputs().size(); ++i) {
    HostTensor t = *node.inputs()[i];
    if (i == 5) t = Scalar8(DataType::kInt8, 2);
    if (node.def().constants[i] != nullptr && i != 3) {
      asym.Const(std::move(t));
    } else {
      asym.In(std::move(t));  // B computed for the first case below
    }
  }
  asym.Outputs({DataType::kUint8});
  CheckQuantized(asym, Expect::kDeclined);
}

// Runs the cpu kernel (expected to take the node) and the reference kernel: every output equal
// byte for byte. `expect`: whether a oneDNN kernel's run went to oneDNN or to its reference
// kernel; nullopt for the own loops (which hand a run they do not take to the reference kernel
// without counting it).
void ExpectSameBytes(const Node& node, std::optional<Expect> expect = Expect::kOneDnn) {
  auto want = node.Run(Registry().Create(kernels::kReferenceBackend, node.def()));
  ASSERT_TRUE(want.ok()) << "reference: " << want.status().message();
  auto cpu = node.PrepareCpu();
  ASSERT_TRUE(cpu.ok()) << "cpu kernel declined: " << cpu.status().message();
  const int64_t before = ReferenceRunCount();
  auto got = node.Run(std::move(cpu));
  ASSERT_TRUE(got.ok()) << "cpu: " << got.status().message();
  if (expect) {
    EXPECT_EQ(ReferenceRunCount() - before, *expect == Expect::kOneDnn ? 0 : 1);
  }
  ASSERT_EQ(got->size(), want->size());
  for (size_t o = 0; o < got->size(); ++o) {
    EXPECT_EQ((*got)[o].dims, (*want)[o].dims) << "output " << o;
    EXPECT_EQ((*got)[o].bytes, (*want)[o].bytes) << "output " << o;
  }
}

// MatMulInteger(A uint8 [.., M, K], B int8 [K, N], a_zero_point (a computed input, as
// DynamicQuantizeLinear gives it), b_zero_point 0): exact int32 sums.
TEST(CpuMatMulIntegerTest, ComputedZeroPointConstantOrComputedB) {
  for (bool b_const : {true, false}) {
    SCOPED_TRACE(b_const);
    Node node("MatMulInteger", 10);
    node.In(Ints8(DataType::kUint8, {2, 9, 70}, 31, 0, 255));
    node.In(Ints8(DataType::kInt8, {70, 23}, 32, -127, 127), b_const);
    node.In(Scalar8(DataType::kUint8, 117));
    node.Const(Scalar8(DataType::kInt8, 0));
    node.Outputs({DataType::kInt32});
    ExpectSameBytes(node);
  }
  Node no_zero_point("MatMulInteger", 10);
  no_zero_point.In(Ints8(DataType::kInt8, {5, 33}, 33, -128, 127))
      .Const(Ints8(DataType::kInt8, {33, 12}, 34, -127, 127))
      .Outputs({DataType::kInt32});
  ExpectSameBytes(no_zero_point);
}

TEST(CpuMatMulIntegerTest, PerRowZeroPointRunsOnTheReferenceKernel) {
  Node node("MatMulInteger", 10);
  node.In(Ints8(DataType::kUint8, {6, 16}, 35, 0, 255))
      .Const(Ints8(DataType::kInt8, {16, 4}, 36, -127, 127))
      .In(Ints8(DataType::kUint8, {6}, 37, 0, 255))
      .Outputs({DataType::kInt32});
  ExpectSameBytes(node, Expect::kReference);
}

// ConvInteger(x uint8, w int8, x_zero_point computed, w_zero_point zeros): exact int32 sums,
// with the padding reading the zero point.
TEST(CpuConvIntegerTest, ComputedZeroPointPaddedAndGrouped) {
  for (int64_t group : {int64_t{1}, int64_t{4}}) {
    SCOPED_TRACE(group);
    Node node("ConvInteger", 10);
    node.In(Ints8(DataType::kUint8, {1, 8, 10, 9}, 41, 0, 255))
        .Const(Ints8(DataType::kInt8, {12, 8 / group, 3, 3}, 42, -127, 127))
        .In(Scalar8(DataType::kUint8, 121))
        .Const(Ints8(DataType::kInt8, {12}, 0, 0, 0))
        .Ints("pads", {1, 1, 1, 1})
        .Int("group", group)
        .Outputs({DataType::kInt32});
    ExpectSameBytes(node);
  }
  Node no_zero_point("ConvInteger", 10);
  no_zero_point.In(Ints8(DataType::kInt8, {2, 4, 6, 6}, 43, -128, 127))
      .Const(Ints8(DataType::kInt8, {5, 4, 1, 1}, 44, -127, 127))
      .Outputs({DataType::kInt32});
  ExpectSameBytes(no_zero_point);
}

TEST(CpuConvIntegerTest, AsymmetricWeightsAreLeftToTheReferenceKernel) {
  Node node("ConvInteger", 10);
  node.In(Ints8(DataType::kUint8, {1, 4, 5, 5}, 45, 0, 255))
      .Const(Ints8(DataType::kInt8, {3, 4, 3, 3}, 46, -127, 127))
      .In(Scalar8(DataType::kUint8, 100))
      .Const(Scalar8(DataType::kInt8, 3))
      .Outputs({DataType::kInt32});
  auto cpu = node.PrepareCpu();
  ASSERT_FALSE(cpu.ok());
  EXPECT_EQ(cpu.status().code(), code::kFeatureUnsupported);
}

TEST(CpuDynamicQuantizeLinearTest, EqualsTheReference) {
  // A range on both sides of zero with a NaN left out, one all positive (zero point 0), and one
  // all zero (a degenerate range: the reference's own formula).
  HostTensor mixed = Random({3, 1001}, 38, -2.5f, 7.0f);
  reinterpret_cast<float*>(mixed.bytes.data())[17] = std::nanf("");
  for (HostTensor* x : {&mixed}) {
    Node node("DynamicQuantizeLinear", 11);
    node.In(*x).Outputs({DataType::kUint8, DataType::kFloat32, DataType::kUint8});
    ExpectSameBytes(node, std::nullopt);
  }
  Node positive("DynamicQuantizeLinear", 11);
  positive.In(Random({40000}, 39, 0.5f, 3.0f))
      .Outputs({DataType::kUint8, DataType::kFloat32, DataType::kUint8});
  ExpectSameBytes(positive, std::nullopt);
  Node zeros("DynamicQuantizeLinear", 11);
  zeros.In(Floats({64}, std::vector<float>(64, 0.0f)))
      .Outputs({DataType::kUint8, DataType::kFloat32, DataType::kUint8});
  ExpectSameBytes(zeros, std::nullopt);
}

TEST(CpuCastTest, IntegersToFloatEqualTheReference) {
  for (DataType t : {DataType::kInt32, DataType::kUint8, DataType::kInt8}) {
    Node node("Cast", 19);
    node.In(Ints8(t, {3, 20011}, 40, t == DataType::kInt32 ? -20000000 : Lo(t),
                  t == DataType::kInt32 ? 20000000 : Hi(t)))
        .Int("to", 1)
        .Outputs({DataType::kFloat32});
    ExpectSameBytes(node, std::nullopt);
  }
}

TEST(QLinearConvCostTest, CountsTheProductsOfW) {
  // The profiler's FLOPs (kernels/cost.h): W is input 3 of a quantized convolution.
  QConvCase c;
  c.residual = true;
  const Node node = QConvNode(c, 1);
  const kernels::NodeCost cost = kernels::PrepareCost(node.def());
  std::vector<kernels::TensorView> views;
  for (const HostTensor* t : node.inputs()) views.push_back(t ? t->view() : kernels::TensorView());
  std::vector<const kernels::TensorView*> in;
  for (size_t i = 0; i < views.size(); ++i) in.push_back(node.inputs()[i] ? &views[i] : nullptr);
  HostTensor y(DataType::kUint8, {1, 24, 9, 9});
  const kernels::TensorView yv = y.view();
  auto flops = kernels::Flops(cost, in, {&yv});
  ASSERT_TRUE(flops.has_value());
  const uint64_t products = 2ull * 24 * 81 * (16 * 3 * 3);
  EXPECT_GE(*flops, products);
  EXPECT_LE(*flops, products + 10ull * 24 * 81);  // the requantizing epilogue
}

TEST(QLinearMatMulCostTest, CountsTheProducts) {
  const Node node = QMatMulNode(DataType::kUint8, DataType::kUint8, {2, 5, 64}, 33, false, 22);
  const kernels::NodeCost cost = kernels::PrepareCost(node.def());
  std::vector<kernels::TensorView> views;
  for (const HostTensor* t : node.inputs()) views.push_back(t->view());
  std::vector<const kernels::TensorView*> in;
  for (const auto& v : views) in.push_back(&v);
  HostTensor y(DataType::kUint8, {2, 5, 33});
  const kernels::TensorView yv = y.view();
  auto flops = kernels::Flops(cost, in, {&yv});
  ASSERT_TRUE(flops.has_value());
  EXPECT_EQ(*flops, 2ull * 2 * 5 * 33 * 64 + 2ull * 2 * 5 * 33);
}

// Values around every rounding tie of the scale, beyond both ends of the range, and NaN.
HostTensor TiesAndEdges(float scale, int64_t n) {
  std::vector<float> v;
  for (int64_t i = 0; static_cast<int64_t>(v.size()) < n; ++i) {
    const float k = static_cast<float>(i % 600) - 300.0f;
    v.push_back((k + 0.5f) * scale);
    v.push_back(k * scale * 1.37f);
  }
  v.resize(static_cast<size_t>(n));
  v[3] = std::nanf("");
  v[5] = 1e30f;
  v[7] = -1e30f;
  return Floats({n}, v);
}

TEST(CpuQuantizeLinearTest, PerTensorEqualsTheReference) {
  for (DataType t : {DataType::kUint8, DataType::kInt8}) {
    Node node("QuantizeLinear", 19);
    node.In(TiesAndEdges(0.25f, 100003))
        .Const(Floats({}, {0.25f}))
        .Const(Scalar8(t, t == DataType::kUint8 ? 128 : -4))
        .Outputs({t});
    auto want = node.Run(Registry().Create(kernels::kReferenceBackend, node.def()));
    auto got = node.Run(node.PrepareCpu());
    ASSERT_TRUE(want.ok() && got.ok());
    EXPECT_EQ((*got)[0].bytes, (*want)[0].bytes);
  }
}

TEST(CpuDequantizeLinearTest, PerTensorEqualsTheReference) {
  for (DataType t : {DataType::kUint8, DataType::kInt8}) {
    Node node("DequantizeLinear", 19);
    node.In(Ints8(t, {3, 40001}, 13, Lo(t), Hi(t)))
        .Const(Floats({}, {0.0137f}))
        .Const(Scalar8(t, t == DataType::kUint8 ? 131 : 9));
    auto want = node.Run(Registry().Create(kernels::kReferenceBackend, node.def()));
    auto got = node.Run(node.PrepareCpu());
    ASSERT_TRUE(want.ok() && got.ok());
    EXPECT_EQ((*got)[0].bytes, (*want)[0].bytes);
  }
}

TEST(CpuQuantizeLinearTest, PerAxisIsLeftToTheReferenceKernel) {
  Node node("QuantizeLinear", 19);
  node.In(Random({4, 8}, 14))
      .Const(Floats({8}, std::vector<float>(8, 0.1f)))
      .Const(Ints8(DataType::kUint8, {8}, 15, 0, 255))
      .Int("axis", 1)
      .Outputs({DataType::kUint8});
  auto cpu = node.PrepareCpu();
  ASSERT_FALSE(cpu.ok());
  EXPECT_EQ(cpu.status().code(), code::kFeatureUnsupported);
}

}  // namespace
}  // namespace kiln::cpu
