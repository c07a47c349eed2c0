#!/usr/bin/env bash
# Copyright 2026 The Kiln Authors
# SPDX-License-Identifier: Apache-2.0
#
# The OCR demo end to end (docs/ocr-demo.md): renders two lines of text into an image, compiles
# PP-OCRv4 det / cls / rec with `kiln atc`, runs kiln_ocr through libascendcl.so, and checks it
# reads back exactly the rendered text, line by line.
# Usage: ocr_demo.sh KILN_BINARY KILN_OCR_BINARY PROJECT_ROOT WORK_DIR
# Exit status 77 (skipped) when .venv lacks the models or Pillow (run scripts/setup.sh).
set -euo pipefail
kiln="$1"
kiln_ocr="$2"
root="$3"
work="$4"
if ! "$root/.venv/bin/python" -c 'import sysconfig, os, PIL
site = sysconfig.get_paths()["purelib"]
assert os.path.isdir(os.path.join(site, "rapidocr_onnxruntime", "models"))' 2> /dev/null; then
  echo "SKIP: .venv with rapidocr-onnxruntime and pillow is missing (run scripts/setup.sh)"
  exit 77
fi
mkdir -p "$work"
bash "$root/scripts/ocr_models.sh" "$kiln" "$work" "$root"
expected=("Kiln runs AscendCL apps" "on the CPU 2026")
"$root/.venv/bin/python" "$root/scripts/render_text.py" --out "$work/ocr_demo.ppm" "${expected[@]}"
output="$("$kiln_ocr" --models "$work" "$work/ocr_demo.ppm")"
echo "$output"
# `line N: "TEXT"` lines, in reading order.
mapfile -t got < <(echo "$output" | sed -n 's/^line [0-9]*: "\(.*\)"$/\1/p')
if [ "${#got[@]}" -ne "${#expected[@]}" ]; then
  echo "FAIL: ${#got[@]} line(s) read, ${#expected[@]} rendered"
  exit 1
fi
status=0
for i in "${!expected[@]}"; do
  if [ "${got[$i]}" = "${expected[$i]}" ]; then
    echo "ok   line $((i + 1)): \"${got[$i]}\""
  else
    echo "FAIL line $((i + 1)): read \"${got[$i]}\", rendered \"${expected[$i]}\""
    status=1
  fi
done
exit "$status"
