// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "runtime/profiler.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "base/clock.h"
#include "base/log.h"
#include "hal/execution.h"
#include "kernels/cost.h"
#include "runtime/objects.h"
#include "runtime/profile_report.h"
#include "runtime/subscription_record.h"

namespace kiln::runtime {

const char* TaskKindName(TaskKind kind) {
  switch (kind) {
    case TaskKind::kModelExecute:
      return "ModelExecute";
    case TaskKind::kMemcpy:
      return "Memcpy";
    case TaskKind::kMemset:
      return "Memset";
    case TaskKind::kEventRecord:
      return "EventRecord";
    case TaskKind::kEventWait:
      return "EventWait";
    case TaskKind::kCallback:
      return "Callback";
    case TaskKind::kDvpp:
      return "Dvpp";
    case TaskKind::kStep:
      return "Step";
  }
  return "Task";
}

uint32_t ProfileThreadId() {
  thread_local const uint32_t tid = static_cast<uint32_t>(::syscall(SYS_gettid));
  return tid;
}

uint64_t ApiTimer::Now() { return SteadyNowNs(); }

Profiler& Profiler::Get() {
  static auto* profiler = new Profiler();  // never destroyed: used from exit handlers
  return *profiler;
}

bool Profiler::initialized() const {
  std::lock_guard<std::mutex> lock(mu_);
  return initialized_;
}

Status Profiler::Init(const std::string& dir) {
  std::lock_guard<std::mutex> lock(mu_);
  if (initialized_) {
    return Error(code::kProfAlreadyRun, "profiling is already initialised",
                 automatic_ ? " (by acl.json \"profiler\" or PROFILING_OPTIONS)"
                            : " (aclprofFinalize first)");
  }
  if (!subscriptions_.empty()) {
    return Error(code::kProfApiConflict,
                 "a model subscription (aclprofModelSubscribe) is "
                 "active; aclprofInit and subscriptions cannot be used together");
  }
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec || !std::filesystem::is_directory(dir)) {
    return Error(code::kWriteFile, "cannot create the profiling result folder '", dir,
                 "': ", ec ? ec.message() : "not a folder");
  }
  if (::access(dir.c_str(), W_OK) != 0) {
    return Error(code::kWriteFile, "the profiling result folder '", dir, "' is not writable");
  }
  initialized_ = true;
  dir_ = dir;
  return Status::Ok();
}

void Profiler::SetSwitches(uint64_t types) {
  const bool tasks = (types & (kProfTaskTime | kProfTaskTimeL0 | kProfTaskTimeL2)) != 0;
  api_on_.store((types & kProfAclApi) != 0, std::memory_order_relaxed);
  ops_on_.store(tasks, std::memory_order_relaxed);
  tasks_on_.store(tasks || (types & kProfRuntimeApi) != 0, std::memory_order_relaxed);
  tx_on_.store((types & kProfMsproftx) != 0, std::memory_order_relaxed);
}

Status Profiler::Start(const ProfileConfig& config, const void* owner) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!initialized_) return Error(code::kProfNotRun, "aclprofStart before aclprofInit");
  if (started_) {
    return Error(code::kProfAlreadyRun, "profiling is already started; aclprofStop it first");
  }
  started_ = true;
  owner_ = owner;
  profile_ = Profile{};
  profile_.config = config;
  profile_.result_dir = dir_;
  profile_.start_ns = SteadyNowNs();
  profile_.start_unix_us = std::chrono::duration_cast<std::chrono::microseconds>(
                               std::chrono::system_clock::now().time_since_epoch())
                               .count();
  node_index_.clear();
  stacks_.clear();
  SetSwitches(config.data_types);
  return Status::Ok();
}

Profile Profiler::TakeLocked() {
  SetSwitches(0);
  started_ = false;
  owner_ = nullptr;
  profile_.stop_ns = SteadyNowNs();
  Profile done = std::move(profile_);
  profile_ = Profile{};
  node_index_.clear();
  return done;
}

// Outside the lock: writing takes a while (and may measure the device's peak), and executions
// on other threads must not wait for it.
Status Profiler::Write(const Profile& done, std::string* written) {
  auto folder = WriteProfile(done);
  if (!folder.ok()) return folder.status();
  KILN_LOG(kRuntime, kInfo, "profiling data written to '", *folder, "'");
  if (written) *written = *folder;
  return Status::Ok();
}

