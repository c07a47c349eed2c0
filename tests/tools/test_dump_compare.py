# Copyright 2026 The Kiln Authors
# SPDX-License-Identifier: Apache-2.0
"""The data dump against onnxruntime, and `kiln compare` (docs/tools.md).

- A dump of mnist-8 and of YuNet with dump_mode output holds every node's output, each equal to
  the same tensor taken from onnxruntime (the oracle, run here with every node output exposed)
  within the model tests' tolerance (tests/models/tolerances.json); every ONNX node is either in
  the dump or constant-folded. (atol counts in units of each tensor's largest |value| when that
  exceeds 1, as `kiln compare` does: intermediate tensors reach the hundreds.)
- `kiln compare` of the intact model exits 0 and reports no divergence; against an .om compiled
  from a copy with one Conv's weights multiplied by -3 (made here with the onnx package) it exits
  1 and names that Conv as the first divergence, every tensor before it within tolerance.

Environment: KILN_BIN (the kiln program), PYTHONPATH with the build's acl/kiln packages.
"""
import json
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
from onnx import numpy_helper  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]
MODELS = ROOT / "tests" / "data" / "models"
MNIST = MODELS / "mnist-8" / "model.onnx"
YUNET = MODELS / "yunet" / "yunet_n_320_320.onnx"
TOL = json.loads((ROOT / "tests" / "models" / "tolerances.json").read_text())["default"]
KILN = os.environ.get("KILN_BIN")

pytestmark = pytest.mark.skipif(not KILN, reason="KILN_BIN is not set")


def compile_om(onnx_path, out_dir, name):
    subprocess.run([KILN, "atc", "--framework=5", f"--model={onnx_path}",
                    f"--output={out_dir / name}"], check=True, capture_output=True)
    return out_dir / f"{name}.om"


def model_input(name):
    if name == "mnist":
        t = onnx.TensorProto()
        t.ParseFromString((MNIST.parent / "test_data_set_0" / "input_0.pb").read_bytes())
        return MNIST, {"Input3": numpy_helper.to_array(t)}
    rng = np.random.default_rng(7)  # BGR 0..255, as the model tests feed YuNet
    return YUNET, {"input": (rng.random((1, 3, 320, 320)) * 255).astype(np.float32)}


def onnxruntime_all_outputs(model_path, feeds):
    """{tensor: value} of every node output, from onnxruntime with optimisations off."""
    m = onnx.load(str(model_path))
    have = {o.name for o in m.graph.output}
    for n in m.graph.node:
        for o in n.output:
            if o and o not in have:
                m.graph.output.append(onnx.ValueInfoProto(name=o))
                have.add(o)
    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    sess = ort.InferenceSession(m.SerializeToString(), so, providers=["CPUExecutionProvider"])
    names = [o.name for o in sess.get_outputs()]
    return dict(zip(names, sess.run(names, feeds)))


def dump_with_acl(om, feeds, dump_path):
    """Runs `om` once with aclmdlInitDump/SetDump(dump_mode output)/FinalizeDump; returns the
    execution folders written."""
    import acl
    import kiln

    assert acl.init() in (0, acl.ACL_ERROR_REPEAT_INITIALIZE)
    dump_path.mkdir()
    cfg = dump_path / "dump.json"
    cfg.write_text(json.dumps({"dump": {"dump_path": str(dump_path), "dump_mode": "output",
                                        "dump_list": [{"model_name": om.stem}]}}))
    assert acl.mdl.init_dump() == 0, acl.get_recent_err_msg()
    assert acl.mdl.set_dump(str(cfg)) == 0, acl.get_recent_err_msg()
    try:
        with kiln.Model(str(om)) as model:
            outputs = model.run(feeds)
    finally:
        assert acl.mdl.finalize_dump() == 0
    return sorted(p.parent for p in dump_path.rglob("index.json")), outputs


