#!/usr/bin/env bash
# Copyright 2026 The Kiln Authors
# SPDX-License-Identifier: Apache-2.0
# Runs one pytest file with the given interpreter; 77 (skipped) when it has no pytest.
# Usage: run_pytest.sh <python> <test file> [pytest args]
set -euo pipefail
python="$1"
shift
if ! [ -x "$python" ] || ! "$python" -c 'import pytest, numpy' 2>/dev/null; then
  echo "skipped: $python has no pytest/numpy (run scripts/setup.sh)"
  exit 77
fi
exec "$python" -m pytest -q -p no:cacheprovider "$@"
