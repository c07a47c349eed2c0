// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// CTC greedy decoding for the PP-OCR recogniser: the best class of every time step, repeats
// merged, the blank (class 0) dropped, classes mapped through the model's dictionary.
#ifndef KILN_EXAMPLES_OCR_CTC_DECODE_H_
#define KILN_EXAMPLES_OCR_CTC_DECODE_H_

#include <string>
#include <vector>

namespace ocr {

// The recogniser's classes: "blank" first, the dictionary's characters (one UTF-8 string a
// line; the rec model's metadata_props "character" as RapidOCR reads it), then " ".
class CtcDictionary {
 public:
  // Reads the dictionary file; false (and *error) when it cannot be read or is empty.
  bool Load(const std::string& path, std::string* error);
  size_t NumClasses() const { return classes_.size(); }

  struct Text {
    std::string text;
    float confidence = 0;  // mean of the kept steps' probabilities, 0 when nothing is kept
  };
  // probs is [steps, NumClasses()] (softmax outputs), row-major.
  Text Decode(const float* probs, size_t steps) const;

 private:
  std::vector<std::string> classes_;
};

}  // namespace ocr

#endif  // KILN_EXAMPLES_OCR_CTC_DECODE_H_
