// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// ge::AscendString (include/graph/ascend_string.h). The string is made here, so its shared_ptr's
// control block (and the deleter that runs when code built against CANN's header releases it)
// is this library's.
#include "graph/ascend_string.h"

#include <cstring>

namespace ge {

AscendString::AscendString(const char* const name) {
  if (name != nullptr) name_ = std::make_shared<std::string>(name);
}

AscendString::AscendString(const char* const name, size_t length) {
  if (name != nullptr) name_ = std::make_shared<std::string>(name, length);
}

const char* AscendString::GetString() const { return name_ ? name_->c_str() : ""; }

size_t AscendString::GetLength() const { return name_ ? name_->size() : 0; }

size_t AscendString::Hash() const {
  return name_ ? std::hash<std::string>()(*name_) : std::hash<std::string>()(std::string());
}

// An empty object orders before every non-empty one, as CANN's.
bool AscendString::operator<(const AscendString& d) const {
  if (name_ == nullptr) return d.name_ != nullptr;
  if (d.name_ == nullptr) return false;
  return *name_ < *d.name_;
}

bool AscendString::operator>(const AscendString& d) const { return d < *this; }
bool AscendString::operator<=(const AscendString& d) const { return !(d < *this); }
bool AscendString::operator>=(const AscendString& d) const { return !(*this < d); }
bool AscendString::operator==(const AscendString& d) const {
  return std::strcmp(GetString(), d.GetString()) == 0 && GetLength() == d.GetLength();
}
bool AscendString::operator!=(const AscendString& d) const { return !(*this == d); }

}  // namespace ge
