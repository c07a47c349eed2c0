// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The compiler facade end to end (ONNX file → .om) and the `kiln atc` command line.
#include "compiler/compile.h"
#include "atc/atc.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "compiler/om_inspect.h"
#include "onnx/onnx_pb.h"

namespace kiln::compiler {
namespace {

namespace pb = ::onnx;

class TempDir {
 public:
  TempDir() {
    char t[] = "/tmp/kiln-compile-XXXXXX";
    path_ = mkdtemp(t);
  }
  ~TempDir() { std::system(("rm -rf " + path_).c_str()); }
  std::string operator/(const std::string& f) const { return path_ + "/" + f; }

 private:
  std::string path_;
};

pb::TensorProto* FloatInit(pb::GraphProto* g, const std::string& name, std::vector<int64_t> dims,
                           float fill) {
  auto* t = g->add_initializer();
  t->set_name(name);
  t->set_data_type(pb::TensorProto::FLOAT);
  int64_t n = 1;
  for (auto d : dims) {
    t->add_dims(d);
    n *= d;
  }
  for (int64_t i = 0; i < n; ++i) t->add_float_data(fill + 0.01f * static_cast<float>(i % 7));
  return t;
}

pb::NodeProto* Node(pb::GraphProto* g, const std::string& op, const std::string& name,
                    std::vector<std::string> in, std::vector<std::string> out) {
  auto* n = g->add_node();
  n->set_op_type(op);
  n->set_name(name);
  for (auto& i : in) n->add_input(i);
  for (auto& o : out) n->add_output(o);
  return n;
}

// x[batch,3,8,8] → Conv → BatchNormalization → Relu → Identity → y, plus a static shape
// sub-graph Shape → Gather → Unsqueeze → Concat → Reshape producing z.
std::string WriteModel(const std::string& path, const std::string& extra_op = "") {
  pb::ModelProto m;
  m.set_ir_version(8);
  m.set_producer_name("kiln-test");
  m.add_opset_import()->set_version(17);
  auto* g = m.mutable_graph();
  g->set_name("small");
  auto* x = g->add_input();
  x->set_name("x");
  auto* tt = x->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(pb::TensorProto::FLOAT);
  tt->mutable_shape()->add_dim()->set_dim_param("batch");
  for (int d : {3, 8, 8}) tt->mutable_shape()->add_dim()->set_dim_value(d);
  FloatInit(g, "w", {4, 3, 3, 3}, 0.1f);
  FloatInit(g, "b", {4}, 0.0f);
  FloatInit(g, "scale", {4}, 1.0f);
  FloatInit(g, "bias", {4}, 0.5f);
  FloatInit(g, "mean", {4}, 0.2f);
  FloatInit(g, "var", {4}, 1.0f);
  auto* conv = Node(g, "Conv", "conv1", {"x", "w", "b"}, {"c"});
  auto* pads = conv->add_attribute();
  pads->set_name("pads");
  pads->set_type(pb::AttributeProto::INTS);
  for (int p : {1, 1, 1, 1}) pads->add_ints(p);
  Node(g, "BatchNormalization", "bn1", {"c", "scale", "bias", "mean", "var"}, {"n"});
  Node(g, "Relu", "relu1", {"n"}, {"r"});
  Node(g, "Identity", "id1", {"r"}, {"y"});
  auto* idx = g->add_initializer();
  idx->set_name("zero");
  idx->set_data_type(pb::TensorProto::INT64);
  idx->add_int64_data(0);
  auto* minus1 = g->add_initializer();
  minus1->set_name("minus1");
  minus1->set_data_type(pb::TensorProto::INT64);
  minus1->add_dims(1);
  minus1->add_int64_data(-1);
  auto* axes = g->add_initializer();
  axes->set_name("axes0");
  axes->set_data_type(pb::TensorProto::INT64);
  axes->add_dims(1);
  axes->add_int64_data(0);
  Node(g, "Shape", "shape1", {"r"}, {"s"});
  Node(g, "Gather", "gather1", {"s", "zero"}, {"s0"});
  Node(g, "Unsqueeze", "unsq1", {"s0", "axes0"}, {"s0u"});
  auto* cat = Node(g, "Concat", "cat1", {"s0u", "minus1"}, {"newshape"});
  auto* axis = cat->add_attribute();
  axis->set_name("axis");
  axis->set_type(pb::AttributeProto::INT);
  axis->set_i(0);
  Node(g, "Reshape", "reshape1", {"r", "newshape"}, {"z"});
  g->add_output()->set_name("y");
  g->add_output()->set_name("z");
  if (!extra_op.empty()) {
    Node(g, extra_op, "odd1", {"y"}, {"o1"});
    Node(g, "Relu", "after_odd", {"o1"}, {"o2"});
    Node(g, extra_op + "Too", "odd2", {"o2"}, {"o3"});
    g->add_output()->set_name("o3");
  }
  std::ofstream(path, std::ios::binary) << m.SerializeAsString();
  return path;
}

TEST(CompileTest, ParsesAtcInputShapes) {
  auto s = ParseInputShape("x:1,3,224,224;y:-1,10;z:1~8,3");
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ((*s)["x"], (std::vector<int64_t>{1, 3, 224, 224}));
  EXPECT_EQ((*s)["y"], (std::vector<int64_t>{-1, 10}));
  EXPECT_EQ((*s)["z"], (std::vector<int64_t>{-1, 3}));
  for (const char* bad : {"x", "x:1,a", "x:8~1", "x:-2", ":1,2"}) {
    EXPECT_EQ(ParseInputShape(bad).status().code(), code::kInvalidParam) << bad;
  }
}

TEST(CompileTest, CompilesFusesFoldsAndRecordsOrigins) {
  TempDir dir;
  CompileOptions opt;
  opt.model = WriteModel(dir / "small.onnx");
  opt.output = dir / "small";
  opt.input_shapes = {{"x", {2, 3, 8, 8}}};
  auto report = atc::Compile(opt);
  ASSERT_TRUE(report.ok()) << report.status().message();
  EXPECT_EQ(report->output_path, dir / "small.om");
  // After folding, the conv writes the graph output y and the reshape reads it: every tensor
  // lives in a caller's buffer, so no workspace is needed.
  EXPECT_EQ(report->work_size, 0u);
  auto json = OmFileToJson(report->output_path);
  ASSERT_TRUE(json.ok()) << json.status().message();
  auto j = nlohmann::json::parse(*json);
  const auto& nodes = j["graphs"][0]["nodes"];
  std::vector<std::string> ops;
  for (const auto& n : nodes) ops.push_back(n["op_type"]);
  // Conv+BN folded, Relu fused, Identity dropped, the shape sub-graph folded to a constant.
  EXPECT_EQ(ops, (std::vector<std::string>{"FusedConv", "Reshape"}));
  std::vector<std::string> origins = nodes[0]["origins"];
  // The dropped Identity handed its output name to the conv, so its name is kept too.
  EXPECT_EQ(origins, (std::vector<std::string>{"conv1", "bn1", "relu1", "id1"}));
  bool found_z = false;
  for (const auto& t : j["graphs"][0]["tensors"]) {
    if (t["name"] == "z") {
      found_z = true;
      EXPECT_EQ(t["dims"], nlohmann::json({2, 256}));
      EXPECT_EQ(t["kind"], "Output");
    }
  }
  EXPECT_TRUE(found_z);
}

// x → Conv → MaxPool → Conv → y: channels_last keeps the middle values NHWC for the CPU's
// kernels; a CUDA target's kernels take NCHW, so its .om carries no layout flags.
TEST(CompileTest, LayoutPassesRunForCpuTargetsOnly) {
  TempDir dir;
  pb::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(17);
  auto* g = m.mutable_graph();
  auto* x = g->add_input();
  x->set_name("x");
  auto* tt = x->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(pb::TensorProto::FLOAT);
  for (int d : {1, 8, 16, 16}) tt->mutable_shape()->add_dim()->set_dim_value(d);
  FloatInit(g, "w1", {8, 8, 3, 3}, 0.1f);
  FloatInit(g, "w2", {8, 8, 3, 3}, -0.1f);
  Node(g, "Conv", "c1", {"x", "w1"}, {"a"});
  auto* pool = Node(g, "MaxPool", "p1", {"a"}, {"b"});
  auto* k = pool->add_attribute();
  k->set_name("kernel_shape");
  k->set_type(pb::AttributeProto::INTS);
  for (int v : {2, 2}) k->add_ints(v);
  Node(g, "Conv", "c2", {"b", "w2"}, {"y"});
  g->add_output()->set_name("y");
  const std::string model = dir / "two_convs.onnx";
  std::ofstream(model, std::ios::binary) << m.SerializeAsString();
  for (const char* target : {"", "cpu", "cuda", "sm_90"}) {
    CompileOptions opt;
    opt.model = model;
    opt.output = dir / (std::string("m_") + target);
    opt.target = target;
    auto report = atc::Compile(opt);
    ASSERT_TRUE(report.ok()) << target << ": " << report.status().message();
    auto json = OmFileToJson(report->output_path);
    ASSERT_TRUE(json.ok()) << json.status().message();
    int flags = 0;
    const auto parsed = nlohmann::json::parse(*json);
    for (const auto& n : parsed["graphs"][0]["nodes"]) {
      for (const auto& [name, value] : n["attributes"].items()) {
        flags += name.rfind("kiln_", 0) == 0 && name.find("nhwc") != std::string::npos;
      }
    }
    const std::string t = target;
    if (t == "cuda" || t == "sm_90") {
      EXPECT_EQ(flags, 0) << target;
    } else {
      EXPECT_GT(flags, 0) << "target '" << target << "': channels_last left the convs NCHW";
    }
  }
}

TEST(CompileTest, PreCheckListsEveryUnsupportedNode) {
  TempDir dir;
  CompileOptions opt;
  opt.model = WriteModel(dir / "odd.onnx", "FancyOp");
  auto problems = atc::PreCheck(opt);
  ASSERT_TRUE(problems.ok()) << problems.status().message();
  ASSERT_EQ(problems->size(), 2u);
  EXPECT_EQ((*problems)[0].node, "odd1");
  EXPECT_EQ((*problems)[0].op_type, "FancyOp");
  EXPECT_EQ((*problems)[1].node, "odd2");
  EXPECT_EQ((*problems)[1].code, code::kFeatureUnsupported);
  opt.output = dir / "odd";
  auto report = atc::Compile(opt);
  ASSERT_FALSE(report.ok());
  EXPECT_NE(report.status().message().find("FancyOp 'odd1' (opset 17)"), std::string::npos);
}

// x → If(cond){then: FancyOp(x) (unsupported), else: Relu(x)} → y; the body is checked too.
TEST(CompileTest, UnsupportedOpsInsideIfBodiesAreFound) {
  TempDir dir;
  pb::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(17);
  auto* g = m.mutable_graph();
  auto input = [](pb::ValueInfoProto* vi, const char* name, int type) {
    vi->set_name(name);
    auto* tt = vi->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(type);
    tt->mutable_shape()->add_dim()->set_dim_value(4);
  };
  input(g->add_input(), "x", pb::TensorProto::FLOAT);
  auto* cond = g->add_input();
  cond->set_name("cond");
  cond->mutable_type()->mutable_tensor_type()->set_elem_type(pb::TensorProto::BOOL);
  cond->mutable_type()->mutable_tensor_type()->mutable_shape();
  auto* iff = Node(g, "If", "if1", {"cond"}, {"y"});
  for (auto [attr, op] :
       {std::pair<const char*, const char*>{"then_branch", "FancyOp"}, {"else_branch", "Relu"}}) {
    auto* a = iff->add_attribute();
    a->set_name(attr);
    a->set_type(pb::AttributeProto::GRAPH);
    auto* body = a->mutable_g();
    body->set_name(attr);
    Node(body, op, std::string(attr) + "_op", {"x"}, {std::string(attr) + "_out"});
    body->add_output()->set_name(std::string(attr) + "_out");
  }
  g->add_output()->set_name("y");
  std::ofstream(dir / "if.onnx", std::ios::binary) << m.SerializeAsString();
  CompileOptions opt;
  opt.model = dir / "if.onnx";
  auto problems = atc::PreCheck(opt);
  ASSERT_TRUE(problems.ok()) << problems.status().message();
  ASSERT_EQ(problems->size(), 1u);
  EXPECT_EQ((*problems)[0].node, "then_branch_op");
  opt.output = dir / "if";
  auto report = atc::Compile(opt);
  ASSERT_FALSE(report.ok());
  EXPECT_NE(report.status().message().find("in then_branch of If 'if1'"), std::string::npos)
      << report.status().message();
}

TEST(CompileTest, UnknownInputShapeNameIsReported) {
  TempDir dir;
  CompileOptions opt;
  opt.model = WriteModel(dir / "small.onnx");
  opt.output = dir / "small";
  opt.input_shapes = {{"image", {1, 3, 8, 8}}};
  auto report = atc::Compile(opt);
  ASSERT_FALSE(report.ok());
  EXPECT_NE(report.status().message().find("image"), std::string::npos);
  EXPECT_NE(report.status().message().find("x"), std::string::npos);
}

TEST(CompileTest, NotAnOmFileIsNamedByDescribe) {
  auto d = DescribeOmFile(KILN_TEST_MODELS "/mnist-8/model.onnx");
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.status().message().find("ONNX"), std::string::npos);
  EXPECT_NE(d.status().message().find("kiln atc"), std::string::npos);
}

// The command line: output lines and exit codes as ATC prints them.
std::string RunKiln(const std::string& args, int* rc) {
  std::string cmd = std::string(KILN_BINARY) + " " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  std::string out;
  char buf[4096];
  while (p && fgets(buf, sizeof buf, p)) out += buf;
  int status = p ? pclose(p) : -1;
  *rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return out;
}

TEST(AtcCliTest, CompilesMnistAndPrintsAtcLines) {
  TempDir dir;
  int rc = 0;
  std::string out =
      RunKiln("atc --framework=5 --model=" KILN_TEST_MODELS "/mnist-8/model.onnx --output=" +
                  (dir / "mnist") + " --soc_version=Ascend310 --display_model_info=1",
              &rc);
  EXPECT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("ATC run success, welcome to the next use."), std::string::npos) << out;
  EXPECT_NE(out.find("Ascend310 is an Ascend SoC"), std::string::npos);
  EXPECT_NE(out.find("work_size"), std::string::npos);
  out = RunKiln("atc --mode=6 --om=" + (dir / "mnist.om"), &rc);
  EXPECT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("input  Input3: dtype 1, dims [1,1,28,28]"), std::string::npos) << out;
  out = RunKiln("atc --mode=1 --om=" + (dir / "mnist.om") + " --json=" + (dir / "m.json"), &rc);
  EXPECT_EQ(rc, 0) << out;
  std::ifstream in(dir / "m.json");
  auto j = nlohmann::json::parse(in);
  EXPECT_EQ(j["graphs"][0]["outputs"].size(), 1u);
}

