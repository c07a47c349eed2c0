// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "tools/kiln/smi_host.h"

#include <dirent.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <thread>
#include <utility>

namespace kiln::tools {
namespace {

std::string Trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\n");
  size_t e = s.find_last_not_of(" \t\n");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

std::string ReadLine(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return Trim(line);
}

std::vector<std::string> ListDir(const std::string& dir, const std::string& prefix) {
  std::vector<std::string> names;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      std::string name = e->d_name;
      if (name.compare(0, prefix.size(), prefix) == 0) names.push_back(name);
    }
    closedir(d);
  }
  return names;
}

// The flags of /proc/cpuinfo (what the CPU has and the kernel enabled) -> the names people use,
// in this order.
const std::vector<std::pair<const char*, const char*>>& IsaNames() {
  static const std::vector<std::pair<const char*, const char*>> names = {
      {"sse4_2", "SSE4.2"},
      {"avx", "AVX"},
      {"avx2", "AVX2"},
      {"fma", "FMA"},
      {"f16c", "F16C"},
      {"avx_vnni", "AVX-VNNI"},
      {"avx512f", "AVX-512F"},
      {"avx512bw", "AVX-512BW"},
      {"avx512vl", "AVX-512VL"},
      {"avx512_vnni", "AVX-512_VNNI"},
      {"avx512_bf16", "AVX-512_BF16"},
      {"avx512_fp16", "AVX-512_FP16"},
      {"amx_tile", "AMX-TILE"},
      {"amx_bf16", "AMX-BF16"},
      {"amx_int8", "AMX-INT8"},
      {"amx_fp16", "AMX-FP16"},
      // aarch64 "Features"
      {"asimd", "NEON"},
      {"asimddp", "NEON-DOTPROD"},
      {"sve", "SVE"},
      {"sve2", "SVE2"},
      {"bf16", "BF16"},
      {"i8mm", "I8MM"},
  };
  return names;
}

}  // namespace

CpuFacts ReadCpuFacts() {
  CpuFacts f;
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  std::set<std::pair<std::string, std::string>> cores;  // (physical id, core id)
  std::set<std::string> sockets;
  std::string physical_id;
  std::set<std::string> flags;
  bool first = true;
  while (std::getline(in, line)) {
    size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string key = Trim(line.substr(0, colon));
    std::string value = Trim(line.substr(colon + 1));
    if (key == "processor") {
      if (f.threads > 0) first = false;
      ++f.threads;
    } else if (key == "physical id") {
      physical_id = value;
      sockets.insert(value);
    } else if (key == "core id") {
      cores.insert({physical_id, value});
    } else if (!first) {
      continue;
    } else if (key == "model name") {
      f.model = value;
    } else if (key == "vendor_id" || key == "CPU implementer") {
      f.vendor = value;
    } else if (key == "cpu family" || key == "CPU architecture") {
      f.family = value;
    } else if (key == "model" || key == "CPU part") {
      f.model_number = value;
    } else if (key == "stepping" || key == "CPU revision") {
      f.stepping = value;
    } else if (key == "microcode") {
      f.microcode = value;
    } else if (key == "cpu MHz") {
      f.mhz = std::stod(value);
    } else if (key == "flags" || key == "Features") {
      std::istringstream words(value);
      std::string w;
      while (words >> w) flags.insert(w);
    }
  }
  if (f.threads == 0) f.threads = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
  f.sockets = sockets.empty() ? 1 : static_cast<int>(sockets.size());
  f.cores = cores.empty() ? f.threads : static_cast<int>(cores.size());
  for (const auto& [flag, name] : IsaNames()) {
    if (flags.count(flag)) f.isa.push_back(name);
  }
  f.numa_nodes = static_cast<int>(ListDir("/sys/devices/system/node", "node").size());
  if (f.numa_nodes == 0) f.numa_nodes = 1;  // a kernel without NUMA: one node
  const std::string cache = "/sys/devices/system/cpu/cpu0/cache/";
  std::map<std::string, std::string> by_name;  // "L1d" -> "48K"
  for (const auto& index : ListDir(cache, "index")) {
    std::string level = ReadLine(cache + index + "/level");
    std::string type = ReadLine(cache + index + "/type");
    std::string size = ReadLine(cache + index + "/size");
    if (level.empty() || size.empty()) continue;
    std::string name = "L" + level + (type == "Data" ? "d" : type == "Instruction" ? "i" : "");
    by_name[name] = size;
  }
  for (const auto& [name, size] : by_name) f.caches.push_back(name + " " + size);
  utsname u{};
  if (uname(&u) == 0) {
    f.arch = u.machine;
    f.kernel = u.release;
  }
  return f;
}

