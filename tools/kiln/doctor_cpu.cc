// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// `kiln doctor`: the CPU's vector and matrix extensions (cpuid and XCR0 on x86-64, so a feature
// counts only when the OS enables its registers too; /proc/cpuinfo elsewhere), and which of them
// Kiln's CPU kernels use: its own kernels are compiled for AVX-512F, AVX2 and the x86-64
// baseline (target_clones, src/backends/cpu/kernels/simd.h) and oneDNN picks its JIT code by ISA.
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "tools/kiln/doctor_finding.h"

namespace kiln::tools::doctor {
namespace {

struct Feature {
  const char* name;      // as /proc/cpuinfo spells it
  bool present = false;  // cpuid says the CPU has it
  bool usable = false;   // and the OS saves its registers (XCR0)
};

std::string ProcCpuinfoValue(const char* key) {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(key, 0) != 0) continue;
    size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    size_t start = line.find_first_not_of(" \t", colon + 1);
    return start == std::string::npos ? "" : line.substr(start);
  }
  return "";
}

#if defined(__x86_64__) || defined(__i386__)
uint64_t Xcr0() {
  uint32_t eax = 0, edx = 0;
  __asm__ volatile("xgetbv" : "=a"(eax), "=d"(edx) : "c"(0));
  return (static_cast<uint64_t>(edx) << 32) | eax;
}

std::string BrandString() {
  uint32_t regs[12] = {0};
  if (__get_cpuid_max(0x80000000, nullptr) < 0x80000004) return "";
  for (uint32_t i = 0; i < 3; ++i) {
    __get_cpuid(0x80000002 + i, &regs[i * 4], &regs[i * 4 + 1], &regs[i * 4 + 2], &regs[i * 4 + 3]);
  }
  std::string s(reinterpret_cast<const char*>(regs), sizeof regs);
  s.resize(s.find('\0') == std::string::npos ? s.size() : s.find('\0'));
  size_t start = s.find_first_not_of(' ');
  return start == std::string::npos ? "" : s.substr(start);
}

std::vector<Feature> DetectFeatures() {
  uint32_t a = 0, b = 0, c = 0, d = 0;
  __get_cpuid(1, &a, &b, &c, &d);
  const bool osxsave = (c >> 27) & 1;
  const bool fma = (c >> 12) & 1;
  const uint64_t xcr0 = osxsave ? Xcr0() : 0;
  const bool os_avx = (xcr0 & 0x6) == 0x6;
  const bool os_avx512 = os_avx && (xcr0 & 0xE0) == 0xE0;
  const bool os_amx = (xcr0 & 0x60000) == 0x60000;
  uint32_t b7 = 0, c7 = 0, d7 = 0, a71 = 0, unused = 0;
  if (__get_cpuid_max(0, nullptr) >= 7) {
    __cpuid_count(7, 0, unused, b7, c7, d7);
    __cpuid_count(7, 1, a71, unused, unused, unused);
  }
  auto bit = [](uint32_t reg, int n) { return ((reg >> n) & 1) != 0; };
  std::vector<Feature> f = {
      {"avx2", bit(b7, 5), bit(b7, 5) && os_avx},
      {"fma", fma, fma && os_avx},
      {"avx512f", bit(b7, 16), bit(b7, 16) && os_avx512},
      {"avx512dq", bit(b7, 17), bit(b7, 17) && os_avx512},
      {"avx512bw", bit(b7, 30), bit(b7, 30) && os_avx512},
      {"avx512vl", bit(b7, 31), bit(b7, 31) && os_avx512},
      {"avx512_vnni", bit(c7, 11), bit(c7, 11) && os_avx512},
      {"avx512_bf16", bit(a71, 5), bit(a71, 5) && os_avx512},
      {"amx_tile", bit(d7, 24), bit(d7, 24) && os_amx},
      {"amx_bf16", bit(d7, 22), bit(d7, 22) && os_amx},
      {"amx_int8", bit(d7, 25), bit(d7, 25) && os_amx},
  };
  return f;
}
#else
std::string BrandString() { return ProcCpuinfoValue("model name"); }

