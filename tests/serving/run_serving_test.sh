#!/usr/bin/env bash
# Copyright 2026 The Kiln Authors
# SPDX-License-Identifier: Apache-2.0
# Runs one serving test file (pytest) with .venv-serve's interpreter; 77 (skipped) when that venv
# is missing (scripts/setup.sh makes it from scripts/requirements-serve.txt). A venv that is there
# but cannot import what the tests need fails.
# Ray is kept on this machine: loopback addresses only (Ray's single-machine mode), no usage
# report, no token file in $HOME.
# Usage: run_serving_test.sh <repository root> <test file> [pytest args]
set -euo pipefail
root="$1"
shift
python="$root/.venv-serve/bin/python"
if ! [ -x "$python" ]; then
  echo "skipped: $root/.venv-serve is missing (run scripts/setup.sh)"
  exit 77
fi
export RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0 RAY_USAGE_STATS_ENABLED=0 RAY_AUTH_MODE=disabled
exec "$python" -m pytest -q -p no:cacheprovider "$@"