Status Profiler::Stop(const void* owner, std::string* written) {
  Profile done;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!started_) return Error(code::kProfNotRun, "aclprofStop without aclprofStart");
    if (owner != owner_) {
      return Error(code::kInvalidParam,
                   "aclprofStop must be given the config aclprofStart was given");
    }
    done = TakeLocked();
  }
  return Write(done, written);
}

Status Profiler::Finalize() {
  Profile done;
  bool was_started = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!initialized_) return Error(code::kProfNotRun, "aclprofFinalize without aclprofInit");
    was_started = started_;
    if (started_) done = TakeLocked();
    initialized_ = false;
    automatic_ = false;
    command_line_ = false;
    dir_.clear();
  }
  return was_started ? Write(done, nullptr) : Status::Ok();
}

Status Profiler::StartFromOptions(const std::string& dir, uint64_t data_types, bool command_line) {
  KILN_RETURN_IF_ERROR(Init(dir), "");
  ProfileConfig config;
  config.data_types = data_types;
  KILN_RETURN_IF_ERROR(Start(config, this), "");
  std::lock_guard<std::mutex> lock(mu_);
  automatic_ = true;
  command_line_ = command_line;
  static bool registered = false;
  if (!registered) {
    registered = true;
    // An application that exits without aclFinalize still leaves its profile.
    std::atexit([] { Profiler::Get().StopAutomatic(); });
  }
  return Status::Ok();
}

bool Profiler::command_line() const {
  std::lock_guard<std::mutex> lock(mu_);
  return command_line_;
}

void Profiler::StopAutomatic() {
  Profile done;
  bool was_started = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!automatic_) return;
    was_started = started_;
    if (started_) done = TakeLocked();
    automatic_ = false;
    command_line_ = false;
    initialized_ = false;
    dir_.clear();
  }
  if (!was_started) return;
  Status st = Write(done, nullptr);
  if (!st.ok()) KILN_LOG(kRuntime, kError, "cannot write the profile: ", st.message());
}

void Profiler::RecordApi(const char* name, uint64_t start_ns, uint64_t end_ns) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!started_ || !api_on()) return;
  profile_.apis.push_back(ApiRecord{name, ProfileThreadId(), start_ns, end_ns});
}

void Profiler::RecordTask(TaskKind kind, uint32_t device, uint32_t stream, uint64_t start_ns,
                          uint64_t end_ns, std::string detail) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!started_ || !tasks_on()) return;
  profile_.tasks.push_back(TaskRecord{kind, device, stream, start_ns, end_ns, std::move(detail)});
}

namespace {

NodeMeta MetaOf(const std::string& model_name, const NodeInfo& node, uint32_t task_id) {
  NodeMeta m;
  m.model_name = model_name;
  m.op_type = node.op_type;
  m.name = node.name;
  for (size_t i = 0; i < node.origins.size(); ++i) {
    m.origins += (i ? ";" : "") + node.origins[i];
  }
  if (m.origins.empty()) m.origins = node.name;
  m.task_id = task_id;
  return m;
}

}  // namespace

uint32_t Profiler::Intern(uint64_t model_serial, const std::string& model_name,
                          const NodeInfo& node, uint32_t task_id) {
  // Nodes of one model live as long as the model; (serial, address) never repeats.
  const uint64_t key = model_serial * 0x9E3779B97F4A7C15ull ^ reinterpret_cast<uintptr_t>(&node);
  std::lock_guard<std::mutex> lock(mu_);
  auto [it, inserted] = node_index_.try_emplace(key, 0);
  if (inserted) {
    it->second = static_cast<uint32_t>(profile_.nodes.size());
    profile_.nodes.push_back(MetaOf(model_name, node, task_id));
  }
  return it->second;
}

void Profiler::RecordOps(std::vector<OpRecord>&& ops) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!started_ || !ops_on()) return;
  for (OpRecord& r : ops) {
    if (r.meta < profile_.nodes.size()) profile_.ops.push_back(std::move(r));
  }
}

void Profiler::Mark(const std::string& message) {
  if (!tx_on()) return;
  const uint64_t now = SteadyNowNs();
  std::lock_guard<std::mutex> lock(mu_);
  if (started_) profile_.tx.push_back(TxRecord{message, ProfileThreadId(), true, now, now});
}

void Profiler::Push(const std::string& message) {
  if (!tx_on()) return;
  const uint64_t now = SteadyNowNs();
  std::lock_guard<std::mutex> lock(mu_);
  if (started_) stacks_[ProfileThreadId()].emplace_back(message, now);
}