@pytest.mark.parametrize("name", ["mnist", "yunet"])
def test_dump_of_every_node_output_matches_onnxruntime(tmp_path, name):
    model_path, feeds = model_input(name)
    om = compile_om(model_path, tmp_path, name)
    execs, outputs = dump_with_acl(om, feeds, tmp_path / "dump")
    assert len(execs) == 1, execs
    index = json.loads((execs[0] / "index.json").read_text())
    assert index["model_name"] == name and index["dump_mode"] == "output"
    expected = onnxruntime_all_outputs(model_path, feeds)

    covered, compared = set(), 0
    for node in index["nodes"]:
        covered.update(node["onnx_nodes"])
        assert node["outputs"], node["node"]
        for out in node["outputs"]:
            tensor = out["tensor"]
            assert tensor in expected, f"{node['node']} wrote '{tensor}', not an ONNX tensor"
            got = np.load(execs[0] / out["file"])
            want = expected[tensor]
            assert got.dtype == want.dtype and out["dtype"] == str(want.dtype), tensor
            assert list(got.shape) == list(want.shape) == out["shape"], tensor
            # atol in units of the tensor's scale (docs/tools.md "kiln compare"): an element
            # that cancels to ~0 among values in the hundreds keeps their float32 rounding.
            scale = max(1.0, float(np.abs(want).max())) if want.size else 1.0
            np.testing.assert_allclose(got, want, rtol=TOL["rtol"], atol=TOL["atol"] * scale,
                                       err_msg=f"{name}: node {node['node']} tensor {tensor}")
            compared += 1
    # Every ONNX node is in the dump, unless all its inputs are constants (folded away).
    m = onnx.load(str(model_path))
    constant = {i.name for i in m.graph.initializer}
    for n in m.graph.node:
        if all(i in constant for i in n.input if i):
            constant.update(n.output)
        else:
            assert n.name in covered, f"ONNX node {n.name} ({n.op_type}) is not in the dump"
    assert compared >= (7 if name == "mnist" else 90)
    # The last dumped outputs are the model's outputs, as returned.
    for out_name, value in outputs.items():
        dumped = [o for nd in index["nodes"] for o in nd["outputs"] if o["tensor"] == out_name]
        assert dumped, out_name
        np.testing.assert_array_equal(np.load(execs[0] / dumped[-1]["file"]), value)


def test_dump_of_a_bf16_model_widens_its_bf16_storage(tmp_path):
    """In a bf16 model the values kept NHWC between convolutions are stored as bf16 (docs/atc.md
    "Precision"); the dump gives them as float32 N,C,H,W like every other tensor, within bf16's
    accuracy of onnxruntime's f32 values (read as float32 bytes they would be far off)."""
    model_path, feeds = model_input("yunet")
    subprocess.run([KILN, "atc", "--framework=5", f"--model={model_path}",
                    f"--output={tmp_path / 'yunet'}",
                    "--precision_mode=allow_mix_precision_bf16"], check=True, capture_output=True)
    om = tmp_path / "yunet.om"
    subprocess.run([KILN, "atc", "--mode=1", f"--om={om}", f"--json={tmp_path / 'om.json'}"],
                   check=True, capture_output=True)
    assert (tmp_path / "om.json").read_text().count("kiln_y_bf16") >= 10
    execs, _ = dump_with_acl(om, feeds, tmp_path / "dump")
    index = json.loads((execs[0] / "index.json").read_text())
    expected = onnxruntime_all_outputs(model_path, feeds)
    worst, compared = 0.0, 0
    for node in index["nodes"]:
        for out in node["outputs"]:
            got = np.load(execs[0] / out["file"])
            want = expected[out["tensor"]]
            assert got.dtype == np.float32 and got.shape == want.shape, out["tensor"]
            scale = max(1.0, float(np.abs(want).max())) if want.size else 1.0
            err = float(np.abs(got - want).max()) / scale if want.size else 0.0
            worst = max(worst, err)
            assert err <= 0.05, (node["node"], out["tensor"], err)
            compared += 1
    assert compared >= 90 and worst > 1e-4  # bf16 ran: not float32's accuracy


