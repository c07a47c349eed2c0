# Copyright 2026 The Kiln Authors
# SPDX-License-Identifier: Apache-2.0
"""Weights that kernels keep packed copies of are held once (docs/capi.md "Models", "Weights held once").

A chain of eight 1x1 convolutions of 1024 channels (4 MiB of weights each, 32 MiB in all),
made here with the onnx package:
- `kiln bench`'s peak RSS exceeds that of the same chain with 64 channels (16 KiB each) by less
  than 1.5x the 32 MiB: the `.om`'s copy of each convolution's weights is given back once its
  kernel has packed them (holding both took 2x);
- the results equal onnxruntime's;
- a dump with dump_mode input holds each convolution's weights equal to the ONNX initializers
  bit for bit: they are written back from the packed copies before the dump reads them.

Environment: KILN_BIN (the kiln program), PYTHONPATH with the build's acl/kiln packages.
"""
import json
import os
import re
import subprocess

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

KILN = os.environ.get("KILN_BIN")
pytestmark = pytest.mark.skipif(not KILN, reason="KILN_BIN is not set")
LAYERS = 8


def conv_chain(path, channels, seed=3):
    rng = np.random.default_rng(seed)
    nodes, inits, prev = [], [], "x"
    for i in range(LAYERS):
        w = (rng.standard_normal((channels, channels, 1, 1)) / np.sqrt(channels)).astype(np.float32)
        inits.append(numpy_helper.from_array(w, f"w{i}"))
        nodes.append(helper.make_node("Conv", [prev, f"w{i}"], [f"c{i}"], name=f"conv{i}"))
        nodes.append(helper.make_node("Relu", [f"c{i}"], [f"y{i}"], name=f"relu{i}"))
        prev = f"y{i}"
    graph = helper.make_graph(
        nodes, "chain", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, channels, 4, 4])],
        [helper.make_tensor_value_info(prev, TensorProto.FLOAT, [1, channels, 4, 4])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.save(model, str(path))
    return model


def compile_om(onnx_path, out_dir, name):
    subprocess.run([KILN, "atc", "--framework=5", f"--model={onnx_path}",
                    f"--output={out_dir / name}"], check=True, capture_output=True)
    return out_dir / f"{name}.om"


def peak_rss_mib(om):
    run = subprocess.run([KILN, "bench", f"--model={om}", "--loop=1"], capture_output=True,
                         text=True, check=True)
    m = re.search(r"peak RSS: ([0-9.]+) MiB", run.stdout + run.stderr)
    assert m, run.stdout + run.stderr
    return float(m.group(1))


def test_weights_packed_by_their_kernels_are_held_once(tmp_path):
    conv_chain(tmp_path / "big.onnx", 1024)
    conv_chain(tmp_path / "small.onnx", 64)
    big = compile_om(tmp_path / "big.onnx", tmp_path, "big")
    small = compile_om(tmp_path / "small.onnx", tmp_path, "small")
    weights_mib = LAYERS * 1024 * 1024 * 4 / 2**20
    extra = peak_rss_mib(big) - peak_rss_mib(small)
    assert extra < 1.5 * weights_mib, (
        f"peak RSS {extra:.1f} MiB above the small chain's for {weights_mib:.0f} MiB of weights")


def test_released_weights_compute_and_dump_as_the_originals(tmp_path):
    import acl
    import kiln

    model = conv_chain(tmp_path / "big.onnx", 1024)
    om = compile_om(tmp_path / "big.onnx", tmp_path, "big")
    x = np.random.default_rng(5).standard_normal((1, 1024, 4, 4)).astype(np.float32)
    want = ort.InferenceSession(model.SerializeToString(),
                                providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]

    assert acl.init() in (0, acl.ACL_ERROR_REPEAT_INITIALIZE)
    dump = tmp_path / "dump"
    dump.mkdir()
    cfg = dump / "dump.json"
    cfg.write_text(json.dumps({"dump": {"dump_path": str(dump), "dump_mode": "input",
                                        "dump_list": [{"model_name": om.stem}]}}))
    with kiln.Model(str(om)) as m:
        (got,) = m.run({"x": x}).values()  # before the dump: on the packed copies alone
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
        assert acl.mdl.init_dump() == 0, acl.get_recent_err_msg()
        assert acl.mdl.set_dump(str(cfg)) == 0, acl.get_recent_err_msg()
        try:
            (dumped_run,) = m.run({"x": x}).values()
        finally:
            assert acl.mdl.finalize_dump() == 0
        np.testing.assert_array_equal(dumped_run, got)
    (index_path,) = dump.rglob("index.json")
    index = json.loads(index_path.read_text())
    inits = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    seen = set()
    for node in index["nodes"]:
        for inp in node["inputs"]:
            if inp["tensor"] in inits:
                got_w = np.load(index_path.parent / inp["file"])
                np.testing.assert_array_equal(got_w, inits[inp["tensor"]], err_msg=inp["tensor"])
                seen.add(inp["tensor"])
    assert seen == set(inits), f"weights dumped: {sorted(seen)}"
