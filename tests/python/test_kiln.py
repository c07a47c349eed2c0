# Copyright 2026 The Kiln Authors
# SPDX-License-Identifier: Apache-2.0
"""The kiln package: compile, Model (sync, async, input checks), InferenceSession's cache and
KilnError's codes. Expected logits: the model zoo's mnist-8 reference outputs."""
import os

import numpy as np
import pytest

import kiln
from conftest import MNIST

ONNX = os.path.join(MNIST, "model.onnx")


@pytest.fixture(scope="module")
def om_bytes():
    return kiln.compile(ONNX)


def test_compile_returns_om_bytes_or_writes_a_path(om_bytes, tmp_path):
    assert om_bytes.startswith(b"KILNOM\r\n")
    with open(ONNX, "rb") as f:
        from_bytes = kiln.compile(f.read())
    assert from_bytes.startswith(b"KILNOM\r\n")
    path = kiln.compile(ONNX, str(tmp_path / "mnist"), input_shape={"Input3": [1, 1, 28, 28]})
    assert path == str(tmp_path / "mnist.om") and os.path.getsize(path) > 0


def test_compile_errors_carry_codes(tmp_path):
    with pytest.raises(kiln.KilnError) as e:
        kiln.compile(ONNX, no_such_option="1")
    assert e.value.code == 100000 and "no_such_option" in e.value.message
    with pytest.raises(kiln.KilnError) as e:
        kiln.compile(str(tmp_path / "missing.onnx"))
    assert e.value.code != 0 and "missing.onnx" in str(e.value)
    with pytest.raises(kiln.KilnError) as e:
        kiln.compile(ONNX, input_shape="Input3:1,1,28")  # wrong rank
    assert e.value.code != 0


def test_model_runs_named_inputs_and_outputs(om_bytes, mnist_data):
    model = kiln.Model(om_bytes)
    assert [t.name for t in model.inputs] == ["Input3"]
    assert model.inputs[0].shape == (1, 1, 28, 28) and model.inputs[0].dtype == np.float32
    assert [t.name for t in model.outputs] == ["Plus214_Output_0"]
    assert model.zero_copy  # the CPU device
    for image, expected in mnist_data:
        out = model.run({"Input3": image})
        np.testing.assert_allclose(out["Plus214_Output_0"], expected, rtol=1e-3, atol=1e-4)
        # A non-contiguous view of the same values gives the same result.
        wide = np.zeros((1, 1, 28, 56), np.float32)
        wide[..., ::2] = image
        out2 = model.run([wide[..., ::2]])
        np.testing.assert_array_equal(out2["Plus214_Output_0"], out["Plus214_Output_0"])
    model.close()


def test_model_async_on_a_stream(om_bytes, mnist_data):
    with kiln.Model(om_bytes) as model:
        pending = [model.run_async({"Input3": x}) for x, _ in mnist_data]
        for p, (_, expected) in zip(pending, mnist_data):
            np.testing.assert_allclose(p.wait()["Plus214_Output_0"], expected, rtol=1e-3,
                                       atol=1e-4)


def test_model_input_errors(om_bytes):
    with kiln.Model(om_bytes) as model:
        with pytest.raises(kiln.KilnError, match="float64"):
            model.run({"Input3": np.zeros((1, 1, 28, 28), np.float64)})
        with pytest.raises(kiln.KilnError, match="shape"):
            model.run({"Input3": np.zeros((1, 1, 28, 27), np.float32)})
        with pytest.raises(kiln.KilnError, match="unknown input"):
            model.run({"x": np.zeros((1, 1, 28, 28), np.float32)})


def test_model_load_failure_raises_with_code(tmp_path):
    with pytest.raises(kiln.KilnError) as e:
        kiln.Model(str(tmp_path / "missing.om"))
    assert e.value.code == 145002
    assert e.value.code_name == "ACL_ERROR_GE_EXEC_MODEL_PATH_INVALID"
    assert "missing.om" in e.value.message and e.value.api == "aclmdlLoadFromFile"
    onnx_as_om = tmp_path / "model.om"
    with open(ONNX, "rb") as f:
        onnx_as_om.write_bytes(f.read())
    with pytest.raises(kiln.KilnError) as e:
        kiln.Model(str(onnx_as_om))
    assert e.value.code == 145006 and "ONNX" in e.value.message


def test_session_compiles_once_into_the_cache(tmp_path, monkeypatch, mnist_data):
    monkeypatch.setenv("KILN_CACHE_DIR", str(tmp_path / "cache"))
    assert kiln.cache_dir() == str(tmp_path / "cache")
    sess = kiln.InferenceSession(ONNX, providers=["CPUExecutionProvider"])
    files = os.listdir(tmp_path / "cache")
    assert len(files) == 1 and files[0].endswith(".om")
    cached = tmp_path / "cache" / files[0]
    stamp = cached.stat().st_mtime_ns
    sess2 = kiln.InferenceSession(ONNX)
    assert os.listdir(tmp_path / "cache") == files and cached.stat().st_mtime_ns == stamp
    # Other options are another entry.
    kiln.InferenceSession(ONNX, compile_options={"input_shape": "Input3:1,1,28,28"})
    assert len(os.listdir(tmp_path / "cache")) == 2
    (arg,) = sess.get_inputs()
    assert (arg.name, arg.shape, arg.type) == ("Input3", [1, 1, 28, 28], "tensor(float)")
    assert sess.get_outputs()[0].shape == [1, 10]
    assert sess.get_providers() == ["CPUExecutionProvider"]
    image, expected = mnist_data[0]
    (logits,) = sess2.run(None, {"Input3": image})
    np.testing.assert_allclose(logits, expected, rtol=1e-3, atol=1e-4)
    assert sess2.run(["Plus214_Output_0"], {"Input3": image})[0].shape == (1, 10)


def test_session_accepts_an_om(om_bytes, tmp_path, mnist_data):
    path = tmp_path / "mnist.om"
    path.write_bytes(om_bytes)
    sess = kiln.InferenceSession(str(path))
    image, expected = mnist_data[2]
    np.testing.assert_allclose(sess.run(None, {"Input3": image})[0], expected, rtol=1e-3,
                               atol=1e-4)
    with pytest.raises(kiln.KilnError):
        kiln.InferenceSession(str(path), providers=["NoSuchExecutionProvider"])
