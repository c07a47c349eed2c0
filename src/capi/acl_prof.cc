// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The profiling API (acl_prof.h) over runtime::Profiler: collection configs, Start/Stop, the
// per-model subscription records, step info and msproftx stamps.
#include "acl/acl_prof.h"

#include <atomic>
#include <cstring>
#include <string>
#include <utility>

#include "acl/acl.h"
#include "base/clock.h"
#include "base/log.h"
#include "capi/error.h"
#include "capi/handle_table.h"
#include "runtime/model.h"
#include "runtime/runtime.h"
#include "runtime/subscription_record.h"

using kiln::Status;
using kiln::capi::InvalidParam;
using kiln::capi::Report;
using kiln::runtime::Profiler;
using kiln::runtime::SubscriptionRecord;

namespace {

// What the profiling API's handles name.
struct ProfConfig {  // aclprofConfig
  kiln::runtime::ProfileConfig config;
};

struct SubscribeConfig {  // aclprofSubscribeConfig
  bool time_info = true;
  int fd = -1;
};

struct StepInfo {  // aclprofStepInfo
  uint64_t step = 0;
  uint64_t start_ns = 0;
  bool started = false;
  bool ended = false;
};

namespace code = kiln::code;

constexpr size_t kMaxPathLength = 4096;
constexpr uint32_t kMaxStampMessage = 128;
// The dataTypeConfig bits acl_prof.h defines.
constexpr uint64_t kKnownTypes =
    ACL_PROF_ACL_API | ACL_PROF_TASK_TIME | ACL_PROF_AICORE_METRICS | ACL_PROF_AICPU |
    ACL_PROF_L2CACHE | ACL_PROF_HCCL_TRACE | ACL_PROF_TRAINING_TRACE | ACL_PROF_MSPROFTX |
    ACL_PROF_RUNTIME_API | ACL_PROF_FWK_SCHEDULE_L0 | ACL_PROF_TASK_TIME_L0 | ACL_PROF_TASK_MEMORY |
    ACL_PROF_TASK_TIME_L2 | ACL_PROF_OP_ATTR | ACL_PROF_FWK_SCHEDULE_L1;

struct Stamp {  // an aclprofCreateStamp void*
  std::string message;
};

using kiln::capi::GlobalTable;
auto& Configs() {
  return GlobalTable<aclprofConfig, ProfConfig>("profilerConfig", "aclprofConfig");
}
auto& SubscribeConfigs() {
  return GlobalTable<aclprofSubscribeConfig, SubscribeConfig>("profSubscribeConfig",
                                                              "aclprofSubscribeConfig");
}
auto& StepInfos() { return GlobalTable<aclprofStepInfo, StepInfo>("stepInfo", "aclprofStepInfo"); }
auto& Stamps() { return GlobalTable<void, Stamp>("stamp", "aclprofCreateStamp stamp"); }

// aclprofSetConfig values, kept for the next aclprofStart's info.json.
std::mutex settings_mu;
std::vector<std::pair<std::string, std::string>>& Settings() {
  static auto* s = new std::vector<std::pair<std::string, std::string>>();
  return *s;
}

bool ParseUint(const std::string& text, uint64_t* value) {
  if (text.empty() || text.size() > 20) return false;
  uint64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  *value = v;
  return true;
}

// The name of aclprofSetConfig option `type` and whether `value` is in its documented range;
// "" for an unknown option.
std::string CheckSetting(int type, const std::string& value, bool* ok) {
  uint64_t n = 0;
  auto in = [&](uint64_t lo, uint64_t hi) { return ParseUint(value, &n) && n >= lo && n <= hi; };
  switch (type) {
    case ACL_PROF_STORAGE_LIMIT:
      *ok = in(200, 4294967295ull);
      return "storage_limit_mb";
    case ACL_PROF_AIV_METRICS:
      *ok = !value.empty();
      return "aiv_metrics";
    case ACL_PROF_SYS_HARDWARE_MEM_FREQ:
      *ok = in(1, 100);
      return "sys_hardware_mem_freq";
    case ACL_PROF_LLC_MODE:
      *ok = value == "read" || value == "write";
      return "llc_mode";
    case ACL_PROF_SYS_IO_FREQ:
      *ok = in(1, 100);
      return "sys_io_freq";
    case ACL_PROF_SYS_INTERCONNECTION_FREQ:
      *ok = in(1, 50);
      return "sys_interconnection_freq";
    case ACL_PROF_DVPP_FREQ:
      *ok = in(1, 100);
      return "dvpp_freq";
    case ACL_PROF_HOST_SYS:
    case ACL_PROF_HOST_SYS_USAGE: {
      *ok = !value.empty();
      size_t start = 0;
      while (*ok && start <= value.size()) {
        size_t comma = value.find(',', start);
        std::string item =
            value.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        *ok = item == "cpu" || item == "mem";
        if (comma == std::string::npos) break;
        start = comma + 1;
      }
      return type == ACL_PROF_HOST_SYS ? "host_sys" : "host_sys_usage";
    }
    case ACL_PROF_HOST_SYS_USAGE_FREQ:
      *ok = in(1, 50);
      return "host_sys_usage_freq";
    case ACL_PROF_LOW_POWER_FREQ:
      *ok = in(1, 100);
      return "low_power_freq";
    case ACL_PROF_SYS_MEM_SERVICEFLOW:
      *ok = !value.empty();
      return "sys_mem_serviceflow";
    case ACL_PROF_SYS_CPU_FREQ:
      *ok = in(1, 50);
      return "sys_cpu_freq";
    case ACL_PROF_OPTYPE:
      *ok = !value.empty();
      return "optype";
    case ACL_PROF_PATH:
      *ok = !value.empty() && value.size() <= kMaxPathLength;
      return "path";
    default:
      *ok = false;
      return "";
  }
}

// The record `index` of a subscription buffer, or null (and a message) when the buffer or the
// index is bad.
const SubscriptionRecord* RecordAt(const char* api, const void* info, size_t len, uint32_t index) {
  if (info == nullptr) {
    InvalidParam(api, "opInfo is NULL");
    return nullptr;
  }
  if (len == 0 || len % sizeof(SubscriptionRecord) != 0) {
    InvalidParam(api, "opInfoLen ", len, " is not a multiple of the record size ",
                 sizeof(SubscriptionRecord), " (aclprofGetOpDescSize)");
    return nullptr;
  }
  if (index >= len / sizeof(SubscriptionRecord)) {
    InvalidParam(api, "index ", index, " is beyond the ", len / sizeof(SubscriptionRecord),
                 " records in opInfo");
    return nullptr;
  }
  const auto* r = static_cast<const SubscriptionRecord*>(info) + index;
  if (r->magic != SubscriptionRecord::kMagic) {
    InvalidParam(api, "record ", index, " of opInfo is not a subscription record");
    return nullptr;
  }
  return r;
}

aclError CopyText(const char* api, const char* text, char* out, size_t out_len) {
  if (out == nullptr) return InvalidParam(api, "output string is NULL");
  const size_t need = std::strlen(text) + 1;
  if (out_len < need) {
    return InvalidParam(api, "the output string holds ", out_len, " bytes, ", need,
                        " are needed (ask the ...Len function)");
  }
  std::memcpy(out, text, need);
  return ACL_SUCCESS;
}

std::shared_ptr<Stamp> LiveStamp(const char* api, void* stamp) {
  if (stamp == nullptr) {
    InvalidParam(api, "stamp is NULL");
    return nullptr;
  }
  std::shared_ptr<Stamp> s = Stamps().Find(stamp);
  if (s == nullptr) {
    InvalidParam(api, "stamp ", kiln::PtrStr(stamp), " is not a live aclprofCreateStamp stamp");
  }
  return s;
}

// Profiling switched on for the whole process from the command line: msprof, or `kiln prof
// --application`, sets PROFILING_MODE=true (and PROFILING_OPTIONS) and aclInit started the
// run. CANN's profiler then answers the application's own aclprofInit/Start/Stop/Finalize with
// a warning ("Acl profiling api mode is disabled because working on cmd mode") and
// ACL_ERROR_PROF_ALREADY_RUN, so a sample that checks every return code, as CANN's do, quits
// half-way. Kiln takes those calls as no-ops instead, with the same warning: the program runs
// to its end unchanged and the command line's profile covers all of it. acl.json "profiler"
// keeps CANN's documented 100042 (docs/ascendcl-reference.md §1.12).
bool CommandLineProfiling() { return Profiler::Get().command_line(); }

void WarnIgnored(const char* api) {
  KILN_LOG(kAscendCl, kWarning, api,
           ": profiling is on from the command line (PROFILING_MODE, `kiln prof "
           "--application`); this call does nothing and the command line's profile covers "
           "the whole run");
}

}  // namespace

