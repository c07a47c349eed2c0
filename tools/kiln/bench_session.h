// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The AscendCL side of `kiln bench`: one loaded model, the gear it runs at, the input samples
// in host memory, and per-thread workers that time each execution's three phases (H2D copy of
// the inputs, the model execution, D2H copy of the outputs). Public AscendCL API only.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "acl/acl.h"

namespace kiln::tools::bench {

// The gear chosen with --dymBatch / --dymHW / --dymDims, or the real dims of a fully dynamic
// model (--dymShape); kind kNone: a static model.
struct GearChoice {
  enum Kind { kNone, kBatch, kHW, kDims, kShape } kind = kNone;
  uint64_t batch = 0;
  uint64_t height = 0, width = 0;
  std::string dims_text;             // "name:d0,d1;name2:..." (--dymDims, --dymShape)
  std::vector<size_t> output_sizes;  // --outputSize: bytes per output (0: the model's)
};

// One model input or output as the run uses it.
struct TensorInfo {
  size_t index = 0;  // in the model's input or output list
  std::string name;
  aclDataType dtype = ACL_DT_UNDEFINED;
  std::vector<int64_t> model_dims;  // as compiled (-1 for a dynamic dim)
  std::vector<int64_t> dims;        // at the chosen gear
  size_t bytes = 0;                 // at the chosen gear
  size_t capacity = 0;              // the model's buffer size (the largest gear)
};

// The phase times of one execution, in milliseconds.
struct PhaseTimes {
  double h2d = 0, compute = 0, d2h = 0;
};

class Session;

// One thread's buffers and results. Not thread-safe: one thread drives one worker.
class Worker {
 public:
  Worker(Session* session, bool use_stream, size_t output_sets);
  ~Worker();
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  // Allocates device buffers and datasets and selects the gear. Returns "" or the error.
  std::string Prepare();
  // Creates this worker's stream when it uses one (call on the thread that runs it).
  std::string StartThread();
  // One execution of sample `s`: inputs copied in, executed, outputs copied out into output
  // set `s % output_sets`. Returns "" or the error.
  std::string Run(size_t sample, PhaseTimes* times);
  // The host copy of output `o` from output set `set`.
  const void* HostOutput(size_t set, size_t o) const { return out_host_[set][o]; }
  aclmdlDataset* output_dataset() const { return out_; }

 private:
  std::string Copy(void* dst, size_t dst_max, const void* src, size_t count, aclrtMemcpyKind kind);

  Session* session_;
  bool use_stream_;
  aclrtStream stream_ = nullptr;
  aclmdlDataset* in_ = nullptr;
  aclmdlDataset* out_ = nullptr;
  std::vector<void*> in_dev_, out_dev_;
  std::vector<std::vector<void*>> out_host_;  // [set][output]
};

class Session {
 public:
  ~Session();

  // aclInit (with `acl_json`, "" for none), device and context; returns "" or the error.
  std::string Open(int device, const std::string& acl_json);
  // Loads the .om and reads its description. Returns "" or the error.
  std::string Load(const std::string& om_path);
  // Resolves the inputs' and outputs' dims at `gear`. Returns "" or the error.
  std::string ChooseGear(const GearChoice& gear);
  // Takes the host copy of every sample: samples[s][i] is data input i of sample s, of
  // inputs()[i].bytes bytes. Returns "" or the error.
  std::string SetSamples(const std::vector<std::vector<std::vector<char>>>& samples);
  // After an execution: the outputs' real dims from the output dataset's tensor descs.
  void RefreshOutputDims(const aclmdlDataset* output);

  const std::vector<TensorInfo>& inputs() const { return inputs_; }  // data inputs
  const std::vector<TensorInfo>& outputs() const { return outputs_; }
  size_t num_samples() const { return samples_.size(); }
  const GearChoice& gear() const { return gear_; }
  std::string GearText() const;  // "batch 4", "hw 224,224", "dims data:1,3" or ""
  aclrtContext context() const { return context_; }

 private:
  friend class Worker;
  std::string ResolveDims(TensorInfo& in, const std::vector<std::string>& dym_names,
                          const std::vector<std::vector<int64_t>>& dym_dims);
  std::string GearsOfModel() const;

  int device_ = -1;
  bool initialized_ = false;
  aclrtContext context_ = nullptr;
  uint32_t model_id_ = 0;
  bool loaded_ = false;
  aclmdlDesc* desc_ = nullptr;
  size_t num_model_inputs_ = 0;
  size_t gear_index_ = SIZE_MAX;  // index of the ACL_DYNAMIC_TENSOR_NAME input
  size_t gear_capacity_ = 0;
  GearChoice gear_;
  aclmdlIODims gear_dims_{};  // --dymDims: every data input's dims, concatenated
  std::vector<TensorInfo> inputs_, outputs_;
  std::vector<std::vector<void*>> samples_;  // [sample][input], aclrtMallocHost
};

// The AscendCL error text for a failed call: "call: error N: message".
std::string AclFailure(const char* call, aclError ret);

}  // namespace kiln::tools::bench
