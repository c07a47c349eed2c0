// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "compiler/single_op.h"

#include <cstring>
#include <sstream>

#include "base/str_cat.h"
#include "compiler/cann_ops.h"
#include "compiler/compile.h"
#include "compiler/single_op_json.h"
#include "format/om_file.h"
#include "format/om_generated.h"
#include "ir/op_schema.h"

namespace kiln::compiler {
namespace {

struct TypeRow {
  int32_t acl;
  ir::DataType ir;
};

// aclDataType numbers of the types Kiln computes with.
constexpr TypeRow kTypes[] = {
    {0, ir::DataType::kFloat32},  {1, ir::DataType::kFloat16},  {2, ir::DataType::kInt8},
    {3, ir::DataType::kInt32},    {4, ir::DataType::kUint8},    {6, ir::DataType::kInt16},
    {7, ir::DataType::kUint16},   {8, ir::DataType::kUint32},   {9, ir::DataType::kInt64},
    {10, ir::DataType::kUint64},  {11, ir::DataType::kFloat64}, {12, ir::DataType::kBool},
    {27, ir::DataType::kBFloat16}};

// aclFormat numbers and names; the plain layouts Kiln runs (the Ascend fractal and 5HD ones are
// refused when compiling).
struct FormatRow {
  int32_t acl;
  const char* name;
  bool plain;
};
constexpr FormatRow kFormats[] = {
    {0, "NCHW", true},           {1, "NHWC", true},       {2, "ND", true},
    {3, "NC1HWC0", false},       {4, "FRACTAL_Z", false}, {12, "NC1HWC0_C04", false},
    {15, "CHWN", true},          {16, "HWCN", true},      {27, "NDHWC", true},
    {29, "FRACTAL_NZ", false},   {30, "NCDHW", true},     {32, "NDC1HWC0", false},
    {33, "FRACTAL_Z_3D", false}, {35, "NC", true},        {47, "NCL", true}};

const FormatRow* FindFormat(int32_t f) {
  for (const FormatRow& r : kFormats) {
    if (r.acl == f) return &r;
  }
  return nullptr;
}

std::string TensorText(const OpTensorDesc& t) {
  if (t.omitted()) return "(omitted)";
  std::string s = AclDataTypeName(t.dtype) + " " + AclFormatName(t.format) + " " + DimsText(t.dims);
  if (t.is_const) s += " const";
  return s;
}

bool InRange(const OpTensorDesc& model, const std::vector<int64_t>& dims) {
  if (model.dims.size() == 1 && model.dims[0] == -2) return true;  // any rank
  if (model.dims.size() != dims.size()) return false;
  size_t r = 0;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (model.dims[i] >= 0) {
      if (model.dims[i] != dims[i]) return false;
      continue;
    }
    if (r < model.range.size()) {
      const auto [lo, hi] = model.range[r];
      if (dims[i] < lo || (hi >= 0 && dims[i] > hi)) return false;
    }
    ++r;
  }
  return true;
}

// Whether a call's tensor `call` is one the model's tensor `model` takes.
bool TensorMatches(const OpTensorDesc& model, const OpTensorDesc& call) {
  if (model.dtype != call.dtype || model.format != call.format) return false;
  if (model.is_const != call.is_const) return false;
  if (model.is_const && model.const_value != call.const_value) return false;
  return model.dynamic() ? InRange(model, call.dims) : model.dims == call.dims;
}

Status CheckTensor(const SingleOpDesc& d, const OpTensorDesc& t, const char* kind, size_t i) {
  if (t.omitted()) return Status::Ok();
  const std::string where = StrCat(d.op_type, ": ", kind, " ", i, " (", TensorText(t), ")");
  if (DataTypeOfAcl(t.dtype) == ir::DataType::kUndefined) {
    return Error(code::kUnsupportedDataType, where, ": Kiln has no data type ", t.dtype);
  }
  const FormatRow* f = FindFormat(t.format);
  if (f == nullptr || !f->plain) {
    return Error(code::kInvalidParam, where, ": format ", AclFormatName(t.format),
                 " is not supported (Kiln runs the plain layouts: ND, NCHW, NHWC, HWCN, ...)");
  }
  if (t.is_const) {
    for (int64_t v : t.dims) {
      if (v < 0) return Error(code::kInvalidParam, where, ": a const tensor needs static dims");
    }
    int64_t n = 1;
    for (int64_t v : t.dims) n *= v;
    const uint64_t bytes = ir::StorageBytes(DataTypeOfAcl(t.dtype), static_cast<uint64_t>(n));
    if (t.const_value.size() != bytes) {
      return Error(code::kInvalidParam, where, ": its const value has ", t.const_value.size(),
                   " bytes; its dims and type need ", bytes);
    }
  }
  if (t.dims.size() == 1 && t.dims[0] == -2) {
    return Error(code::kInvalidParam, where, ": unknown rank (-2) is not supported");
  }
  return Status::Ok();
}

// The table's operator for `d` with `d`'s inputs checked: kOpNotFound for a type not in the
// table.
Result<const CannOp*> OpWithInputs(const SingleOpDesc& d) {
  const CannOp* op = FindCannOp(d.op_type);
  if (op == nullptr) {
    return Error(code::kOpNotFound, "operator type '", d.op_type,
                 "' is not in Kiln's CANN operator table (docs/ops.md, \"Single operators\")");
  }
  for (size_t i = 0; i < d.inputs.size(); ++i) {
    KILN_RETURN_IF_ERROR(CheckTensor(d, d.inputs[i], "input", i), "");
  }
  return op;
}

ir::Shape ShapeOf(const OpTensorDesc& t, const std::string& name) {
  std::vector<ir::Dim> dims;
  for (size_t i = 0; i < t.dims.size(); ++i) {
    dims.push_back(t.dims[i] >= 0 ? ir::Dim::Known(t.dims[i])
                                  : ir::Dim::Symbol(StrCat(name, "_d", i)));
  }
  return ir::Shape(std::move(dims));
}

int64_t Elements(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

// Output `i` as declared: its type must be the one the operator makes; static dims that differ
// only in how the same elements are arranged (ArgMaxD's [1] for a [] result) are reshaped.
Result<ir::Value*> DeclaredOutput(CannOpContext& c, ir::Value* v, size_t i) {
  const SingleOpDesc& d = c.desc();
  const OpTensorDesc& want = d.outputs[i];
  const ir::DataType want_type = DataTypeOfAcl(want.dtype);
  if (v->dtype() != want_type) {
    return Error(code::kInvalidParam, d.op_type, ": output ", i, " is declared ",
                 AclDataTypeName(want.dtype), " but the operator makes ", ir::Name(v->dtype()),
                 " from these inputs");
  }
  const ir::Shape& got = v->shape();
  if (!got.rank_known()) return v;
  std::vector<int64_t> dims;
  bool got_static = true;
  for (const ir::Dim& dim : got.dims()) {
    got_static &= dim.value >= 0;
    dims.push_back(dim.value);
  }
  const bool want_static = !want.dynamic();
  if (got_static && want_static) {
    if (dims == want.dims) return v;
    if (Elements(dims) == Elements(want.dims)) {
      return c.Node("Reshape", {v, c.Int64s(want.dims)});
    }
    return Error(code::kInvalidParam, d.op_type, ": output ", i, " is declared ",
                 DimsText(want.dims), " but the operator makes ", DimsText(dims),
                 " from these inputs");
  }
  if (dims.size() != want.dims.size()) {
    return Error(code::kInvalidParam, d.op_type, ": output ", i, " is declared with rank ",
                 want.dims.size(), " but the operator makes rank ", dims.size());
  }
  return v;
}

// A graph input per non-const input of `d`, a constant per const one, null per omitted one.
Result<std::vector<ir::Value*>> AddInputs(ir::Graph& g, const SingleOpDesc& d) {
  g.set_name(d.op_type);
  g.opsets()[""] = CannOpContext::kOpset;
  std::vector<ir::Value*> ins;
  for (size_t i = 0; i < d.inputs.size(); ++i) {
    const OpTensorDesc& t = d.inputs[i];
    if (t.omitted()) {
      ins.push_back(nullptr);
      continue;
    }
    const std::string name = StrCat("x", i);
    const ir::DataType dt = DataTypeOfAcl(t.dtype);
    KILN_ASSIGN_OR_RETURN(ir::Value * v, g.AddValue(name, ir::TensorType{dt, ShapeOf(t, name)}));
    if (t.is_const) {
      v->set_constant(ir::Tensor::Copy(dt, t.dims, t.const_value.data(), t.const_value.size()));
    } else {
      g.inputs().push_back(v);
    }
    ins.push_back(v);
  }
  return ins;
}

// The one-operator graph, its outputs as `d` declares them.
Result<std::unique_ptr<ir::Graph>> BuildGraph(const SingleOpDesc& d, const CannOp& op) {
  auto g = std::make_unique<ir::Graph>();
  KILN_ASSIGN_OR_RETURN(std::vector<ir::Value*> ins, AddInputs(*g, d));
  CannOpContext ctx(*g, d, ins);
  KILN_RETURN_IF_ERROR(op.build(ctx, op.onnx), "");
  if (ctx.outputs.size() != d.outputs.size()) {
    return Error(code::kInvalidParam, d.op_type, ": the call declares ", d.outputs.size(),
                 " output(s); the operator has ", ctx.outputs.size());
  }
  const auto& registry = ir::OpRegistry::Global();
  KILN_RETURN_IF_ERROR(g->TopologicalSort(), d.op_type);
  KILN_RETURN_IF_ERROR(ir::InferGraph(registry, *g), d.op_type);
  bool reshaped = false;
  for (size_t i = 0; i < ctx.outputs.size(); ++i) {
    KILN_ASSIGN_OR_RETURN(ir::Value * v, DeclaredOutput(ctx, ctx.outputs[i], i));
    reshaped |= v != ctx.outputs[i];
    // A graph output is produced by a node (an input or constant passed through gets one).
    if (v->producer() == nullptr) {
      KILN_ASSIGN_OR_RETURN(v, ctx.Node("Identity", {v}));
    }
    g->outputs().push_back(v);
  }
  for (size_t i = 0; i < g->outputs().size(); ++i) g->outputs()[i]->set_name(StrCat("y", i));
  if (reshaped) KILN_RETURN_IF_ERROR(ir::InferGraph(registry, *g), d.op_type);
  return g;
}

}  // namespace

bool OpTensorDesc::dynamic() const {
  for (int64_t d : dims) {
    if (d < 0) return true;
  }
  return false;
}

bool OpTensorDesc::operator==(const OpTensorDesc& o) const {
  return dtype == o.dtype && format == o.format && dims == o.dims && range == o.range &&
         is_const == o.is_const && const_value == o.const_value;
}

bool OpAttr::operator==(const OpAttr& o) const {
  return kind == o.kind && ints == o.ints && floats == o.floats && strings == o.strings &&
         lists == o.lists;
}

bool SingleOpDesc::dynamic() const {
  for (const auto& t : inputs) {
    if (t.dynamic()) return true;
  }
  for (const auto& t : outputs) {
    if (t.dynamic()) return true;
  }
  return false;
}

int32_t AclDataTypeOf(ir::DataType t) {
  for (const TypeRow& r : kTypes) {
    if (r.ir == t) return r.acl;
  }
  return kAclDtUndefined;
}

ir::DataType DataTypeOfAcl(int32_t acl_dtype) {
  for (const TypeRow& r : kTypes) {
    if (r.acl == acl_dtype) return r.ir;
  }
  return ir::DataType::kUndefined;
}

size_t AclDataTypeSize(int32_t acl_dtype) { return ir::SizeOf(DataTypeOfAcl(acl_dtype)); }

std::string AclDataTypeName(int32_t acl_dtype) {
  if (acl_dtype == kAclDtUndefined) return "undefined";
  const ir::DataType t = DataTypeOfAcl(acl_dtype);
  return t == ir::DataType::kUndefined ? StrCat("aclDataType(", acl_dtype, ")") : ir::Name(t);
}

std::string AclFormatName(int32_t acl_format) {
  if (acl_format == kAclFormatUndefined) return "UNDEFINED";
  const FormatRow* f = FindFormat(acl_format);
  return f ? f->name : StrCat("aclFormat(", acl_format, ")");
}

int32_t AclFormatByName(const std::string& name) {
  std::string up;
  for (char ch : name) up += static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  for (const FormatRow& r : kFormats) {
    if (up == r.name) return r.acl;
  }
  return -2;
}

std::string DimsText(const std::vector<int64_t>& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? "," : "") + std::to_string(dims[i]);
  return s + "]";
}

