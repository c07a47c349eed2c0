// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Dynamic gears (--dynamic_batch_size, --dynamic_image_size, --dynamic_dims): the flag rules,
// the per-gear plans written into the .om, and the `kiln atc` gear table.
#include "compiler/gears.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "atc/atc.h"
#include "compiler/compile.h"
#include "format/om_file.h"
#include "format/om_generated.h"

namespace kiln::compiler {
namespace {

// ---------------------------------------------------------------------------------------------
// ONNX models, written with a minimal protobuf encoder (this test binary does not link the
// generated ONNX classes). Field numbers are those of onnx.proto.

class Pb {
 public:
  Pb& Varint(int field, uint64_t v) {
    Key(field, 0);
    Raw(v);
    return *this;
  }
  Pb& Bytes(int field, const std::string& s) {
    Key(field, 2);
    Raw(s.size());
    out_ += s;
    return *this;
  }
  Pb& Msg(int field, const Pb& m) { return Bytes(field, m.out_); }
  const std::string& str() const { return out_; }

 private:
  void Key(int field, int wire) { Raw(static_cast<uint64_t>(field) << 3 | wire); }
  void Raw(uint64_t v) {
    while (v >= 0x80) {
      out_ += static_cast<char>(v | 0x80);
      v >>= 7;
    }
    out_ += static_cast<char>(v);
  }
  std::string out_;
};

constexpr int kFloat = 1;  // TensorProto.DataType
constexpr int kInt64 = 7;

class Model {
 public:
  // A graph input; a dim < 0 is dynamic (named dim_param "d<i>").
  Model& Input(const std::string& name, const std::vector<int64_t>& dims, int dtype = kFloat) {
    Pb shape;
    for (size_t i = 0; i < dims.size(); ++i) {
      Pb dim;
      if (dims[i] >= 0) {
        dim.Varint(1, static_cast<uint64_t>(dims[i]));
      } else {
        dim.Bytes(2, name + "_d" + std::to_string(i));
      }
      shape.Msg(1, dim);
    }
    Pb tensor;
    tensor.Varint(1, static_cast<uint64_t>(dtype)).Msg(2, shape);
    Pb type;
    type.Msg(1, tensor);
    Pb info;
    info.Bytes(1, name).Msg(2, type);
    graph_.Msg(11, info);
    return *this;
  }
  Model& Output(const std::string& name) {
    Pb info;
    info.Bytes(1, name);
    outputs_.Msg(12, info);
    return *this;
  }
  Model& Floats(const std::string& name, const std::vector<int64_t>& dims) {
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    std::vector<float> data(static_cast<size_t>(n), 0.5f);
    return Init(name, dims, kFloat,
                std::string(reinterpret_cast<const char*>(data.data()), data.size() * 4));
  }
  Model& Int64s(const std::string& name, const std::vector<int64_t>& dims,
                const std::vector<int64_t>& values) {
    return Init(name, dims, kInt64,
                std::string(reinterpret_cast<const char*>(values.data()), values.size() * 8));
  }
  // A node; `ints` are INTS attributes, `i` INT attributes.
  Model& Node(const std::string& op, const std::vector<std::string>& in,
              const std::vector<std::string>& out,
              const std::map<std::string, std::vector<int64_t>>& ints = {},
              const std::map<std::string, int64_t>& i = {}) {
    Pb node;
    for (const auto& v : in) node.Bytes(1, v);
    for (const auto& v : out) node.Bytes(2, v);
    node.Bytes(3, op + "_" + std::to_string(++nodes_)).Bytes(4, op);
    for (const auto& [name, values] : ints) {
      Pb attr;
      attr.Bytes(1, name);
      for (int64_t v : values) attr.Varint(8, static_cast<uint64_t>(v));
      attr.Varint(20, 7);  // INTS
      node.Msg(5, attr);
    }
    for (const auto& [name, value] : i) {
      Pb attr;
      attr.Bytes(1, name).Varint(3, static_cast<uint64_t>(value)).Varint(20, 2);  // INT
      node.Msg(5, attr);
    }
    graph_.Msg(1, node);
    return *this;
  }
  std::string Write(const std::string& path) const {
    Pb graph = graph_;
    graph.Bytes(2, "g");
    std::string bytes = graph.str() + outputs_.str();
    Pb opset;
    opset.Bytes(1, "").Varint(2, 17);
    Pb model;
    model.Varint(1, 8).Bytes(2, "gears-test").Msg(8, opset).Bytes(7, bytes);
    std::ofstream(path, std::ios::binary) << model.str();
    return path;
  }

