// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// What `kiln smi` says about the host CPU, read from the OS (/proc, /sys) and cpuid.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kiln::tools {

struct CpuFacts {
  std::string model = "unknown";  // "model name" of /proc/cpuinfo
  std::string vendor = "unknown";
  std::string arch;  // uname machine
  std::string family, model_number, stepping, microcode;
  int sockets = 0, cores = 0, threads = 0;
  int numa_nodes = 0;
  double mhz = 0;                   // current clock of cpu0 (0 if unknown)
  std::vector<std::string> isa;     // "AVX2", "AVX-512F", "AMX-BF16", ... (OS-enabled ones)
  std::vector<std::string> caches;  // "L1d 48 KiB", "L2 2048 KiB", "L3 ..." of cpu0
  std::string kernel;               // uname release
};

struct HostMemory {
  uint64_t total = 0;
  uint64_t available = 0;
};

struct Temperature {
  std::optional<double> celsius;  // nullopt: the OS exposes no CPU sensor
  std::string source;             // e.g. "/sys/class/thermal/thermal_zone0 (x86_pkg_temp)"
};

CpuFacts ReadCpuFacts();
HostMemory ReadHostMemory();
Temperature ReadCpuTemperature();
// Busy share of all CPUs (%), from two reads of /proc/stat `interval_ms` apart; nullopt when
// /proc/stat cannot be read.
std::optional<double> SampleCpuUtilization(int interval_ms);

}  // namespace kiln::tools
