#!/usr/bin/env bash
# Installs the build into a fresh prefix, sources its set_env.sh and runs onnxruntime's CANN
# execution provider (the unchanged PyPI wheel in .venv-ort-cann, scripts/setup.sh) on it:
# tests/install/ort_cann_test.py. Exit 77 (skipped) when that venv is missing.
# Usage: run_ort_cann_test.sh <build-dir> <project root>
set -euo pipefail
build="$1"
root="$2"
python="$root/.venv-ort-cann/bin/python"
if [ ! -x "$python" ]; then
  echo "SKIP: no $python (run scripts/setup.sh)"
  exit 77
fi
models="${KILN_MODELS_DIR:-$root/build/models}"
need=()
for m in mobilenetv2 resnet50_v1.5 bert_encoder; do
  [ -e "$models/$m.onnx" ] || need+=("${m%_v1.5}")
done
if [ ${#need[@]} -gt 0 ]; then
  list="$(IFS=,; echo "${need[*]/bert_encoder/bert}")"
  "$root/.venv/bin/python" "$root/scripts/gen_models.py" --out "$models" --only "$list"
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" > "$work/install.log"
# shellcheck disable=SC1091
source "$work/prefix/set_env.sh"
# A model whose output dims only the run decides (NonZero): the provider passes a NULL output
# buffer to aclmdlExecute for it.
"$root/.venv/bin/python" - "$work/nonzero.onnx" <<'PY'
import sys
from onnx import TensorProto, helper, save
x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n"])
y = helper.make_tensor_value_info("idx", TensorProto.INT64, [1, None])
z = helper.make_tensor_value_info("r", TensorProto.FLOAT, ["n"])
g = helper.make_graph([helper.make_node("Relu", ["x"], ["r"], name="relu"),
                       helper.make_node("NonZero", ["r"], ["idx"], name="nonzero")],
                      "nonzero", [x], [y, z])
save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)], ir_version=8), sys.argv[1])
PY
mkdir "$work/run"
cd "$work/run"
"$python" "$root/tests/install/ort_cann_test.py" "$root" "$models" "$work/nonzero.onnx"
