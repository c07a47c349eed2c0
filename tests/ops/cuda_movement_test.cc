// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The CUDA data-movement kernels against the reference kernels, byte for byte (label gpu;
// without a GPU they still prepare the CUDA kernel for every case): Transpose, Slice (steps,
// negative steps, axes), Concat, Split (sizes and equal parts), Expand and Gather (negative
// indices, int32 indices, 1- and 2-byte elements).
#include <string>
#include <vector>

#include "tests/ops/cuda_vs_reference.h"

namespace kiln::cuda::testing {
namespace {

using kernels::testing::Def;
using kernels::testing::I64;
using kernels::testing::Make;
using CudaMovementTest = CudaVsReference;

// `def` with inputs from `first` on marked constant (their views, into `ins`, live in `views`;
// both must outlive the run).
void MarkConstants(NodeDef& def, const std::vector<HostTensor>& ins, size_t first,
                   std::vector<TensorView>& views) {
  views.clear();
  views.reserve(ins.size());
  for (const HostTensor& t : ins) views.push_back(t.view());
  for (size_t i = first; i < ins.size(); ++i) def.constants[i] = &views[i];
}

TEST_F(CudaMovementTest, TransposeAndExpandMatchTheReference) {
  HostTensor x = Random({2, 3, 4, 5}, -1, 1, 1);
  for (const std::vector<int64_t>& perm :
       {std::vector<int64_t>{0, 2, 3, 1}, {3, 2, 1, 0}, {1, 0, 2, 3}}) {
    NodeDef def = Def("Transpose", {&x}, {DataType::kFloat32}, 13);
    def.attrs["perm"] = perm;
    ExpectSameBytes(Run(def, {x}), "Transpose " + kernels::DimsString(perm));
  }
  ExpectSameBytes(Run(Def("Transpose", {&x}, {DataType::kFloat32}, 13), {x}), "Transpose");
  HostTensor small = Random({3, 1, 5}, -1, 1, 2);
  HostTensor shape = I64({4}, {2, 3, 4, 5});
  NodeDef expand = Def("Expand", {&small, &shape}, {DataType::kFloat32}, 13);
  const std::vector<HostTensor> ins = {small, shape};
  std::vector<TensorView> views;
  MarkConstants(expand, ins, 1, views);
  ExpectSameBytes(Run(expand, ins), "Expand");
}

TEST_F(CudaMovementTest, SliceConcatAndSplitMatchTheReference) {
  HostTensor x = Random({4, 6, 8}, -1, 1, 3);
  struct Case {
    std::vector<int64_t> starts, ends, axes, steps;
  };
  const Case cases[] = {
      {{1, 2}, {3, 6}, {0, 2}, {}},
      {{0}, {6}, {1}, {2}},
      {{-1}, {-9}, {2}, {-3}},
      {{1, 0, 7}, {4, 5, 0}, {0, 1, 2}, {2, 1, -2}},
  };
  std::vector<TensorView> views;
  for (const Case& c : cases) {
    std::vector<HostTensor> ins = {x, I64({static_cast<int64_t>(c.starts.size())}, c.starts),
                                   I64({static_cast<int64_t>(c.ends.size())}, c.ends),
                                   I64({static_cast<int64_t>(c.axes.size())}, c.axes)};
    if (!c.steps.empty()) ins.push_back(I64({static_cast<int64_t>(c.steps.size())}, c.steps));
    std::vector<const HostTensor*> ptrs;
    for (const HostTensor& t : ins) ptrs.push_back(&t);
    NodeDef def = Def("Slice", ptrs, {DataType::kFloat32}, 13);
    MarkConstants(def, ins, 1, views);
    ExpectSameBytes(Run(def, ins), "Slice case " + std::to_string(&c - cases));
  }
  HostTensor a = Random({2, 3, 4}, -1, 1, 4), b = Random({2, 5, 4}, -1, 1, 5);
  NodeDef concat = Def("Concat", {&a, &b, &a}, {DataType::kFloat32}, 13);
  concat.attrs["axis"] = int64_t{-2};
  ExpectSameBytes(Run(concat, {a, b, a}), "Concat");

  HostTensor sizes = I64({3}, {1, 4, 3});
  NodeDef split =
      Def("Split", {&x, &sizes}, {DataType::kFloat32, DataType::kFloat32, DataType::kFloat32}, 13);
  split.attrs["axis"] = int64_t{2};
  const std::vector<HostTensor> split_ins = {x, sizes};
  MarkConstants(split, split_ins, 1, views);
  auto all = RunAll(split, split_ins);
  if (all) {
    ASSERT_EQ(all->size(), 3u);
    for (size_t i = 0; i < all->size(); ++i) {
      ExpectSameBytes((*all)[i], "Split output " + std::to_string(i));
    }
  }
  NodeDef equal = Def("Split", {&x}, {DataType::kFloat32, DataType::kFloat32}, 11);
  equal.attrs["axis"] = int64_t{1};
  auto halves = RunAll(equal, {x});
  if (halves) {
    for (size_t i = 0; i < halves->size(); ++i) {
      ExpectSameBytes((*halves)[i], "Split in halves, output " + std::to_string(i));
    }
  }
}

TEST_F(CudaMovementTest, GatherMatchesTheReference) {
  HostTensor x = Random({5, 4, 3}, -1, 1, 6);
  HostTensor idx = I64({2, 2}, {0, -1, 2, 1});
  for (int64_t axis : {0, 1, -1}) {
    NodeDef def = Def("Gather", {&x, &idx}, {DataType::kFloat32}, 13);
    def.attrs["axis"] = axis;
    ExpectSameBytes(Run(def, {x, idx}), "Gather axis " + std::to_string(axis));
  }
  HostTensor idx32 = Make<int32_t>(DataType::kInt32, {3}, {2, 0, -2});
  HostTensor bytes = Make<uint8_t>(DataType::kUint8, {5, 2}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10});
  ExpectSameBytes(Run(Def("Gather", {&bytes, &idx32}, {DataType::kUint8}, 13), {bytes, idx32}),
                  "Gather uint8 by int32");
  HostTensor halves = Make<uint16_t>(DataType::kFloat16, {5}, {1, 2, 3, 4, 5});
  ExpectSameBytes(Run(Def("Gather", {&halves, &idx32}, {DataType::kFloat16}, 13), {halves, idx32}),
                  "Gather float16");
}

TEST_F(CudaMovementTest, ResizeModesMatchTheReference) {
  HostTensor x = Random({1, 2, 5, 7}, -1, 1, 40);
  struct Case {
    const char* mode;
    const char* transform;
    const char* nearest;
    std::vector<float> scales;
  };
  const Case cases[] = {
      {"nearest", "asymmetric", "floor", {1, 1, 2, 2}},
      {"nearest", "half_pixel", "round_prefer_ceil", {1, 1, 1.5f, 0.6f}},
      {"linear", "half_pixel", "", {1, 1, 2, 3}},
      {"linear", "align_corners", "", {1, 1, 0.5f, 1.7f}},
      {"cubic", "pytorch_half_pixel", "", {1, 1, 1.8f, 2.2f}},
      {"linear", "tf_crop_and_resize", "", {1, 1, 1.4f, 1.1f}},
  };
  HostTensor roi = kernels::testing::F32({8}, {0, 0, -0.2f, 0.1f, 1, 1, 1.1f, 0.9f});
  std::vector<TensorView> views;
  for (const Case& c : cases) {
    HostTensor scales = kernels::testing::F32({4}, c.scales);
    const std::vector<HostTensor> ins = {x, roi, scales};
    NodeDef def = Def("Resize", {&x, &roi, &scales}, {DataType::kFloat32}, 13);
    def.attrs["mode"] = std::string(c.mode);
    def.attrs["coordinate_transformation_mode"] = std::string(c.transform);
    if (c.nearest[0] != 0) def.attrs["nearest_mode"] = std::string(c.nearest);
    def.attrs["extrapolation_value"] = 0.5f;
    MarkConstants(def, ins, 1, views);
    const std::string what = std::string("Resize ") + c.mode + " " + c.transform;
    if (std::string(c.mode) == "nearest") {
      ExpectSameBytes(Run(def, ins), what);
    } else {
      ExpectClose(Run(def, ins), 1e-5f, what);
    }
  }
  HostTensor bytes = Make<uint8_t>(DataType::kUint8, {1, 1, 2, 2}, {1, 2, 3, 4});
  HostTensor up = kernels::testing::F32({4}, {1, 1, 2, 2});
  NodeDef v10 = Def("Resize", {&bytes, &up}, {DataType::kUint8}, 10);
  const std::vector<HostTensor> v10_ins = {bytes, up};
  MarkConstants(v10, v10_ins, 1, views);
  ExpectSameBytes(Run(v10, v10_ins), "Resize opset 10 of uint8");
  // Scales computed by the model: read back and planned at each run, no tables kept.
  HostTensor computed = kernels::testing::F32({4}, {1, 1, 2, 1.5f});
  NodeDef steered = Def("Resize", {&x, nullptr, &computed}, {DataType::kFloat32}, 13);
  steered.attrs["mode"] = std::string("linear");
  ExpectClose(Run(steered, std::vector<const HostTensor*>{&x, nullptr, &computed}), 1e-5f,
              "Resize with computed scales");
}

TEST_F(CudaMovementTest, ShapeAndConstantOfShapeMatchTheReference) {
  HostTensor x = Random({2, 3, 4, 5}, -1, 1, 50);
  ExpectSameBytes(Run(Def("Shape", {&x}, {DataType::kInt64}, 13), {x}), "Shape");
  NodeDef part = Def("Shape", {&x}, {DataType::kInt64}, 15);
  part.attrs["start"] = int64_t{1};
  part.attrs["end"] = int64_t{-1};
  ExpectSameBytes(Run(part, {x}), "Shape 1:-1");
  ExpectSameBytes(Run(Def("Size", {&x}, {DataType::kInt64}, 13), {x}), "Size");
  HostTensor shape = I64({3}, {2, 3, 4});
  NodeDef fill = Def("ConstantOfShape", {&shape}, {DataType::kFloat32}, 9);
  fill.attrs["value"] =
      ir::Tensor::FromVector(ir::DataType::kFloat32, {1}, std::vector<float>{2.5f});
  std::vector<TensorView> views;
  const std::vector<HostTensor> ins = {shape};
  MarkConstants(fill, ins, 0, views);
  ExpectSameBytes(Run(fill, ins), "ConstantOfShape");
}

TEST_F(CudaMovementTest, RangeMatchesTheReference) {
  const std::vector<std::vector<HostTensor>> cases = {
      {kernels::testing::F32({}, {0.5f}), kernels::testing::F32({}, {4.0f}),
       kernels::testing::F32({}, {0.3f})},
      {I64({}, {10}), I64({}, {-7}), I64({}, {-3})},
  };
  for (const auto& ins : cases) {
    NodeDef def = Def("Range", {&ins[0], &ins[1], &ins[2]}, {ins[0].dtype}, 11);
    ExpectSameBytes(Run(def, ins), std::string("Range of ") + ir::Name(ins[0].dtype));
  }
}

}  // namespace
}  // namespace kiln::cuda::testing