 private:
  Model& Init(const std::string& name, const std::vector<int64_t>& dims, int dtype,
              const std::string& raw) {
    Pb t;
    for (int64_t d : dims) t.Varint(1, static_cast<uint64_t>(d));
    t.Varint(2, static_cast<uint64_t>(dtype)).Bytes(8, name).Bytes(9, raw);
    graph_.Msg(5, t);
    return *this;
  }
  Pb graph_, outputs_;
  int nodes_ = 0;
};

// x[N,3,8,8] → Conv(4 filters 3x3, pad 1) → Relu → a[N,4,8,8] → Conv(2 filters, pad 1) → Relu →
// y[N,2,8,8]. Each Conv+Relu fuses into one FusedConv; `a` is the only workspace tensor:
// N*4*8*8*4 = 1024*N bytes. Weights: w1 432 bytes (64-aligned: 448) + w2 288 = 768 bytes.
std::string ConvModel(const std::string& path, const std::vector<int64_t>& x_dims) {
  return Model()
      .Input("x", x_dims)
      .Floats("w1", {4, 3, 3, 3})
      .Floats("w2", {2, 4, 3, 3})
      .Node("Conv", {"x", "w1"}, {"c1"}, {{"pads", {1, 1, 1, 1}}})
      .Node("Relu", {"c1"}, {"a"})
      .Node("Conv", {"a", "w2"}, {"c2"}, {{"pads", {1, 1, 1, 1}}})
      .Node("Relu", {"c2"}, {"y"})
      .Output("y")
      .Write(path);
}

// p[P,4], q[Q,4] → Relu each → rp[P,4], rq[Q,4] (both live until the Concat) → out[P+Q,4].
std::string ConcatModel(const std::string& path) {
  return Model()
      .Input("p", {-1, 4})
      .Input("q", {-1, 4})
      .Node("Relu", {"p"}, {"rp"})
      .Node("Relu", {"q"}, {"rq"})
      .Node("Concat", {"rp", "rq"}, {"out"}, {}, {{"axis", 0}})
      .Output("out")
      .Write(path);
}

// x[N,4,2,2] → Relu → r; Shape(r) → Gather 0 → Unsqueeze → Concat with -1 → Reshape(r) →
// z[N,16] → Neg → out: z's shape is computed from the batch at run time.
std::string ReshapeModel(const std::string& path) {
  return Model()
      .Input("x", {-1, 4, 2, 2})
      .Int64s("zero", {}, {0})
      .Int64s("axes0", {1}, {0})
      .Int64s("minus1", {1}, {-1})
      .Node("Relu", {"x"}, {"r"})
      .Node("Shape", {"r"}, {"s"})
      .Node("Gather", {"s", "zero"}, {"s0"})
      .Node("Unsqueeze", {"s0", "axes0"}, {"s0u"})
      .Node("Concat", {"s0u", "minus1"}, {"newshape"}, {}, {{"axis", 0}})
      .Node("Reshape", {"r", "newshape"}, {"z"})
      .Node("Neg", {"z"}, {"out"})
      .Output("out")
      .Write(path);
}

class TempDir {
 public:
  TempDir() {
    char t[] = "/tmp/kiln-gears-XXXXXX";
    path_ = mkdtemp(t);
  }
  ~TempDir() { std::system(("rm -rf " + path_).c_str()); }
  std::string operator/(const std::string& f) const { return path_ + "/" + f; }

 private:
  std::string path_;
};

// A compiled .om, read back.
class Om {
 public:
  explicit Om(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    bytes_.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    auto view =
        format::VerifyOm(bytes_.data(), bytes_.size(), format::kFormatMajor, format::kFormatMinor);
    EXPECT_TRUE(view.ok()) << view.status().message();
    if (view.ok()) model_ = om::GetModel(view->graph);
  }
  const om::Model* operator->() const { return model_; }
  bool ok() const { return model_ != nullptr; }
  const om::Graph& main() const { return *model_->graphs()->Get(0); }
  int Index(const std::string& name) const {
    const auto* tensors = main().tensors();
    for (uint32_t i = 0; i < tensors->size(); ++i) {
      if (tensors->Get(i)->name()->str() == name) return static_cast<int>(i);
    }
    return -1;
  }
  const om::TensorDesc& Tensor(const std::string& name) const {
    return *main().tensors()->Get(static_cast<uint32_t>(Index(name)));
  }
  std::vector<std::string> GearDims() const {
    std::vector<std::string> out;
    if (model_->gear_dims()) {
      for (auto s : *model_->gear_dims()) out.push_back(s->str());
    }
    return out;
  }
  // Gear `g`'s dims of tensor `name`; empty when the gear does not list it.
  std::vector<int64_t> GearTensorDims(uint32_t g, const std::string& name) const {
    int index = Index(name);
    for (auto td : *model_->gears()->Get(g)->tensor_dims()) {
      if (td->tensor() == index) return Vec(td->dims());
    }
    return {};
  }
  static std::vector<int64_t> Vec(const flatbuffers::Vector<int64_t>* v) {
    return v ? std::vector<int64_t>(v->begin(), v->end()) : std::vector<int64_t>{};
  }

