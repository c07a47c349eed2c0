// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Reference kernels of the signal family and the checks of their definitions. Expected values
// are worked by hand (small DFTs, window values from the closed formulas), follow from closed
// forms (the DFT of a cosine or of a complex exponential), or are ONNX's own (the
// MelWeightMatrix case of the ONNX backend tests, and a second case from onnx.reference).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <numbers>
#include <string>
#include <vector>

#include "kernel_test_util.h"

namespace kiln::kernels {
namespace {

using testing::Def;
using testing::F32;
using testing::I64;
using testing::Make;
using testing::RunReference;
using testing::Values;

constexpr DataType kF32 = DataType::kFloat32;
constexpr double kPi = std::numbers::pi;

void ExpectNear(const std::vector<float>& got, const std::vector<float>& want, float tol = 1e-5f) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << "at " << i;
}

HostTensor ScalarI64(int64_t v) { return I64({}, {v}); }
HostTensor ScalarI32(int32_t v) { return Make(DataType::kInt32, {}, std::vector<int32_t>{v}); }

// A node whose inputs `constant` are constants, as the compiler leaves a dft_length or a size:
// its definition sees their values when the kernel is prepared, so a bad value fails there.
struct ConstantNode {
  NodeDef def;
  std::vector<TensorView> views;

