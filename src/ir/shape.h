// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kiln::ir {

// One dimension: a known size, a named symbol ("batch", "seq"), or unknown.
struct Dim {
  int64_t value = -1;  // >= 0 when known
  std::string symbol;  // non-empty for a named dynamic dim

  static Dim Known(int64_t v) { return Dim{v, {}}; }
  static Dim Symbol(std::string s) { return Dim{-1, std::move(s)}; }
  static Dim Unknown() { return Dim{}; }
  bool known() const { return value >= 0; }
  bool operator==(const Dim& o) const { return value == o.value && symbol == o.symbol; }
};

// A tensor shape, possibly of unknown rank.
class Shape {
 public:
  Shape() = default;  // unknown rank
  explicit Shape(std::vector<Dim> dims) : dims_(std::move(dims)), rank_known_(true) {}
  static Shape Of(const std::vector<int64_t>& sizes);
  static Shape Scalar() { return Shape(std::vector<Dim>{}); }

  bool rank_known() const { return rank_known_; }
  size_t rank() const { return dims_.size(); }
  const std::vector<Dim>& dims() const { return dims_; }
  std::vector<Dim>& dims() { return dims_; }
  const Dim& operator[](size_t i) const { return dims_[i]; }
  Dim& operator[](size_t i) { return dims_[i]; }

  // True when the rank and every dim are known.
  bool IsStatic() const;
  // Element count of a static shape; nullopt otherwise (or on overflow).
  std::optional<int64_t> NumElements() const;
  // The sizes of a static shape (-1 for unknown dims).
  std::vector<int64_t> Sizes() const;
  // "[1,3,224,224]", "[batch,3,?,?]", "[*]" for unknown rank.
  std::string ToString() const;

  bool operator==(const Shape& o) const { return rank_known_ == o.rank_known_ && dims_ == o.dims_; }

 private:
  std::vector<Dim> dims_;
  bool rank_known_ = false;
};

// Numpy-style multidirectional broadcasting of `a` and `b`; nullopt when incompatible.
std::optional<Shape> Broadcast(const Shape& a, const Shape& b);

}  // namespace kiln::ir