 private:
  std::vector<uint8_t> bytes_;
  const om::Model* model_ = nullptr;
};

using Dims = std::vector<int64_t>;

Result<CompileReport> CompileWithGears(const std::string& model, const std::string& output,
                                       const GearFlags& flags) {
  auto gears = ParseGears(flags);
  if (!gears.ok()) return gears.status();
  auto shapes = ParseInputShape(flags.input_shape);
  if (!shapes.ok()) return shapes.status();
  CompileOptions opt;
  opt.model = model;
  opt.output = output;
  opt.input_shapes = *shapes;
  opt.gears = *gears;
  return atc::Compile(opt);
}

// ---------------------------------------------------------------------------------------------
// Flag parsing.

TEST(GearsTest, BatchGearsSetTheFirstDimOfEveryInputWhoseFirstDimIsMinusOne) {
  GearFlags f;
  f.input_shape = "x:-1,3,224,224;y:-1,10;z:5,2";
  f.dynamic_batch_size = "1,2,4,8";
  auto c = ParseGears(f);
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->kind, GearKind::kBatch);
  ASSERT_EQ(c->slots.size(), 1u);
  EXPECT_EQ(c->slots[0], (std::vector<GearTarget>{{"x", 0}, {"y", 0}}));
  EXPECT_EQ(c->gears, (std::vector<Dims>{{1}, {2}, {4}, {8}}));
  EXPECT_EQ(c->SlotNames(), (std::vector<std::string>{"x:0;y:0"}));
  EXPECT_EQ(c->text, "1,2,4,8");
}

TEST(GearsTest, ImageSizeGearsSetHAndWAtDims2And3ForNchw) {
  GearFlags f;
  f.input_shape = "img:1,3,-1,-1;scale:1,2";
  f.dynamic_image_size = "224,224;448,320";
  auto c = ParseGears(f);
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->kind, GearKind::kImageSize);
  EXPECT_EQ(c->SlotNames(), (std::vector<std::string>{"img:2", "img:3"}));
  EXPECT_EQ(c->gears, (std::vector<Dims>{{224, 224}, {448, 320}}));
}

TEST(GearsTest, ImageSizeGearsSetHAndWAtDims1And2ForNhwc) {
  GearFlags f;
  f.input_shape = "a:1,-1,-1,3;b:2,-1,-1,3";
  f.input_format = "NHWC";
  f.dynamic_image_size = "16,16;32,8";
  auto c = ParseGears(f);
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->SlotNames(), (std::vector<std::string>{"a:1;b:1", "a:2;b:2"}));
}

TEST(GearsTest, DimsGearsGiveOneValuePerMinusOneInTheOrderOfInputShape) {
  GearFlags f;
  f.input_shape = "b:-1,4;a:2,-1,-1";  // b before a: --input_shape's order, not the names'
  f.dynamic_dims = "1,2,3;4,5,6";
  f.input_format = "ND";
  auto c = ParseGears(f);
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->kind, GearKind::kDims);
  EXPECT_EQ(c->SlotNames(), (std::vector<std::string>{"b:0", "a:1", "a:2"}));
  EXPECT_EQ(c->gears, (std::vector<Dims>{{1, 2, 3}, {4, 5, 6}}));
}

TEST(GearsTest, NoGearFlagMeansNoGears) {
  GearFlags f;
  f.input_shape = "x:-1,3";
  auto c = ParseGears(f);
  ASSERT_TRUE(c.ok());
  EXPECT_FALSE(c->enabled());
  EXPECT_TRUE(c->gears.empty());
}

