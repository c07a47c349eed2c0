// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// `kiln smi ... --json`: the same facts as the text, in bytes and plain numbers (null where the
// OS exposes nothing).
#include <algorithm>
#include <set>

#include "tools/kiln/smi_report.h"

namespace kiln::tools {
namespace {

using nlohmann::json;

json Optional(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

json HostMemoryJson(const SmiReport& r) {
  return {{"total_bytes", r.host.total},
          {"available_bytes", r.host.available},
          {"used_bytes", r.host.total - std::min(r.host.available, r.host.total)}};
}

json CpuJson(const CpuFacts& c) {
  return {{"model", c.model},           {"vendor", c.vendor}, {"architecture", c.arch},
          {"sockets", c.sockets},       {"cores", c.cores},   {"threads", c.threads},
          {"numa_nodes", c.numa_nodes}, {"isa", c.isa}};
}

json KilnMemoryJson(const SmiReport& r, int32_t id) {
  return {{"in_use_bytes", r.KilnInUse(id)},
          {"reserved_bytes", r.KilnReserved(id)},
          {"capacity_bytes", r.host.total}};
}

json ProcessesJson(const SmiReport& r, int32_t only) {
  json list = json::array();
  for (const auto& p : r.usage.processes) {
    for (const auto& d : p.devices) {
      if (only >= 0 && d.device != only) continue;
      list.push_back({{"device", d.device},
                      {"pid", p.pid},
                      {"name", p.name},
                      {"memory_in_use_bytes", d.bytes_in_use},
                      {"memory_reserved_bytes", d.bytes_reserved},
                      {"pool_capacity_bytes", d.capacity},
                      {"record", p.path}});
    }
  }
  return list;
}

json UsageSourceJson(const SmiReport& r) {
  return {{"off", r.usage.off},
          {"dirs", r.usage.dirs},
          {"skipped", r.usage.skipped},
          {"removed_stale", r.usage.removed}};
}

}  // namespace

json InfoJson(const SmiReport& r, int32_t only) {
  json devices = json::array();
  for (const auto& d : r.devices) {
    if (only >= 0 && d.id != only) continue;
    devices.push_back({{"id", d.id},
                       {"name", d.name},
                       {"backend", "cpu"},
                       {"health", "OK"},
                       {"cpu", CpuJson(r.cpu)},
                       {"utilization_percent", Optional(r.utilization)},
                       {"temperature_c", Optional(r.temperature.celsius)},
                       {"kiln_memory", KilnMemoryJson(r, d.id)},
                       {"host_memory", HostMemoryJson(r)}});
  }
  return {{"version", r.version},
          {"devices", devices},
          {"gpu", kNoGpuBackend},
          {"processes", ProcessesJson(r, only)},
          {"usage_records", UsageSourceJson(r)}};
}

json MemoryJson(const SmiReport& r, int32_t id) {
  return {{"device", id},
          {"kiln_memory", KilnMemoryJson(r, id)},
          {"host_memory", HostMemoryJson(r)},
          {"processes", ProcessesJson(r, id)}};
}

json UsagesJson(const SmiReport& r, int32_t id) {
  const uint64_t used = r.host.total - std::min(r.host.available, r.host.total);
  auto rate = [](uint64_t part, uint64_t whole) {
    return whole ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0;
  };
  return {{"device", id},
          {"cpu_usage_percent", Optional(r.utilization)},
          {"kiln_memory_usage_percent", rate(r.KilnReserved(id), r.host.total)},
          {"host_memory_usage_percent", rate(used, r.host.total)},
          {"processes", r.ProcessCount(id)}};
}

json BoardJson(const SmiReport& r, int32_t id) {
  json dev = nullptr;
  for (const auto& d : r.devices) {
    if (d.id == id) dev = {{"name", d.name}, {"compute_threads", d.compute_threads}};
  }
  json cpu = CpuJson(r.cpu);
  cpu["family"] = r.cpu.family;
  cpu["model_number"] = r.cpu.model_number;
  cpu["stepping"] = r.cpu.stepping;
  cpu["microcode"] = r.cpu.microcode;
  cpu["mhz"] = r.cpu.mhz;
  cpu["caches"] = r.cpu.caches;
  return {{"device", id},
          {"backend", "cpu"},
          {"kiln", dev},
          {"cpu", cpu},
          {"temperature_c", Optional(r.temperature.celsius)},
          {"temperature_sensor",
           r.temperature.source.empty() ? json(nullptr) : json(r.temperature.source)},
          {"host_memory", HostMemoryJson(r)},
          {"kernel", r.cpu.kernel},
          {"version", r.version},
          {"gpu", kNoGpuBackend}};
}

}  // namespace kiln::tools
