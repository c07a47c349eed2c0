# Copyright 2026 The Kiln Authors
# SPDX-License-Identifier: Apache-2.0
"""`kiln bench` (docs/tools.md) on mnist-8 and tiny generated models: the summary's statistics
against numpy on the timings it reports, the --loop count, outputs for the committed test data
sets against their expected outputs (and onnxruntime for the generated models), .onnx models,
gears (--dymBatch, --dymHW, --dymDims), --threads, the progress bar and bad input."""
import importlib.util
import json
import os
import re

import numpy as np
import pytest
from kiln_cli import kiln

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
# The TensorProto reader of the Python tests, loaded by path (another conftest may shadow it).
_spec = importlib.util.spec_from_file_location(
    "python_tests_conftest", os.path.join(ROOT, "tests", "python", "conftest.py"))
_conftest = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_conftest)
MNIST, mnist_sets = _conftest.MNIST, _conftest.mnist_sets

MNIST_ONNX = os.path.join(MNIST, "model.onnx")
LATENCY = re.compile(r"latency \(ms\): min = ([\d.]+), mean = ([\d.]+), median = ([\d.]+), "
                     r"p90 = ([\d.]+), p99 = ([\d.]+), max = ([\d.]+)")
KEYS = ("min", "mean", "median", "p90", "p99", "max")


def bench(tmp_path, *args):
    """Runs kiln bench with --json; returns (stdout, summary)."""
    path = tmp_path / "summary.json"
    r = kiln("bench", *args, "--json", path)
    with open(path) as f:
        return r.stdout, json.load(f)


def atc(onnx, out, *flags):
    kiln("atc", "--framework=5", f"--model={onnx}", f"--output={out}", *flags)
    return str(out) + ".om"


@pytest.fixture(scope="module")
def mnist_om(tmp_path_factory):
    return atc(MNIST_ONNX, tmp_path_factory.mktemp("om") / "mnist")


@pytest.fixture(scope="module")
def sets():
    return mnist_sets()


def close(a, b):
    np.testing.assert_allclose(a, b, rtol=1e-3, atol=1e-4)


# ---- statistics and counts -------------------------------------------------------------------

def test_percentiles_are_ordered_and_those_of_the_reported_timings(mnist_om, tmp_path):
    out, s = bench(tmp_path, "--model", mnist_om, "--loop", 60, "--warmup_count", 2)
    series = np.array(s["series_ms"]["compute"])
    assert len(series) == 60 and s["latency_ms"]["count"] == 60
    lat = s["latency_ms"]
    assert lat["min"] <= lat["median"] <= lat["p90"] <= lat["p99"] <= lat["max"]
    assert lat["min"] <= lat["mean"] <= lat["max"] and lat["min"] > 0
    # numpy on the timings the summary lists (its default is linear interpolation).
    expected = {"min": series.min(), "mean": series.mean(), "max": series.max(),
                "median": np.percentile(series, 50), "p90": np.percentile(series, 90),
                "p99": np.percentile(series, 99)}
    for k in KEYS:
        assert lat[k] == pytest.approx(expected[k], rel=1e-9, abs=1e-12), k
    # The printed line is the JSON's, rounded to 3 decimals.
    m = LATENCY.search(out)
    assert m, out
    for k, v in zip(KEYS, m.groups()):
        assert float(v) == pytest.approx(lat[k], abs=6e-4), k
    # The split: each phase is timed per execution; end-to-end is their sum.
    for phase in ("h2d", "d2h"):
        assert len(s["series_ms"][phase]) == 60
        assert s[f"{phase}_ms"]["mean"] == pytest.approx(np.mean(s["series_ms"][phase]))
    total = (np.array(s["series_ms"]["h2d"]) + series + np.array(s["series_ms"]["d2h"])).mean()
    assert s["e2e_ms"]["mean"] == pytest.approx(total)
    assert "H2D" in out and "D2H" in out and "throughput:" in out and "peak RSS" in out
    assert "end-to-end" not in out  # --display_all_summary's table
    cold = s["cold_start_ms"]
    assert cold["total"] == pytest.approx(cold["load"] + cold["first_execution"])
    assert s["peak_rss_kb"] > 1000