  ConstantNode(NodeDef d, const std::vector<const HostTensor*>& inputs,
               const std::vector<size_t>& constant)
      : def(std::move(d)), views(inputs.size()) {
    for (size_t i : constant) {
      views[i] = inputs[i]->view();
      def.constants[i] = &views[i];
    }
  }
};

NodeDef DftDef(const std::vector<const HostTensor*>& inputs, int64_t inverse, int64_t onesided,
               int opset = 20) {
  NodeDef def = Def("DFT", inputs, {inputs[0]->dtype}, opset);
  def.attrs["inverse"] = inverse;
  def.attrs["onesided"] = onesided;
  return def;
}

// ---------------------------------------------------------------------------------------------
// DFT.

TEST(SignalKernelTest, DftOfRealSignalIsFullComplexSpectrum) {
  // X[k] = sum x[n] (-i)^(nk) for x = 1, 2, 3, 4: 10, -2+2i, -2, -2-2i.
  HostTensor x = F32({1, 4, 1}, {1, 2, 3, 4});
  auto out = RunReference(DftDef({&x}, 0, 0), {&x});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ((*out)[0].dims, (Dims{1, 4, 2}));
  ExpectNear(Values<float>((*out)[0]), {10, 0, -2, 2, -2, 0, -2, -2});
}

TEST(SignalKernelTest, InverseDftOfSpectrumGivesBackSignal) {
  HostTensor x = F32({1, 4, 2}, {10, 0, -2, 2, -2, 0, -2, -2});
  auto out = RunReference(DftDef({&x}, 1, 0), {&x});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ((*out)[0].dims, (Dims{1, 4, 2}));
  ExpectNear(Values<float>((*out)[0]), {1, 0, 2, 0, 3, 0, 4, 0});
}

TEST(SignalKernelTest, OnesidedDftKeepsHalfTheBins) {
  HostTensor x = F32({1, 4, 1}, {1, 2, 3, 4});
  auto out = RunReference(DftDef({&x}, 0, 1), {&x});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ((*out)[0].dims, (Dims{1, 3, 2}));
  ExpectNear(Values<float>((*out)[0]), {10, 0, -2, 2, -2, 0});
}

TEST(SignalKernelTest, IrfftRebuildsRealSignalAndIgnoresImaginaryDcAndNyquist) {
  // Bins 10, -2+2i, -2 of 1, 2, 3, 4; the imaginary parts 5 and 7 on bins 0 and 2 cannot come
  // from a real signal and are dropped (numpy's irfft).
  HostTensor x = F32({1, 3, 2}, {10, 5, -2, 2, -2, 7});
  auto out = RunReference(DftDef({&x}, 1, 1), {&x});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ((*out)[0].dims, (Dims{1, 4, 1}));  // default length 2 * (3 - 1)
  ExpectNear(Values<float>((*out)[0]), {1, 2, 3, 4});

  // An odd dft_length uses bins 0 .. 2: irfft([3, -1.5+0.866i], 3) = 0, 1, 2.
  const float s = static_cast<float>(std::sqrt(3.0) / 2);
  HostTensor y = F32({1, 2, 2}, {3, 0, -1.5f, s});
  HostTensor len = ScalarI64(3);
  auto odd = RunReference(DftDef({&y, &len}, 1, 1), {&y, &len});
  ASSERT_TRUE(odd.ok()) << odd.status().message();
  EXPECT_EQ((*odd)[0].dims, (Dims{1, 3, 1}));
  ExpectNear(Values<float>((*odd)[0]), {0, 1, 2});
}

TEST(SignalKernelTest, DftLengthZeroPadsOrCropsTheSignal) {
  // 1, 2, 3 padded to 4: 6, -2-2i, 2, -2+2i.
  HostTensor x = F32({1, 3, 1}, {1, 2, 3});
  HostTensor four = ScalarI64(4);
  auto padded = RunReference(DftDef({&x, &four}, 0, 0), {&x, &four});
  ASSERT_TRUE(padded.ok()) << padded.status().message();
  EXPECT_EQ((*padded)[0].dims, (Dims{1, 4, 2}));
  ExpectNear(Values<float>((*padded)[0]), {6, 0, -2, -2, 2, 0, -2, 2});

  // 1, 2, 3 cropped to 2: 3, -1. dft_length may be int32.
  HostTensor two = ScalarI32(2);
  auto cropped = RunReference(DftDef({&x, &two}, 0, 0), {&x, &two});
  ASSERT_TRUE(cropped.ok()) << cropped.status().message();
  EXPECT_EQ((*cropped)[0].dims, (Dims{1, 2, 2}));
  ExpectNear(Values<float>((*cropped)[0]), {3, 0, -1, 0});
}

TEST(SignalKernelTest, DftLengthUnknownAtLoadLeavesOnlyTheAxisOpen) {
  // dft_length computed by the graph: its value comes at run time, so the definition fixes every
  // dim but the DFT axis at load (the signal's own length would be wrong for it).
  HostTensor x = F32({2, 3, 4, 1}, std::vector<float>(24));
  HostTensor len = ScalarI64(5);
  for (int opset : {17, 20}) {
    NodeDef def = DftDef({&x, &len}, 0, 0, opset);
    if (opset == 17) def.attrs["axis"] = int64_t{2};
    ASSERT_TRUE(ApplyDefinition(def).ok()) << opset;
    EXPECT_EQ(def.output_dims[0], (Dims{2, 3, -1, 2})) << opset;
  }
  // Its value known (a constant), the axis is 5 long.
  ConstantNode known(DftDef({&x, &len}, 0, 0), {&x, &len}, {1});
  ASSERT_TRUE(ApplyDefinition(known.def).ok());
  EXPECT_EQ(known.def.output_dims[0], (Dims{2, 3, 5, 2}));
}

TEST(SignalKernelTest, DftRunsAlongTheAxisAttributeBeforeOpset20) {
  // [1, 2, 3, 1]: a 2-point DFT down each of 3 columns of [[1, 2, 3], [4, 5, 6]].
  HostTensor x = F32({1, 2, 3, 1}, {1, 2, 3, 4, 5, 6});
  NodeDef def = DftDef({&x}, 0, 0, 17);
  auto out = RunReference(def, {&x});  // axis defaults to 1 at opset 17
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ((*out)[0].dims, (Dims{1, 2, 3, 2}));
  ExpectNear(Values<float>((*out)[0]), {5, 0, 7, 0, 9, 0, -3, 0, -3, 0, -3, 0});

  def.attrs["axis"] = int64_t{-2};  // along the rows: 6 and -2+1.732i, -2-1.732i ...
  out = RunReference(def, {&x});
  ASSERT_TRUE(out.ok()) << out.status().message();
  const float s = static_cast<float>(std::sqrt(3.0));
  ExpectNear(Values<float>((*out)[0]),
             {6, 0, -1.5f, s / 2, -1.5f, -s / 2, 15, 0, -1.5f, s / 2, -1.5f, -s / 2});
}

TEST(SignalKernelTest, DftTakesTheAxisAsAnInputFromOpset20) {
  HostTensor x = F32({2, 3, 1}, {1, 2, 3, 4, 5, 6});
  HostTensor axis = ScalarI64(0);
  NodeDef def = Def("DFT", {&x, nullptr, &axis}, {kF32}, 20);
  auto out = RunReference(def, {&x, nullptr, &axis});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ((*out)[0].dims, (Dims{2, 3, 2}));
  ExpectNear(Values<float>((*out)[0]), {5, 0, 7, 0, 9, 0, -3, 0, -3, 0, -3, 0});
}

TEST(SignalKernelTest, DftOfCosineAndExponentialMatchClosedForms) {
  // A power of two (the radix-2 path) and a length that is not (the direct sums): cos(2 pi 3 n /
  // 64) has 32 at bins 3 and 61; exp(2 pi i 5 n / 48) has 48 at bin 5; every other bin is 0.
  for (int64_t n : {64, 48}) {
    const bool real = n == 64;
    std::vector<float> v;
    for (int64_t j = 0; j < n; ++j) {
      const double angle = 2 * kPi * static_cast<double>((real ? 3 : 5) * j) / n;
      v.push_back(static_cast<float>(std::cos(angle)));
      if (!real) v.push_back(static_cast<float>(std::sin(angle)));
    }
    HostTensor x = F32({1, n, real ? 1 : 2}, v);
    auto out = RunReference(DftDef({&x}, 0, 0), {&x});
    ASSERT_TRUE(out.ok()) << out.status().message();
    std::vector<float> want(static_cast<size_t>(2 * n), 0.0f);
    if (real) {
      want[2 * 3] = want[2 * 61] = 32;
    } else {
      want[2 * 5] = 48;
    }
    ExpectNear(Values<float>((*out)[0]), want, 1e-4f);
  }
}

TEST(SignalKernelTest, DftComputesInEveryFloatType) {
  HostTensor x64 = Make(DataType::kFloat64, {1, 4, 1}, std::vector<double>{1, 2, 3, 4});
  auto out = RunReference(DftDef({&x64}, 0, 0), {&x64});
  ASSERT_TRUE(out.ok()) << out.status().message();
  const std::vector<double> want = {10, 0, -2, 2, -2, 0, -2, -2};
  std::vector<double> got = Values<double>((*out)[0]);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-12) << "at " << i;

