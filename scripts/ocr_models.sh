#!/usr/bin/env bash
# Copyright 2026 The Kiln Authors
# SPDX-License-Identifier: Apache-2.0
#
# Prepares the OCR demo's models (docs/ocr-demo.md) in OUT_DIR:
#   det.om, cls.om, rec.om  PP-OCRv4 det, PP-OCR mobile v2.0 cls, PP-OCRv4 rec, compiled by
#                           `kiln atc` from the rapidocr-onnxruntime wheel installed in .venv
#   ppocr_keys.txt          the recogniser's dictionary (its ONNX metadata_props "character",
#                           where RapidOCR reads it), one character a line
# Usage: ocr_models.sh KILN_BINARY OUT_DIR [PROJECT_ROOT]
# A file newer than its sources (and, for .om files, than the kiln binary) is kept.
set -euo pipefail
kiln="$1"
out="$2"
root="${3:-$(cd "$(dirname "$0")/.." && pwd)}"
python="$root/.venv/bin/python"
if [ ! -x "$python" ]; then
  echo "ocr_models: $python is missing; run scripts/setup.sh first" >&2
  exit 1
fi
site="$("$python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
src="$site/rapidocr_onnxruntime/models"
mkdir -p "$out"

# name  ONNX file  --input_shape: the detector takes any H and W (multiples of 32), the
# classifier 48x192, the recogniser height 48 and any width.
specs=(
  "det ch_PP-OCRv4_det_infer.onnx x:1,3,-1,-1"
  "cls ch_ppocr_mobile_v2.0_cls_infer.onnx x:1,3,48,192"
  "rec ch_PP-OCRv4_rec_infer.onnx x:1,3,48,-1"
)
for spec in "${specs[@]}"; do
  read -r name onnx shape <<< "$spec"
  if [ ! -f "$src/$onnx" ]; then
    echo "ocr_models: $src/$onnx is missing; run scripts/setup.sh (rapidocr-onnxruntime)" >&2
    exit 1
  fi
  om="$out/$name.om"
  if [ -f "$om" ] && [ "$om" -nt "$src/$onnx" ] && [ "$om" -nt "$kiln" ]; then
    echo "ocr_models: $om is up to date"
    continue
  fi
  if ! log="$("$kiln" atc --framework=5 --model="$src/$onnx" --output="$out/$name" \
                --input_shape="$shape" 2>&1)"; then
    echo "$log" >&2
    echo "ocr_models: compiling $onnx failed" >&2
    exit 1
  fi
  echo "ocr_models: $om <- $onnx ($(echo "$log" | grep -E 'ONNX nodes' | tr -d '\n'))"
done

keys="$out/ppocr_keys.txt"
if [ ! -f "$keys" ] || [ "$src/ch_PP-OCRv4_rec_infer.onnx" -nt "$keys" ]; then
  "$python" - "$src/ch_PP-OCRv4_rec_infer.onnx" "$keys" << 'EOF'
import sys

import onnx

model = onnx.load(sys.argv[1], load_external_data=False)
meta = {p.key: p.value for p in model.metadata_props}
# RapidOCR: session.get_modelmeta().custom_metadata_map["character"].splitlines()
chars = meta["character"].splitlines()
with open(sys.argv[2], "w", encoding="utf-8", newline="\n") as f:
    f.write("\n".join(chars) + "\n")
print(f"ocr_models: {sys.argv[2]} <- metadata_props 'character' ({len(chars)} characters)")
EOF
fi
