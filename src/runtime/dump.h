// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The data dump: per-node tensors of the executions of selected models, written as .npy files
// with a JSON index per execution (layout and keys: docs/tools.md "Data dump"). Turned on by
// acl.json's "dump" block at aclInit, or by aclmdlInitDump + aclmdlSetDump until
// aclmdlFinalizeDump. Off, it costs one relaxed atomic load per execution.
#pragma once

#include <atomic>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "base/status.h"
#include "hal/execution.h"
#include "runtime/config.h"
#include "runtime/executor.h"

namespace kiln::runtime {

// One dump config in force: its options and the time-stamped folder under dump_path that the
// executions it covers write into.
class DumpSession {
 public:
  DumpSession(DumpOptions options, std::string root)
      : options(std::move(options)), root(std::move(root)) {}
  const DumpOptions options;
  const std::string root;  // <dump_path>/<YYYYMMDDhhmmss>[_N]
  // The selection naming `model_name`, or null.
  const DumpModel* Find(const std::string& model_name) const;
  // 0, 1, ... per model id: the executions this session has seen.
  uint64_t NextExecution(uint32_t model_id) const;

 private:
  mutable std::mutex mu_;
  mutable std::unordered_map<uint32_t, uint64_t> executions_;
};

class Dumper {
 public:
  static Dumper& Get();

  // acl.json's "dump" block at aclInit: on until StopAutomatic (aclFinalize).
  Status StartFromConfig(const DumpOptions& options);
  void StopAutomatic();
  bool from_config() const;

  // aclmdlInitDump / aclmdlSetDump / aclmdlFinalizeDump, with AscendCL's call-order codes:
  // kDumpAlreadyRun while acl.json's dump is on, kRepeatInitialize for a second Init,
  // kDumpNotRun for Set/Finalize without Init.
  Status Init();
  Status Set(const DumpOptions& options);
  Status CanSet() const;  // what Set would say about the call order
  Status Finalize();

  // The session whose dump_list names the model now, by `model_name` or by `file_stem` (the
  // .om's file name), and in `matched` the name it used; null when none does (the usual case,
  // which reads one atomic).
  std::shared_ptr<const DumpSession> SessionFor(const std::string& model_name,
                                                const std::string& file_stem,
                                                std::string* matched) const;

 private:
  Dumper() = default;
  Status Install(const DumpOptions& options);  // with mu_ held
  Status CanSetLocked() const;

  mutable std::mutex mu_;
  std::atomic<bool> on_{false};
  bool from_config_ = false;
  bool api_initialized_ = false;
  std::shared_ptr<const DumpSession> session_;
};

// Writes one execution's selected tensors into
// <root>/<device>/<model_name>/<model_id>/<execution>/ and, at Finish, its index.json.
class DumpObserver final : public ExecObserver {
 public:
  // Tensors are read through `exec` (the run's device execution; null: plainly), as they may
  // be in device memory the host cannot address.
  DumpObserver(std::shared_ptr<const DumpSession> session, const GraphProgram* main_graph,
               std::string model_name, uint32_t model_id, uint32_t device, uint64_t execution,
               hal::Execution* exec = nullptr);
  void BeforeNode(const GraphProgram& graph, const NodeInfo& node,
                  const std::vector<const kernels::TensorView*>& inputs) override;
  void AfterNode(const GraphProgram& graph, const NodeInfo& node,
                 const std::vector<const kernels::TensorView*>& inputs,
                 const std::vector<const kernels::TensorView*>& outputs) override;
  // Writes index.json; the first failure to write a file (logged once) is returned.
  Status Finish();

 private:
  bool Selected(const NodeInfo& node) const;
  // The file stem of `node` (graph-qualified inside bodies, numbered on repeated runs).
  std::string Stem(const GraphProgram& graph, const NodeInfo& node);
  void Write(const GraphProgram& graph, const NodeInfo& node, const char* kind,
             const std::vector<const kernels::TensorView*>& tensors,
             const std::vector<int32_t>& ids, const std::string& stem, std::string* json);
  void Threw(const std::exception& e);

  std::shared_ptr<const DumpSession> session_;
  hal::Execution* exec_;
  const GraphProgram* main_graph_;
  std::string model_name_;
  uint32_t model_id_;
  uint64_t execution_;
  const DumpModel* selection_ = nullptr;
  std::string dir_;
  // Per node running now (bodies nest): its file stem and its inputs' index entries.
  std::vector<std::pair<std::string, std::string>> pending_;
  std::vector<std::string> nodes_json_;        // one per dumped node, in execution order
  std::unordered_map<std::string, int> runs_;  // stem -> times seen (Loop bodies)
  std::unordered_set<std::string> issued_;     // every stem given out in this execution
  Status error_;
  bool dir_made_ = false;
};

// The .npy bytes (format 1.0) of a tensor: header with descr/shape, then the raw data.
// bfloat16, which numpy lacks, is written as '<u2' (the index says "bfloat16").
std::string NpyHeader(kernels::DataType dtype, const kernels::Dims& dims);

}  // namespace kiln::runtime
