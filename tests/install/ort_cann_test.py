#!/usr/bin/env python3
# Copyright 2026 The Kiln Authors
# SPDX-License-Identifier: Apache-2.0
"""onnxruntime's CANN execution provider (PyPI onnxruntime-cann 1.24.4, unchanged) on Kiln's
install (issue 17): run by run_ort_cann_test.sh after `source <prefix>/set_env.sh`, in a scratch
working folder (the provider writes and reads its .om files there).

For each model: a session with providers=["CANNExecutionProvider"] must keep the provider (no
"EP Error" fallback to the CPU provider) and give the CPU provider's outputs (same wheel, same
process) within float32 tolerance, for several input shapes of the dynamic models — each new
shape makes the provider build another model through Kiln's graph-engine API
(aclgrphParseONNXFromMem, aclgrphBuildModel, aclgrphSaveModel) and load it (aclmdlLoadFromMem).
A second session finds the saved .om files (aclmdlLoadFromFile). The provider's single-operator
mode (enable_cann_graph False: aclopCompileAndExecute per node) runs ResNet-50 and mnist-8.

A model with a data-dependent output (NonZero) makes the provider pass NULL output buffers to
aclmdlExecute, which must allocate them.

Usage: ort_cann_test.py PROJECT_ROOT MODELS_DIR NONZERO_ONNX"""
import glob
import os
import sys

import numpy as np
import onnxruntime as ort

CANN = "CANNExecutionProvider"


def feeds_for(session, dims, rng):
    """Inputs with the symbolic dims of `session` set from `dims` (name -> value)."""
    feeds = {}
    for i in session.get_inputs():
        shape = [d if isinstance(d, int) else dims[d] for d in i.shape]
        if "int64" in i.type:  # BERT: token ids in the vocabulary, the last token masked
            if i.name == "input_ids":
                feeds[i.name] = rng.integers(0, 1000, shape).astype(np.int64)
            elif i.name == "attention_mask":
                m = np.ones(shape, np.int64)
                m[..., -1] = 0
                feeds[i.name] = m
            else:
                feeds[i.name] = np.zeros(shape, np.int64)
        else:
            feeds[i.name] = rng.standard_normal(shape).astype(np.float32)
    return feeds


def check(path, shapes, options=None):
    name = os.path.basename(path)
    providers = [(CANN, options or {})]
    session = ort.InferenceSession(path, providers=providers)
    cpu = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    if session.get_providers()[0] != CANN:
        print(f"FAIL {name}: the session runs on {session.get_providers()} (the provider did not load)")
        return 1
    rng = np.random.default_rng(17)
    failures = 0
    for dims in shapes:
        feeds = feeds_for(session, dims, rng)
        got = session.run(None, feeds)
        want = cpu.run(None, feeds)
        worst = 0.0
        for g, w in zip(got, want):
            if g.shape != w.shape:
                worst = float("inf")
                break
            scale = max(1.0, float(np.max(np.abs(w))))
            worst = max(worst, float(np.max(np.abs(g - w))) / scale)
        ok = worst <= 1e-4
        failures += not ok
        shape_text = ",".join(f"{k}={v}" for k, v in dims.items()) or "static"
        print(f"{'ok  ' if ok else 'FAIL'} {name:28s} {shape_text:18s} {options or ''} "
              f"max diff {worst:.2e} of the CPU provider's scale")
    return failures


def main(root, models, nonzero):
    data = os.path.join(root, "tests", "data", "models")
    mnist = os.path.join(data, "mnist-8", "model.onnx")
    yunet = os.path.join(data, "yunet", "yunet_n_dynamic.onnx")
    cases = [
        (mnist, [{}]),
        (yunet, [{"batch": 1, "height": 160, "width": 224}, {"batch": 2, "height": 96, "width": 96}]),
        (os.path.join(models, "mobilenetv2.onnx"), [{"batch": 1}, {"batch": 3}]),
        (os.path.join(models, "resnet50_v1.5.onnx"), [{"batch": 1}, {"batch": 2}]),
        (os.path.join(models, "bert_encoder.onnx"), [{"batch": 1, "seq": 8}, {"batch": 2, "seq": 16}]),
    ]
    failures = 0
    for path, shapes in cases:
        if not os.path.exists(path):
            print(f"FAIL {path} is missing")
            failures += 1
            continue
        # The dims the dynamic YuNet names (its input is N x 3 x H x W with symbolic H, W).
        s = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
        named = {d for i in s.get_inputs() for d in i.shape if isinstance(d, str)}
        shapes = [{k: v for k, v in d.items() if k in named} or {k: 1 for k in named} for d in shapes]
        failures += check(path, shapes)
    # NULL output buffers (the provider's path for -1 output dims), two lengths.
    failures += check(nonzero, [{"n": 7}, {"n": 12}])
    saved = glob.glob("*.om")
    print(f"{len(saved)} .om file(s) saved by aclgrphSaveModel in the working folder")
    if not saved:
        failures += 1
    # A new session finds them (aclmdlLoadFromFile) instead of building again: no new file.
    failures += check(os.path.join(models, "mobilenetv2.onnx"), [{"batch": 3}])
    if len(glob.glob("*.om")) != len(saved):
        print(f"FAIL the second session built again ({len(glob.glob('*.om'))} .om files)")
        failures += 1
    # Single-operator mode: every supported node through aclopCompileAndExecute.
    for path in (mnist, os.path.join(models, "resnet50_v1.5.onnx")):
        failures += check(path, [{"batch": 2}] if "resnet" in path else [{}],
                          {"enable_cann_graph": False})
    print("onnxruntime-cann on Kiln:", "OK" if failures == 0 else f"{failures} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2], sys.argv[3]))
