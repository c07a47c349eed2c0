// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The CUDA softmax, pooling and copy kernels against the reference kernels (label gpu; skipped
// where the machine has no GPU): pooling windows with strides, pads, dilations, ceil_mode and
// count_include_pad; softmax along each axis and in the flattening form before opset 13.
#include <string>

#include "tests/ops/cuda_vs_reference.h"

namespace kiln::cuda::testing {
namespace {

using kernels::testing::Def;
using kernels::testing::I64;
using CudaNnTest = CudaVsReference;

TEST_F(CudaNnTest, SoftmaxAlongEachAxisMatchesTheReference) {
  HostTensor x = Random({2, 3, 4, 5}, -6, 6, 7);
  for (const char* op : {"Softmax", "LogSoftmax"}) {
    for (int opset : {11, 13}) {
      for (int64_t axis : {-1, 0, 1, 2}) {
        NodeDef def = Def(op, {&x}, {DataType::kFloat32}, opset);
        def.attrs["axis"] = axis;
        ExpectClose(
            Run(def, {x}), 1e-5f,
            std::string(op) + " opset " + std::to_string(opset) + " axis " + std::to_string(axis));
      }
    }
  }
}

TEST_F(CudaNnTest, PoolingWindowsMatchTheReference) {
  struct Case {
    const char* op;
    std::vector<int64_t> kernel, strides, pads, dilations;
    int64_t ceil_mode = 0, count_include_pad = 0;
  };
  const Case cases[] = {
      {"MaxPool", {3, 3}, {2, 2}, {1, 1, 1, 1}, {}},
      {"MaxPool", {2, 2}, {2, 2}, {}, {}},
      {"MaxPool", {3, 3}, {1, 1}, {0, 0, 0, 0}, {2, 2}},
      {"MaxPool", {3, 3}, {2, 2}, {0, 0, 0, 0}, {}, 1},
      {"AveragePool", {3, 3}, {2, 2}, {1, 1, 1, 1}, {}},
      {"AveragePool", {3, 3}, {2, 2}, {1, 1, 1, 1}, {}, 0, 1},
      {"AveragePool", {2, 3}, {1, 2}, {0, 1, 1, 0}, {}, 1, 0},
  };
  HostTensor x = Random({2, 3, 11, 12}, -5, 5, 11);
  for (const Case& c : cases) {
    NodeDef def = Def(c.op, {&x}, {DataType::kFloat32}, 19);
    def.attrs["kernel_shape"] = c.kernel;
    if (!c.strides.empty()) def.attrs["strides"] = c.strides;
    if (!c.pads.empty()) def.attrs["pads"] = c.pads;
    if (!c.dilations.empty()) def.attrs["dilations"] = c.dilations;
    def.attrs["ceil_mode"] = c.ceil_mode;
    if (std::string(c.op) == "AveragePool") def.attrs["count_include_pad"] = c.count_include_pad;
    ExpectClose(Run(def, {x}), 1e-5f, std::string(c.op) + " case " + std::to_string(&c - cases));
  }
  for (const char* op : {"GlobalAveragePool", "GlobalMaxPool"}) {
    ExpectClose(Run(Def(op, {&x}, {DataType::kFloat32}), {x}), 1e-5f, op);
  }
}

TEST_F(CudaNnTest, CopyKernelsMoveTheBytesOfAnyType) {
  HostTensor x = Random({2, 3, 4}, -1, 1, 3);
  HostTensor shape = I64({2}, {6, 4});
  {
    ExpectSameBytes(Run(Def("Reshape", {&x, &shape}, {DataType::kFloat32}), {x, shape}), "Reshape");
  }
  HostTensor ints = I64({2, 1, 3}, {1, -2, 3, -4, 5, -6});
  for (const char* op : {"Flatten", "Identity"}) {
    ExpectSameBytes(Run(Def(op, {&ints}, {DataType::kInt64}), {ints}), op);
  }
}

TEST_F(CudaNnTest, NormalisationsMatchTheReference) {
  HostTensor x = Random({2, 5, 4, 3}, -3, 3, 21);
  HostTensor scale = Random({5}, 0.5f, 2, 22), bias = Random({5}, -1, 1, 23);
  HostTensor mean = Random({5}, -1, 1, 24), var = Random({5}, 0.1f, 2, 25);
  NodeDef bn =
      Def("BatchNormalization", {&x, &scale, &bias, &mean, &var}, {DataType::kFloat32}, 15);
  bn.attrs["epsilon"] = 1e-3f;
  ExpectClose(Run(bn, {x, scale, bias, mean, var}), 1e-5f, "BatchNormalization");

  HostTensor rows = Random({3, 7, 384}, -4, 4, 26);
  HostTensor gamma = Random({384}, 0.5f, 2, 27), beta = Random({384}, -1, 1, 28);
  NodeDef ln = Def("LayerNormalization", {&rows, &gamma, &beta}, {DataType::kFloat32}, 17);
  ln.attrs["epsilon"] = 1e-5f;
  ExpectClose(Run(ln, {rows, gamma, beta}), 1e-4f, "LayerNormalization");
  NodeDef ln_two = Def("LayerNormalization", {&x, &gamma}, {DataType::kFloat32}, 17);
  HostTensor gamma12 = Random({4, 3}, 0.5f, 2, 29);
  ln_two = Def("LayerNormalization", {&x, &gamma12}, {DataType::kFloat32}, 17);
  ln_two.attrs["axis"] = int64_t{-2};
  ExpectClose(Run(ln_two, {x, gamma12}), 1e-4f, "LayerNormalization over two axes, no bias");

  NodeDef lrn = Def("LRN", {&x}, {DataType::kFloat32}, 13);
  lrn.attrs["size"] = int64_t{3};
  lrn.attrs["alpha"] = 1e-3f;
  ExpectClose(Run(lrn, {x}), 1e-5f, "LRN");
}

}  // namespace
}  // namespace kiln::cuda::testing
