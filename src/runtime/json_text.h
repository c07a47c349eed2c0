// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "kernels/tensor_view.h"

namespace kiln::runtime {

// JSON text written by appending, for the documents the runtime writes while models run (the
// data dump's index, the profiler's report): not a document of nlohmann::json values, because
// destroying a non-empty nlohmann array or object allocates (a stack, to free nested values
// without recursion) inside a noexcept destructor, so running out of memory while one was alive
// ended the process (tests/stress/fault_injection.cc). Scalars go through nlohmann::json one at a
// time (a scalar frees without allocating): its number format, and its escaping, invalid UTF-8
// in a name from a file replaced, never thrown on. The caller balances Open and Close.
class JsonText {
 public:
  JsonText& Key(const std::string& k) {
    Comma();
    out_ += Scalar(k);
    out_ += ": ";
    after_key_ = true;
    return *this;
  }
  JsonText& Open(char bracket) {
    Comma();
    out_ += bracket;
    first_ = true;
    return *this;
  }
  JsonText& Close(char bracket) {
    if (break_) out_ += '\n';
    break_ = false;
    out_ += bracket;
    first_ = false;
    return *this;
  }
  template <typename T>
  JsonText& Value(const T& v) {
    Comma();
    out_ += Scalar(v);
    return *this;
  }
  JsonText& Null() { return Raw("null"); }
  // An already written JSON value.
  JsonText& Raw(const std::string& json) {
    Comma();
    out_ += json;
    return *this;
  }
  JsonText& Dims(const kernels::Dims& dims) {
    Open('[');
    for (int64_t d : dims) Value(d);
    return Close(']');
  }
  JsonText& Strings(const std::vector<std::string>& v) {
    Open('[');
    for (const std::string& e : v) Value(e);
    return Close(']');
  }
  // The next element (or the closing bracket) goes on a new line.
  JsonText& Line() {
    break_ = true;
    return *this;
  }
  const std::string& str() const { return out_; }

 private:
  template <typename T>
  static std::string Scalar(const T& v) {
    return nlohmann::json(v).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }
  void Comma() {
    if (after_key_) {
      after_key_ = false;
    } else {
      if (!first_) out_ += ',';
      if (break_) {
        out_ += "\n ";
      } else if (!first_) {
        out_ += ' ';
      }
      break_ = false;
    }
    first_ = false;
  }
  std::string out_;
  bool first_ = true, after_key_ = false, break_ = false;
};

}  // namespace kiln::runtime
