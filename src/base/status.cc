// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "base/status.h"

namespace kiln {

Status::Status(int code, std::string message) : code_(code) {
  if (code_ != code::kSuccess) message_ = std::make_shared<const std::string>(std::move(message));
}

const std::string& Status::message() const {
  static const std::string kEmpty;
  return message_ ? *message_ : kEmpty;
}

Status Status::Annotate(const std::string& context) && {
  if (ok() || context.empty()) return std::move(*this);
  return Status(code_, context + ": " + message());
}

}  // namespace kiln
