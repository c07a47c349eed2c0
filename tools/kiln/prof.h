// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <CLI/CLI.hpp>

namespace kiln::tools {

// Adds `kiln prof` (msprof's flags where they apply: --application, --output, --ascendcl,
// --model-execution, --runtime-api, --msproftx, --task-time; and --om to profile a model by
// itself) to `app`; `*exit_code` is set when it runs.
void AddProfCommand(CLI::App& app, int* exit_code);

}  // namespace kiln::tools
