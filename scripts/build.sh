#!/usr/bin/env bash
# Copyright 2026 The Kiln Authors
# SPDX-License-Identifier: Apache-2.0
#
# Configures and builds one CMake preset (release, debug, asan, tsan) with Ninja, -j2, ccache.
# Usage: scripts/build.sh [preset] [extra cmake -D options...]
set -euo pipefail
cd "$(dirname "$0")/.."
# Paths below the project root are hashed relative to it, so clones in other folders (CI) hit
# the same ccache entries.
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$PWD}"
preset="${1:-release}"
shift || true
cmake --preset "$preset" "$@" > "build-$preset.configure.log" 2>&1 ||
  { cat "build-$preset.configure.log"; exit 1; }
rm -f "build-$preset.configure.log"
cmake --build --preset "$preset"