def test_dump_of_a_bf16_feed_forward_block_widens_its_bf16_hidden_value(tmp_path):
    """In a bf16 model the value between a transformer's two feed-forward products is stored as
    bf16 (src/compiler/passes/README.md "matmul_bf16_storage"); the dump gives it as float32 like
    every other tensor, within bf16's accuracy of onnxruntime's f32 value, and the block's output
    (the graph's, stored float32) too."""
    from onnx import TensorProto, helper

    rng = np.random.default_rng(5)
    weights = [numpy_helper.from_array((rng.standard_normal(shape) / np.sqrt(shape[0]))
                                       .astype(np.float32), name)
               for name, shape in [("w1", (32, 96)), ("b1", (96,)), ("w2", (96, 32)),
                                   ("b2", (32,))]]
    nodes = [helper.make_node("MatMul", ["x", "w1"], ["m1"]),
             helper.make_node("Add", ["m1", "b1"], ["a1"]),
             helper.make_node("Relu", ["a1"], ["hidden"]),
             helper.make_node("MatMul", ["hidden", "w2"], ["m2"]),
             helper.make_node("Add", ["m2", "b2"], ["y"])]
    graph = helper.make_graph(nodes, "ffn",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 16, 32])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 16, 32])],
                              weights)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    model_path = tmp_path / "ffn.onnx"
    onnx.save(model, str(model_path))
    subprocess.run([KILN, "atc", "--framework=5", f"--model={model_path}",
                    f"--output={tmp_path / 'ffn'}", "--precision_mode=allow_mix_precision_bf16"],
                   check=True, capture_output=True)
    om = tmp_path / "ffn.om"
    subprocess.run([KILN, "atc", "--mode=1", f"--om={om}", f"--json={tmp_path / 'om.json'}"],
                   check=True, capture_output=True)
    text = (tmp_path / "om.json").read_text()
    assert text.count('"kiln_y_bf16"') == 1 and text.count('"kiln_a_bf16"') == 1, text[:2000]
    feeds = {"x": rng.standard_normal((1, 16, 32)).astype(np.float32)}
    execs, _ = dump_with_acl(om, feeds, tmp_path / "dump")
    index = json.loads((execs[0] / "index.json").read_text())
    expected = onnxruntime_all_outputs(model_path, feeds)
    seen = set()
    for node in index["nodes"]:
        for out in node["outputs"]:
            got = np.load(execs[0] / out["file"])
            want = expected[out["tensor"]]
            assert got.dtype == np.float32 and got.shape == want.shape, out["tensor"]
            err = float(np.abs(got - want).max()) / float(np.abs(want).max())
            # bf16 keeps 8 significant bits (2^-9 relative rounding) of x, the weights and the
            # hidden value; read as float32 bytes the hidden value would be far off.
            assert 1e-5 < err <= 2e-2, (out["tensor"], err)
            seen.add(out["tensor"])
    assert seen == {"hidden", "y"}, seen


def test_dump_of_a_batch_two_model_gives_its_channel_blocks_in_nchw(tmp_path):
    """At batch 2 the values kept NHWC between convolutions are stored in blocks of 16 channels
    (src/compiler/passes/README.md "channels_last"); the dump gives them N,C,H,W like every other
    tensor, equal to onnxruntime's (read in their stored order they would be scrambled)."""
    from onnx import TensorProto, helper

    rng = np.random.default_rng(11)
    weights = [numpy_helper.from_array(rng.standard_normal(shape).astype(np.float32) * 0.2, name)
               for name, shape in [("w1", (32, 16, 3, 3)), ("w2", (32, 32, 1, 1)),
                                   ("w3", (16, 32, 3, 3))]]
    nodes = [helper.make_node("Conv", ["x", "w1"], ["c1"], pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c1"], ["r1"]),
             helper.make_node("Conv", ["r1", "w2"], ["c2"]),
             helper.make_node("MaxPool", ["c2"], ["p2"], kernel_shape=[2, 2], strides=[2, 2]),
             helper.make_node("Conv", ["p2", "w3"], ["y"], pads=[1, 1, 1, 1])]
    graph = helper.make_graph(nodes, "blocks",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 16, 8, 8])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 16, 4, 4])],
                              weights)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    model_path = tmp_path / "blocks.onnx"
    onnx.save(model, str(model_path))
    om = compile_om(model_path, tmp_path, "blocks")
    subprocess.run([KILN, "atc", "--mode=1", f"--om={om}", f"--json={tmp_path / 'om.json'}"],
                   check=True, capture_output=True)
    # Blocked: the outputs of the first two convolutions and of the pool.
    assert (tmp_path / "om.json").read_text().count('"kiln_y_cblock": 16') == 3
    feeds = {"x": rng.standard_normal((2, 16, 8, 8)).astype(np.float32)}
    execs, _ = dump_with_acl(om, feeds, tmp_path / "dump")
    index = json.loads((execs[0] / "index.json").read_text())
    expected = onnxruntime_all_outputs(model_path, feeds)
    compared = 0
    for node in index["nodes"]:
        for out in node["outputs"]:
            got = np.load(execs[0] / out["file"])
            np.testing.assert_allclose(got, expected[out["tensor"]], rtol=TOL["rtol"],
                                       atol=TOL["atol"], err_msg=out["tensor"])
            compared += 1
    assert compared == 4  # conv+relu (fused), conv, pool, conv


