// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "ctc_decode.h"

#include <fstream>

namespace ocr {

bool CtcDictionary::Load(const std::string& path, std::string* error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *error = "cannot open the dictionary '" + path + "'";
    return false;
  }
  classes_.assign(1, "blank");
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    classes_.push_back(line);
  }
  if (classes_.size() == 1) {
    *error = "the dictionary '" + path + "' is empty";
    return false;
  }
  classes_.push_back(" ");
  return true;
}

CtcDictionary::Text CtcDictionary::Decode(const float* probs, size_t steps) const {
  Text out;
  const size_t n = classes_.size();
  size_t previous = 0;
  double sum = 0;
  size_t kept = 0;
  for (size_t t = 0; t < steps; ++t) {
    const float* row = probs + t * n;
    size_t best = 0;
    for (size_t c = 1; c < n; ++c) {
      if (row[c] > row[best]) best = c;
    }
    const bool repeat = t > 0 && best == previous;
    previous = best;
    if (best == 0 || repeat) continue;
    out.text += classes_[best];
    sum += row[best];
    ++kept;
  }
  out.confidence = kept ? static_cast<float>(sum / kept) : 0.0f;
  return out;
}

}  // namespace ocr
