// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "frontend/onnx/importer.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fcntl.h>
#include <sys/stat.h>

#include <cstdio>
#include <fstream>
#include <random>
#include <string>

#include "ir/op_schema.h"
#include "onnx/onnx_pb.h"

namespace kiln::frontend::onnx {
namespace {

namespace pb = ::onnx;

void AddInput(pb::GraphProto* g, const std::string& name, int elem, std::vector<std::string> dims) {
  auto* vi = g->add_input();
  vi->set_name(name);
  auto* tt = vi->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(elem);
  for (const auto& d : dims) {
    auto* dim = tt->mutable_shape()->add_dim();
    if (!d.empty() && std::isdigit(static_cast<unsigned char>(d[0]))) {
      dim->set_dim_value(std::stoll(d));
    } else if (!d.empty()) {
      dim->set_dim_param(d);
    }
  }
}

pb::NodeProto* AddNode(pb::GraphProto* g, const std::string& op, std::vector<std::string> in,
                       std::vector<std::string> out, const std::string& name = "") {
  auto* n = g->add_node();
  n->set_op_type(op);
  n->set_name(name);
  for (auto& i : in) n->add_input(i);
  for (auto& o : out) n->add_output(o);
  return n;
}

pb::ModelProto AddModel(int opset = 17) {
  pb::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(opset);
  auto* g = m.mutable_graph();
  g->set_name("g");
  AddInput(g, "x", 1, {"batch", "3"});
  AddInput(g, "y", 1, {"1", "3"});
  AddNode(g, "Add", {"x", "y"}, {"z"}, "add0");
  g->add_output()->set_name("z");
  return m;
}

Result<ImportResult> Import(const pb::ModelProto& m, const std::string& dir = "") {
  std::string bytes = m.SerializeAsString();
  return ImportBytes(bytes.data(), bytes.size(), dir, "model 'test.onnx'");
}

TEST(OnnxImporterTest, ImportsGraphWithSymbolicDims) {
  auto r = Import(AddModel());
  ASSERT_TRUE(r.ok()) << r.status().message();
  const ir::Graph& g = *r->graph;
  ASSERT_EQ(g.inputs().size(), 2u);
  EXPECT_EQ(g.inputs()[0]->shape().ToString(), "[batch,3]");
  EXPECT_EQ(g.inputs()[0]->dtype(), ir::DataType::kFloat32);
  ASSERT_EQ(g.nodes().size(), 1u);
  EXPECT_EQ(g.nodes().front()->op_type(), "Add");
  EXPECT_EQ(g.nodes().front()->opset(), 17);
  EXPECT_EQ(g.nodes().front()->origins(), std::vector<std::string>{"add0"});
  EXPECT_EQ(g.outputs()[0]->name(), "z");
}

TEST(OnnxImporterTest, InitializerListedAsInputIsAConstant) {
  pb::ModelProto m = AddModel();
  auto* init = m.mutable_graph()->add_initializer();
  init->set_name("y");
  init->set_data_type(1);
  init->add_dims(1);
  init->add_dims(3);
  for (float f : {1.f, 2.f, 3.f}) init->add_float_data(f);
  auto r = Import(m);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->graph->inputs().size(), 1u);
  const ir::Tensor* c = r->graph->FindValue("y")->constant();
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->data<float>()[2], 3.f);
}

TEST(OnnxImporterTest, ToleratesUnusedExtraDomainsAndNamesUnnamedNodes) {
  pb::ModelProto m = AddModel();
  auto* extra = m.add_opset_import();
  extra->set_domain("com.microsoft.experimental");
  extra->set_version(1);
  m.mutable_graph()->mutable_node(0)->clear_name();
  auto r = Import(m);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->graph->nodes().front()->name(), "Add_0");
}

TEST(OnnxImporterTest, ModelWithoutOnnxDomainImportsWhenNoNodeNeedsIt) {
  pb::ModelProto m = AddModel();
  m.clear_opset_import();
  auto* ml = m.add_opset_import();
  ml->set_domain("ai.onnx.ml");
  ml->set_version(3);
  // An ONNX-domain node without an ONNX opset entry is an error naming the node.
  auto bad = Import(m);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("node 'add0' (Add)"), std::string::npos)
      << bad.status().message();
  // The same graph of ai.onnx.ml nodes only imports; its ops are judged later, by name.
  m.mutable_graph()->mutable_node(0)->set_domain("ai.onnx.ml");
  auto ok = Import(m);
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ(ok->graph->nodes().front()->domain(), "ai.onnx.ml");
}

TEST(OnnxImporterTest, RejectsOpsetsOutsideTheSupportedRange) {
  auto r = Import(AddModel(6));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), code::kFeatureUnsupported);
  EXPECT_NE(r.status().message().find("opset 6"), std::string::npos);
}