  // float16 1, 2, 3, 4 are 0x3c00, 0x4000, 0x4200, 0x4400; bfloat16 0x3f80, 0x4000, 0x4040,
  // 0x4080. Their one-sided DFT: 10, -2+2i, -2.
  HostTensor x16 =
      Make(DataType::kFloat16, {1, 4, 1}, std::vector<uint16_t>{0x3c00, 0x4000, 0x4200, 0x4400});
  out = RunReference(DftDef({&x16}, 0, 1), {&x16});
  ASSERT_TRUE(out.ok()) << out.status().message();
  std::vector<float> half;
  for (uint16_t h : Values<uint16_t>((*out)[0])) half.push_back(HalfToFloat(h));
  EXPECT_EQ(half, (std::vector<float>{10, 0, -2, 2, -2, 0}));

  HostTensor xb =
      Make(DataType::kBFloat16, {1, 4, 1}, std::vector<uint16_t>{0x3f80, 0x4000, 0x4040, 0x4080});
  out = RunReference(DftDef({&xb}, 0, 1), {&xb});
  ASSERT_TRUE(out.ok()) << out.status().message();
  std::vector<float> bf;
  for (uint16_t b : Values<uint16_t>((*out)[0])) bf.push_back(BFloat16ToFloat(b));
  EXPECT_EQ(bf, (std::vector<float>{10, 0, -2, 2, -2, 0}));
}

