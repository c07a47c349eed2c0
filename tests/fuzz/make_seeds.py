#!/usr/bin/env python3
# Copyright 2026 The Kiln Authors
# SPDX-License-Identifier: Apache-2.0
"""Compiles the .om seeds of the om fuzz target with the `kiln` under test, from models in the
repository, so the seeds always have the current format (committed .om files would go stale
with it):
  mnist.om  mnist-8 (tests/data/models): Conv, MaxPool, MatMul, Reshape
  yunet.om  YuNet 320 (tests/data/models): depthwise convolutions, Concat, Resize, Sigmoid
  gears.om  a small net made here, Conv/Relu/MaxPool/AveragePool/ReduceMean/MatMul/Softmax with
            batch gears 1,2,4 (the gear tables, per-gear dims and workspaces)

usage: make_seeds.py --kiln KILN --out DIR"""
import argparse
import os
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
MODELS = os.path.join(ROOT, "tests", "data", "models")


def gear_model(path):
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    rng = np.random.default_rng(7)
    w = numpy_helper.from_array(rng.standard_normal((8, 3, 3, 3)).astype(np.float32), "w")
    b = numpy_helper.from_array(rng.standard_normal(8).astype(np.float32), "b")
    m = numpy_helper.from_array(rng.standard_normal((8, 5)).astype(np.float32), "m")
    nodes = [
        helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c"], ["r"]),
        helper.make_node("MaxPool", ["r"], ["p"], kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("AveragePool", ["p"], ["a"], kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        helper.make_node("ReduceMean", ["a"], ["g"], axes=[2, 3], keepdims=0),
        helper.make_node("MatMul", ["g", "m"], ["l"]),
        helper.make_node("Softmax", ["l"], ["y"], axis=-1),
    ]
    graph = helper.make_graph(
        nodes, "gears", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3, 16, 16])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 5])], [w, b, m])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.save(model, path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kiln", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    gears_onnx = os.path.join(a.out, "gears.onnx")
    gear_model(gears_onnx)
    seeds = [
        ("mnist", os.path.join(MODELS, "mnist-8", "model.onnx"), []),
        ("yunet", os.path.join(MODELS, "yunet", "yunet_n_320_320.onnx"), []),
        ("gears", gears_onnx, ["--input_shape=x:-1,3,16,16", "--dynamic_batch_size=1,2,4"]),
    ]
    seed_dir = os.path.join(a.out, "seeds")
    os.makedirs(seed_dir, exist_ok=True)
    for name, onnx_path, flags in seeds:
        out = os.path.join(seed_dir, name)
        r = subprocess.run([a.kiln, "atc", f"--model={onnx_path}", "--framework=5",
                            f"--output={out}", *flags], capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit(f"make_seeds: kiln atc failed on {onnx_path}:\n{r.stdout}{r.stderr}")
    print(f"make_seeds: {len(seeds)} seeds in {seed_dir}")


if __name__ == "__main__":
    main()