def test_loop_counts_executions_and_throughput_counts_them_over_the_wall_time(
        mnist_om, tmp_path, sets):
    _, s = bench(tmp_path, "--model", mnist_om, "--loop", 7, "--warmup_count", 0)
    assert s["executions"] == 7 and len(s["series_ms"]["compute"]) == 7
    assert s["throughput"] == pytest.approx(1000 * 7 * s["batchsize"] / s["wall_ms"])
    # A folder of three samples: --loop rounds over all of them.
    folder = tmp_path / "inputs"
    folder.mkdir()
    for n, (x, _) in enumerate(sets):
        np.save(folder / f"digit_{n}.npy", x)
    _, s = bench(tmp_path, "--model", mnist_om, "--input", folder, "--loop", 4)
    assert s["samples"] == 3 and s["executions"] == 12
    # --batchsize scales the throughput, not the count.
    _, s = bench(tmp_path, "--model", mnist_om, "--loop", 5, "--batchsize", 8)
    assert s["batchsize"] == 8 and s["executions"] == 5
    assert s["throughput"] == pytest.approx(1000 * 5 * 8 / s["wall_ms"])


# ---- inputs and outputs against the test data sets ----------------------------------------

def test_npy_input_and_npy_output_equal_the_data_sets_expected_outputs(mnist_om, tmp_path, sets):
    folder = tmp_path / "inputs"
    folder.mkdir()
    for n, (x, _) in enumerate(sets):
        np.save(folder / f"digit_{n}.npy", x)
    out_dir = tmp_path / "out"
    _, s = bench(tmp_path, "--model", mnist_om, "--input", folder, "--output", out_dir,
                 "--outfmt", "NPY", "--loop", 2)
    assert sorted(os.listdir(out_dir)) == [f"digit_{n}_0.npy" for n in range(3)]
    for n, (_, expected) in enumerate(sets):
        y = np.load(out_dir / f"digit_{n}_0.npy")
        assert y.shape == (1, 10) and y.dtype == np.float32
        close(y, expected)
    assert s["outputs"][0]["dims"] == [1, 10]


def test_bin_input_with_bin_and_txt_outputs(mnist_om, tmp_path, sets):
    x, expected = sets[1]
    path = tmp_path / "digit.bin"
    x.astype(np.float32).tofile(path)
    kiln("bench", "--model", mnist_om, "--input", path, "--output", tmp_path / "b")
    close(np.fromfile(tmp_path / "b" / "digit_0.bin", np.float32).reshape(1, 10), expected)
    kiln("bench", "--model", mnist_om, "--input", path, "--output", tmp_path / "t",
         "--output_dirname", "run1", "--outfmt", "TXT")
    close(np.loadtxt(tmp_path / "t" / "run1" / "digit_0.txt", dtype=np.float32).reshape(1, 10),
          expected)


def test_zero_pure_data_equals_onnxruntime_on_zeros(mnist_om, tmp_path):
    ort = pytest.importorskip("onnxruntime")
    kiln("bench", "--model", mnist_om, "--pure_data_type", "zero", "--output", tmp_path,
         "--outfmt", "NPY")
    sess = ort.InferenceSession(MNIST_ONNX, providers=["CPUExecutionProvider"])
    (expected,) = sess.run(None, {"Input3": np.zeros((1, 1, 28, 28), np.float32)})
    close(np.load(tmp_path / "pure_infer_data_0.npy"), expected)


def test_an_onnx_model_is_compiled_on_the_fly(tmp_path, sets):
    x, expected = sets[2]
    np.save(tmp_path / "x.npy", x)
    out, s = bench(tmp_path, "--model", MNIST_ONNX, "--input", tmp_path / "x.npy", "--output",
                   tmp_path / "o", "--outfmt", "NPY", "--loop", 3)
    assert "compiled" in out and s["compile_ms"] > 0 and s["executions"] == 3
    close(np.load(tmp_path / "o" / "x_0.npy"), expected)
    assert not os.path.exists(s["om"]), "the temporary .om should be removed"


# ---- gears --------------------------------------------------------------------------------

