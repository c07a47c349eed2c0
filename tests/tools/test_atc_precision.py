# Copyright 2026 The Kiln Authors
# SPDX-License-Identifier: Apache-2.0
"""ATC's precision modes (docs/atc.md "Precision"): the bf16 modes record `matrix_precision:
bf16` in the .om, store the activations passed between two convolutions as bf16, and make
convolutions, transposed convolutions and matrix products with constant weights compute in bf16
(f32 accumulation) where the CPU has bf16 arithmetic; the results stay within bf16's accuracy of
onnxruntime's f32 ones; the fp32 and fp16 modes keep f32 (the CPU has no fp16 matrix
arithmetic), while for a CUDA target the fp16 modes record fp16; an unknown mode is refused
naming the valid ones."""
import json
import os

import numpy as np
import pytest
from kiln_cli import kiln

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402



@pytest.fixture(scope="module")
def model(tmp_path_factory):
    """Conv 3->32 3x3, Relu, Conv 32->32 3x3, ConvTranspose 32->16 stride 2, Conv 16->32,
    GlobalAveragePool, Flatten, Gemm 32->24, MatMul by a constant [24,10]: seeded weights and
    input."""
    rng = np.random.default_rng(11)

    def init(name, *shape):
        return numpy_helper.from_array(
            (rng.standard_normal(shape) / np.sqrt(np.prod(shape[1:]))).astype(np.float32), name)
    inits = [init("w1", 32, 3, 3, 3), init("b1", 32), init("w1b", 32, 32, 3, 3),
             init("wt", 32, 16, 2, 2),
             init("w2", 32, 16, 3, 3), init("g", 24, 32), init("gb", 24), init("m", 24, 10)]
    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c1"], ["r1"]),
        helper.make_node("Conv", ["r1", "w1b"], ["c1b"], pads=[1, 1, 1, 1]),
        helper.make_node("ConvTranspose", ["c1b", "wt"], ["up"], strides=[2, 2]),
        helper.make_node("Conv", ["up", "w2"], ["c2"], pads=[1, 1, 1, 1]),
        helper.make_node("GlobalAveragePool", ["c2"], ["p"]),
        helper.make_node("Flatten", ["p"], ["f"]),
        helper.make_node("Gemm", ["f", "g", "gb"], ["h"], transB=1),
        helper.make_node("MatMul", ["h", "m"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes, "matrix_ops", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 24, 24])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 10])], inits)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    d = tmp_path_factory.mktemp("precision")
    path = d / "model.onnx"
    onnx.save(m, str(path))
    x = rng.standard_normal((1, 3, 24, 24)).astype(np.float32)
    np.save(d / "x.npy", x)
    (expected,) = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"]).run(
        None, {"x": x})
    return d, path, expected


def compile_and_run(d, path, name, *flags):
    kiln("atc", "--framework=5", f"--model={path}", f"--output={d / name}", *flags)
    out = d / f"out_{name}"
    kiln("bench", "--model", d / f"{name}.om", "--input", d / "x.npy", "--output", out,
         "--outfmt", "NPY", "--loop", 1)
    kiln("atc", "--mode=1", f"--om={d / name}.om", f"--json={d / name}.json")
    with open(d / f"{name}.json") as f:
        text = json.dumps(json.load(f))
    return np.load(out / "x_0.npy"), text


def test_bf16_modes_compute_in_bf16_within_its_accuracy(model):
    d, path, expected = model
    fp32, text = compile_and_run(d, path, "fp32")
    assert "matrix_precision" not in text and "kiln_y_bf16" not in text
    scale = float(np.max(np.abs(expected)))
    assert np.max(np.abs(fp32 - expected)) <= 1e-4 * scale
    for i, flag in enumerate(["--precision_mode=allow_fp32_to_bf16",
                              "--precision_mode=allow_mix_precision_bf16",
                              "--precision_mode_v2=mixed_bfloat16"]):
        got, text = compile_and_run(d, path, f"bf16_{i}", flag)
        assert '"matrix_precision": "bf16"' in text, text
        # The values kept NHWC are stored as bf16: the one between the first two convolutions
        # and the last convolution's output, which the global average pool (now a com.kiln
        # AveragePool of the whole 48x48) reads.
        assert text.count('"kiln_y_bf16"') == 2 and text.count('"kiln_x_bf16"') == 2, text
        assert '"GlobalAveragePool_0", "op_type": "AveragePool"' in text, text
        err = float(np.max(np.abs(got - expected)))
        # bf16 keeps 8 significant bits (relative rounding 2^-9) on inputs and weights of four
        # matrix layers, accumulating in f32.
        assert err <= 3e-2 * scale, (flag, err, scale)
        # bf16 storage on every CPU, and bf16 products where the CPU has bf16 arithmetic.
        assert np.max(np.abs(got - fp32)) > 1e-5 * scale, f"{flag}: the bf16 path did not run"


def test_fp32_and_fp16_modes_keep_fp32(model):
    d, path, _ = model
    fp32, _ = compile_and_run(d, path, "ref")
    for i, flag in enumerate(["--precision_mode=force_fp32", "--precision_mode=force_fp16",
                              "--precision_mode_v2=origin", "--precision_mode_v2=fp16"]):
        got, text = compile_and_run(d, path, f"keep_{i}", flag)
        assert "matrix_precision" not in text, flag
        np.testing.assert_array_equal(got, fp32)


def test_a_cuda_target_records_fp16_and_bf16_without_cpu_layouts(model):
    """For a GPU the fp16 modes record fp16 (tensor cores take it); the .om runs only on a CUDA
    device, so only what it records is checked here."""
    d, path, _ = model
    for i, (flag, want) in enumerate([("--precision_mode=force_fp16", "fp16"),
                                      ("--precision_mode_v2=mixed_float16", "fp16"),
                                      ("--precision_mode=cube_fp16in_fp32out", "fp16"),
                                      ("--precision_mode=allow_fp32_to_bf16", "bf16")]):
        name = f"gpu_{i}"
        kiln("atc", "--framework=5", f"--model={path}", f"--output={d / name}",
             "--soc_version=sm_90", flag)
        kiln("atc", "--mode=1", f"--om={d / name}.om", f"--json={d / name}.json")
        with open(d / f"{name}.json") as f:
            text = json.dumps(json.load(f))
        assert f'"matrix_precision": "{want}"' in text, (flag, text[:400])
        assert "kiln_y_bf16" not in text and "kiln_x_nhwc" not in text, flag


def test_an_unknown_precision_mode_is_refused_naming_the_valid_ones(model, tmp_path):
    _, path, _ = model
    r = kiln("atc", "--framework=5", f"--model={path}", f"--output={tmp_path / 'bad'}",
             "--precision_mode=allow_fp32_to_bf17", check=False)
    assert r.returncode != 0
    text = r.stdout + r.stderr
    assert "allow_fp32_to_bf17" in text and "allow_fp32_to_bf16" in text and "force_fp32" in text
    assert not os.path.exists(tmp_path / "bad.om")
