// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The one place where the built-in backends are registered: each backend's driver with the
// HAL registry (in physical device order) and its optimised kernels with the kernel registry.
// The reference kernels need no registration (kernels::KernelRegistry builds them on first
// use). Nothing registers itself as a side effect of being linked.
#pragma once

namespace kiln::backends {

// Registers every built-in backend once per process; later calls do nothing. Thread-safe.
// Called by the runtime before it first lists devices (runtime::Runtime).
void RegisterAll();

}  // namespace kiln::backends