def kiln_compare(*args, cwd=None):
    env = dict(os.environ, KILN_PYTHON=sys.executable)
    return subprocess.run([KILN, "compare", *map(str, args)], capture_output=True, text=True,
                          env=env, cwd=cwd)


def broken_copy(model_path, weight, out):
    """A copy of the model with initializer `weight` multiplied by -3."""
    m = onnx.load(str(model_path))
    for i, t in enumerate(m.graph.initializer):
        if t.name == weight:
            w = numpy_helper.to_array(t) * np.float32(-3)
            m.graph.initializer[i].CopyFrom(numpy_helper.from_array(w, t.name))
            break
    else:
        raise AssertionError(f"no initializer {weight}")
    onnx.save(m, str(out))
    return out


@pytest.mark.parametrize("name", ["mnist", "yunet"])
def test_compare_of_the_intact_model_finds_no_divergence(tmp_path, name):
    model_path, feeds = model_input(name)
    np.save(tmp_path / "x.npy", next(iter(feeds.values())))
    report = tmp_path / "report.json"
    r = kiln_compare("--model", model_path, "--input", tmp_path / "x.npy", "--json", report,
                     "--atol", TOL["atol"], "--rtol", TOL["rtol"])
    assert r.returncode == 0, r.stdout + r.stderr
    assert "no divergence" in r.stdout
    rows = json.loads(report.read_text())["rows"]
    assert sum(row["status"] == "ok" for row in rows) >= (8 if name == "mnist" else 90)
    # Tensors without a Kiln counterpart are said to be fused or folded, not skipped.
    onnx_outputs = [o for n in onnx.load(str(model_path)).graph.node for o in n.output]
    assert [row["tensor"] for row in rows if row["onnx_node"] != "(graph input)"] == onnx_outputs
    for row in rows:
        assert row["status"] == "ok" or row["status"].startswith(("fused into", "folded")), row


# (model, the Conv, its weights): mnist-8's second Conv is fused with its bias Add and ReLU;
# YuNet's Conv_2 stays a node of its own.
BROKEN = [("mnist", "Convolution110", "Parameter87"),
          ("yunet", "Conv_2", "backbone.model0.conv2.conv1.weight")]


@pytest.mark.parametrize("name,conv,weight", BROKEN)
def test_compare_names_the_conv_whose_weights_were_broken(tmp_path, name, conv, weight):
    model_path, feeds = model_input(name)
    broken = broken_copy(model_path, weight, tmp_path / f"{name}_broken.onnx")
    om = compile_om(broken, tmp_path, f"{name}_broken")
    np.save(tmp_path / "x.npy", next(iter(feeds.values())))
    report = tmp_path / "report.json"
    r = kiln_compare("--model", model_path, "--om", om, "--input", tmp_path / "x.npy",
                     "--json", report)
    assert r.returncode == 1, r.stdout + r.stderr
    first = json.loads(report.read_text())["first_divergence"]
    assert first is not None
    assert conv in first["kiln_onnx_nodes"], first
    last_line = r.stdout.strip().splitlines()[-1]
    assert last_line.startswith("first divergence") and conv in last_line, last_line
    # Everything computed before the broken Conv agrees.
    rows = json.loads(report.read_text())["rows"]
    before = rows[:rows.index(first)]
    assert all(row["status"] != "DIVERGES" for row in before)
    # The same broken model against itself agrees again: the divergence is the weight's.
    r = kiln_compare("--model", broken, "--om", om, "--input", tmp_path / "x.npy")
    assert r.returncode == 0, r.stdout + r.stderr