HostMemory ReadHostMemory() {
  HostMemory m;
  std::ifstream in("/proc/meminfo");
  std::string key;
  uint64_t kib = 0;
  std::string unit;
  while (in >> key >> kib) {
    std::getline(in, unit);
    if (key == "MemTotal:") m.total = kib * 1024;
    if (key == "MemAvailable:") m.available = kib * 1024;
  }
  if (m.total == 0) {
    m.total = static_cast<uint64_t>(sysconf(_SC_PHYS_PAGES)) * static_cast<uint64_t>(getpagesize());
  }
  return m;
}

Temperature ReadCpuTemperature() {
  // Thermal zones first (x86_pkg_temp is the package sensor), then hwmon drivers of CPU sensors.
  static const std::set<std::string> kCpuZones = {"x86_pkg_temp", "cpu_thermal", "cpu-thermal",
                                                  "soc_thermal", "acpitz"};
  static const std::set<std::string> kCpuHwmon = {"coretemp", "k10temp", "zenpower", "cpu_thermal"};
  Temperature t;
  const std::string zones = "/sys/class/thermal/";
  for (int pass = 0; pass < 2 && !t.celsius; ++pass) {
    for (const auto& zone : ListDir(zones, "thermal_zone")) {
      std::string type = ReadLine(zones + zone + "/type");
      // Pass 0: the package sensor only; pass 1: any CPU-like zone.
      if (pass == 0 ? type != "x86_pkg_temp" : !kCpuZones.count(type)) continue;
      std::string milli = ReadLine(zones + zone + "/temp");
      if (milli.empty()) continue;
      t.celsius = std::stod(milli) / 1000.0;
      t.source = zones + zone + " (" + type + ")";
      break;
    }
  }
  const std::string hwmon = "/sys/class/hwmon/";
  for (const auto& dev : ListDir(hwmon, "hwmon")) {
    if (t.celsius) break;
    std::string name = ReadLine(hwmon + dev + "/name");
    if (!kCpuHwmon.count(name)) continue;
    std::string milli = ReadLine(hwmon + dev + "/temp1_input");
    if (milli.empty()) continue;
    t.celsius = std::stod(milli) / 1000.0;
    t.source = hwmon + dev + " (" + name + ")";
  }
  return t;
}

std::optional<double> SampleCpuUtilization(int interval_ms) {
  auto read = [](uint64_t* busy, uint64_t* total) {
    std::ifstream in("/proc/stat");
    std::string cpu;
    in >> cpu;
    if (cpu != "cpu") return false;
    // user nice system idle iowait irq softirq steal (guest time is inside user already)
    uint64_t v[8] = {0};
    for (auto& x : v) in >> x;
    if (!in) return false;
    *total = 0;
    for (auto x : v) *total += x;
    *busy = *total - v[3] - v[4];
    return true;
  };
  uint64_t b0 = 0, t0 = 0, b1 = 0, t1 = 0;
  if (!read(&b0, &t0)) return std::nullopt;
  std::this_thread::sleep_for(std::chrono::milliseconds(interval_ms));
  if (!read(&b1, &t1)) return std::nullopt;
  if (t1 <= t0) return 0.0;
  return 100.0 * static_cast<double>(b1 - b0) / static_cast<double>(t1 - t0);
}

}  // namespace kiln::tools
