#!/usr/bin/env python3
# Copyright 2026 The Kiln Authors
# SPDX-License-Identifier: Apache-2.0
"""DVPP + AIPP end to end (issue 15): examples/dvpp_classify decodes real photos with
acldvppJpegDecodeAsync, resizes them with acldvppVpcResizeAsync to 224x224 YUV420SP and runs a
ResNet-50 compiled with a static AIPP config (and, second run, with dynamic AIPP set per
execute); its top-1 must equal the same classification done on the host: Pillow decode, OpenCV
bilinear resize, numpy normalisation, onnxruntime.

The photos are scikit-image's sample data (skimage/data in the pinned wheel of
scripts/requirements-models.txt: NASA and CC0 images), re-encoded here as JPEG (4:2:0, 4:4:4 and
grey) with Pillow, one cropped to an odd size. ResNet-50's weights are seeded, not trained
(scripts/gen_models.py), so its classes mean nothing; agreement of the class with the host's
shows both pipelines computed the same picture, and their scores must be far nearer each
other than those of any two different photos. Exit 77 (skipped) without the .venv packages.

Usage: dvpp_classify_test.py KILN_BINARY DVPP_CLASSIFY_BINARY PROJECT_ROOT WORK_DIR"""
import os
import subprocess
import sys

# CTest runs this with the system python3; the oracles live in the project's .venv.
VENV_PYTHON = os.path.join(os.path.dirname(__file__), "..", "..", ".venv", "bin", "python")
if os.path.exists(VENV_PYTHON) and os.path.realpath(sys.prefix) != os.path.realpath(
        os.path.join(os.path.dirname(VENV_PYTHON), "..")):
    os.execv(VENV_PYTHON, [VENV_PYTHON] + sys.argv)

try:
    import cv2
    import numpy as np
    import onnxruntime as ort
    from PIL import Image
    import sysconfig
except ImportError as e:
    print(f"SKIP: {e} (run scripts/setup.sh)")
    sys.exit(77)

MEAN = np.array([124, 116, 104], np.float32)
VAR_RECI = np.array([1 / 58.395, 1 / 57.12, 1 / 57.375], np.float32)
PHOTOS = ["astronaut.png", "chelsea.png", "coffee.png", "motorcycle_left.png", "rocket.jpg",
          "hubble_deep_field.jpg", "retina.jpg", "ihc.png", "camera.png"]


def photos(work):
    data = os.path.join(sysconfig.get_paths()["purelib"], "skimage", "data")
    if not os.path.isdir(data):
        print("SKIP: scikit-image's sample data is missing (run scripts/setup.sh)")
        sys.exit(77)
    out = []
    for i, name in enumerate(PHOTOS):
        img = Image.open(os.path.join(data, name))
        img = img.convert("L" if img.mode in ("L", "I;16") else "RGB")
        if name == "astronaut.png":
            img = img.crop((40, 30, 40 + 333, 30 + 251))  # odd width and height
        path = os.path.join(work, os.path.splitext(name)[0] + ".jpg")
        img.save(path, quality=90, subsampling=0 if i % 3 == 1 else 2)
        out.append(path)
    return out


def host_scores(session, path):
    rgb = np.asarray(Image.open(path).convert("RGB"))
    x = cv2.resize(rgb, (224, 224), interpolation=cv2.INTER_LINEAR).astype(np.float32)
    x = ((x - MEAN) * VAR_RECI).transpose(2, 0, 1)[None]
    return session.run(None, {"input": x})[0][0]


def run_app(app, om, images, dynamic, work):
    scores_dir = os.path.join(work, "dynamic" if dynamic else "static")
    os.makedirs(scores_dir, exist_ok=True)
    cmd = [app] + (["--dynamic-aipp"] if dynamic else []) + ["--scores", scores_dir, om] + images
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, timeout=600).stdout
    assert len(out.splitlines()) == len(images), out
    return {p: np.fromfile(os.path.join(scores_dir, os.path.basename(p) + ".scores"), np.float32)
            for p in images}


def distance(a, b, spread):
    """Mean absolute difference of two score vectors, in units of the host scores' spread."""
    return float(np.mean(np.abs(a - b)) / spread)


def main(kiln, app, root, work):
    os.makedirs(work, exist_ok=True)
    models = os.environ.get("KILN_MODELS_DIR", os.path.join(root, "build", "models"))
    onnx_path = os.path.join(models, "resnet50_v1.5.onnx")
    if not os.path.exists(onnx_path):
        subprocess.run([sys.executable, os.path.join(root, "scripts", "gen_models.py"), "--out",
                        models, "--only", "resnet50"], check=True)
    oms = {}
    for mode in ("static", "dynamic"):
        out = os.path.join(work, f"resnet50_{mode}")
        subprocess.run([kiln, "atc", "--framework=5", f"--model={onnx_path}", f"--output={out}",
                        "--soc_version=Ascend310P3", "--input_shape=input:1,3,224,224",
                        f"--insert_op_conf={os.path.join(root, 'tests', 'models', f'dvpp_classify_{mode}.aipp')}"],
                       check=True, stdout=subprocess.DEVNULL)
        oms[mode] = out + ".om"
    images = photos(work)
    session = ort.InferenceSession(onnx_path, providers=["CPUExecutionProvider"])
    host = {p: host_scores(session, p) for p in images}
    spread = float(np.mean([np.std(v) for v in host.values()]))
    # The seeded network answers every photo with nearly the same classes, so the top-1 alone
    # would not tell a right picture from a wrong one. The scores do: each photo's Kiln scores
    # must be much nearer its own host scores than the host scores of any other photo are.
    nearest_other = min(distance(host[a], host[b], spread) for a in images for b in images
                        if a != b)
    print(f"host scores: spread {spread:.4f}, nearest two photos {nearest_other:.3f} spreads apart")
    failures = 0
    for mode, om in oms.items():
        kiln = run_app(app, om, images, mode == "dynamic", work)
        for path in images:
            got, want = kiln[path], host[path]
            d = distance(got, want, spread)
            same = int(np.argmax(got)) == int(np.argmax(want))
            ok = same and d < nearest_other / 4
            failures += not ok
            print(f"{'ok  ' if ok else 'FAIL'} {mode:7s} {os.path.basename(path):24s} "
                  f"top-1 kiln {int(np.argmax(got))} host {int(np.argmax(want))}, "
                  f"scores {d:.4f} spreads from the host's")
    print(f"{2 * len(images) - failures}/{2 * len(images)} photos agree")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:5]))