TEST(GearsTest, EveryBrokenRuleIsAnInvalidParamNamingTheFlagAndItsValue) {
  struct Case {
    GearFlags flags;
    std::string flag;  // expected in the message, with the value
    std::string why;   // expected in the message
  };
  auto batch = [](std::string shape, std::string value) {
    GearFlags f;
    f.input_shape = std::move(shape);
    f.dynamic_batch_size = std::move(value);
    return f;
  };
  auto image = [](std::string shape, std::string value, std::string format = "") {
    GearFlags f;
    f.input_shape = std::move(shape);
    f.dynamic_image_size = std::move(value);
    f.input_format = std::move(format);
    return f;
  };
  auto dims = [](std::string shape, std::string value, std::string format = "") {
    GearFlags f;
    f.input_shape = std::move(shape);
    f.dynamic_dims = std::move(value);
    f.input_format = std::move(format);
    return f;
  };
  GearFlags two = batch("x:-1,3,-1,-1", "1,2");
  two.dynamic_image_size = "8,8;16,16";
  std::string hundred_and_one;
  for (int i = 1; i <= 101; ++i) {
    if (i > 1) hundred_and_one += ",";
    hundred_and_one += std::to_string(i);
  }
  const Case cases[] = {
      {two, "--dynamic_image_size=\"8,8;16,16\"", "mutually exclusive"},
      {batch("", "1,2"), "--dynamic_batch_size=\"1,2\"", "needs --input_shape"},
      {batch("x:1~8,3", "1,2"), "--dynamic_batch_size=\"1,2\"", "shape range (a~b)"},
      {batch("x:-1,-1", "1,2"), "--dynamic_batch_size=\"1,2\"", "-1 at dim 1"},
      {batch("x:1,3", "1,2"), "--dynamic_batch_size=\"1,2\"", "needs -1 as the first dim"},
      {batch("x:-1,3", "1,0,4"), "--dynamic_batch_size=\"1,0,4\"", "'0' is not a positive"},
      {batch("x:-1,3", "1,-2"), "--dynamic_batch_size=\"1,-2\"", "'-2' is not a positive"},
      {batch("x:-1,3", "1,b"), "--dynamic_batch_size=\"1,b\"", "'b' is not a positive"},
      {batch("x:-1,3", "1,,2"), "--dynamic_batch_size=\"1,,2\"", "'' is not a positive"},
      {batch("x:-1,3", "4"), "--dynamic_batch_size=\"4\"", "gives 1 gear(s); give 2 to 100"},
      {batch("x:-1,3", hundred_and_one), "--dynamic_batch_size=\"1,2,3", "gives 101 gear(s)"},
      {batch("x:-1,3", "1,2,2"), "--dynamic_batch_size=\"1,2,2\"", "'2' is given twice"},
      {batch("x:-1,3;x:-1,4", "1,2"), "--input_shape", "names input 'x' twice"},
      {batch("x:1,a", "1,2"), "--input_shape", "'a' is not a dim"},
      {image("x:1,3,-1,8", "8,8;4,4"), "--dynamic_image_size=\"8,8;4,4\"",
       "-1 at H and W (dims 2 and 3 for NCHW) and nowhere else; it has -1 at dim(s) 2"},
      {image("x:-1,3,-1,-1", "8,8;4,4"), "--dynamic_image_size=\"8,8;4,4\"",
       "it has -1 at dim(s) 0,2,3"},
      {image("x:3,-1,-1", "8,8;4,4"), "--dynamic_image_size=\"8,8;4,4\"", "must be 4-D"},
      {image("x:1,3,-1,-1", "8,8;4,4", "NHWC"), "--dynamic_image_size=\"8,8;4,4\"",
       "(dims 1 and 2 for NHWC)"},
      {image("x:1,3,-1,-1", "8,8;4,4", "ND"), "--dynamic_image_size=\"8,8;4,4\"",
       "needs --input_format NCHW or NHWC, not 'ND'"},
      {image("x:1,3,8,8", "8,8;4,4"), "--dynamic_image_size=\"8,8;4,4\"",
       "needs -1 at H and W of at least one input"},
      {image("x:1,3,-1,-1", "8,8,8;4,4"), "--dynamic_image_size=\"8,8,8;4,4\"",
       "gear '8,8,8' has 3 value(s); each gear needs 2"},
      {image("x:1,3,-1,-1", "8,8"), "--dynamic_image_size=\"8,8\"", "gives 1 gear(s)"},
      {image("x:1,3,-1,-1", "8,8;8,8"), "--dynamic_image_size=\"8,8;8,8\"",
       "gear '8,8' is given twice"},
      {image("x:1,3,-1~-1,-1", "8,8;4,4"), "--input_shape", "must be low~high"},
      {dims("x:-1,-1", "1;2"), "--dynamic_dims=\"1;2\"", "gear '1' has 1 value(s); each gear "},
      {dims("x:-1,-1", "1,2;3,4", "NCHW"), "--dynamic_dims=\"1,2;3,4\"",
       "needs --input_format ND (or none), not 'NCHW'"},
      {dims("x:1,2", "1;2"), "--dynamic_dims=\"1;2\"", "needs at least one -1"},
      {dims("x:-1,2", "1"), "--dynamic_dims=\"1\"", "gives 1 gear(s)"},
      {dims("x:-1,-1", "1,2;1,2"), "--dynamic_dims=\"1,2;1,2\"", "gear '1,2' is given twice"},
      {dims("x:-1,2~4", "1;2"), "--dynamic_dims=\"1;2\"", "'x:-1,2~4'"},
  };
  for (const Case& c : cases) {
    auto r = ParseGears(c.flags);
    ASSERT_FALSE(r.ok()) << c.flag << " / " << c.why;
    EXPECT_EQ(r.status().code(), code::kInvalidParam) << r.status().message();
    EXPECT_NE(r.status().message().find(c.flag), std::string::npos) << r.status().message();
    EXPECT_NE(r.status().message().find(c.why), std::string::npos) << r.status().message();
  }
}

