// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "frontend/onnx/importer.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <climits>
#include <cstring>
#include <map>

#include "frontend/onnx/mapped_file.h"
#include "onnx/onnx_pb.h"

namespace kiln::frontend::onnx {
namespace {

namespace pb = ::onnx;

// State shared while importing one model (and its subgraphs).
struct Importer {
  std::string origin;                                           // "model 'x.onnx'" for messages
  std::string base_dir;                                         // external data root
  std::map<std::string, std::shared_ptr<MappedFile>> external;  // opened data files
  std::map<std::string, int> opsets;

  template <typename... Args>
  Status Fail(Args&&... args) {
    return Error(code::kParseModel, origin, ": ", std::forward<Args>(args)...);
  }

  Result<ir::TensorType> TypeOf(const pb::ValueInfoProto& vi);
  Result<ir::Tensor> TensorOf(const pb::TensorProto& t, const std::string& what);
  Result<ir::Tensor> ExternalTensorOf(const pb::TensorProto& t, ir::DataType dt,
                                      std::vector<int64_t> dims, size_t bytes,
                                      const std::string& what);
  Result<ir::Attribute> AttributeOf(const pb::AttributeProto& a, const std::string& node);
  Status ImportGraph(const pb::GraphProto& g, ir::Graph& out, bool top_level);
};

Result<ir::TensorType> Importer::TypeOf(const pb::ValueInfoProto& vi) {
  ir::TensorType type;
  // Untyped (no type, or a TypeProto with no value set, as exporters write for subgraph
  // outputs): inferred later.
  if (!vi.has_type() || vi.type().value_case() == pb::TypeProto::VALUE_NOT_SET) return type;
  if (!vi.type().has_tensor_type()) {
    return Error(code::kFeatureUnsupported, origin, ": value '", vi.name(),
                 "' is not a tensor (sequence, map and optional types are not supported)");
  }
  const auto& tt = vi.type().tensor_type();
  type.dtype = ir::FromOnnx(tt.elem_type());
  if (type.dtype == ir::DataType::kUndefined && tt.elem_type() != 0) {
    return Error(code::kFeatureUnsupported, origin, ": value '", vi.name(), "' has element type ",
                 tt.elem_type(), ", which Kiln does not support");
  }
  if (tt.has_shape()) {
    std::vector<ir::Dim> dims;
    for (const auto& d : tt.shape().dim()) {
      if (d.has_dim_value() && d.dim_value() > (int64_t{1} << 48)) {
        return Error(code::kParseModel, origin, ": value '", vi.name(), "' declares dim ",
                     d.dim_value(), ", larger than any tensor Kiln can hold");
      } else if (d.has_dim_value() && d.dim_value() >= 0) {
        dims.push_back(ir::Dim::Known(d.dim_value()));
      } else if (d.has_dim_param() && !d.dim_param().empty()) {
        dims.push_back(ir::Dim::Symbol(d.dim_param()));
      } else {
        dims.push_back(ir::Dim::Unknown());
      }
    }
    type.shape = ir::Shape(std::move(dims));
  }
  return type;
}

// Copies a typed repeated field into little-endian element storage of `dt`.
template <typename Src, typename Dst>
ir::Tensor FromRepeated(ir::DataType dt, std::vector<int64_t> dims,
                        const google::protobuf::RepeatedField<Src>& field) {
  std::vector<Dst> v(field.begin(), field.end());
  return ir::Tensor::Copy(dt, std::move(dims), v.data(), v.size() * sizeof(Dst));
}

Result<ir::Tensor> Importer::ExternalTensorOf(const pb::TensorProto& t, ir::DataType dt,
                                              std::vector<int64_t> dims, size_t bytes,
                                              const std::string& what) {
  std::string location;
  int64_t offset = 0, length = -1;
  for (const auto& kv : t.external_data()) {
    if (kv.key() == "location") location = kv.value();
    if (kv.key() == "offset") offset = std::strtoll(kv.value().c_str(), nullptr, 10);
    if (kv.key() == "length") length = std::strtoll(kv.value().c_str(), nullptr, 10);
  }
  if (location.empty()) return Fail(what, " has external data without a location");
  if (location.find("..") != std::string::npos || location[0] == '/') {
    return Fail(what, " names external data '", location, "' outside the model's directory");
  }
  if (base_dir.empty()) {
    return Fail(what, " has external data '", location,
                "' but the model was given as bytes with no directory to resolve it");
  }
  std::string path = base_dir + "/" + location;
  auto& file = external[path];
  if (!file) {
    auto opened = MappedFile::OpenBeneath(base_dir, location);
    if (!opened.ok()) {
      Status st = opened.status();
      return std::move(st).Annotate(StrCat(origin, ": external data of ", what));
    }
    file = *opened;
  }
  if (length < 0) length = static_cast<int64_t>(bytes);
  if (offset < 0 || static_cast<uint64_t>(offset) + static_cast<uint64_t>(length) > file->size() ||
      static_cast<size_t>(length) != bytes) {
    return Fail(what, ": external data '", location, "' offset ", offset, " length ", length,
                " does not hold the ", bytes, " bytes the tensor needs (file has ", file->size(),
                " bytes)");
  }
  // Alias the mapping: the tensor keeps the file mapped, nothing is copied.
  std::shared_ptr<const uint8_t> data(file, file->data() + offset);
  return ir::Tensor(dt, std::move(dims), std::move(data), bytes);
}

Result<ir::Tensor> Importer::TensorOf(const pb::TensorProto& t, const std::string& what) {
  ir::DataType dt = ir::FromOnnx(t.data_type());
  if (dt == ir::DataType::kUndefined || dt == ir::DataType::kString) {
    return Error(code::kFeatureUnsupported, origin, ": ", what, " has element type ", t.data_type(),
                 ", which Kiln does not support");
  }
  std::vector<int64_t> dims(t.dims().begin(), t.dims().end());
  uint64_t count = 1;
  for (int64_t d : dims) {
    if (d < 0) return Fail(what, " has a negative dimension ", d);
    if (d != 0 && count > (uint64_t{1} << 48) / static_cast<uint64_t>(d)) {
      return Fail(what, " is impossibly large");
    }
    count *= static_cast<uint64_t>(d);
  }
  const size_t bytes = static_cast<size_t>(ir::StorageBytes(dt, count));
  if (t.data_location() == pb::TensorProto::EXTERNAL) {
    return ExternalTensorOf(t, dt, std::move(dims), bytes, what);
  }
  if (t.has_raw_data()) {
    if (t.raw_data().size() != bytes) {
      return Fail(what, " holds ", t.raw_data().size(), " bytes of raw data; its type ",
                  ir::Name(dt), " and shape need ", bytes);
    }
    return ir::Tensor::Copy(dt, std::move(dims), t.raw_data().data(), bytes);
  }
  // Packed types keep one byte of elements (two 4-bit, four 2-bit ones) per int32_data entry.
  const uint64_t entries = ir::IsPacked(dt) ? bytes : count;
  auto check = [&](int n) -> Status {
    if (static_cast<uint64_t>(n) != entries) {
      return Fail(what, " holds ", n, " values; its shape needs ", entries);
    }
    return Status::Ok();
  };
  switch (dt) {
    case ir::DataType::kFloat32:
      KILN_RETURN_IF_ERROR(check(t.float_data_size()), "");
      return FromRepeated<float, float>(dt, std::move(dims), t.float_data());
    case ir::DataType::kFloat64:
      KILN_RETURN_IF_ERROR(check(t.double_data_size()), "");
      return FromRepeated<double, double>(dt, std::move(dims), t.double_data());
    case ir::DataType::kInt64:
      KILN_RETURN_IF_ERROR(check(t.int64_data_size()), "");
      return FromRepeated<int64_t, int64_t>(dt, std::move(dims), t.int64_data());
    case ir::DataType::kUint32:
    case ir::DataType::kUint64:
      KILN_RETURN_IF_ERROR(check(t.uint64_data_size()), "");
      if (dt == ir::DataType::kUint32) {
        return FromRepeated<uint64_t, uint32_t>(dt, std::move(dims), t.uint64_data());
      }
      return FromRepeated<uint64_t, uint64_t>(dt, std::move(dims), t.uint64_data());
    default:  // int32_data carries int32 and every narrower type (fp16/bf16 as bit patterns)
      KILN_RETURN_IF_ERROR(check(t.int32_data_size()), "");
      switch (ir::IsPacked(dt) ? 1 : ir::SizeOf(dt)) {
        case 1:
          return FromRepeated<int32_t, uint8_t>(dt, std::move(dims), t.int32_data());
        case 2:
          return FromRepeated<int32_t, uint16_t>(dt, std::move(dims), t.int32_data());
        default:
          return FromRepeated<int32_t, int32_t>(dt, std::move(dims), t.int32_data());
      }
  }
}

Result<ir::Attribute> Importer::AttributeOf(const pb::AttributeProto& a, const std::string& node) {
  std::string what = StrCat("attribute '", a.name(), "' of node '", node, "'");
  switch (a.type()) {
    case pb::AttributeProto::INT:
      return ir::Attribute(int64_t{a.i()});
    case pb::AttributeProto::FLOAT:
      return ir::Attribute(a.f());
    case pb::AttributeProto::STRING:
      return ir::Attribute(a.s());
    case pb::AttributeProto::INTS:
      return ir::Attribute(std::vector<int64_t>(a.ints().begin(), a.ints().end()));
    case pb::AttributeProto::FLOATS:
      return ir::Attribute(std::vector<float>(a.floats().begin(), a.floats().end()));
    case pb::AttributeProto::STRINGS:
      return ir::Attribute(std::vector<std::string>(a.strings().begin(), a.strings().end()));
    case pb::AttributeProto::TENSOR: {
      KILN_ASSIGN_OR_RETURN(ir::Tensor t, TensorOf(a.t(), what));
      return ir::Attribute(std::move(t));
    }
    case pb::AttributeProto::GRAPH: {
      auto sub = std::make_shared<ir::Graph>();
      KILN_RETURN_IF_ERROR(ImportGraph(a.g(), *sub, false), what);
      return ir::Attribute(std::move(sub));
    }
    default:
      return Error(code::kFeatureUnsupported, origin, ": ", what, " has attribute type ",
                   static_cast<int>(a.type()), ", which Kiln does not support");
  }
}

// Values a node reads: inputs/initializers of this graph, outputs of earlier nodes, or (for
// subgraphs) names of the enclosing scope, which become values without a producer here.
Status Importer::ImportGraph(const pb::GraphProto& g, ir::Graph& out, bool top_level) {
  out.set_name(g.name());
  out.opsets() = opsets;
  for (const auto& init : g.initializer()) {
    KILN_ASSIGN_OR_RETURN(ir::Tensor t, TensorOf(init, StrCat("initializer '", init.name(), "'")));
    auto v = out.AddValue(init.name(), {});
    if (!v.ok()) return Fail("initializer '", init.name(), "' is defined twice");
    (*v)->set_constant(std::move(t));
  }
  if (g.sparse_initializer_size() > 0) {
    return Error(code::kFeatureUnsupported, origin, ": sparse initializers are not supported");
  }
  for (const auto& in : g.input()) {
    if (ir::Value* existing = out.FindValue(in.name())) {
      (void)existing;  // an initializer listed as an input (IR < 4 style): a constant
      continue;
    }
    KILN_ASSIGN_OR_RETURN(ir::TensorType type, TypeOf(in));
    auto v = out.AddValue(in.name(), std::move(type));
    if (!v.ok()) return Fail("graph input '", in.name(), "' is listed twice");
    out.inputs().push_back(*v);
  }
  std::map<std::string, ir::TensorType> declared;
  for (const auto& vi : g.value_info()) {
    auto type = TypeOf(vi);
    if (type.ok()) declared[vi.name()] = *type;
  }
  for (const auto& o : g.output()) {
    KILN_ASSIGN_OR_RETURN(ir::TensorType type, TypeOf(o));
    declared[o.name()] = type;
  }
  std::map<std::string, int> unnamed;
  for (const auto& n : g.node()) {
    std::string name = n.name();
    if (name.empty()) name = StrCat(n.op_type(), "_", unnamed[n.op_type()]++);
    std::string domain = n.domain() == "ai.onnx" ? "" : n.domain();
    auto opset_it = opsets.find(domain);
    if (opset_it == opsets.end()) {
      return Fail("node '", name, "' (", n.op_type(), ") uses domain '", domain,
                  "', which the model's opset_import does not declare");
    }
    std::vector<ir::Value*> inputs;
    for (const auto& in : n.input()) {
      if (in.empty()) {
        inputs.push_back(nullptr);  // omitted optional input
        continue;
      }
      ir::Value* v = out.FindValue(in);
      if (v == nullptr) {
        if (top_level) {
          return Fail("node '", name, "' (", n.op_type(), ") reads '", in,
                      "', which is not a graph input, initializer or output of an earlier node");
        }
        v = *out.AddValue(in, {});  // captured from the enclosing graph
      }
      inputs.push_back(v);
    }
    std::vector<ir::Value*> outputs;
    for (const auto& o : n.output()) {
      if (o.empty()) {
        outputs.push_back(nullptr);
        continue;
      }
      ir::TensorType type;
      if (auto it = declared.find(o); it != declared.end()) type = it->second;
      auto v = out.AddValue(o, std::move(type));
      if (!v.ok())
        return Fail("value '", o, "' is produced twice (second time by node '", name, "')");
      outputs.push_back(*v);
    }
    auto node = out.AddNode(n.op_type(), domain, name, opset_it->second, std::move(inputs),
                            std::move(outputs));
    if (!node.ok()) return Fail(node.status().message());
    for (const auto& a : n.attribute()) {
      KILN_ASSIGN_OR_RETURN(ir::Attribute attr, AttributeOf(a, name));
      (*node)->set_attr(a.name(), std::move(attr));
    }
  }
  for (const auto& o : g.output()) {
    ir::Value* v = out.FindValue(o.name());
    if (v == nullptr) return Fail("graph output '", o.name(), "' is never produced");
    out.outputs().push_back(v);
  }
  return Status::Ok();
}

}  // namespace

Result<ImportResult> ImportBytes(const void* data, size_t size, const std::string& base_dir,
                                 const std::string& origin) {
  Importer imp;
  imp.origin = origin;
  imp.base_dir = base_dir;
  if (size == 0) return imp.Fail("the file is empty");
  if (size > static_cast<size_t>(INT_MAX)) {
    return imp.Fail("the serialized model is ", size,
                    " bytes; protobuf files are limited to 2 GiB: keep large weights as "
                    "external data");
  }
  pb::ModelProto model;
  google::protobuf::io::ArrayInputStream stream(data, static_cast<int>(size));
  google::protobuf::io::CodedInputStream coded(&stream);
  coded.SetTotalBytesLimit(INT_MAX);
  if (!model.ParseFromCodedStream(&coded) || !coded.ConsumedEntireMessage()) {
    return imp.Fail("not a valid ONNX model: the protobuf data is corrupt or truncated (parsed ",
                    coded.CurrentPosition(), " of ", size, " bytes)");
  }
  if (!model.has_graph()) return imp.Fail("the model has no graph (is this an ONNX model?)");
  if (model.ir_version() < 3) {
    return imp.Fail("IR version ", model.ir_version(), " is not supported (3 or newer needed)");
  }
  for (const auto& op : model.opset_import()) {
    std::string domain = op.domain() == "ai.onnx" ? "" : op.domain();
    imp.opsets[domain] = static_cast<int>(op.version());
  }
  auto onnx_opset = imp.opsets.find("");
  if (onnx_opset == imp.opsets.end()) {
    // Legal when no node is of the ONNX domain (a model of ai.onnx.ml or training ops only):
    // its ops are then reported as unsupported by name.
    for (const auto& n : model.graph().node()) {
      if (n.domain().empty() || n.domain() == "ai.onnx") {
        return imp.Fail("opset_import has no entry for the ONNX domain, which node '", n.name(),
                        "' (", n.op_type(), ") uses");
      }
    }
  } else if (onnx_opset->second < kMinOnnxOpset || onnx_opset->second > kMaxOnnxOpset) {
    return Error(code::kFeatureUnsupported, origin, ": ONNX opset ", onnx_opset->second,
                 " is outside the range Kiln reads (", kMinOnnxOpset, " to ", kMaxOnnxOpset,
                 "); convert it with onnx.version_converter");
  }
  ImportResult result;
  result.graph = std::make_unique<ir::Graph>();
  result.ir_version = model.ir_version();
  result.producer = model.producer_name() +
                    (model.producer_version().empty() ? "" : " " + model.producer_version());
  KILN_RETURN_IF_ERROR(imp.ImportGraph(model.graph(), *result.graph, true), "");
  return result;
}

Result<ImportResult> ImportFile(const std::string& path) {
  KILN_ASSIGN_OR_RETURN(auto file, MappedFile::Open(path));
  size_t slash = path.rfind('/');
  std::string dir = slash == std::string::npos ? "." : path.substr(0, slash);
  if (dir.empty()) dir = "/";
  return ImportBytes(file->data(), file->size(), dir, "model '" + path + "'");
}

}  // namespace kiln::frontend::onnx