def test_compare_refuses_bad_arguments_clearly(tmp_path):
    r = kiln_compare("--model", tmp_path / "none.onnx")
    assert r.returncode != 0 and "none.onnx" in r.stdout + r.stderr
    np.save(tmp_path / "a.npy", np.zeros((1, 1, 28, 28), np.float32))
    r = kiln_compare("--model", MNIST, "--input", f"{tmp_path / 'a.npy'},{tmp_path / 'a.npy'}")
    assert r.returncode == 2
    assert "2 file(s)" in r.stderr and "Input3" in r.stderr
    (tmp_path / "bad.npy").write_text("not numpy")
    r = kiln_compare("--model", MNIST, "--input", tmp_path / "bad.npy")
    assert r.returncode == 2 and "bad.npy" in r.stderr


def loop_model(path):
    """y = Loop 3 times (y = y * 2 + x) from r = Relu(x): a body whose nodes run three times."""
    from onnx import TensorProto as T
    from onnx import helper as h
    body = h.make_graph(
        [h.make_node("Mul", ["y_in", "two"], ["m"], name="body_mul"),
         h.make_node("Add", ["m", "x"], ["y_out"], name="body_add"),
         h.make_node("Identity", ["cond_in"], ["cond_out"], name="body_cond")],
        "loop_body",
        [h.make_tensor_value_info("i", T.INT64, []),
         h.make_tensor_value_info("cond_in", T.BOOL, []),
         h.make_tensor_value_info("y_in", T.FLOAT, [2])],
        [h.make_tensor_value_info("cond_out", T.BOOL, []),
         h.make_tensor_value_info("y_out", T.FLOAT, [2])],
        [h.make_tensor("two", T.FLOAT, [1], [2.0])])
    g = h.make_graph(
        [h.make_node("Relu", ["x"], ["r"], name="pre"),
         h.make_node("Loop", ["trip", "cond", "r"], ["y"], name="the_loop", body=body)],
        "loopm", [h.make_tensor_value_info("x", T.FLOAT, [2])],
        [h.make_tensor_value_info("y", T.FLOAT, [2])],
        [h.make_tensor("trip", T.INT64, [], [3]), h.make_tensor("cond", T.BOOL, [], [True])])
    onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 13)]), str(path))
    return path


def test_dump_of_a_loop_body_has_each_iteration(tmp_path):
    model = loop_model(tmp_path / "loopm.onnx")
    om = compile_om(model, tmp_path, "loopm")
    x = np.array([1.5, -2.0], np.float32)
    execs, outputs = dump_with_acl(om, {"x": x}, tmp_path / "dump")
    assert len(execs) == 1
    index = json.loads((execs[0] / "index.json").read_text())
    body_add = [n for n in index["nodes"] if n["node"] == "body_add"]
    assert [n["graph"] for n in body_add] == ["loop_body"] * 3
    # Worked by hand: y0 = relu(x), y_{k+1} = 2 y_k + x.
    y = np.maximum(x, 0)
    for n in body_add:
        y = 2 * y + x
        np.testing.assert_array_equal(np.load(execs[0] / n["outputs"][0]["file"]), y)
    assert [n["outputs"][0]["file"] for n in body_add] == [
        "loop_body.body_add.output.0.npy", "loop_body.body_add.1.output.0.npy",
        "loop_body.body_add.2.output.0.npy"]
    np.testing.assert_array_equal(outputs["y"], y)
    # kiln compare keeps to the main graph's tensors.
    np.save(tmp_path / "x.npy", x)
    r = kiln_compare("--model", model, "--om", om, "--input", tmp_path / "x.npy")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "3 tensors compared" in r.stdout


