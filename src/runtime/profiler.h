// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The profiler behind aclprof* (docs/tools.md, "Profiling"): one process-wide collector of
// what a run selects — acl* calls, model executions with every node they ran, stream tasks
// (memcpy, memset, event record/wait, host callbacks) and msproftx marks and ranges — written
// at Stop by profile_report.h. Off (the default) it costs one relaxed atomic load per check:
// nothing reads a clock. Also the per-model subscriptions of aclprofModelSubscribe.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/status.h"
#include "hal/queue.h"
#include "kernels/tensor_view.h"

namespace kiln::hal {
class Execution;
}  // namespace kiln::hal
#include "runtime/executor.h"

namespace kiln::runtime {

class Stream;

// aclprofCreateConfig's bits (acl_prof.h) that Kiln collects.
inline constexpr uint64_t kProfAclApi = 0x0001;
inline constexpr uint64_t kProfTaskTime = 0x0002;
inline constexpr uint64_t kProfMsproftx = 0x0080;
inline constexpr uint64_t kProfRuntimeApi = 0x0100;
inline constexpr uint64_t kProfTaskTimeL0 = 0x0800;
inline constexpr uint64_t kProfTaskTimeL2 = 0x2000;

struct ProfileConfig {
  std::vector<uint32_t> devices;
  uint64_t data_types = 0;  // ACL_PROF_* bits
  int aicore_metrics = 0xFF;
  std::vector<std::pair<std::string, std::string>> settings;  // aclprofSetConfig, by name
};

enum class TaskKind : uint8_t {
  kModelExecute,
  kMemcpy,
  kMemset,
  kEventRecord,
  kEventWait,
  kCallback,
  kDvpp,  // a DVPP media task (acldvpp*Async)
  kStep,  // aclprofGetStepTimestamp start → end
};
const char* TaskKindName(TaskKind kind);

// One node of one execution.
struct OpRecord {
  uint32_t meta = 0;  // index into Profile::nodes
  uint32_t model_id = 0;
  uint32_t stream_id = 0;
  uint32_t device = 0;
  uint64_t infer_id = 0;  // the model's execution number, from 1
  uint32_t thread = 0;
  int32_t depth = 0;  // 0: a main-graph node; 1+: inside a body
  uint64_t start_ns = 0, end_ns = 0;
  std::vector<kernels::Dims> input_dims, output_dims;
  std::vector<kernels::DataType> input_types, output_types;
  int64_t flops = -1;  // -1: unknown
  uint64_t bytes = 0;  // read + written
};

// What a node is, kept once per (model, node).
struct NodeMeta {
  std::string model_name;
  std::string op_type;
  std::string name;
  std::string origins;   // ONNX node names, ';'-separated
  uint32_t task_id = 0;  // node index in its graph
};

struct TaskRecord {
  TaskKind kind = TaskKind::kMemcpy;
  uint32_t device = 0;
  uint32_t stream_id = 0;
  uint64_t start_ns = 0, end_ns = 0;
  std::string detail;  // "model 1 (resnet50) #3", "4096 B device-to-host" ...
};

struct ApiRecord {
  const char* name = nullptr;  // a string literal (the acl function's name)
  uint32_t thread = 0;
  uint64_t start_ns = 0, end_ns = 0;
};

// An msproftx mark (start == end), Push/Pop range or RangeStart/Stop range.
struct TxRecord {
  std::string message;
  uint32_t thread = 0;
  bool instant = false;
  uint64_t start_ns = 0, end_ns = 0;
};

// Everything one run collected.
struct Profile {
  ProfileConfig config;
  std::string result_dir;              // the aclprofInit path
  uint64_t start_ns = 0, stop_ns = 0;  // steady clock
  int64_t start_unix_us = 0;           // wall clock at start (for file names, info.json)
  std::vector<NodeMeta> nodes;
  std::vector<OpRecord> ops;
  std::vector<TaskRecord> tasks;
  std::vector<ApiRecord> apis;
  std::vector<TxRecord> tx;
};

class Profiler {
 public:
  static Profiler& Get();

  // The cheap checks callers make before reading a clock.
  bool api_on() const { return api_on_.load(std::memory_order_relaxed); }
  bool ops_on() const { return ops_on_.load(std::memory_order_relaxed); }
  bool tasks_on() const { return tasks_on_.load(std::memory_order_relaxed); }
  bool tx_on() const { return tx_on_.load(std::memory_order_relaxed); }

  // aclprofInit: kProfAlreadyRun when initialised already (by the API, acl.json or
  // PROFILING_OPTIONS), kProfApiConflict while a model subscription is active, kWriteFile when
  // `dir` cannot be created.
  Status Init(const std::string& dir);
  // aclprofFinalize: stops a started run (writing it); kProfNotRun when not initialised.
  Status Finalize();
  bool initialized() const;
  // aclprofStart: kProfNotRun before Init, kProfAlreadyRun when started. `owner` is the
  // config handle Stop must be given.
  Status Start(const ProfileConfig& config, const void* owner);
  // aclprofStop: stops and writes PROF_*/ under the Init folder; kProfNotRun when not started,
  // kInvalidParam for another owner. `written` receives the run's folder.
  Status Stop(const void* owner, std::string* written = nullptr);
  // Profiling asked for outside the API (acl.json "profiler" or the PROFILING_MODE /
  // PROFILING_OPTIONS environment of `kiln prof`): Init + Start now, Stop at aclFinalize or
  // process exit. `command_line`: started by msprof's environment (PROFILING_MODE), under which
  // the application's own aclprofInit/Start/Stop/Finalize do nothing (capi/acl_prof.cc).
  Status StartFromOptions(const std::string& dir, uint64_t data_types, bool command_line);
  // Stops a run started by StartFromOptions (aclFinalize); nothing otherwise.
  void StopAutomatic();
  // A run started from the command line (StartFromOptions with command_line) is on.
  bool command_line() const;

