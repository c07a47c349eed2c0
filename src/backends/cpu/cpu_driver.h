// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <memory>

#include "base/thread_pool.h"
#include "hal/driver.h"

namespace kiln::cpu {

// The CPU backend. It exposes KILN_CPU_DEVICES devices (default 1, at most 8: extra devices let
// multi-device applications be tested on one machine); all of them share one compute pool of
// KILN_CPU_THREADS workers (default: the cores this process may use).
std::unique_ptr<hal::Driver> CreateCpuDriver();

// The CPUs this process may run on (its affinity mask; the online CPUs where that is unreadable).
size_t UsableCores();

// The process's CPU compute pool (created on first use, never destroyed).
ThreadPool& ComputePool();

}  // namespace kiln::cpu