def batchable_mnist(tmp_path):
    """mnist-8 with a batch-agnostic reshape (its shape constant [1,256] -> [-1,256])."""
    onnx = pytest.importorskip("onnx")
    from onnx import numpy_helper
    model = onnx.load(MNIST_ONNX)
    for init in model.graph.initializer:
        if init.name == "Pooling160_Output_0_reshape0_shape":
            init.CopyFrom(numpy_helper.from_array(np.array([-1, 256], np.int64), init.name))
    for v in (model.graph.input[0], model.graph.output[0]):
        v.type.tensor_type.shape.dim[0].dim_param = "N"
    path = tmp_path / "mnist_batchable.onnx"
    onnx.save(model, str(path))
    return path


def test_dym_batch_runs_the_chosen_gear(tmp_path, sets):
    om = atc(batchable_mnist(tmp_path), tmp_path / "gears", "--input_shape=Input3:-1,1,28,28",
             "--dynamic_batch_size=1,2,4")
    x = np.concatenate([sets[2][0], sets[0][0]])
    np.save(tmp_path / "pair.npy", x)
    out, s = bench(tmp_path, "--model", om, "--dymBatch", 2, "--input", tmp_path / "pair.npy",
                   "--output", tmp_path / "o", "--outfmt", "NPY", "--loop", 3)
    y = np.load(tmp_path / "o" / "pair_0.npy")
    assert y.shape == (2, 10)
    close(y, np.concatenate([sets[2][1], sets[0][1]]))
    assert s["batchsize"] == 2 and s["gear"] == "batch 2"
    assert s["throughput"] == pytest.approx(1000 * 3 * 2 / s["wall_ms"])
    # Random data at gear 4; a gear that was not compiled, and none at all, are refused.
    _, s = bench(tmp_path, "--model", om, "--dymBatch", 4)
    assert s["inputs"][0]["dims"] == [4, 1, 28, 28] and s["outputs"][0]["dims"] == [4, 10]
    r = kiln("bench", "--model", om, "--dymBatch", 3, check=False)
    assert r.returncode == 1 and "1,2,4" in r.stderr
    r = kiln("bench", "--model", om, check=False)
    assert r.returncode == 1 and "--dymBatch" in r.stderr and "1,2,4" in r.stderr
    # The input must have the gear's size.
    r = kiln("bench", "--model", om, "--dymBatch", 4, "--input", tmp_path / "pair.npy",
             check=False)
    assert r.returncode == 1 and "pair.npy" in r.stderr and "[4,1,28,28]" in r.stderr


def test_dym_dims_runs_the_chosen_gear(tmp_path, sets):
    om = atc(batchable_mnist(tmp_path), tmp_path / "dims", "--input_shape=Input3:-1,1,28,28",
             "--dynamic_dims=1;4")
    x = np.concatenate([sets[1][0], sets[2][0], sets[0][0], sets[1][0]])
    np.save(tmp_path / "four.npy", x)
    _, s = bench(tmp_path, "--model", om, "--dymDims", "Input3:4,1,28,28", "--input",
                 tmp_path / "four.npy", "--output", tmp_path / "o", "--outfmt", "NPY")
    close(np.load(tmp_path / "o" / "four_0.npy"),
          np.concatenate([sets[1][1], sets[2][1], sets[0][1], sets[1][1]]))
    assert s["gear"] == "dims Input3:4,1,28,28"
    r = kiln("bench", "--model", om, "--dymDims", "Input3:2,1,28,28", check=False)
    assert r.returncode == 1 and "not a compiled gear" in r.stderr
    r = kiln("bench", "--model", om, "--dymDims", "images:4,1,28,28", check=False)
    assert r.returncode == 1 and "'images'" in r.stderr and "Input3" in r.stderr


