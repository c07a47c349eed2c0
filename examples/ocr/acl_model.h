// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// One .om model behind the public AscendCL API (acl/acl.h only): load, describe, and execute
// with one float32 input and one float32 output, where the input may have dynamic (-1) dims.
#ifndef KILN_EXAMPLES_OCR_ACL_MODEL_H_
#define KILN_EXAMPLES_OCR_ACL_MODEL_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "acl/acl.h"

namespace ocr {

// Requires aclInit and a current context (aclrtSetDevice). Not thread-safe: one execution at a
// time per object (its device buffers are reused between executions).
class AclModel {
 public:
  // Loads the model and checks it has one float32 input and one float32 output. On failure
  // returns null and says why (with aclGetRecentErrMsg's text) in *error.
  static std::unique_ptr<AclModel> Load(const std::string& path, std::string* error);
  ~AclModel();
  AclModel(const AclModel&) = delete;
  AclModel& operator=(const AclModel&) = delete;

  // The input's dims as compiled; -1 marks a dim given at execution time.
  const std::vector<int64_t>& input_dims() const { return input_dims_; }

  // Executes on `input` (its dims in input_dims; they must match the compiled ones where those
  // are fixed). The output comes back in *output with its actual dims in *output_dims.
  // max_output_elements bounds the output of a model with dynamic output dims (the runtime
  // writes into a buffer of that size); it is ignored when the model gives a fixed size.
  bool Run(const std::vector<float>& input, const std::vector<int64_t>& input_dims,
           size_t max_output_elements, std::vector<float>* output,
           std::vector<int64_t>* output_dims, std::string* error);

 private:
  AclModel() = default;
  bool EnsureBuffer(void** buffer, size_t* capacity, size_t bytes, std::string* error);

  uint32_t model_id_ = 0;
  bool loaded_ = false;
  aclmdlDesc* desc_ = nullptr;
  std::string path_;
  std::vector<int64_t> input_dims_;
  size_t fixed_output_bytes_ = 0;  // 0: dynamic
  void* device_input_ = nullptr;
  size_t input_capacity_ = 0;
  void* device_output_ = nullptr;
  size_t output_capacity_ = 0;
};

// "call failed: <code> <recent error message>" for an AscendCL call that returned `code`.
std::string AclErrorText(const char* call, aclError code);

}  // namespace ocr

#endif  // KILN_EXAMPLES_OCR_ACL_MODEL_H_