// ---------------------------------------------------------------------------------------------
// Compiling.

TEST(GearsTest, BatchGearsGetOnePlanEachWithWorkProportionalToTheBatch) {
  TempDir dir;
  GearFlags f;
  f.input_shape = "x:-1,3,8,8";
  f.dynamic_batch_size = "1,2,4";
  auto report = CompileWithGears(ConvModel(dir / "conv.onnx", {-1, 3, 8, 8}), dir / "conv", f);
  ASSERT_TRUE(report.ok()) << report.status().message();
  ASSERT_EQ(report->gears.size(), 3u);
  // a[N,4,8,8] float: 1024 bytes per batch.
  EXPECT_EQ(report->gears[0].work_size, 1024u);
  EXPECT_EQ(report->gears[1].work_size, 2048u);
  EXPECT_EQ(report->gears[2].work_size, 4096u);
  EXPECT_EQ(report->work_size, 4096u);
  EXPECT_EQ(report->weight_size, 768u);
  EXPECT_EQ(report->gear_kind, GearKind::kBatch);

  Om m(report->output_path);
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->gear_kind(), om::GearKind::Batch);
  EXPECT_EQ(m.GearDims(), (std::vector<std::string>{"x:0"}));
  EXPECT_EQ(m->work_size(), 4096u);
  ASSERT_EQ(m->gears()->size(), 3u);
  const Dims batches{1, 2, 4};
  for (uint32_t g = 0; g < 3; ++g) {
    const int64_t n = batches[g];
    EXPECT_EQ(Om::Vec(m->gears()->Get(g)->values()), (Dims{n}));
    EXPECT_EQ(m->gears()->Get(g)->work_size(), 1024u * static_cast<uint64_t>(n));
    EXPECT_EQ(m.GearTensorDims(g, "x"), (Dims{n, 3, 8, 8}));
    EXPECT_EQ(m.GearTensorDims(g, "a"), (Dims{n, 4, 8, 8}));
    EXPECT_EQ(m.GearTensorDims(g, "y"), (Dims{n, 2, 8, 8}));
    EXPECT_EQ(m.GearTensorDims(g, "w1"), Dims{});  // the same in every gear: not listed
  }
  // The main graph is the dynamic one, sized for the largest gear.
  EXPECT_EQ(Om::Vec(m.Tensor("x").dims()), (Dims{-1, 3, 8, 8}));
  EXPECT_EQ(m.Tensor("x").bytes(), 4u * 3 * 8 * 8 * 4);
  EXPECT_EQ(m.Tensor("a").offset(), 0u);
  EXPECT_EQ(m.Tensor("a").bytes(), 4096u);
  EXPECT_EQ(m.Tensor("y").bytes(), 4u * 2 * 8 * 8 * 4);
  // The gear input: int64[1], the last input.
  const auto* inputs = m.main().inputs();
  ASSERT_EQ(inputs->size(), 2u);
  EXPECT_EQ(inputs->Get(0), m.Index("x"));
  const om::TensorDesc& gear = *m.main().tensors()->Get(static_cast<uint32_t>(inputs->Get(1)));
  EXPECT_EQ(gear.name()->str(), "ascend_mbatch_shape_data");
  EXPECT_EQ(gear.kind(), om::TensorKind::Gear);
  EXPECT_EQ(gear.dtype(), kInt64);
  EXPECT_EQ(Om::Vec(gear.dims()), (Dims{1}));
  EXPECT_EQ(gear.bytes(), 8u);
}

