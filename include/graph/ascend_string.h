// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// ge::AscendString: the string type of CANN's graph-engine C++ API (graph/ascend_string.h), with
// CANN's layout — one shared_ptr to the characters — so code compiled against CANN's header (such
// as onnxruntime's CANN execution provider) and Kiln's library agree (docs/ge-api.md).
#ifndef INC_EXTERNAL_GRAPH_ASCEND_STRING_H_
#define INC_EXTERNAL_GRAPH_ASCEND_STRING_H_

#include <cstddef>
#include <functional>
#include <memory>
#include <string>

#include "graph/ge_error_codes.h"

namespace ge {

class GE_FUNC_VISIBILITY AscendString {
 public:
  AscendString() = default;
  ~AscendString() = default;
  // A copy of `name`; NULL gives the empty string.
  AscendString(const char* const name);  // NOLINT(runtime/explicit): CANN's is implicit
  AscendString(const char* const name, size_t length);
  // The characters ("" when empty); valid while this object lives.
  const char* GetString() const;
  size_t GetLength() const;
  size_t Hash() const;
  bool operator<(const AscendString& d) const;
  bool operator>(const AscendString& d) const;
  bool operator<=(const AscendString& d) const;
  bool operator>=(const AscendString& d) const;
  bool operator==(const AscendString& d) const;
  bool operator!=(const AscendString& d) const;

 private:
  std::shared_ptr<std::string> name_;
};

}  // namespace ge

namespace std {
template <>
struct hash<ge::AscendString> {
  size_t operator()(const ge::AscendString& name) const { return name.Hash(); }
};
}  // namespace std

#endif  // INC_EXTERNAL_GRAPH_ASCEND_STRING_H_
