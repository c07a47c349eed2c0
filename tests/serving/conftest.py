# Copyright 2026 The Kiln Authors
# SPDX-License-Identifier: Apache-2.0
"""Fixtures of the serving tests (tests/serving): models, inputs, the onnxruntime oracle and a
bounded concurrent load.

Environment (set by tests/serving/CMakeLists.txt; all optional):
    KILN_BIN        the `kiln` program: .om models are compiled with `kiln atc`; without it,
                    with kiln.compile.
    KILN_CACHE_DIR  where kiln.InferenceSession keeps compiled .onnx models.
    KILN_MODELS_DIR where scripts/gen_models.py writes the generated models (build/models).
Only files of the repository and its build tree are read; servers listen on 127.0.0.1 only and
every request goes there.
"""
import concurrent.futures
import os
import socket
import subprocess
import sys
import time

import numpy as np
import pytest

# Ray stays on this machine (read when ray is imported, so set here, before the tests import it):
# its single-machine mode binds and dials 127.0.0.1 only (else it picks the host's address); no
# usage report; no token file in $HOME for a cluster that lives for one test file.
os.environ.update(RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER="0", RAY_USAGE_STATS_ENABLED="0",
                  RAY_AUTH_MODE="disabled")

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "python"))
from onnx_tensor import zoo_sets  # noqa: E402  (the Python tests' test-data reader)
MNIST = os.path.join(ROOT, "tests", "data", "models", "mnist-8")
REQUESTS = 200  # per load
CLIENTS = 16  # concurrent client threads
RTOL, ATOL = 1e-3, 1e-4  # as tests/python/test_vs_onnxruntime.py


def mnist_digits():
    """[(image [1,1,28,28], the zoo's logits [1,10])] of the three digits shipped with mnist-8."""
    return zoo_sets(MNIST)[:3]


def mnist_inputs(count, seed=8):
    """`count` [1,1,28,28] images: the three real digits, then shifted, scaled and noisy
    copies of them (each one distinct)."""
    rng = np.random.default_rng(seed)
    digits = [x for x, _ in mnist_digits()]
    images = list(digits)
    while len(images) < count:
        x = digits[len(images) % 3]
        x = np.roll(x, tuple(rng.integers(-3, 4, size=2)), axis=(2, 3))
        x = x * rng.uniform(0.6, 1.2) + rng.normal(0, 8, x.shape)
        images.append(np.clip(x, 0, 255).astype(np.float32))
    return images[:count]


def image_inputs(count, seed=224):
    """`count` distinct [3,224,224] float32 images, normalised as ImageNet models expect."""
    rng = np.random.default_rng(seed)
    return [rng.standard_normal((3, 224, 224), dtype=np.float32) for _ in range(count)]


def oracle(onnx_path, batches):
    """onnxruntime (CPU, one thread) on each [N, ...] array of `batches`: [first output]."""
    import onnxruntime as ort
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    opts.inter_op_num_threads = 1
    sess = ort.InferenceSession(onnx_path, opts, providers=["CPUExecutionProvider"])
    name = sess.get_inputs()[0].name
    return [sess.run(None, {name: b})[0] for b in batches]


def compile_om(onnx_path, out_dir, name):
    """Compiles with `kiln atc` when KILN_BIN is set, else with kiln.compile; the .om's path."""
    out = os.path.join(out_dir, name)
    kiln_bin = os.environ.get("KILN_BIN")
    if kiln_bin:
        subprocess.run([kiln_bin, "atc", "--framework=5", f"--model={onnx_path}",
                        f"--output={out}", "--soc_version=Ascend310P3"], check=True,
                       stdout=subprocess.DEVNULL)
    else:
        import kiln
        kiln.compile(onnx_path, out)
    return out + ".om"


def mobilenetv2_path():
    """build/models/mobilenetv2.onnx (scripts/gen_models.py: MobileNetV2's architecture with
    seeded weights, a dynamic batch dim), made with the project's .venv when missing; skips
    when it cannot be."""
    out = os.environ.get("KILN_MODELS_DIR", os.path.join(ROOT, "build", "models"))
    path = os.path.join(out, "mobilenetv2.onnx")
    if not os.path.exists(path):
        venv_python = os.path.join(ROOT, ".venv", "bin", "python")
        if not os.access(venv_python, os.X_OK):
            pytest.skip("no build/models/mobilenetv2.onnx and no .venv to make it")
        subprocess.run([venv_python, os.path.join(ROOT, "scripts", "gen_models.py"), "--out",
                        out, "--only", "mobilenetv2"], check=True, stdout=subprocess.DEVNULL)
    return path


def free_port():
    """A TCP port free on 127.0.0.1 now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until(predicate, timeout, what):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.2)
    raise TimeoutError(f"{what} not within {timeout} s")


def load(send, payloads, clients=CLIENTS):
    """Sends every payload once with send(i, payload) from `clients` threads at once; returns
    (results in payload order, failures [(i, repr(error))], seconds)."""
    results = [None] * len(payloads)
    failures = []

    def one(i):
        try:
            results[i] = send(i, payloads[i])
        except Exception as e:  # noqa: BLE001  (counted and reported by the test)
            failures.append((i, repr(e)))

    start = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(clients) as pool:
        list(pool.map(one, range(len(payloads))))
    return results, failures, time.monotonic() - start


@pytest.fixture(scope="session")
def mnist_onnx():
    return os.path.join(MNIST, "model.onnx")


@pytest.fixture(scope="session")
def mobilenetv2():
    return mobilenetv2_path()


def pack_v2_binary(header, tensors):
    """The Open Inference Protocol's binary tensor extension: the JSON header, then each
    tensor's raw bytes; returns (body, headers)."""
    import json
    head = json.dumps(header).encode()
    body = head + b"".join(np.ascontiguousarray(t).tobytes() for t in tensors)
    return body, {"Content-Type": "application/octet-stream",
                  "Inference-Header-Content-Length": str(len(head))}


def unpack_v2_binary(body, header_length):
    """(JSON header, [raw bytes per output]) of a binary-extension answer."""
    import json
    head = json.loads(body[:header_length])
    raws, pos = [], header_length
    for out in head["outputs"]:
        size = out["parameters"]["binary_data_size"]
        raws.append(body[pos:pos + size])
        pos += size
    return head, raws