  // --- recording (each a no-op unless its kind is on) ---------------------------------------
  void RecordApi(const char* name, uint64_t start_ns, uint64_t end_ns);
  void RecordTask(TaskKind kind, uint32_t device, uint32_t stream, uint64_t start_ns,
                  uint64_t end_ns, std::string detail);
  // Interns the node's description; returns its index for OpRecord::meta.
  uint32_t Intern(uint64_t model_serial, const std::string& model_name, const NodeInfo& node,
                  uint32_t task_id);
  void RecordOps(std::vector<OpRecord>&& ops);
  void Mark(const std::string& message);
  void Push(const std::string& message);
  Status Pop();
  uint32_t RangeStart(const std::string& message);
  Status RangeStop(uint32_t id);
  // One application step (aclprofGetStepTimestamp start → end) on stream `stream_id`.
  void RecordStep(uint64_t step, uint32_t device, uint32_t stream_id, uint64_t start_ns,
                  uint64_t end_ns);

  // --- model subscriptions (aclprofModelSubscribe) -------------------------------------------
  // kProfApiConflict while Init is active, kProfRepeatSubscribe when already subscribed.
  Status Subscribe(uint32_t model_id, int fd, bool time_info);
  // kInvalidParam (100000) when the model is not subscribed.
  Status Unsubscribe(uint32_t model_id);
  bool subscribed(uint32_t model_id) const;
  // Writes one record per op to the model's pipe (after an execution).
  void Publish(uint32_t model_id, const std::vector<OpRecord>& ops,
               const std::vector<NodeMeta>& metas);

 private:
  Profiler() = default;
  void SetSwitches(uint64_t data_types);
  Profile TakeLocked();
  static Status Write(const Profile& done, std::string* written);

  mutable std::mutex mu_;
  std::atomic<bool> api_on_{false}, ops_on_{false}, tasks_on_{false}, tx_on_{false};
  bool initialized_ = false;
  bool started_ = false;
  bool automatic_ = false;
  bool command_line_ = false;  // automatic_, and started by PROFILING_MODE
  const void* owner_ = nullptr;
  std::string dir_;
  Profile profile_;
  std::unordered_map<uint64_t, uint32_t> node_index_;  // (model serial, node) → meta
  std::unordered_map<uint32_t, std::vector<std::pair<std::string, uint64_t>>> stacks_;  // Push
  std::unordered_map<uint32_t, std::pair<TxRecord, bool>> ranges_;  // bool: record it
  uint32_t next_range_ = 1;
  struct Subscription {
    int fd = -1;
    bool time_info = true;
  };
  std::unordered_map<uint32_t, Subscription> subscriptions_;
  std::atomic<int> subscription_count_{0};
};

// The calling thread's id as profiles show it (the kernel's tid).
uint32_t ProfileThreadId();

// Times every node of one execution (the ExecObserver of a profiled or subscribed model).
class ProfileObserver final : public ExecObserver {
 public:
  // `exec`: the run's device execution (may be null), waited for around each node so that a
  // device whose kernels run asynchronously (a GPU) is timed by what it computed, not by the
  // launch.
  ProfileObserver(uint64_t model_serial, std::string model_name, uint32_t model_id, uint32_t device,
                  uint32_t stream_id, uint64_t infer_id, hal::Execution* exec = nullptr);
  void BeforeNode(const GraphProgram& graph, const NodeInfo& node,
                  const std::vector<const kernels::TensorView*>& inputs) override;
  void AfterNode(const GraphProgram& graph, const NodeInfo& node,
                 const std::vector<const kernels::TensorView*>& inputs,
                 const std::vector<const kernels::TensorView*>& outputs) override;
  // Hands the records to the profiler and the model's subscription, if any.
  void Finish();

 private:
  uint64_t model_serial_;
  std::string model_name_;
  uint32_t model_id_, device_, stream_id_;
  uint64_t infer_id_;
  hal::Execution* exec_;
  uint32_t thread_;
  bool subscribed_;
  std::vector<uint64_t> starts_;  // one per node running now (bodies nest)
  std::vector<OpRecord> ops_;
  std::vector<NodeMeta> metas_;  // per op, for the subscription
};

// Work for a stream, timed as a `kind` task when stream tasks are profiled at submission.
hal::Work TimedTask(TaskKind kind, const Stream& stream, std::string detail, hal::Work work);
// Makes `stream` wait for `event`; the wait shows on the timeline when tasks are profiled.
// `detail` is a string literal.
void WaitEventTimed(Stream& stream, std::shared_ptr<hal::Event> event,
                    const char* detail = "event wait");

// Times one acl* call for the API statistics (constructed by the C API's entry guard).
class ApiTimer {
 public:
  explicit ApiTimer(const char* name)
      : name_(Profiler::Get().api_on() ? name : nullptr), start_(name_ ? Now() : 0) {}
  ~ApiTimer() {
    if (name_ != nullptr) Profiler::Get().RecordApi(name_, start_, Now());
  }
  ApiTimer(const ApiTimer&) = delete;
  ApiTimer& operator=(const ApiTimer&) = delete;
  static uint64_t Now();

 private:
  const char* name_;
  uint64_t start_;
};

}  // namespace kiln::runtime