TEST(SignalKernelTest, DftDefinitionRejectsNodesThatBreakTheSpec) {
  HostTensor real = F32({1, 4, 1}, std::vector<float>(4));
  HostTensor complex = F32({1, 4, 2}, std::vector<float>(8));
  HostTensor three = F32({1, 4, 3}, std::vector<float>(12));
  HostTensor vec = F32({4}, std::vector<float>(4));
  HostTensor zero = ScalarI64(0);
  HostTensor last = ScalarI64(-1);
  HostTensor len_1d = I64({1}, {4});
  struct Case {
    const char* what;
    NodeDef def;
  };
  ConstantNode zero_len(DftDef({&real, &zero}, 0, 0), {&real, &zero}, {1});
  ConstantNode last_axis(Def("DFT", {&real, nullptr, &last}, {kF32}, 20), {&real, nullptr, &last},
                         {2});
  NodeDef axis_attr = DftDef({&real}, 0, 0, 20);
  axis_attr.attrs["axis"] = int64_t{1};
  NodeDef bad_inverse = DftDef({&real}, 2, 0);
  const Case cases[] = {
      {"rfft of a complex input", DftDef({&complex}, 0, 1)},
      {"irfft of a real input", DftDef({&real}, 1, 1)},
      {"a last dim of 3", DftDef({&three}, 0, 0)},
      {"rank 1", DftDef({&vec}, 0, 0)},
      {"dft_length 0", zero_len.def},
      {"axis -1 (the complex dim)", last_axis.def},
      {"the axis attribute at opset 20", axis_attr},
      {"inverse = 2", bad_inverse},
      {"a dft_length of shape [1]", DftDef({&real, &len_1d}, 0, 0)},
  };
  for (const Case& c : cases) {
    auto k = KernelRegistry::Global().Create(kReferenceBackend, c.def);
    ASSERT_FALSE(k.ok()) << c.what;
    EXPECT_EQ(k.status().code(), code::kInvalidParam) << c.what << ": " << k.status().message();
  }
}

// ---------------------------------------------------------------------------------------------
// STFT.

NodeDef StftDef(const std::vector<const HostTensor*>& inputs, int64_t onesided) {
  NodeDef def = Def("STFT", inputs, {inputs[0]->dtype}, 17);
  def.attrs["onesided"] = onesided;
  return def;
}

TEST(SignalKernelTest, StftTransformsEachFrame) {
  // Frames [2f, 2f+1, 2f+2, 2f+3] of 0 .. 7 (step 2, length 4): a + b + c + d = 8f + 6,
  // (a - c) + i (d - b) = -2 + 2i, a - b + c - d = -2.
  std::vector<float> v(8);
  for (int i = 0; i < 8; ++i) v[i] = static_cast<float>(i);
  HostTensor x = F32({1, 8, 1}, v);
  HostTensor step = ScalarI64(2), length = ScalarI64(4);
  auto out = RunReference(StftDef({&x, &step, nullptr, &length}, 1), {&x, &step, nullptr, &length});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ((*out)[0].dims, (Dims{1, 3, 3, 2}));
  ExpectNear(Values<float>((*out)[0]),
             {6, 0, -2, 2, -2, 0, 14, 0, -2, 2, -2, 0, 22, 0, -2, 2, -2, 0});
}

