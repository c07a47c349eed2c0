// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// `kiln smi`: devices come from the public AscendCL API (aclrtGetDeviceCount, aclrtGetSocName,
// aclGetDeviceCapability; none of them opens a device, so `kiln smi` never lists itself), the
// host facts from the OS, the processes from the usage records other processes publish.
#include "tools/kiln/smi.h"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>

#include "acl/acl.h"
#include "tools/kiln/smi_report.h"

namespace kiln::tools {
namespace {

constexpr int kSampleMs = 200;  // the /proc/stat interval utilisation is measured over

struct SmiFlags {
  std::string type;  // "", memory, usages, board
  int32_t id = -1;
  bool json = false;
};

int Fail(const std::string& message) {
  std::fprintf(stderr, "kiln smi: %s\n", message.c_str());
  return 1;
}

int RunInfo(const SmiFlags& flags) {
  if (!flags.type.empty() && flags.id < 0) {
    return Fail("-t " + flags.type + " needs -i ID, the device to describe (see `kiln smi info`)");
  }
  SmiReport r;
  char version[ACL_PKG_VERSION_MAX_SIZE] = {0};
  char runtime_pkg[] = "runtime";
  if (aclsysGetVersionStr(runtime_pkg, version) == ACL_SUCCESS) r.version = version;
  aclError init = aclInit(nullptr);
  if (init != ACL_SUCCESS && init != ACL_ERROR_REPEAT_INITIALIZE) {
    return Fail("aclInit failed (" + std::to_string(init) + "): " + aclGetRecentErrMsg());
  }
  uint32_t count = 0;
  (void)aclrtGetDeviceCount(&count);
  const char* soc = aclrtGetSocName();
  for (uint32_t i = 0; i < count; ++i) {
    SmiDevice d;
    d.id = static_cast<int32_t>(i);
    d.name = soc != nullptr ? soc : "cpu";
    (void)aclGetDeviceCapability(i, ACL_DEVICE_INFO_AI_CORE_NUM, &d.compute_threads);
    r.devices.push_back(d);
  }
  (void)aclFinalize();
  if (flags.id >= 0 && flags.id >= static_cast<int32_t>(count)) {
    return Fail("-i " + std::to_string(flags.id) + ": no such device; " + std::to_string(count) +
                " device(s) visible" +
                (count ? ", ids 0.." + std::to_string(count - 1) : std::string()) +
                " (KILN_CPU_DEVICES, ASCEND_RT_VISIBLE_DEVICES)");
  }
  r.cpu = ReadCpuFacts();
  r.host = ReadHostMemory();
  r.temperature = ReadCpuTemperature();
  if (flags.type.empty() || flags.type == "usages") r.utilization = SampleCpuUtilization(kSampleMs);
  r.usage = ScanUsage(/*clean_stale=*/true);
  if (flags.json) {
    nlohmann::json j = flags.type == "memory"   ? MemoryJson(r, flags.id)
                       : flags.type == "usages" ? UsagesJson(r, flags.id)
                       : flags.type == "board"  ? BoardJson(r, flags.id)
                                                : InfoJson(r, flags.id);
    std::printf("%s\n", j.dump(2).c_str());
    return 0;
  }
  if (flags.type == "memory") {
    PrintMemoryText(r, flags.id, stdout);
  } else if (flags.type == "usages") {
    PrintUsagesText(r, flags.id, stdout);
  } else if (flags.type == "board") {
    PrintBoardText(r, flags.id, stdout);
  } else {
    PrintInfoText(r, flags.id, stdout);
  }
  return 0;
}

}  // namespace

uint64_t SmiReport::KilnInUse(int32_t id) const {
  uint64_t sum = 0;
  for (const auto& p : usage.processes) {
    for (const auto& d : p.devices) sum += d.device == id ? d.bytes_in_use : 0;
  }
  return sum;
}

uint64_t SmiReport::KilnReserved(int32_t id) const {
  uint64_t sum = 0;
  for (const auto& p : usage.processes) {
    for (const auto& d : p.devices) sum += d.device == id ? d.bytes_reserved : 0;
  }
  return sum;
}

int SmiReport::ProcessCount(int32_t id) const {
  int n = 0;
  for (const auto& p : usage.processes) {
    n += std::any_of(p.devices.begin(), p.devices.end(),
                     [id](const UsageDevice& d) { return d.device == id; });
  }
  return n;
}

std::string IsaSummary(const CpuFacts& cpu) {
  auto has_prefix = [&](const std::string& prefix) {
    return std::any_of(cpu.isa.begin(), cpu.isa.end(),
                       [&](const std::string& s) { return s.rfind(prefix, 0) == 0; });
  };
  std::string out;
  auto add = [&](const char* tier) { out += (out.empty() ? "" : " ") + std::string(tier); };
  if (has_prefix("AVX2")) add("AVX2");
  if (has_prefix("AVX-512")) add("AVX-512");
  if (has_prefix("AMX")) add("AMX");
  if (has_prefix("NEON")) add("NEON");
  if (has_prefix("SVE")) add("SVE");
  if (out.empty()) out = cpu.isa.empty() ? "NA" : cpu.isa.back();
  return out;
}

void AddSmiCommand(CLI::App& app, int* exit_code) {
  CLI::App* smi = app.add_subcommand(
      "smi", "devices, utilisation, memory and the processes using them (npu-smi's layout)");
  smi->require_subcommand(1);
  auto flags = std::make_shared<SmiFlags>();
  CLI::App* info = smi->add_subcommand(
      "info", "every device and the processes using it; -t memory|usages|board -i ID for one");
  info->add_option("-t,--type", flags->type, "memory, usages or board (needs -i)")
      ->check(CLI::IsMember({"memory", "usages", "board"}));
  info->add_option("-i,--id", flags->id, "device id (see `kiln smi info`)")
      ->check(CLI::NonNegativeNumber);
  info->add_flag("--json", flags->json, "print JSON instead of the table");
  info->callback([flags, exit_code] { *exit_code = RunInfo(*flags); });
}

}  // namespace kiln::tools