std::string DescribeCall(const SingleOpDesc& d) {
  std::string s = d.op_type + "(";
  for (size_t i = 0; i < d.inputs.size(); ++i) s += (i ? ", " : "") + TensorText(d.inputs[i]);
  s += ") -> (";
  for (size_t i = 0; i < d.outputs.size(); ++i) s += (i ? ", " : "") + TensorText(d.outputs[i]);
  s += ")";
  if (!d.attrs.empty()) {
    s += " attrs {";
    bool first = true;
    for (const auto& [name, a] : d.attrs) {
      s += (first ? "" : ", ") + name + ": " + OpAttrKindName(a.kind);
      first = false;
    }
    s += "}";
  }
  return s;
}

Result<std::vector<uint8_t>> CompileSingleOp(const SingleOpDesc& d, const std::string& target) {
  KILN_ASSIGN_OR_RETURN(const CannOp* op, OpWithInputs(d));
  for (size_t i = 0; i < d.outputs.size(); ++i) {
    if (d.outputs[i].omitted()) {
      return Error(code::kInvalidParam, d.op_type, ": output ", i, " has no type and format");
    }
    KILN_RETURN_IF_ERROR(CheckTensor(d, d.outputs[i], "output", i), "");
    if (d.outputs[i].is_const) {
      return Error(code::kInvalidParam, d.op_type, ": output ", i, " cannot be const");
    }
  }
  KILN_ASSIGN_OR_RETURN(std::unique_ptr<ir::Graph> graph, BuildGraph(d, *op));
  // Declared -1 dims stay dynamic; the runtime infers them at each execution.
  CompileOptions options;
  options.model = d.op_type;
  options.target = target;
  KILN_ASSIGN_OR_RETURN(std::string record, SingleOpToJson(d));
  options.record.emplace_back(kSingleOpRecordKey, std::move(record));
  SourceModel model;
  model.graph = std::move(graph);
  model.producer = "single operator";
  CompileReport report;
  auto bytes = CompileGraphToOm(std::move(model), options, report);
  if (!bytes.ok()) return Status(bytes.status()).Annotate(DescribeCall(d));
  return bytes;
}