TEST(SignalKernelTest, StftWeightsFramesByTheWindow) {
  // Window 0, 1, 1, 0 leaves [0, b, c, 0]: b + c, -c - ib, c - b; the window's length is the
  // frame length. Two-sided output, 4 bins.
  std::vector<float> v(6);
  for (int i = 0; i < 6; ++i) v[i] = static_cast<float>(i + 1);
  HostTensor x = F32({1, 6, 1}, v);
  HostTensor step = ScalarI32(2);
  HostTensor window = F32({4}, {0, 1, 1, 0});
  auto out = RunReference(StftDef({&x, &step, &window}, 0), {&x, &step, &window});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ((*out)[0].dims, (Dims{1, 2, 4, 2}));
  // Frame 0: b, c = 2, 3; frame 1: b, c = 4, 5.
  ExpectNear(Values<float>((*out)[0]), {5, 0, -3, -2, 1, 0, -3, 2, 9, 0, -5, -4, 1, 0, -5, 4});
}

TEST(SignalKernelTest, StftOfComplexSignalIsTwoSided) {
  // One frame of exp(2 pi i n / 4) (whole signal: no window, no frame_length): 4 at bin 1.
  HostTensor x = F32({1, 4, 2}, {1, 0, 0, 1, -1, 0, 0, -1});
  HostTensor step = ScalarI64(1);
  auto out = RunReference(StftDef({&x, &step}, 0), {&x, &step});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ((*out)[0].dims, (Dims{1, 1, 4, 2}));
  ExpectNear(Values<float>((*out)[0]), {0, 0, 4, 0, 0, 0, 0, 0});
}

TEST(SignalKernelTest, StftDefinitionRejectsNodesThatBreakTheSpec) {
  HostTensor real = F32({1, 8, 1}, std::vector<float>(8));
  HostTensor complex = F32({1, 8, 2}, std::vector<float>(16));
  HostTensor window = F32({4}, std::vector<float>(4));
  HostTensor step = ScalarI64(2), zero = ScalarI64(0), five = ScalarI64(5), nine = ScalarI64(9);
  ConstantNode zero_step(StftDef({&real, &zero, &window}, 1), {&real, &zero, &window}, {1});
  ConstantNode mismatch(StftDef({&real, &step, &window, &five}, 1), {&real, &step, &window, &five},
                        {3});
  ConstantNode too_long(StftDef({&real, &step, nullptr, &nine}, 1), {&real, &step, nullptr, &nine},
                        {3});
  const std::pair<const char*, NodeDef> cases[] = {
      {"onesided with a complex signal", StftDef({&complex, &step, &window}, 1)},
      {"frame_step 0", zero_step.def},
      {"a frame_length other than the window's", mismatch.def},
      {"a frame longer than the signal", too_long.def},
  };
  for (const auto& [what, def] : cases) {
    auto k = KernelRegistry::Global().Create(kReferenceBackend, def);
    ASSERT_FALSE(k.ok()) << what;
    EXPECT_EQ(k.status().code(), code::kInvalidParam) << what << ": " << k.status().message();
  }
}

// ---------------------------------------------------------------------------------------------
// Windows.

NodeDef WindowDef(const char* op, const HostTensor& size, int64_t periodic, DataType out = kF32) {
  NodeDef def = Def(op, {&size}, {out}, 17);
  def.attrs["periodic"] = periodic;
  def.attrs["output_datatype"] = static_cast<int64_t>(out);
  return def;
}

