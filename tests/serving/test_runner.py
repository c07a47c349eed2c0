# Copyright 2026 The Kiln Authors
# SPDX-License-Identifier: Apache-2.0
"""kiln.serve's parts without a server: `import kiln` needs neither Ray nor KServe; ModelRunner's
batch modes (one execution for a dynamic batch, gears with padding, a loop) checked against
onnxruntime; request validation; the base64 wire format; ServeError through pickle."""
import os
import pickle
import subprocess
import sys

import numpy as np
import pytest

from conftest import ATOL, RTOL, image_inputs, mnist_inputs, oracle

import kiln.serve  # noqa: E402
from kiln.serve import ModelRunner, ServeError, decode_inputs, encode_outputs


def test_import_kiln_needs_neither_ray_nor_kserve():
    code = ("import sys, kiln, kiln.serve, kiln.kserve_model; "
            "print(sorted(m for m in ('ray', 'kserve', 'starlette') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                         text=True, env=os.environ).stdout
    assert out.strip() == "[]"


def run_all(runner, arrays):
    results = runner.run([runner.prepare(a) for a in arrays])
    bad = [r for r in results if isinstance(r, ServeError)]
    assert not bad, bad
    return results


def test_dynamic_batch_is_one_execution(mobilenetv2):
    runner = ModelRunner(mobilenetv2)
    assert runner.mode == "dynamic"
    images = image_inputs(5, seed=9)
    arrays = [images[0], images[1][None], np.stack(images[2:5])]  # 1 (no batch dim), 1, 3 rows
    out = run_all(runner, arrays)
    want = oracle(mobilenetv2, [np.stack(images)])[0]
    assert out[0]["logits"].shape == (1000,) and out[1]["logits"].shape == (1, 1000)
    got = np.concatenate([out[0]["logits"][None], out[1]["logits"], out[2]["logits"]])
    np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL)
    stats = runner.stats()
    assert stats["model_runs"] == 1 and stats["samples"] == 5 and stats["batch_sizes"] == {"3": 1}


def test_gears_cut_and_pad(mobilenetv2):
    runner = ModelRunner(mobilenetv2, compile_options={
        "input_shape": "input:-1,3,224,224", "dynamic_batch_size": [2, 4]})
    assert runner.mode == "gears" and runner.gears == [2, 4]
    assert runner.plan(7) == [(4, 4), (2, 2), (1, 2)]  # the last row padded to a gear of 2
    assert runner.plan(1) == [(1, 2)] and runner.plan(8) == [(4, 4), (4, 4)]
    images = image_inputs(7, seed=10)
    out = run_all(runner, [x[None] for x in images])
    want = oracle(mobilenetv2, [np.stack(images)])[0]
    np.testing.assert_allclose(np.concatenate([o["logits"] for o in out]), want, rtol=RTOL,
                               atol=ATOL)
    assert runner.stats()["model_runs"] == 3


def test_batch_of_one_model_loops_and_validates(mnist_onnx):
    runner = ModelRunner(mnist_onnx)
    assert (runner.mode, runner.gears) == ("gears", [1])
    images = mnist_inputs(4)
    out = run_all(runner, [images[0], images[1][0], images[2].tolist(), np.concatenate(images)])
    want = oracle(mnist_onnx, images)
    np.testing.assert_allclose(out[0]["Plus214_Output_0"], want[0], rtol=RTOL, atol=ATOL)
    np.testing.assert_allclose(out[1]["Plus214_Output_0"], want[1][0], rtol=RTOL, atol=ATOL)
    np.testing.assert_allclose(out[2]["Plus214_Output_0"], want[2], rtol=RTOL, atol=ATOL)
    np.testing.assert_allclose(out[3]["Plus214_Output_0"], np.concatenate(want), rtol=RTOL,
                               atol=ATOL)
    assert runner.stats()["model_runs"] == 7
    for bad, words in [({"Input3": np.zeros((1, 1, 28, 28), np.float64)}, "float64"),
                       ({"Input3": np.zeros((1, 1, 27, 28), np.float32)}, "shape"),
                       ({"Input3": np.zeros((0, 1, 28, 28), np.float32)}, "shape"),
                       ({"x": [1]}, "unknown input"), ({}, "missing input"),
                       ({"Input3": [[1, 2], [3]]}, "cannot be read")]:
        with pytest.raises(ServeError, match=words) as e:
            runner.prepare(bad)
        assert e.value.status == 400 and e.value.code == 100000
    loop = ModelRunner(mnist_onnx, batch_mode="loop")
    assert loop.mode == "loop"
    with pytest.raises(ServeError, match="shape"):  # no batch dim to add in a loop
        loop.prepare(images[0][0])


def test_wire_format_and_errors_pickle():
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    body = {"inputs": encode_outputs({"a": x}, "b64")["outputs"]}
    payload, encoding = decode_inputs(body)
    assert encoding == "b64" and np.array_equal(payload["a"], x)
    payload, encoding = decode_inputs({"inputs": {"a": x.tolist()}})
    assert encoding == "json" and payload["a"] == x.tolist()
    assert encode_outputs({"a": x})["outputs"]["a"] == x.tolist()
    for body in ({"x": 1}, [1], {"inputs": {"a": {"b64": "!!", "dtype": "float32",
                                                  "shape": [1]}}}):
        with pytest.raises(ServeError) as e:
            decode_inputs(body)
        assert e.value.status == 400
    err = ServeError.wrap(kiln.KilnError(507011, "the run failed", "aclmdlExecute"))
    back = pickle.loads(pickle.dumps(err))
    assert (back.status, back.code, back.api) == (500, 507011, "aclmdlExecute")
    assert "the run failed" in back.message
