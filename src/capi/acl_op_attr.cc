// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// aclopAttr: an operator call's attributes, a name → typed value map (docs/single-ops.md).
// Setting a name again replaces its value and kind.
#include <map>
#include <mutex>
#include <string>

#include "acl/acl_op.h"
#include "capi/error.h"
#include "capi/handle_calls.h"
#include "capi/op_objects.h"

using kiln::capi::InvalidParam;
using kiln::compiler::OpAttr;

namespace {

struct AttrSet {
  std::mutex mu;
  std::map<std::string, OpAttr> values;
};

kiln::capi::HandleTable<aclopAttr, AttrSet>& Attrs() {
  return kiln::capi::GlobalTable<aclopAttr, AttrSet>("attr", "aclopAttr");
}

// Sets `name` to a value of `kind` that `fill` makes (returning ACL_SUCCESS or the error of a bad
// argument), inside the call's guard: nothing throws into the caller.
template <typename F>
aclError Set(const char* api, aclopAttr* attr, const char* name, OpAttr::Kind kind, F&& fill) {
  return kiln::capi::SetOnHandleLocked(api, Attrs(), attr, [&](AttrSet& s) -> aclError {
    if (name == nullptr || name[0] == '\0') return InvalidParam(api, "attrName is NULL or empty");
    OpAttr a;
    a.kind = kind;
    if (aclError e = fill(a); e != ACL_SUCCESS) return e;
    s.values[name] = std::move(a);
    return ACL_SUCCESS;
  });
}

// numValues values at `values` (which may be NULL only when there are none).
template <typename T>
aclError CheckList(const char* api, int numValues, const T* values) {
  if (numValues < 0) return InvalidParam(api, "numValues ", numValues, " is negative");
  if (numValues > 0 && values == nullptr) {
    return InvalidParam(api, "values is NULL but numValues is ", numValues);
  }
  return ACL_SUCCESS;
}

}  // namespace

bool kiln::capi::ReadOpAttrs(const char* api, const aclopAttr* attr,
                             std::map<std::string, OpAttr>* out) {
  out->clear();
  if (attr == nullptr) return true;
  std::shared_ptr<AttrSet> s = Attrs().Live(api, attr);
  if (s == nullptr) return false;
  std::lock_guard<std::mutex> lock(s->mu);
  *out = s->values;
  return true;
}

