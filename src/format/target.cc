// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "format/target.h"

#include <cctype>

namespace kiln::format {

namespace {

// "sm_" followed by two or three digits: a CUDA compute capability (sm_75, sm_90, sm_100).
bool IsSmName(std::string_view name) {
  if (name.size() < 5 || name.size() > 6 || name.substr(0, 3) != "sm_") return false;
  for (char c : name.substr(3)) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

}  // namespace

std::string_view TargetBackend(std::string_view target) {
  if (target == "cpu" || target == "cpu-avx2" || target == "cpu-avx512") return "cpu";
  if (target == "cuda" || IsSmName(target)) return "cuda";
  return "";
}

bool IsTarget(std::string_view name) { return !TargetBackend(name).empty(); }

std::string TargetMismatch(std::string_view target, std::string_view backend,
                           std::string_view device_name) {
  // CUDA targets run on the CUDA backend; every other target on every other backend (the CPU,
  // and the HAL's test doubles, which run host kernels too).
  if (target.empty() || (TargetBackend(target) == "cuda") == (backend == "cuda")) return "";
  std::string why = "the model was compiled for target '";
  why += target;
  why += "', which does not run on this device (";
  why += device_name;
  why += ", backend ";
  why += backend;
  why += "); compile it again with kiln atc --soc_version=";
  why += backend == "cuda" ? "cuda" : "cpu";
  return why;
}

}  // namespace kiln::format