Status Profiler::Pop() {
  const uint64_t now = SteadyNowNs();
  std::lock_guard<std::mutex> lock(mu_);
  auto it = stacks_.find(ProfileThreadId());
  if (it == stacks_.end() || it->second.empty()) {
    if (!tx_on()) return Status::Ok();  // nothing is recorded while msproftx is off
    return Error(code::kInvalidParam, "aclprofPop without a matching aclprofPush on this thread");
  }
  auto [message, start] = std::move(it->second.back());
  it->second.pop_back();
  if (started_) profile_.tx.push_back(TxRecord{message, ProfileThreadId(), false, start, now});
  return Status::Ok();
}

uint32_t Profiler::RangeStart(const std::string& message) {
  const uint64_t now = SteadyNowNs();
  std::lock_guard<std::mutex> lock(mu_);
  const uint32_t id = next_range_++;
  // Kept even while msproftx is off, so that its RangeStop is still checked; recorded only
  // when msproftx was on at the start.
  ranges_.emplace(
      id, std::make_pair(TxRecord{message, ProfileThreadId(), false, now, 0}, started_ && tx_on()));
  return id;
}

Status Profiler::RangeStop(uint32_t id) {
  const uint64_t now = SteadyNowNs();
  std::lock_guard<std::mutex> lock(mu_);
  auto it = ranges_.find(id);
  if (it == ranges_.end()) {
    return Error(code::kInvalidParam, "range id ", id,
                 " is not a running aclprofRangeStart range (stopped already?)");
  }
  auto& [record, kept] = it->second;
  record.end_ns = now;
  if (kept && started_ && tx_on()) profile_.tx.push_back(std::move(record));
  ranges_.erase(it);
  return Status::Ok();
}

void Profiler::RecordStep(uint64_t step, uint32_t device, uint32_t stream_id, uint64_t start_ns,
                          uint64_t end_ns) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!started_) return;
  profile_.tasks.push_back(
      TaskRecord{TaskKind::kStep, device, stream_id, start_ns, end_ns, StrCat("step ", step)});
}

Status Profiler::Subscribe(uint32_t model_id, int fd, bool time_info) {
  std::lock_guard<std::mutex> lock(mu_);
  if (initialized_) {
    return Error(code::kProfApiConflict,
                 "profiling is initialised (aclprofInit, acl.json or "
                 "PROFILING_OPTIONS); subscriptions cannot be used with it");
  }
  if (subscriptions_.count(model_id)) {
    return Error(code::kProfRepeatSubscribe, "model ", model_id, " is already subscribed");
  }
  subscriptions_[model_id] = Subscription{fd, time_info};
  subscription_count_.store(static_cast<int>(subscriptions_.size()), std::memory_order_relaxed);
  return Status::Ok();
}

Status Profiler::Unsubscribe(uint32_t model_id) {
  std::lock_guard<std::mutex> lock(mu_);
  if (subscriptions_.erase(model_id) == 0) {
    return Error(code::kInvalidParam, "model ", model_id, " is not subscribed");
  }
  subscription_count_.store(static_cast<int>(subscriptions_.size()), std::memory_order_relaxed);
  return Status::Ok();
}

bool Profiler::subscribed(uint32_t model_id) const {
  // The common case (no subscription at all) takes no lock.
  if (model_id == 0 || subscription_count_.load(std::memory_order_relaxed) == 0) return false;
  std::lock_guard<std::mutex> lock(mu_);
  return subscriptions_.count(model_id) != 0;
}

void Profiler::Publish(uint32_t model_id, const std::vector<OpRecord>& ops,
                       const std::vector<NodeMeta>& metas) {
  Subscription sub;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = subscriptions_.find(model_id);
    if (it == subscriptions_.end()) return;
    sub = it->second;
  }
  std::vector<uint8_t> bytes(ops.size() * sizeof(SubscriptionRecord));
  for (size_t i = 0; i < ops.size(); ++i) {
    const NodeMeta& m = metas[i];
    SubscriptionRecord r =
        MakeSubscriptionRecord(m.op_type, m.name, model_id, ops[i].thread, ops[i].depth > 0);
    if (sub.time_info) {
      r.start_us = ops[i].start_ns / 1000;
      r.end_us = ops[i].end_ns / 1000;
    }
    std::memcpy(bytes.data() + i * sizeof r, &r, sizeof r);
  }
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(sub.fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      KILN_LOG(kRuntime, kWarning, "model ", model_id,
               ": cannot write to the subscription pipe: ", std::strerror(errno));
      return;
    }
    done += static_cast<size_t>(n);
  }
}

