// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <CLI/CLI.hpp>

namespace kiln::tools {

// Adds `kiln smi info [-t memory|usages|board -i ID] [--json]` (npu-smi's layout): the devices,
// their utilisation, temperature and memory, and the processes using them (the usage records of
// include/kiln/kiln_usage.h). `*exit_code` is set when it runs.
void AddSmiCommand(CLI::App& app, int* exit_code);

}  // namespace kiln::tools