def conv_model(path):
    """y[1,2,H,W] = Relu(Conv(x[1,1,H,W], w[2,1,3,3], pads 1)), H and W dynamic."""
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper, numpy_helper
    w = np.random.default_rng(3).standard_normal((2, 1, 3, 3)).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("Conv", ["x", "w"], ["c"], name="conv", pads=[1, 1, 1, 1]),
         helper.make_node("Relu", ["c"], ["y"], name="relu")], "conv",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1, "H", "W"])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 2, "H", "W"])],
        [numpy_helper.from_array(w, "w")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.save(model, str(path))
    return path


def test_dym_hw_runs_the_chosen_image_size(tmp_path):
    ort = pytest.importorskip("onnxruntime")
    onnx_path = conv_model(tmp_path / "conv.onnx")
    om = atc(onnx_path, tmp_path / "conv", "--input_shape=x:1,1,-1,-1",
             "--dynamic_image_size=8,8;16,12")
    x = np.random.default_rng(5).standard_normal((1, 1, 16, 12)).astype(np.float32)
    np.save(tmp_path / "img.npy", x)
    _, s = bench(tmp_path, "--model", om, "--dymHW", "16,12", "--input", tmp_path / "img.npy",
                 "--output", tmp_path / "o", "--outfmt", "NPY")
    sess = ort.InferenceSession(str(onnx_path), providers=["CPUExecutionProvider"])
    (expected,) = sess.run(None, {"x": x})
    y = np.load(tmp_path / "o" / "img_0.npy")
    assert y.shape == (1, 2, 16, 12)
    close(y, expected)
    assert s["gear"] == "hw 16,12"
    r = kiln("bench", "--model", om, "--dymHW", "10,10", check=False)
    assert r.returncode == 1 and "8,8;16,12" in r.stderr


# ---- threads, progress ----------------------------------------------------------------------

def test_two_threads_each_run_the_loop_and_give_the_same_outputs(mnist_om, tmp_path, sets):
    x, expected = sets[0]
    np.save(tmp_path / "x.npy", x)
    out, s = bench(tmp_path, "--model", mnist_om, "--threads", 2, "--loop", 10, "--input",
                   tmp_path / "x.npy", "--output", tmp_path / "o", "--outfmt", "NPY",
                   "--display_all_summary", "True")
    assert s["threads"] == 2 and s["executions"] == 20 and len(s["thread_throughput"]) == 2
    assert "thread 1:" in out and "own stream" in out
    close(np.load(tmp_path / "o" / "x_0.npy"), expected)
    assert s["throughput"] == pytest.approx(1000 * 20 / s["wall_ms"])


def test_progress_bar_is_drawn_on_request_and_not_into_a_pipe(mnist_om):
    r = kiln("bench", "--model", mnist_om, "--loop", 50, "--progress", "always")
    assert "[kiln bench]" in r.stderr and "100% 50/50 executions" in r.stderr
    assert "[kiln bench]" not in r.stdout
    r = kiln("bench", "--model", mnist_om, "--loop", 50)  # auto: stderr is a pipe here
    assert "[kiln bench]" not in r.stderr


# ---- bad input ------------------------------------------------------------------------------

def test_bad_input_gets_a_clear_error(mnist_om, tmp_path, sets):
    x = sets[0][0]
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "x64.npy", x.astype(np.float64))
    (tmp_path / "short.bin").write_bytes(b"\0" * 100)
    (tmp_path / "empty").mkdir()
    (tmp_path / "afile").write_text("x")
    cases = [
        (["--model", tmp_path / "missing.om"], "missing.om"),
        (["--model", tmp_path / "afile"], "afile"),
        (["--model", mnist_om, "--input", f"{tmp_path / 'x.npy'},{tmp_path / 'x.npy'}"],
         "the model has 1 input"),
        (["--model", mnist_om, "--input", tmp_path / "short.bin"], "100 bytes"),
        (["--model", mnist_om, "--input", tmp_path / "x64.npy"], "float64"),
        (["--model", mnist_om, "--input", tmp_path / "nope.npy"], "nope.npy"),
        (["--model", mnist_om, "--input", tmp_path / "empty"], "no .bin or .npy"),
        (["--model", mnist_om, "--output", tmp_path / "afile"], "afile"),
        (["--model", mnist_om, "--loop", 0], "--loop"),
        (["--model", mnist_om, "--loop", "many"], "--loop"),
        (["--model", mnist_om, "--threads", 0], "--threads"),
        (["--model", mnist_om, "--outfmt", "PNG"], "--outfmt"),
        (["--model", mnist_om, "--device", 99], "--device 99"),
        (["--model", mnist_om, "--dymHW", "224"], "--dymHW"),
        (["--model", mnist_om, "--dymBatch", 2], "without gears"),
        (["--model", mnist_om, "--dymBatch", 2, "--dymHW", "2,2"], "exclude each other"),
        (["--model", mnist_om, "--input", f"{tmp_path / 'x.npy'},"], "empty item"),
        (["--model", mnist_om, "--input", f",{tmp_path / 'x.npy'}"], "empty item"),
        ([], "--model"),
    ]
    for args, needle in cases:
        r = kiln("bench", *args, check=False)
        assert 0 < r.returncode < 128, (args, r.returncode, r.stderr)
        assert needle in r.stderr + r.stdout, (args, r.stderr)
    # A file that is not a model: the loader names what it is.
    r = kiln("bench", "--model", tmp_path / "x.npy", check=False)
    assert r.returncode == 1 and "x.npy" in r.stderr


