# Copyright 2026 The Kiln Authors
# SPDX-License-Identifier: Apache-2.0
"""attention_fusion and the CPU Attention kernel end to end against onnxruntime (the oracle):
small transformer attentions as exporters write them — BERT/ViT's head split and merge around
MatMul / Softmax / MatMul (with and without a padding mask), and 4-D Q, K, V with Kᵀ transposed,
scaled by a Div, a mask added first and one key/value head shared by every query head, and
BERT's three projections of one input, which qkv_packing makes one product and a
PackedQkvAttention — compiled by `kiln atc` (whose log must show the fusions) and run through
kiln.Model."""
import os
import subprocess

import numpy as np
import pytest

import kiln

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

B, S, H, D = 2, 10, 4, 8


def const(name, value, dtype):
    return numpy_helper.from_array(np.asarray(value, dtype), name)


def head_split_model(with_mask):
    """q, k, v [B, S, H*D] -> Reshape/Transpose -> MatMul * 1/sqrt(D) [+ mask] -> Softmax ->
    MatMul -> Transpose/Reshape -> y [B, S, H*D]."""
    f = TensorProto.FLOAT
    inputs = [helper.make_tensor_value_info(n, f, [B, S, H * D]) for n in "qkv"]
    inits = [const("shape4", [B, S, H, D], np.int64), const("shape3", [B, S, H * D], np.int64),
             const("scale", 1 / np.sqrt(D), np.float32)]
    nodes = []
    for n, perm in (("q", [0, 2, 1, 3]), ("k", [0, 2, 3, 1]), ("v", [0, 2, 1, 3])):
        nodes += [helper.make_node("Reshape", [n, "shape4"], [n + "4"]),
                  helper.make_node("Transpose", [n + "4"], [n + "t"], perm=perm)]
    nodes += [helper.make_node("MatMul", ["qt", "kt"], ["s"]),
              helper.make_node("Mul", ["s", "scale"], ["scaled"])]
    scores = "scaled"
    if with_mask:
        inputs.append(helper.make_tensor_value_info("mask", f, [B, 1, 1, S]))
        nodes.append(helper.make_node("Add", ["scaled", "mask"], ["masked"]))
        scores = "masked"
    nodes += [helper.make_node("Softmax", [scores], ["p"], axis=-1),
              helper.make_node("MatMul", ["p", "vt"], ["o"]),
              helper.make_node("Transpose", ["o"], ["ot"], perm=[0, 2, 1, 3]),
              helper.make_node("Reshape", ["ot", "shape3"], ["y"])]
    out = helper.make_tensor_value_info("y", f, [B, S, H * D])
    return helper.make_graph(nodes, "attention", inputs, [out], inits)


def four_d_model(kv_heads):
    """q [B, H, S, D], k [B, kv_heads, 7, D] transposed, v [B, kv_heads, 7, 5], mask
    [B, 1, S, 7]: Softmax(mask + MatMul(q, kᵀ) / sqrt(D), axis 3) · v."""
    f = TensorProto.FLOAT
    inputs = [helper.make_tensor_value_info("q", f, [B, H, S, D]),
              helper.make_tensor_value_info("k", f, [B, kv_heads, 7, D]),
              helper.make_tensor_value_info("v", f, [B, kv_heads, 7, 5]),
              helper.make_tensor_value_info("mask", f, [B, 1, S, 7])]
    nodes = [helper.make_node("Transpose", ["k"], ["kt"], perm=[0, 1, 3, 2]),
             helper.make_node("MatMul", ["q", "kt"], ["s"]),
             helper.make_node("Div", ["s", "root"], ["scaled"]),
             helper.make_node("Add", ["mask", "scaled"], ["masked"]),
             helper.make_node("Softmax", ["masked"], ["p"], axis=3),
             helper.make_node("MatMul", ["p", "v"], ["y"])]
    out = helper.make_tensor_value_info("y", f, [B, H, S, 5])
    return helper.make_graph(nodes, "attention", inputs, [out],
                             [const("root", np.sqrt(D), np.float32)])


