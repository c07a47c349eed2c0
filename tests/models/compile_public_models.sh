#!/usr/bin/env bash
# Compiles every model of the public set (docs/models.md) with `kiln atc`, then
# reads each .om back (--mode=6). Usage: compile_public_models.sh <kiln binary> <project root>
set -euo pipefail
kiln="$1"
root="$2"
site="$("$root/.venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
models=(
  "$root/tests/data/models/mnist-8/model.onnx"
  "$root/tests/data/models/yunet/yunet_n_320_320.onnx"
  "$root/tests/data/models/yunet/yunet_n_dynamic.onnx"
  "$site/nudenet/320n.onnx"
  "$site/rapidocr_onnxruntime/models/ch_PP-OCRv4_det_infer.onnx"
  "$site/rapidocr_onnxruntime/models/ch_PP-OCRv4_rec_infer.onnx"
  "$site/rapidocr_onnxruntime/models/ch_ppocr_mobile_v2.0_cls_infer.onnx"
  "$site/silero_vad/data/silero_vad.onnx"
)
for m in "$site"/onnx/backend/test/data/light/light_*.onnx; do models+=("$m"); done
# Architectures no package ships, generated with seeded random weights (docs/models.md).
generated="$root/build/models"
"$root/.venv/bin/python" "$root/scripts/gen_models.py" --out "$generated" > /dev/null
models+=("$generated/resnet50_v1.5.onnx" "$generated/resnet50_v1.5_qdq.onnx"
         "$generated/mobilenetv2.onnx" "$generated/bert_encoder.onnx"
         "$generated/bert_encoder_qdq.onnx" "$generated/bert_encoder_dynamic.onnx"
         "$generated/crnn_head.onnx" "$generated/lstm_lm.onnx")
declare -A shapes=(
  [resnet50_v1.5]="input:1,3,224,224"
  [resnet50_v1.5_qdq]="input:1,3,224,224"
  [mobilenetv2]="input:1,3,224,224"
  [bert_encoder]="input_ids:1,128;attention_mask:1,128;token_type_ids:1,128"
  [bert_encoder_qdq]="input_ids:1,128;attention_mask:1,128;token_type_ids:1,128"
  [bert_encoder_dynamic]="input_ids:1,128;attention_mask:1,128;token_type_ids:1,128"
)
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
passed=0
failed=0
for m in "${models[@]}"; do
  name="$(basename "$m" .onnx)"
  if [ ! -f "$m" ]; then
    echo "MISSING $m (run scripts/setup.sh)"
    failed=$((failed + 1))
    continue
  fi
  shape_flag=()
  [ -n "${shapes[$name]:-}" ] && shape_flag=(--input_shape="${shapes[$name]}")
  if log="$("$kiln" atc --framework=5 --model="$m" --output="$out/$name" "${shape_flag[@]}" 2>&1)" &&
     "$kiln" atc --mode=6 --om="$out/$name.om" > /dev/null 2>&1; then
    echo "ok   $name: $(echo "$log" | grep -E 'ONNX nodes|gear default' | tr '\n' ' ')"
    passed=$((passed + 1))
  else
    echo "FAIL $name"
    echo "$log" | tail -3
    failed=$((failed + 1))
  fi
done
echo "public models: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
