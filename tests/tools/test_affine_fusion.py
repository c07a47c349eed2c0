# Copyright 2026 The Kiln Authors
# SPDX-License-Identifier: Apache-2.0
"""Scalar affine steps around convolutions (PP-LCNet's "learnable affine blocks", as in the
PP-OCRv4 detector): Conv -> BatchNormalization -> Mul(s) -> Add(b) -> HardSwish -> Mul(s2) ->
Add(b2) -> the next Conv. conv_bn_fold folds the steps before the activation into the weights,
post_affine_fusion makes those after it the FusedConv's post_scale / post_shift, so every block is
one FusedConv and the convolutions stay channels-last; the compiled model gives onnxruntime's
results (docs/atc.md, src/compiler/passes/README.md)."""
import numpy as np
import pytest
from kiln_cli import kiln, om_json, run_once

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

SHAPE = (1, 8, 20, 20)


def lab_model(path, residual):
    """Three blocks (3x3 depthwise, 1x1, 3x3 dense), each conv -> BN -> affine -> HardSwish ->
    affine; with `residual`, the last block's conv adds the first block's output before its
    activation (so the affine after it follows a residual FusedConv)."""
    rng = np.random.default_rng(3)
    inits, nodes = [], []

    def const(name, value):
        inits.append(numpy_helper.from_array(np.asarray(value, np.float32), name))
        return name

    def block(x, cin, cout, k, group, i, z=None):
        p = f"b{i}"
        w = rng.standard_normal((cout, cin // group, k, k)) / np.sqrt(cin // group * k * k)
        nodes.append(helper.make_node("Conv", [x, const(p + "w", w)], [p + "c"],
                                      pads=[k // 2] * 4, group=group))
        nodes.append(helper.make_node(
            "BatchNormalization",
            [p + "c", const(p + "g", rng.uniform(0.5, 1.5, cout)),
             const(p + "be", rng.normal(0, 0.1, cout)), const(p + "m", rng.normal(0, 0.1, cout)),
             const(p + "v", rng.uniform(0.5, 1.5, cout))], [p + "bn"]))
        nodes.append(helper.make_node("Mul", [p + "bn", const(p + "s1", [1.3])], [p + "m1"]))
        nodes.append(helper.make_node("Add", [p + "m1", const(p + "t1", [-0.2])], [p + "a1"]))
        pre = p + "a1"
        if z is not None:
            nodes.append(helper.make_node("Add", [pre, z], [p + "res"]))
            pre = p + "res"
        nodes.append(helper.make_node("HardSwish", [pre], [p + "hs"]))
        nodes.append(helper.make_node("Mul", [const(p + "s2", 0.7), p + "hs"], [p + "m2"]))
        nodes.append(helper.make_node("Add", [p + "m2", const(p + "t2", 0.05)], [p + "a2"]))
        return p + "a2"

    a = block("x", 8, 8, 3, 8, 0)
    b = block(a, 8, 16, 1, 1, 1)
    c = block(b, 16, 8, 3, 1, 2, z=a if residual else None)
    graph = helper.make_graph(nodes, "lab",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, SHAPE)],
                              [helper.make_tensor_value_info(c, TensorProto.FLOAT, None)], inits)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.save(m, str(path))


@pytest.mark.parametrize("residual", [False, True])
def test_affine_steps_fuse_into_the_convolutions_and_match_onnxruntime(tmp_path, residual):
    model = tmp_path / "lab.onnx"
    lab_model(model, residual)
    r = kiln("atc", "--framework=5", f"--model={model}", f"--output={tmp_path / 'lab'}",
             "--log=info")
    log = r.stdout + r.stderr
    assert log.count("post_affine_fusion: fused") == 6, log  # a Mul and an Add per block
    text = om_json(tmp_path / "lab.om")
    assert text.count('"FusedConv"') == 3, text[:3000]
    for op in ("Mul", "Add", "BatchNormalization", "HardSwish"):
        assert f'"op_type": "{op}"' not in text, (op, text[:3000])
    assert '"post_scale"' in text

    x = np.random.default_rng(4).standard_normal(SHAPE).astype(np.float32)
    got = run_once(tmp_path / "lab.om", x, tmp_path)
    (expected,) = ort.InferenceSession(str(model), providers=["CPUExecutionProvider"]).run(
        None, {"x": x})
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-4)