extern "C" {

aclError aclprofInit(const char* profilerResultPath, size_t length) {
  KILN_CAPI("aclprofInit", {
    const char* api = "aclprofInit";
    if (profilerResultPath == nullptr) return InvalidParam(api, "profilerResultPath is NULL");
    if (length == 0 || length > kMaxPathLength) {
      return InvalidParam(api, "length ", length, " is outside [1, ", kMaxPathLength, "]");
    }
    const size_t real = strnlen(profilerResultPath, length);
    if (real == 0) return InvalidParam(api, "profilerResultPath is empty");
    if (!kiln::runtime::Runtime::Get().initialized()) {
      return Report(api, kiln::Error(code::kUninitialize, "call aclInit before aclprofInit"));
    }
    if (CommandLineProfiling()) {
      WarnIgnored(api);
      return ACL_SUCCESS;
    }
    return Report(api, Profiler::Get().Init(std::string(profilerResultPath, real)));
  });
}

aclError aclprofFinalize(void) {
  KILN_CAPI("aclprofFinalize", {
    if (CommandLineProfiling()) {
      WarnIgnored("aclprofFinalize");
      return ACL_SUCCESS;
    }
    return Report("aclprofFinalize", Profiler::Get().Finalize());
  });
}

aclprofConfig* aclprofCreateConfig(uint32_t* deviceIdList, uint32_t deviceNums,
                                   aclprofAicoreMetrics aicoreMetrics,
                                   const aclprofAicoreEvents* aicoreEvents,
                                   uint64_t dataTypeConfig) {
  const char* api = "aclprofCreateConfig";
  try {
    if (deviceNums > 0 && deviceIdList == nullptr) {
      InvalidParam(api, "deviceIdList is NULL but deviceNums is ", deviceNums);
      return nullptr;
    }
    if (aicoreEvents != nullptr) {
      InvalidParam(api, "aicoreEvents must be NULL");
      return nullptr;
    }
    if ((dataTypeConfig & ~kKnownTypes) != 0) {
      InvalidParam(api, "dataTypeConfig 0x", std::hex, dataTypeConfig, std::dec,
                   " has bits acl_prof.h does not define");
      return nullptr;
    }
    const int metrics = kiln::capi::EnumInt(aicoreMetrics);
    if (!((metrics >= ACL_AICORE_ARITHMETIC_UTILIZATION && metrics <= ACL_AICORE_MEMORY_ACCESS) ||
          metrics == ACL_AICORE_NONE)) {
      InvalidParam(api, "aicoreMetrics ", metrics, " is not an aclprofAicoreMetrics value");
      return nullptr;
    }
    auto config = std::make_shared<ProfConfig>();
    const uint32_t visible = kiln::runtime::Runtime::Get().VisibleDeviceCount();
    for (uint32_t i = 0; i < deviceNums; ++i) {
      if (deviceIdList[i] >= visible) {
        Report(api, kiln::Error(code::kRtInvalidDeviceId, "device ", deviceIdList[i],
                                " is not visible (", visible, " device(s))"));
        return nullptr;
      }
      config->config.devices.push_back(deviceIdList[i]);
    }
    config->config.data_types = dataTypeConfig;
    config->config.aicore_metrics = metrics;
    return Configs().Add(std::move(config));
  } catch (...) {
    Report(api, kiln::Error(code::kBadAlloc, "out of host memory"));
    return nullptr;
  }
}

aclError aclprofDestroyConfig(const aclprofConfig* profilerConfig) {
  KILN_CAPI("aclprofDestroyConfig", {
    const char* api = "aclprofDestroyConfig";
    if (profilerConfig == nullptr) return InvalidParam(api, "profilerConfig is NULL");
    if (Configs().Remove(profilerConfig) == nullptr) {
      return InvalidParam(api, "profilerConfig ", kiln::PtrStr(profilerConfig),
                          " is not a live config (destroyed already?)");
    }
    return ACL_SUCCESS;
  });
}

aclError aclprofSetConfig(aclprofConfigType configType, const char* config, size_t configLength) {
  KILN_CAPI("aclprofSetConfig", {
    const char* api = "aclprofSetConfig";
    if (config == nullptr) return InvalidParam(api, "config is NULL");
    const std::string value(config, strnlen(config, configLength));
    bool ok = false;
    const int type = kiln::capi::EnumInt(configType);
    const std::string name = CheckSetting(type, value, &ok);
    if (name.empty()) return InvalidParam(api, "configType ", type, " is not supported");
    if (!ok) {
      return Report(api, kiln::Error(code::kInvalidProfilingConfig, "value '", value,
                                     "' is out of range for ", name));
    }
    std::lock_guard<std::mutex> lock(settings_mu);
    auto& settings = Settings();
    for (auto& [k, v] : settings) {
      if (k == name) {
        v = value;
        return ACL_SUCCESS;
      }
    }
    settings.emplace_back(name, value);
    return ACL_SUCCESS;
  });
}

aclError aclprofStart(const aclprofConfig* profilerConfig) {
  KILN_CAPI("aclprofStart", {
    const char* api = "aclprofStart";
    if (profilerConfig == nullptr) return InvalidParam(api, "profilerConfig is NULL");
    std::shared_ptr<ProfConfig> live = Configs().Find(profilerConfig);
    if (live == nullptr) {
      return InvalidParam(api, "profilerConfig ", kiln::PtrStr(profilerConfig),
                          " is not a live config");
    }
    kiln::runtime::ProfileConfig config = live->config;
    {
      std::lock_guard<std::mutex> lock(settings_mu);
      config.settings = Settings();
    }
    if (CommandLineProfiling()) {
      WarnIgnored(api);
      return ACL_SUCCESS;
    }
    return Report(api, Profiler::Get().Start(config, profilerConfig));
  });
}

aclError aclprofStop(const aclprofConfig* profilerConfig) {
  KILN_CAPI("aclprofStop", {
    const char* api = "aclprofStop";
    if (profilerConfig == nullptr) return InvalidParam(api, "profilerConfig is NULL");
    if (Configs().Find(profilerConfig) == nullptr) {
      return InvalidParam(api, "profilerConfig ", kiln::PtrStr(profilerConfig),
                          " is not a live config");
    }
    if (CommandLineProfiling()) {
      WarnIgnored(api);
      return ACL_SUCCESS;
    }
    return Report(api, Profiler::Get().Stop(profilerConfig));
  });
}

aclprofSubscribeConfig* aclprofCreateSubscribeConfig(int8_t timeInfoSwitch,
                                                     aclprofAicoreMetrics aicoreMetrics, void* fd) {
  const char* api = "aclprofCreateSubscribeConfig";
  try {
    (void)aicoreMetrics;  // a CPU has no AI Core counters
    if (fd == nullptr) {
      InvalidParam(api, "fd is NULL (give the address of the pipe's write end)");
      return nullptr;
    }
    auto config = std::make_shared<SubscribeConfig>();
    config->time_info = timeInfoSwitch != 0;
    config->fd = *static_cast<const int*>(fd);
    return SubscribeConfigs().Add(std::move(config));
  } catch (...) {
    Report(api, kiln::Error(code::kBadAlloc, "out of host memory"));
    return nullptr;
  }
}

aclError aclprofDestroySubscribeConfig(const aclprofSubscribeConfig* profSubscribeConfig) {
  KILN_CAPI("aclprofDestroySubscribeConfig", {
    if (SubscribeConfigs().Remove(profSubscribeConfig) == nullptr) {
      return InvalidParam("aclprofDestroySubscribeConfig", "profSubscribeConfig ",
                          kiln::PtrStr(profSubscribeConfig), " is not a live config");
    }
    return ACL_SUCCESS;
  });
}

aclError aclprofModelSubscribe(uint32_t modelId,
                               const aclprofSubscribeConfig* profSubscribeConfig) {
  KILN_CAPI("aclprofModelSubscribe", {
    const char* api = "aclprofModelSubscribe";
    std::shared_ptr<SubscribeConfig> config = SubscribeConfigs().Find(profSubscribeConfig);
    if (config == nullptr) {
      return InvalidParam(api, "profSubscribeConfig ", kiln::PtrStr(profSubscribeConfig),
                          " is not a live aclprofCreateSubscribeConfig config");
    }
    auto model = kiln::runtime::ModelTable::Get().Find(modelId);
    if (!model.ok()) return Report(api, model.status());
    return Report(api, Profiler::Get().Subscribe(modelId, config->fd, config->time_info));
  });
}

aclError aclprofModelUnSubscribe(uint32_t modelId) {
  KILN_CAPI("aclprofModelUnSubscribe",
            { return Report("aclprofModelUnSubscribe", Profiler::Get().Unsubscribe(modelId)); });
}

aclError aclprofGetOpDescSize(size_t* opDescSize) {
  KILN_CAPI("aclprofGetOpDescSize", {
    if (opDescSize == nullptr) return InvalidParam("aclprofGetOpDescSize", "opDescSize is NULL");
    *opDescSize = sizeof(SubscriptionRecord);
    return ACL_SUCCESS;
  });
}

aclError aclprofGetOpNum(const void* opInfo, size_t opInfoLen, uint32_t* opNumber) {
  KILN_CAPI("aclprofGetOpNum", {
    const char* api = "aclprofGetOpNum";
    if (opNumber == nullptr) return InvalidParam(api, "opNumber is NULL");
    if (RecordAt(api, opInfo, opInfoLen, 0) == nullptr) return ACL_ERROR_INVALID_PARAM;
    *opNumber = static_cast<uint32_t>(opInfoLen / sizeof(SubscriptionRecord));
    return ACL_SUCCESS;
  });
}

aclError aclprofGetOpTypeLen(const void* opInfo, size_t opInfoLen, uint32_t index,
                             size_t* opTypeLen) {
  KILN_CAPI("aclprofGetOpTypeLen", {
    const char* api = "aclprofGetOpTypeLen";
    if (opTypeLen == nullptr) return InvalidParam(api, "opTypeLen is NULL");
    const SubscriptionRecord* r = RecordAt(api, opInfo, opInfoLen, index);
    if (r == nullptr) return ACL_ERROR_INVALID_PARAM;
    *opTypeLen = strnlen(r->op_type, sizeof r->op_type) + 1;
    return ACL_SUCCESS;
  });
}

aclError aclprofGetOpType(const void* opInfo, size_t opInfoLen, uint32_t index, char* opType,
                          size_t opTypeLen) {
  KILN_CAPI("aclprofGetOpType", {
    const SubscriptionRecord* r = RecordAt("aclprofGetOpType", opInfo, opInfoLen, index);
    if (r == nullptr) return ACL_ERROR_INVALID_PARAM;
    return CopyText("aclprofGetOpType", r->op_type, opType, opTypeLen);
  });
}

aclError aclprofGetOpNameLen(const void* opInfo, size_t opInfoLen, uint32_t index,
                             size_t* opNameLen) {
  KILN_CAPI("aclprofGetOpNameLen", {
    const char* api = "aclprofGetOpNameLen";
    if (opNameLen == nullptr) return InvalidParam(api, "opNameLen is NULL");
    const SubscriptionRecord* r = RecordAt(api, opInfo, opInfoLen, index);
    if (r == nullptr) return ACL_ERROR_INVALID_PARAM;
    *opNameLen = strnlen(r->op_name, sizeof r->op_name) + 1;
    return ACL_SUCCESS;
  });
}

aclError aclprofGetOpName(const void* opInfo, size_t opInfoLen, uint32_t index, char* opName,
                          size_t opNameLen) {
  KILN_CAPI("aclprofGetOpName", {
    const SubscriptionRecord* r = RecordAt("aclprofGetOpName", opInfo, opInfoLen, index);
    if (r == nullptr) return ACL_ERROR_INVALID_PARAM;
    return CopyText("aclprofGetOpName", r->op_name, opName, opNameLen);
  });
}

uint64_t aclprofGetOpStart(const void* opInfo, size_t opInfoLen, uint32_t index) {
  const SubscriptionRecord* r = RecordAt("aclprofGetOpStart", opInfo, opInfoLen, index);
  return r ? r->start_us : 0;
}

uint64_t aclprofGetOpEnd(const void* opInfo, size_t opInfoLen, uint32_t index) {
  const SubscriptionRecord* r = RecordAt("aclprofGetOpEnd", opInfo, opInfoLen, index);
  return r ? r->end_us : 0;
}

uint64_t aclprofGetOpDuration(const void* opInfo, size_t opInfoLen, uint32_t index) {
  const SubscriptionRecord* r = RecordAt("aclprofGetOpDuration", opInfo, opInfoLen, index);
  return r && r->end_us >= r->start_us ? r->end_us - r->start_us : 0;
}

size_t aclprofGetModelId(const void* opInfo, size_t opInfoLen, uint32_t index) {
  const SubscriptionRecord* r = RecordAt("aclprofGetModelId", opInfo, opInfoLen, index);
  return r ? r->model_id : 0;
}

aclprofSubscribeOpFlag aclprofGetOpFlag(const void* opInfo, size_t opInfoLen, uint32_t index) {
  const SubscriptionRecord* r = RecordAt("aclprofGetOpFlag", opInfo, opInfoLen, index);
  if (r == nullptr) return ACL_SUBSCRIBE_NONE;
  return r->flag == 1 ? ACL_SUBSCRIBE_SUBGRAPH : ACL_SUBSCRIBE_OP;
}

const char* aclprofGetOpAttriValue(const void* opInfo, size_t opInfoLen, uint32_t index,
                                   aclprofSubscribeOpAttri attri) {
  const SubscriptionRecord* r = RecordAt("aclprofGetOpAttriValue", opInfo, opInfoLen, index);
  if (r == nullptr) return nullptr;
  if (kiln::capi::EnumInt(attri) != ACL_SUBSCRIBE_ATTRI_THREADID) {
    InvalidParam("aclprofGetOpAttriValue", "attri ", kiln::capi::EnumInt(attri),
                 " is not supported (only ACL_SUBSCRIBE_ATTRI_THREADID)");
    return nullptr;
  }
  return r->thread_text;
}

aclprofStepInfo* aclprofCreateStepInfo(void) {
  try {
    static std::atomic<uint64_t> steps{0};
    auto info = std::make_shared<StepInfo>();
    info->step = ++steps;
    return StepInfos().Add(std::move(info));
  } catch (...) {
    Report("aclprofCreateStepInfo", kiln::Error(code::kBadAlloc, "out of host memory"));
    return nullptr;
  }
}

void aclprofDestroyStepInfo(aclprofStepInfo* stepinfo) {
  if (StepInfos().Remove(stepinfo) == nullptr && stepinfo != nullptr) {
    InvalidParam("aclprofDestroyStepInfo", "stepInfo ", kiln::PtrStr(stepinfo),
                 " is not a live step info");
  }
}

aclError aclprofGetStepTimestamp(aclprofStepInfo* stepInfo, aclprofStepTag tag,
                                 aclrtStream stream) {
  KILN_CAPI("aclprofGetStepTimestamp", {
    const char* api = "aclprofGetStepTimestamp";
    std::shared_ptr<StepInfo> info = StepInfos().Find(stepInfo);
    if (info == nullptr) {
      return InvalidParam(api, "stepInfo ", kiln::PtrStr(stepInfo), " is not a live step info");
    }
    auto s = kiln::runtime::Runtime::Get().ResolveStream(stream);
    if (!s.ok()) return Report(api, s.status());
    const int t = kiln::capi::EnumInt(tag);
    const uint64_t now = kiln::SteadyNowNs();
    if (t == ACL_STEP_START) {
      if (info->started) return InvalidParam(api, "this step info was started already");
      info->started = true;
      info->start_ns = now;
      return ACL_SUCCESS;
    }
    if (t != ACL_STEP_END) return InvalidParam(api, "tag ", t, " is not an aclprofStepTag");
    if (!info->started || info->ended) {
      return InvalidParam(api, "ACL_STEP_END without one ACL_STEP_START on this step info");
    }
    info->ended = true;
    Profiler::Get().RecordStep(info->step, static_cast<uint32_t>((*s)->device()), (*s)->id(),
                               info->start_ns, now);
    return ACL_SUCCESS;
  });
}

void* aclprofCreateStamp(void) {
  try {
    return Stamps().Add(std::make_shared<Stamp>());
  } catch (...) {
    Report("aclprofCreateStamp", kiln::Error(code::kBadAlloc, "out of host memory"));
    return nullptr;
  }
}

void aclprofDestroyStamp(void* stamp) {
  if (Stamps().Remove(stamp) == nullptr && stamp != nullptr) {
    InvalidParam("aclprofDestroyStamp", "stamp ", kiln::PtrStr(stamp), " is not a live stamp");
  }
}

aclError aclprofSetStampTraceMessage(void* stamp, const char* msg, uint32_t msgLen) {
  KILN_CAPI("aclprofSetStampTraceMessage", {
    const char* api = "aclprofSetStampTraceMessage";
    auto s = LiveStamp(api, stamp);
    if (s == nullptr) return ACL_ERROR_INVALID_PARAM;
    if (msg == nullptr) return InvalidParam(api, "msg is NULL");
    if (msgLen == 0 || msgLen > kMaxStampMessage) {
      return InvalidParam(api, "msgLen ", msgLen, " is outside [1, ", kMaxStampMessage, "]");
    }
    s->message.assign(msg, strnlen(msg, msgLen));
    return ACL_SUCCESS;
  });
}

aclError aclprofMark(void* stamp) {
  KILN_CAPI("aclprofMark", {
    auto s = LiveStamp("aclprofMark", stamp);
    if (s == nullptr) return ACL_ERROR_INVALID_PARAM;
    Profiler::Get().Mark(s->message);
    return ACL_SUCCESS;
  });
}

aclError aclprofPush(void* stamp) {
  KILN_CAPI("aclprofPush", {
    auto s = LiveStamp("aclprofPush", stamp);
    if (s == nullptr) return ACL_ERROR_INVALID_PARAM;
    Profiler::Get().Push(s->message);
    return ACL_SUCCESS;
  });
}

aclError aclprofPop(void) {
  KILN_CAPI("aclprofPop", { return Report("aclprofPop", Profiler::Get().Pop()); });
}

aclError aclprofRangeStart(void* stamp, uint32_t* rangeId) {
  KILN_CAPI("aclprofRangeStart", {
    const char* api = "aclprofRangeStart";
    auto s = LiveStamp(api, stamp);
    if (s == nullptr) return ACL_ERROR_INVALID_PARAM;
    if (rangeId == nullptr) return InvalidParam(api, "rangeId is NULL");
    *rangeId = Profiler::Get().RangeStart(s->message);
    return ACL_SUCCESS;
  });
}

aclError aclprofRangeStop(uint32_t rangeId) {
  KILN_CAPI("aclprofRangeStop",
            { return Report("aclprofRangeStop", Profiler::Get().RangeStop(rangeId)); });
}

}  // extern "C"
