// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "hal/device.h"

namespace kiln::cpu {

// Measures the float32 arithmetic peak of `device` (GFLOP/s): a register-only FMA loop with the
// widest vectors the CPU has (AVX-512, AVX2+FMA, or scalar) on every compute thread at once,
// best of three ~40 ms rounds. What the profiler's "% of peak" divides by.
double MeasureCpuPeakGflops(hal::Device& device);

}  // namespace kiln::cpu