TEST(GearsTest, ImageSizeGearsBindHeightAndWidth) {
  TempDir dir;
  GearFlags f;
  f.input_shape = "x:1,3,-1,-1";
  f.dynamic_image_size = "8,8;4,12";
  auto report = CompileWithGears(ConvModel(dir / "conv.onnx", {1, 3, -1, -1}), dir / "conv", f);
  ASSERT_TRUE(report.ok()) << report.status().message();
  // a[1,4,H,W] float = 16*H*W bytes.
  ASSERT_EQ(report->gears.size(), 2u);
  EXPECT_EQ(report->gears[0].work_size, 16u * 8 * 8);
  EXPECT_EQ(report->gears[1].work_size, 16u * 4 * 12);
  Om m(report->output_path);
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->gear_kind(), om::GearKind::ImageSize);
  EXPECT_EQ(m.GearDims(), (std::vector<std::string>{"x:2", "x:3"}));
  EXPECT_EQ(m->work_size(), 1024u);
  EXPECT_EQ(Om::Vec(m->gears()->Get(1)->values()), (Dims{4, 12}));
  EXPECT_EQ(m.GearTensorDims(0, "y"), (Dims{1, 2, 8, 8}));
  EXPECT_EQ(m.GearTensorDims(1, "y"), (Dims{1, 2, 4, 12}));
  const auto* inputs = m.main().inputs();
  const om::TensorDesc& gear =
      *m.main().tensors()->Get(static_cast<uint32_t>(inputs->Get(inputs->size() - 1)));
  EXPECT_EQ(gear.kind(), om::TensorKind::Gear);
  EXPECT_EQ(Om::Vec(gear.dims()), (Dims{2}));
}

TEST(GearsTest, DimsGearsWhoseLargestTensorsComeFromDifferentGearsShareOneLayout) {
  TempDir dir;
  GearFlags f;
  f.input_shape = "p:-1,4;q:-1,4";
  f.dynamic_dims = "2,16;16,2";
  auto report = CompileWithGears(ConcatModel(dir / "cat.onnx"), dir / "cat", f);
  ASSERT_TRUE(report.ok()) << report.status().message();
  // Gear 2,16: rp 2*4*4 = 32 bytes (64 aligned), rq 16*4*4 = 256: both live, 320. Gear 16,2 the
  // same the other way round. Every gear fits the layout of rp and rq at 256 bytes each: 512.
  ASSERT_EQ(report->gears.size(), 2u);
  EXPECT_EQ(report->gears[0].work_size, 320u);
  EXPECT_EQ(report->gears[1].work_size, 320u);
  EXPECT_EQ(report->work_size, 512u);
  Om m(report->output_path);
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->gear_kind(), om::GearKind::Dims);
  EXPECT_EQ(m.GearDims(), (std::vector<std::string>{"p:0", "q:0"}));
  EXPECT_EQ(m->work_size(), 512u);
  EXPECT_EQ(m.Tensor("rp").bytes(), 256u);
  EXPECT_EQ(m.Tensor("rq").bytes(), 256u);
  EXPECT_NE(m.Tensor("rp").offset(), m.Tensor("rq").offset());
  EXPECT_EQ(m.GearTensorDims(0, "out"), (Dims{18, 4}));
  EXPECT_EQ(m.GearTensorDims(1, "rp"), (Dims{16, 4}));
  EXPECT_EQ(m.GearTensorDims(1, "rq"), (Dims{2, 4}));
  const auto* inputs = m.main().inputs();
  ASSERT_EQ(inputs->size(), 3u);
  const om::TensorDesc& gear = *m.main().tensors()->Get(static_cast<uint32_t>(inputs->Get(2)));
  EXPECT_EQ(gear.name()->str(), "ascend_mbatch_shape_data");
  EXPECT_EQ(Om::Vec(gear.dims()), (Dims{2}));
}

TEST(GearsTest, ShapeArithmeticIsEvaluatedPerGearSoReshapedTensorsArePlanned) {
  TempDir dir;
  GearFlags f;
  f.input_shape = "x:-1,4,2,2";
  f.dynamic_batch_size = "1,2";
  auto report = CompileWithGears(ReshapeModel(dir / "reshape.onnx"), dir / "reshape", f);
  ASSERT_TRUE(report.ok()) << report.status().message();
  Om m(report->output_path);
  ASSERT_TRUE(m.ok());
  // The Shape sub-graph stays (the batch is dynamic), but each gear knows z's shape.
  EXPECT_GE(m.Index("newshape"), 0);
  EXPECT_EQ(m.GearTensorDims(0, "z"), (Dims{1, 16}));
  EXPECT_EQ(m.GearTensorDims(1, "z"), (Dims{2, 16}));
  // So z has a place in the workspace, sized for batch 2: 2*16*4 bytes.
  EXPECT_NE(m.Tensor("z").offset(), UINT64_MAX);
  EXPECT_EQ(m.Tensor("z").bytes(), 128u);
  EXPECT_EQ(m.GearTensorDims(1, "out"), (Dims{2, 16}));
}

