// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The CUDA matrix kernels against the reference kernels (label gpu; without a GPU they still
// prepare the CUDA kernel for every case): MatMul (2-D, batched, broadcast, 1-D operands), Gemm
// (transposes, alpha, beta, C broadcast), FusedMatMul / FusedGemm epilogues, Conv (pads,
// strides, dilations, groups, depthwise, auto_pad, 1-D and 3-D), FusedConv (bias, residual,
// activations, post affine), FusedConvTranspose (strides, pads, output_padding, groups), the
// 8-bit MatMulInteger / DequantizeLinear / DynamicQuantizeLinear, and the
// activations with parameters.
#include <string>
#include <vector>

#include "tests/ops/cuda_vs_reference.h"

namespace kiln::cuda::testing {
namespace {

using kernels::testing::Def;
using kernels::testing::F32;
using CudaMatrixTest = CudaVsReference;

constexpr float kAtol = 1e-4f, kRtol = 1e-4f;

std::string Str(const Dims& a, const Dims& b) {
  return kernels::DimsString(a) + " x " + kernels::DimsString(b);
}

TEST_F(CudaMatrixTest, MatMulShapesMatchTheReference) {
  const std::vector<std::pair<Dims, Dims>> shapes = {
      {{7, 13}, {13, 5}},         // plain
      {{2, 3, 7, 16}, {16, 9}},   // batch folded into the rows
      {{4, 7, 8}, {4, 8, 6}},     // batched
      {{7, 8}, {3, 8, 6}},        // one A for every B
      {{1, 4, 7, 8}, {4, 8, 6}},  // unit leading dim
      {{8}, {8, 6}},              // 1-D A
      {{3, 5, 8}, {8}},           // 1-D B
      {{64, 256}, {256, 128}},    // bigger
  };
  unsigned seed = 1;
  for (const auto& [da, db] : shapes) {
    HostTensor a = Random(da, -1, 1, seed++), b = Random(db, -1, 1, seed++);
    ExpectNear(Run(Def("MatMul", {&a, &b}, {DataType::kFloat32}, 13), {a, b}), kAtol, kRtol,
               "MatMul " + Str(da, db));
  }
}

TEST_F(CudaMatrixTest, GemmAttributesMatchTheReference) {
  struct Case {
    Dims a, b, c;
    int64_t trans_a, trans_b;
    float alpha, beta;
  };
  const Case cases[] = {
      {{5, 7}, {7, 3}, {}, 0, 0, 1, 1},        {{7, 5}, {7, 3}, {3}, 1, 0, 1, 1},
      {{5, 7}, {3, 7}, {1, 3}, 0, 1, 0.5f, 2}, {{7, 5}, {3, 7}, {5, 1}, 1, 1, 1, -1},
      {{5, 7}, {7, 3}, {5, 3}, 0, 0, 2, 0.5f}, {{5, 7}, {7, 3}, {}, 0, 0, 1, 0},
  };
  unsigned seed = 50;
  for (const Case& c : cases) {
    HostTensor a = Random(c.a, -1, 1, seed++), b = Random(c.b, -1, 1, seed++);
    HostTensor cc = Random(c.c.empty() ? Dims{1} : c.c, -1, 1, seed++);
    const bool with_c = !c.c.empty();
    NodeDef def = Def("Gemm",
                      with_c ? std::vector<const HostTensor*>{&a, &b, &cc}
                             : std::vector<const HostTensor*>{&a, &b},
                      {DataType::kFloat32}, 13);
    def.attrs["transA"] = c.trans_a;
    def.attrs["transB"] = c.trans_b;
    def.attrs["alpha"] = c.alpha;
    def.attrs["beta"] = c.beta;
    ExpectNear(Run(def, with_c ? std::vector<HostTensor>{a, b, cc} : std::vector<HostTensor>{a, b}),
               kAtol, kRtol, "Gemm case " + std::to_string(&c - cases));
  }
}

TEST_F(CudaMatrixTest, FusedMatrixEpiloguesMatchTheReference) {
  HostTensor a = Random({2, 6, 16}, -1, 1, 3), b = Random({16, 10}, -1, 1, 4);
  HostTensor bias = Random({10}, -1, 1, 5);
  for (const char* act : {"", "Relu", "Gelu", "Sigmoid", "Clip", "HardSwish"}) {
    NodeDef def = Def("FusedMatMul", {&a, &b, &bias}, {DataType::kFloat32}, 1);
    def.domain = "com.kiln";
    def.attrs["activation"] = std::string(act);
    if (std::string(act) == "Clip") {
      def.attrs["activation_alpha"] = -0.5f;
      def.attrs["activation_beta"] = 0.5f;
    }
    def.attrs["post_scale"] = 0.5f;
    def.attrs["post_shift"] = 0.25f;
    ExpectNear(Run(def, {a, b, bias}), kAtol, kRtol, std::string("FusedMatMul ") + act);
  }
  HostTensor ga = Random({5, 7}, -1, 1, 6), gb = Random({7, 3}, -1, 1, 7);
  HostTensor gc = Random({3}, -1, 1, 8);
  NodeDef gemm = Def("FusedGemm", {&ga, &gb, &gc}, {DataType::kFloat32}, 1);
  gemm.domain = "com.kiln";
  gemm.attrs["activation"] = std::string("LeakyRelu");
  gemm.attrs["activation_alpha"] = 0.1f;
  gemm.attrs["beta"] = 0.5f;
  ExpectNear(Run(gemm, {ga, gb, gc}), kAtol, kRtol, "FusedGemm LeakyRelu");
}

TEST_F(CudaMatrixTest, ConvWindowsMatchTheReference) {
  struct Case {
    Dims x, w;
    std::vector<int64_t> strides, pads, dilations;
    int64_t group = 1;
    std::string auto_pad;
  };
  const Case cases[] = {
      {{1, 3, 12, 12}, {8, 3, 3, 3}, {}, {1, 1, 1, 1}, {}, 1, ""},
      {{2, 4, 11, 13}, {6, 4, 3, 3}, {2, 2}, {1, 0, 2, 1}, {}, 1, ""},
      {{1, 4, 12, 12}, {4, 4, 3, 3}, {}, {}, {2, 2}, 1, ""},
      {{1, 8, 10, 10}, {8, 2, 3, 3}, {}, {1, 1, 1, 1}, {}, 4, ""},       // grouped
      {{1, 16, 9, 9}, {16, 1, 3, 3}, {2, 2}, {1, 1, 1, 1}, {}, 16, ""},  // depthwise
      {{1, 3, 9, 9}, {5, 3, 1, 1}, {}, {}, {}, 1, ""},                   // pointwise
      {{1, 3, 10, 10}, {4, 3, 3, 3}, {2, 2}, {}, {}, 1, "SAME_UPPER"},
      {{2, 3, 20}, {4, 3, 5}, {2}, {2, 2}, {}, 1, ""},                        // 1-D
      {{1, 2, 5, 6, 7}, {3, 2, 3, 3, 3}, {}, {1, 1, 1, 1, 1, 1}, {}, 1, ""},  // 3-D
  };
  unsigned seed = 200;
  for (const Case& c : cases) {
    HostTensor x = Random(c.x, -1, 1, seed++), w = Random(c.w, -1, 1, seed++);
    HostTensor b = Random({c.w[0]}, -1, 1, seed++);
    NodeDef def = Def("Conv", {&x, &w, &b}, {DataType::kFloat32}, 11);
    if (!c.strides.empty()) def.attrs["strides"] = c.strides;
    if (!c.pads.empty()) def.attrs["pads"] = c.pads;
    if (!c.dilations.empty()) def.attrs["dilations"] = c.dilations;
    if (!c.auto_pad.empty()) def.attrs["auto_pad"] = c.auto_pad;
    def.attrs["group"] = c.group;
    ExpectNear(Run(def, {x, w, b}), kAtol, kRtol, "Conv case " + std::to_string(&c - cases));
  }
}

TEST_F(CudaMatrixTest, FusedConvEpiloguesMatchTheReference) {
  HostTensor x = Random({2, 4, 9, 9}, -1, 1, 300), w = Random({6, 4, 3, 3}, -1, 1, 301);
  HostTensor b = Random({6}, -1, 1, 302), z = Random({2, 6, 9, 9}, -1, 1, 303);
  for (const char* act : {"", "Relu", "LeakyRelu", "Swish", "HardSigmoid", "Tanh"}) {
    for (bool residual : {false, true}) {
      NodeDef def = Def("FusedConv",
                        residual ? std::vector<const HostTensor*>{&x, &w, &b, &z}
                                 : std::vector<const HostTensor*>{&x, &w, &b},
                        {DataType::kFloat32}, 1);
      def.domain = "com.kiln";
      def.attrs["pads"] = std::vector<int64_t>{1, 1, 1, 1};
      def.attrs["activation"] = std::string(act);
      if (residual) def.attrs["post_scale"] = 2.0f;
      ExpectNear(Run(def, residual ? std::vector<HostTensor>{x, w, b, z}
                                   : std::vector<HostTensor>{x, w, b}),
                 kAtol, kRtol, std::string("FusedConv ") + act + (residual ? " + Z" : ""));
    }
  }
}

TEST_F(CudaMatrixTest, TransposedConvolutionsMatchTheReference) {
  struct Case {
    Dims x, w;
    std::vector<int64_t> strides, pads, output_padding;
    int64_t group;
  };
  const Case cases[] = {
      {{1, 4, 5, 5}, {4, 3, 2, 2}, {2, 2}, {}, {}, 1},  // the DB head's upsampling
      {{2, 3, 4, 6}, {3, 5, 3, 3}, {2, 2}, {1, 0, 1, 2}, {1, 1}, 1},
      {{1, 4, 5, 5}, {4, 2, 3, 3}, {1, 1}, {1, 1, 1, 1}, {}, 2},  // grouped
  };
  unsigned seed = 500;
  for (const Case& c : cases) {
    HostTensor x = Random(c.x, -1, 1, seed++), w = Random(c.w, -1, 1, seed++);
    HostTensor b = Random({c.w[1] * c.group}, -1, 1, seed++);
    NodeDef def = Def("FusedConvTranspose", {&x, &w, &b}, {DataType::kFloat32}, 1);
    def.domain = "com.kiln";
    def.attrs["strides"] = c.strides;
    if (!c.pads.empty()) def.attrs["pads"] = c.pads;
    if (!c.output_padding.empty()) def.attrs["output_padding"] = c.output_padding;
    def.attrs["group"] = c.group;
    def.attrs["activation"] = std::string("Relu");
    ExpectNear(Run(def, {x, w, b}), kAtol, kRtol,
               "FusedConvTranspose case " + std::to_string(&c - cases));
  }
}

// An fp16 / bf16 model (kernels/precision.h): inputs and weights rounded to the half type,
// float32 accumulation. The reference computes in float32, so the tolerance is the half type's
// rounding of K products of values in [-1, 1] (fp16 keeps 11 significant bits, bf16 8).
TEST_F(CudaMatrixTest, HalfPrecisionModelsStayWithinTheirRounding) {
  HostTensor a = Random({4, 6, 64}, -1, 1, 600), b = Random({64, 24}, -1, 1, 601);
  HostTensor x = Random({1, 8, 10, 10}, -1, 1, 602), w = Random({16, 8, 3, 3}, -1, 1, 603);
  for (auto [precision, tol] : {std::pair{kernels::MatrixPrecision::kFp16, 0.02f},
                                std::pair{kernels::MatrixPrecision::kBf16, 0.15f}}) {
    const std::string name = kernels::Name(precision);
    NodeDef mm = Def("MatMul", {&a, &b}, {DataType::kFloat32}, 13);
    mm.matrix_precision = precision;
    ExpectNear(Run(mm, {a, b}), tol, 0, "MatMul " + name);
    NodeDef conv = Def("Conv", {&x, &w}, {DataType::kFloat32}, 11);
    conv.attrs["pads"] = std::vector<int64_t>{1, 1, 1, 1};
    conv.matrix_precision = precision;
    ExpectNear(Run(conv, {x, w}), tol, 0, "Conv " + name);
    // Constant weights: converted once at load (device_bytes.h), not in the run.
    const TensorView bv = b.view(), wv = w.view();
    mm.constants[1] = &bv;
    ExpectNear(Run(mm, {a, b}), tol, 0, "MatMul with constant B " + name);
    conv.constants[1] = &wv;
    ExpectNear(Run(conv, {x, w}), tol, 0, "Conv with constant W " + name);
  }
}

TEST_F(CudaMatrixTest, EightBitOpsMatchTheReference) {
  using kernels::testing::Make;
  std::vector<uint8_t> av(2 * 5 * 7);
  std::vector<int8_t> bv(7 * 3);
  for (size_t i = 0; i < av.size(); ++i) av[i] = static_cast<uint8_t>(i * 37 % 256);
  for (size_t i = 0; i < bv.size(); ++i) bv[i] = static_cast<int8_t>(i * 53 % 256 - 128);
  const HostTensor a = Make(DataType::kUint8, {2, 5, 7}, av);
  const HostTensor b = Make(DataType::kInt8, {7, 3}, bv);
  const HostTensor azp = Make(DataType::kUint8, {}, std::vector<uint8_t>{131});
  const HostTensor bzp = Make(DataType::kInt8, {3}, std::vector<int8_t>{-3, 0, 7});
  ExpectSameBytes(
      Run(Def("MatMulInteger", {&a, &b, &azp, &bzp}, {DataType::kInt32}, 10), {a, b, azp, bzp}),
      "MatMulInteger with zero points");
  ExpectSameBytes(Run(Def("MatMulInteger", {&a, &b}, {DataType::kInt32}, 10), {a, b}),
                  "MatMulInteger");

  const HostTensor scale = kernels::testing::F32({}, {0.05f});
  const HostTensor scales = kernels::testing::F32({3}, {0.1f, 0.2f, 0.3f});
  ExpectClose(Run(Def("DequantizeLinear", {&b, &scale}, {DataType::kFloat32}, 13), {b, scale}), 0,
              "DequantizeLinear per tensor");
  NodeDef per_axis = Def("DequantizeLinear", {&b, &scales, &bzp}, {DataType::kFloat32}, 13);
  per_axis.attrs["axis"] = int64_t{1};
  ExpectClose(Run(per_axis, {b, scales, bzp}), 0, "DequantizeLinear per axis");

  const HostTensor x = Random({4, 33}, -3, 5, 700);
  auto all = RunAll(Def("DynamicQuantizeLinear", {&x},
                        {DataType::kUint8, DataType::kFloat32, DataType::kUint8}, 11),
                    {x});
  if (all) {
    for (size_t i = 0; i < all->size(); ++i) {
      ExpectSameBytes((*all)[i], "DynamicQuantizeLinear output " + std::to_string(i));
    }
  }
}

TEST_F(CudaMatrixTest, ActivationsWithParametersMatchTheReference) {
  HostTensor x = Random({3, 500}, -8, 8, 400);
  struct Case {
    const char* op;
    int opset;
  };
  for (const Case& c : {Case{"LeakyRelu", 16}, Case{"HardSigmoid", 6}, Case{"HardSwish", 14},
                        Case{"Gelu", 20}, Case{"Swish", 24}, Case{"Clip", 6}}) {
    NodeDef def = Def(c.op, {&x}, {DataType::kFloat32}, c.opset);
    if (std::string(c.op) == "Clip") {
      def.attrs["min"] = -1.5f;
      def.attrs["max"] = 2.0f;
    }
    ExpectClose(Run(def, {x}), 1e-5f, c.op);
  }
  // Clip 13: bounds as constant inputs.
  HostTensor lo = F32({}, {-0.5f}), hi = F32({}, {3.0f});
  NodeDef clip = Def("Clip", {&x, &lo, &hi}, {DataType::kFloat32}, 13);
  auto lo_view = lo.view(), hi_view = hi.view();
  clip.constants = {nullptr, &lo_view, &hi_view};
  ExpectClose(Run(clip, {x, lo, hi}), 0, "Clip 13");
}

}  // namespace
}  // namespace kiln::cuda::testing