TEST(OnnxImporterTest, TruncatedAndGarbageBytesGiveParseErrors) {
  std::string bytes = AddModel().SerializeAsString();
  for (size_t cut : {bytes.size() / 2, bytes.size() - 1, size_t{3}}) {
    auto r = ImportBytes(bytes.data(), cut, "", "model 'cut.onnx'");
    ASSERT_FALSE(r.ok()) << cut;
    EXPECT_NE(r.status().message().find("model 'cut.onnx'"), std::string::npos);
  }
  std::string garbage(256, '\xff');
  EXPECT_EQ(ImportBytes(garbage.data(), garbage.size(), "", "g").status().code(),
            code::kParseModel);
  EXPECT_EQ(ImportBytes("", 0, "", "e").status().code(), code::kParseModel);
}

TEST(OnnxImporterTest, EveryTruncationOfAModelFailsCleanly) {
  pb::ModelProto m = AddModel();
  auto* init = m.mutable_graph()->add_initializer();
  init->set_name("w");
  init->set_data_type(1);
  init->add_dims(4);
  init->set_raw_data(std::string(16, '\x01'));
  std::string bytes = m.SerializeAsString();
  for (size_t cut = 0; cut < bytes.size(); ++cut) {
    auto r = ImportBytes(bytes.data(), cut, "", "m");
    EXPECT_FALSE(r.ok()) << "prefix of " << cut << " bytes imported";
  }
}

TEST(OnnxImporterTest, RawDataOfTheWrongSizeIsReported) {
  pb::ModelProto m = AddModel();
  auto* init = m.mutable_graph()->add_initializer();
  init->set_name("w");
  init->set_data_type(1);
  init->add_dims(4);
  init->set_raw_data(std::string(15, '\0'));
  auto r = Import(m);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("initializer 'w'"), std::string::npos);
  EXPECT_NE(r.status().message().find("15 bytes"), std::string::npos);
}

// An initializer 'w' of 4 floats stored externally (its external_data entries left to the test).
pb::TensorProto* AddExternalFloats(pb::ModelProto& m) {
  auto* init = m.mutable_graph()->add_initializer();
  init->set_name("w");
  init->set_data_type(1);
  init->add_dims(4);
  init->set_data_location(pb::TensorProto::EXTERNAL);
  return init;
}

TEST(OnnxImporterTest, ReadsExternalDataBesideTheModel) {
  char dir[] = "/tmp/kiln-ext-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  float values[4] = {1.5f, -2.f, 3.25f, 4.f};
  {
    std::ofstream f(std::string(dir) + "/weights.bin", std::ios::binary);
    char pad[8] = {0};
    f.write(pad, 8);
    f.write(reinterpret_cast<const char*>(values), sizeof values);
  }
  pb::ModelProto m = AddModel();
  pb::TensorProto* init = AddExternalFloats(m);
  auto add_kv = [&](const char* k, const char* v) {
    auto* e = init->add_external_data();
    e->set_key(k);
    e->set_value(v);
  };
  add_kv("location", "weights.bin");
  add_kv("offset", "8");
  add_kv("length", "16");
  auto r = Import(m, dir);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const ir::Tensor* w = r->graph->FindValue("w")->constant();
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->data<float>()[2], 3.25f);
  // A length that does not match the tensor is an error naming the file.
  init->mutable_external_data(2)->set_value("12");
  auto bad = Import(m, dir);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("weights.bin"), std::string::npos);
  std::remove((std::string(dir) + "/weights.bin").c_str());
  rmdir(dir);
}

// External data is contained by resolution, not spelling: a name inside the model's folder
// that is a symbolic link to a file outside it is refused (an .om must not embed whatever the
// link points at), as are a FIFO and a folder; a link to a file inside the folder is followed.
TEST(OnnxImporterTest, ExternalDataThatResolvesOutsideTheModelsFolderIsRefused) {
  char dir[] = "/tmp/kiln-ext-XXXXXX", outside[] = "/tmp/kiln-out-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  ASSERT_NE(mkdtemp(outside), nullptr);
  const std::string d(dir), o(outside);
  float values[4] = {1.5f, -2.f, 3.25f, 4.f};
  for (const std::string& file : {d + "/real.bin", o + "/secret.bin"}) {
    std::ofstream(file, std::ios::binary).write(reinterpret_cast<const char*>(values), 16);
  }
  ASSERT_EQ(symlink((o + "/secret.bin").c_str(), (d + "/link.bin").c_str()), 0);
  ASSERT_EQ(symlink(("../" + o.substr(5) + "/secret.bin").c_str(), (d + "/rel.bin").c_str()), 0);
  ASSERT_EQ(symlink("real.bin", (d + "/inside.bin").c_str()), 0);
  ASSERT_EQ(mkfifo((d + "/fifo.bin").c_str(), 0644), 0);
  ASSERT_EQ(mkdir((d + "/sub.bin").c_str(), 0755), 0);
  auto import = [&](const char* location) {
    pb::ModelProto m = AddModel();
    auto* e = AddExternalFloats(m)->add_external_data();
    e->set_key("location");
    e->set_value(location);
    return Import(m, dir);
  };
  for (const char* bad : {"link.bin", "rel.bin"}) {
    auto r = import(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.status().message().find("resolves outside"), std::string::npos)
        << r.status().message();
  }
  for (const char* bad : {"fifo.bin", "sub.bin"}) {
    auto r = import(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.status().message().find("not a regular file"), std::string::npos)
        << r.status().message();
  }
  auto good = import("inside.bin");
  ASSERT_TRUE(good.ok()) << good.status().message();
  EXPECT_EQ(good->graph->FindValue("w")->constant()->data<float>()[2], 3.25f);
  for (const char* f : {"/real.bin", "/link.bin", "/rel.bin", "/inside.bin", "/fifo.bin"}) {
    std::remove((d + f).c_str());
  }
  rmdir((d + "/sub.bin").c_str());
  std::remove((o + "/secret.bin").c_str());
  rmdir(dir);
  rmdir(outside);
}

