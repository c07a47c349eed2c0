// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The targets an .om is compiled for (`kiln atc --soc_version`, the header's `target` field) and
// which devices run them (docs/atc.md "Targets"): the CPU family "cpu", "cpu-avx2", "cpu-avx512"
// and the CUDA family "cuda", "sm_<major><minor>" (e.g. "sm_90").
#pragma once

#include <string>
#include <string_view>

namespace kiln::format {

// Whether `name` is a Kiln target.
bool IsTarget(std::string_view name);

// The backend that runs a target's kernels: "cpu" or "cuda"; "" for a name that is no target.
std::string_view TargetBackend(std::string_view target);

// Why an .om compiled for `target` cannot run on device `device_name` of backend `backend`
// ("" when it can). A CUDA target runs on backend "cuda" only, and a CPU target on every other
// backend (the CPU, and host test doubles such as the HAL's null backend); any CPU target runs
// on any CPU device, whose kernels pick their instruction set when prepared. An empty target (a
// file that names none) runs anywhere.
std::string TargetMismatch(std::string_view target, std::string_view backend,
                           std::string_view device_name);

}  // namespace kiln::format
