#!/usr/bin/env python3
# Copyright 2026 The Kiln Authors
# SPDX-License-Identifier: Apache-2.0
"""Single operators after a model (issue 16): examples/op_classify runs ResNet-50, then Cast
(float32 -> float16) and ArgMaxV2 (dimension 1 as a constant tensor, int32 out) as single
operators on the same stream, from models `kiln atc --singleop` compiled from a CANN-style
op_list.json. Its class must equal onnxruntime's argmax for each input, and its float16 scores
must be onnxruntime's float32 scores rounded to float16 (within the compiled model's float32
tolerance).

The inputs are scikit-image's sample photos (as in dvpp_classify_test.py) resized with Pillow and
normalised with ImageNet's mean and deviation, plus seeded noise. ResNet-50's weights are seeded
(scripts/gen_models.py). Exit 77 (skipped) without the .venv packages.

Usage: op_classify_test.py KILN_BINARY OP_CLASSIFY_BINARY PROJECT_ROOT WORK_DIR"""
import json
import os
import subprocess
import sys

VENV_PYTHON = os.path.join(os.path.dirname(__file__), "..", "..", ".venv", "bin", "python")
if os.path.exists(VENV_PYTHON) and os.path.realpath(sys.prefix) != os.path.realpath(
        os.path.join(os.path.dirname(VENV_PYTHON), "..")):
    os.execv(VENV_PYTHON, [VENV_PYTHON] + sys.argv)

try:
    import numpy as np
    import onnxruntime as ort
    from PIL import Image
    import sysconfig
except ImportError as e:
    print(f"SKIP: {e} (run scripts/setup.sh)")
    sys.exit(77)

PHOTOS = ["astronaut.png", "chelsea.png", "coffee.png", "rocket.jpg", "camera.png"]
MEAN = np.array([0.485, 0.456, 0.406], np.float32)
STD = np.array([0.229, 0.224, 0.225], np.float32)

# CANN's op_list.json for the two operators the program runs.
OP_LIST = [
    {"op": "Cast",
     "input_desc": [{"format": "ND", "shape": [1, 1000], "type": "float"}],
     "output_desc": [{"format": "ND", "shape": [1, 1000], "type": "float16"}],
     "attr": [{"name": "dst_type", "type": "int", "value": 1}]},
    {"op": "ArgMaxV2",
     "input_desc": [{"format": "ND", "shape": [1, 1000], "type": "float16"},
                    {"format": "ND", "shape": [], "type": "int32", "is_const": True,
                     "const_value": [1]}],
     "output_desc": [{"format": "ND", "shape": [1], "type": "int32"}],
     "attr": [{"name": "dtype", "type": "data_type", "value": "DT_INT32"}]},
]


def inputs(work):
    data = os.path.join(sysconfig.get_paths()["purelib"], "skimage", "data")
    arrays = {}
    if os.path.isdir(data):
        for name in PHOTOS:
            rgb = Image.open(os.path.join(data, name)).convert("RGB").resize((224, 224))
            x = (np.asarray(rgb, np.float32) / 255 - MEAN) / STD
            arrays[os.path.splitext(name)[0]] = x.transpose(2, 0, 1)[None].astype(np.float32)
    rng = np.random.default_rng(16)
    for i in range(3):
        arrays[f"noise{i}"] = rng.standard_normal((1, 3, 224, 224), np.float32)
    paths = {}
    for name, x in arrays.items():
        path = os.path.join(work, name + ".bin")
        x.tofile(path)
        paths[path] = x
    return paths


def main(kiln, app, root, work):
    os.makedirs(work, exist_ok=True)
    models = os.environ.get("KILN_MODELS_DIR", os.path.join(root, "build", "models"))
    onnx_path = os.path.join(models, "resnet50_v1.5.onnx")
    if not os.path.exists(onnx_path):
        subprocess.run([sys.executable, os.path.join(root, "scripts", "gen_models.py"), "--out",
                        models, "--only", "resnet50"], check=True)
    om = os.path.join(work, "resnet50")
    subprocess.run([kiln, "atc", "--framework=5", f"--model={onnx_path}", f"--output={om}",
                    "--soc_version=Ascend310P3", "--input_shape=input:1,3,224,224"],
                   check=True, stdout=subprocess.DEVNULL)
    op_json = os.path.join(work, "op_list.json")
    with open(op_json, "w") as f:
        json.dump(OP_LIST, f)
    op_dir = os.path.join(work, "op_models")
    subprocess.run([kiln, "atc", f"--singleop={op_json}", f"--output={op_dir}",
                    "--soc_version=Ascend310P3"], check=True, stdout=subprocess.DEVNULL)
    paths = inputs(work)
    scores_dir = os.path.join(work, "scores")
    os.makedirs(scores_dir, exist_ok=True)
    out = subprocess.run([app, "--scores", scores_dir, om + ".om", op_dir] + list(paths),
                         check=True, capture_output=True, text=True, timeout=600).stdout
    got = dict(line.rsplit(" class=", 1) for line in out.splitlines())
    session = ort.InferenceSession(onnx_path, providers=["CPUExecutionProvider"])
    failures = 0
    for path, x in paths.items():
        ref = session.run(None, {"input": x})[0][0]
        half = np.fromfile(os.path.join(scores_dir, os.path.basename(path) + ".scores"),
                           np.float16).astype(np.float32)
        want_class = int(np.argmax(ref.astype(np.float16)))
        err = float(np.max(np.abs(half - ref) / (np.abs(ref) * 2 ** -10 + 1e-3)))
        ok = int(got[path]) == want_class and err <= 2.0
        failures += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {os.path.basename(path):16s} class kiln {got[path]} "
              f"onnxruntime {want_class} (f32 {int(np.argmax(ref))}); float16 scores within "
              f"{err:.2f} half-ulps")
    print(f"{len(paths) - failures}/{len(paths)} inputs agree")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:5]))
