// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "format/om_file.h"

#include <gtest/gtest.h>

#include <cstring>

#include "format/om_generated.h"
#include "format/om_json.h"
#include "format/sniff.h"

namespace kiln::format {
namespace {

// A small but complete model: one graph with an input, a constant and an output.
std::vector<uint8_t> BuildGraph() {
  flatbuffers::FlatBufferBuilder b;
  std::vector<int64_t> dims = {1, 4};
  auto t0 = om::CreateTensorDescDirect(b, "x", 1, &dims, nullptr, 2, om::TensorKind::Input);
  auto t1 =
      om::CreateTensorDescDirect(b, "w", 1, &dims, nullptr, 2, om::TensorKind::Constant, 0, 16);
  auto t2 = om::CreateTensorDescDirect(b, "y", 1, &dims, nullptr, 2, om::TensorKind::Output);
  std::vector<flatbuffers::Offset<om::TensorDesc>> tensors = {t0, t1, t2};
  std::vector<int32_t> ins = {0, 1}, outs = {2};
  std::vector<flatbuffers::Offset<flatbuffers::String>> origins = {b.CreateString("add0")};
  auto node = om::CreateNodeDirect(b, "Add", "", "add0", &origins, &ins, &outs, nullptr, 17);
  std::vector<flatbuffers::Offset<om::Node>> nodes = {node};
  std::vector<int32_t> g_in = {0}, g_out = {2};
  auto graph = om::CreateGraphDirect(b, "main", &tensors, &nodes, &g_in, &g_out);
  std::vector<flatbuffers::Offset<om::Graph>> graphs = {graph};
  auto model = om::CreateModelDirect(b, "tiny", &graphs, 64, 16);
  om::FinishModelBuffer(b, model);
  return std::vector<uint8_t>(b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize());
}

std::vector<uint8_t> BuildFile(uint16_t min_major = kFormatMajor, uint16_t min_minor = 0) {
  auto graph = BuildGraph();
  float w[4] = {1, 2, 3, 4};
  OmWriteInfo info{"0.1.0", min_major, min_minor, "cpu-avx2", 0};
  return SerializeOm(info, graph.data(), graph.size(), reinterpret_cast<uint8_t*>(w), sizeof w);
}

TEST(OmFileTest, RoundTripsHeaderGraphAndAlignedWeights) {
  auto file = BuildFile();
  auto view = VerifyOm(file.data(), file.size(), kFormatMajor, kFormatMinor);
  ASSERT_TRUE(view.ok()) << view.status().message();
  EXPECT_STREQ(view->header->target, "cpu-avx2");
  EXPECT_STREQ(view->header->compiler_version, "0.1.0");
  EXPECT_EQ((view->weights - file.data()) % 64, 0);
  ASSERT_EQ(view->weights_size, 16u);
  float w3;
  std::memcpy(&w3, view->weights + 12, 4);
  EXPECT_EQ(w3, 4.f);
  const om::Model* model = om::GetModel(view->graph);
  EXPECT_EQ(model->name()->str(), "tiny");
  EXPECT_EQ(model->work_size(), 64u);
  const om::Graph* g = model->graphs()->Get(0);
  EXPECT_EQ(g->nodes()->Get(0)->op_type()->str(), "Add");
  EXPECT_EQ(g->tensors()->Get(1)->kind(), om::TensorKind::Constant);
  EXPECT_EQ(Sniff(file.data(), file.size()), FileKind::kKilnOm);
}

TEST(OmFileTest, EveryTruncationIsRejected) {
  auto file = BuildFile();
  for (size_t n = 0; n < file.size(); ++n) {
    auto view = VerifyOm(file.data(), n, kFormatMajor, kFormatMinor);
    ASSERT_FALSE(view.ok()) << "accepted a prefix of " << n << " bytes";
    EXPECT_EQ(view.status().code(), code::kGeModelDataSizeInvalid);
  }
}

TEST(OmFileTest, EverySingleBitFlipIsRejected) {
  auto file = BuildFile();
  for (size_t i = 0; i < file.size(); ++i) {
    for (int bit = 0; bit < 8; bit += 3) {
      auto copy = file;
      copy[i] ^= static_cast<uint8_t>(1u << bit);
      auto view = VerifyOm(copy.data(), copy.size(), kFormatMajor, kFormatMinor);
      ASSERT_FALSE(view.ok()) << "accepted a flip of bit " << bit << " of byte " << i;
      EXPECT_FALSE(view.status().message().empty());
    }
  }
}

TEST(OmFileTest, PayloadCorruptionNamesTheByteRange) {
  auto file = BuildFile();
  file.back() ^= 0xFF;
  auto view = VerifyOm(file.data(), file.size(), kFormatMajor, kFormatMinor);
  ASSERT_FALSE(view.ok());
  EXPECT_NE(view.status().message().find("payload (bytes 256-"), std::string::npos);
}

// A CRC the loader computed while reading (ModelFile::ReadAll) is checked in place of a second
// pass over the payload: the right one passes, a wrong one names the payload as corrupt.
TEST(OmFileTest, APayloadCrcFromTheReaderIsCheckedInsteadOfASecondPass) {
  auto file = BuildFile();
  const uint32_t crc = Crc32(file.data() + kHeaderSize, file.size() - kHeaderSize);
  EXPECT_TRUE(VerifyOm(file.data(), file.size(), kFormatMajor, kFormatMinor, crc).ok());
  auto wrong = VerifyOm(file.data(), file.size(), kFormatMajor, kFormatMinor, crc ^ 1);
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.status().code(), code::kGeModelDataSizeInvalid);
  EXPECT_NE(wrong.status().message().find("payload (bytes 256-"), std::string::npos);
}

TEST(OmFileTest, CrcsOfPiecesCombineToTheCrcOfTheWhole) {
  std::vector<uint8_t> bytes(100003);
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<uint8_t>(i * 2654435761u >> 13);
  const uint32_t whole = Crc32(bytes.data(), bytes.size());
  for (size_t cut : {size_t{0}, size_t{1}, size_t{4096}, size_t{65537}, bytes.size()}) {
    const uint32_t a = Crc32(bytes.data(), cut);
    const uint32_t b = Crc32(bytes.data() + cut, bytes.size() - cut);
    EXPECT_EQ(Crc32Combine(a, b, bytes.size() - cut), whole) << "cut at " << cut;
  }
  EXPECT_EQ(Crc32(reinterpret_cast<const uint8_t*>("123456789"), 9),
            0xCBF43926u);  // CRC-32/ISO-HDLC
}

TEST(OmFileTest, NewerMinimumRuntimeIsRefusedWithBothVersions) {
  auto file = BuildFile(kFormatMajor, 7);
  auto view = VerifyOm(file.data(), file.size(), kFormatMajor, 3);
  ASSERT_FALSE(view.ok());
  EXPECT_EQ(view.status().code(), code::kDeserializeModel);
  EXPECT_NE(view.status().message().find("1.7"), std::string::npos);
  EXPECT_NE(view.status().message().find("1.3"), std::string::npos);
  EXPECT_TRUE(VerifyOm(file.data(), file.size(), kFormatMajor, 7).ok());
}

TEST(OmFileTest, OtherFormatMajorIsRefused) {
  auto file = BuildFile();
  OmHeader h;
  std::memcpy(&h, file.data(), sizeof h);
  h.format_major = 2;
  h.header_crc32 = HeaderChecksum(h);  // as a future writer would seal it
  std::memcpy(file.data(), &h, sizeof h);
  auto view = VerifyOm(file.data(), file.size(), kFormatMajor, kFormatMinor);
  ASSERT_FALSE(view.ok());
  EXPECT_EQ(view.status().code(), code::kDeserializeModel);
  EXPECT_NE(view.status().message().find("format 2.0"), std::string::npos);
  EXPECT_NE(view.status().message().find("reads format 1.x"), std::string::npos);
}

// A node naming tensor 7 of a 1-tensor graph, sealed with valid checksums: the verifier must
// refuse it before anything indexes with it.
TEST(OmFileTest, OutOfRangeIndicesAreRejectedEvenWithValidChecksums) {
  flatbuffers::FlatBufferBuilder b;
  std::vector<int64_t> dims = {1};
  auto t0 = om::CreateTensorDescDirect(b, "x", 1, &dims, nullptr, 2, om::TensorKind::Input);
  std::vector<flatbuffers::Offset<om::TensorDesc>> tensors = {t0};
  std::vector<int32_t> ins = {0}, outs = {7};
  auto node = om::CreateNodeDirect(b, "Relu", "", "r", nullptr, &ins, &outs);
  std::vector<flatbuffers::Offset<om::Node>> nodes = {node};
  std::vector<int32_t> g_in = {0}, g_out = {0};
  auto graph = om::CreateGraphDirect(b, "g", &tensors, &nodes, &g_in, &g_out);
  std::vector<flatbuffers::Offset<om::Graph>> graphs = {graph};
  om::FinishModelBuffer(b, om::CreateModelDirect(b, "m", &graphs));
  auto file = SerializeOm({"0.1.0", 1, 0, "cpu", 0}, b.GetBufferPointer(), b.GetSize(), nullptr, 0);
  auto view = VerifyOm(file.data(), file.size(), kFormatMajor, kFormatMinor);
  ASSERT_FALSE(view.ok());
  EXPECT_NE(view.status().message().find("names tensor 7 of 1"), std::string::npos)
      << view.status().message();
  flatbuffers::FlatBufferBuilder empty;
  std::vector<flatbuffers::Offset<om::Graph>> none;
  om::FinishModelBuffer(empty, om::CreateModelDirect(empty, "m", &none));
  file =
      SerializeOm({"0.1.0", 1, 0, "cpu", 0}, empty.GetBufferPointer(), empty.GetSize(), nullptr, 0);
  EXPECT_FALSE(VerifyOm(file.data(), file.size(), kFormatMajor, kFormatMinor).ok());
}

TEST(OmFileTest, JsonOfNamesThatAreNotUtf8DoesNotThrow) {
  flatbuffers::FlatBufferBuilder b;
  std::vector<int64_t> dims = {1};
  auto t0 = om::CreateTensorDescDirect(b, "bad\xff", 1, &dims, nullptr, 2, om::TensorKind::Input);
  std::vector<flatbuffers::Offset<om::TensorDesc>> tensors = {t0};
  std::vector<int32_t> io = {0};
  auto graph = om::CreateGraphDirect(b, "g", &tensors, nullptr, &io, &io);
  std::vector<flatbuffers::Offset<om::Graph>> graphs = {graph};
  om::FinishModelBuffer(b, om::CreateModelDirect(b, "m", &graphs));
  auto file = SerializeOm({"0.1.0", 1, 0, "cpu", 0}, b.GetBufferPointer(), b.GetSize(), nullptr, 0);
  auto view = VerifyOm(file.data(), file.size(), kFormatMajor, kFormatMinor);
  ASSERT_TRUE(view.ok()) << view.status().message();
  std::string json = OmToJson(*view);
  EXPECT_NE(json.find("bad"), std::string::npos);
}

TEST(SniffTest, RecognisesModelFormatsByMagic) {
  const uint8_t huawei[] = {'I', 'M', 'O', 'D', 0, 0, 0, 0};
  const uint8_t gguf[] = {'G', 'G', 'U', 'F', 3, 0, 0, 0};
  const uint8_t tflite[] = {0x1c, 0, 0, 0, 'T', 'F', 'L', '3'};
  const uint8_t onnx[] = {0x08, 0x07, 0x12, 0x07};
  const uint8_t junk[] = {'h', 'e', 'l', 'l', 'o'};
  EXPECT_EQ(Sniff(huawei, sizeof huawei), FileKind::kHuaweiOm);
  EXPECT_EQ(Sniff(gguf, sizeof gguf), FileKind::kGguf);
  EXPECT_EQ(Sniff(tflite, sizeof tflite), FileKind::kTflite);
  EXPECT_EQ(Sniff(onnx, sizeof onnx), FileKind::kOnnx);
  EXPECT_EQ(Sniff(junk, sizeof junk), FileKind::kUnknown);
  EXPECT_EQ(Sniff(nullptr, 0), FileKind::kEmpty);
  EXPECT_NE(AdviceFor(FileKind::kHuaweiOm).find("kiln atc"), std::string::npos);
  EXPECT_NE(AdviceFor(FileKind::kGguf).find("no runtime for model format 'gguf'"),
            std::string::npos);
}

}  // namespace
}  // namespace kiln::format
