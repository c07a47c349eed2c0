#!/usr/bin/env bash
# Copyright 2026 The Kiln Authors
# SPDX-License-Identifier: Apache-2.0
# The issue's acceptance check: a C++ application written for CANN (resnet_app: QuerySize +
# LoadFromFileWithMem, datasets, execute, outputs, unload), built with -std=c++11 against the
# install prefix after `source set_env.sh`, runs unchanged on ResNet-50 compiled by the installed
# `kiln atc`, and its top-1 class equals onnxruntime's on the same deterministic input; then it
# runs again, unchanged, under the installed `kiln prof --application`.
# Usage: run_resnet_test.sh <build-dir> <tests/install dir> <project root> [image size, 224]
# Exit 77 (skipped) without the .venv that generates the model and runs onnxruntime.
set -euo pipefail
build="$1"
here="$2"
root="$3"
hw="${4:-224}"
python="$root/.venv/bin/python"
if ! "$python" -c 'import numpy, onnx, onnxruntime' 2> /dev/null; then
  echo "no .venv with numpy, onnx and onnxruntime (scripts/setup.sh): skipped"
  exit 77
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
start=$SECONDS
step() { echo "[$((SECONDS - start)) s] $*"; }

step "install"
cmake --install "$build" --prefix "$work/prefix" > "$work/install.log"
# shellcheck disable=SC1091
source "$work/prefix/set_env.sh"
[ "$(command -v kiln)" = "$work/prefix/bin/kiln" ] || { echo "kiln not first on PATH"; exit 1; }

# ResNet-50 with seeded random weights (docs/models.md); a current file is reused.
step "generate ResNet-50"
models="$root/build/models"
"$python" "$root/scripts/gen_models.py" --out "$models" --only resnet50 > "$work/gen.log" ||
  { cat "$work/gen.log"; exit 1; }
onnx="$models/resnet50_v1.5.onnx"

step "onnxruntime reference at ${hw}x${hw}"
"$python" "$here/resnet_expected.py" --model "$onnx" --hw "$hw" --input "$work/input.bin" \
  --expected "$work/expected.txt"

step "kiln atc"
kiln atc --framework=5 --model="$onnx" --output="$work/resnet50" --soc_version=Ascend310P3 \
  --input_shape="input:1,3,$hw,$hw" > "$work/atc.log" 2>&1 || { cat "$work/atc.log"; exit 1; }
grep -E "ONNX nodes|gear default" "$work/atc.log" || true

step "build the application"
cmake -S "$here/resnet_app" -B "$work/app" > "$work/configure.log" ||
  { cat "$work/configure.log"; exit 1; }
cmake --build "$work/app" > "$work/build.log" 2>&1 || { cat "$work/build.log"; exit 1; }
libs="$(ldd "$work/app/resnet_app")"
grep -q "$work/prefix/runtime/lib64/" <<< "$libs" ||
  { echo "resnet_app does not use the installed libascendcl.so:"; echo "$libs"; exit 1; }

step "run"
"$work/app/resnet_app" "$work/resnet50.om" "$work/input.bin" "$here/resnet_app/acl.json" \
  | tee "$work/run.log"
got="$(sed -n 's/^top 1: index\[\([0-9]*\)\].*/\1/p' "$work/run.log")"
want="$(sed -n 's/^top1 //p' "$work/expected.txt")"
if [ "$got" != "$want" ]; then
  echo "top-1 class: resnet_app $got, onnxruntime $want ($(grep top5 "$work/expected.txt"))"
  exit 1
fi

# The same unchanged application under the installed `kiln prof --application` (issue 11): the
# same answer, and a profile whose operators name the ONNX nodes and fill its execution.
step "kiln prof --application"
kiln prof --output="$work/prof" \
  --application="$work/app/resnet_app $work/resnet50.om $work/input.bin $here/resnet_app/acl.json" \
  > "$work/prof.log" 2>&1 || { cat "$work/prof.log"; exit 1; }
grep -q "^top 1: index\[$want\]" "$work/prof.log" ||
  { echo "resnet_app under kiln prof:"; cat "$work/prof.log"; exit 1; }
"$python" "$root/tests/tools/check_profile.py" --out "$work/prof" --onnx "$onnx" --executions 1
step "done"
echo "install ResNet-50 test: OK (top-1 class $got, as onnxruntime)"
