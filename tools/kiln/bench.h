// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <CLI/CLI.hpp>

namespace kiln::tools {

// Adds `kiln bench` (ais_bench's flags where they apply; docs/tools.md) to `app`; `*exit_code`
// is set when it runs.
void AddBenchCommand(CLI::App& app, int* exit_code);

}  // namespace kiln::tools
