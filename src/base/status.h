// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Status and Result<T>: Kiln's error values (no exceptions inside src/). A Status is an
// AscendCL error code plus a lower-case message that names what and where.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "base/error_codes.h"
#include "base/str_cat.h"

namespace kiln {

class [[nodiscard]] Status {
 public:
  Status() = default;  // success
  Status(int code, std::string message);

  static Status Ok() { return Status(); }

  bool ok() const { return code_ == code::kSuccess; }
  int code() const { return code_; }
  const std::string& message() const;

  // Prefixes context ("while loading x: ") to the message; keeps the code.
  Status Annotate(const std::string& context) &&;

 private:
  int code_ = code::kSuccess;
  std::shared_ptr<const std::string> message_;  // null when ok: a success Status is one int.
};

template <typename... Args>
Status Error(int code, Args&&... args) {
  return Status(code, StrCat(std::forward<Args>(args)...));
}

// A value or the Status that explains why there is none.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}          // NOLINT: implicit by design
  Result(Status status) : status_(std::move(status)) {}  // NOLINT: must not be ok

  bool ok() const { return value_.has_value(); }
  const Status& status() const { return status_; }
  T& value() & { return *value_; }
  const T& value() const& { return *value_; }
  T&& value() && { return std::move(*value_); }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }
  T& operator*() & { return *value_; }
  const T& operator*() const& { return *value_; }
  T&& operator*() && { return std::move(*value_); }

 private:
  std::optional<T> value_;
  Status status_;
};

}  // namespace kiln

#define KILN_CONCAT_INNER_(a, b) a##b
#define KILN_CONCAT_(a, b) KILN_CONCAT_INNER_(a, b)

// Returns the Status of `expr` when it failed, annotated with `context`.
#define KILN_RETURN_IF_ERROR(expr, context)                                   \
  do {                                                                        \
    ::kiln::Status kiln_status_ = (expr);                                     \
    if (!kiln_status_.ok()) return std::move(kiln_status_).Annotate(context); \
  } while (0)

#define KILN_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                                \
  if (!tmp.ok()) return tmp.status();               \
  lhs = std::move(tmp).value()

// Binds the value of a Result or returns its Status.
#define KILN_ASSIGN_OR_RETURN(lhs, expr) \
  KILN_ASSIGN_OR_RETURN_IMPL_(KILN_CONCAT_(kiln_result_, __LINE__), lhs, expr)
