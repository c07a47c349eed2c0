// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <CLI/CLI.hpp>

namespace kiln::tools {

// Adds `kiln compare` (docs/tools.md): an ONNX model in onnxruntime against its .om in Kiln,
// tensor by tensor. The comparison is python/kiln/compare.py, run with the Python interpreter
// of $KILN_PYTHON, else $VIRTUAL_ENV/bin/python, else python3 on PATH, with PYTHONPATH led by
// the Kiln Python packages found next to this binary (build tree or install prefix).
void AddCompareCommand(CLI::App& app, int* exit_code);

}  // namespace kiln::tools
