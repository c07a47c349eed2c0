# Copyright 2026 The Kiln Authors
# SPDX-License-Identifier: Apache-2.0
"""The DVPP + AIPP classification through acl.media and acl.mdl (apps/dvpp_classify_pyacl.py, a
pyACL application written for CANN), with static and with dynamic AIPP, against the same
classification on the host: Pillow decode, OpenCV bilinear resize, numpy normalisation,
onnxruntime. The C++ program examples/dvpp_classify is held to the same oracle by
tests/models/dvpp_classify_test.py; the photos and the score metric are the same."""
import os
import subprocess
import sys
import sysconfig

import numpy as np
import pytest

from conftest import generated_model

Image = pytest.importorskip("PIL.Image")
cv2 = pytest.importorskip("cv2")
ort = pytest.importorskip("onnxruntime")

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
APP = os.path.join(os.path.dirname(__file__), "apps", "dvpp_classify_pyacl.py")
MEAN = np.array([124, 116, 104], np.float32)
VAR_RECI = np.array([1 / 58.395, 1 / 57.12, 1 / 57.375], np.float32)
PHOTOS = {"chelsea.png": 2, "coffee.png": 0, "rocket.jpg": 2, "camera.png": 2}  # subsampling


@pytest.fixture(scope="module")
def photos(tmp_path_factory):
    data = os.path.join(sysconfig.get_paths()["purelib"], "skimage", "data")
    if not os.path.isdir(data):
        pytest.skip("scikit-image's sample data is missing (scripts/setup.sh)")
    out = tmp_path_factory.mktemp("photos")
    paths = []
    for name, subsampling in PHOTOS.items():
        img = Image.open(os.path.join(data, name))
        img = img.convert("L" if img.mode in ("L", "I;16") else "RGB")
        path = str(out / (os.path.splitext(name)[0] + ".jpg"))
        img.save(path, quality=90, subsampling=subsampling)
        paths.append(path)
    return paths


@pytest.fixture(scope="module")
def resnet50():
    return generated_model("resnet50_v1.5")


def compile_with(onnx_path, out_dir, mode):
    kiln_bin = os.environ.get("KILN_BIN")
    if not kiln_bin:
        pytest.skip("KILN_BIN (the kiln command) is not set")
    out = os.path.join(out_dir, f"resnet50_{mode}")
    aipp = os.path.join(ROOT, "tests", "models", f"dvpp_classify_{mode}.aipp")
    subprocess.run([kiln_bin, "atc", "--framework=5", f"--model={onnx_path}", f"--output={out}",
                    "--input_shape=input:1,3,224,224", f"--insert_op_conf={aipp}"],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return out + ".om"


def host_scores(session, path):
    rgb = np.asarray(Image.open(path).convert("RGB"))
    x = cv2.resize(rgb, (224, 224), interpolation=cv2.INTER_LINEAR).astype(np.float32)
    x = ((x - MEAN) * VAR_RECI).transpose(2, 0, 1)[None]
    return session.run(None, {"input": x})[0][0]


@pytest.mark.parametrize("mode", ["static", "dynamic"])
def test_pyacl_dvpp_pipeline_classifies_like_the_host(tmp_path, photos, resnet50, mode):
    om = compile_with(resnet50, str(tmp_path), mode)
    args = [sys.executable, APP] + (["--dynamic-aipp"] if mode == "dynamic" else [])
    out = subprocess.run(args + [om, str(tmp_path)] + photos, check=True, capture_output=True,
                         text=True, timeout=600).stdout
    assert len(out.splitlines()) == len(photos), out
    session = ort.InferenceSession(resnet50, providers=["CPUExecutionProvider"])
    host = {p: host_scores(session, p) for p in photos}
    spread = float(np.mean([np.std(v) for v in host.values()]))

    def distance(a, b):
        return float(np.mean(np.abs(a - b)) / spread)

    # The seeded network gives most photos the same class; the scores tell the photos apart.
    nearest_other = min(distance(host[a], host[b]) for a in photos for b in photos if a != b)
    for p in photos:
        got = np.fromfile(os.path.join(tmp_path, os.path.basename(p) + ".scores"), np.float32)
        assert int(np.argmax(got)) == int(np.argmax(host[p])), p
        assert distance(got, host[p]) < nearest_other / 4, (p, distance(got, host[p]),
                                                            nearest_other)
