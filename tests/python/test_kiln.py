# Copyright 2026 The Kiln Authors
# SPDX-License-Identifier: Apache-2.0
"""The kiln package: compile, Model (sync, async, input checks, outputs of unknown size),
InferenceSession's cache and KilnError's codes. Expected logits: the model zoo's mnist-8
reference outputs; Tile's: numpy.tile."""
import os

import numpy as np
import pytest

import acl
import kiln
import kiln.model
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


# ---- outputs of unknown size -------------------------------------------------------------------

@pytest.fixture(scope="module")
def tile_om():
    """y = Tile(x[2, 3], reps): the output's dims come from an input's values, so no AscendCL call
    can tell its size before a run (the description gives 0 bytes)."""
    pytest.importorskip("onnx")
    from onnx import TensorProto, helper

    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
    reps = helper.make_tensor_value_info("reps", TensorProto.INT64, [2])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    graph = helper.make_graph([helper.make_node("Tile", ["x", "reps"], ["y"])], "tile", [x, reps],
                              [y])
    return kiln.compile(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]))


X = np.arange(6, dtype=np.float32).reshape(2, 3)


def counting_execute(monkeypatch, fake=None):
    """Counts acl.mdl.execute calls (kiln.Model.run's runs); `fake` replaces the real call."""
    calls = []
    real = acl.mdl.execute

    def execute(*args):
        calls.append(args)
        return fake(*args) if fake else real(*args)

    monkeypatch.setattr(acl.mdl, "execute", execute)
    return calls


def runs_to_fit(nbytes):
    """Runs kiln.Model.run needs for an output of `nbytes` from its first guess."""
    runs, size = 1, kiln.model.FIRST_GUESS
    while size < nbytes:
        size *= kiln.model.GROWTH
        runs += 1
    return runs


def test_model_grows_the_buffer_of_an_output_of_unknown_size(tile_om, monkeypatch):
    model = kiln.Model(tile_om)
    (y,) = model.outputs
    assert y.shape == (-1, -1) and y.size == 0
    calls = counting_execute(monkeypatch)
    reps = np.array([200, 300], np.int64)  # 400 x 900 floats: 1.44 MB, above the first guess
    out = model.run({"x": X, "reps": reps})["y"]
    np.testing.assert_array_equal(out, np.tile(X, (200, 300)))  # numpy's Tile is the oracle
    assert len(calls) == runs_to_fit(400 * 900 * 4) > 1
    # The size is remembered: the same run, or a smaller one, fits the first time.
    del calls[:]
    np.testing.assert_array_equal(model.run({"x": X, "reps": reps})["y"], out)
    out = model.run([X, np.array([1, 2], np.int64)])["y"]
    np.testing.assert_array_equal(out, np.tile(X, (1, 2)))
    assert len(calls) == 2
    model.close()


def test_growth_stops_at_the_devices_free_memory(tile_om, monkeypatch):
    monkeypatch.setattr(kiln.model, "_memory_cap", lambda: 1 << 20)
    calls = counting_execute(monkeypatch)
    with kiln.Model(tile_om) as model:
        with pytest.raises(kiln.KilnError) as e:
            model.run({"x": X, "reps": np.array([200, 300], np.int64)})
    assert e.value.code == acl.ACL_ERROR_INVALID_PARAM and e.value.api == "aclmdlExecute"
    assert "given up to 1048576 bytes" in e.value.message
    assert len(calls) == runs_to_fit(1 << 20)  # 64 KiB, 512 KiB, then the 1 MiB cap


def test_a_failure_that_larger_buffers_do_not_change_is_raised_after_one_retry(tile_om,
                                                                               monkeypatch):
    with kiln.Model(tile_om) as model:
        calls = counting_execute(monkeypatch, fake=lambda *a: acl.ACL_ERROR_INVALID_PARAM)
        with pytest.raises(kiln.KilnError) as e:
            model.run({"x": X, "reps": np.array([2, 2], np.int64)})
    assert e.value.code == acl.ACL_ERROR_INVALID_PARAM
    assert len(calls) == 2  # the same code and message with 8x the buffer: not about its size


def test_other_failures_are_not_retried(tile_om, monkeypatch):
    with kiln.Model(tile_om) as model:
        calls = counting_execute(monkeypatch)
        with pytest.raises(kiln.KilnError) as e:
            model.run({"x": X, "reps": np.array([-1, 2], np.int64)})  # bad repeats
    assert e.value.code != acl.ACL_ERROR_INVALID_PARAM and "Tile" in e.value.message
    assert len(calls) == 1


def test_run_async_with_an_output_larger_than_its_guess(tile_om):
    with kiln.Model(tile_om) as model:
        pending = model.run_async({"x": X, "reps": np.array([300, 300], np.int64)})
        np.testing.assert_array_equal(pending.wait()["y"], np.tile(X, (300, 300)))
        pending = model.run_async({"x": X, "reps": np.array([3, 1], np.int64)})
        np.testing.assert_array_equal(pending.wait()["y"], np.tile(X, (3, 1)))
