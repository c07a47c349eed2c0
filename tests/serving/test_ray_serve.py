# Copyright 2026 The Kiln Authors
# SPDX-License-Identifier: Apache-2.0
"""kiln.serve on a local Ray cluster (2 CPUs, 127.0.0.1 only, no dashboard): bounded concurrent
loads through a deployment handle and over HTTP, every answer checked against onnxruntime on
the same input, zero failed requests, and batches of more than one request seen by the
replica; errors as HTTP 4xx answers; "NPU" resources giving each replica its device."""
import base64
import http.client
import json
import shutil
import tempfile
import threading

import numpy as np
import pytest

from conftest import (ATOL, REQUESTS, RTOL, free_port, image_inputs, load,
                      mnist_digits, mnist_inputs, oracle)

ray = pytest.importorskip("ray")
serve = pytest.importorskip("ray.serve")

import kiln.serve  # noqa: E402  (after the skips)


@pytest.fixture(scope="module")
def cluster():
    """A local Ray cluster on 127.0.0.1 (conftest sets Ray's single-machine mode) with one
    "NPU" (Kiln's CPU device) and Serve's HTTP proxy on a free loopback port; shut down and
    removed afterwards."""
    temp = tempfile.mkdtemp(prefix="kiln-ray-")  # short: Ray's socket paths must fit 107 bytes
    port = free_port()
    ray.init(address="local", num_cpus=2, resources={"NPU": 1}, include_dashboard=False,
             _temp_dir=temp, log_to_driver=False,
             configure_logging=False)
    serve.start(http_options={"host": "127.0.0.1", "port": port})
    try:
        yield port
    finally:
        serve.shutdown()
        ray.shutdown()
        shutil.rmtree(temp, ignore_errors=True)


def post(conn, path, body, headers=None):
    conn.request("POST", path, body=body,
                 headers=headers or {"Content-Type": "application/json"})
    r = conn.getresponse()
    return r.status, json.loads(r.read())


def get(port, path):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        conn.request("GET", path)
        r = conn.getresponse()
        return r.status, json.loads(r.read())
    finally:
        conn.close()


def check_all(results, failures, expected, squeeze):
    assert failures == [], f"{len(failures)} failed requests, first: {failures[:3]}"
    assert all(r is not None for r in results)
    for i, (got, want) in enumerate(zip(results, expected)):
        want = want[0] if squeeze(i) else want
        assert got.shape == want.shape, f"request {i}: shape {got.shape} != {want.shape}"
        np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL, err_msg=f"request {i}")


def test_mobilenetv2_handle_load_is_batched_and_exact(cluster, mobilenetv2):
    """200 requests of one image from 16 threads through a deployment handle: every answer
    equals onnxruntime's, none fails, and the replica ran batches of several requests."""
    app = kiln.serve.build_app(mobilenetv2, name="mnv2", max_batch_size=8,
                               batch_wait_timeout_s=0.02)
    handle = serve.run(app, name="mnv2", route_prefix="/mnv2")
    try:
        images = image_inputs(REQUESTS)
        expected = []
        for k in range(0, REQUESTS, 25):
            expected += list(oracle(mobilenetv2, [np.stack(images[k:k + 25])])[0][:, None])
        # Even requests carry the batch axis ([1,3,224,224] -> [1,1000]), odd ones do not.
        payloads = [{"input": x[None] if i % 2 == 0 else x} for i, x in enumerate(images)]
        results, failures, _ = load(
            lambda i, p: handle.remote(p).result(timeout_s=120)["logits"], payloads)
        check_all(results, failures, expected, squeeze=lambda i: i % 2 == 1)
        stats = handle.stats.remote().result()
        assert stats["requests"] == REQUESTS and stats["failed_requests"] == 0, stats
        assert stats["max_batch_size_seen"] > 1, stats
        assert stats["model_runs"] < REQUESTS, stats  # batches ran as single executions
        meta = handle.metadata.remote().result()
        assert meta["batch_mode"] == "dynamic" and meta["inputs"][0]["shape"] == [-1, 3, 224, 224]

        # The same model over HTTP with base64 tensors (one batched request of 3, one single).
        conn = http.client.HTTPConnection("127.0.0.1", cluster, timeout=120)
        x = np.stack(images[:3])
        body = {"inputs": {"input": {"b64": base64.b64encode(x.tobytes()).decode(),
                                     "dtype": "float32", "shape": list(x.shape)}}}
        status, answer = post(conn, "/mnv2", json.dumps(body))
        assert status == 200, answer
        out = answer["outputs"]["logits"]
        got = np.frombuffer(base64.b64decode(out["b64"]), out["dtype"]).reshape(out["shape"])
        np.testing.assert_allclose(got, np.concatenate(expected[:3]), rtol=RTOL, atol=ATOL)
        conn.close()
    finally:
        serve.delete("mnv2")


