# Copyright 2026 The Kiln Authors
# SPDX-License-Identifier: Apache-2.0
"""kiln.kserve_model, the KServe (Open Inference Protocol v2) server, as a process on a free
127.0.0.1 port: readiness and metadata, bounded concurrent loads in JSON (mnist-8 as an .om
from `kiln atc`), in the binary tensor extension and over gRPC (MobileNetV2 as an .onnx),
every answer checked against onnxruntime, zero failed requests, batches of several requests
seen in the server's closing statistics; errors as HTTP 400 (gRPC INVALID_ARGUMENT) answers
with Kiln's message."""
import http.client
import json
import os
import signal
import subprocess
import sys
import threading

import numpy as np
import pytest

from conftest import (ATOL, REQUESTS, RTOL, compile_om, free_port, image_inputs, load,
                      mnist_digits, mnist_inputs, oracle, pack_v2_binary, unpack_v2_binary,
                      wait_until)

pytest.importorskip("kserve")


class Server:
    """`python -m kiln.kserve_model ...` on a free loopback port, REST only unless `grpc`
    (KServe's gRPC server listens on every address; the test dials it on 127.0.0.1)."""

    def __init__(self, log_dir, name, model_path, *extra, grpc=False):
        self.name = name
        self.port = free_port()
        self.grpc_port = free_port() if grpc else None
        grpc_args = (["--enable_grpc", "true", "--grpc_port", str(self.grpc_port)] if grpc
                     else ["--enable_grpc", "false"])
        self.log_path = os.path.join(log_dir, f"{name}-server.log")
        self._log = open(self.log_path, "wb")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "kiln.kserve_model", "--model_name", name, "--model_path",
             model_path, "--http_host", "127.0.0.1", "--http_port", str(self.port),
             *grpc_args, *extra],
            stdout=self._log, stderr=subprocess.STDOUT)
        try:
            wait_until(self.ready, 120, f"the {name} server")
        except BaseException:
            self.stop()
            print(self.log())
            raise

    def ready(self):
        if self.proc.poll() is not None:
            raise RuntimeError(f"the server exited with {self.proc.returncode}:\n{self.log()}")
        try:
            return self.request("GET", f"/v2/models/{self.name}/ready")[0] == 200
        except OSError:
            return False

    def request(self, method, path, body=None, headers=None, conn=None):
        own = conn is None
        conn = conn or http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
        try:
            conn.request(method, path, body=body, headers=headers or {})
            r = conn.getresponse()
            return r.status, r.read(), r.headers
        finally:
            if own:
                conn.close()

    def infer_json(self, body, conn=None):
        status, data, _ = self.request("POST", f"/v2/models/{self.name}/infer",
                                       json.dumps(body), {"Content-Type": "application/json"},
                                       conn)
        return status, json.loads(data)

    def log(self):
        with open(self.log_path, "rb") as f:
            return f.read().decode(errors="replace")

    def stop(self):
        """SIGTERM (a graceful shutdown); returns the statistics it logged, or None."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._log.close()
        for line in self.log().splitlines():
            if f"kiln: {self.name} served " in line:
                return json.loads(line.split(" served ", 1)[1])
        return None


def per_thread_connection(port):
    local = threading.local()

    def get():
        if not hasattr(local, "conn"):
            local.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        return local.conn
    return get


def test_mnist_om_v2_json(tmp_path, mnist_onnx):
    om = compile_om(mnist_onnx, str(tmp_path), "mnist")
    server = Server(str(tmp_path), "mnist", om, "--max_batch_size", "8",
                    "--batch_wait_timeout_s", "0.01")
    stats = None
    try:
        status, body, _ = server.request("GET", "/v2/health/ready")
        assert status == 200, body
        status, body, _ = server.request("GET", "/v2/models/mnist")
        meta = json.loads(body)
        assert status == 200 and meta["name"] == "mnist", meta
        assert meta["inputs"] == [{"name": "Input3", "datatype": "FP32", "shape": [1, 1, 28, 28]}]
        assert meta["outputs"] == [{"name": "Plus214_Output_0", "datatype": "FP32",
                                    "shape": [1, 10]}]

        images = mnist_inputs(REQUESTS)
        expected = oracle(mnist_onnx, images)
        for (_, ref), want in zip(mnist_digits(), expected):
            np.testing.assert_allclose(want, ref, rtol=RTOL, atol=ATOL)
        conn = per_thread_connection(server.port)

        def send(i, x):
            status, answer = server.infer_json(
                {"id": f"r{i}", "inputs": [{"name": "Input3", "shape": [1, 1, 28, 28],
                                            "datatype": "FP32", "data": x.ravel().tolist()}]},
                conn())
            if status != 200:
                raise RuntimeError(f"HTTP {status}: {answer}")
            assert answer["id"] == f"r{i}" and answer["model_name"] == "mnist"
            (out,) = answer["outputs"]
            assert out["name"] == "Plus214_Output_0" and out["datatype"] == "FP32"
            return np.asarray(out["data"], np.float32).reshape(out["shape"])

        results, failures, _ = load(send, images)
        assert failures == [], f"{len(failures)} failed requests, first: {failures[:3]}"
        for i, (got, want) in enumerate(zip(results, expected)):
            assert got.shape == (1, 10)
            np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL, err_msg=f"request {i}")

        # v1: {"instances": [...]} for a one-input model.
        status, body, _ = server.request(
            "POST", "/v1/models/mnist:predict", json.dumps({"instances": images[0].tolist()}),
            {"Content-Type": "application/json"})
        assert status == 200, body
        np.testing.assert_allclose(np.asarray(json.loads(body)["predictions"], np.float32),
                                   expected[0], rtol=RTOL, atol=ATOL)

        # Errors: 400 with Kiln's message; the server keeps serving.
        x = images[0].ravel().tolist()
        cases = [
            ({"name": "Input3", "shape": [1, 1, 28, 27], "datatype": "FP32", "data": x[:756]},
             "shape"),
            ({"name": "Input", "shape": [1, 1, 28, 28], "datatype": "FP32", "data": x},
             "unknown input"),
            ({"name": "Input3", "shape": [1, 1, 28, 28], "datatype": "INT32",
              "data": [0] * 784}, "int32"),
            ({"name": "Input3", "shape": [1, 1, 28, 28], "datatype": "FP32", "data": x[:10]},
             "bad input tensor"),
        ]
        for tensor, words in cases:
            status, answer = server.infer_json({"inputs": [tensor]})
            assert status == 400, (tensor["name"], tensor["shape"], answer)
            assert words in answer["error"], answer
        status, answer = server.infer_json({"inputs": [{"name": "Input3", "shape": [1, 1, 28, 28],
                                                        "datatype": "FP32", "data": x}]})
        assert status == 200, answer
    finally:
        stats = server.stop()
    assert server.proc.returncode is not None
    assert stats is not None, server.log()[-3000:]
    # The load, the v1 request and the last one; the refused ones never reached a batch.
    assert stats["requests"] == REQUESTS + 2 and stats["failed_requests"] == 0, stats
    assert stats["max_batch_size_seen"] > 1, stats


def test_mobilenetv2_onnx_v2_binary(tmp_path, mobilenetv2):
    server = Server(str(tmp_path), "mnv2", mobilenetv2, "--max_batch_size", "8",
                    "--batch_wait_timeout_s", "0.01")
    try:
        status, body, _ = server.request("GET", "/v2/models/mnv2")
        meta = json.loads(body)
        assert meta["inputs"] == [{"name": "input", "datatype": "FP32",
                                   "shape": [-1, 3, 224, 224]}], meta
        images = image_inputs(REQUESTS, seed=5)
        expected = []
        for k in range(0, REQUESTS, 25):
            expected += list(oracle(mobilenetv2, [np.stack(images[k:k + 25])])[0][:, None])
        conn = per_thread_connection(server.port)

        def send(i, x):
            header = {"inputs": [{"name": "input", "shape": [1, 3, 224, 224], "datatype": "FP32",
                                  "parameters": {"binary_data_size": x.nbytes}}],
                      "parameters": {"binary_data_output": True}}
            body, headers = pack_v2_binary(header, [x])
            status, data, answer_headers = server.request(
                "POST", "/v2/models/mnv2/infer", body, headers, conn())
            if status != 200:
                raise RuntimeError(f"HTTP {status}: {data[:500]}")
            head, raws = unpack_v2_binary(data,
                                          int(answer_headers["Inference-Header-Content-Length"]))
            (out,) = head["outputs"]
            return np.frombuffer(raws[0], np.float32).reshape(out["shape"])

        results, failures, _ = load(send, images)
        assert failures == [], f"{len(failures)} failed requests, first: {failures[:3]}"
        for i, (got, want) in enumerate(zip(results, expected)):
            assert got.shape == (1, 1000)
            np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL, err_msg=f"request {i}")
    finally:
        stats = server.stop()
    assert stats is not None, server.log()[-3000:]
    assert stats["requests"] == REQUESTS and stats["failed_requests"] == 0, stats
    assert stats["max_batch_size_seen"] > 1 and stats["model_runs"] < REQUESTS, stats


def test_mobilenetv2_onnx_v2_grpc(tmp_path, mobilenetv2):
    """The Open Inference Protocol's gRPC endpoint (raw tensor bytes, the path docs/serving.md
    recommends for large tensors): server and model readiness and metadata, then a bounded load
    from several client threads, every answer against onnxruntime, zero failures; an unknown
    input is INVALID_ARGUMENT with Kiln's message and the server keeps serving."""
    grpc = pytest.importorskip("grpc")
    from kserve.protocol.grpc import grpc_predict_v2_pb2 as pb
    from kserve.protocol.grpc import grpc_predict_v2_pb2_grpc as pb_grpc

    server = Server(str(tmp_path), "mnv2", mobilenetv2, "--max_batch_size", "8",
                    "--batch_wait_timeout_s", "0.01", grpc=True)
    count = REQUESTS // 2
    try:
        channel = grpc.insecure_channel(f"127.0.0.1:{server.grpc_port}")
        stub = pb_grpc.GRPCInferenceServiceStub(channel)
        wait_until(lambda: stub.ServerReady(pb.ServerReadyRequest(), timeout=5).ready, 60,
                   "the gRPC endpoint")
        assert stub.ModelReady(pb.ModelReadyRequest(name="mnv2")).ready
        meta = stub.ModelMetadata(pb.ModelMetadataRequest(name="mnv2"))
        assert [(t.name, t.datatype, list(t.shape)) for t in meta.inputs] == [
            ("input", "FP32", [-1, 3, 224, 224])], meta

        images = image_inputs(count, seed=11)
        expected = list(oracle(mobilenetv2, [np.stack(images)])[0][:, None])

        def request(x, name="input"):
            return pb.ModelInferRequest(
                model_name="mnv2", id="g",
                inputs=[pb.ModelInferRequest.InferInputTensor(
                    name=name, datatype="FP32", shape=list(x.shape))],
                raw_input_contents=[x.tobytes()])

        def send(i, x):
            answer = stub.ModelInfer(request(x[None]), timeout=120)
            (out,) = answer.outputs
            assert out.name == "logits" and out.datatype == "FP32", out
            if answer.raw_output_contents:
                data = np.frombuffer(answer.raw_output_contents[0], np.float32)
            else:
                data = np.asarray(out.contents.fp32_contents, np.float32)
            return data.reshape(list(out.shape))

        results, failures, _ = load(send, images, clients=8)
        assert failures == [], f"{len(failures)} failed requests, first: {failures[:3]}"
        for i, (got, want) in enumerate(zip(results, expected)):
            assert got.shape == (1, 1000)
            np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL, err_msg=f"request {i}")

        with pytest.raises(grpc.RpcError) as e:
            stub.ModelInfer(request(images[0][None], name="nope"), timeout=60)
        assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT, e.value
        assert "unknown input" in e.value.details(), e.value.details()
        assert len(send(0, images[0]).ravel()) == 1000  # still serving
        channel.close()
    finally:
        stats = server.stop()
    assert stats is not None, server.log()[-3000:]
    assert stats["requests"] == count + 1 and stats["failed_requests"] == 0, stats
    assert stats["max_batch_size_seen"] > 1, stats