TEST(GearsTest, AnInPlaceOutputKeepsItsOwnStorageUnlessItFitsInPlaceInEveryGear) {
  TempDir dir;
  // a[P,1] → Relu → ra; Add(ra, b[1,Q]) → s[P,Q] (Add may run in place of ra when the sizes
  // match) → Neg → out.
  std::string model = Model()
                          .Input("a", {-1, 1})
                          .Input("b", {1, -1})
                          .Node("Relu", {"a"}, {"ra"})
                          .Node("Add", {"ra", "b"}, {"s"})
                          .Node("Neg", {"s"}, {"out"})
                          .Output("out")
                          .Write(dir / "add.onnx");
  GearFlags f;
  f.input_shape = "a:-1,1;b:1,-1";
  // Gear 4,1: ra and s are 16 bytes, s runs in place (64 aligned). Gear 1,4: ra 4 bytes, s 16:
  // s cannot overwrite ra while it broadcasts it, so both are planned: 128. Their largest sizes
  // are equal (16), yet the shared layout must not pair them.
  f.dynamic_dims = "4,1;1,4";
  auto report = CompileWithGears(model, dir / "add", f);
  ASSERT_TRUE(report.ok()) << report.status().message();
  EXPECT_EQ(report->gears[0].work_size, 64u);
  EXPECT_EQ(report->gears[1].work_size, 128u);
  EXPECT_EQ(report->work_size, 128u);
  {
    Om m(report->output_path);
    ASSERT_TRUE(m.ok());
    EXPECT_EQ(m.Tensor("s").alias_of(), -1);
    EXPECT_EQ(m.Tensor("s").bytes(), 64u);  // its largest size, aligned; not the planning slack
    EXPECT_NE(m.Tensor("s").offset(), m.Tensor("ra").offset());
  }
  // Where it fits in every gear, s stays in place: P*4 bytes, 32 for the largest gear.
  f.dynamic_dims = "4,1;8,1";
  report = CompileWithGears(model, dir / "add", f);
  ASSERT_TRUE(report.ok()) << report.status().message();
  EXPECT_EQ(report->work_size, 64u);
  Om m(report->output_path);
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m.Tensor("s").alias_of(), m.Index("ra"));
}

TEST(GearsTest, AGearThatDoesNotCompileIsNamed) {
  TempDir dir;
  // Reshape to a fixed [4,12]: only batch 4 (4*3*4 = 48 elements) fits.
  std::string model = Model()
                          .Input("x", {-1, 3, 4})
                          .Int64s("shape", {2}, {4, 12})
                          .Node("Reshape", {"x", "shape"}, {"y"})
                          .Output("y")
                          .Write(dir / "fixed.onnx");
  GearFlags f;
  f.input_shape = "x:-1,3,4";
  f.dynamic_batch_size = "4,2";
  auto report = CompileWithGears(model, dir / "fixed", f);
  ASSERT_FALSE(report.ok());
  EXPECT_NE(report.status().message().find("gear '2' of --dynamic_batch_size=\"4,2\""),
            std::string::npos)
      << report.status().message();
}

TEST(GearsTest, AModelValueNamedLikeTheGearInputIsRefused) {
  TempDir dir;
  std::string model = Model()
                          .Input("ascend_mbatch_shape_data", {-1, 4})
                          .Node("Relu", {"ascend_mbatch_shape_data"}, {"y"})
                          .Output("y")
                          .Write(dir / "clash.onnx");
  GearFlags f;
  f.input_shape = "ascend_mbatch_shape_data:-1,4";
  f.dynamic_batch_size = "1,2";
  auto report = CompileWithGears(model, dir / "clash", f);
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(report.status().code(), code::kInvalidParam);
  EXPECT_NE(report.status().message().find("rename it"), std::string::npos)
      << report.status().message();
}

TEST(GearsTest, AModelCompiledWithoutGearsHasNoGearInput) {
  TempDir dir;
  GearFlags f;
  f.input_shape = "x:2,3,8,8";
  auto report = CompileWithGears(ConvModel(dir / "conv.onnx", {-1, 3, 8, 8}), dir / "conv", f);
  ASSERT_TRUE(report.ok()) << report.status().message();
  EXPECT_TRUE(report->gears.empty());
  EXPECT_EQ(report->work_size, 2048u);
  Om m(report->output_path);
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->gear_kind(), om::GearKind::None);
  EXPECT_EQ(m->gears(), nullptr);
  EXPECT_EQ(m.main().inputs()->size(), 1u);
  EXPECT_EQ(m.Index("ascend_mbatch_shape_data"), -1);
}

// ---------------------------------------------------------------------------------------------
// The command line.

// The kiln binary of this build tree: <build>/tools/kiln/kiln next to <build>/tests/unit.
std::string KilnBinary() {
  char self[4096] = {};
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  std::string dir = n > 0 ? std::string(self, static_cast<size_t>(n)) : "";
  dir = dir.substr(0, dir.rfind('/'));
  return dir + "/../../tools/kiln/kiln";
}

std::string RunKiln(const std::string& args, int* rc) {
  std::string cmd = KilnBinary() + " " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  std::string out;
  char buf[4096];
  while (p && fgets(buf, sizeof buf, p)) out += buf;
  int status = p ? pclose(p) : -1;
  *rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return out;
}