TEST(OnnxImporterTest, ReadingAnUndefinedValueIsReported) {
  pb::ModelProto m = AddModel();
  AddNode(m.mutable_graph(), "Relu", {"nowhere"}, {"r"}, "relu0");
  auto r = Import(m);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("'relu0'"), std::string::npos);
  EXPECT_NE(r.status().message().find("'nowhere'"), std::string::npos);
}

TEST(OnnxImporterTest, MissingFileIsInvalidFile) {
  auto r = ImportFile("/nonexistent/model.onnx");
  EXPECT_EQ(r.status().code(), code::kInvalidFile);
}

TEST(OnnxImporterTest, RandomCorruptionsOfARealModelNeverCrash) {
  std::ifstream in(KILN_TEST_MODELS "/mnist-8/model.onnx", std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_GT(bytes.size(), 1000u);
  std::mt19937 rng(1234);
  int rejected = 0;
  for (int trial = 0; trial < 400; ++trial) {
    std::string copy = bytes;
    int flips = 1 + static_cast<int>(rng() % 4);
    for (int f = 0; f < flips; ++f) copy[rng() % copy.size()] ^= static_cast<char>(1 + rng() % 255);
    auto r = ImportBytes(copy.data(), copy.size(), "", "model 'corrupt.onnx'");
    if (!r.ok()) {
      ++rejected;
      EXPECT_NE(r.status().message().find("corrupt.onnx"), std::string::npos)
          << r.status().message();
      continue;
    }
    // A corruption that still parses (e.g. inside weight bytes) must infer or fail cleanly.
    Status st = ir::InferGraph(ir::OpRegistry::Global(), *r->graph);
    (void)st;
  }
  EXPECT_GT(rejected, 0);
}

TEST(OnnxImporterTest, MapsExternalDataLargerThanTwoGigabytesWithoutCopying) {
  char dir[] = "/tmp/kiln-big-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const int64_t elems = (int64_t{5} << 28);  // 5 * 2^28 floats = 5 GiB
  std::string data_path = std::string(dir) + "/big.bin";
  int fd = ::open(data_path.c_str(), O_CREAT | O_WRONLY, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(ftruncate(fd, elems * 4), 0);  // sparse: no disk space, no time
  ::close(fd);
  pb::ModelProto m = AddModel();
  auto* init = m.mutable_graph()->add_initializer();
  init->set_name("huge");
  init->set_data_type(1);
  init->add_dims(elems);
  init->set_data_location(pb::TensorProto::EXTERNAL);
  auto* loc = init->add_external_data();
  loc->set_key("location");
  loc->set_value("big.bin");
  std::string model_path = std::string(dir) + "/big.onnx";
  std::ofstream(model_path, std::ios::binary) << m.SerializeAsString();
  auto r = ImportFile(model_path);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const ir::Tensor* t = r->graph->FindValue("huge")->constant();
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->bytes(), static_cast<size_t>(elems) * 4);
  EXPECT_EQ(t->data<float>()[elems - 1], 0.0f);
  r = ImportResult{};
  std::remove(data_path.c_str());
  std::remove(model_path.c_str());
  rmdir(dir);
}

TEST(OnnxImporterTest, ImportsTheMnistModel) {
  auto r = ImportFile(KILN_TEST_MODELS "/mnist-8/model.onnx");
  ASSERT_TRUE(r.ok()) << r.status().message();
  const ir::Graph& g = *r->graph;
  ASSERT_EQ(g.inputs().size(), 1u);
  EXPECT_EQ(g.inputs()[0]->name(), "Input3");
  EXPECT_EQ(g.inputs()[0]->shape().ToString(), "[1,1,28,28]");
  ASSERT_EQ(g.outputs().size(), 1u);
  EXPECT_EQ(g.outputs()[0]->name(), "Plus214_Output_0");
  EXPECT_GT(g.nodes().size(), 5u);
}

}  // namespace
}  // namespace kiln::frontend::onnx