TEST(AtcCliTest, RefusesOtherFrameworksAndFailsWithAtcLine) {
  int rc = 0;
  std::string out = RunKiln("atc --framework=3 --model=x.pb --output=x", &rc);
  EXPECT_EQ(rc, 1);
  EXPECT_NE(out.find("ATC run failed"), std::string::npos);
  EXPECT_NE(out.find("export to ONNX"), std::string::npos);
  out = RunKiln("atc --framework=5 --model=/nonexistent.onnx --output=/tmp/x", &rc);
  EXPECT_EQ(rc, 1);
  EXPECT_NE(out.find("/nonexistent.onnx"), std::string::npos);
}

TEST(AtcCliTest, OutputSelectionAndDtypesReachTheOm) {
  TempDir dir;
  int rc = 0;
  std::string model = " --framework=5 --model=" KILN_TEST_MODELS "/mnist-8/model.onnx";
  std::string out =
      RunKiln("atc" + model + " --output=" + (dir / "m") +
                  " --out_nodes=Plus214:0 --output_type=FP16 --input_fp16_nodes=Input3",
              &rc);
  ASSERT_EQ(rc, 0) << out;
  out = RunKiln("atc --mode=6 --om=" + (dir / "m.om"), &rc);
  EXPECT_NE(out.find("input  Input3: dtype 10"), std::string::npos) << out;  // float16
  EXPECT_NE(out.find("output Plus214_Output_0: dtype 10"), std::string::npos) << out;
  out = RunKiln("atc" + model + " --output=" + (dir / "x") + " --out_nodes=NoSuchNode:0", &rc);
  EXPECT_EQ(rc, 1);
  EXPECT_NE(out.find("NoSuchNode"), std::string::npos) << out;
  out = RunKiln("atc" + model + " --output=" + (dir / "x") + " --output_type=FP17", &rc);
  EXPECT_EQ(rc, 1);
  EXPECT_NE(out.find("FP17"), std::string::npos) << out;
}