TEST(SignalKernelTest, WindowsFollowTheirClosedFormulas) {
  // Periodic: N = size; symmetric: N = size - 1. Hann 1/2 - 1/2 cos(2 pi n / N); Hamming
  // 25/46 - 21/46 cos(2 pi n / N); Blackman 0.42 - 0.5 cos(2 pi n / N) + 0.08 cos(4 pi n / N).
  HostTensor four = ScalarI64(4), five = ScalarI32(5);
  const struct {
    const char* op;
    const HostTensor* size;
    int64_t periodic;
    std::vector<float> want;
  } cases[] = {
      {"HannWindow", &four, 1, {0, 0.5f, 1, 0.5f}},
      {"HannWindow", &five, 0, {0, 0.5f, 1, 0.5f, 0}},
      {"HammingWindow", &four, 1, {4.f / 46, 25.f / 46, 1, 25.f / 46}},
      {"HammingWindow", &five, 0, {4.f / 46, 25.f / 46, 1, 25.f / 46, 4.f / 46}},
      {"BlackmanWindow", &four, 1, {0, 0.34f, 1, 0.34f}},
      {"BlackmanWindow", &five, 0, {0, 0.34f, 1, 0.34f, 0}},
  };
  for (const auto& c : cases) {
    auto out = RunReference(WindowDef(c.op, *c.size, c.periodic), {c.size});
    ASSERT_TRUE(out.ok()) << c.op << ": " << out.status().message();
    EXPECT_EQ((*out)[0].dims, (Dims{static_cast<int64_t>(c.want.size())})) << c.op;
    ExpectNear(Values<float>((*out)[0]), c.want);
  }
}

TEST(SignalKernelTest, WindowsTakeTheirOutputDatatype) {
  // Hann of 8, periodic: 1/2 - 1/2 cos(pi n / 4).
  HostTensor eight = ScalarI64(8);
  auto out = RunReference(WindowDef("HannWindow", eight, 1, DataType::kFloat64), {&eight});
  ASSERT_TRUE(out.ok()) << out.status().message();
  std::vector<double> got = Values<double>((*out)[0]);
  ASSERT_EQ(got.size(), 8u);
  for (int n = 0; n < 8; ++n) EXPECT_NEAR(got[n], 0.5 - 0.5 * std::cos(kPi * n / 4), 1e-15);

  // Integers truncate: only the peak of a symmetric Hann window of 5 is 1. Blackman's ends
  // (0.42 - 0.5 + 0.08, a hair below 0 in floating point) saturate to 0, not a wrapped 255.
  HostTensor five = ScalarI64(5);
  out = RunReference(WindowDef("HannWindow", five, 0, DataType::kInt32), {&five});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(Values<int32_t>((*out)[0]), (std::vector<int32_t>{0, 0, 1, 0, 0}));
  out = RunReference(WindowDef("BlackmanWindow", five, 0, DataType::kUint8), {&five});
  ASSERT_TRUE(out.ok()) << out.status().message();
  std::vector<uint8_t> blackman = Values<uint8_t>((*out)[0]);
  ASSERT_EQ(blackman.size(), 5u);
  EXPECT_EQ(blackman[0], 0);
  EXPECT_EQ(blackman[1], 0);  // 0.34
  EXPECT_EQ(blackman[3], 0);
  EXPECT_EQ(blackman[4], 0);
}

TEST(SignalKernelTest, SymmetricWindowOfOneValueIsNanAsInOnnx) {
  // N = size - 1 = 0: ONNX's function body divides 2 pi by 0 and multiplies by 0.
  HostTensor one = ScalarI64(1);
  auto out = RunReference(WindowDef("HannWindow", one, 0), {&one});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_TRUE(std::isnan(Values<float>((*out)[0]).at(0)));
  out = RunReference(WindowDef("HannWindow", one, 1), {&one});  // periodic: N = 1, w = 0
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(Values<float>((*out)[0]), (std::vector<float>{0}));
}

