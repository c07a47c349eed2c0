// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "ir/shape.h"

#include <algorithm>

namespace kiln::ir {

Shape Shape::Of(const std::vector<int64_t>& sizes) {
  std::vector<Dim> dims;
  dims.reserve(sizes.size());
  for (int64_t s : sizes) dims.push_back(s >= 0 ? Dim::Known(s) : Dim::Unknown());
  return Shape(std::move(dims));
}

bool Shape::IsStatic() const {
  return rank_known_ &&
         std::all_of(dims_.begin(), dims_.end(), [](const Dim& d) { return d.known(); });
}

std::optional<int64_t> Shape::NumElements() const {
  if (!IsStatic()) return std::nullopt;
  int64_t n = 1;
  for (const Dim& d : dims_) {
    if (d.value != 0 && n > INT64_MAX / d.value) return std::nullopt;
    n *= d.value;
  }
  return n;
}

std::vector<int64_t> Shape::Sizes() const {
  std::vector<int64_t> sizes;
  sizes.reserve(dims_.size());
  for (const Dim& d : dims_) sizes.push_back(d.value);
  return sizes;
}

std::string Shape::ToString() const {
  if (!rank_known_) return "[*]";
  std::string s = "[";
  for (size_t i = 0; i < dims_.size(); ++i) {
    if (i) s += ",";
    if (dims_[i].known()) {
      s += std::to_string(dims_[i].value);
    } else {
      s += dims_[i].symbol.empty() ? "?" : dims_[i].symbol;
    }
  }
  return s + "]";
}

std::optional<Shape> Broadcast(const Shape& a, const Shape& b) {
  if (!a.rank_known() || !b.rank_known()) return Shape();
  size_t rank = std::max(a.rank(), b.rank());
  std::vector<Dim> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    const Dim* da = i < rank - a.rank() ? nullptr : &a[i - (rank - a.rank())];
    const Dim* db = i < rank - b.rank() ? nullptr : &b[i - (rank - b.rank())];
    if (!da) {
      out[i] = *db;
    } else if (!db) {
      out[i] = *da;
    } else if (da->known() && db->known()) {
      if (da->value != db->value && da->value != 1 && db->value != 1) return std::nullopt;
      out[i] = Dim::Known(da->value == 1 ? db->value : da->value);
    } else if (da->known() && da->value != 1) {
      out[i] = *da;  // the other must be this size (or 1)
    } else if (db->known() && db->value != 1) {
      out[i] = *db;
    } else if (da->known()) {  // 1 vs dynamic
      out[i] = *db;
    } else if (db->known()) {
      out[i] = *da;
    } else {
      out[i] = (*da == *db) ? *da : Dim::Unknown();
    }
  }
  return Shape(std::move(out));
}

}  // namespace kiln::ir
