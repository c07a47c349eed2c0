#!/usr/bin/env bash
# Copyright 2026 The Kiln Authors
# SPDX-License-Identifier: Apache-2.0
# `pip install .` into a fresh virtual environment, then the Python tests against the installed
# wheel (nothing of the source or build tree on PYTHONPATH; models compiled with kiln.compile).
# Usage: run_wheel_test.sh <source dir> <work dir>. 77 (skipped) without the project's .venv.
set -euo pipefail
src="$1"
work="$2"
base="$src/.venv/bin/python"
[ -x "$base" ] || { echo "skipped: no .venv (run scripts/setup.sh)"; exit 77; }
rm -rf "$work"
mkdir -p "$work"
"$base" -m venv "$work/venv"
py="$work/venv/bin/python"
# The pinned test and build tools, and numpy at the project's pin.
numpy_pin="$(grep -E '^numpy==' "$src/scripts/requirements-models.txt")"
"$py" -m pip install -q --disable-pip-version-check --no-deps \
  -r "$src/scripts/requirements-python.txt" "$numpy_pin"
export CCACHE_BASEDIR="$src"
"$py" -m pip install -q --disable-pip-version-check --no-deps --no-build-isolation "$src" \
  > "$work/pip-install.log" 2>&1 || { tail -50 "$work/pip-install.log"; exit 1; }
cd "$work"
unset PYTHONPATH KILN_BIN
location="$("$py" -c 'import acl, kiln; print(acl.__file__); print(kiln.__file__)')"
echo "$location"
if grep -qv "^$work/venv/" <<< "$location"; then
  echo "acl/kiln were not imported from the wheel's venv"
  exit 1
fi
export KILN_CACHE_DIR="$work/cache"
"$py" -m pytest -q -p no:cacheprovider "$src/tests/python/test_acl_seed.py" \
  "$src/tests/python/test_acl_callbacks.py" "$src/tests/python/test_acl_fidelity.py" \
  "$src/tests/python/test_acl_classification.py" "$src/tests/python/test_kiln.py" \
  "$src/tests/python/test_robustness.py"
echo "wheel test: OK"
