// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// What `kiln smi` has gathered (devices from the AscendCL API, host facts from the OS, the
// processes from the usage records), and its two renderings: npu-smi's text and JSON.
#pragma once

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tools/kiln/smi_host.h"
#include "tools/kiln/usage_reader.h"

namespace kiln::tools {

// The note every output carries in place of GPU rows.
inline constexpr const char* kNoGpuBackend = "no GPU backend (Kiln has no CUDA backend yet)";

struct SmiDevice {
  int32_t id = 0;
  std::string name;             // aclrtGetSocName: cpu, cpu-avx2, cpu-avx512
  int64_t compute_threads = 0;  // aclGetDeviceCapability(ACL_DEVICE_INFO_AI_CORE_NUM)
};

struct SmiReport {
  std::string version;  // the runtime's
  std::vector<SmiDevice> devices;
  CpuFacts cpu;
  HostMemory host;
  Temperature temperature;
  std::optional<double> utilization;  // % of all CPUs, sampled
  UsageScan usage;

  // Sums over the processes that have device `id` open.
  uint64_t KilnInUse(int32_t id) const;
  uint64_t KilnReserved(int32_t id) const;
  int ProcessCount(int32_t id) const;
};

// A short ISA tier line for the table ("AVX2 AVX-512 AMX"); the full list is in -t board.
std::string IsaSummary(const CpuFacts& cpu);

// `only` < 0: every device.
void PrintInfoText(const SmiReport& r, int32_t only, FILE* out);
void PrintMemoryText(const SmiReport& r, int32_t id, FILE* out);
void PrintUsagesText(const SmiReport& r, int32_t id, FILE* out);
void PrintBoardText(const SmiReport& r, int32_t id, FILE* out);

nlohmann::json InfoJson(const SmiReport& r, int32_t only);
nlohmann::json MemoryJson(const SmiReport& r, int32_t id);
nlohmann::json UsagesJson(const SmiReport& r, int32_t id);
nlohmann::json BoardJson(const SmiReport& r, int32_t id);

}  // namespace kiln::tools