extern "C" {

aclopAttr* aclopCreateAttr(void) { return kiln::capi::CreateHandle("aclopCreateAttr", Attrs()); }

void aclopDestroyAttr(const aclopAttr* attr) {
  if (attr == nullptr) return;
  (void)kiln::capi::DestroyHandle("aclopDestroyAttr", Attrs(), attr);
}

aclError aclopSetAttrBool(aclopAttr* attr, const char* attrName, uint8_t attrValue) {
  return Set("aclopSetAttrBool", attr, attrName, OpAttr::Kind::kBool, [&](OpAttr& a) {
    a.ints = {attrValue != 0};
    return ACL_SUCCESS;
  });
}

aclError aclopSetAttrInt(aclopAttr* attr, const char* attrName, int64_t attrValue) {
  return Set("aclopSetAttrInt", attr, attrName, OpAttr::Kind::kInt, [&](OpAttr& a) {
    a.ints = {attrValue};
    return ACL_SUCCESS;
  });
}

aclError aclopSetAttrFloat(aclopAttr* attr, const char* attrName, float attrValue) {
  return Set("aclopSetAttrFloat", attr, attrName, OpAttr::Kind::kFloat, [&](OpAttr& a) {
    a.floats = {attrValue};
    return ACL_SUCCESS;
  });
}

aclError aclopSetAttrString(aclopAttr* attr, const char* attrName, const char* attrValue) {
  const char* api = "aclopSetAttrString";
  return Set(api, attr, attrName, OpAttr::Kind::kString, [&](OpAttr& a) {
    if (attrValue == nullptr) return InvalidParam(api, "attrValue is NULL");
    a.strings = {attrValue};
    return ACL_SUCCESS;
  });
}

aclError aclopSetAttrDataType(aclopAttr* attr, const char* attrName, aclDataType attrValue) {
  return Set("aclopSetAttrDataType", attr, attrName, OpAttr::Kind::kDataType, [&](OpAttr& a) {
    a.ints = {kiln::capi::EnumInt(attrValue)};
    return ACL_SUCCESS;
  });
}

aclError aclopSetAttrListDataType(aclopAttr* attr, const char* attrName, int numValues,
                                  const aclDataType values[]) {
  const char* api = "aclopSetAttrListDataType";
  return Set(api, attr, attrName, OpAttr::Kind::kListDataType, [&](OpAttr& a) {
    if (aclError e = CheckList(api, numValues, values); e != ACL_SUCCESS) return e;
    for (int i = 0; i < numValues; ++i) a.ints.push_back(kiln::capi::EnumInt(values[i]));
    return ACL_SUCCESS;
  });
}

aclError aclopSetAttrListBool(aclopAttr* attr, const char* attrName, int numValues,
                              const uint8_t* values) {
  const char* api = "aclopSetAttrListBool";
  return Set(api, attr, attrName, OpAttr::Kind::kListBool, [&](OpAttr& a) {
    if (aclError e = CheckList(api, numValues, values); e != ACL_SUCCESS) return e;
    for (int i = 0; i < numValues; ++i) a.ints.push_back(values[i] != 0);
    return ACL_SUCCESS;
  });
}

aclError aclopSetAttrListInt(aclopAttr* attr, const char* attrName, int numValues,
                             const int64_t* values) {
  const char* api = "aclopSetAttrListInt";
  return Set(api, attr, attrName, OpAttr::Kind::kListInt, [&](OpAttr& a) {
    if (aclError e = CheckList(api, numValues, values); e != ACL_SUCCESS) return e;
    a.ints.assign(values, values + numValues);
    return ACL_SUCCESS;
  });
}

aclError aclopSetAttrListFloat(aclopAttr* attr, const char* attrName, int numValues,
                               const float* values) {
  const char* api = "aclopSetAttrListFloat";
  return Set(api, attr, attrName, OpAttr::Kind::kListFloat, [&](OpAttr& a) {
    if (aclError e = CheckList(api, numValues, values); e != ACL_SUCCESS) return e;
    a.floats.assign(values, values + numValues);
    return ACL_SUCCESS;
  });
}

aclError aclopSetAttrListString(aclopAttr* attr, const char* attrName, int numValues,
                                const char** values) {
  const char* api = "aclopSetAttrListString";
  return Set(api, attr, attrName, OpAttr::Kind::kListString, [&](OpAttr& a) {
    if (aclError e = CheckList(api, numValues, values); e != ACL_SUCCESS) return e;
    for (int i = 0; i < numValues; ++i) {
      if (values[i] == nullptr) return InvalidParam(api, "values[", i, "] is NULL");
      a.strings.emplace_back(values[i]);
    }
    return ACL_SUCCESS;
  });
}

aclError aclopSetAttrListListInt(aclopAttr* attr, const char* attrName, int numLists,
                                 const int* numValues, const int64_t* const values[]) {
  const char* api = "aclopSetAttrListListInt";
  return Set(api, attr, attrName, OpAttr::Kind::kListListInt, [&](OpAttr& a) {
    if (numLists < 0) return InvalidParam(api, "numLists ", numLists, " is negative");
    if (numLists > 0 && (numValues == nullptr || values == nullptr)) {
      return InvalidParam(api, "numValues or values is NULL but numLists is ", numLists);
    }
    for (int i = 0; i < numLists; ++i) {
      if (numValues[i] < 0) return InvalidParam(api, "numValues[", i, "] is negative");
      if (numValues[i] > 0 && values[i] == nullptr) {
        return InvalidParam(api, "values[", i, "] is NULL but numValues[", i, "] is ",
                            numValues[i]);
      }
      a.lists.emplace_back(values[i], values[i] + numValues[i]);
    }
    return ACL_SUCCESS;
  });
}

}  // extern "C"
