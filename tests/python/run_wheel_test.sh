#!/usr/bin/env bash
# Copyright 2026 The Kiln Authors
# SPDX-License-Identifier: Apache-2.0
# The self-contained wheel (docs/wheel.md), built by scripts/build_wheel.sh and tested twice:
# 1. in a fresh virtual environment on this machine (nothing of the source or build tree on
#    PYTHONPATH): tests/python/wheel_smoke.py and the Python suites of the acl/kiln API;
# 2. on a clean Debian 12 (debootstrap's minbase with python3 and python3-venv, nothing of
#    scripts/setup.sh), in a fresh venv inside a chroot: the smoke test, the kiln API suite and
#    the DVPP image and video suites (the codecs come only from the wheel there; OpenCV's and
#    Pillow's wheels are the oracles).
# The test wheels (numpy, pytest, OpenCV, Pillow) are the pinned ones of scripts/requirements-*.txt.
# Usage: run_wheel_test.sh <source dir> <work dir>. 77 (skipped) without the project's .venv;
# stage 2 needs root and debootstrap (scripts/setup.sh installs it) and is skipped (77) without.
set -euo pipefail
src="$1"
work="$2"
base="$src/.venv/bin/python"
[ -x "$base" ] || { echo "skipped: no .venv (run scripts/setup.sh)"; exit 77; }
mkdir -p "$work"
work="$(cd "$work" && pwd)"

wheel="$(bash "$src/scripts/build_wheel.sh" "$work/wheelhouse" | tail -1)"
echo "wheel: $wheel ($(du -h "$wheel" | cut -f1))"

# The pinned test wheels, downloaded once into the work folder (pip's cache makes it quick).
pins=()
for name in numpy opencv-python-headless pillow; do
  pins+=("$(grep -E "^$name==" "$src/scripts/requirements-models.txt")")
done
for name in pytest iniconfig packaging pluggy pygments; do
  pins+=("$(grep -E "^$name==" "$src/scripts/requirements-python.txt")")
done
"$base" -m pip download -q --disable-pip-version-check --no-deps --only-binary=:all: \
  -d "$work/test-wheels" "${pins[@]}"
py_suites=(test_acl_seed.py test_acl_callbacks.py test_acl_fidelity.py test_acl_classification.py
           test_kiln.py test_robustness.py)

echo "== 1. a fresh venv on this machine"
rm -rf "$work/venv"
"$base" -m venv "$work/venv"
"$work/venv/bin/pip" install -q --disable-pip-version-check --no-deps --no-index \
  "$work"/test-wheels/*.whl "$wheel"
(
  cd "$work"
  unset PYTHONPATH KILN_BIN LD_LIBRARY_PATH
  export PATH="$work/venv/bin:$PATH" KILN_CACHE_DIR="$work/cache"
  python "$src/tests/python/wheel_smoke.py" "$src"
  KILN_BIN="$work/venv/bin/kiln" python -m pytest -q -p no:cacheprovider \
    "${py_suites[@]/#/$src/tests/python/}"
)

echo "== 2. a clean Debian 12 root"
if [ "$(id -u)" -ne 0 ] || ! command -v debootstrap > /dev/null; then
  echo "skipped: the clean-root stage needs root and debootstrap (scripts/setup.sh)"
  exit 77
fi
root="$work/root"
if [ ! -f "$root/.kiln-root" ]; then
  rm -rf "$root"
  # The system's own Debian mirror, as apt uses it.
  mirror="$(sed -nE 's/^URIs: *(\S+\/debian)\s*$/\1/p' /etc/apt/sources.list.d/*.sources \
              2>/dev/null | head -1)"
  mkdir -p "$work/debs"
  debootstrap --variant=minbase --include=python3,python3-venv --cache-dir="$work/debs" \
    bookworm "$root" "${mirror:-http://deb.debian.org/debian}" > "$work/debootstrap.log" 2>&1 ||
    { tail -30 "$work/debootstrap.log"; exit 1; }
  touch "$root/.kiln-root"
fi
rm -rf "$root/venv" "$root/wheels" "$root/tmp/"*
mkdir -p "$root/wheels" "$root/src"
cp "$work"/test-wheels/*.whl "$wheel" "$root/wheels/"
# A private mount namespace: the source tree (read-only) and /proc are seen inside the root and
# vanish with this process.
unshare -m bash -euo pipefail -c '
  root="$1"; src="$2"
  mount --make-rprivate /
  mount --bind "$src" "$root/src"
  mount -o remount,bind,ro "$root/src"
  mount -t proc proc "$root/proc"
  chroot "$root" /usr/bin/env -i PATH=/usr/bin:/bin HOME=/root LANG=C.UTF-8 \
    PYTHONDONTWRITEBYTECODE=1 KILN_CACHE_DIR=/tmp/kiln-cache bash -euo pipefail -c "
      python3 -m venv /venv
      /venv/bin/pip install -q --disable-pip-version-check --no-deps --no-index /wheels/*.whl
      cd /tmp
      PATH=/venv/bin:\$PATH python /src/tests/python/wheel_smoke.py /src
      for suite in test_kiln test_dvpp test_dvpp_video; do  # one process each, as CTest runs them
        PATH=/venv/bin:\$PATH python -m pytest -q -p no:cacheprovider /src/tests/python/\$suite.py
      done"
' bash "$root" "$src"
echo "wheel test: OK"