Result<SingleOpDesc> ReadSingleOp(const uint8_t* om, size_t size) {
  KILN_ASSIGN_OR_RETURN(format::OmView view,
                        format::VerifyOm(om, size, format::kFormatMajor, format::kFormatMinor));
  const om::Model* m = om::GetModel(view.graph);
  if (m->options() != nullptr) {
    for (const auto* kv : *m->options()) {
      if (kv->key() != nullptr && kv->value() != nullptr &&
          kv->key()->str() == kSingleOpRecordKey) {
        auto d = SingleOpFromJson(kv->value()->str());
        if (!d.ok()) return Error(code::kOpLoadFailed, d.status().message());
        return d;
      }
    }
  }
  return Error(code::kOpLoadFailed,
               "not a single-operator model (compile one with kiln atc --singleop)");
}

Status InferSingleOp(SingleOpDesc& d) {
  KILN_ASSIGN_OR_RETURN(const CannOp* op, OpWithInputs(d));
  // Build the operator (outputs whose type follows a declaration, ArgMax's or GEMM's, read the
  // given ones) and read the inferred outputs back.
  SingleOpDesc probe = d;
  auto g = std::make_unique<ir::Graph>();
  KILN_ASSIGN_OR_RETURN(std::vector<ir::Value*> ins, AddInputs(*g, probe));
  CannOpContext ctx(*g, probe, ins);
  KILN_RETURN_IF_ERROR(op->build(ctx, op->onnx), "");
  KILN_RETURN_IF_ERROR(g->TopologicalSort(), d.op_type);
  KILN_RETURN_IF_ERROR(ir::InferGraph(ir::OpRegistry::Global(), *g), d.op_type);
  const int32_t format = d.inputs.empty() ? kAclFormatNd : d.inputs[0].format;
  for (size_t i = 0; i < d.outputs.size(); ++i) {
    if (i >= ctx.outputs.size()) break;
    OpTensorDesc& out = d.outputs[i];
    const ir::Value* v = ctx.outputs[i];
    out.dtype = AclDataTypeOf(v->dtype());
    if (out.format == kAclFormatUndefined) out.format = format;
    out.dims.clear();
    out.range.clear();
    if (!v->shape().rank_known()) {
      out.dims = {-2};
      continue;
    }
    for (const ir::Dim& dim : v->shape().dims()) {
      out.dims.push_back(dim.value >= 0 ? dim.value : -1);
      if (dim.value < 0) out.range.emplace_back(0, -1);
    }
  }
  return Status::Ok();
}

