# Copyright 2026 The Kiln Authors
# SPDX-License-Identifier: Apache-2.0
"""kiln.InferenceSession against onnxruntime on public models tests/models also compares
(fp32 tolerance rtol 1e-3, atol 1e-4, docs/models.md): the same call, the same
inputs, each output element within tolerance. ResNet-class models take > 30 s: `slow`."""
import os
import sysconfig

import numpy as np
import pytest

import kiln
from conftest import MNIST, generated_model

ort = pytest.importorskip("onnxruntime")
LIGHT = os.path.join(sysconfig.get_paths()["purelib"], "onnx", "backend", "test", "data", "light")


def light(name):
    path = os.path.join(LIGHT, f"light_{name}.onnx")
    if not os.path.exists(path):
        pytest.skip(f"{path} missing (the pinned onnx wheel ships it)")
    return path


CASES = [
    pytest.param(lambda: os.path.join(MNIST, "model.onnx"), None, id="mnist-8"),
    pytest.param(lambda: light("squeezenet"), None, id="light_squeezenet"),
    pytest.param(lambda: light("shufflenet"), None, id="light_shufflenet"),
    pytest.param(lambda: generated_model("mobilenetv2"), {"input": [1, 3, 224, 224]},
                 id="mobilenetv2"),
    pytest.param(lambda: light("resnet50"), None, id="light_resnet50"),
    pytest.param(lambda: generated_model("resnet50_v1.5"), {"input": [1, 3, 224, 224]},
                 id="resnet50_v1.5"),
]


@pytest.mark.parametrize("model_fn,shape", CASES)
def test_session_matches_onnxruntime(model_fn, shape, tmp_path, monkeypatch):
    monkeypatch.setenv("KILN_CACHE_DIR", str(tmp_path))
    path = model_fn()
    ref = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    options = {"input_shape": shape} if shape else {}
    sess = kiln.InferenceSession(path, providers=["CPUExecutionProvider"],
                                 compile_options=options)
    assert [a.name for a in sess.get_inputs()] == [a.name for a in ref.get_inputs()]
    assert [a.name for a in sess.get_outputs()] == [a.name for a in ref.get_outputs()]
    rng = np.random.default_rng(3)
    feed = {}
    for arg in sess.get_inputs():
        assert arg.type == "tensor(float)"
        feed[arg.name] = rng.standard_normal(arg.shape).astype(np.float32)
    names = [a.name for a in ref.get_outputs()]
    expected = ref.run(names, feed)
    got = sess.run(names, feed)
    for name, e, g in zip(names, expected, got):
        assert g.shape == e.shape, name
        np.testing.assert_allclose(g, e, rtol=1e-3, atol=1e-4, err_msg=name)


@pytest.mark.parametrize("options", [
    pytest.param({"input_shape": "input:-1,3,224,224", "dynamic_batch_size": [1, 2]},
                 id="batch_gears"),
    pytest.param({"input_shape": "input:-1,3,224,224"}, id="fully_dynamic"),
])
def test_model_with_dynamic_batch_matches_onnxruntime(options):
    path = generated_model("mobilenetv2")
    ref = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    with kiln.Model(kiln.compile(path, **options)) as model:
        assert model.inputs[0].shape == (-1, 3, 224, 224)
        assert model.outputs[0].shape == (-1, 1000)
        rng = np.random.default_rng(5)
        for batch in (2, 1):
            x = rng.standard_normal((batch, 3, 224, 224)).astype(np.float32)
            (expected,) = ref.run(None, {"input": x})
            got = model.run({"input": x})["logits"]
            assert got.shape == (batch, 1000)
            np.testing.assert_allclose(got, expected, rtol=1e-3, atol=1e-4)
