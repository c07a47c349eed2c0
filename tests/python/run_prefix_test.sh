#!/usr/bin/env bash
# Copyright 2026 The Kiln Authors
# SPDX-License-Identifier: Apache-2.0
# `cmake --install` into a fresh prefix, `source set_env.sh`, then the Python tests with the
# project's .venv interpreter: acl and kiln must come from <prefix>/python/site-packages and
# models are compiled by the prefix's `kiln atc`.
# Usage: run_prefix_test.sh <build dir> <source dir>. 77 (skipped) without the .venv.
set -euo pipefail
build="$1"
src="$2"
py="$src/.venv/bin/python"
[ -x "$py" ] || { echo "skipped: no .venv (run scripts/setup.sh)"; exit 77; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" > "$work/install.log"
unset PYTHONPATH KILN_BIN
# shellcheck disable=SC1091
source "$work/prefix/set_env.sh"
location="$("$py" -c 'import acl, kiln; print(acl.__file__); print(kiln.__file__)')"
echo "$location"
if grep -qv "^$work/prefix/python/site-packages/" <<< "$location"; then
  echo "acl/kiln were not imported from the install prefix"
  exit 1
fi
KILN_BIN="$(command -v kiln)"
[ "$KILN_BIN" = "$work/prefix/bin/kiln" ] || { echo "kiln is $KILN_BIN"; exit 1; }
export KILN_BIN KILN_CACHE_DIR="$work/cache"
cd "$work"
"$py" -m pytest -q -p no:cacheprovider "$src/tests/python/test_acl_seed.py" \
  "$src/tests/python/test_acl_callbacks.py" "$src/tests/python/test_acl_fidelity.py" \
  "$src/tests/python/test_acl_classification.py" "$src/tests/python/test_kiln.py" \
  "$src/tests/python/test_robustness.py"
echo "install prefix test: OK"
