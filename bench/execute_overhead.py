#!/usr/bin/env python3
# Copyright 2026 The Kiln Authors
# SPDX-License-Identifier: Apache-2.0
"""Per-execute overhead: Kiln against onnxruntime (and OpenVINO when installed) on tiny models.

    .venv/bin/python bench/execute_overhead.py --build build/release [--blocks 8]
                     [--block-runs 500] [--threads 2] [--json OUT.json]

Where a model computes almost nothing, what remains is what a runtime costs per call: the API,
the executor's walk over the nodes, binding tensors, kernel dispatch. Models:

- `one_node`: one Relu over float32 [1, 16], the smallest model there is;
- `mnist-8`: the ONNX model zoo's digit classifier (tests/data/models/mnist-8), 12 nodes,
  with its own test input.

Each runtime runs in a process of its own with the model loaded once: Kiln in
`<build>/bench/model_bench --serve` (C++, aclmdlExecute through libascendcl.so), onnxruntime
and OpenVINO in `bench/peer_serve.py` (their Python APIs, as users call them), and Kiln again
there as `kiln-py` (kiln.InferenceSession, onnxruntime's call shape), so that `kiln-py/ort`
compares the two with the Python binding's cost on both sides. Blocks of
--block-runs runs alternate between the runtimes (A B, B A, ...); the figure per runtime is the
median over all its runs, and each ratio is the median of the per-block ratios. The load
average is printed before and after; a run that starts or ends above --max-load is marked not
comparable (a loaded machine favours whichever runtime spins less).
"""
import argparse
import datetime
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import helper, numpy_helper, TensorProto

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def one_node(work):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 16])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 16])
    graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"], name="relu")],
                              "one_node", [x], [y])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    path = os.path.join(work, "one_node.onnx")
    onnx.save(model, path)
    rng = np.random.default_rng(7)
    return path, [rng.standard_normal((1, 16)).astype(np.float32)]


def mnist(_work):
    d = os.path.join(ROOT, "tests", "data", "models", "mnist-8")
    t = onnx.TensorProto()
    with open(os.path.join(d, "test_data_set_0", "input_0.pb"), "rb") as f:
        t.ParseFromString(f.read())
    return os.path.join(d, "model.onnx"), [numpy_helper.to_array(t)]


MODELS = {"one_node": one_node, "mnist-8": mnist}


def peers():
    out = ["ort"]
    try:
        import openvino  # noqa: F401
        out += ["openvino-f32", "openvino"]
    except ImportError:
        pass
    return out


class Server:
    """A runtime process that answers "N" with N timed runs."""

    def __init__(self, args, env=None):
        self.proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     text=True, env=env)
        self.ready = json.loads(self.proc.stdout.readline())
        if not self.ready.get("ready"):
            raise RuntimeError(f"{args[0]} did not start: {self.ready}")

    def block(self, n):
        self.proc.stdin.write(f"{n}\n")
        self.proc.stdin.flush()
        return json.loads(self.proc.stdout.readline())["runs_us"]

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=60)


def measure(name, build, work, a):
    onnx_path, inputs = MODELS[name](work)
    om = os.path.join(work, name)
    subprocess.run([os.path.join(build, "tools", "kiln", "kiln"), "atc", f"--model={onnx_path}",
                    "--framework=5", f"--output={om}"], check=True, capture_output=True)
    bins, npys = [], []
    for i, x in enumerate(inputs):
        bins.append(os.path.join(work, f"{name}_in{i}.bin"))
        npys.append(os.path.join(work, f"{name}_in{i}.npy"))
        x.tofile(bins[-1])
        np.save(npys[-1], x)
    env = dict(os.environ, KILN_CPU_THREADS=str(a.threads), OMP_NUM_THREADS=str(a.threads))
    servers = {"kiln": Server([os.path.join(build, "bench", "model_bench"), f"--model={om}.om",
                               "--warmup=50", "--serve"] + [f"--input={b}" for b in bins], env)}
    py_env = dict(env, PYTHONPATH=os.path.join(build, "python"),
                  KILN_CACHE_DIR=os.path.join(work, "kiln-cache"))
    # kiln-py needs the build's Python package (a build with KILN_BUILD_PYTHON).
    has_python = os.path.isdir(os.path.join(build, "python", "kiln"))
    for peer in peers() + (["kiln-py"] if has_python else []):
        servers[peer] = Server([sys.executable, os.path.join(ROOT, "bench", "peer_serve.py"),
                                "--runtime", peer, "--model", onnx_path,
                                f"--threads={a.threads}", "--warmup=50"] +
                               [f"--input={n}" for n in npys], py_env if peer == "kiln-py" else None)
    runs = {k: [] for k in servers}
    # Kiln (C API) over each peer, and Kiln over onnxruntime with both called from Python.
    pairs = [("kiln", k) for k in servers if k not in ("kiln", "kiln-py")]
    if "kiln-py" in servers:
        pairs.append(("kiln-py", "ort"))
    ratios = {f"{x}/{y}": [] for x, y in pairs}
    names = list(servers)
    for b in range(a.blocks):
        order = names if b % 2 == 0 else names[::-1]
        block = {k: servers[k].block(a.block_runs) for k in order}
        for k, v in block.items():
            runs[k] += v
        for x, y in pairs:
            ratios[f"{x}/{y}"].append(float(np.median(block[x]) / np.median(block[y])))
    for s in servers.values():
        s.close()
    result = {k: {"median_us": float(np.median(v)), "p90_us": float(np.percentile(v, 90)),
                  "min_us": float(np.min(v))} for k, v in runs.items()}
    result["ratios"] = {k: float(np.median(v)) for k, v in ratios.items()}
    result["versions"] = {k: s.ready.get("version", "") for k, s in servers.items()}
    return result


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    p.add_argument("--build", default=os.path.join(ROOT, "build", "release"))
    p.add_argument("--only", default=",".join(MODELS))
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--blocks", type=int, default=8)
    p.add_argument("--block-runs", type=int, default=500)
    p.add_argument("--max-load", type=float, default=0.3,
                   help="above this 1-minute load average the figures are not comparable")
    p.add_argument("--json", default=None)
    a = p.parse_args(argv)
    load_before = os.getloadavg()
    print(f"load average before: {load_before[0]:.2f} {load_before[1]:.2f} {load_before[2]:.2f}")
    report = {"date": datetime.date.today().isoformat(), "threads": a.threads,
              "blocks": a.blocks, "block_runs": a.block_runs, "models": {}}
    with tempfile.TemporaryDirectory() as work:
        for name in a.only.split(","):
            r = measure(name, os.path.abspath(a.build), work, a)
            report["models"][name] = r
            cols = " ".join(f"{k} {r[k]['median_us']:.1f} us" for k in r if k.endswith(
                ("kiln", "kiln-py", "ort", "openvino-f32", "openvino")))
            over = " ".join(f"{k} {v:.2f}" for k, v in r["ratios"].items())
            print(f"{name}: {cols} | {over}")
    load_after = os.getloadavg()
    print(f"load average after: {load_after[0]:.2f} {load_after[1]:.2f} {load_after[2]:.2f}")
    report["load_before"], report["load_after"] = load_before, load_after
    report["comparable"] = max(load_before[0], load_after[0]) <= a.max_load
    if not report["comparable"]:
        print(f"NOT COMPARABLE: the load average was above {a.max_load} (another process ran)")
    out = a.json or os.path.join(ROOT, "bench", "results",
                                 f"execute-overhead-{report['date']}.json")
    with open(out, "w") as f:
        json.dump(report, f, indent=1)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