std::vector<Feature> DetectFeatures() {
  std::string flags = " " + ProcCpuinfoValue("Features") + " ";
  std::vector<Feature> f;
  for (const char* name : {"asimd", "sve", "sve2", "bf16", "i8mm"}) {
    bool has = flags.find(std::string(" ") + name + " ") != std::string::npos;
    f.push_back({name, has, has});
  }
  return f;
}
#endif

bool Usable(const std::vector<Feature>& fs, const char* name) {
  for (const Feature& f : fs) {
    if (std::string(f.name) == name) return f.usable;
  }
  return false;
}

}  // namespace

Finding CheckCpu() {
  Finding f;
  f.check = "cpu";
  const std::vector<Feature> fs = DetectFeatures();
  std::string model = BrandString();
  if (model.empty()) model = ProcCpuinfoValue("model name");
  nlohmann::json features = nlohmann::json::object();
  std::string have, disabled;
  for (const Feature& x : fs) {
    features[x.name] = x.usable;
    if (x.usable) have += (have.empty() ? "" : " ") + std::string(x.name);
    if (x.present && !x.usable) disabled += (disabled.empty() ? "" : " ") + std::string(x.name);
  }
#if defined(__x86_64__)
  const bool avx512_core = Usable(fs, "avx512f") && Usable(fs, "avx512bw") &&
                           Usable(fs, "avx512vl") && Usable(fs, "avx512dq");
  const std::string own = Usable(fs, "avx512f") ? "avx512f"
                          : Usable(fs, "avx2")  ? "avx2"
                                                : "x86-64 baseline";
  std::string onednn = "sse41";
  if (Usable(fs, "avx2")) onednn = "avx2";
  if (avx512_core) onednn = "avx512_core";
  if (avx512_core && Usable(fs, "avx512_vnni")) onednn = "avx512_core_vnni";
  if (avx512_core && Usable(fs, "avx512_bf16")) onednn = "avx512_core_bf16";
  if (avx512_core && Usable(fs, "amx_tile") && Usable(fs, "amx_bf16") && Usable(fs, "amx_int8")) {
    onednn = "avx512_core_amx";
  }
#else
  const std::string own = "baseline";
  std::string onednn = "the build's default";
#endif
  const char* cap = std::getenv("ONEDNN_MAX_CPU_ISA");
  if (cap == nullptr) cap = std::getenv("DNNL_MAX_CPU_ISA");
  const std::string onednn_use = cap ? std::string("up to ") + cap +
                                           " (ONEDNN_MAX_CPU_ISA; the "
                                           "CPU allows " +
                                           onednn + ")"
                                     : "up to " + onednn;
  f.data = {{"model", model},
            {"features", features},
            {"present_but_disabled_by_os", disabled},
            {"kiln_kernels", own},
            {"onednn_max_isa", onednn},
            {"onednn_max_cpu_isa_env", cap ? cap : ""}};
  f.found = (model.empty() ? std::string("CPU") : model) + ": " +
            (have.empty() ? std::string("no AVX2") : have) + "; Kiln's own kernels run their " +
            own + " code, oneDNN (Conv, MatMul, Gemm) " + onednn_use +
            (onednn.find("amx") != std::string::npos ? " (AMX for bf16/int8 precision)" : "");
  if (!disabled.empty()) {
    f.level = Level::kWarn;
    f.found += "; present but not enabled by the OS: " + disabled;
    f.fix =
        "run a kernel that enables them (AMX needs Linux 5.16+; a VM needs them passed "
        "through, e.g. -cpu host)";
  } else if (!Usable(fs, "avx2") && own != "baseline") {  // x86-64 without AVX2
    f.level = Level::kWarn;
    f.fix = "expect slow CPU execution: Kiln's fast kernels need AVX2 or AVX-512";
  }
  return f;
}

}  // namespace kiln::tools::doctor