TEST(AtcCliTest, AippConfigIsValidatedAgainstTheModelAndRecorded) {
  TempDir dir;
  std::ofstream(dir / "ok.cfg") << "aipp_op {\n  aipp_mode : static\n  input_format : YUV400_U8\n"
                                   "  src_image_size_w : 28\n  src_image_size_h : 28\n}\n";
  std::ofstream(dir / "bad.cfg")
      << "aipp_op {\n  aipp_mode : static\n  input_format : RGB888_U8\n}\n";
  int rc = 0;
  std::string model = " --framework=5 --model=" KILN_TEST_MODELS "/mnist-8/model.onnx";
  std::string out = RunKiln(
      "atc" + model + " --output=" + (dir / "a") + " --insert_op_conf=" + (dir / "ok.cfg"), &rc);
  ASSERT_EQ(rc, 0) << out;
  auto json = OmFileToJson(dir / "a.om");
  ASSERT_TRUE(json.ok());
  auto j = nlohmann::json::parse(*json);
  EXPECT_EQ(j["aipp"]["0.input_format"], "YUV400_U8");
  out = RunKiln(
      "atc" + model + " --output=" + (dir / "b") + " --insert_op_conf=" + (dir / "bad.cfg"), &rc);
  EXPECT_EQ(rc, 1);
  EXPECT_NE(out.find("bad.cfg:3"), std::string::npos) << out;  // the file and the line
  EXPECT_NE(out.find("C = 1"), std::string::npos) << out;
  // --input_shape names the input as the ONNX file has it, also when AIPP then makes that input
  // an image (the binding ran again after AIPP insertion and refused the image's shape).
  out = RunKiln("atc" + model + " --output=" + (dir / "c") +
                    " --insert_op_conf=" + (dir / "ok.cfg") + " --input_shape=Input3:1,1,28,28",
                &rc);
  EXPECT_EQ(rc, 0) << out;
}

