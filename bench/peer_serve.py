#!/usr/bin/env python3
# Copyright 2026 The Kiln Authors
# SPDX-License-Identifier: Apache-2.0
"""Serves timed runs of one ONNX model in a peer runtime, in a process of its own.

    peer_serve.py --runtime ort|openvino-f32|openvino|kiln-py --model M.onnx --input F.npy ...
                  [--threads N] [--warmup N]

The counterpart of `model_bench --serve` (bench/model_bench.cc) for onnxruntime and OpenVINO,
and for Kiln through the same kind of Python call (kiln-py: kiln.InferenceSession, onnxruntime's
call shape, which needs the build's python/ on PYTHONPATH), so that the Python binding's cost
is on both sides of that comparison:
loads the model, warms up, prints {"ready": true, "version": ...}, then reads lines from stdin;
a line "N" runs N timed executions on the same inputs and prints {"runs_us": [...]}; end of
input ends. Each run is timed from the call to its return (onnxruntime: session.run, outputs as
numpy arrays; OpenVINO: a compiled model's infer request, LATENCY hint), so a driver can
interleave blocks of runs with Kiln while every model stays loaded.
"""
import argparse
import json
import sys
import time

import numpy as np


def ort_runner(model, feeds, threads):
    import onnxruntime as ort
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    so.log_severity_level = 3
    sess = ort.InferenceSession(model, so, providers=["CPUExecutionProvider"])
    names = [i.name for i in sess.get_inputs()]
    inputs = dict(zip(names, feeds))
    return (lambda: sess.run(None, inputs)), ort.__version__


def kiln_runner(model, feeds):
    import kiln
    sess = kiln.InferenceSession(model, providers=["CPUExecutionProvider"])
    names = [i.name for i in sess.get_inputs()]
    inputs = dict(zip(names, feeds))
    return (lambda: sess.run(None, inputs)), "kiln"


def openvino_runner(model, feeds, threads, f32):
    import openvino as ov
    core = ov.Core()
    config = {"PERFORMANCE_HINT": "LATENCY", "INFERENCE_NUM_THREADS": threads}
    if f32:
        config["INFERENCE_PRECISION_HINT"] = "f32"
    compiled = core.compile_model(model, "CPU", config)
    request = compiled.create_infer_request()
    precision = str(compiled.get_property("INFERENCE_PRECISION_HINT"))
    return (lambda: request.infer(feeds)), f"{ov.__version__} ({precision})"


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    p.add_argument("--runtime", required=True,
                   choices=["ort", "openvino-f32", "openvino", "kiln-py"])
    p.add_argument("--model", required=True)
    p.add_argument("--input", action="append", default=[], help=".npy file per model input")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--warmup", type=int, default=20)
    a = p.parse_args()
    feeds = [np.load(f) for f in a.input]
    if a.runtime == "ort":
        run, version = ort_runner(a.model, feeds, a.threads)
    elif a.runtime == "kiln-py":
        run, version = kiln_runner(a.model, feeds)
    else:
        run, version = openvino_runner(a.model, feeds, a.threads, a.runtime == "openvino-f32")
    for _ in range(a.warmup):
        run()
    print(json.dumps({"ready": True, "version": version}), flush=True)
    for line in sys.stdin:
        n = int(line)
        times = []
        for _ in range(n):
            t0 = time.perf_counter()
            run()
            times.append((time.perf_counter() - t0) * 1e6)
        print(json.dumps({"runs_us": times}), flush=True)


if __name__ == "__main__":
    main()
