#!/usr/bin/env bash
# Copyright 2026 The Kiln Authors
# SPDX-License-Identifier: Apache-2.0
#
# Kiln's main job, for now: set up, build, and run the AscendCL runtime demo (device, stream,
# events, device memory, callbacks) through libascendcl.so. The model issue turns this into
# the OCR demo.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export CCACHE_BASEDIR="$PWD"
# Configure like the test command does, but build only what the demo runs.
{ cmake --preset release && cmake --build --preset release --target kiln runtime_demo; } \
  > build-demo.log 2>&1 || { tail -50 build-demo.log; exit 1; }
rm -f build-demo.log
./build/release/tools/kiln/kiln --version
echo
./build/release/examples/runtime_demo
