// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "compiler/cann_ops.h"

#include <algorithm>
#include <cmath>

#include "base/str_cat.h"
#include "compiler/cann_ops_build.h"

namespace kiln::compiler {

Result<ir::Value*> CannOpContext::In(size_t i, const char* name) {
  ir::Value* v = OptionalIn(i);
  if (v == nullptr) {
    return Fail("input ", i, " (", name, ") is required; the call ",
                i < inputs_.size() ? "leaves it out"
                                   : "has " + std::to_string(inputs_.size()) + " input(s)");
  }
  return v;
}

ir::Value* CannOpContext::OptionalIn(size_t i) const {
  return i < inputs_.size() ? inputs_[i] : nullptr;
}

ir::DataType CannOpContext::InType(size_t i) const {
  return i < desc_.inputs.size() ? DataTypeOfAcl(desc_.inputs[i].dtype) : ir::DataType::kUndefined;
}

int64_t CannOpContext::InRank(size_t i) const {
  if (i >= desc_.inputs.size()) return -1;
  const auto& d = desc_.inputs[i].dims;
  if (d.size() == 1 && d[0] == -2) return -1;
  return static_cast<int64_t>(d.size());
}

Result<std::vector<int64_t>> CannOpContext::ConstInts(size_t i, const char* name) {
  KILN_ASSIGN_OR_RETURN(ir::Value * v, In(i, name));
  const ir::Tensor* t = v->constant();
  if (t == nullptr) {
    return Fail("input ", i, " (", name,
                ") must be constant: mark it is_const with its const_value in the JSON, or "
                "aclSetTensorConst in the call");
  }
  std::vector<int64_t> values = t->AsInt64s();
  if (values.size() != static_cast<size_t>(t->num_elements())) {
    return Fail("input ", i, " (", name, ") must be an integer tensor, not ", ir::Name(t->dtype()));
  }
  return values;
}

ir::DataType CannOpContext::OutType(size_t i) const {
  return i < desc_.outputs.size() ? DataTypeOfAcl(desc_.outputs[i].dtype)
                                  : ir::DataType::kUndefined;
}

int32_t CannOpContext::OutFormat(size_t i) const {
  return i < desc_.outputs.size() ? desc_.outputs[i].format : kAclFormatUndefined;
}

Result<const OpAttr*> CannOpContext::Find(const char* name, OpAttr::Kind kind, bool has_default) {
  auto it = desc_.attrs.find(name);
  if (it == desc_.attrs.end()) {
    if (has_default) return static_cast<const OpAttr*>(nullptr);
    return Error(code::kOpAttrNotMatch, desc_.op_type, ": attribute '", name, "' (",
                 OpAttrKindName(kind), ") is required and not set");
  }
  if (it->second.kind != kind) {
    return Error(code::kOpAttrNotMatch, desc_.op_type, ": attribute '", name, "' must be ",
                 OpAttrKindName(kind), ", not ", OpAttrKindName(it->second.kind));
  }
  return &it->second;
}

Result<bool> CannOpContext::Bool(const char* name, std::optional<bool> dflt) {
  KILN_ASSIGN_OR_RETURN(const OpAttr* a, Find(name, OpAttr::Kind::kBool, dflt.has_value()));
  return a ? a->ints.at(0) != 0 : *dflt;
}

Result<int64_t> CannOpContext::Int(const char* name, std::optional<int64_t> dflt) {
  KILN_ASSIGN_OR_RETURN(const OpAttr* a, Find(name, OpAttr::Kind::kInt, dflt.has_value()));
  return a ? a->ints.at(0) : *dflt;
}

Result<float> CannOpContext::Float(const char* name, std::optional<float> dflt) {
  KILN_ASSIGN_OR_RETURN(const OpAttr* a, Find(name, OpAttr::Kind::kFloat, dflt.has_value()));
  return a ? a->floats.at(0) : *dflt;
}

Result<std::string> CannOpContext::String(const char* name, std::optional<std::string> dflt) {
  KILN_ASSIGN_OR_RETURN(const OpAttr* a, Find(name, OpAttr::Kind::kString, dflt.has_value()));
  return a ? a->strings.at(0) : *dflt;
}

Result<std::vector<int64_t>> CannOpContext::Ints(const char* name,
                                                 std::optional<std::vector<int64_t>> dflt) {
  KILN_ASSIGN_OR_RETURN(const OpAttr* a, Find(name, OpAttr::Kind::kListInt, dflt.has_value()));
  return a ? a->ints : *dflt;
}

Result<ir::DataType> CannOpContext::Type(const char* name, std::optional<ir::DataType> dflt) {
  auto it = desc_.attrs.find(name);
  if (it != desc_.attrs.end() && it->second.kind == OpAttr::Kind::kInt) {
    KILN_ASSIGN_OR_RETURN(int64_t v, Int(name));
    ir::DataType t = DataTypeOfAcl(static_cast<int32_t>(v));
    if (t == ir::DataType::kUndefined) {
      return Error(code::kOpAttrNotMatch, desc_.op_type, ": attribute '", name, "' = ", v,
                   " is not an aclDataType Kiln has");
    }
    return t;
  }
  KILN_ASSIGN_OR_RETURN(const OpAttr* a, Find(name, OpAttr::Kind::kDataType, dflt.has_value()));
  if (a == nullptr) return *dflt;
  ir::DataType t = DataTypeOfAcl(static_cast<int32_t>(a->ints.at(0)));
  if (t == ir::DataType::kUndefined) {
    return Error(code::kOpAttrNotMatch, desc_.op_type, ": attribute '", name, "' = ", a->ints.at(0),
                 " is not an aclDataType Kiln has");
  }
  return t;
}

Result<std::vector<ir::Value*>> CannOpContext::Nodes(const std::string& op,
                                                     std::vector<ir::Value*> inputs,
                                                     ir::AttrMap attrs, size_t num_outputs) {
  const std::string name = StrCat(desc_.op_type, "/", op, "_", next_node_++);
  std::vector<ir::Value*> outs;
  for (size_t i = 0; i < num_outputs; ++i) {
    outs.push_back(graph_.AddUniqueValue(name + ":" + std::to_string(i), {}));
  }
  KILN_ASSIGN_OR_RETURN(ir::Node * node,
                        graph_.AddNode(op, "", name, kOpset, std::move(inputs), outs));
  for (auto& [k, v] : attrs) node->set_attr(k, std::move(v));
  return outs;
}

Result<ir::Value*> CannOpContext::Node(const std::string& op, std::vector<ir::Value*> inputs,
                                       ir::AttrMap attrs) {
  KILN_ASSIGN_OR_RETURN(auto outs, Nodes(op, std::move(inputs), std::move(attrs), 1));
  return outs[0];
}

ir::Value* CannOpContext::Const(ir::Tensor t) {
  ir::Value* v =
      graph_.AddUniqueValue(StrCat(desc_.op_type, "/const"), ir::TensorType{t.dtype(), t.shape()});
  v->set_constant(std::move(t));
  return v;
}

ir::Value* CannOpContext::Int64s(const std::vector<int64_t>& v) {
  return Const(ir::Tensor::FromVector(ir::DataType::kInt64, {static_cast<int64_t>(v.size())}, v));
}

ir::Value* CannOpContext::Scalar(ir::DataType dtype, double v) {
  switch (dtype) {
    case ir::DataType::kFloat64:
      return Const(ir::Tensor::FromVector(dtype, {}, std::vector<double>{v}));
    case ir::DataType::kInt64:
      return Const(ir::Tensor::FromVector(dtype, {}, std::vector<int64_t>{std::llround(v)}));
    case ir::DataType::kInt32:
      return Const(ir::Tensor::FromVector(
          dtype, {}, std::vector<int32_t>{static_cast<int32_t>(std::lround(v))}));
    default:
      return Const(ir::Tensor::FromVector(ir::DataType::kFloat32, {},
                                          std::vector<float>{static_cast<float>(v)}));
  }
}

Result<ir::Value*> CannOpContext::Transpose(ir::Value* x, const std::vector<int64_t>& perm) {
  bool identity = true;
  for (size_t i = 0; i < perm.size(); ++i) identity &= perm[i] == static_cast<int64_t>(i);
  if (identity) return x;
  return Node("Transpose", {x}, {{"perm", perm}});
}

const std::vector<CannOp>& CannOps() {
  static const std::vector<CannOp> ops = [] {
    std::vector<CannOp> all;
    AddMathOps(all);
    AddNnOps(all);
    AddTensorOps(all);
    std::sort(all.begin(), all.end(), [](const CannOp& a, const CannOp& b) {
      return std::string(a.type) < std::string(b.type);
    });
    return all;
  }();
  return ops;
}

const CannOp* FindCannOp(const std::string& type) {
  for (const CannOp& op : CannOps()) {
    if (type == op.type) return &op;
  }
  return nullptr;
}

}  // namespace kiln::compiler