def test_mnist_http_json_load(cluster, mnist_onnx):
    """200 HTTP JSON requests from 16 clients to mnist-8, whose batch is fixed at 1: requests
    are still gathered into batches (and run one sample at a time); every answer equals
    onnxruntime's, the zoo's three digits also their reference logits."""
    app = kiln.serve.build_app(mnist_onnx, name="mnist", max_batch_size=8,
                               batch_wait_timeout_s=0.02)
    serve.run(app, name="mnist", route_prefix="/mnist")
    try:
        images = mnist_inputs(REQUESTS)
        expected = oracle(mnist_onnx, images)  # [1,10] each (the model's batch is 1)
        for (x, ref), want in zip(mnist_digits(), expected):
            np.testing.assert_allclose(want, ref, rtol=RTOL, atol=ATOL)
        local = threading.local()  # one keep-alive connection per client thread

        def send(i, x):
            if not hasattr(local, "conn"):
                local.conn = http.client.HTTPConnection("127.0.0.1", cluster, timeout=120)
            value = x[0] if i % 2 else x  # odd requests: one sample without the batch axis
            status, answer = post(local.conn, "/mnist",
                                  json.dumps({"inputs": {"Input3": value.tolist()}}))
            if status != 200:
                raise RuntimeError(f"HTTP {status}: {answer}")
            return np.asarray(answer["outputs"]["Plus214_Output_0"], np.float32)

        results, failures, _ = load(send, images)
        check_all(results, failures, expected, squeeze=lambda i: i % 2 == 1)
        status, stats = get(cluster, "/mnist/stats")
        assert status == 200 and stats["requests"] == REQUESTS, stats
        assert stats["failed_requests"] == 0 and stats["max_batch_size_seen"] > 1, stats
        assert stats["model_runs"] == REQUESTS, stats  # batch 1: one run per sample
        status, meta = get(cluster, "/mnist")
        assert status == 200 and meta["batch_mode"] == "gears" and meta["gears"] == [1]
        assert meta["max_batch_size"] == 8 and meta["batch_wait_timeout_s"] == 0.02, meta
        assert meta["inputs"] == [{"name": "Input3", "dtype": "float32", "shape": [1, 1, 28, 28]}]
    finally:
        serve.delete("mnist")


def test_errors_are_http_answers(cluster, mnist_onnx):
    """Bad requests get 4xx with Kiln's message; a handle call raises ServeError; the replica
    keeps serving."""
    handle = serve.run(kiln.serve.build_app(mnist_onnx, name="errs"), name="errs",
                       route_prefix="/errs")
    try:
        conn = http.client.HTTPConnection("127.0.0.1", cluster, timeout=60)
        cases = [
            (json.dumps({"inputs": {"Input3": np.zeros((1, 1, 28, 27)).tolist()}}), "shape"),
            (json.dumps({"inputs": {"x": [1.0]}}), "unknown input"),
            (json.dumps({"inputs": {}}), "missing input"),
            (json.dumps({"inputs": {"Input3": "text"}}), "cannot be read"),
            (json.dumps({"wrong": 1}), "inputs"),
            ("{not json", "not JSON"),
        ]
        for body, words in cases:
            status, answer = post(conn, "/errs", body)
            assert status == 400, (body[:40], answer)
            assert words in answer["error"]["message"], answer
            assert answer["error"]["code"] == 100000
        with pytest.raises(kiln.serve.ServeError) as e:
            handle.remote({"Input3": np.zeros((1, 1, 28, 28), np.float64)}).result()
        assert e.value.status == 400 and "float64" in e.value.message
        x, ref = mnist_digits()[0]
        out = handle.remote({"Input3": x}).result()["Plus214_Output_0"]
        np.testing.assert_allclose(out, ref, rtol=RTOL, atol=ATOL)
        conn.close()
    finally:
        serve.delete("errs")


def test_npu_resources_give_each_replica_its_device(cluster, mnist_onnx):
    """Two replicas asking for half an "NPU" each: Ray sets ASCEND_RT_VISIBLE_DEVICES in each
    (the one device, 0), Kiln's device 0 there is the CPU, and both answer correctly."""
    app = kiln.serve.build_app(mnist_onnx, name="npu", num_replicas=2, npus=0.5, num_cpus=0.5)
    handle = serve.run(app, name="npu", route_prefix="/npu")
    try:
        seen = {}
        for _ in range(40):
            meta = handle.metadata.remote().result()
            seen[meta["pid"]] = meta
            if len(seen) == 2:
                break
        assert len(seen) == 2, seen
        for meta in seen.values():
            assert meta["visible_devices"] == "0" and meta["device"] == 0, meta
            assert meta["soc"].startswith("cpu"), meta
        images = mnist_inputs(32, seed=2)
        expected = oracle(mnist_onnx, images)
        results, failures, _ = load(
            lambda i, p: handle.remote({"Input3": p}).result()["Plus214_Output_0"], images, 8)
        check_all(results, failures, expected, squeeze=lambda i: False)
    finally:
        serve.delete("npu")
