// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The loader's semantic checks (runtime/program.cc): a graph section whose structure is valid
// (indices in range, as format::VerifyOm holds) but whose tensors cannot be — dims below -1,
// more bytes than the device has, more than the workspace slot the plan gave them, an unknown
// type — is refused with 545001 naming the tensor, before any kernel is made for it. Each case
// is a one-node Relu model that loads when the recorded facts are consistent.
#include "runtime/program.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "format/om_generated.h"
#include "kernels/registry.h"

namespace kiln::runtime {
namespace {

struct TinyModel {
  std::vector<int64_t> x_dims = {2, 4}, y_dims = {2, 4};
  int32_t y_dtype = 1;
  uint64_t y_offset = 0, y_bytes = 32;  // y in the workspace: 2 x 4 float32
  uint64_t work_size = 64;
  // One gear (batch) giving y's dims, or none.
  std::vector<int64_t> gear_y_dims;
  // Data-flow faults: the second Relu first (it reads y before the first writes it); the second
  // Relu writing y again; the first Relu with no input; the first Relu's opset.
  bool swap_nodes = false, write_twice = false, no_input = false;
  int relu_opset = 14;

  std::vector<uint8_t> Build() const {
    flatbuffers::FlatBufferBuilder b;
    auto x = om::CreateTensorDescDirect(b, "x", 1, &x_dims, nullptr, 2, om::TensorKind::Input);
    auto y = om::CreateTensorDescDirect(b, "y", y_dtype, &y_dims, nullptr, 2,
                                        om::TensorKind::Activation, y_offset, y_bytes);
    auto out = om::CreateTensorDescDirect(b, "out", 1, &x_dims, nullptr, 2, om::TensorKind::Output);
    std::vector<flatbuffers::Offset<om::TensorDesc>> tensors = {x, y, out};
    std::vector<int32_t> in0 = {0}, out1 = {1}, in1 = {1}, out2 = {write_twice ? 1 : 2}, none;
    std::vector<flatbuffers::Offset<om::Node>> nodes = {
        om::CreateNodeDirect(b, "Relu", "", "relu", nullptr, no_input ? &none : &in0, &out1,
                             nullptr, relu_opset),
        om::CreateNodeDirect(b, "Relu", "", "relu2", nullptr, &in1, &out2, nullptr, 14)};
    if (swap_nodes) std::swap(nodes[0], nodes[1]);
    std::vector<int32_t> g_in = {0}, g_out = {2};
    std::vector<flatbuffers::Offset<om::Graph>> graphs = {
        om::CreateGraphDirect(b, "main", &tensors, &nodes, &g_in, &g_out)};
    std::vector<flatbuffers::Offset<om::GearPlan>> gears;
    if (!gear_y_dims.empty()) {
      std::vector<int64_t> values = {gear_y_dims[0]};
      std::vector<flatbuffers::Offset<om::TensorDims>> td = {
          om::CreateTensorDimsDirect(b, 1, &gear_y_dims)};
      gears.push_back(om::CreateGearPlanDirect(b, &values, work_size, &td));
    }
    std::vector<flatbuffers::Offset<flatbuffers::String>> gear_dims;
    auto model = om::CreateModelDirect(
        b, "tiny", &graphs, work_size, 0, gears.empty() ? om::GearKind::None : om::GearKind::Batch,
        gears.empty() ? nullptr : &gear_dims, gears.empty() ? nullptr : &gears);
    om::FinishModelBuffer(b, model);
    return std::vector<uint8_t>(b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize());
  }
};

constexpr uint64_t kDeviceBytes = uint64_t{1} << 30;

Status Load(const TinyModel& m) {
  const std::vector<uint8_t> graph = m.Build();
  return BuildProgram(graph.data(), nullptr, 0, kernels::kReferenceBackend, nullptr, kDeviceBytes)
      .status();
}

void ExpectRefused(const TinyModel& m, const std::string& says) {
  const Status s = Load(m);
  EXPECT_EQ(s.code(), code::kGeLoadModel) << s.message();
  EXPECT_NE(s.message().find(says), std::string::npos) << s.message();
}

TEST(ProgramTest, AConsistentModelLoads) {
  EXPECT_TRUE(Load(TinyModel{}).ok());
  TinyModel unknown_batch;
  unknown_batch.x_dims = unknown_batch.y_dims = {-1, 4};
  EXPECT_TRUE(Load(unknown_batch).ok()) << Load(unknown_batch).message();
}

TEST(ProgramTest, DimsBelowMinusOneAreRefused) {
  TinyModel m;
  m.y_dims = {2, -5};
  ExpectRefused(m, "tensor 'y' has dims [2,-5]");
}

TEST(ProgramTest, ATensorLargerThanTheDeviceIsRefusedEvenWithUnknownDims) {
  TinyModel m;
  m.x_dims = m.y_dims = {-1, int64_t{1} << 40};  // 4 TiB per row
  ExpectRefused(m, "tensor 'x' has dims [-1,1099511627776]");
  m.x_dims = {2, 4};
  m.y_dims = {int64_t{1} << 62, 1 << 20};  // more elements than 64 bits count
  ExpectRefused(m, "more elements than can be counted");
  // No elements at all, but a product of the other dims past int64 (found by the fuzz target:
  // a kernel multiplying them in order overflowed before reaching the zero).
  m.y_dims = {256, 72057297685184513, 0};
  ExpectRefused(m, "more elements than can be counted");
}

TEST(ProgramTest, DimsLargerThanTheirWorkspaceSlotAreRefused) {
  TinyModel m;
  m.y_dims = {2, 400};  // 3200 bytes in a 32-byte slot
  ExpectRefused(m, "tensor 'y' has dims [2,400] (3200 bytes) but a 32-byte workspace slot");
}

TEST(ProgramTest, GearDimsAreCheckedLikeRecordedOnes) {
  TinyModel m;
  m.x_dims = m.y_dims = {-1, 4};
  m.gear_y_dims = {2, 4};
  EXPECT_TRUE(Load(m).ok()) << Load(m).message();
  m.gear_y_dims = {2, 4000};
  ExpectRefused(m, "tensor 'y' in gear [2] has dims [2,4000] (32000 bytes) but a 32-byte");
  m.gear_y_dims = {2, -7};
  ExpectRefused(m, "tensor 'y' in gear [2] has dims [2,-7]");
}

TEST(ProgramTest, AnUnknownDataTypeIsRefused) {
  TinyModel m;
  m.y_dtype = 99;
  ExpectRefused(m, "tensor 'y' has an unknown data type 99");
  m.y_dtype = 0;  // undefined: a kernel would size its output for no type
  ExpectRefused(m, "'relu' writes tensor 'y', which has no data type");
}

TEST(ProgramTest, NodesReadOnlyWhatExistsAndWriteEachTensorOnce) {
  TinyModel late;
  late.swap_nodes = true;
  ExpectRefused(late, "Relu 'relu2' reads tensor 'y' before any node writes it");
  TinyModel twice;
  twice.write_twice = true;
  ExpectRefused(twice, "Relu 'relu2' writes tensor 'y', which another node writes");
}

// A loaded node is held to its op's schema like a compiled one: its counts, and an opset Kiln
// defines the op at (attribute declarations depend on it).
TEST(ProgramTest, ANodeOutsideItsOpsCountsOrOpsetsIsRefused) {
  TinyModel none;
  none.no_input = true;
  ExpectRefused(none, "has 0 input(s); Relu takes 1 to 1");
  for (int opset : {0, 1000}) {
    TinyModel m;
    m.relu_opset = opset;
    ExpectRefused(m, "opset " + std::to_string(opset) + " is not one Kiln defines Relu at");
  }
}

}  // namespace
}  // namespace kiln::runtime