ProfileObserver::ProfileObserver(uint64_t model_serial, std::string model_name, uint32_t model_id,
                                 uint32_t device, uint32_t stream_id, uint64_t infer_id,
                                 hal::Execution* exec)
    : model_serial_(model_serial),
      model_name_(std::move(model_name)),
      model_id_(model_id),
      device_(device),
      stream_id_(stream_id),
      infer_id_(infer_id),
      exec_(exec),
      thread_(ProfileThreadId()),
      subscribed_(Profiler::Get().subscribed(model_id)) {}

void ProfileObserver::BeforeNode(const GraphProgram&, const NodeInfo&,
                                 const std::vector<const kernels::TensorView*>&) {
  if (exec_ != nullptr) exec_->Synchronize();  // the nodes before it are not its time
  starts_.push_back(SteadyNowNs());
}

void ProfileObserver::AfterNode(const GraphProgram& graph, const NodeInfo& node,
                                const std::vector<const kernels::TensorView*>& inputs,
                                const std::vector<const kernels::TensorView*>& outputs) {
  if (exec_ != nullptr) exec_->Synchronize();
  const uint64_t end = SteadyNowNs();
  if (starts_.empty()) return;
  OpRecord r;
  r.start_ns = starts_.back();
  r.end_ns = end;
  starts_.pop_back();
  r.depth = static_cast<int32_t>(starts_.size());
  r.model_id = model_id_;
  r.stream_id = stream_id_;
  r.device = device_;
  r.infer_id = infer_id_;
  r.thread = thread_;
  for (const kernels::TensorView* t : inputs) {
    r.input_dims.push_back(t ? t->dims : kernels::Dims{});
    r.input_types.push_back(t ? t->dtype : kernels::DataType::kUndefined);
    if (t) r.bytes += t->bytes();
  }
  for (const kernels::TensorView* t : outputs) {
    r.output_dims.push_back(t ? t->dims : kernels::Dims{});
    r.output_types.push_back(t ? t->dtype : kernels::DataType::kUndefined);
    if (t) r.bytes += t->bytes();
  }
  if (auto flops = kernels::Flops(node.cost, inputs, outputs)) {
    r.flops = static_cast<int64_t>(*flops);
  }
  const auto task_id = static_cast<uint32_t>(&node - graph.nodes.data());
  Profiler& profiler = Profiler::Get();
  if (profiler.ops_on()) r.meta = profiler.Intern(model_serial_, model_name_, node, task_id);
  // The subscription needs the names even when the profiler does not keep them.
  if (subscribed_) metas_.push_back(MetaOf(model_name_, node, task_id));
  ops_.push_back(std::move(r));
}

void ProfileObserver::Finish() {
  Profiler& profiler = Profiler::Get();
  if (subscribed_) profiler.Publish(model_id_, ops_, metas_);
  profiler.RecordOps(std::move(ops_));
}

hal::Work TimedTask(TaskKind kind, const Stream& stream, std::string detail, hal::Work work) {
  if (!Profiler::Get().tasks_on()) return work;
  return [kind, device = static_cast<uint32_t>(stream.device()), id = stream.id(),
          detail = std::move(detail), work = std::move(work)]() -> Status {
    const uint64_t start = SteadyNowNs();
    Status st = work();
    Profiler::Get().RecordTask(kind, device, id, start, SteadyNowNs(), detail);
    return st;
  };
}

void WaitEventTimed(Stream& stream, std::shared_ptr<hal::Event> event, const char* detail) {
  if (!Profiler::Get().tasks_on()) {
    stream.queue().WaitEvent(std::move(event));
    return;
  }
  // The wait runs from the moment the stream reaches it to the moment the work after it may
  // start: two markers around the queue's own wait.
  auto reached = std::make_shared<uint64_t>(0);
  stream.queue().Submit([reached]() -> Status {
    *reached = SteadyNowNs();
    return Status::Ok();
  });
  stream.queue().WaitEvent(std::move(event));
  stream.queue().Submit([reached, device = static_cast<uint32_t>(stream.device()), id = stream.id(),
                         detail]() -> Status {
    Profiler::Get().RecordTask(TaskKind::kEventWait, device, id, *reached, SteadyNowNs(), detail);
    return Status::Ok();
  });
}

}  // namespace kiln::runtime
