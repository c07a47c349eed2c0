// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The CPU backend's optimised kernels (oneDNN), registered under backend "cpu". Ops and cases
// they do not take fall back to the reference kernels (KernelRegistry::Create).
#pragma once

#include <cstdint>

#include "kernels/registry.h"

namespace kiln::cpu {

// Registers every cpu kernel with `registry`, which must outlive them (a kernel prepares its
// reference fallback from it). Call once per registry.
void RegisterCpuKernels(kernels::KernelRegistry& registry);

// How many runs of a cpu kernel, process-wide, went to its reference kernel (inputs its
// prepared plans do not cover: a broadcast residual, an empty tensor, dims oneDNN declined);
// for tests and diagnostics.
int64_t ReferenceRunCount();

}  // namespace kiln::cpu