TEST(AtcCliTest, AGearTheModelCannotTakeIsNamed) {
  TempDir dir;
  int rc = 0;
  // mnist-8 reshapes to a fixed [1,256]: batch 4 cannot work, and the error says where.
  std::string out = RunKiln(
      "atc --framework=5 --model=" KILN_TEST_MODELS "/mnist-8/model.onnx --output=" + (dir / "g") +
          " --input_shape=Input3:-1,1,28,28 --dynamic_batch_size=1,4",
      &rc);
  EXPECT_EQ(rc, 1);
  EXPECT_NE(out.find("gear '4' of --dynamic_batch_size=\"1,4\""), std::string::npos) << out;
  EXPECT_NE(out.find("Reshape 'Times212_reshape0'"), std::string::npos) << out;
}

TEST(AtcCliTest, DisplayAndJsonShowTheGears) {
  TempDir dir;
  int rc = 0;
  std::string out = RunKiln("atc --framework=5 --model=" KILN_TEST_MODELS
                            "/yunet/yunet_n_dynamic.onnx --output=" +
                                (dir / "g") +
                                " --input_shape=input:1,3,-1,-1 "
                                "--dynamic_image_size=\"160,160;320,320\"",
                            &rc);
  ASSERT_EQ(rc, 0) << out;
  out = RunKiln("atc --mode=6 --om=" + (dir / "g.om"), &rc);
  EXPECT_NE(out.find("dynamic gears (ImageSize): input:2 input:3"), std::string::npos) << out;
  EXPECT_NE(out.find("  gear 320,320: work size"), std::string::npos) << out;
  auto json = OmFileToJson(dir / "g.om");
  ASSERT_TRUE(json.ok());
  auto j = nlohmann::json::parse(*json);
  ASSERT_EQ(j["gears"].size(), 2u);
  EXPECT_EQ(j["gears"][1]["values"], nlohmann::json({320, 320}));
  // Every activation of a fully convolutional net scales with H*W: 4x the pixels, 4x the work.
  EXPECT_EQ(j["gears"][1]["work_size"].get<uint64_t>(),
            4 * j["gears"][0]["work_size"].get<uint64_t>());
}

TEST(AtcCliTest, SingleDashLongOptionsAreAccepted) {
  TempDir dir;
  int rc = 0;
  std::string out = RunKiln(
      "atc -framework=5 -model=" KILN_TEST_MODELS "/mnist-8/model.onnx -output=" + (dir / "m"),
      &rc);
  EXPECT_EQ(rc, 0) << out;
}

}  // namespace
}  // namespace kiln::compiler