def projected_model():
    """BERT's self-attention from its input: q, k, v = x · W + b (k without a bias), then
    head_split_model's attention with a padding mask — qkv_packing's case."""
    g = head_split_model(True)
    f = TensorProto.FLOAT
    rng = np.random.default_rng(3)
    x = helper.make_tensor_value_info("x", f, [B, S, H * D])
    nodes = []
    for n in "qkv":
        g.initializer.append(const("w" + n, rng.standard_normal((H * D, H * D)) / 6, np.float32))
        if n == "k":
            nodes.append(helper.make_node("MatMul", ["x", "wk"], ["k"]))
            continue
        g.initializer.append(const("b" + n, rng.standard_normal(H * D), np.float32))
        nodes += [helper.make_node("MatMul", ["x", "w" + n], [n + "_mm"]),
                  helper.make_node("Add", [n + "_mm", "b" + n], [n])]
    inputs = [x] + [i for i in g.input if i.name not in ("q", "k", "v")]
    return helper.make_graph(nodes + list(g.node), "attention", inputs, list(g.output),
                             list(g.initializer))


CASES = [
    pytest.param(lambda: projected_model(), id="bert_projections_packed"),
    pytest.param(lambda: head_split_model(False), id="vit_head_split"),
    pytest.param(lambda: head_split_model(True), id="bert_head_split_mask"),
    pytest.param(lambda: four_d_model(H), id="four_d_mask"),
    pytest.param(lambda: four_d_model(1), id="four_d_one_kv_head"),
]


def compile_and_run(kiln_bin, path, om, feed, *flags):
    """`kiln atc` of `path` into `om`.om with `flags`; its log and the model's output y."""
    atc = subprocess.run([kiln_bin, "atc", "--framework=5", f"--model={path}", f"--output={om}",
                          "--log=info", *flags], capture_output=True, text=True, check=True)
    with open(f"{om}.om", "rb") as f, kiln.Model(f.read()) as m:
        return atc.stdout + atc.stderr, m.run(feed)["y"]


def save_and_feed(graph, tmp_path):
    """The model saved as tmp_path/attention.onnx, and random inputs (the mask 0 or -10000)."""
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    path = str(tmp_path / "attention.onnx")
    onnx.save(model, path)
    rng = np.random.default_rng(7)
    feed = {}
    for inp in model.graph.input:
        dims = [d.dim_value for d in inp.type.tensor_type.shape.dim]
        x = rng.standard_normal(dims).astype(np.float32)
        if inp.name == "mask":  # a padding mask: 0 or -10000
            x = np.where(rng.random(dims) < 0.3, -10000.0, 0.0).astype(np.float32)
        feed[inp.name] = x
    (expected,) = ort.InferenceSession(path, providers=["CPUExecutionProvider"]).run(None, feed)
    return path, feed, expected


def kiln_cli():
    kiln_bin = os.environ.get("KILN_BIN")
    if not kiln_bin:
        pytest.skip("KILN_BIN (the kiln CLI) is not set")
    return kiln_bin


@pytest.mark.parametrize("graph_fn", CASES)
def test_fused_attention_matches_onnxruntime(graph_fn, tmp_path):
    kiln_bin = kiln_cli()
    path, feed, expected = save_and_feed(graph_fn(), tmp_path)
    log, got = compile_and_run(kiln_bin, path, tmp_path / "attention", feed)
    assert "attention_fusion: fused" in log
    assert "qkv_packing:" not in log, log  # a float32 model keeps its three projections
    assert got.shape == expected.shape
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-5)


def test_bf16_projections_are_packed_and_match_the_unpacked_model(tmp_path):
    """In a bf16 model qkv_packing makes the three projections one product and the attention a
    PackedQkvAttention: the output is the unpacked bf16 model's (the same bf16 products, in one
    call) and onnxruntime's float32 one within bf16's rounding."""
    kiln_bin = kiln_cli()
    path, feed, expected = save_and_feed(projected_model(), tmp_path)
    bf16 = "--precision_mode=allow_mix_precision_bf16"
    log, packed = compile_and_run(kiln_bin, path, tmp_path / "packed", feed, bf16)
    assert "qkv_packing: " in log and "into one product of 96 columns" in log, log
    switch = tmp_path / "switch.cfg"
    switch.write_text("qkv_packing:off\n")
    log, unpacked = compile_and_run(kiln_bin, path, tmp_path / "unpacked", feed, bf16,
                                    f"--fusion_switch_file={switch}")
    assert "qkv_packing:" not in log, log
    scale = float(np.abs(expected).max())
    np.testing.assert_allclose(packed, unpacked, rtol=0, atol=1e-4 * scale)
    np.testing.assert_allclose(packed, expected, rtol=0, atol=2e-2 * scale)