def test_input_shape_fixes_the_dynamic_dims_of_an_onnx(tmp_path, sets):
    onnx_path = batchable_mnist(tmp_path)  # its batch dim is dynamic
    r = kiln("bench", "--model", onnx_path, check=False)
    assert r.returncode == 1 and "--input_shape" in r.stderr
    x = np.concatenate([sets[0][0], sets[1][0], sets[2][0]])
    np.save(tmp_path / "three.npy", x)
    _, s = bench(tmp_path, "--model", onnx_path, "--input_shape", "Input3:3,1,28,28", "--input",
                 tmp_path / "three.npy", "--output", tmp_path / "o", "--outfmt", "NPY")
    close(np.load(tmp_path / "o" / "three_0.npy"), np.concatenate([y for _, y in sets]))
    assert s["batchsize"] == 3
    r = kiln("bench", "--model", s["model"], "--input_shape", "Input3:x", check=False)
    assert r.returncode == 1 and "--input_shape" in r.stderr


def test_dym_shape_and_output_size_run_a_fully_dynamic_model(tmp_path, sets):
    om = atc(batchable_mnist(tmp_path), tmp_path / "dyn", "--input_shape=Input3:-1,1,28,28")
    x = np.concatenate([sets[2][0], sets[1][0], sets[0][0]])
    np.save(tmp_path / "three.npy", x)
    _, s = bench(tmp_path, "--model", om, "--dymShape", "Input3:3,1,28,28", "--outputSize", 400,
                 "--input", tmp_path / "three.npy", "--output", tmp_path / "o", "--outfmt", "NPY",
                 "--loop", 2)
    y = np.load(tmp_path / "o" / "three_0.npy")
    assert y.shape == (3, 10) and s["outputs"][0]["dims"] == [3, 10]
    close(y, np.concatenate([sets[2][1], sets[1][1], sets[0][1]]))
    r = kiln("bench", "--model", om, check=False)
    assert r.returncode == 1 and "--dymShape" in r.stderr
    r = kiln("bench", "--model", om, "--dymShape", "Input3:3,1,28,28", check=False)
    assert r.returncode == 1 and "--outputSize" in r.stderr
    r = kiln("bench", "--model", om, "--dymShape", "Input3:3,1,28,28", "--outputSize", 40,
             check=False)  # too small for [3,10]: the runtime says so, naming the node
    assert r.returncode == 1 and "Plus214" in r.stderr and "120 bytes" in r.stderr
    r = kiln("bench", "--model", om, "--dymShape", "Input3:3,1,28,28", "--outputSize", "4x",
             check=False)
    assert r.returncode == 1 and "--outputSize" in r.stderr


def test_acl_json_path_is_given_to_acl_init(mnist_om, tmp_path):
    (tmp_path / "ok.json").write_text("{}")
    (tmp_path / "bad.json").write_text("{")
    kiln("bench", "--model", mnist_om, "--acl_json_path", tmp_path / "ok.json")
    r = kiln("bench", "--model", mnist_om, "--acl_json_path", tmp_path / "bad.json", check=False)
    assert r.returncode == 1 and "aclInit" in r.stderr and "bad.json" in r.stderr
    r = kiln("bench", "--model", mnist_om, "--acl_json_path", tmp_path / "no.json", check=False)
    assert r.returncode == 1 and "no.json" in r.stderr
