// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Single operators (CANN's aclop* API and `atc --singleop`): the description of one operator
// call — CANN's operator type, the descs of its inputs and outputs and its typed attributes —
// read from CANN's op_list.json, compiled into a one-operator .om that carries the description,
// and matched against a call (docs/single-ops.md). Data types and formats are
// AscendCL's numbers (aclDataType, aclFormat), so the C API hands its descs over as they are.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "base/status.h"
#include "ir/data_type.h"

namespace kiln::compiler {

inline constexpr int32_t kAclDtUndefined = -1;      // ACL_DT_UNDEFINED
inline constexpr int32_t kAclFormatUndefined = -1;  // ACL_FORMAT_UNDEFINED
inline constexpr int32_t kAclFormatNchw = 0;
inline constexpr int32_t kAclFormatNhwc = 1;
inline constexpr int32_t kAclFormatNd = 2;
inline constexpr int32_t kAclFormatHwcn = 16;

// One tensor of a single-operator call.
struct OpTensorDesc {
  int32_t dtype = kAclDtUndefined;  // aclDataType
  int32_t format = kAclFormatUndefined;
  std::vector<int64_t> dims;  // -1 dynamic; {-2} unknown rank
  // One [min, max] per -1 dim, in order (max -1: unbounded); empty = unbounded.
  std::vector<std::pair<int64_t, int64_t>> range;
  bool is_const = false;
  std::vector<uint8_t> const_value;  // the value's bytes, dtype's little-endian elements
  std::string name;
  // An optional input the call leaves out (ACL_DT_UNDEFINED and ACL_FORMAT_UNDEFINED).
  bool omitted() const { return dtype == kAclDtUndefined && format == kAclFormatUndefined; }
  bool dynamic() const;
  bool operator==(const OpTensorDesc& o) const;
};

// A typed attribute value: scalars are one-element lists; the kind is part of the value (an
// int is not a data_type, a float is not an int).
struct OpAttr {
  enum class Kind : uint8_t {
    kBool,
    kInt,
    kFloat,
    kString,
    kDataType,
    kListBool,
    kListInt,
    kListFloat,
    kListString,
    kListDataType,
    kListListInt
  };
  Kind kind = Kind::kInt;
  std::vector<int64_t> ints;  // bool (0/1), int, data_type and their lists
  std::vector<float> floats;
  std::vector<std::string> strings;
  std::vector<std::vector<int64_t>> lists;  // list_list_int
  bool operator==(const OpAttr& o) const;
  bool operator!=(const OpAttr& o) const { return !(*this == o); }
};
// The JSON type name: "bool", "int", ..., "list_list_int".
const char* OpAttrKindName(OpAttr::Kind kind);

// One operator call: what a single-op model is compiled for and what a call is matched with.
struct SingleOpDesc {
  std::string op_type;  // CANN's name: "Add", "Conv2D", "ArgMaxV2", ...
  std::vector<OpTensorDesc> inputs, outputs;
  std::map<std::string, OpAttr> attrs;
  std::string name;  // op_list.json's "name" (the .om's file name), "" = none
  bool dynamic() const;
  // The same operator call: type, every input and output desc, attributes (not the name).
  bool SameOperator(const SingleOpDesc& o) const {
    return op_type == o.op_type && inputs == o.inputs && outputs == o.outputs && attrs == o.attrs;
  }
};

// The aclDataType number for a Kiln element type (-1 = none) and back (kUndefined = none).
int32_t AclDataTypeOf(ir::DataType t);
ir::DataType DataTypeOfAcl(int32_t acl_dtype);
// Bytes per element of an aclDataType Kiln has (0 otherwise).
size_t AclDataTypeSize(int32_t acl_dtype);
// "float16", "ND", "[2,3]": how messages and docs name a dtype, a format and dims.
std::string AclDataTypeName(int32_t acl_dtype);
// The aclFormat for a name ("nchw", "ND", case-insensitive); -2 when there is none.
int32_t AclFormatByName(const std::string& name);
std::string AclFormatName(int32_t acl_format);
std::string DimsText(const std::vector<int64_t>& dims);
// "Add(float32 ND [3,3], ...) -> (...)" for messages.
std::string DescribeCall(const SingleOpDesc& desc);

// CANN's op_list.json (an array of operator descriptions; docs/single-ops.md gives the keys): every
// entry, checked (kInvalidParam naming the entry and the key).
Result<std::vector<SingleOpDesc>> ParseSingleOpList(const std::string& json_text);
// CANN's .om file name for entry `index`: "<name>.om", or "<index>_<op>_<type>_<format>_<dims>…"
// over the inputs then the outputs, cut to 128 characters, + ".om".
std::string SingleOpFileName(const SingleOpDesc& desc, size_t index);

// Builds the one-operator graph for `desc` (the CANN operator table, cann_ops.h), optimises,
// plans and serialises it for `target` ("" = this host): the .om's bytes, which carry `desc`.
// Failures name the operator: kOpNotFound for an operator type not in the table,
// kOpAttrNotMatch for a missing or mistyped attribute, kInvalidParam for descs the operator
// cannot take (the message says which and why).
Result<std::vector<uint8_t>> CompileSingleOp(const SingleOpDesc& desc,
                                             const std::string& target = "");

// The description a single-op .om carries (kOpLoadFailed for an .om that is not one; the
// bytes must have passed the loader's verification).
Result<SingleOpDesc> ReadSingleOp(const uint8_t* om, size_t size);

// aclopInferShape: the outputs' dtype, format and dims by the operator's shape rule (dims the
// inputs' values decide are -1); `desc.outputs` gives the count (its entries are replaced).
Status InferSingleOp(SingleOpDesc& desc);

// How `call` differs from a model's description, for matching: 0 when it matches; else the code
// of the first part that differs (kOpInputNotMatch, kOpOutputNotMatch, kOpAttrNotMatch) with
// `why` naming it. A dynamic model matches a call whose dims lie in its ranges.
int MatchSingleOp(const SingleOpDesc& model, const SingleOpDesc& call, std::string* why);
// How alike a model and a call are (tensors of the same type and format, equal attributes):
// which of several non-matching models a message should compare the call with.
int SingleOpLikeness(const SingleOpDesc& model, const SingleOpDesc& call);

}  // namespace kiln::compiler