using Table = std::vector<std::vector<std::string>>;

// The rows of the memory table (the 5-field lines after its header line), each split at
// whitespace; empty when the output has no table.
Table MemoryTable(const std::string& out) {
  const std::vector<std::string> header{"gear", "work_size", "weight_size", "peak",
                                        "no_reuse_work_size"};
  std::istringstream lines(out);
  std::string line;
  Table rows;
  bool in_table = false;
  while (std::getline(lines, line)) {
    std::istringstream fields(line);
    std::vector<std::string> row;
    std::string field;
    while (fields >> field) row.push_back(field);
    if (row == header) {
      in_table = true;
    } else if (in_table && row.size() == header.size()) {
      rows.push_back(row);
    } else {
      in_table = false;
    }
  }
  return rows;
}

TEST(GearsTest, AtcPrintsTheLargestGearAndWithDisplayModelInfoOneRowPerGear) {
  ASSERT_EQ(access(KilnBinary().c_str(), X_OK), 0)
      << KilnBinary() << " is missing: build the kiln target";
  TempDir dir;
  std::string model = ConvModel(dir / "conv.onnx", {-1, 3, 8, 8});
  int rc = 0;
  std::string base = "atc --framework=5 --model=" + model + " --output=" + (dir / "conv") +
                     " --input_shape=x:-1,3,8,8 --dynamic_batch_size=4,1,2";
  std::string out = RunKiln(base, &rc);
  ASSERT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("gear 4 (largest of 3, dynamic_batch_size): work size 4096 bytes, weight "
                     "size 768 bytes, peak 4864 bytes"),
            std::string::npos)
      << out;
  EXPECT_TRUE(MemoryTable(out).empty()) << out;  // no table without --display_model_info=1

  out = RunKiln(base + " --display_model_info=1", &rc);
  ASSERT_EQ(rc, 0) << out;
  // gear, work, weight, peak, no-reuse work: one row per gear, in the flag's order.
  EXPECT_EQ(MemoryTable(out), (Table{{"4", "4096", "768", "4864", "4096"},
                                     {"1", "1024", "768", "1792", "1024"},
                                     {"2", "2048", "768", "2816", "2048"}}))
      << out;
  EXPECT_EQ(out.find("share one layout"), std::string::npos) << out;
  EXPECT_NE(out.find("ATC run success"), std::string::npos) << out;

  // The flag is recorded with the other options.
  out = RunKiln("atc --mode=6 --om=" + (dir / "conv.om"), &rc);
  ASSERT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("dynamic_batch_size: 4,1,2"), std::string::npos) << out;
}

TEST(GearsTest, AtcPrintsTheSharedLayoutWhenItIsLargerThanEveryGear) {
  ASSERT_EQ(access(KilnBinary().c_str(), X_OK), 0) << KilnBinary() << " is missing";
  TempDir dir;
  int rc = 0;
  std::string out = RunKiln("atc --framework=5 --model=" + ConcatModel(dir / "cat.onnx") +
                                " --output=" + (dir / "cat") +
                                " --input_shape='p:-1,4;q:-1,4' --dynamic_dims='2,16;16,2' "
                                "--display_model_info=1",
                            &rc);
  ASSERT_EQ(rc, 0) << out;
  // No-reuse work: rp and rq, 64 + 256 bytes in either gear.
  EXPECT_EQ(MemoryTable(out),
            (Table{{"2,16", "320", "0", "320", "320"}, {"16,2", "320", "0", "320", "320"}}))
      << out;
  EXPECT_NE(out.find("all gears share one layout: work size 512 bytes, peak 512 bytes"),
            std::string::npos)
      << out;
}

TEST(GearsTest, AtcFailsWithTheRuleAGearFlagBreaks) {
  ASSERT_EQ(access(KilnBinary().c_str(), X_OK), 0) << KilnBinary() << " is missing";
  TempDir dir;
  int rc = 0;
  std::string out = RunKiln(
      "atc --framework=5 --model=" + ConvModel(dir / "conv.onnx", {-1, 3, 8, 8}) +
          " --output=" + (dir / "conv") + " --input_shape=x:2,3,8,8 --dynamic_batch_size=1,2",
      &rc);
  EXPECT_EQ(rc, 1) << out;
  EXPECT_NE(out.find("ATC run failed"), std::string::npos) << out;
  EXPECT_NE(out.find("[aclError 100000] --dynamic_batch_size=\"1,2\" needs -1 as the first dim"),
            std::string::npos)
      << out;
  EXPECT_NE(access((dir / "conv.om").c_str(), F_OK), 0);  // nothing written
}

}  // namespace
}  // namespace kiln::compiler