int SingleOpLikeness(const SingleOpDesc& model, const SingleOpDesc& call) {
  int score = 0;
  auto tensors = [&](const std::vector<OpTensorDesc>& m, const std::vector<OpTensorDesc>& c) {
    for (size_t i = 0; i < m.size() && i < c.size(); ++i) {
      score += m[i].dtype == c[i].dtype && m[i].format == c[i].format;
      score += m[i].dims.size() == c[i].dims.size();
    }
  };
  tensors(model.inputs, call.inputs);
  tensors(model.outputs, call.outputs);
  for (const auto& [name, a] : model.attrs) {
    auto it = call.attrs.find(name);
    score += it != call.attrs.end() && it->second == a;
  }
  return score;
}

int MatchSingleOp(const SingleOpDesc& model, const SingleOpDesc& call, std::string* why) {
  auto tensors = [&](const std::vector<OpTensorDesc>& m, const std::vector<OpTensorDesc>& c,
                     const char* kind) -> bool {
    if (m.size() != c.size()) {
      *why = StrCat("the call has ", c.size(), " ", kind, "(s), the model ", m.size());
      return false;
    }
    for (size_t i = 0; i < m.size(); ++i) {
      if (!TensorMatches(m[i], c[i])) {
        *why =
            StrCat(kind, " ", i, " is ", TensorText(c[i]), "; the model takes ", TensorText(m[i]));
        return false;
      }
    }
    return true;
  };
  if (!tensors(model.inputs, call.inputs, "input")) return code::kOpInputNotMatch;
  if (!tensors(model.outputs, call.outputs, "output")) return code::kOpOutputNotMatch;
  for (const auto& [name, a] : model.attrs) {
    auto it = call.attrs.find(name);
    if (it == call.attrs.end()) {
      *why = StrCat("the call does not set attribute '", name, "' (", OpAttrKindName(a.kind),
                    ") that the model was compiled with");
      return code::kOpAttrNotMatch;
    }
    if (it->second != a) {
      *why = StrCat("attribute '", name, "' differs: the call has ", OpAttrText(it->second),
                    ", the model ", OpAttrText(a));
      return code::kOpAttrNotMatch;
    }
  }
  for (const auto& [name, a] : call.attrs) {
    if (model.attrs.count(name) == 0) {
      *why = StrCat("the call sets attribute '", name, "' that the model was not compiled with");
      return code::kOpAttrNotMatch;
    }
  }
  return 0;
}

}  // namespace kiln::compiler
