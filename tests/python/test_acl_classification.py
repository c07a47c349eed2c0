# Copyright 2026 The Kiln Authors
# SPDX-License-Identifier: Apache-2.0
"""A pyACL classification application written for CANN (apps/classify_pyacl.py) runs unchanged
on models compiled by `kiln atc`: on mnist-8 its classes and logits are the model zoo's
reference outputs; on MobileNetV2 (seeded weights) they are onnxruntime's."""
import os
import subprocess
import sys

import numpy as np
import pytest

from conftest import compile_model, generated_model

APP = os.path.join(os.path.dirname(__file__), "apps", "classify_pyacl.py")


def run_app(om, inputs, tmp_path):
    files = []
    for i, x in enumerate(inputs):
        path = tmp_path / f"input_{i}.bin"
        path.write_bytes(np.ascontiguousarray(x, dtype=np.float32).tobytes())
        files.append(str(path))
    out = subprocess.run([sys.executable, APP, om, *files], check=True, capture_output=True,
                         text=True, timeout=300).stdout
    rows = []
    for line in out.splitlines():
        fields = dict(f.split("=", 1) for f in line.split()[1:])
        rows.append((int(fields["top1"]),
                     np.array([float(v) for v in fields["logits"].split(",")], np.float32)))
    assert len(rows) == len(inputs), out
    return rows


def test_pyacl_app_classifies_mnist_digits(mnist_om, mnist_data, tmp_path):
    rows = run_app(mnist_om, [x for x, _ in mnist_data], tmp_path)
    for (top1, logits), (_, expected) in zip(rows, mnist_data):
        assert top1 == int(np.argmax(expected))
        np.testing.assert_allclose(logits, expected.reshape(-1), rtol=1e-3, atol=1e-4)


def test_pyacl_app_matches_onnxruntime_on_mobilenetv2(tmp_path):
    ort = pytest.importorskip("onnxruntime")
    onnx_path = generated_model("mobilenetv2")
    om = compile_model(onnx_path, str(tmp_path), "mobilenetv2", "input:1,3,224,224")
    rng = np.random.default_rng(7)
    images = [rng.standard_normal((1, 3, 224, 224)).astype(np.float32) for _ in range(2)]
    sess = ort.InferenceSession(onnx_path, providers=["CPUExecutionProvider"])
    name = sess.get_inputs()[0].name
    rows = run_app(om, images, tmp_path)
    for (top1, logits), image in zip(rows, images):
        (expected,) = sess.run(None, {name: image})
        np.testing.assert_allclose(logits, expected.reshape(-1), rtol=1e-3, atol=1e-4)
        assert top1 == int(np.argmax(expected))