def softmax_chain(path, names):
    """x -> Softmax -> Softmax -> Softmax, the nodes named `names` (ASCII placeholders of the
    same length may be patched to other bytes in the file afterwards)."""
    from onnx import TensorProto as T
    from onnx import helper as h
    nodes = []
    prev = "x"
    for k, name in enumerate(names):
        nodes.append(h.make_node("Softmax", [prev], [f"s{k}"], name=name, axis=-1))
        prev = f"s{k}"
    g = h.make_graph(nodes, "chain", [h.make_tensor_value_info("x", T.FLOAT, [1, 4])],
                     [h.make_tensor_value_info(prev, T.FLOAT, [1, 4])])
    onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 13)]), str(path))
    return path


def np_softmax(v):
    e = np.exp(v - v.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def test_dump_files_of_nodes_whose_names_collide_stay_apart(tmp_path):
    # Two nodes named "n" and one named "n.1": the second "n" is numbered, and the real "n.1"
    # must not overwrite its file. Each file holds its own node's output (numpy's softmax).
    model = softmax_chain(tmp_path / "chain.onnx", ["n", "n", "n.1"])
    om = compile_om(model, tmp_path, "chain")
    x = np.array([[0.5, -1.0, 2.0, 0.0]], np.float32)
    execs, _ = dump_with_acl(om, {"x": x}, tmp_path / "dump")
    index = json.loads((execs[0] / "index.json").read_text())
    files = [n["outputs"][0]["file"] for n in index["nodes"]]
    assert len(files) == 3 and len(set(files)) == 3, files
    want = x
    for f in files:
        want = np_softmax(want)
        np.testing.assert_allclose(np.load(execs[0] / f), want, rtol=1e-5, atol=1e-6)


def test_dump_takes_node_names_that_are_not_utf8(tmp_path):
    # ONNX strings are not checked for UTF-8 (proto2): a Latin-1 node name must neither fail the
    # execution nor the index (the name is written with U+FFFD in its place).
    path = softmax_chain(tmp_path / "latin1.onnx", ["smX", "ok"])
    data = path.read_bytes()
    assert data.count(b"smX") == 1
    path.write_bytes(data.replace(b"smX", b"sm\xe9"))
    om = compile_om(path, tmp_path, "latin1")
    x = np.array([[1.0, 2.0, 3.0, 4.0]], np.float32)
    execs, outputs = dump_with_acl(om, {"x": x}, tmp_path / "dump")
    np.testing.assert_allclose(list(outputs.values())[0], np_softmax(np_softmax(x)), rtol=1e-5)
    index = json.loads((execs[0] / "index.json").read_text())
    assert [n["node"] for n in index["nodes"]] == ["sm\ufffd", "ok"]


def test_set_dump_refuses_what_is_not_a_small_regular_file(tmp_path):
    # /dev/zero would read until memory ran out; a folder cannot be read at all.
    import acl
    assert acl.init() in (0, acl.ACL_ERROR_REPEAT_INITIALIZE)
    assert acl.mdl.init_dump() == 0
    try:
        for path in ("/dev/zero", str(tmp_path)):
            assert acl.mdl.set_dump(path) == 100003, path  # ACL_ERROR_INVALID_FILE
            assert "not a regular file" in acl.get_recent_err_msg()
    finally:
        assert acl.mdl.finalize_dump() == 0


def test_compare_passes_small_tolerances_on_unchanged(tmp_path):
    # kiln compare hands its tolerances to the comparison as text: 2.5e-7 must stay 2.5e-7
    # (printf's %f would make it 0).
    model_path, feeds = model_input("mnist")
    np.save(tmp_path / "x.npy", next(iter(feeds.values())))
    report = tmp_path / "report.json"
    r = kiln_compare("--model", model_path, "--input", tmp_path / "x.npy", "--json", report,
                     "--atol", "2.5e-7", "--rtol", "1e-08")
    assert r.returncode in (0, 1), r.stdout + r.stderr
    got = json.loads(report.read_text())
    assert (got["atol"], got["rtol"]) == (2.5e-7, 1e-8)