TEST(SignalKernelTest, WindowDefinitionRejectsNodesThatBreakTheSpec) {
  HostTensor zero = ScalarI64(0), four = ScalarI64(4), vec = I64({1}, {4});
  HostTensor fsize = F32({}, {4});
  ConstantNode empty(WindowDef("HannWindow", zero, 1), {&zero}, {0});
  NodeDef as_bool = WindowDef("HammingWindow", four, 1, DataType::kBool);
  NodeDef periodic2 = WindowDef("BlackmanWindow", four, 2);
  const std::pair<const char*, NodeDef> cases[] = {
      {"size 0", empty.def},
      {"a size of shape [1]", WindowDef("HannWindow", vec, 1)},
      {"a float size", WindowDef("HannWindow", fsize, 1)},
      {"a bool output", as_bool},
      {"periodic = 2", periodic2},
  };
  for (const auto& [what, def] : cases) {
    auto k = KernelRegistry::Global().Create(kReferenceBackend, def);
    ASSERT_FALSE(k.ok()) << what;
    EXPECT_EQ(k.status().code(), code::kInvalidParam) << what << ": " << k.status().message();
  }
}

// ---------------------------------------------------------------------------------------------
// MelWeightMatrix.

Result<std::vector<HostTensor>> RunMel(int64_t bins, int64_t dft_length, int64_t rate, float lo,
                                       float hi, DataType out = kF32) {
  HostTensor b = ScalarI64(bins), n = ScalarI64(dft_length), r = ScalarI64(rate);
  HostTensor l = F32({}, {lo}), h = F32({}, {hi});
  std::vector<const HostTensor*> inputs = {&b, &n, &r, &l, &h};
  NodeDef def = Def("MelWeightMatrix", inputs, {out}, 17);
  def.attrs["output_datatype"] = static_cast<int64_t>(out);
  return RunReference(def, inputs);
}

TEST(SignalKernelTest, MelWeightMatrixMatchesOnnxBackendCase) {
  // test_melweightmatrix: 8 bands over [0, 4096] Hz of a 16-point DFT at 8192 Hz.
  auto out = RunMel(8, 16, 8192, 0, 4096);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ((*out)[0].dims, (Dims{9, 8}));
  std::vector<float> want(72, 0.0f);
  for (auto [row, col] :
       {std::pair{0, 0}, {0, 1}, {1, 2}, {1, 3}, {2, 4}, {3, 5}, {4, 6}, {5, 7}}) {
    want[row * 8 + col] = 1;
  }
  EXPECT_EQ(Values<float>((*out)[0]), want);
}

TEST(SignalKernelTest, MelWeightMatrixBandsAreTriangles) {
  // 3 bands over [5, 50] Hz of a 16-point DFT at 100 Hz: the band edges fall on bins 0, 2, 3, 5,
  // 6 (onnx.reference gives the same matrix).
  auto out = RunMel(3, 16, 100, 5, 50, DataType::kFloat64);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ((*out)[0].dims, (Dims{9, 3}));
  std::vector<double> want(27, 0.0);
  want[1 * 3 + 0] = 0.5;
  want[2 * 3 + 0] = 1;
  want[3 * 3 + 1] = 1;
  want[4 * 3 + 1] = 0.5;
  want[4 * 3 + 2] = 0.5;
  want[5 * 3 + 2] = 1;
  EXPECT_EQ(Values<double>((*out)[0]), want);
}

TEST(SignalKernelTest, MelWeightMatrixRefusesBandsOffTheSpectrogram) {
  // An upper edge far above the Nyquist frequency puts bands past the last bin.
  auto out = RunMel(8, 16, 8192, 0, 40000);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), code::kInvalidParam);
  // A negative number of bins is not a matrix.
  HostTensor b = ScalarI64(-1), n = ScalarI64(16), r = ScalarI64(8192);
  HostTensor l = F32({}, {0}), h = F32({}, {4096});
  std::vector<const HostTensor*> inputs = {&b, &n, &r, &l, &h};
  ConstantNode neg(Def("MelWeightMatrix", inputs, {kF32}, 17), inputs, {0});
  auto k = KernelRegistry::Global().Create(kReferenceBackend, neg.def);
  ASSERT_FALSE(k.ok());
  EXPECT_EQ(k.status().code(), code::kInvalidParam) << k.status().message();
}

}  // namespace
}  // namespace kiln::kernels
