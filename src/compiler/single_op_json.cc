// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "compiler/single_op_json.h"

#include <cctype>
#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>

#include "base/fp16.h"
#include "base/str_cat.h"

namespace kiln::compiler {
namespace {

using nlohmann::json;

// op_list.json's "type" names (CANN's accepts these spellings) and aclDataType numbers.
struct TypeName {
  const char* name;
  int32_t acl;
};
constexpr TypeName kTypeNames[] = {
    {"float", 0},   {"float32", 0}, {"float16", 1}, {"half", 1},     {"fp16", 1},   {"int8", 2},
    {"int32", 3},   {"uint8", 4},   {"int16", 6},   {"uint16", 7},   {"uint32", 8}, {"int64", 9},
    {"uint64", 10}, {"double", 11}, {"bool", 12},   {"bfloat16", 27}};

// data_type attribute values: GE's DT_* names (the numbers are aclDataType's).
constexpr TypeName kDtNames[] = {
    {"DT_FLOAT", 0},   {"DT_FLOAT16", 1}, {"DT_INT8", 2},   {"DT_INT32", 3}, {"DT_UINT8", 4},
    {"DT_INT16", 6},   {"DT_UINT16", 7},  {"DT_UINT32", 8}, {"DT_INT64", 9}, {"DT_UINT64", 10},
    {"DT_DOUBLE", 11}, {"DT_BOOL", 12},   {"DT_BF16", 27}};

struct KindName {
  OpAttr::Kind kind;
  const char* name;
};
constexpr KindName kKinds[] = {{OpAttr::Kind::kBool, "bool"},
                               {OpAttr::Kind::kInt, "int"},
                               {OpAttr::Kind::kFloat, "float"},
                               {OpAttr::Kind::kString, "string"},
                               {OpAttr::Kind::kDataType, "data_type"},
                               {OpAttr::Kind::kListBool, "list_bool"},
                               {OpAttr::Kind::kListInt, "list_int"},
                               {OpAttr::Kind::kListFloat, "list_float"},
                               {OpAttr::Kind::kListString, "list_string"},
                               {OpAttr::Kind::kListDataType, "list_data_type"},
                               {OpAttr::Kind::kListListInt, "list_list_int"}};

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

const char* TypeJsonName(int32_t acl) {
  for (const TypeName& t : kTypeNames) {
    if (t.acl == acl) return t.name;
  }
  return nullptr;
}

int32_t DtValue(const json& v, const std::string& where) {
  if (v.is_number_integer()) return v.get<int32_t>();
  if (v.is_string()) {
    for (const TypeName& t : kDtNames) {
      if (v.get<std::string>() == t.name) return t.acl;
    }
  }
  throw std::invalid_argument(where + ": " + v.dump() + " is not a data type (DT_FLOAT, ...)");
}

// A const_value's numbers as `acl`'s little-endian elements.
std::vector<uint8_t> ConstBytes(const json& values, int32_t acl, const std::string& where) {
  if (!values.is_array()) throw std::invalid_argument(where + ": const_value must be an array");
  std::vector<uint8_t> out;
  auto put = [&out](const void* p, size_t n) {
    const auto* b = static_cast<const uint8_t*>(p);
    out.insert(out.end(), b, b + n);
  };
  for (const json& v : values) {
    if (!v.is_number() && !v.is_boolean()) {
      throw std::invalid_argument(where + ": const_value holds " + v.dump());
    }
    const double d = v.is_boolean() ? (v.get<bool>() ? 1.0 : 0.0) : v.get<double>();
    if ((acl == 0 && !std::isfinite(static_cast<float>(d))) ||
        (acl == 1 && !(std::fabs(d) <= 65504.0)) || !std::isfinite(d)) {
      throw std::invalid_argument(where + ": const_value " + v.dump() + " is out of the range of " +
                                  AclDataTypeName(acl));
    }
    const int64_t i = v.is_number_integer() ? v.get<int64_t>() : static_cast<int64_t>(d);
    switch (acl) {
      case 0: {
        float f = static_cast<float>(d);
        put(&f, 4);
        break;
      }
      case 1: {
        uint16_t h = FloatToHalf(static_cast<float>(d));
        put(&h, 2);
        break;
      }
      case 11:
        put(&d, 8);
        break;
      case 2:
      case 4:
      case 12: {
        uint8_t b = static_cast<uint8_t>(i);
        put(&b, 1);
        break;
      }
      case 6:
      case 7: {
        uint16_t s = static_cast<uint16_t>(i);
        put(&s, 2);
        break;
      }
      case 3:
      case 8: {
        uint32_t s = static_cast<uint32_t>(i);
        put(&s, 4);
        break;
      }
      case 9:
      case 10:
        put(&i, 8);
        break;
      default:
        throw std::invalid_argument(where + ": const_value of type " + AclDataTypeName(acl) +
                                    " is not supported");
    }
  }
  return out;
}

json ConstJson(const OpTensorDesc& t) {
  json a = json::array();
  const size_t size = ir::SizeOf(DataTypeOfAcl(t.dtype));
  for (size_t off = 0; size && off + size <= t.const_value.size(); off += size) {
    const uint8_t* p = t.const_value.data() + off;
    switch (t.dtype) {
      case 0: {
        float f;
        std::memcpy(&f, p, 4);
        a.push_back(f);
        break;
      }
      case 1: {
        uint16_t h;
        std::memcpy(&h, p, 2);
        a.push_back(HalfToFloat(h));
        break;
      }
      case 11: {
        double d;
        std::memcpy(&d, p, 8);
        a.push_back(d);
        break;
      }
      case 2:
        a.push_back(static_cast<int8_t>(*p));
        break;
      case 4:
      case 12:
        a.push_back(*p);
        break;
      case 6: {
        int16_t s;
        std::memcpy(&s, p, 2);
        a.push_back(s);
        break;
      }
      case 7: {
        uint16_t s;
        std::memcpy(&s, p, 2);
        a.push_back(s);
        break;
      }
      case 3: {
        int32_t s;
        std::memcpy(&s, p, 4);
        a.push_back(s);
        break;
      }
      case 8: {
        uint32_t s;
        std::memcpy(&s, p, 4);
        a.push_back(s);
        break;
      }
      case 9: {
        int64_t s;
        std::memcpy(&s, p, 8);
        a.push_back(s);
        break;
      }
      case 10: {
        uint64_t s;
        std::memcpy(&s, p, 8);
        a.push_back(s);
        break;
      }
      default:
        break;
    }
  }
  return a;
}

OpTensorDesc TensorFromJson(const json& j, const std::string& where) {
  if (!j.is_object()) throw std::invalid_argument(where + " must be an object");
  OpTensorDesc t;
  if (j.contains("type")) {
    const std::string name = Lower(j.at("type").get<std::string>());
    bool found = false;
    for (const TypeName& tn : kTypeNames) {
      if (name == tn.name) {
        t.dtype = tn.acl;
        found = true;
      }
    }
    if (!found) throw std::invalid_argument(where + ": type '" + name + "' is not supported");
  }
  if (j.contains("format")) {
    const std::string name = j.at("format").get<std::string>();
    t.format = AclFormatByName(name);
    if (t.format == -2) throw std::invalid_argument(where + ": format '" + name + "' is unknown");
  }
  if ((t.dtype == kAclDtUndefined) != (t.format == kAclFormatUndefined)) {
    throw std::invalid_argument(where +
                                ": give both type and format (or neither, for an "
                                "optional input left out)");
  }
  if (j.contains("shape")) t.dims = j.at("shape").get<std::vector<int64_t>>();
  for (int64_t d : t.dims) {
    if (d < -2) throw std::invalid_argument(where + ": shape holds " + std::to_string(d));
    if (d == -2 && t.dims.size() != 1) {
      throw std::invalid_argument(where + ": -2 (unknown rank) must be the whole shape [-2]");
    }
  }
  if (j.contains("shape_range")) {
    size_t dynamic = 0;
    for (int64_t d : t.dims) dynamic += d == -1;
    const json& r = j.at("shape_range");
    if (!r.is_array() || r.size() != dynamic) {
      throw std::invalid_argument(where + ": shape_range needs one [min, max] per -1 dim (" +
                                  std::to_string(dynamic) + ")");
    }
    for (const json& p : r) {
      auto v = p.get<std::vector<int64_t>>();
      if (v.size() != 2 || v[0] < 0 || (v[1] >= 0 && v[1] < v[0])) {
        throw std::invalid_argument(where + ": shape_range entry " + p.dump() +
                                    " is not [min, max] (max -1: unbounded)");
      }
      t.range.emplace_back(v[0], v[1]);
    }
  }
  if (j.contains("name")) t.name = j.at("name").get<std::string>();
  if (j.contains("is_const")) t.is_const = j.at("is_const").get<bool>();
  if (t.is_const) {
    if (!j.contains("const_value")) {
      throw std::invalid_argument(where + ": is_const needs a const_value");
    }
    t.const_value = ConstBytes(j.at("const_value"), t.dtype, where);
  }
  return t;
}

json TensorToJson(const OpTensorDesc& t) {
  json j = json::object();
  if (!t.omitted()) {
    const char* type = TypeJsonName(t.dtype);
    j["type"] = type ? type : std::to_string(t.dtype);
    j["format"] = AclFormatName(t.format);
  }
  j["shape"] = t.dims;
  if (!t.range.empty()) {
    json r = json::array();
    for (auto [lo, hi] : t.range) r.push_back({lo, hi});
    j["shape_range"] = r;
  }
  if (!t.name.empty()) j["name"] = t.name;
  if (t.is_const) {
    j["is_const"] = true;
    j["const_value"] = ConstJson(t);
  }
  return j;
}

// A float attribute value: a number within float's range (JSON has no infinity or NaN, so one
// could not be written back).
float Float(const json& v, const std::string& where) {
  if (!v.is_number() || !std::isfinite(static_cast<float>(v.get<double>()))) {
    throw std::invalid_argument(where + ": " + v.dump() + " is not a finite float");
  }
  return v.get<float>();
}

OpAttr AttrFromJson(const json& j, const std::string& where) {
  if (!j.is_object() || !j.contains("type") || !j.contains("value")) {
    throw std::invalid_argument(where + " needs name, type and value");
  }
  const std::string type = j.at("type").get<std::string>();
  OpAttr a;
  bool found = false;
  for (const KindName& k : kKinds) {
    if (type == k.name) {
      a.kind = k.kind;
      found = true;
    }
  }
  if (!found) throw std::invalid_argument(where + ": attribute type '" + type + "' is unknown");
  const json& v = j.at("value");
  using K = OpAttr::Kind;
  switch (a.kind) {
    case K::kBool:
      a.ints = {v.is_boolean() ? int64_t{v.get<bool>()} : int64_t{v.get<int64_t>() != 0}};
      break;
    case K::kInt:
      a.ints = {v.get<int64_t>()};
      break;
    case K::kFloat:
      a.floats = {Float(v, where)};
      break;
    case K::kString:
      a.strings = {v.get<std::string>()};
      break;
    case K::kDataType:
      a.ints = {DtValue(v, where)};
      break;
    case K::kListBool:
      for (const json& e : v)
        a.ints.push_back(e.is_boolean() ? e.get<bool>() : e.get<int64_t>() != 0);
      break;
    case K::kListInt:
      a.ints = v.get<std::vector<int64_t>>();
      break;
    case K::kListFloat:
      for (const json& e : v) a.floats.push_back(Float(e, where));
      break;
    case K::kListString:
      a.strings = v.get<std::vector<std::string>>();
      break;
    case K::kListDataType:
      for (const json& e : v) a.ints.push_back(DtValue(e, where));
      break;
    case K::kListListInt:
      a.lists = v.get<std::vector<std::vector<int64_t>>>();
      break;
  }
  return a;
}

json AttrValueJson(const OpAttr& a) {
  using K = OpAttr::Kind;
  switch (a.kind) {
    case K::kBool:
      return a.ints.at(0) != 0;
    case K::kInt:
    case K::kDataType:
      return a.ints.at(0);
    case K::kFloat:
      return a.floats.at(0);
    case K::kString:
      return a.strings.at(0);
    case K::kListBool: {
      json l = json::array();
      for (int64_t b : a.ints) l.push_back(b != 0);
      return l;
    }
    case K::kListInt:
    case K::kListDataType:
      return a.ints;
    case K::kListFloat:
      return a.floats;
    case K::kListString:
      return a.strings;
    case K::kListListInt:
      return a.lists;
  }
  return nullptr;
}

SingleOpDesc EntryFromJson(const json& j, const std::string& where) {
  if (!j.is_object()) throw std::invalid_argument(where + " must be an object");
  SingleOpDesc d;
  if (!j.contains("op") || !j.at("op").is_string() || j.at("op").get<std::string>().empty()) {
    throw std::invalid_argument(where + ": \"op\" (the operator type) is required");
  }
  d.op_type = j.at("op").get<std::string>();
  const std::string at = where + " (" + d.op_type + ")";
  if (j.contains("name")) d.name = j.at("name").get<std::string>();
  for (const char* key : {"input_desc", "output_desc"}) {
    if (!j.contains(key)) continue;
    const json& list = j.at(key);
    if (!list.is_array()) throw std::invalid_argument(at + ": " + key + " must be an array");
    auto& out = std::strcmp(key, "input_desc") == 0 ? d.inputs : d.outputs;
    for (size_t i = 0; i < list.size(); ++i) {
      out.push_back(TensorFromJson(list[i], StrCat(at, " ", key, "[", i, "]")));
    }
  }
  for (size_t i = 0; i < d.outputs.size(); ++i) {
    if (d.outputs[i].omitted()) {
      throw std::invalid_argument(
          StrCat(at, " output_desc[", i, "]: type and format are required"));
    }
  }
  if (j.contains("attr")) {
    const json& list = j.at("attr");
    if (!list.is_array()) throw std::invalid_argument(at + ": attr must be an array");
    for (size_t i = 0; i < list.size(); ++i) {
      const std::string aw = StrCat(at, " attr[", i, "]");
      if (!list[i].is_object() || !list[i].contains("name") ||
          list[i].at("name").get<std::string>().empty()) {
        throw std::invalid_argument(aw + ": a name is required");
      }
      const std::string name = list[i].at("name").get<std::string>();
      d.attrs[name] = AttrFromJson(list[i], aw + " '" + name + "'");
    }
  }
  return d;
}

template <typename F>
auto Guard(F f) -> Result<decltype(f())> {
  try {
    return f();
  } catch (const std::exception& e) {
    return Error(code::kInvalidParam, e.what());
  }
}

}  // namespace

const char* OpAttrKindName(OpAttr::Kind kind) {
  for (const KindName& k : kKinds) {
    if (k.kind == kind) return k.name;
  }
  return "?";
}

std::string OpAttrText(const OpAttr& a) {
  std::string v = AttrValueJson(a).dump();
  if (a.kind == OpAttr::Kind::kDataType) v = AclDataTypeName(static_cast<int32_t>(a.ints.at(0)));
  return StrCat(OpAttrKindName(a.kind), " ", v);
}

namespace {

// The entry's JSON; throws for what JSON cannot hold (a string that is not UTF-8, a float that is
// not finite).
std::string ToJson(const SingleOpDesc& d) {
  for (const auto& [name, a] : d.attrs) {
    for (float f : a.floats) {
      if (!std::isfinite(f)) {
        throw std::invalid_argument("attribute '" + name + "' holds a float that is not finite");
      }
    }
  }
  json j;
  j["op"] = d.op_type;
  if (!d.name.empty()) j["name"] = d.name;
  j["input_desc"] = json::array();
  for (const auto& t : d.inputs) j["input_desc"].push_back(TensorToJson(t));
  j["output_desc"] = json::array();
  for (const auto& t : d.outputs) j["output_desc"].push_back(TensorToJson(t));
  j["attr"] = json::array();
  for (const auto& [name, a] : d.attrs) {
    j["attr"].push_back(
        {{"name", name}, {"type", OpAttrKindName(a.kind)}, {"value", AttrValueJson(a)}});
  }
  try {
    return j.dump();
  } catch (const json::type_error&) {
    throw std::invalid_argument("a name or string attribute is not UTF-8");
  }
}

}  // namespace

Result<std::string> SingleOpToJson(const SingleOpDesc& d) {
  return Guard([&] { return ToJson(d); });
}

Result<SingleOpDesc> SingleOpFromJson(const std::string& text) {
  return Guard([&] { return EntryFromJson(json::parse(text), "single-op record"); });
}

Result<std::vector<SingleOpDesc>> ParseSingleOpList(const std::string& text) {
  return Guard([&] {
    json j = json::parse(text);
    if (!j.is_array()) throw std::invalid_argument("the single-op file must hold a JSON array");
    std::vector<SingleOpDesc> out;
    for (size_t i = 0; i < j.size(); ++i) out.push_back(EntryFromJson(j[i], StrCat("entry ", i)));
    return out;
  });
}

std::string SingleOpFileName(const SingleOpDesc& d, size_t index) {
  bool name_ok = !d.name.empty() && d.name != "." && d.name != "..";
  for (char c : d.name) {
    name_ok &= std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
  }
  if (name_ok) return d.name.substr(0, 128) + ".om";
  std::string s = StrCat(index, "_", d.op_type);
  for (const auto* list : {&d.inputs, &d.outputs}) {
    for (const OpTensorDesc& t : *list) {
      s += StrCat("_", t.dtype, "_", t.format);
      for (int64_t v : t.dims) s += StrCat("_", v);
    }
  }
  return s.substr(0, 128) + ".om";
}

}  // namespace kiln::compiler
