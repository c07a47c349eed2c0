// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// `kiln smi` as text, laid out like `npu-smi info`: a boxed table of devices (two lines each),
// then one of the processes using them; `-t` views are "key : value" lines.
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "tools/kiln/smi_report.h"

namespace kiln::tools {
namespace {

constexpr uint64_t kMiB = 1024 * 1024;
const std::vector<size_t> kDeviceCols = {34, 17, 54};       // inner widths, with the lead space
const std::vector<size_t> kProcessCols = {34, 17, 27, 26};  // same total

std::string Fit(std::string s, size_t width) {
  if (s.size() > width) s.resize(width);
  s.resize(width, ' ');
  return s;
}

// Sub-columns inside one cell: each text padded to its width; the last one takes the rest.
std::string Fields(const std::vector<std::pair<std::string, size_t>>& fields) {
  std::string out;
  for (const auto& [text, width] : fields) out += width ? Fit(text, width) : text;
  return out;
}

std::string Rule(const std::vector<size_t>& cols, char ch) {
  std::string out = "+";
  for (size_t w : cols) out += std::string(w, ch) + "+";
  return out + "\n";
}

std::string Row(const std::vector<size_t>& cols, const std::vector<std::string>& cells) {
  std::string out = "|";
  for (size_t i = 0; i < cols.size(); ++i) out += Fit(" " + cells[i], cols[i]) + "|";
  return out + "\n";
}

size_t Total(const std::vector<size_t>& cols) {
  size_t total = cols.size() - 1;
  for (size_t w : cols) total += w;
  return total;
}

std::string Wide(const std::string& text) {
  return "|" + Fit(" " + text, Total(kDeviceCols)) + "|\n";
}

std::string Mb(uint64_t bytes) { return std::to_string(bytes / kMiB); }

std::string Percent(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

std::string Celsius(const Temperature& t) {
  if (!t.celsius) return "NA";
  return std::to_string(static_cast<int>(std::lround(*t.celsius)));
}

int Rate(uint64_t part, uint64_t whole) {
  return whole ? static_cast<int>(std::lround(100.0 * static_cast<double>(part) / whole)) : 0;
}

void Line(FILE* out, const std::string& key, const std::string& value) {
  std::fprintf(out, "\t%-31s: %s\n", key.c_str(), value.c_str());
}

// Every device id to show: those visible here and those other processes have open.
std::vector<int32_t> DeviceIds(const SmiReport& r, int32_t only) {
  if (only >= 0) return {only};
  std::set<int32_t> ids;
  for (const auto& d : r.devices) ids.insert(d.id);
  for (const auto& p : r.usage.processes) {
    for (const auto& d : p.devices) ids.insert(d.device);
  }
  return {ids.begin(), ids.end()};
}

}  // namespace

void PrintInfoText(const SmiReport& r, int32_t only, FILE* out) {
  std::string s;
  s += Rule({Total(kDeviceCols)}, '-');
  s += Wide(Fields({{"kiln-smi " + r.version, 37}, {"Version: " + r.version, 0}}));
  s += Rule(kDeviceCols, '-');
  s += Row(kDeviceCols, {Fields({{"Device", 8}, {"Name", 0}}), Fields({{"Health", 9}, {"NUMA", 0}}),
                         Fields({{"Util(%)", 12}, {"Temp(C)", 12}, {"Kiln-Memory-Usage(MB)", 0}})});
  s += Row(kDeviceCols,
           {"Model", "Cores/Threads", Fields({{"ISA", 24}, {"Host-Memory-Usage(MB)", 0}})});
  s += Rule(kDeviceCols, '=');
  const uint64_t host_used = r.host.total - std::min(r.host.available, r.host.total);
  for (const auto& d : r.devices) {
    if (only >= 0 && d.id != only) continue;
    s += Row(kDeviceCols, {Fields({{std::to_string(d.id), 8}, {d.name, 0}}),
                           Fields({{"OK", 9}, {std::to_string(r.cpu.numa_nodes), 0}}),
                           Fields({{r.utilization ? Percent(*r.utilization) : "NA", 12},
                                   {Celsius(r.temperature), 12},
                                   {Mb(r.KilnReserved(d.id)) + " / " + Mb(r.host.total), 0}})});
    s += Row(kDeviceCols,
             {r.cpu.model, std::to_string(r.cpu.cores) + " / " + std::to_string(r.cpu.threads),
              Fields({{IsaSummary(r.cpu), 24}, {Mb(host_used) + " / " + Mb(r.host.total), 0}})});
    s += Rule(kDeviceCols, '=');
  }
  s += Wide(std::string("GPU: ") + kNoGpuBackend);
  s += Rule(kDeviceCols, '-');
  s += Rule(kProcessCols, '-');
  s += Row(kProcessCols, {"Device", "Process id", "Process name", "Process memory(MB)"});
  s += Rule(kProcessCols, '=');
  if (r.usage.off) {
    s += Wide("Processes are not listed: KILN_USAGE_DIR=none switches the usage records off");
    s += Rule(kProcessCols, '=');
  } else {
    for (int32_t id : DeviceIds(r, only)) {
      bool any = false;
      for (const auto& p : r.usage.processes) {
        for (const auto& d : p.devices) {
          if (d.device != id) continue;
          any = true;
          s += Row(kProcessCols,
                   {std::to_string(id), std::to_string(p.pid), p.name, Mb(d.bytes_in_use)});
        }
      }
      if (!any) s += Wide("No running processes found in Device " + std::to_string(id));
      s += Rule(kProcessCols, '=');
    }
  }
  std::fputs(s.c_str(), out);
  for (const auto& why : r.usage.skipped)
    std::fprintf(stderr, "kiln smi: skipped %s\n", why.c_str());
}

void PrintMemoryText(const SmiReport& r, int32_t id, FILE* out) {
  Line(out, "Device ID", std::to_string(id));
  Line(out, "Device Memory Capacity(MB)", Mb(r.host.total));
  Line(out, "Kiln Memory In Use(MB)", Mb(r.KilnInUse(id)));
  Line(out, "Kiln Memory Reserved(MB)", Mb(r.KilnReserved(id)));
  Line(out, "Kiln Memory Usage Rate(%)", std::to_string(Rate(r.KilnReserved(id), r.host.total)));
  Line(out, "Host Memory Total(MB)", Mb(r.host.total));
  Line(out, "Host Memory Available(MB)", Mb(r.host.available));
  Line(out, "Host Memory Usage Rate(%)",
       std::to_string(Rate(r.host.total - std::min(r.host.available, r.host.total), r.host.total)));
  Line(out, "Processes Using Device", std::to_string(r.ProcessCount(id)));
  for (const auto& p : r.usage.processes) {
    for (const auto& d : p.devices) {
      if (d.device != id) continue;
      Line(out, "Process " + std::to_string(p.pid) + " (" + p.name + ")",
           "in use " + Mb(d.bytes_in_use) + " MB, reserved " + Mb(d.bytes_reserved) +
               " MB, pool capacity " + Mb(d.capacity) + " MB");
    }
  }
}

void PrintUsagesText(const SmiReport& r, int32_t id, FILE* out) {
  const uint64_t host_used = r.host.total - std::min(r.host.available, r.host.total);
  Line(out, "Device ID", std::to_string(id));
  Line(out, "CPU Usage Rate(%)", r.utilization ? Percent(*r.utilization) : "NA");
  Line(out, "Kiln Memory Usage Rate(%)", std::to_string(Rate(r.KilnReserved(id), r.host.total)));
  Line(out, "Host Memory Usage Rate(%)", std::to_string(Rate(host_used, r.host.total)));
  Line(out, "Processes Using Device", std::to_string(r.ProcessCount(id)));
}

void PrintBoardText(const SmiReport& r, int32_t id, FILE* out) {
  const SmiDevice* dev = nullptr;
  for (const auto& d : r.devices) dev = d.id == id ? &d : dev;
  std::string isa, caches;
  for (const auto& x : r.cpu.isa) isa += (isa.empty() ? "" : " ") + x;
  for (const auto& x : r.cpu.caches) caches += (caches.empty() ? "" : ", ") + x;
  Line(out, "Device ID", std::to_string(id));
  Line(out, "Device Name", dev ? dev->name : "NA");
  Line(out, "Backend", "cpu");
  Line(out, "Kiln Compute Threads", dev ? std::to_string(dev->compute_threads) : "NA");
  Line(out, "CPU Model", r.cpu.model);
  Line(out, "Vendor", r.cpu.vendor);
  Line(out, "Architecture", r.cpu.arch);
  Line(out, "Family / Model / Stepping",
       (r.cpu.family.empty() ? "NA" : r.cpu.family) + " / " +
           (r.cpu.model_number.empty() ? "NA" : r.cpu.model_number) + " / " +
           (r.cpu.stepping.empty() ? "NA" : r.cpu.stepping));
  Line(out, "Microcode", r.cpu.microcode.empty() ? "NA" : r.cpu.microcode);
  Line(out, "Clock(MHz)", r.cpu.mhz > 0 ? std::to_string(static_cast<int>(r.cpu.mhz)) : "NA");
  Line(out, "Sockets", std::to_string(r.cpu.sockets));
  Line(out, "Cores", std::to_string(r.cpu.cores));
  Line(out, "Threads", std::to_string(r.cpu.threads));
  Line(out, "NUMA Nodes", std::to_string(r.cpu.numa_nodes));
  Line(out, "Caches", caches.empty() ? "NA" : caches);
  Line(out, "ISA", isa.empty() ? "NA" : isa);
  Line(out, "Temperature(C)", Celsius(r.temperature));
  Line(out, "Temperature Sensor", r.temperature.source.empty() ? "NA" : r.temperature.source);
  Line(out, "Host Memory(MB)", Mb(r.host.total));
  Line(out, "Kernel", r.cpu.kernel.empty() ? "NA" : r.cpu.kernel);
  Line(out, "Kiln Runtime Version", r.version);
  Line(out, "GPU", kNoGpuBackend);
}

}  // namespace kiln::tools
